package notes

import (
	"fmt"
	"strings"
	"testing"
)

// TestTagProblem: a tag filter that can name no tag is refused with what
// to give instead; one that can, or none, is not.
func TestTagProblem(t *testing.T) {
	for tag, want := range map[string]string{
		"":           "",
		"  ":         "",
		"project":    "",
		"#project/a": "",
		"#été":       "",
		"#":          `is only "#"`,
		" # ":        `is only "#"`,
		"my tag":     "holds a space",
		"#a#b":       `holds a second "#"`,
		"##x":        `holds a second "#"`,
	} {
		got := TagProblem(tag)
		if (want == "") != (got == "") || !strings.Contains(got, want) {
			t.Errorf("TagProblem(%q) = %q; want %q", tag, got, want)
		}
	}
}

// TestNoNotesQuotesAFullPathAsGiven: a path prefix written as the full
// path of a folder on this machine is quoted as given, and the reader is
// told paths start at the vault's top folder, not the disk's.
func TestNoNotesQuotesAFullPathAsGiven(t *testing.T) {
	dir := t.TempDir()
	got := Filter{PathPrefix: dir + "/"}.NoNotes(ReaderModel)
	if !strings.Contains(got, fmt.Sprintf("whose path starts with %q", dir+"/")) || !strings.Contains(got, "not at the top of the disk") {
		t.Errorf("full path: %q", got)
	}
	for _, given := range []string{`C:\Users\me\vault\`, "~/notes/"} {
		got = Filter{PathPrefix: given}.NoNotes(ReaderModel)
		if !strings.Contains(got, fmt.Sprintf("whose path starts with %q", given)) || !strings.Contains(got, "not at the top of the disk") {
			t.Errorf("full path %s: %q", given, got)
		}
	}
	got = Filter{PathPrefix: "/Projects/Sub/"}.NoNotes(ReaderModel)
	if !strings.Contains(got, `whose path starts with "Projects/Sub/"`) || strings.Contains(got, "disk") {
		t.Errorf("a vault path with a leading slash: %q", got)
	}
}

package write

import (
	"strings"
	"testing"
)

// TestTwinErrorWording: a folder whose name differs only in case from
// the one asked for is the same folder on macOS and Windows; a note is
// the same file there, and the same note to Obsidian's links.
func TestTwinErrorWording(t *testing.T) {
	folder := (&TwinError{Path: "inbox/idea.md", Twin: "Inbox", Folder: true}).Error()
	if !strings.Contains(folder, `the folder "Inbox"`) || !strings.Contains(folder, "the same folder on macOS and Windows") || strings.Contains(folder, "note") {
		t.Errorf("a folder's twin: %q", folder)
	}
	note := (&TwinError{Path: "water.md", Twin: "Water.md"}).Error()
	if !strings.Contains(note, "the same file on macOS and Windows and the same note to Obsidian's links") {
		t.Errorf("a note's twin: %q", note)
	}
}

// TestTwinInFolder: a path beside a folder that differs only in case is
// put into that folder, at any depth; a note's twin has no folder.
func TestTwinInFolder(t *testing.T) {
	for _, c := range []struct {
		name string
		err  TwinError
		want string
	}{
		{"top folder", TwinError{Path: "inbox/x.md", Twin: "Inbox", Folder: true}, "Inbox/x.md"},
		{"deeper", TwinError{Path: "Work/inbox/a/x.md", Twin: "Work/Inbox", Folder: true}, "Work/Inbox/a/x.md"},
		{"note", TwinError{Path: "water.md", Twin: "Water.md"}, ""},
	} {
		if got := c.err.InFolder(); got != c.want {
			t.Errorf("%s: %q; want %q", c.name, got, c.want)
		}
	}
}

package mcp

import (
	"bufio"
	"context"
	"errors"
	"io"
	"io/fs"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jarvis-mcp/jarvis/internal/config"
	"github.com/jarvis-mcp/jarvis/internal/graph"
	"github.com/jarvis-mcp/jarvis/internal/index"
	"github.com/jarvis-mcp/jarvis/internal/sharedtest"
	"github.com/jarvis-mcp/jarvis/internal/vault"
)

// TestSectionByHeadingPath: a heading that occurs twice is told apart by
// the path above it, as search results give it.
func TestSectionByHeadingPath(t *testing.T) {
	text := "# Desktop\n## Settings\ndesktop settings\n# Mobile\n## Settings\nmobile settings\n"
	headings := []vault.Heading{{Level: 1, Text: "Desktop", Line: 1}, {Level: 2, Text: "Settings", Line: 2},
		{Level: 1, Text: "Mobile", Line: 4}, {Level: 2, Text: "Settings", Line: 5}}
	text += "# A > B\narrow heading\n"
	headings = append(headings, vault.Heading{Level: 1, Text: "A > B", Line: 7})
	for want, body := range map[string]string{
		"Settings":           "## Settings\ndesktop settings\n", // the first when nothing tells them apart
		"Mobile > Settings":  "## Settings\nmobile settings\n",
		"Desktop > Settings": "## Settings\ndesktop settings\n",
		"mobile":             "# Mobile\n## Settings\nmobile settings\n",
		"A > B":              "# A > B\narrow heading\n", // a heading with " > " in it
	} {
		got, err := section(text, headings, want)
		if err != nil || got != body {
			t.Errorf("section %q = %q, %v; want %q", want, got, err, body)
		}
	}
}

func TestStartFirst(t *testing.T) {
	edges := []graph.Edge{{Source: "A.md", Target: "B.md"}, {Source: "C.md", Target: "S.md"}, {Source: "B.md", Target: "C.md"}, {Source: "S.md", Target: "A.md"}}
	got := startFirst(edges, "S.md")
	want := []graph.Edge{edges[1], edges[3], edges[0], edges[2]}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("startFirst = %+v; want %+v", got, want)
		}
	}
}

func TestLongestRun(t *testing.T) {
	for s, want := range map[string]int{"": 0, "a`b": 1, "```go\nx\n```": 3, "``a````": 4} {
		if got := longestRun(s, '`'); got != want {
			t.Errorf("longestRun(%q) = %d; want %d", s, got, want)
		}
	}
}

// TestJSONLinesRefusesOverlongLines: a line longer than the limit is read
// and dropped whole, answered as not JSON; the next line passes.
func TestJSONLinesRefusesOverlongLines(t *testing.T) {
	ping := `{"jsonrpc":"2.0","id":1,"method":"ping"}` + "\n"
	var out strings.Builder
	f := newFlight(1, nil)
	r := &jsonLines{in: bufio.NewReaderSize(strings.NewReader(`{"x":"`+strings.Repeat("a", 200)+`"}`+"\n"+ping), 16),
		closer: io.NopCloser(nil), out: &lockedWriter{w: &out, flight: f}, flight: f, max: 64}
	got, err := io.ReadAll(r)
	if err != nil || string(got) != ping {
		t.Fatalf("read %q, %v; want only the ping", got, err)
	}
	if !strings.Contains(out.String(), `"code":-32700`) {
		t.Fatalf("the overlong line was answered with %q", out.String())
	}
}

func TestPageEnd(t *testing.T) {
	for _, c := range []struct {
		text        string
		offset, max int
		want        string
	}{
		{"short note", 0, 1000, "short note"},
		{"para one.\n\npara two goes on and on", 0, 20, "para one.\n\n"},
		{"line one\nline two goes on", 0, 14, "line one\n"},
		{"words without any break", 0, 16, "words without "},
		{"abcdefghijklmnopqrstuvwxyz", 0, 10, "abcdefghij"}, // no break in the second half: cut at max
		{"x\r\ny\r\nz and more", 0, 6, "x\r\ny\r\n"},
	} {
		runes := []rune(c.text)
		if got := string(runes[c.offset:pageEnd(runes, c.offset, c.max)]); got != c.want {
			t.Errorf("page of %q (max %d) = %q; want %q", c.text, c.max, got, c.want)
		}
	}
}

// TestLocateWithoutTheIndex: with no index, read-note finds a note in the
// files on disk by the rules of link resolution, as [[ref]] in a note at
// the vault root would.
func TestLocateWithoutTheIndex(t *testing.T) {
	root := t.TempDir()
	for _, p := range []string{"Index.md", "Projects/Index.md", "Areas/Plan.md", "Projects/Plan.md",
		"Projects/Deep/Plan.md", "Attachments/image.png", "Notes/image.png.md", "Cafe\u0301.md"} {
		sharedtest.WriteFile(t, root, p, "# "+p+"\n")
	}
	tl := &tools{vaults: []config.Vault{{Name: "v", Path: root}}}
	tests := []struct {
		ref, want string // want "" for not found
	}{
		{"Index", "Index.md"},                   // the root before a folder
		{"projects/index", "Projects/Index.md"}, // a path, in another case
		{"Plan", "Areas/Plan.md"},               // the shortest of three
		{"Deep/Plan", "Projects/Deep/Plan.md"},  // a partial path
		{"Other/Plan", ""},                      // a folder that is not there
		{"image.png.md", "Notes/image.png.md"},  // the note named like an attachment
		{"image.png", ""},                       // the attachment, which read-note does not read
		{"caf\u00e9", "Cafe\u0301.md"},          // the other Unicode normal form
	}
	for _, tt := range tests {
		_, got, _, err := tl.locate(context.Background(), "", tt.ref)
		if tt.want == "" {
			if err == nil {
				t.Errorf("locate(%q) = %q; want not found", tt.ref, got)
			}
			continue
		}
		if err != nil || got != tt.want {
			t.Errorf("locate(%q) = %q, %v; want %q", tt.ref, got, err, tt.want)
		}
	}
}

// TestSectionMissingSaysWhatToRead: a heading the note lacks is answered
// with all its headings when they are few ("are", ending in a full stop),
// and the title of a callout is said to be no heading, with the heading
// above it to read instead.
func TestSectionMissingSaysWhatToRead(t *testing.T) {
	text := "# Chen 2011b\n\n## Summary\n\nText.\n\n> [!quote] p. 41\n> A passage.\n\n## Quotes\n\n## Notes\n"
	headings := []vault.Heading{{Level: 1, Text: "Chen 2011b", Line: 1}, {Level: 2, Text: "Summary", Line: 3},
		{Level: 2, Text: "Quotes", Line: 10}, {Level: 2, Text: "Notes", Line: 12}}
	for want, msg := range map[string]string{
		"p. 42": `the note has no heading "p. 42"; its headings are "Chen 2011b", "Summary", "Quotes" and "Notes".`,
		"p. 41": `"p. 41" is the title of a callout on line 7, not a heading; read the heading above it, "Summary", or give the callout a block id (a line "^id" after it) and read heading "^id".`,
	} {
		_, err := section(text, headings, want)
		if err == nil || err.Error() != msg {
			t.Errorf("section %q: %v\nwant %s", want, err, msg)
		}
	}
	_, err := section("# Only\n", []vault.Heading{{Level: 1, Text: "Only", Line: 1}}, "Other")
	if want := `the note has no heading "Other"; its one heading is "Only".`; err == nil || err.Error() != want {
		t.Errorf("one heading: %v\nwant %s", err, want)
	}
}

// TestReadFailureGivesTheFix: a note this user may not read is answered
// with the command that lets them, as doctor gives it (index.ReadFix).
func TestReadFailureGivesTheFix(t *testing.T) {
	v := config.Vault{Name: "g", Path: t.TempDir()}
	sharedtest.WriteFile(t, v.Path, "Zero.md", "")
	err := readFailure(v, "Zero.md", &fs.PathError{Op: "open", Path: "Zero.md", Err: fs.ErrPermission})
	fix := index.ReadFix(filepath.Join(v.Path, "Zero.md"))
	if !strings.Contains(fix, "chmod u+r") || !strings.Contains(err.Error(), fix) || !errors.Is(err, fs.ErrPermission) {
		t.Errorf("read of a note that is not readable: %v; want %s", err, fix)
	}
	sharedtest.CheckWords(t, "read-note", err.Error())
}

package mcp_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/jarvis-mcp/jarvis/internal/mcp"
	"github.com/jarvis-mcp/jarvis/internal/sharedtest"
)

// TestWriteWithAMalformedETag: an etag given that is not one jarvis
// gives is said to be that, not missing, with how to get one.
func TestWriteWithAMalformedETag(t *testing.T) {
	cs, _ := writableExample(t)
	text, isErr := call(t, cs, mcp.ToolEditNote, map[string]any{"path": "Water.md", "etag": "0000", "edits": appendEdit}, nil)
	want := `"0000" is not an etag jarvis gives`
	if !isErr || !strings.Contains(text, want) || !strings.Contains(text, "read the note with read-note to get one") || strings.Contains(text, "missing") {
		t.Fatalf("edit-note with etag 0000: %v %q; want %q and how to get one, not that it is missing", isErr, text, want)
	}
	sharedtest.CheckWords(t, "malformed etag", text)
}

// TestTooLongAWriteSaysHowToWriteInParts: arguments over the 64 KB a call
// takes are refused, for a write, with how to write a longer note in
// parts (create it with part, then edit-note's append), and for
// periodic-note's append with how to append in parts; a read is told to
// shorten them.
func TestTooLongAWriteSaysHowToWriteInParts(t *testing.T) {
	cs, _ := writableExample(t)
	long := strings.Repeat("word ", 20000)
	for _, c := range []struct {
		tool string
		args map[string]any
		want string
	}{
		{mcp.ToolCreateNote, map[string]any{"path": "Long.md", "content": long}, "create it with part of its text, then add the rest with edit-note's append"},
		{mcp.ToolEditNote, map[string]any{"path": "Water.md", "etag": "x", "edits": []any{map[string]any{"op": "append", "text": long}}}, "create it with part of its text, then add the rest with edit-note's append"},
		{mcp.ToolPeriodicNote, map[string]any{"append": long}, "append the text in parts"},
		{mcp.ToolReadNote, map[string]any{"path": "Water.md", "heading": long}, "shorten them"},
	} {
		text, isErr := call(t, cs, c.tool, c.args, nil)
		if !isErr || !strings.Contains(text, "65536") || !strings.Contains(text, c.want) {
			t.Errorf("%s with 100 KB of arguments: %v %q; want %q", c.tool, isErr, text, c.want)
		}
		sharedtest.CheckWords(t, c.tool, text)
	}
}

// TestWriteArgumentOnAReadOnlyServer: periodic-note's append (and etag),
// which only a server with a writable vault takes, are refused on one
// without as create-note is there, saying writing is off and how to turn
// it on, not as an unknown argument.
func TestWriteArgumentOnAReadOnlyServer(t *testing.T) {
	cs := connect(t, realBackend(t, filepath.Join(t.TempDir(), "j.db"), true, exampleVault(t)))
	create, isErr := call(t, cs, mcp.ToolCreateNote, map[string]any{"path": "New.md", "content": "x"}, nil)
	if !isErr || !strings.Contains(create, "is off in this server") {
		t.Fatalf("create-note on a read-only server: %v %q", isErr, create)
	}
	_, how, _ := strings.Cut(create, "is off in this server")
	for _, args := range []map[string]any{{"append": "- bought beans"}, {"etag": "0123"}, {"period": "weekly", "append": "x", "etag": "0123"}} {
		text, isErr := call(t, cs, mcp.ToolPeriodicNote, args, nil)
		if !isErr || !strings.HasSuffix(text, how) || !strings.Contains(text, "--write") || strings.Contains(text, "unknown argument") {
			t.Errorf("periodic-note %v on a read-only server: %v %q; want it to end as create-note's refusal does: %q", args, isErr, text, how)
		}
		sharedtest.CheckWords(t, "periodic-note", text)
	}
	// Any other unknown argument is still one.
	if text, _ := call(t, cs, mcp.ToolPeriodicNote, map[string]any{"apend": "x"}, nil); !strings.Contains(text, "unknown argument") {
		t.Errorf("periodic-note with apend: %q", text)
	}
}

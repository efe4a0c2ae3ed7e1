package mcp_test

import (
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

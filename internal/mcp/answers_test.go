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

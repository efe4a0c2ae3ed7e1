package mcp_test

import (
	"strings"
	"testing"

	"github.com/jarvis-mcp/jarvis/internal/mcp"
)

// TestUnknownFieldOfAListItem: a misspelt field inside an item of a list
// argument is named where it is (edits[1]), with the fields an item takes
// and an example, not as an unknown argument of the tool; a misspelt
// argument with a near name asks the question and then lists, in a new
// sentence.
func TestUnknownFieldOfAListItem(t *testing.T) {
	cs, _ := writableExample(t)
	tag := etagOf(t, cs, "Water.md")
	text, isErr := call(t, cs, mcp.ToolEditNote, map[string]any{"path": "Water.md", "etag": tag,
		"edits": []any{map[string]any{"op": "append", "text": "x"}, map[string]any{"append": "Also oats."}}}, nil)
	for _, want := range []string{`edits[1] has no field "append"`, `an edit takes op (required), `, `such as {"op":"append","text":"..."}`} {
		if !isErr || !strings.Contains(text, want) {
			t.Errorf("edit-note with a misspelt field: %v %q, want %q", isErr, text, want)
		}
	}
	if strings.Contains(text, "there is no argument") {
		t.Errorf("edit-note with a misspelt field names it as an argument: %q", text)
	}
	text, _ = call(t, cs, mcp.ToolEditNote, map[string]any{"path": "Water.md", "etag": tag, "edit": appendEdit}, nil)
	if !strings.Contains(text, `did you mean edits? The tool takes path (required)`) {
		t.Errorf("edit-note with a misspelt argument: %q", text)
	}
}

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

// TestBadFieldOfAListItemNamedWhereItIs: a field of a list's item of the
// wrong value or type is named as an unknown field is, by the item it is
// in (edits[1].op), not "op in each item of edits".
func TestBadFieldOfAListItemNamedWhereItIs(t *testing.T) {
	cs, _ := writableExample(t)
	tag := etagOf(t, cs, "Water.md")
	for _, c := range []struct {
		edit map[string]any
		want string
	}{
		{map[string]any{"op": "bogus"}, `Invalid arguments: edits[1].op must be "append", "prepend", "replace", "replace_section", "set_properties" or "content"; got "bogus".`},
		{map[string]any{"op": "append", "text": 5}, `Invalid arguments: edits[1].text must be a string, not an integer.`},
	} {
		text, isErr := call(t, cs, mcp.ToolEditNote, map[string]any{"path": "Water.md", "etag": tag,
			"edits": []any{map[string]any{"op": "append", "text": "x"}, c.edit}}, nil)
		if !isErr || !strings.HasPrefix(text, c.want) {
			t.Errorf("edit-note with %v: %v %q, want %q", c.edit, isErr, text, c.want)
		}
	}
}

// TestEditNoteSaysADottedNameIsTopLevel: set_properties of a dotted name
// with no map in the note to hold it writes one top-level property, and
// the answer says so.
func TestEditNoteSaysADottedNameIsTopLevel(t *testing.T) {
	cs, _ := writableExample(t)
	var out mcp.WriteOutput
	text, isErr := call(t, cs, mcp.ToolEditNote, map[string]any{"path": "Water.md", "etag": etagOf(t, cs, "Water.md"),
		"edits": []any{map[string]any{"op": "set_properties", "properties": map[string]any{"source.url": "x"}}}}, &out)
	if isErr || !strings.Contains(strings.Join(out.Warnings, "\n"), `property "source.url" was set as one top-level property of that name, not as a key inside a map "source"`) {
		t.Fatalf("edit-note set_properties source.url: %v %q, warnings %q", isErr, text, out.Warnings)
	}
	if !strings.Contains(text, "top-level property") {
		t.Errorf("the answer's text does not say how source.url was set: %q", text)
	}
}

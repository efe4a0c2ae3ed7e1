package mcp_test

import (
	"strings"
	"testing"

	"github.com/jarvis-mcp/jarvis/internal/mcp"
)

// TestQueryTableKeepsListItemsApart: the table that `jarvis query` and
// query-notes print shows a list so that items holding commas stay apart
// ("Müller, Hans" is one author, not two), and quotes an item that holds
// the separator itself.
func TestQueryTableKeepsListItemsApart(t *testing.T) {
	for _, tc := range []struct {
		name string
		give any
		want string
	}{
		{"names with commas", []any{"Müller, Hans", "Patel, Anika"}, "Müller, Hans; Patel, Anika"},
		{"plain items", []any{"a", "b", 3.0}, "a; b; 3"},
		{"an item holding the separator", []any{"x; y", "z"}, `"x; y"; z`},
		{"an item in quotes", []any{`"q"`, "z"}, `"\"q\""; z`},
		{"one item", []any{"Müller, Hans"}, "Müller, Hans"},
		{"a pipe", []any{"a|b"}, `a\|b`},
	} {
		out := mcp.QueryNotesOutput{
			Columns: []mcp.QueryColumn{{ID: "authors", Name: "authors"}},
			Rows:    []mcp.QueryRow{{Path: "a.md", Values: map[string]any{"authors": tc.give}}},
		}
		table := mcp.MarkdownTable(out)
		want := "| a.md | " + tc.want + " |"
		if !strings.Contains(table, want+"\n") {
			t.Errorf("%s: table\n%s\nwant the row %s", tc.name, table, want)
		}
	}
}

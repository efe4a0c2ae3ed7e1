package query_test

import (
	"context"
	"encoding/json"
	"strconv"
	"strings"
	"testing"

	"github.com/jarvis-mcp/jarvis/internal/bases"
	"github.com/jarvis-mcp/jarvis/internal/query"
	"github.com/jarvis-mcp/jarvis/internal/query/querytest"
)

// TestColumnsReadAsTheFilterReads: a column names a property as a filter
// does, so that a nested property (owner.name) and one in brackets
// (note["due date"]) show the value the filter compares; a name a filter
// cannot read as written ("due date") is still the property of that name.
func TestColumnsReadAsTheFilterReads(t *testing.T) {
	v := narrowVault(t)
	for _, tc := range []struct{ column, filter, want string }{
		{"owner.name", `owner.name == "Ada"`, "Ada"},
		{"note.owner.name", `note.owner.name == "Ada"`, "Ada"},
		{`note["due date"]`, `note["due date"] == date("2026-12-01")`, "2026-12-01"},
		{`note["owner"]["name"]`, `note["owner"]["name"] == "Ada"`, "Ada"},
		{"due date", `note["due date"] == date("2026-12-01")`, "2026-12-01"},
	} {
		b, err := query.AdHoc{Filter: json.RawMessage(strconv.Quote(`file.basename == "Gemini" && ` + tc.filter)), Properties: []string{tc.column}}.Base()
		if err != nil {
			t.Fatal(err)
		}
		res, err := query.Run(context.Background(), v, query.Request{Base: b, Now: querytest.Now})
		if err != nil {
			t.Fatalf("column %s: %v", tc.column, err)
		}
		if len(res.Rows) != 1 || res.Rows[0].File.Path() != "Projects/Gemini.md" {
			t.Fatalf("filter %s: rows %q", tc.filter, table(res.Rows))
		}
		if got := bases.Display(res.Rows[0].Values[0]); got != tc.want {
			t.Errorf("column %s: %q, want %q as the filter %s reads it", tc.column, got, tc.want, tc.filter)
		}
		if len(res.Warnings) != 0 {
			t.Errorf("column %s: warnings %q", tc.column, res.Warnings)
		}
	}
}

// TestColumnNoFileHas: a column that names a property no file has says so
// once, with the closest name when one is close, nested or not (the view
// is Gemini alone, whose owner has a name).
func TestColumnNoFileHas(t *testing.T) {
	v := narrowVault(t)
	for column, want := range map[string]string{
		"owner.nme": "column owner.nme: no file has a property owner.nme; did you mean owner.name?",
		"ownr":      "column ownr: no file has a property ownr; did you mean owner?",
		"owner":     "",
		"file.name": "",
	} {
		b, err := query.AdHoc{Filter: json.RawMessage(`"file.basename == \"Gemini\""`), Properties: []string{column}}.Base()
		if err != nil {
			t.Fatal(err)
		}
		res, err := query.Run(context.Background(), v, query.Request{Base: b, Now: querytest.Now})
		if err != nil {
			t.Fatal(err)
		}
		if got := strings.Join(res.Warnings, "\n"); got != want {
			t.Errorf("column %s: warnings %q, want %q", column, got, want)
		}
	}
}

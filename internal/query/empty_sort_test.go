package query_test

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/jarvis-mcp/jarvis/internal/bases"
	"github.com/jarvis-mcp/jarvis/internal/query"
	"github.com/jarvis-mcp/jarvis/internal/query/querytest"
)

// TestEmptyValuesSortLast: a view sorted or grouped by a property puts the
// notes without it after the others, ascending and descending alike
// (bases.SortOrder). Borealis is the one project without an owner.
func TestEmptyValuesSortLast(t *testing.T) {
	_, v, _ := indexed(t)
	b, err := bases.ParseBase([]byte(`filters: file.inFolder("Projects")
views:
  - type: table
    name: Owner ascending
    order: [file.name, owner]
    sort:
      - property: owner
        direction: ASC
  - type: table
    name: Owner descending
    order: [file.name, owner]
    sort:
      - property: owner
        direction: DESC
  - type: table
    name: Grouped ascending
    order: [file.name]
    sort:
      - property: file.name
    groupBy:
      property: owner
      direction: ASC
  - type: table
    name: Grouped descending
    order: [file.name]
    sort:
      - property: file.name
    groupBy:
      property: owner
      direction: DESC
`))
	if err != nil {
		t.Fatal(err)
	}
	run := func(view string) *query.Result {
		t.Helper()
		res, err := query.Run(context.Background(), v, query.Request{Base: b, View: view, Now: querytest.Now})
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	for view, want := range map[string][]string{
		// Ties (Cygnus and Draco, both Grace's) keep path order.
		"Owner ascending":  {"Apollo.md | Ada", "Cygnus.md | Grace", "Draco.md | Grace", "Borealis.md | "},
		"Owner descending": {"Cygnus.md | Grace", "Draco.md | Grace", "Apollo.md | Ada", "Borealis.md | "},
	} {
		if got := table(run(view).Rows); !slices.Equal(got, want) {
			t.Errorf("%s:\n%s\nwant:\n%s", view, strings.Join(got, "\n"), strings.Join(want, "\n"))
		}
	}
	for view, want := range map[string][]string{
		"Grouped ascending":  {"Ada: Apollo.md", "Grace: Cygnus.md, Draco.md", ": Borealis.md"},
		"Grouped descending": {"Grace: Cygnus.md, Draco.md", "Ada: Apollo.md", ": Borealis.md"},
	} {
		var got []string
		for _, g := range run(view).Groups {
			got = append(got, bases.Display(g.Key)+": "+strings.Join(table(g.Rows), ", "))
		}
		if !slices.Equal(got, want) {
			t.Errorf("%s:\n%s\nwant:\n%s", view, strings.Join(got, "\n"), strings.Join(want, "\n"))
		}
	}
}

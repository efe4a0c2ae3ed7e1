package query_test

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jarvis-mcp/jarvis/internal/query"
	"github.com/jarvis-mcp/jarvis/internal/query/querytest"
	"github.com/jarvis-mcp/jarvis/internal/sharedtest"
	"github.com/jarvis-mcp/jarvis/internal/vault"
)

// TestBaseFileProblemsSayWhere: a problem of a base is placed in the file
// it is written in, on the line a reader finds it on (the note's line for
// a base block), naming the view by its name; and a broken view leaves
// the others running.
func TestBaseFileProblemsSayWhere(t *testing.T) {
	_, v, _ := indexed(t)
	dir := filepath.Join(t.TempDir(), "other")
	sharedtest.WriteFile(t, dir, "Bases/Views.base", `filters: file.inFolder("Projects")
views:
  - type: table
    name: Cards
    order: [file.name]
  - type: table
    name: BadSort
    sort:
      - property: due
        direction: down
  - type: table
    name: Table
    limit: ten
`)
	sharedtest.WriteFile(t, dir, "Bases/Indent.base", "views:\n  - type: table\n    name: T\n   limit: 3\n")
	sharedtest.WriteFile(t, dir, "Home.md", "# Home\n\n```base\nviews:\n  - type: table\n```\n\nMore:\n\n```base\nfilters: 'status =='\n```\n")
	root, err := vault.OpenRoot(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		base  string
		block int
		want  string
	}{
		{"Bases/Indent.base", 0, "Bases/Indent.base, line 4: this line is not valid YAML; check its indentation"},
		{"Home.md", 2, "Home.md, base block 2, line 11: filters: expression `status ==`"},
	} {
		_, err := query.ReadBase(root, v, c.base, c.block)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s block %d: %v, want %q", c.base, c.block, err, c.want)
		}
	}
	src, err := query.ReadBase(root, v, "Bases/Views.base", 0)
	if err != nil {
		t.Fatalf("one broken view fails the base: %v", err)
	}
	for view, want := range map[string]string{
		"Table":   `Bases/Views.base, line 13: limit of view "Table" must be a whole number, got "ten"`,
		"BadSort": `Bases/Views.base: sort key 1 of view "BadSort": the direction must be ASC or DESC, not "down"`,
	} {
		_, err := query.Run(context.Background(), v, query.Request{Base: src.Base, View: view, Now: querytest.Now})
		if err == nil || err.Error() != want {
			t.Errorf("view %s: %v, want %q", view, err, want)
		}
	}
	res, err := query.Run(context.Background(), v, query.Request{Base: src.Base, View: "Cards", Now: querytest.Now})
	if err != nil {
		t.Fatalf("view Cards: %v", err)
	}
	if res.Total != 4 || len(res.Warnings) != 2 || !strings.Contains(res.Warnings[0], `view "BadSort" cannot run`) {
		t.Errorf("Cards: %d rows, warnings %q", res.Total, res.Warnings)
	}
}

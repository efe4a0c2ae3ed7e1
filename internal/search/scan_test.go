package search

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/jarvis-mcp/jarvis/internal/config"
	"github.com/jarvis-mcp/jarvis/internal/search/fulltext"
	"github.com/jarvis-mcp/jarvis/internal/search/notes"
)

// TestSnippetsAndPassagesReadOneBound: a search's snippet and
// build-context's passages read the same first fulltext.MaxScanBytes of
// a note's text, however many of its chunks hold the query's words: a
// word only past that point still finds the note, but neither its
// snippet nor its passages reach it, and the passages' text stays within
// the bound.
func TestSnippetsAndPassagesReadOneBound(t *testing.T) {
	root := t.TempDir()
	para := "Alpha notes about the kettle and the teapot, one more paragraph of them.\n\n"
	big := "# Big\n\n" + strings.Repeat(para, fulltext.MaxScanBytes*3/2/len(para)) + "Alpha and omega at the very end.\n"
	if err := os.WriteFile(filepath.Join(root, "Big.md"), []byte(big), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "Small.md"), []byte("# Small\n\nAlpha and the kettle.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	svc, _ := indexedService(t, config.Vault{Name: "v", Path: root})
	ctx := context.Background()
	ans, err := svc.Search(ctx, Query{Mode: ModeKeyword, Text: "omega", Limit: 5})
	if err != nil || len(ans.Results) != 1 || ans.Results[0].Path != "Big.md" {
		t.Fatalf("search for omega: %+v, %v; want Big.md", ans.Results, err)
	}
	if strings.Contains(ans.Results[0].Snippet, "omega") {
		t.Fatalf("the snippet %q reaches past the bound", ans.Results[0].Snippet)
	}
	pa, err := svc.Passages(ctx, PassageQuery{Text: "alpha omega", Filter: notes.Filter{Vaults: []string{"v"}}})
	if err != nil {
		t.Fatal(err)
	}
	seen := false
	for _, np := range pa.Notes {
		if np.Path != "Big.md" {
			continue
		}
		seen = true
		total := 0
		for _, p := range np.Passages {
			total += len(p.Text)
			if strings.Contains(p.Text, "omega") {
				t.Fatalf("a passage past the bound: %q", p.Text)
			}
		}
		if total > fulltext.MaxScanBytes || total == 0 {
			t.Fatalf("Big.md's passages hold %d bytes; want some, at most %d", total, fulltext.MaxScanBytes)
		}
	}
	if !seen {
		t.Fatalf("build-context's passages leave Big.md out: %+v", pa.Notes)
	}
}

// TestFileScanFindsWordsAsKeywordSearch: the search made when the index
// cannot be read finds a query's words as keyword search does, whole
// words folded and stemmed, not letters inside other words ("x" in
// "context"), a query of symbols by its symbols; it titles a note as the
// index does (its frontmatter title); and its snippet is taken from the note's text, never its
// frontmatter.
func TestFileScanFindsWordsAsKeywordSearch(t *testing.T) {
	root := t.TempDir()
	for name, text := range map[string]string{
		"Zettel.md":                "---\ntitle: Linking zettels together\ntags: [pkm]\n---\n# Linking\n\nEvery note gets context from its links. Index notes point at others.\n",
		"Axis.md":                  "# Axis\n\nPlot the x axis first.\n",
		"Sync.md":                  "---\ntitle: Sync\n---\nThe phone synced overnight.\n",
		"Props.md":                 "---\ntitle: Linking zettels\n---\nNothing about it here, only linking by hand.\n",
		"Rocket 🚀 launch ideas.md": "# Rocket\n\nThrusters and propellant budgets. 🚀\n",
	} {
		if err := os.WriteFile(filepath.Join(root, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	v := config.Vault{Name: "v", Path: root}
	svc, _ := indexedService(t, v)
	ctx := context.Background()
	for _, tc := range []struct {
		query, want string
		snippet     string // the scan's snippet of want holds this
	}{
		{"x", "Axis.md", "Plot the **x** axis"},
		{"syncing", "Sync.md", "phone **synced**"},
		{"linking", "Props.md", "only **linking** by hand"},
		{"🚀", "Rocket 🚀 launch ideas.md", "budgets. **🚀**"},
	} {
		kw, err := svc.Search(ctx, Query{Mode: ModeKeyword, Text: tc.query, Limit: 10})
		if err != nil {
			t.Fatal(err)
		}
		scan, err := scanFiles(ctx, []config.Vault{v}, tc.query, notes.Filter{}, 10, true)
		if err != nil {
			t.Fatal(err)
		}
		if !sameSet(resultPaths(scan), resultPaths(kw.Results)) || !slices.Contains(resultPaths(scan), tc.want) {
			t.Errorf("%q: the file scan finds %v, keyword search %v; want both to find %s", tc.query, resultPaths(scan), resultPaths(kw.Results), tc.want)
		}
		titles := map[string]string{}
		for _, r := range kw.Results {
			titles[r.Path] = r.Title
		}
		for _, r := range scan {
			if want, ok := titles[r.Path]; ok && r.Title != want {
				t.Errorf("%q: the file scan titles %s %q, keyword search %q", tc.query, r.Path, r.Title, want)
			}
			if strings.Contains(r.Snippet, "title:") || strings.Contains(r.Snippet, "tags:") {
				t.Errorf("%q: the snippet of %s shows the frontmatter: %q", tc.query, r.Path, r.Snippet)
			}
			if r.Path == tc.want && !strings.Contains(r.Snippet, tc.snippet) {
				t.Errorf("%q: the snippet of %s is %q; want it to hold %q", tc.query, r.Path, r.Snippet, tc.snippet)
			}
		}
	}
}

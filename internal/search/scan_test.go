package search

import (
	"context"
	"os"
	"path/filepath"
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

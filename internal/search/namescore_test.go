package search

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jarvis-mcp/jarvis/internal/config"
	"github.com/jarvis-mcp/jarvis/internal/search/fulltext"
	"github.com/jarvis-mcp/jarvis/internal/search/searchtest"
	"github.com/jarvis-mcp/jarvis/internal/search/vectors"
)

// TestNamedNoteScoreShowsItsPlace: a note named by the query (here by its
// alias) comes first, and in every mode its score is at least that of
// every note below it: the score printed is the one the list is in order
// of, even when another note holds the word far more often.
func TestNamedNoteScoreShowsItsPlace(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	write := func(name, text string) {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("Projects/Home/Kitchen renovation.md", "---\naliases: [Kitchen]\n---\n# Kitchen renovation\n\nNew cupboards and a tiled floor for the kitchen.\n")
	write("Huge.md", "# Huge\n\n"+strings.Repeat("kitchen kitchen table kitchen sink kitchen\n", 200))
	write("Other.md", "# Other\n\nA kitchen scale weighs the beans.\n")
	db := searchtest.IndexedVaults(t, config.Vault{Name: "v", Path: dir})
	vec := vectors.NewVectors(db, vectors.LexicalSource(), quietLog())
	vec.Serve()
	if _, err := vec.Sync(ctx, vectors.SyncOptions{}); err != nil {
		t.Fatal(err)
	}
	kw, sem := fulltext.NewKeyword(db), NewSemantic(vec, db)
	svc := NewService(kw, sem, NewCombinedOver(kw, sem), []config.Vault{{Name: "v", Path: dir}}, nil, quietLog())
	for _, mode := range []Mode{ModeKeyword, ModeCombined} {
		a, err := svc.Search(ctx, Query{Mode: mode, Text: "kitchen"})
		if err != nil {
			t.Fatal(err)
		}
		if len(a.Results) < 2 || a.Results[0].Path != "Projects/Home/Kitchen renovation.md" {
			t.Fatalf("%s: %v; want the note named Kitchen first", mode, a.Results)
		}
		for i := 1; i < len(a.Results); i++ {
			if a.Results[i].Score > a.Results[i-1].Score {
				t.Errorf("%s: %s (%v) below %s (%v): the scores rise down the list", mode,
					a.Results[i].Path, a.Results[i].Score, a.Results[i-1].Path, a.Results[i-1].Score)
			}
		}
	}
}

package search

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/jarvis-mcp/jarvis/internal/config"
	"github.com/jarvis-mcp/jarvis/internal/index"
	"github.com/jarvis-mcp/jarvis/internal/search/fulltext"
	"github.com/jarvis-mcp/jarvis/internal/search/searchtest"
	"github.com/jarvis-mcp/jarvis/internal/search/vectors"
	"github.com/jarvis-mcp/jarvis/internal/store"
	"github.com/jarvis-mcp/jarvis/internal/vault"
)

// TestTiesDoNotFollowIndexHistory: two notes that score the same come
// back in the same order, in every mode, whether the index was built in
// one run or the first note was added after the second (so that its rows
// have the larger ids): by path.
func TestTiesDoNotFollowIndexHistory(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	write := func(name string) {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("# Note\n\nThe roastery sells washed beans.\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	v := config.Vault{Name: "v", Path: dir}
	serve := func(db *store.DB) *Service {
		vec := vectors.NewVectors(db, vectors.LexicalSource(), quietLog())
		vec.Serve()
		if _, err := vec.Sync(ctx, vectors.SyncOptions{}); err != nil {
			t.Fatal(err)
		}
		kw, sem := fulltext.NewKeyword(db), NewSemantic(vec, db)
		return NewService(kw, sem, NewCombinedOver(kw, sem), []config.Vault{v}, nil, quietLog())
	}
	// Incrementally: y/Note.md first, then x/Note.md.
	write("y/Note.md")
	grown := searchtest.EmptyDB(t)
	ix := index.New(grown, vault.NewParser(), quietLog())
	if _, err := ix.Index(ctx, v, nil); err != nil {
		t.Fatal(err)
	}
	write("x/Note.md")
	if _, err := ix.Index(ctx, v, nil); err != nil {
		t.Fatal(err)
	}
	// Rebuilt: both in one run, x/Note.md first.
	rebuilt := searchtest.IndexedVaults(t, v)

	want := []string{"x/Note.md", "y/Note.md"}
	for _, mode := range allModes {
		for name, svc := range map[string]*Service{"incremental": serve(grown), "rebuilt": serve(rebuilt)} {
			a, err := svc.Search(ctx, Query{Mode: mode, Text: "roastery beans"})
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, r := range a.Results {
				got = append(got, r.Path)
			}
			if !slices.Equal(got, want) || a.Results[0].Score != a.Results[1].Score {
				t.Errorf("%s, %s: %v (scores %v), want %v with equal scores", mode, name, got, a.Results, want)
			}
		}
	}
}

package search

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jarvis-mcp/jarvis/internal/config"
	"github.com/jarvis-mcp/jarvis/internal/search/fulltext"
	"github.com/jarvis-mcp/jarvis/internal/search/notes"
	"github.com/jarvis-mcp/jarvis/internal/search/searchtest"
	"github.com/jarvis-mcp/jarvis/internal/search/vectors"
	"github.com/jarvis-mcp/jarvis/internal/vault"
)

// TestAnswersFollowTheServingRules indexes a vault without exclude
// patterns, then searches it with a service whose vault excludes Secret/:
// what the index holds of Secret/ is never in an answer, in any mode, with
// any filter, or among build-context's passages, and the limit still fills
// with notes the rules let through.
func TestAnswersFollowTheServingRules(t *testing.T) {
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
	// The secret notes match best, so that a limit cut before the rules
	// would leave room for nothing else.
	for i := range 4 {
		write(fmt.Sprintf("Secret/Roastery %d.md", i), "#beans\nRoastery roastery roastery plans, roastery.\n")
		write(fmt.Sprintf("Public/Cafe %d.md", i), "#beans\nA cafe near the roastery. [[Secret/Roastery 0]]\n")
	}
	ctx := context.Background()
	db := searchtest.IndexedVaults(t, config.Vault{Name: "v", Path: dir})
	vec := vectors.NewVectors(db, vectors.LexicalSource(), quietLog())
	vec.Serve()
	if _, err := vec.Sync(ctx, vectors.SyncOptions{}); err != nil {
		t.Fatal(err)
	}
	kw, sem := fulltext.NewKeyword(db), NewSemantic(vec, db)
	served := config.Vault{Name: "v", Path: dir, Exclude: []string{"Secret/**"}}
	svc := NewService(kw, sem, NewCombinedOver(kw, sem), []config.Vault{served}, nil, quietLog())

	for _, mode := range allModes {
		for _, f := range []notes.Filter{{}, {Vault: "v"}, {Vaults: []string{"v"}}, {Tag: "beans"}, {PathPrefix: "Secret/"}} {
			a, err := svc.Search(ctx, Query{Mode: mode, Text: "roastery", Limit: 3, Filter: f})
			if err != nil {
				t.Fatal(err)
			}
			want := 3
			if f.PathPrefix != "" {
				want = 0
			}
			if len(a.Results) != want {
				t.Errorf("%s %+v: %d results, want %d: %+v", mode, f, len(a.Results), want, a.Results)
			}
			for _, r := range a.Results {
				if vault.LeftOut(r.Path, served.Exclude) {
					t.Errorf("%s %+v: excluded note %s answered", mode, f, r.Path)
				}
			}
		}
	}
	// build-context: its search, the notes asked for and the notes one
	// link away.
	p, err := svc.Passages(ctx, PassageQuery{
		Text: "roastery", Also: []NoteRef{{"v", "Secret/Roastery 1.md"}},
		Links: func(context.Context, string, string) ([]string, error) { return []string{"Secret/Roastery 0.md"}, nil }, Hop: 3,
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Notes) == 0 {
		t.Fatal("build-context found nothing")
	}
	for _, n := range p.Notes {
		if strings.HasPrefix(n.Path, "Secret/") {
			t.Errorf("build-context gave passages of excluded note %s", n.Path)
		}
	}
}

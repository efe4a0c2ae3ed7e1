package related

import (
	"context"
	"errors"
	"path/filepath"
	"testing"

	"github.com/jarvis-mcp/jarvis/internal/search"
	"github.com/jarvis-mcp/jarvis/internal/search/searchtest"
	"github.com/jarvis-mcp/jarvis/internal/search/vectors"
	"github.com/jarvis-mcp/jarvis/internal/store"
)

// indexedSimilarity indexes the example vault as "coffee", with the
// lexical embedder's vectors, and returns Similarity over it.
func indexedSimilarity(t *testing.T) (*Similarity, *store.DB) {
	t.Helper()
	ctx := context.Background()
	db := searchtest.IndexedDB(t, "coffee", filepath.Join("..", "..", "examples", "vault"))
	vec := vectors.NewVectors(db, vectors.LexicalSource(), nil)
	vec.Serve()
	if _, err := vec.Sync(ctx, vectors.SyncOptions{}); err != nil {
		t.Fatal(err)
	}
	return NewSimilarity(vec, db, search.NewSemantic(vec, db)), db
}

func TestSimilar(t *testing.T) {
	ctx := context.Background()
	sem, db := indexedSimilarity(t)
	var id int64
	if err := db.QueryRowContext(ctx, `SELECT id FROM files WHERE path = 'Methods/French press.md'`).Scan(&id); err != nil {
		t.Fatal(err)
	}
	got, err := sem.Similar(ctx, "coffee", id, 5)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 5 {
		t.Fatalf("%d notes: %+v", len(got), got)
	}
	for i, s := range got {
		if s.Path == "Methods/French press.md" {
			t.Fatal("the note is among its own similar notes")
		}
		if s.Similarity < search.DefaultSimilarityFloors[search.KindLexical] || (i > 0 && s.Similarity > got[i-1].Similarity) {
			t.Fatalf("similarities not above the floor, best first: %+v", got)
		}
		if s.Passage.Text == "" || s.Passage.Line == 0 || s.From.Text == "" || s.From.Line == 0 {
			t.Fatalf("passages of %s: %+v", s.Path, s)
		}
	}
	if none, err := sem.Similar(ctx, "elsewhere", id, 5); err != nil || len(none) != 0 {
		t.Fatalf("another vault: %+v, %v", none, err)
	}

	none := vectors.NewVectors(db, vectors.LexicalSource(), nil)
	empty := NewSimilarity(none, db, search.NewSemantic(none, db))
	if _, err := empty.Similar(ctx, "coffee", id, 5); !errors.Is(err, search.ErrNoVectors) {
		t.Fatalf("without vectors: %v", err)
	}
}

// TestSimilarByCentroid holds the one-scan path of large vaults to the
// answers of the chunk-by-chunk one: the same pairs, the same
// similarities, nearly the same notes.
func TestSimilarByCentroid(t *testing.T) {
	ctx := context.Background()
	sem, db := indexedSimilarity(t)
	var id int64
	if err := db.QueryRowContext(ctx, `SELECT id FROM files WHERE path = 'Coffee journal.md'`).Scan(&id); err != nil {
		t.Fatal(err)
	}
	each, err := sem.Similar(ctx, "coffee", id, 5)
	if err != nil {
		t.Fatal(err)
	}
	budget := similarScanBudget
	similarScanBudget = 0
	t.Cleanup(func() { similarScanBudget = budget })
	once, err := sem.Similar(ctx, "coffee", id, 5)
	if err != nil {
		t.Fatal(err)
	}
	if len(once) != 5 {
		t.Fatalf("%d notes by centroid", len(once))
	}
	shared := 0
	for _, o := range once {
		if o.Path == "Coffee journal.md" || o.Similarity < search.DefaultSimilarityFloors[search.KindLexical] {
			t.Fatalf("by centroid: %+v", o)
		}
		for _, e := range each {
			if e.Path != o.Path {
				continue
			}
			shared++
			if d := e.Similarity - o.Similarity; d > 0.01 || d < -0.01 || e.Passage.Line != o.Passage.Line || e.From.Line != o.From.Line {
				t.Errorf("%s: chunk by chunk %.3f (lines %d, %d), by centroid %.3f (lines %d, %d)",
					o.Path, e.Similarity, e.From.Line, e.Passage.Line, o.Similarity, o.From.Line, o.Passage.Line)
			}
		}
	}
	if shared < 4 {
		t.Fatalf("only %d of 5 notes in common:\n%+v\n%+v", shared, each, once)
	}
}

package search

import (
	"context"
	"errors"
	"slices"
	"testing"

	"github.com/jarvis-mcp/jarvis/internal/config"
	"github.com/jarvis-mcp/jarvis/internal/search/vectors"
)

func TestSimilar(t *testing.T) {
	ctx := context.Background()
	svc, db := indexedService(t, config.Vault{Name: "coffee", Path: exampleVault()})
	sem := svc.semantic
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
		if s.Similarity < DefaultSimilarityFloors[KindLexical] || (i > 0 && s.Similarity > got[i-1].Similarity) {
			t.Fatalf("similarities not above the floor, best first: %+v", got)
		}
		if s.Passage.Text == "" || s.Passage.Line == 0 || s.From.Text == "" || s.From.Line == 0 {
			t.Fatalf("passages of %s: %+v", s.Path, s)
		}
	}
	if none, err := sem.Similar(ctx, "elsewhere", id, 5); err != nil || len(none) != 0 {
		t.Fatalf("another vault: %+v, %v", none, err)
	}

	empty := NewSemantic(vectors.NewVectors(db, vectors.LexicalSource(), quietLog()), db)
	if _, err := empty.Similar(ctx, "coffee", id, 5); !errors.Is(err, ErrNoVectors) {
		t.Fatalf("without vectors: %v", err)
	}
}

func TestNotesMentioning(t *testing.T) {
	kw, _ := indexedKeyword(t, "coffee", exampleVault(), "other", exampleVault())
	paths, more, err := kw.NotesMentioning(context.Background(), "coffee", []string{"Pour over", "V60", `"quoted"`}, 3)
	if err != nil {
		t.Fatal(err)
	}
	if len(paths) != 3 || !more {
		t.Fatalf("paths %v, more %v", paths, more)
	}
	all, more, err := kw.NotesMentioning(context.Background(), "coffee", []string{"V60"}, 50)
	if err != nil || more {
		t.Fatal(err, more)
	}
	for _, want := range []string{"Methods/Pour over.md", "Coffee journal.md", "Current setup.md", "Methods/Cold brew.md"} {
		if !slices.Contains(all, want) {
			t.Errorf("%s not among %v", want, all)
		}
	}
}

// TestSimilarByCentroid holds the one-scan path of large vaults to the
// answers of the chunk-by-chunk one: the same pairs, the same
// similarities, nearly the same notes.
func TestSimilarByCentroid(t *testing.T) {
	ctx := context.Background()
	svc, db := indexedService(t, config.Vault{Name: "coffee", Path: exampleVault()})
	var id int64
	if err := db.QueryRowContext(ctx, `SELECT id FROM files WHERE path = 'Coffee journal.md'`).Scan(&id); err != nil {
		t.Fatal(err)
	}
	each, err := svc.semantic.Similar(ctx, "coffee", id, 5)
	if err != nil {
		t.Fatal(err)
	}
	budget := similarScanBudget
	similarScanBudget = 0
	t.Cleanup(func() { similarScanBudget = budget })
	once, err := svc.semantic.Similar(ctx, "coffee", id, 5)
	if err != nil {
		t.Fatal(err)
	}
	if len(once) != 5 {
		t.Fatalf("%d notes by centroid", len(once))
	}
	shared := 0
	for _, o := range once {
		if o.Path == "Coffee journal.md" || o.Similarity < DefaultSimilarityFloors[KindLexical] {
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

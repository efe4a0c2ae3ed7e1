package search

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/jarvis-mcp/jarvis/internal/embed"
	"github.com/jarvis-mcp/jarvis/internal/search/notes"
	"github.com/jarvis-mcp/jarvis/internal/search/vectors"
)

func TestSemanticThresholdAppliesBeforeLimit(t *testing.T) {
	ctx := context.Background()
	db, add := testDB(t)
	// Many near-misses, and one note that matches well but would rank
	// low if the notes were cut to the limit before the threshold.
	for i := range 30 {
		add(fmt.Sprintf("filler%02d.md", i), "zzzz qqqq "+strings.Repeat("x", i))
	}
	add("target.md", "abc abc abc")
	v := servingVectors(db, sourceFor(&letters{Name: "m"}), quietLog())
	if _, err := v.Sync(ctx, vectors.SyncOptions{}); err != nil {
		t.Fatal(err)
	}
	sem := NewSemantic(v, db)
	res, err := sem.Search(ctx, SemanticQuery{Text: "abc", Limit: 3, Threshold: 0.8})
	if err != nil {
		t.Fatal(err)
	}
	if len(res) == 0 || res[0].Path != "target.md" {
		t.Fatalf("results = %+v; want target.md above the threshold", res)
	}
	for _, r := range res {
		if r.Score < 0.8 {
			t.Fatalf("%s scored %.3f, under the threshold", r.Path, r.Score)
		}
	}
	// A limit above the number of chunks is not an error.
	all, err := sem.Search(ctx, SemanticQuery{Text: "abc", Limit: 50})
	if err != nil || len(all) != 31 {
		t.Fatalf("limit 50 over 31 notes = %d results, %v", len(all), err)
	}
}

func TestSemanticOneResultPerNoteAndStableTies(t *testing.T) {
	ctx := context.Background()
	db, add := testDB(t)
	// Every chunk has the same letters: every score ties.
	for i := range 40 {
		add(fmt.Sprintf("n%02d.md", i), "same words", "words same")
	}
	v := servingVectors(db, sourceFor(&letters{Name: "m"}), quietLog())
	if _, err := v.Sync(ctx, vectors.SyncOptions{}); err != nil {
		t.Fatal(err)
	}
	sem := NewSemantic(v, db)
	first, err := sem.Search(ctx, SemanticQuery{Text: "same words", Limit: 5})
	if err != nil || len(first) != 5 {
		t.Fatalf("got %d results, %v", len(first), err)
	}
	seen := map[string]bool{}
	for _, r := range first {
		if seen[r.Path] {
			t.Fatalf("%s returned twice", r.Path)
		}
		seen[r.Path] = true
	}
	for range 20 {
		again, err := sem.Search(ctx, SemanticQuery{Text: "same words", Limit: 5})
		if err != nil {
			t.Fatal(err)
		}
		for i := range first {
			if again[i].Path != first[i].Path || again[i].Line != first[i].Line {
				t.Fatalf("order changed between runs: %v then %v", paths(first), paths(again))
			}
		}
	}
}

func TestSemanticFilters(t *testing.T) {
	ctx := context.Background()
	db, add := testDB(t)
	add("Projects/alpha.md", "rocket engines")
	add("Projects/beta.md", "rocket fuel")
	add("Notes/gamma.md", "rocket science")
	if _, err := db.Exec(`INSERT INTO tags (file_id, tag, fold, line, inline) SELECT id, 'space/rockets', 'space/rockets', 0, 0 FROM files WHERE path = 'Notes/gamma.md'`); err != nil {
		t.Fatal(err)
	}
	v := servingVectors(db, sourceFor(&letters{Name: "m"}), quietLog())
	if _, err := v.Sync(ctx, vectors.SyncOptions{}); err != nil {
		t.Fatal(err)
	}
	sem := NewSemantic(v, db)
	for _, tc := range []struct {
		name   string
		filter notes.Filter
		want   []string
	}{
		{"path prefix", notes.Filter{PathPrefix: "Projects/"}, []string{"Projects/alpha.md", "Projects/beta.md"}},
		{"nested tag", notes.Filter{Tag: "#space"}, []string{"Notes/gamma.md"}},
		{"exact tag, any case", notes.Filter{Tag: "Space/Rockets"}, []string{"Notes/gamma.md"}},
		{"unknown vault", notes.Filter{Vault: "nope"}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res, err := sem.Search(ctx, SemanticQuery{Text: "rocket", Filter: tc.filter})
			if err != nil {
				t.Fatal(err)
			}
			got := paths(res)
			slices.Sort(got)
			if strings.Join(got, ",") != strings.Join(tc.want, ",") {
				t.Fatalf("got %v; want %v", got, tc.want)
			}
		})
	}
}

func paths(rs []notes.Result) []string {
	var out []string
	for _, r := range rs {
		out = append(out, r.Path)
	}
	return out
}

// TestSemanticSaysWhenTheEmbedderChangedDimension: between an embedder
// changing dimension and its vectors being made again, a query cannot be
// compared with what is stored, and the error says why.
func TestSemanticSaysWhenTheEmbedderChangedDimension(t *testing.T) {
	ctx := context.Background()
	db, add := testDB(t)
	add("a.md", "alpha")
	e := &remoteLike{Dim: 4}
	v := servingVectors(db, vectors.EmbedderSource{Provider: "test", Model: "remote", Restore: func([]byte) (embed.Embedder, error) { return e, nil }}, quietLog())
	if _, err := v.Sync(ctx, vectors.SyncOptions{}); err != nil {
		t.Fatal(err)
	}
	e.Dim = 3
	if _, err := NewSemantic(v, db).Search(ctx, SemanticQuery{Text: "alpha"}); !errors.Is(err, vectors.ErrDimensionMismatch) {
		t.Fatalf("search with a changed embedder: %v; want vectors.ErrDimensionMismatch", err)
	}
}

package search

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strings"
	"sync"
	"testing"

	"github.com/jarvis-mcp/jarvis/internal/search/notes"
)

func fixed(paths ...string) []notes.Result {
	out := make([]notes.Result, len(paths))
	for i, p := range paths {
		out[i] = notes.Result{Vault: "v", Path: p, Title: strings.TrimSuffix(p, ".md"), Snippet: "from " + p}
	}
	return out
}

func kwFunc(rs []notes.Result, err error) KeywordFunc {
	return func(context.Context, string, notes.Filter, int) ([]notes.Result, error) { return rs, err }
}

func semFunc(rs []notes.Result, err error) SemanticFunc {
	return func(context.Context, string, notes.Filter, int) ([]notes.Result, error) { return rs, err }
}

// TestCombinedNamesRetrievers: a result lists the retrievers that found
// it, and takes the keyword result's snippet when keyword search found it.
func TestCombinedNamesRetrievers(t *testing.T) {
	kw := withScores("a.md", 3.0, "b.md", 2.0)
	kw[0].Snippet = "from a.md"
	c := NewCombined(kwFunc(kw, nil), semFunc(withScores("a.md", 0.9, "d.md", 0.8), nil))
	res, semErr, err := c.Search(context.Background(), CombinedQuery{Text: "q", Limit: 10})
	if err != nil || semErr != nil {
		t.Fatalf("err %v, semantic %v", err, semErr)
	}
	by := map[string]notes.Result{}
	for _, r := range res {
		by[r.Path] = r
	}
	if r := by["a.md"]; strings.Join(r.Retrievers, ",") != "keyword,semantic" || r.Snippet != "from a.md" || res[0].Path != "a.md" {
		t.Fatalf("a.md %+v first in %v; want both retrievers, the keyword snippet, and first place", r, paths(res))
	}
	if r := by["d.md"]; strings.Join(r.Retrievers, ",") != "semantic" {
		t.Fatalf("d.md retrievers %v; want semantic only", r.Retrievers)
	}
}

func TestCombinedFallsBackToKeywords(t *testing.T) {
	for _, tc := range []struct {
		name string
		err  error
		want string
	}{
		{"no vectors", ErrNoVectors, "no vectors"},
		{"embedder down", errors.New("connection refused"), "connection refused"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := NewCombined(kwFunc(fixed("a.md", "b.md"), nil), semFunc(nil, tc.err))
			res, semErr, err := c.Search(context.Background(), CombinedQuery{Text: "q"})
			if err != nil {
				t.Fatal(err)
			}
			if semErr == nil || !strings.Contains(semErr.Error(), tc.want) || len(res) != 2 || res[0].Path != "a.md" {
				t.Fatalf("results %v, semantic %v", paths(res), semErr)
			}
		})
	}
	c := NewCombined(kwFunc(nil, notes.ErrEmptyQuery), semFunc(nil, nil))
	if _, _, err := c.Search(context.Background(), CombinedQuery{Text: " "}); !errors.Is(err, notes.ErrEmptyQuery) {
		t.Fatalf("empty query: %v", err)
	}
}

func withScores(pairs ...any) []notes.Result {
	var out []notes.Result
	for i := 0; i < len(pairs); i += 2 {
		out = append(out, notes.Result{Vault: "v", Path: pairs[i].(string), Score: pairs[i+1].(float64)})
	}
	return out
}

func TestCombinedConvexFusion(t *testing.T) {
	// Keyword: a 10, b 4, x 0, over the best: 1, 0.4, 0. Semantic: b 0.9,
	// c 0.8, y 0.1, over the best: 1, 0.89, 0.11. With weight 0.5 and the
	// sum over 1.5: a = 1/1.5, b = (0.4 + 0.5)/1.5, c = 0.5 × 0.89/1.5,
	// y = 0.5 × 0.11/1.5, x = 0. The semantic list is shorter than the
	// depth asked, so it holds every note with a vector: a note missing
	// from it scores 0 there.
	kw := kwFunc(withScores("a.md", 10.0, "b.md", 4.0, "x.md", 0.0), nil)
	sem := semFunc(withScores("b.md", 0.9, "c.md", 0.8, "y.md", 0.1), nil)
	c := NewCombined(kw, sem)
	c.SemanticWeights[KindLexical] = 0.5
	res, _, err := c.Search(context.Background(), CombinedQuery{Text: "q"})
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(paths(res), ","); got != "a.md,b.md,c.md,y.md,x.md" {
		t.Fatalf("order %s", got)
	}
	for i, want := range []float64{1 / 1.5, 0.9 / 1.5, 0.5 * 0.8 / 0.9 / 1.5, 0.5 * 0.1 / 0.9 / 1.5, 0} {
		if d := res[i].Score - want; math.Abs(d) > 1e-9 {
			t.Errorf("%s score %v; want %v", res[i].Path, res[i].Score, want)
		}
	}
	// A list as long as the depth asked may have left notes out: those
	// score as its last candidate, the most they could have scored.
	c.Candidates = 3
	res, _, err = c.Search(context.Background(), CombinedQuery{Text: "q", Limit: 3})
	if err != nil {
		t.Fatal(err)
	}
	if want := (1 + 0.5*0.1/0.9) / 1.5; math.Abs(res[0].Score-want) > 1e-9 || res[0].Path != "a.md" {
		t.Fatalf("first %s %v; want a.md %v", res[0].Path, res[0].Score, want)
	}
}

// TestCombinedBelowFloor: semantic results below the similarity floor
// weigh for notes keyword search found, but are no results of their own
// and do not name semantic search as a retriever.
func TestCombinedBelowFloor(t *testing.T) {
	sem := withScores("strong.md", 0.4, "weak.md", 0.15, "noise.md", 0.12, "both.md", 0.1)
	for i := range sem[1:] {
		sem[1+i].BelowFloor = true
	}
	kw := withScores("a-plain.md", 5.0, "both.md", 5.0)
	c := NewCombined(kwFunc(kw, nil), semFunc(sem, nil))
	res, _, err := c.Search(context.Background(), CombinedQuery{Text: "q"})
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(paths(res), ","); got != "both.md,a-plain.md,strong.md" {
		t.Fatalf("order %s; want both.md lifted by its weak similarity, and no semantic-only note below the floor", got)
	}
	for i, want := range []string{"keyword", "keyword", "semantic"} {
		if got := strings.Join(res[i].Retrievers, ","); got != want {
			t.Errorf("%s retrievers %s; want %s", res[i].Path, got, want)
		}
	}
}

// TestCombinedSingleRetrieverNotBuried: a note one retriever puts far
// ahead of its other candidates outranks notes both retrievers found
// near the bottom of their lists.
func TestCombinedSingleRetrieverNotBuried(t *testing.T) {
	var kw, sem []any
	for i := range 20 {
		p := fmt.Sprintf("weak%02d.md", i)
		kw = append(kw, p, 1.0+float64(i%3)*0.1)
		sem = append(sem, p, 0.25+float64(i%2)*0.01)
	}
	kw = append([]any{"keyword-only.md", 9.0}, kw...)
	sem = append([]any{"semantic-only.md", 0.7}, sem...)
	c := NewCombined(kwFunc(withScores(kw...), nil), semFunc(withScores(sem...), nil))
	res, _, err := c.Search(context.Background(), CombinedQuery{Text: "q", Limit: 5})
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(paths(res[:2]), ","); got != "keyword-only.md,semantic-only.md" {
		t.Fatalf("top two %s (%v); want the notes each list put far ahead", got, paths(res))
	}
}

// TestCombinedDepthIgnoresLimit: both retrievers are asked for the same
// number of candidates whatever the limit, so a smaller limit returns the
// start of a larger one's ranking.
func TestCombinedDepthIgnoresLimit(t *testing.T) {
	var (
		mu    sync.Mutex // the retrievers run at once
		asked []int
	)
	var kw, sem []any
	for i := range 150 {
		kw = append(kw, fmt.Sprintf("k%03d.md", i), float64(150-i))
		sem = append(sem, fmt.Sprintf("k%03d.md", (i*7)%150), 1-float64(i)/200)
	}
	list := func(all []notes.Result) func(context.Context, string, notes.Filter, int) ([]notes.Result, error) {
		return func(_ context.Context, _ string, _ notes.Filter, n int) ([]notes.Result, error) {
			mu.Lock()
			asked = append(asked, n)
			mu.Unlock()
			return all[:min(n, len(all))], nil
		}
	}
	c := NewCombined(list(withScores(kw...)), list(withScores(sem...)))
	short, _, err := c.Search(context.Background(), CombinedQuery{Text: "q", Limit: 10})
	if err != nil {
		t.Fatal(err)
	}
	long, _, err := c.Search(context.Background(), CombinedQuery{Text: "q", Limit: 100})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := strings.Join(paths(short), ","), strings.Join(paths(long[:10]), ","); got != want {
		t.Fatalf("limit 10: %s; the first 10 of limit 100: %s", got, want)
	}
	for _, n := range asked {
		if n != DefaultCandidates {
			t.Fatalf("retrievers asked for %v candidates; want %d every time", asked, DefaultCandidates)
		}
	}
}

// TestCombinedNoiseWeighsNothing: when every semantic result is below the
// floor, the list is noise and leaves the keyword order alone.
func TestCombinedNoiseWeighsNothing(t *testing.T) {
	sem := withScores("b.md", 0.15, "a.md", 0.01)
	for i := range sem {
		sem[i].BelowFloor = true
	}
	c := NewCombined(kwFunc(withScores("a.md", 5.0, "b.md", 4.9), nil), semFunc(sem, nil))
	res, _, err := c.Search(context.Background(), CombinedQuery{Text: "q"})
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(paths(res), ","); got != "a.md,b.md" {
		t.Fatalf("order %s; want the keyword order", got)
	}
}

// TestCombinedExactNameFirst: a note whose title or alias is the query
// comes first, as keyword search puts it, whatever the fused scores, and
// its score is raised to the best of the others: the list reads in order
// of score.
func TestCombinedExactNameFirst(t *testing.T) {
	kw := withScores("Tags view.md", 6.0, "Tags.md", 5.0)
	kw[1].ExactName = true
	kw[0], kw[1] = kw[1], kw[0]
	sem := withScores("Tags view.md", 0.6, "Tags.md", 0.3)
	c := NewCombined(kwFunc(kw, nil), semFunc(sem, nil))
	res, _, err := c.Search(context.Background(), CombinedQuery{Text: "tags"})
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(paths(res), ","); got != "Tags.md,Tags view.md" || res[0].Score != res[1].Score {
		t.Fatalf("order %s, scores %v, %v; want the note named by the query first, its score raised to the next one's", got, res[0].Score, res[1].Score)
	}
}

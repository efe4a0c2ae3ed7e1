package search

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strings"
	"sync"
	"testing"
)

func fixed(paths ...string) []Result {
	out := make([]Result, len(paths))
	for i, p := range paths {
		out[i] = Result{Vault: "v", Path: p, Title: strings.TrimSuffix(p, ".md"), Snippet: "from " + p}
	}
	return out
}

func kwFunc(rs []Result, err error) KeywordFunc {
	return func(context.Context, string, Filter, int) ([]Result, error) { return rs, err }
}

func semFunc(rs []Result, err error) SemanticFunc {
	return func(context.Context, string, Filter, int) ([]Result, error) { return rs, err }
}

func TestCombinedFusesRanks(t *testing.T) {
	c := NewCombined(kwFunc(fixed("a.md", "b.md", "c.md"), nil), semFunc(fixed("c.md", "d.md", "a.md"), nil), nil)
	c.Convex, c.SemanticWeights[KindLexical] = false, 1
	res, semErr, err := c.Search(context.Background(), CombinedQuery{Text: "q", Limit: 10})
	if err != nil || semErr != nil {
		t.Fatalf("err %v, semantic %v", err, semErr)
	}
	// a: 1/61 + 1/63, c: 1/63 + 1/61 (tie, broken by path), b: 1/62, d: 1/62.
	want := []string{"a.md", "c.md", "b.md", "d.md"}
	if got := paths(res); strings.Join(got, ",") != strings.Join(want, ",") {
		t.Fatalf("order %v; want %v", got, want)
	}
	if r := res[0]; strings.Join(r.Retrievers, ",") != "keyword,semantic" || r.Snippet != "from a.md" {
		t.Fatalf("first result %+v; want both retrievers and the keyword snippet", r)
	}
	if r := res[3]; strings.Join(r.Retrievers, ",") != "semantic" {
		t.Fatalf("d.md retrievers %v; want semantic only", r.Retrievers)
	}
	if res[0].Score <= res[2].Score {
		t.Fatalf("scores not descending: %v", res)
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
			c := NewCombined(kwFunc(fixed("a.md", "b.md"), nil), semFunc(nil, tc.err), nil)
			res, semErr, err := c.Search(context.Background(), CombinedQuery{Text: "q"})
			if err != nil {
				t.Fatal(err)
			}
			if semErr == nil || !strings.Contains(semErr.Error(), tc.want) || len(res) != 2 || res[0].Path != "a.md" {
				t.Fatalf("results %v, semantic %v", paths(res), semErr)
			}
		})
	}
	c := NewCombined(kwFunc(nil, ErrEmptyQuery), semFunc(nil, nil), nil)
	if _, _, err := c.Search(context.Background(), CombinedQuery{Text: " "}); !errors.Is(err, ErrEmptyQuery) {
		t.Fatalf("empty query: %v", err)
	}
}

func TestCombinedLinkBoost(t *testing.T) {
	// b and c tie after fusion; the top hit a links to c, so c goes first.
	kw := kwFunc(fixed("a.md", "b.md", "x.md"), nil)
	sem := semFunc(fixed("a.md", "c.md", "y.md"), nil)
	linked := func(_ context.Context, vault, path string) ([]string, error) {
		if path == "a.md" {
			return []string{"c.md", "missing.md", "a.md"}, nil
		}
		return nil, nil
	}
	c := NewCombined(kw, sem, linked)
	c.Convex, c.SemanticWeights[KindLexical], c.LinkBoost = false, 1, 0.25
	res, _, err := c.Search(context.Background(), CombinedQuery{Text: "q", Limit: 3})
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(paths(res), ","); got != "a.md,c.md,b.md" {
		t.Fatalf("order %s; want c.md lifted by its link from a.md", got)
	}
	if strings.Join(res[1].Retrievers, ",") != "semantic,links" {
		t.Fatalf("c.md retrievers %v", res[1].Retrievers)
	}
	c.LinkBoost = 0
	res, _, _ = c.Search(context.Background(), CombinedQuery{Text: "q", Limit: 3})
	if got := strings.Join(paths(res), ","); got != "a.md,b.md,c.md" {
		t.Fatalf("without the boost: %s; want the tie broken by path", got)
	}
}

func withScores(pairs ...any) []Result {
	var out []Result
	for i := 0; i < len(pairs); i += 2 {
		out = append(out, Result{Vault: "v", Path: pairs[i].(string), Score: pairs[i+1].(float64)})
	}
	return out
}

func TestCombinedConvexFusion(t *testing.T) {
	// Keyword: a 10, b 5, x 0 (z: 1.22, 0, -1.22; missing notes take
	// -1.22). Semantic: b 0.9, c 0.8, y 0.1 (z: 0.86, 0.57, -1.43;
	// missing -1.43). With weight 0.5:
	// a = 1.22 - 0.72 = 0.51, b = 0 + 0.43 = 0.43, c = -1.22 + 0.29;
	// x and y tie at -1.22 - 0.72, broken by path.
	c := NewCombined(kwFunc(withScores("a.md", 10.0, "b.md", 5.0, "x.md", 0.0), nil),
		semFunc(withScores("b.md", 0.9, "c.md", 0.8, "y.md", 0.1), nil), nil)
	c.SemanticWeights[KindLexical] = 0.5
	res, _, err := c.Search(context.Background(), CombinedQuery{Text: "q"})
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(paths(res), ","); got != "a.md,b.md,c.md,x.md,y.md" {
		t.Fatalf("order %s", got)
	}
	za, zmissing := 5/math.Sqrt(50.0/3), -5/math.Sqrt(50.0/3)
	mean := 0.6
	sd := math.Sqrt((0.09 + 0.04 + 0.25) / 3)
	want := za + 0.5*(0.1-mean)/sd
	if d := res[0].Score - want; math.Abs(d) > 1e-9 {
		t.Fatalf("a.md score %v; want %v", res[0].Score, want)
	}
	if d := res[2].Score - (zmissing + 0.5*(0.8-mean)/sd); math.Abs(d) > 1e-9 {
		t.Fatalf("c.md score %v", res[2].Score)
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
	c := NewCombined(kwFunc(withScores(kw...), nil), semFunc(withScores(sem...), nil), nil)
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
	list := func(all []Result) func(context.Context, string, Filter, int) ([]Result, error) {
		return func(_ context.Context, _ string, _ Filter, n int) ([]Result, error) {
			mu.Lock()
			asked = append(asked, n)
			mu.Unlock()
			return all[:min(n, len(all))], nil
		}
	}
	c := NewCombined(list(withScores(kw...)), list(withScores(sem...)), nil)
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

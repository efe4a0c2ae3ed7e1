package search

import (
	"context"
	"errors"
	"strings"
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
	c.Convex, c.SemanticWeight = false, 1
	res, degraded, err := c.Search(context.Background(), CombinedQuery{Text: "q", Limit: 10})
	if err != nil || degraded != "" {
		t.Fatalf("err %v, degraded %q", err, degraded)
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
		{"embedder down", errors.New("connection refused"), "semantic search failed"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := NewCombined(kwFunc(fixed("a.md", "b.md"), nil), semFunc(nil, tc.err), nil)
			res, degraded, err := c.Search(context.Background(), CombinedQuery{Text: "q"})
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(degraded, tc.want) || len(res) != 2 || res[0].Path != "a.md" {
				t.Fatalf("results %v, degraded %q", paths(res), degraded)
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
	c.Convex, c.SemanticWeight, c.LinkBoost = false, 1, 0.25
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

func TestCombinedConvexFusion(t *testing.T) {
	scored := func(pairs ...any) []Result {
		var out []Result
		for i := 0; i < len(pairs); i += 2 {
			out = append(out, Result{Vault: "v", Path: pairs[i].(string), Score: pairs[i+1].(float64)})
		}
		return out
	}
	// Keyword: a 10, b 5. Semantic: b 0.9, c 0.8. With weight 0.5:
	// a = 1, b = 0.5 + 0.5 = 1 (tie, by path), c = 0.5*0.8/0.9.
	c := NewCombined(kwFunc(scored("a.md", 10.0, "b.md", 5.0), nil), semFunc(scored("b.md", 0.9, "c.md", 0.8), nil), nil)
	c.SemanticWeight = 0.5
	res, _, err := c.Search(context.Background(), CombinedQuery{Text: "q"})
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(paths(res), ","); got != "a.md,b.md,c.md" {
		t.Fatalf("order %s", got)
	}
	if d := res[2].Score - 0.5*0.8/0.9; d > 1e-9 || d < -1e-9 {
		t.Fatalf("c.md score %v", res[2].Score)
	}
}

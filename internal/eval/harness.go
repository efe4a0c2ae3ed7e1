package eval

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"
)

// Ranker runs one query and returns note paths, best first.
type Ranker func(ctx context.Context, query string, limit int) ([]string, error)

// Scores are the mean figures of one mode over a query set.
type Scores struct {
	NDCG10 float64 `json:"ndcg@10,omitempty"`
	// NDCG100 scores the first 100 results: the depth trec_eval's plain
	// ndcg measure looks at, and where the figure of about 0.5 often
	// quoted for BM25 on Cranfield comes from.
	NDCG100  float64 `json:"ndcg@100,omitempty"`
	Recall10 float64 `json:"recall@10,omitempty"`
	Recall5  float64 `json:"recall@5,omitempty"` // share of queries with an expected note in the top 5
	MRR      float64 `json:"mrr,omitempty"`
	Queries  int     `json:"queries"`
}

// Graded is a query with graded judgements, as Cranfield has.
type Graded struct {
	Text  string
	Gains map[string]int
}

// RunGraded scores a ranker by nDCG@10 and recall@10 over graded queries,
// asking for 10 results as a user would, and by nDCG@100, asking for 100.
func RunGraded(ctx context.Context, qs []Graded, rank Ranker) (Scores, error) {
	var s Scores
	for _, q := range qs {
		got, err := rank(ctx, q.Text, 10)
		if err != nil {
			return s, fmt.Errorf("query %q: %w", q.Text, err)
		}
		s.NDCG10 += NDCG(got, q.Gains, 10)
		s.Recall10 += Recall(got, q.Gains, 10)
		deep, err := rank(ctx, q.Text, 100) // search.MaxLimit
		if err != nil {
			return s, fmt.Errorf("query %q: %w", q.Text, err)
		}
		s.NDCG100 += NDCG(deep, q.Gains, 100)
		s.Queries++
	}
	if s.Queries > 0 {
		s.NDCG10 /= float64(s.Queries)
		s.Recall10 /= float64(s.Queries)
		s.NDCG100 /= float64(s.Queries)
	}
	return s, nil
}

// Known is a query whose answer is one of a few known notes.
type Known struct {
	Query  string   `json:"query"`
	Kind   string   `json:"kind"`
	Expect []string `json:"expect"`
}

// LoadKnown reads a JSON-lines query set.
func LoadKnown(path string) ([]Known, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []Known
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" {
			continue
		}
		var k Known
		if err := json.Unmarshal([]byte(line), &k); err != nil {
			return nil, fmt.Errorf("%s:%d: %w", path, n, err)
		}
		if k.Query == "" || len(k.Expect) == 0 {
			return nil, fmt.Errorf("%s:%d: a query needs text and at least one expected note", path, n)
		}
		out = append(out, k)
	}
	return out, sc.Err()
}

// RunKnown scores a ranker by recall@5 (a hit when any expected note is in
// the top 5) and mean reciprocal rank over the top 10.
func RunKnown(ctx context.Context, qs []Known, rank Ranker) (Scores, map[string]Scores, error) {
	var s Scores
	byKind := map[string]Scores{}
	for _, q := range qs {
		got, err := rank(ctx, q.Query, 10)
		if err != nil {
			return s, nil, fmt.Errorf("query %q: %w", q.Query, err)
		}
		rel := map[string]int{}
		for _, p := range q.Expect {
			rel[p] = 1
		}
		hit, rr := Hit(got, rel, 5), ReciprocalRank(got, rel)
		s.Recall5 += hit
		s.MRR += rr
		s.Queries++
		k := byKind[q.Kind]
		k.Recall5 += hit
		k.MRR += rr
		k.Queries++
		byKind[q.Kind] = k
	}
	mean := func(x *Scores) {
		if x.Queries > 0 {
			x.Recall5 /= float64(x.Queries)
			x.MRR /= float64(x.Queries)
		}
	}
	mean(&s)
	for k, v := range byKind {
		mean(&v)
		byKind[k] = v
	}
	return s, byKind, nil
}

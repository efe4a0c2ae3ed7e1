package eval

import (
	"github.com/jarvis-mcp/jarvis/internal/sharedtest"
	"math"
	"strings"
	"testing"
)

func TestMetrics(t *testing.T) {
	gains := map[string]int{"a": 4, "b": 1, "c": 2}
	near := func(got, want float64) bool { return math.Abs(got-want) < 1e-9 }

	if got := NDCG([]string{"a", "c", "b"}, gains, 10); !near(got, 1) {
		t.Fatalf("ideal order: ndcg %v; want 1", got)
	}
	// x, a: DCG = 4/log2(3); ideal = 4 + 2/log2(3) + 1/2.
	want := (4 / math.Log2(3)) / (4 + 2/math.Log2(3) + 0.5)
	if got := NDCG([]string{"x", "a"}, gains, 10); !near(got, want) {
		t.Fatalf("ndcg %v; want %v", got, want)
	}
	if got := NDCG([]string{"x"}, map[string]int{}, 10); got != 0 {
		t.Fatalf("no judgements: ndcg %v; want 0", got)
	}
	if got := Recall([]string{"a", "x", "b"}, gains, 2); !near(got, 1.0/3) {
		t.Fatalf("recall@2 %v; want 1/3", got)
	}
	if got := ReciprocalRank([]string{"x", "y", "c"}, gains); !near(got, 1.0/3) {
		t.Fatalf("rr %v; want 1/3", got)
	}
	if Hit([]string{"x", "y", "c"}, gains, 2) != 0 || Hit([]string{"x", "y", "c"}, gains, 3) != 1 {
		t.Fatal("hit@k wrong")
	}
}

func TestLoadCranfield(t *testing.T) {
	c, err := LoadCranfield(sharedtest.Path(t, "datasets/cranfield"))
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Docs) != 1400 || len(c.Queries) != 225 {
		t.Fatalf("%d docs, %d queries; want 1400 and 225", len(c.Docs), len(c.Queries))
	}
	judged := 0
	for _, q := range c.Queries {
		judged += len(q.Gains)
	}
	// cranqrel grades 1 to 4 on 128 + 387 + 734 + 363 lines; -1 lines
	// are not relevant and carry no gain.
	if judged != 1612 {
		t.Fatalf("%d relevant judgements; want 1612", judged)
	}
	d := c.Docs[0]
	if d.ID != 1 || d.Title != "experimental investigation of the aerodynamics of a wing in a slipstream ." {
		t.Fatalf("first doc = %d %q", d.ID, d.Title)
	}
	if q := c.Queries[0]; !strings.HasPrefix(q.Text, "what similarity laws must be obeyed") || strings.Contains(q.Text, "\r") {
		t.Fatalf("query 1 = %q", q.Text)
	}
	for _, q := range c.Queries {
		if q.Text == "" {
			t.Fatalf("query %d is empty", q.ID)
		}
	}
	if q := c.Queries[0]; q.Gains["cran-0184.md"] != 3 || q.Gains["cran-0012.md"] != 2 {
		t.Fatalf("query 1 gains = %v", q.Gains)
	}
}

package query

import (
	"cmp"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestSortedFirstIsAStableSortCut: sortedFirst gives what a stable sort
// then the limit give, ties in their first order, for every limit, on
// lists full of ties.
func TestSortedFirstIsAStableSortCut(t *testing.T) {
	type item struct{ key, at int }
	byKey := func(a, b item) int { return cmp.Compare(a.key, b.key) }
	r := rand.New(rand.NewPCG(3, 4))
	for round := range 300 {
		n := r.IntN(60)
		items := make([]item, n)
		for i := range items {
			items[i] = item{key: r.IntN(1 + n/4), at: i}
		}
		want := slices.Clone(items)
		slices.SortStableFunc(want, byKey)
		for _, limit := range []int{0, 1, 2, n / 3, n - 1, n, n + 1} {
			if limit < 0 {
				continue
			}
			w := want
			if limit > 0 && limit < n {
				w = want[:limit]
			}
			if got := sortedFirst(slices.Clone(items), limit, byKey); !slices.Equal(got, w) {
				t.Fatalf("round %d, %d items, limit %d:\n got %v\nwant %v", round, n, limit, got, w)
			}
		}
	}
}

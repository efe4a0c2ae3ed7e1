package vectors

import (
	"math"
	"runtime"
	"slices"
)

// parallelFrom is the collection size from which a scan is split over the
// processors; below it the goroutines cost more than they save.
const parallelFrom = 4096

// sparseQuery is a unit query vector as its non-zero dimensions.
type sparseQuery struct {
	dim    int
	index  []int
	weight []float32
}

// sparseOf returns query, scaled to unit length, as its non-zero
// dimensions; none for an all-zero query.
func sparseOf(query []float32) sparseQuery {
	q := sparseQuery{dim: len(query)}
	var norm float64
	for i, x := range query {
		if x != 0 {
			q.index = append(q.index, i)
			q.weight = append(q.weight, x)
			norm += float64(x) * float64(x)
		}
	}
	if n := math.Sqrt(norm); n != 0 && math.Abs(n-1) > 1e-6 {
		for i := range q.weight {
			q.weight[i] = float32(float64(q.weight[i]) / n)
		}
	}
	return q
}

// scored is one slot's similarity to a query.
type scored struct {
	id  int64
	sim float32
}

// better orders by similarity, then by chunk id so equal scores always come
// back in the same order.
func better(a, b scored) bool {
	if a.sim != b.sim {
		return a.sim > b.sim
	}
	return a.id < b.id
}

// scanParts is how many goroutines scan a collection of n slots.
func scanParts(n int) int {
	if n < parallelFrom {
		return 1
	}
	return min(runtime.GOMAXPROCS(0), n/(parallelFrom/2))
}

// sortScored sorts best first, by better.
func sortScored(s []scored) {
	slices.SortFunc(s, func(a, b scored) int {
		if better(a, b) {
			return -1
		}
		if better(b, a) {
			return 1
		}
		return 0
	})
}

// topN is a bounded heap of the best scores seen, the worst at the root.
type topN []scored

func (t *topN) push(s scored, n int) {
	h := *t
	if len(h) < n {
		h = append(h, s)
		for i := len(h) - 1; i > 0; {
			parent := (i - 1) / 2
			if !better(h[parent], h[i]) {
				break
			}
			h[parent], h[i] = h[i], h[parent]
			i = parent
		}
		*t = h
		return
	}
	h[0] = s
	for i := 0; ; {
		worst, l, r := i, 2*i+1, 2*i+2
		if l < len(h) && better(h[worst], h[l]) {
			worst = l
		}
		if r < len(h) && better(h[worst], h[r]) {
			worst = r
		}
		if worst == i {
			return
		}
		h[i], h[worst] = h[worst], h[i]
		i = worst
	}
}

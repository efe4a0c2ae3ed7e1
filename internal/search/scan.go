package search

import (
	"fmt"
	"math"
	"runtime"
	"slices"
	"sync"
)

// The lexical embedder's query vectors are mostly zeros: a short query
// hashes to a hundred or so of its 768 dimensions. Scoring a chunk then
// needs only those dimensions of its vector, which is several times less
// work than the full dot product chromem-go computes. chromem-go's query
// also takes a lock for every document it scores and copies its document
// map on each call; on 36,000 chunks it spends about 37 ms where the sparse
// scan below spends a few. Dense query vectors (neural embedders) still go
// to chromem-go.

// sparseShare is the largest share of non-zero dimensions at which a query
// is scored by the sparse scan; past it the saving no longer pays for the
// indirection.
const sparseShare = 0.25

// parallelFrom is the collection size from which a scan is split over the
// processors; below it the goroutines cost more than they save.
const parallelFrom = 4096

// flat holds a collection's vectors in slots for the sparse scan. The
// vectors are the slices handed to chromem-go, not copies.
type flat struct {
	dim  int
	ids  []int64     // chunk id of each slot
	vecs [][]float32 // vector of each slot
	at   map[int64]int
}

func newFlat() *flat { return &flat{at: map[int64]int{}} }

// add stores the vector of chunk id, replacing one it had.
func (f *flat) add(id int64, vec []float32) error {
	if f.dim == 0 {
		f.dim = len(vec)
	}
	if len(vec) != f.dim {
		return fmt.Errorf("vector of chunk %d has %d dimensions; the others have %d", id, len(vec), f.dim)
	}
	if i, ok := f.at[id]; ok {
		f.vecs[i] = vec
		return nil
	}
	f.at[id] = len(f.ids)
	f.ids = append(f.ids, id)
	f.vecs = append(f.vecs, vec)
	return nil
}

// remove drops the vector of chunk id, moving the last slot into its place.
func (f *flat) remove(id int64) {
	i, ok := f.at[id]
	if !ok {
		return
	}
	last := len(f.ids) - 1
	if i != last {
		f.ids[i], f.vecs[i] = f.ids[last], f.vecs[last]
		f.at[f.ids[i]] = i
	}
	f.ids, f.vecs = f.ids[:last], f.vecs[:last]
	delete(f.at, id)
	if len(f.ids) == 0 {
		f.dim = 0
	}
}

// sparseQuery is a unit query vector as its non-zero dimensions.
type sparseQuery struct {
	dim    int
	index  []int
	weight []float32
}

// sparseOf returns query, scaled to unit length, as its non-zero
// dimensions, or false when too many are non-zero for the sparse scan to
// pay.
func sparseOf(query []float32) (sparseQuery, bool) {
	q := sparseQuery{dim: len(query)}
	var norm float64
	for i, x := range query {
		if x != 0 {
			q.index = append(q.index, i)
			q.weight = append(q.weight, x)
			norm += float64(x) * float64(x)
		}
	}
	if len(q.index) == 0 || float64(len(q.index)) > sparseShare*float64(len(query)) {
		return q, false
	}
	if n := math.Sqrt(norm); math.Abs(n-1) > 1e-6 {
		for i := range q.weight {
			q.weight[i] = float32(float64(q.weight[i]) / n)
		}
	}
	return q, true
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

// nearest returns the n slots most similar to q whose chunks pass accept,
// best first. It reads every slot, so the answer is exact.
func (f *flat) nearest(q sparseQuery, n int, accept func(id int64, sim float32) bool) ([]scored, error) {
	if len(f.ids) == 0 || n <= 0 {
		return nil, nil
	}
	if q.dim != f.dim {
		return nil, fmt.Errorf("%w: the query has %d dimensions, the stored vectors %d", ErrDimensionMismatch, q.dim, f.dim)
	}
	parts := scanParts(len(f.ids))
	tops := make([][]scored, parts)
	var wg sync.WaitGroup
	size := (len(f.ids) + parts - 1) / parts
	for p := range parts {
		lo, hi := p*size, min((p+1)*size, len(f.ids))
		wg.Go(func() { tops[p] = f.scan(q, lo, hi, n, accept) })
	}
	wg.Wait()
	var out []scored
	for _, t := range tops {
		out = append(out, t...)
	}
	sortScored(out)
	return out[:min(n, len(out))], nil
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

// scan scores slots lo to hi and keeps the best n that pass accept in a
// heap whose root is the worst kept.
func (f *flat) scan(q sparseQuery, lo, hi, n int, accept func(int64, float32) bool) []scored {
	top := make(topN, 0, min(n, hi-lo))
	for i := lo; i < hi; i++ {
		v := f.vecs[i]
		var sim float32
		for k, d := range q.index {
			sim += q.weight[k] * v[d]
		}
		s := scored{id: f.ids[i], sim: sim}
		if len(top) == n && !better(s, top[0]) {
			continue
		}
		if accept != nil && !accept(s.id, sim) {
			continue
		}
		top.push(s, n)
	}
	return top
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

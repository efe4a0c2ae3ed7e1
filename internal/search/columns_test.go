package search

import (
	"context"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"testing"

	"github.com/philippgille/chromem-go"
)

// randomUnit returns a unit vector of dim dimensions with about share of
// them non-zero.
func randomUnit(r *rand.Rand, dim int, share float64) []float32 {
	v := make([]float32, dim)
	for i := range v {
		if r.Float64() < share {
			v[i] = float32(r.NormFloat64())
		}
	}
	if isZero(v) {
		v[r.IntN(dim)] = 1
	}
	return unitLength(v)
}

// columnError bounds how far a column index's similarity may be from the
// float32 one for unit query q against a vector of the given step: half a
// step on every dimension the query weighs, plus float32 rounding.
func columnError(q []float32, step float32) float64 {
	var l1 float64
	for _, x := range q {
		l1 += math.Abs(float64(x))
	}
	return float64(step)*l1/2 + 1e-5
}

// TestColumnIndexAgreesWithChromem asks the same queries, sparse and
// dense, of a column index and of chromem-go holding the same float32
// vectors (an independent exact cosine), with and without a threshold and
// a note filter. Every similarity the index returns must be within its
// error bound of the exact one, and its answer must be as good as the
// exact top n up to that bound: no chunk left out that beat a returned one
// by more than the bound, none returned that the filters refuse.
func TestColumnIndexAgreesWithChromem(t *testing.T) {
	ctx := context.Background()
	r := rand.New(rand.NewPCG(1, 2))
	const dim, n = 96, 2*columnBlock + 700 // three blocks, the last partial; the scan splits
	c, err := chromem.NewDB().CreateCollection("v", nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	idx := newColumnIndex(0)
	exact := map[int64][]float32{}
	for i := range n {
		id := int64(i + 1)
		vec := randomUnit(r, dim, 0.65) // as dense as a lexical chunk vector
		exact[id] = vec
		if err := c.AddDocument(ctx, chromem.Document{ID: strconv.FormatInt(id, 10), Embedding: vec}); err != nil {
			t.Fatal(err)
		}
		if err := idx.add(id, id/3, vec); err != nil {
			t.Fatal(err)
		}
	}
	evenNotes := func(file int64) bool { return file%2 == 0 }
	for i := range 12 {
		share := 0.1
		if i%3 == 2 {
			share = 1 // a long query sets every dimension
		}
		q := randomUnit(r, dim, share)
		res, err := c.QueryEmbedding(ctx, q, n, nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		for _, cs := range []struct {
			n      int
			keep   func(int64) bool
			minSim float32
		}{{10, nil, 0}, {40, evenNotes, 0}, {n, nil, 0.2}, {25, evenNotes, 0.1}} {
			got, err := idx.nearestSparse(sparseOf(q), cs.n, cs.keep, cs.minSim)
			if err != nil {
				t.Fatal(err)
			}
			// The exact answer, and how many chunks surely pass the
			// threshold and how many might, given the error bound.
			var want []float32
			surely, maybe := 0, 0
			margin := float32(columnError(q, slices.Max(idx.scales)))
			for _, d := range res {
				id, _ := strconv.ParseInt(d.ID, 10, 64)
				if cs.keep != nil && !cs.keep(id/3) {
					continue
				}
				if d.Similarity >= cs.minSim && len(want) < cs.n {
					want = append(want, d.Similarity)
				}
				if d.Similarity >= cs.minSim+margin {
					surely++
				}
				if d.Similarity >= cs.minSim-margin {
					maybe++
				}
			}
			if len(got) < min(surely, cs.n) || len(got) > min(maybe, cs.n) {
				t.Fatalf("query %d, n %d: %d chunks; between %d and %d pass the threshold", i, cs.n, len(got), min(surely, cs.n), min(maybe, cs.n))
			}
			for k, g := range got {
				step := idx.scales[idx.at[g.id]]
				bound := columnError(q, step)
				e := float64(dot(q, exact[g.id]))
				if math.Abs(float64(g.sim)-e) > bound {
					t.Fatalf("query %d, rank %d: similarity %v, exact %v, bound %v", i, k, g.sim, e, bound)
				}
				if k < len(want) && e < float64(want[k])-2*float64(margin) {
					t.Fatalf("query %d, n %d, rank %d: chunk %d (exact %v) where the exact answer has %v", i, cs.n, k, g.id, e, want[k])
				}
				if cs.keep != nil && !cs.keep(g.id/3) || g.sim < cs.minSim {
					t.Fatalf("query %d: %+v should have been filtered out", i, g)
				}
				if k > 0 && better(g, got[k-1]) {
					t.Fatalf("query %d: rank %d %+v before rank %d %+v", i, k-1, got[k-1], k, g)
				}
			}
		}
	}
}

func dot(a, b []float32) float32 {
	var s float32
	for i := range a {
		s += a[i] * b[i]
	}
	return s
}

func TestColumnIndexOrdersTiesByChunk(t *testing.T) {
	idx := newColumnIndex(0)
	same := []float32{0.6, 0.8, 0, 0}
	for _, id := range []int64{9, 3, 7, 1} {
		if err := idx.add(id, id, same); err != nil {
			t.Fatal(err)
		}
	}
	if err := idx.add(5, 5, []float32{0, 0, 1, 0}); err != nil {
		t.Fatal(err)
	}
	if _, err := idx.nearestSparse(sparseQuery{dim: 8, index: []int{0}, weight: []float32{1}}, 3, nil, 0); err == nil {
		t.Fatal("a query of 8 dimensions against vectors of 4 gave no error")
	}
	got, err := idx.nearestSparse(sparseOf([]float32{1, 0, 0, 0}), 3, nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	ids := []int64{}
	for _, s := range got {
		ids = append(ids, s.id)
	}
	if !slices.Equal(ids, []int64{1, 3, 7}) {
		t.Fatalf("tied chunks came back as %v; want the lowest ids first: [1 3 7]", ids)
	}
	if got, _ := idx.nearestSparse(sparseOf(make([]float32, 4)), 3, nil, 0); len(got) != 0 {
		t.Fatalf("an all-zero query found %v", got)
	}
}

func TestSparseOf(t *testing.T) {
	q := sparseOf([]float32{0, 3, 0, 0, 0, 0, 0, 4})
	if !slices.Equal(q.index, []int{1, 7}) || q.dim != 8 {
		t.Fatalf("sparseOf = %+v; want dimensions 1 and 7 of 8", q)
	}
	if math.Abs(float64(q.weight[0])-0.6) > 1e-6 || math.Abs(float64(q.weight[1])-0.8) > 1e-6 {
		t.Fatalf("weights %v; want the query scaled to unit length (0.6, 0.8)", q.weight)
	}
	if q := sparseOf(make([]float32, 8)); len(q.index) != 0 {
		t.Fatalf("an all-zero query has dimensions %v", q.index)
	}
}

// TestColumnRemoveKeepsSlotsInStep removes chunks across block boundaries
// and replaces others: every chunk left must still read back as its own
// vector, with its own note, and emptied blocks must be let go.
func TestColumnRemoveKeepsSlotsInStep(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	const dim = 16
	idx := newColumnIndex(0)
	vecs := map[int64][]float32{}
	for id := int64(1); id <= 2*columnBlock+3; id++ {
		vecs[id] = randomUnit(r, dim, 0.7)
		if err := idx.add(id, 1000+id, vecs[id]); err != nil {
			t.Fatal(err)
		}
	}
	for _, id := range []int64{2, columnBlock + 1, 2*columnBlock + 3, 42424242} { // the last slot, and one not there
		idx.remove(id)
		delete(vecs, id)
	}
	vecs[7] = randomUnit(r, dim, 0.7)
	if err := idx.add(7, 1007, vecs[7]); err != nil {
		t.Fatal(err)
	}
	if err := idx.add(99999, 1, make([]float32, dim+1)); err == nil {
		t.Fatal("a vector of another dimension was accepted")
	}
	for id := int64(2*columnBlock - 10); id <= 2*columnBlock+2; id++ {
		idx.remove(id)
		delete(vecs, id)
	}
	if idx.len() != len(vecs) || len(idx.at) != len(vecs) || len(idx.blocks) != 2 {
		t.Fatalf("%d slots, %d ids, %d blocks; want %d, %d, 2", idx.len(), len(idx.at), len(idx.blocks), len(vecs), len(vecs))
	}
	for id, want := range vecs {
		i, ok := idx.at[id]
		if !ok || idx.ids[i] != id || idx.files[i] != 1000+id {
			t.Fatalf("chunk %d: slot %d holds chunk %d of note %d", id, i, idx.ids[i], idx.files[i])
		}
		block, j := idx.blocks[i/columnBlock], i%columnBlock
		for d, x := range want {
			got := float64(idx.scales[i]) * float64(block[d*columnBlock+j])
			if math.Abs(got-float64(x)) > float64(idx.scales[i])/2+1e-7 {
				t.Fatalf("chunk %d, dimension %d: %v in memory, want %v", id, d, got, x)
			}
		}
	}
}

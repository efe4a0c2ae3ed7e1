package vectors

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// units returns n random unit vectors.
func units(r *rand.Rand, n, dim int) [][]float32 {
	out := make([][]float32, n)
	for i := range out {
		out[i] = randomUnit(r, dim, 1)
	}
	return out
}

// around returns n unit vectors gathered around the given centres, as a
// model's vectors of notes on a few subjects are: the best matches of a
// query then sit close together, which is where a coarse score errs.
func around(r *rand.Rand, centres [][]float32, n int, spread float64) [][]float32 {
	out := make([][]float32, n)
	for i := range out {
		c := centres[r.IntN(len(centres))]
		v := make([]float32, len(c))
		for d := range v {
			v[d] = c[d] + float32(spread*r.NormFloat64()/math.Sqrt(float64(len(c))))
		}
		out[i] = unitLength(v)
	}
	return out
}

// exactDot is the similarity of two unit vectors in float64.
func exactDot(a, b []float32) float64 {
	var s float64
	for i := range a {
		s += float64(a[i]) * float64(b[i])
	}
	return s
}

// exactNearest is the reference answer: every vector scored exactly, the
// best n that pass keep and reach minSim, ties by id. Vector i is chunk
// i+1 of note (i+1)/3.
func exactNearest(vecs [][]float32, q []float32, n int, keep func(int64) bool, minSim float32) []scored {
	unit := unitLength(slices.Clone(q))
	var all []scored
	for i, v := range vecs {
		id := int64(i + 1)
		s := scored{id: id, sim: float32(exactDot(unit, v))}
		if s.sim >= minSim && (keep == nil || keep(id/3)) {
			all = append(all, s)
		}
	}
	sortScored(all)
	return all[:min(n, len(all))]
}

func denseOf(t testing.TB, vecs [][]float32) *denseIndex {
	t.Helper()
	d := newDenseIndex(0)
	for i, v := range vecs {
		id := int64(i + 1)
		if err := d.add(id, id/3, v); err != nil {
			t.Fatal(err)
		}
	}
	return d
}

func ids(s []scored) []int64 {
	out := make([]int64, len(s))
	for i, x := range s {
		out[i] = x.id
	}
	return out
}

// sameRanking reports whether got is the exact answer want up to the fine
// bytes' precision eps: as long, and at each rank a score within eps of
// the exact one there (a chunk the scan missed would shift every score
// after it), every chunk scored within eps of its exact score.
func sameRanking(vecs [][]float32, q []float32, got, want []scored, eps float64) bool {
	if len(got) != len(want) {
		return false
	}
	unit := unitLength(slices.Clone(q))
	for k := range got {
		exact := exactDot(unit, vecs[got[k].id-1])
		if math.Abs(float64(got[k].sim-want[k].sim)) > eps || math.Abs(float64(got[k].sim)-exact) > eps {
			return false
		}
	}
	return true
}

// TestDenseRecall: the coarse scan with rescoring returns the same ten
// chunks as an exact scan of the float32 vectors in at least 99% of
// queries, on random and on clustered vectors, and the same ranking to
// within the fine bytes' error in all of them; every score it returns is
// within that error of the exact one. Where the order differs, two chunks
// whose exact scores are closer than that error (a few millionths) have
// swapped.
func TestDenseRecall(t *testing.T) {
	const dim, n = 384, 12000
	queries := 250
	if raceEnabled {
		queries = 60
	}
	r := rand.New(rand.NewPCG(3, 4))
	centres := units(r, 50, dim)
	for _, c := range []struct {
		name    string
		vecs    [][]float32
		queries [][]float32
	}{
		{"random", units(r, n, dim), units(r, queries, dim)},
		// Queries near the clusters' centres: their best matches are
		// many and nearly tied.
		{"clustered", around(r, centres, n, 0.5), around(r, centres, queries, 0.5)},
	} {
		t.Run(c.name, func(t *testing.T) {
			d := denseOf(t, c.vecs)
			sameIDs, sameSet := 0, 0
			var worst float64
			for _, q := range c.queries {
				got, err := d.nearest(context.Background(), q, 10, nil, -1)
				if err != nil {
					t.Fatal(err)
				}
				want := exactNearest(c.vecs, q, 10, nil, -1)
				if slices.Equal(ids(got), ids(want)) {
					sameIDs++
				}
				if g, w := ids(got), ids(want); len(g) == len(w) {
					slices.Sort(g)
					slices.Sort(w)
					if slices.Equal(g, w) {
						sameSet++
					}
				}
				unit := unitLength(slices.Clone(q))
				var l1 float64
				for _, x := range unit {
					l1 += math.Abs(float64(x))
				}
				for _, g := range got {
					i := d.at[g.id]
					diff := math.Abs(float64(g.sim) - exactDot(unit, c.vecs[g.id-1]))
					worst = max(worst, diff)
					// The fine bytes are off by at most half a 256th of a
					// coarse step on each dimension; float32 rounding on top.
					if bound := float64(d.scales[i])*l1/512 + 1e-6; diff > bound {
						t.Fatalf("chunk %d scored %v, exactly %v: off by %.2g, more than %.2g", g.id, g.sim, exactDot(unit, c.vecs[g.id-1]), diff, bound)
					}
				}
				if !sameRanking(c.vecs, q, got, want, 2e-5) {
					t.Fatalf("ranking %v; the exact scan's %v", got, want)
				}
			}
			t.Logf("%s: the same ten chunks as the exact scan in %d of %d queries, in the same order in %d; scores off by at most %.2g",
				c.name, sameSet, queries, sameIDs, worst)
			if sameSet*100 < 99*queries {
				t.Fatalf("the same ten chunks as the exact scan in %d of %d queries; want at least 99%%", sameSet, queries)
			}
		})
	}
}

// TestDenseCoarseErrorWithinMargin: the scan skips a chunk whose coarse
// score is below minSim by more than its margin, so the margin must bound
// the coarse score's error for every vector, or a chunk above minSim
// could be lost.
func TestDenseCoarseErrorWithinMargin(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	for _, dim := range []int{26, 256, 384, 1536} {
		centres := units(r, 20, dim)
		vecs := around(r, centres, 2000, 0.7)
		d := denseOf(t, vecs)
		for _, q := range append(units(r, 10, dim), around(r, centres, 10, 0.7)...) {
			q := newDenseQuery(q)
			for i, v := range vecs {
				coarse, _ := d.vector(i)
				approx := float64(coarseDot(q.unit, coarse) * d.scales[i])
				if diff := math.Abs(approx - exactDot(q.unit, v)); diff > float64(d.scales[i]*q.margin) {
					t.Fatalf("%d dimensions, chunk %d: coarse score off by %.3g, margin %.3g", dim, i+1, diff, d.scales[i]*q.margin)
				}
			}
		}
	}
}

// TestDenseFiltersAndFloor asks with note filters, similarity floors and
// sizes up to every chunk. What comes back must pass the filter and the
// floor, be ordered best first with ties by chunk, hold as many chunks as
// qualify (up to n) however few the first candidates held, and rank as the
// exact scan does to within the fine bytes' error (64 dimensions: coarser
// steps than at 384).
func TestDenseFiltersAndFloor(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 10))
	const dim, n = 64, 6000 // above parallelFrom: the scan splits
	centres := units(r, 30, dim)
	vecs := around(r, centres, n, 0.8)
	d := denseOf(t, vecs)
	evenNotes := func(file int64) bool { return file%2 == 0 }
	rareNotes := func(file int64) bool { return file%97 == 0 }
	for qi, q := range around(r, centres, 15, 0.8) {
		for _, c := range []struct {
			n      int
			keep   func(int64) bool
			minSim float32
		}{
			{10, nil, 0}, {40, evenNotes, 0}, {n, nil, 0.5}, {25, evenNotes, 0.3},
			{1000, rareNotes, -1}, {500, nil, 0.6}, {n, rareNotes, 0.1},
		} {
			got, err := d.nearest(context.Background(), q, c.n, c.keep, c.minSim)
			if err != nil {
				t.Fatal(err)
			}
			want := exactNearest(vecs, q, c.n, c.keep, c.minSim)
			for k, g := range got {
				if c.keep != nil && !c.keep(g.id/3) || g.sim < c.minSim {
					t.Fatalf("query %d: %+v should have been filtered out", qi, g)
				}
				if k > 0 && better(g, got[k-1]) {
					t.Fatalf("query %d: %+v ranked after %+v", qi, g, got[k-1])
				}
			}
			// A chunk within the fine bytes' error of the floor may fall
			// either side of it; none is further than 1e-4 here.
			near := 0
			for _, s := range exactNearest(vecs, q, n, c.keep, -1) {
				if math.Abs(float64(s.sim-c.minSim)) < 1e-4 {
					near++
				}
			}
			if diff := len(got) - len(want); diff > near || -diff > near {
				t.Fatalf("query %d, n %d, floor %v: %d chunks; the exact scan finds %d", qi, c.n, c.minSim, len(got), len(want))
			}
			if len(got) == len(want) && !sameRanking(vecs, q, got, want, 1e-4) {
				t.Fatalf("query %d, n %d, floor %v: ranking %v; the exact scan's %v", qi, c.n, c.minSim, got[:min(5, len(got))], want[:min(5, len(want))])
			}
		}
	}
}

func TestDenseDimensions(t *testing.T) {
	d := newDenseIndex(0)
	if err := d.add(1, 1, []float32{3, 4, 0}); err != nil {
		t.Fatal(err)
	}
	if err := d.add(2, 1, []float32{1, 2}); err == nil {
		t.Fatal("a vector of another dimension was accepted")
	}
	if _, err := d.nearest(context.Background(), []float32{1, 0}, 1, nil, 0); !errors.Is(err, ErrDimensionMismatch) {
		t.Fatalf("a query of 2 dimensions against vectors of 3: %v; want ErrDimensionMismatch", err)
	}
	if err := d.add(3, 1, make([]float32, 3)); err != nil {
		t.Fatal(err)
	}
	got, err := d.nearest(context.Background(), []float32{0, 0, 1}, 5, nil, -1)
	if err != nil {
		t.Fatal(err)
	}
	// The zero vector is like nothing; (3,4,0) scaled to unit length is
	// as unlike (0,0,1) as it.
	if len(got) != 2 || got[0].sim != 0 || got[1].sim != 0 || got[0].id != 1 {
		t.Fatalf("got %+v; want chunks 1 and 3 at similarity 0", got)
	}
	d.remove(1)
	d.remove(3)
	if d.len() != 0 || d.dim != 0 || len(d.coarse) != 0 {
		t.Fatalf("empty index still has %d slots of %d dimensions in %d blocks", d.len(), d.dim, len(d.coarse))
	}
	if err := d.add(4, 1, []float32{1, 2}); err != nil {
		t.Fatalf("an emptied index refused a new dimension: %v", err)
	}
}

// TestDenseRemoveKeepsSlotsInStep removes chunks from the middle and the
// end of several blocks, replaces some and adds others: every chunk must
// still hold its own vector and note, and emptied blocks must go.
func TestDenseRemoveKeepsSlotsInStep(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	const dim = 16
	d := newDenseIndex(0)
	want := map[int64][]float32{}
	put := func(id int64) {
		v := randomUnit(r, dim, 1)
		if err := d.add(id, id*10, v); err != nil {
			t.Fatal(err)
		}
		want[id] = v
	}
	for id := int64(1); id <= 3*denseBlock+10; id++ {
		put(id)
	}
	for id := int64(1); id <= 3*denseBlock+10; id += 3 {
		d.remove(id)
		delete(want, id)
	}
	d.remove(-5) // not there: nothing happens
	for id := int64(2); id <= 200; id += 7 {
		put(id) // replaced in place
	}
	for id := int64(5000); id < 5100; id++ {
		put(id)
	}
	if d.len() != len(want) || len(d.at) != len(want) {
		t.Fatalf("%d slots, %d in the map; want %d", d.len(), len(d.at), len(want))
	}
	if blocks := (d.len() + denseBlock - 1) / denseBlock; len(d.coarse) != blocks || len(d.fine) != blocks {
		t.Fatalf("%d and %d blocks for %d slots; want %d", len(d.coarse), len(d.fine), d.len(), blocks)
	}
	for id, v := range want {
		i, ok := d.at[id]
		if !ok || d.ids[i] != id || d.files[i] != id*10 {
			t.Fatalf("chunk %d: slot %d holds chunk %d of note %d", id, i, d.ids[i], d.files[i])
		}
		if sim := d.fineSim(v, i); math.Abs(float64(sim)-1) > 1e-4 {
			t.Fatalf("chunk %d: its own vector scores %v against it; want 1", id, sim)
		}
	}
}

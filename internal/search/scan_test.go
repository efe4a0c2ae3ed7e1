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

// testCollection holds n random dense vectors both in chromem-go and in the
// slots of the sparse scan, as Refresh builds them; chunk i belongs to note
// i/3.
func testCollection(t *testing.T, r *rand.Rand, n, dim int) *collection {
	t.Helper()
	c, err := chromem.NewDB().CreateCollection("v", nil, refuseToEmbed)
	if err != nil {
		t.Fatal(err)
	}
	col := &collection{c: c, chunks: map[int64]chunkRef{}, flat: newFlat()}
	for i := range n {
		id := int64(i + 1)
		vec := randomUnit(r, dim, 1)
		if err := c.AddDocument(context.Background(), chromem.Document{ID: strconv.FormatInt(id, 10), Embedding: vec}); err != nil {
			t.Fatal(err)
		}
		if err := col.flat.add(id, vec); err != nil {
			t.Fatal(err)
		}
		col.chunks[id] = chunkRef{fileID: id / 3}
	}
	return col
}

// TestSparseScanAgreesWithChromem asks the same sparse queries of the
// sparse scan and of chromem-go, with and without a threshold and a note
// filter, and wants the same chunks in the same order with the same
// similarity.
func TestSparseScanAgreesWithChromem(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	const dim = 96
	col := testCollection(t, r, 5000, dim) // above parallelFrom: the scan splits
	evenNotes := func(file int64) bool { return file%2 == 0 }
	for i := range 20 {
		q := randomUnit(r, dim, 0.1)
		sq, ok := sparseOf(q)
		if !ok {
			t.Fatalf("query %d with %d of %d dimensions set is not sparse", i, len(sq.index), dim)
		}
		for _, c := range []struct {
			n      int
			keep   func(int64) bool
			minSim float32
		}{{10, nil, 0}, {40, evenNotes, 0}, {5000, nil, 0.2}, {25, evenNotes, 0.1}} {
			got, err := scanCollection(col, "v", sq, c.n, c.keep, c.minSim)
			if err != nil {
				t.Fatal(err)
			}
			want, err := chromemQuery(context.Background(), col, "v", q, c.n, c.keep, c.minSim)
			if err != nil {
				t.Fatal(err)
			}
			want = want[:min(c.n, len(want))]
			if len(got) != len(want) {
				t.Fatalf("query %d, n %d: the scan found %d chunks, chromem-go %d", i, c.n, len(got), len(want))
			}
			for k := range got {
				if got[k].chunk != want[k].chunk || math.Abs(float64(got[k].sim-want[k].sim)) > 1e-5 {
					t.Fatalf("query %d, n %d, rank %d: scan %+v, chromem-go %+v", i, c.n, k, got[k], want[k])
				}
				if c.keep != nil && !c.keep(got[k].fileID) || got[k].sim < c.minSim {
					t.Fatalf("query %d: %+v should have been filtered out", i, got[k])
				}
			}
		}
	}
}

func TestSparseScanOrdersTiesByChunk(t *testing.T) {
	f := newFlat()
	same := []float32{0.6, 0.8, 0, 0}
	for _, id := range []int64{9, 3, 7, 1} {
		if err := f.add(id, same); err != nil {
			t.Fatal(err)
		}
	}
	if err := f.add(5, []float32{0, 0, 1, 0}); err != nil {
		t.Fatal(err)
	}
	q, ok := sparseOf([]float32{1, 0, 0, 0})
	if !ok {
		t.Fatal("a query with one of four dimensions set is not sparse")
	}
	if _, err := f.nearest(sparseQuery{dim: 8, index: []int{0}, weight: []float32{1}}, 3, nil); err == nil {
		t.Fatal("a query of 8 dimensions against vectors of 4 gave no error")
	}
	got, err := f.nearest(q, 3, nil)
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
}

func TestSparseOf(t *testing.T) {
	q, ok := sparseOf([]float32{0, 3, 0, 0, 0, 0, 0, 4})
	if !ok || !slices.Equal(q.index, []int{1, 7}) {
		t.Fatalf("sparseOf = %+v, %v; want dimensions 1 and 7", q, ok)
	}
	if math.Abs(float64(q.weight[0])-0.6) > 1e-6 || math.Abs(float64(q.weight[1])-0.8) > 1e-6 {
		t.Fatalf("weights %v; want the query scaled to unit length (0.6, 0.8)", q.weight)
	}
	if _, ok := sparseOf([]float32{1, 1, 1, 0}); ok {
		t.Fatal("a query with three of four dimensions set was taken as sparse")
	}
	if _, ok := sparseOf(make([]float32, 8)); ok {
		t.Fatal("an all-zero query was taken as sparse")
	}
}

func TestFlatRemoveKeepsSlotsInStep(t *testing.T) {
	f := newFlat()
	for id := int64(1); id <= 5; id++ {
		if err := f.add(id, []float32{float32(id), 0}); err != nil {
			t.Fatal(err)
		}
	}
	f.remove(2)
	f.remove(5)
	f.remove(42) // not there: nothing happens
	if err := f.add(3, []float32{30, 0}); err != nil {
		t.Fatal(err)
	}
	if err := f.add(6, []float32{1, 2, 3}); err == nil {
		t.Fatal("a vector of another dimension was accepted")
	}
	if len(f.ids) != 3 || len(f.at) != 3 {
		t.Fatalf("%d slots, %d ids; want 3", len(f.ids), len(f.at))
	}
	for id, want := range map[int64]float32{1: 1, 3: 30, 4: 4} {
		i, ok := f.at[id]
		if !ok || f.ids[i] != id || f.vecs[i][0] != want {
			t.Fatalf("chunk %d: slot %d holds %v (id %d); want %v", id, i, f.vecs[i], f.ids[i], want)
		}
	}
}

package vectors

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
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
	if IsZero(v) {
		v[r.IntN(dim)] = 1
	}
	return unitLength(v)
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

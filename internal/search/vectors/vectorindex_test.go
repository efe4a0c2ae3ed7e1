package vectors

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// indexUnderTest is one implementation of vectorIndex for the contract
// test, with how far its similarities may be from the exact cosine.
type indexUnderTest struct {
	name string
	make func() vectorIndex
	// bound is the most a similarity idx returns for the unit query q
	// may differ from the exact cosine, for any vector it holds.
	bound func(idx vectorIndex, q []float32) float64
}

// l1 is the sum of the absolute values of v.
func l1(v []float32) float64 {
	var s float64
	for _, x := range v {
		s += math.Abs(float64(x))
	}
	return s
}

// largestScale is the largest per-vector scale of a compact index: the
// step of its int8 values, which bounds its rounding error.
func largestScale(scales []float32) float64 {
	if len(scales) == 0 {
		return 0
	}
	return float64(slices.Max(scales))
}

var indexesUnderTest = []indexUnderTest{
	{
		name: StoreChromem,
		make: func() vectorIndex { return newChromemIndex(0) },
		// float32 products summed in float32: each of the dim terms of a
		// dot product of unit vectors is off by at most 2⁻²⁴ of the sum
		// of their magnitudes (at most 1) per addition, plus the
		// rounding of both vectors to float32 at unit length.
		bound: func(_ vectorIndex, q []float32) float64 { return float64(len(q)+4) * 0x1p-24 },
	},
	{
		name: StoreColumn,
		make: func() vectorIndex { return newColumnIndex(0) },
		// Half an int8 step on every dimension the query weighs, plus
		// float32 rounding (columns.go).
		bound: func(idx vectorIndex, q []float32) float64 {
			return largestScale(idx.(*columnIndex).scales)*l1(q)/2 + 1e-5
		},
	},
	{
		name: StoreDense,
		make: func() vectorIndex { return newDenseIndex(0) },
		// Half a 256th of a coarse step on every dimension, plus float32
		// rounding (dense.go).
		bound: func(idx vectorIndex, q []float32) float64 {
			return largestScale(idx.(*denseIndex).scales)*l1(q)/512 + 1e-6
		},
	},
}

// referenceIndex is the exact answer every index is held to: the cosine
// of the query and each vector as given, computed in float64 over every
// vector, ties to the lowest chunk id.
type referenceIndex struct {
	vecs  map[int64][]float32 // as given, not scaled
	files map[int64]int64
}

func (r referenceIndex) cosine(unitQuery []float32, id int64) float64 {
	v := r.vecs[id]
	var dot, sq float64
	for i, x := range v {
		dot += float64(unitQuery[i]) * float64(x)
		sq += float64(x) * float64(x)
	}
	if sq == 0 {
		return 0
	}
	return dot / math.Sqrt(sq)
}

// nearest returns every vector that passes keep and reaches minSim, with
// its exact similarity, best first.
func (r referenceIndex) nearest(unitQuery []float32, keep func(int64) bool, minSim float64) []scoredExact {
	var out []scoredExact
	for id := range r.vecs {
		sim := r.cosine(unitQuery, id)
		if sim >= minSim && (keep == nil || keep(r.files[id])) {
			out = append(out, scoredExact{id, sim})
		}
	}
	slices.SortFunc(out, func(a, b scoredExact) int {
		if a.sim != b.sim {
			if a.sim > b.sim {
				return -1
			}
			return 1
		}
		return int(a.id - b.id)
	})
	return out
}

type scoredExact struct {
	id  int64
	sim float64
}

// TestVectorIndexContract holds chromem-go, the column index and the dense
// index to the same exact reference (the float64 cosine of the vectors as
// given) on the same vectors and queries: sparse and dense queries, note
// filters that keep half the notes and one in 97, similarity floors, sizes
// up to every chunk, after removals and replacements, with duplicated
// vectors (exact ties) and all-zero ones among them.
//
// Every index must give the reference's chunks in the reference's order,
// except where two chunks' exact scores are closer than its scores can
// tell apart: each score it returns within its bound of the exact one,
// and a chunk other than the reference's at a rank only when the two
// exact scores there are within twice the bound. Likewise it returns as
// many chunks as surely pass the floor and no more than may. The bound is
// float32 rounding for chromem-go (a few millionths: it changes the
// order only of chunks whose scores agree to seven places, found here far
// down a list of every chunk), and the quantisation error for the compact
// indexes (about 5e-4 for the column index, 1e-5 for the dense one).
// Identical vectors score identically in all three, so ties always fall
// to the lowest chunk id.
func TestVectorIndexContract(t *testing.T) {
	ctx := context.Background()
	for _, impl := range indexesUnderTest {
		t.Run(impl.name, func(t *testing.T) {
			r := rand.New(rand.NewPCG(1, 2))
			// Three column blocks, the last partial, and enough vectors
			// that the compact scans split over the processors.
			const dim, n = 96, 2*columnBlock + 700
			idx := impl.make()
			ref := referenceIndex{vecs: map[int64][]float32{}, files: map[int64]int64{}}
			put := func(id int64, vec []float32) {
				t.Helper()
				if err := idx.add(id, id/3, vec); err != nil {
					t.Fatal(err)
				}
				ref.vecs[id], ref.files[id] = slices.Clone(vec), id/3
			}
			for i := range n {
				id := int64(i + 1)
				switch {
				case id%500 == 7:
					put(id, make([]float32, dim)) // all zeros
				case id%250 == 3 && id > 3:
					put(id, ref.vecs[id-250]) // the same vector as another chunk: a tie
				default:
					// As dense as a lexical chunk vector, and not of
					// unit length: each index scales it itself.
					v := randomUnit(r, dim, 0.65)
					for k := range v {
						v[k] *= 3
					}
					put(id, v)
				}
			}
			if idx.len() != n {
				t.Fatalf("len %d after adding %d vectors", idx.len(), n)
			}
			if err := idx.add(n+1, 1, make([]float32, dim+1)); err == nil {
				t.Fatal("a vector of another dimension was accepted")
			}
			checkAgainstReference(t, ctx, impl, idx, ref, r, dim, n)

			// Remove some (across blocks, a zero vector, one tied, one
			// not there) and replace others: the answers follow.
			for _, id := range []int64{2, 7, 253, columnBlock + 1, 2*columnBlock + 5, int64(n), 42424242} {
				idx.remove(id)
				delete(ref.vecs, id)
				delete(ref.files, id)
			}
			put(11, randomUnit(r, dim, 0.65))
			put(12, make([]float32, dim))
			put(1007, ref.vecs[5]) // another tie
			if idx.len() != len(ref.vecs) {
				t.Fatalf("len %d after removals; the reference holds %d", idx.len(), len(ref.vecs))
			}
			checkAgainstReference(t, ctx, impl, idx, ref, r, dim, len(ref.vecs))

			if _, err := idx.nearest(ctx, randomUnit(r, dim+2, 1), 5, nil, 0); !errors.Is(err, ErrDimensionMismatch) {
				t.Fatalf("a query of %d dimensions against vectors of %d: %v; want ErrDimensionMismatch", dim+2, dim, err)
			}
			if got, err := idx.nearest(ctx, make([]float32, dim), 5, nil, -1); err != nil || len(got) != 0 {
				t.Fatalf("an all-zero query found %v, %v; want nothing", got, err)
			}
			for id := range ref.vecs {
				idx.remove(id)
			}
			if idx.len() != 0 {
				t.Fatalf("len %d after removing every vector", idx.len())
			}
			// Empty, it takes vectors of any dimension again.
			if err := idx.add(1, 1, []float32{1, 2}); err != nil {
				t.Fatal(err)
			}
		})
	}
}

// checkAgainstReference asks idx and ref the same queries and fails unless
// idx keeps the contract of TestVectorIndexContract.
func checkAgainstReference(t *testing.T, ctx context.Context, impl indexUnderTest, idx vectorIndex, ref referenceIndex, r *rand.Rand, dim, total int) {
	t.Helper()
	evenNotes := func(file int64) bool { return file%2 == 0 }
	rareNotes := func(file int64) bool { return file%97 == 0 }
	// twins lists, for each chunk, the chunks of lower id with the same
	// vector.
	twins := map[int64][]int64{}
	byVector := map[string][]int64{}
	for id, v := range ref.vecs {
		key := string(encodeVector(v))
		byVector[key] = append(byVector[key], id)
	}
	for _, same := range byVector {
		for _, a := range same {
			for _, b := range same {
				if b < a {
					twins[a] = append(twins[a], b)
				}
			}
		}
	}
	for qi := range 12 {
		share := 0.1 // a short lexical query
		if qi%3 == 2 {
			share = 1 // a neural query, or a long one, sets every dimension
		}
		q := randomUnit(r, dim, share)
		eps := impl.bound(idx, q)
		for _, c := range []struct {
			n      int
			keep   func(int64) bool
			minSim float32
		}{
			{10, nil, 0}, {40, evenNotes, 0}, {total, nil, 0.2}, {25, evenNotes, 0.1},
			{1000, rareNotes, -1}, {total, rareNotes, 0.1}, {10, nil, 0.99}, {total, nil, -1},
		} {
			got, err := idx.nearest(ctx, slices.Clone(q), c.n, c.keep, c.minSim)
			if err != nil {
				t.Fatal(err)
			}
			all := ref.nearest(q, c.keep, -2)
			var want []scoredExact
			surely, maybe := 0, 0
			for _, s := range all {
				if s.sim >= float64(c.minSim) && len(want) < c.n {
					want = append(want, s)
				}
				if s.sim >= float64(c.minSim)+eps {
					surely++
				}
				if s.sim >= float64(c.minSim)-eps {
					maybe++
				}
			}
			if len(got) < min(surely, c.n) || len(got) > min(maybe, c.n) {
				t.Fatalf("query %d, n %d, floor %v: %d chunks; between %d and %d pass", qi, c.n, c.minSim, len(got), min(surely, c.n), min(maybe, c.n))
			}
			for k, g := range got {
				if c.keep != nil && !c.keep(ref.files[g.id]) || g.sim < c.minSim {
					t.Fatalf("query %d: %+v should have been filtered out", qi, g)
				}
				if k > 0 && better(g, got[k-1]) {
					t.Fatalf("query %d: rank %d %+v before rank %d %+v", qi, k-1, got[k-1], k, g)
				}
				exact := ref.cosine(q, g.id)
				if math.Abs(float64(g.sim)-exact) > eps {
					t.Fatalf("query %d, rank %d: chunk %d scored %v, exactly %v: off by more than %.2g", qi, k, g.id, g.sim, exact, eps)
				}
				if k >= len(want) || g.id == want[k].id {
					continue
				}
				// Another chunk than the reference's at this rank: only
				// where the two exact scores are closer than the index
				// can tell apart.
				if math.Abs(exact-want[k].sim) > 2*eps {
					t.Fatalf("query %d, n %d, floor %v, rank %d: chunk %d (exact %v) where the reference has chunk %d (%v)",
						qi, c.n, c.minSim, k, g.id, exact, want[k].id, want[k].sim)
				}
			}
			// Identical vectors tie exactly: the lower chunk first.
			at := map[int64]int{}
			for k, g := range got {
				at[g.id] = k
			}
			for k, g := range got {
				for _, id := range twins[g.id] {
					if c.keep == nil || c.keep(ref.files[id]) {
						if j, ok := at[id]; !ok || j > k || got[j].sim != g.sim {
							t.Fatalf("query %d: chunk %d at rank %d, its twin %d (rank %d, present %v) should score the same and come first", qi, g.id, k, id, j, ok)
						}
					}
				}
			}
		}
	}
}

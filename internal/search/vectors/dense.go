package vectors

import (
	"context"
	"fmt"
	"math"
	"slices"
	"sync"
)

// Neural embedders (Ollama, OpenAI, local models) give dense vectors: every
// one of their 256 to 1,536 dimensions is set, so the column index has
// nothing to skip, and a 384-dimension model over 100,000 notes makes about
// 360,000 chunk vectors. As float32 they take 553 MB, which chromem-go
// would hold as its own copy and read all of on every query: it serves
// vaults of up to Vectors.ChromemMax vectors, and denseIndex larger ones.
//
// denseIndex keeps each vector in two bytes a dimension instead of four:
//
//   - coarse, an int8 per dimension: the unit vector scaled by 127/max|x|
//     and rounded. Every query scans these (a quarter of the float32
//     bytes), and keeps the best candidates by the similarity they give.
//   - fine, a second int8 per dimension: what rounding left over, in 256ths
//     of a coarse step. coarse + fine/256 is the vector to 1/65,024 of its
//     largest component, about 3e-6 for a 384-dimension unit vector; the
//     candidates are scored again from it, and that score is the one
//     returned.
//
// At 384 dimensions a vector takes 768 bytes of slabs, 4 of scale and 16 of
// chunk and note ids (plus its entry in the slot map): 360,000 vectors hold
// about 290 MB, where int8 for the scan plus float32 for the rescoring would
// hold 700 MB, too much to stay under 1 GB with SQLite's cache, the full
// text index and the garbage collector's headroom beside them. float16
// copies for the rescoring would cost the same two bytes as fine but keep
// fewer bits of the larger components, which decide the score.
//
// The returned similarity differs from the float32 dot product of the
// stored vectors by at most max|x|·‖q‖₁/65,024 (about 5e-5 for 384
// dimensions, typically 1e-6). Identical vectors give identical scores, so
// ties still fall to the lowest chunk id.
type denseIndex struct {
	dim    int
	ids    []int64   // chunk of each slot
	files  []int64   // note of each slot, so that keep needs no map lookup
	scales []float32 // a slot's vector is scale·(coarse + fine/256)
	// coarse and fine hold denseBlock slots a block, so that growing never
	// copies what is held (a single slab grown by append would briefly need
	// twice its size) and removing frees the last block when it empties.
	coarse [][]int8
	fine   [][]int8
	at     map[int64]int // slot of each chunk
}

// denseBlock is how many vectors one block of a slab holds.
const denseBlock = 1024

// newDenseIndex returns an empty index with room for n vectors' ids.
func newDenseIndex(n int) *denseIndex {
	return &denseIndex{at: make(map[int64]int, n), ids: make([]int64, 0, n), files: make([]int64, 0, n),
		scales: make([]float32, 0, n)}
}

// len is how many vectors the index holds.
func (d *denseIndex) len() int { return len(d.ids) }

// vector returns the coarse and fine bytes of slot i.
func (d *denseIndex) vector(i int) (coarse, fine []int8) {
	b, off := i/denseBlock, (i%denseBlock)*d.dim
	return d.coarse[b][off : off+d.dim : off+d.dim], d.fine[b][off : off+d.dim : off+d.dim]
}

// add stores the vector of chunk id, of note file, replacing one it had.
// vec need not have unit length; it is not kept, so a caller may reuse it.
func (d *denseIndex) add(id, file int64, vec []float32) error {
	if d.dim == 0 {
		d.dim = len(vec)
	}
	if len(vec) != d.dim || d.dim == 0 {
		return fmt.Errorf("vector of chunk %d has %d dimensions; the others have %d", id, len(vec), d.dim)
	}
	i, ok := d.at[id]
	if !ok {
		i = len(d.ids)
		if i%denseBlock == 0 && i/denseBlock == len(d.coarse) {
			d.coarse = append(d.coarse, make([]int8, denseBlock*d.dim))
			d.fine = append(d.fine, make([]int8, denseBlock*d.dim))
		}
		d.at[id] = i
		d.ids = append(d.ids, id)
		d.files = append(d.files, file)
		d.scales = append(d.scales, 0)
	}
	d.files[i] = file
	coarse, fine := d.vector(i)
	d.scales[i] = quantize(vec, coarse, fine)
	return nil
}

// quantize writes vec, scaled to unit length, into coarse and fine and
// returns the scale that takes them back: vec/‖vec‖ ≈ scale·(coarse +
// fine/256). An all-zero vector stays all zeros, with scale 0.
func quantize(vec []float32, coarse, fine []int8) float32 {
	norm, step := int8Step(vec)
	if step == 0 {
		clear(coarse)
		clear(fine)
		return 0
	}
	for k, x := range vec {
		u := float64(x) / norm / step
		c := math.Round(u)
		coarse[k] = int8(c)
		fine[k] = int8(max(-128, min(127, math.Round((u-c)*256))))
	}
	return float32(step)
}

// remove drops the vector of chunk id, moving the last slot into its place.
func (d *denseIndex) remove(id int64) {
	i, ok := d.at[id]
	if !ok {
		return
	}
	last := len(d.ids) - 1
	if i != last {
		d.ids[i], d.files[i], d.scales[i] = d.ids[last], d.files[last], d.scales[last]
		c, f := d.vector(i)
		lc, lf := d.vector(last)
		copy(c, lc)
		copy(f, lf)
		d.at[d.ids[i]] = i
	}
	d.ids, d.files, d.scales = d.ids[:last], d.files[:last], d.scales[:last]
	delete(d.at, id)
	if last%denseBlock == 0 {
		// The last block is empty: let it go.
		b := last / denseBlock
		d.coarse[b], d.fine[b] = nil, nil
		d.coarse, d.fine = d.coarse[:b], d.fine[:b]
	}
	if len(d.ids) == 0 {
		d.dim = 0
	}
}

// denseQuery is a query vector ready for the scan.
type denseQuery struct {
	unit []float32 // the query at unit length
	// margin bounds, per unit of a slot's scale, how far the coarse score
	// can be from the fine one: half a coarse step on every dimension
	// weighed by the query (‖q‖₁/2), plus float32 rounding over the sum.
	margin float32
}

func newDenseQuery(query []float32) denseQuery {
	var sq float64
	for _, x := range query {
		sq += float64(x) * float64(x)
	}
	q := denseQuery{unit: make([]float32, len(query))}
	norm := math.Sqrt(sq)
	if norm == 0 {
		return q
	}
	var l1 float64
	for k, x := range query {
		q.unit[k] = float32(float64(x) / norm)
		l1 += math.Abs(float64(q.unit[k]))
	}
	// Each product is at most 127·|q_k|, and a float32 sum of len(query)
	// of them is off by at most len(query)·2⁻²⁴ of their total; doubled
	// for the float32 products and the final multiply.
	q.margin = float32(l1 * (0.5 + 2*127*float64(len(query))/(1<<24)))
	return q
}

// int8Float maps an int8, read as its byte, to float32: a table lookup
// costs less than the conversion instruction in the scan's inner loop.
var int8Float = func() (t [256]float32) {
	for b := range t {
		t[b] = float32(int8(uint8(b)))
	}
	return t
}()

// coarseDot is the dot product of q with a coarse vector, in coarse steps.
func coarseDot(q []float32, v []int8) float32 {
	v = v[:len(q)]
	var s0, s1, s2, s3 float32
	k := 0
	for ; k+8 <= len(q); k += 8 {
		qq, vv := q[k:k+8:k+8], v[k:k+8:k+8]
		s0 += qq[0]*int8Float[uint8(vv[0])] + qq[4]*int8Float[uint8(vv[4])]
		s1 += qq[1]*int8Float[uint8(vv[1])] + qq[5]*int8Float[uint8(vv[5])]
		s2 += qq[2]*int8Float[uint8(vv[2])] + qq[6]*int8Float[uint8(vv[6])]
		s3 += qq[3]*int8Float[uint8(vv[3])] + qq[7]*int8Float[uint8(vv[7])]
	}
	for ; k < len(q); k++ {
		s0 += q[k] * int8Float[uint8(v[k])]
	}
	return (s0 + s1) + (s2 + s3)
}

// fineSim is the similarity of the unit query q to slot i, from its coarse
// and fine bytes.
func (d *denseIndex) fineSim(q []float32, i int) float32 {
	coarse, fine := d.vector(i)
	fine = fine[:len(coarse)]
	var s float64
	for k, c := range coarse {
		s += float64(q[k]) * (256*float64(c) + float64(fine[k]))
	}
	return float32(s * float64(d.scales[i]) / 256)
}

// denseCandidates is how many chunks the coarse scan keeps for every one
// asked for: four deep, the candidates held the exact best ten in more
// than 99% of queries on random and on clustered vectors (TestDenseRecall).
const denseCandidates = 4

// denseMinCandidates keeps small queries from rescoring too few.
const denseMinCandidates = 64

func (d *denseIndex) kind() string { return StoreDense }

// nearest returns the n chunks most similar to query that pass keep (nil
// keeps all) and reach minSim, best first, ties broken by chunk id. The
// coarse scan picks the candidates, the fine bytes score them; when fewer
// than n candidates pass and the scan had to leave some chunks out, it
// scans again keeping four times as many. An all-zero query, which has no
// direction, finds nothing.
func (d *denseIndex) nearest(_ context.Context, query []float32, n int, keep func(fileID int64) bool, minSim float32) ([]scored, error) {
	if d.len() == 0 || n <= 0 {
		return nil, nil
	}
	if len(query) != d.dim {
		return nil, fmt.Errorf("%w: the query has %d dimensions, the stored vectors %d", ErrDimensionMismatch, len(query), d.dim)
	}
	if IsZero(query) {
		return nil, nil
	}
	q := newDenseQuery(query)
	want := max(denseCandidates*n, denseMinCandidates)
	for {
		cands, full := d.candidates(q, want, keep, minSim)
		out := cands[:0]
		for _, c := range cands {
			c.sim = d.fineSim(q.unit, d.at[c.id])
			if c.sim >= minSim {
				out = append(out, c)
			}
		}
		sortScored(out)
		if len(out) >= n || !full || want >= d.len() {
			return out[:min(n, len(out))], nil
		}
		want = min(want*4, d.len())
	}
}

// candidates scans every slot's coarse vector and returns, by coarse
// score, the best want of those that pass keep and may reach minSim, from
// each part of the scan; full says whether some part filled up.
func (d *denseIndex) candidates(q denseQuery, want int, keep func(int64) bool, minSim float32) ([]scored, bool) {
	parts := scanParts(d.len())
	tops := make([]topN, parts)
	fulls := make([]bool, parts)
	size := (d.len() + parts - 1) / parts
	var wg sync.WaitGroup
	for p := range parts {
		lo, hi := p*size, min((p+1)*size, d.len())
		wg.Go(func() { tops[p], fulls[p] = d.scan(q, lo, hi, want, keep, minSim) })
	}
	wg.Wait()
	var out []scored
	for _, t := range tops {
		out = append(out, t...)
	}
	return out, slices.Contains(fulls, true)
}

// scan scores slots lo to hi by their coarse vectors and keeps the best
// want that pass keep in a heap whose root is the worst kept. A slot whose
// coarse score is further below minSim than its error allows is skipped.
// full says the heap filled up, so that slots may have been left out.
func (d *denseIndex) scan(q denseQuery, lo, hi, want int, keep func(int64) bool, minSim float32) (topN, bool) {
	top := make(topN, 0, min(want, hi-lo))
	for i := lo; i < hi; {
		// One block at a time, so the inner loop reads one slab.
		b := i / denseBlock
		end := min(hi, (b+1)*denseBlock)
		block := d.coarse[b]
		for ; i < end; i++ {
			off := (i % denseBlock) * d.dim
			scale := d.scales[i]
			sim := coarseDot(q.unit, block[off:off+d.dim]) * scale
			if sim+scale*q.margin < minSim {
				continue
			}
			s := scored{id: d.ids[i], sim: sim}
			if len(top) == want && !better(s, top[0]) {
				continue
			}
			if keep != nil && !keep(d.files[i]) {
				continue
			}
			top.push(s, want)
		}
	}
	return top, len(top) == want
}

// IsZero reports whether every element of v is 0: such a query has
// similarity 0 to everything, and finds nothing.
func IsZero(v []float32) bool {
	for _, x := range v {
		if x != 0 {
			return false
		}
	}
	return true
}

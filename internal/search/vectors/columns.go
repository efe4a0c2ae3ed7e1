package vectors

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"sync"

	"github.com/jarvis-mcp/jarvis/internal/embed/linalg"
)

// The lexical embedder hashes a chunk's words and word pieces into 768
// dimensions, and a chunk of a few hundred words sets about two thirds of
// them (500 on average in a generated 10k-note vault), so its vectors are
// dense: stored as postings they would take more room, not less. Its
// query vectors are the sparse side: a short query sets a hundred or so.
//
// columnIndex turns that around. It keeps each vector as one int8 a
// dimension (the unit vector scaled by 127/max|x| and rounded, plus that
// scale), laid out by dimension a block of columnBlock vectors at a time:
// within a block, the values of dimension d for every vector sit side by
// side. A query then reads only the columns of the dimensions it sets,
// each a run of contiguous bytes, and adds weight·column into a block of
// scores (linalg.AddScaledInt8); dimensions the query leaves at zero are
// never read. That is an inverted index over the dimensions, with every
// posting list dense.
//
// At 768 dimensions a vector takes 768 bytes, 4 of scale and 16 of chunk
// and note ids (plus its entry in the slot map), a quarter of the float32
// vector: 356,000 chunks (a generated 100k-note vault) hold about 300 MB
// instead of 1.1 GB, and a query of a hundred dimensions reads 36 MB of
// columns rather than scattered pieces of every vector.
//
// The similarity returned is that of the int8 vector: it differs from the
// float32 dot product by at most step·‖q‖₁/2, step being max|x|/127 of the
// unit vector (about 1.6e-3 for a typical chunk), and by about 5e-4 in
// practice. Identical vectors give identical scores, so ties still fall to
// the lowest chunk id.
type columnIndex struct {
	dim    int
	ids    []int64   // chunk of each slot
	files  []int64   // note of each slot, so that keep needs no map lookup
	scales []float32 // a slot's unit vector is scale·(its int8 values)
	// blocks[b] holds slots b·columnBlock onwards, dimension by dimension:
	// the value of dimension d for slot b·columnBlock+j is at
	// d·columnBlock+j. Blocks are allocated whole, so growing never copies
	// what is held.
	blocks [][]int8
	at     map[int64]int // slot of each chunk
}

// columnBlock is how many vectors one block holds: a block's scores
// (8 KB of float32) stay in the first-level cache while its columns
// stream past.
const columnBlock = 2048

// newColumnIndex returns an empty index with room for n vectors' ids.
func newColumnIndex(n int) *columnIndex {
	return &columnIndex{at: make(map[int64]int, n), ids: make([]int64, 0, n), files: make([]int64, 0, n),
		scales: make([]float32, 0, n)}
}

// len is how many vectors the index holds.
func (c *columnIndex) len() int { return len(c.ids) }

// add stores the vector of chunk id, of note file, replacing one it had.
// vec need not have unit length; it is not kept, so a caller may reuse it.
func (c *columnIndex) add(id, file int64, vec []float32) error {
	values := make([]int8, len(vec))
	step := int8Values(vec, values)
	return c.addQuantized([]quantized{{id: id, file: file, step: step, values: values}})
}

// quantized is a vector in int8Step's quantisation (the int8 form of the
// vectors table), for addQuantized: the unit vector is step·values.
type quantized struct {
	id, file int64
	step     float32
	values   []int8
}

// addQuantized stores a run of vectors given in int8 form, each replacing
// the one its chunk had; their values are not kept. Given together,
// vectors that take consecutive slots (a load) are written a dimension at
// a time, each write a run of adjacent bytes, rather than one byte in
// every column of the block per vector.
func (c *columnIndex) addQuantized(vs []quantized) error {
	for _, v := range vs {
		if dim := cmp.Or(c.dim, len(vs[0].values)); len(v.values) != dim || dim == 0 {
			return fmt.Errorf("vector of chunk %d has %d dimensions; the others have %d", v.id, len(v.values), dim)
		}
	}
	slots := make([]int, len(vs))
	for k, v := range vs {
		i, err := c.slot(v.id, v.file, len(v.values))
		if err != nil {
			return err
		}
		slots[k] = i
		c.scales[i] = v.step
	}
	// Runs of consecutive slots within one block: a load gives a run of
	// up to a batch.
	for r0 := 0; r0 < len(vs); {
		r1 := r0 + 1
		for r1 < len(vs) && slots[r1] == slots[r1-1]+1 && slots[r1]%columnBlock != 0 {
			r1++
		}
		transpose(c.blocks[slots[r0]/columnBlock], slots[r0]%columnBlock, vs[r0:r1], c.dim)
		r0 = r1
	}
	return nil
}

// transpose writes the values of run, vectors of dim dimensions, into
// block from slot j on: value d of run[k] goes to d·columnBlock+j+k. It
// takes eight vectors at a time, reading each in order and writing eight
// adjacent bytes of every column, so the cache lines of a column are
// filled in a few visits rather than one byte a visit (a load of 356,000
// vectors took 0.9 s a vector at a time, column by column).
func transpose(block []int8, j int, run []quantized, dim int) {
	k := 0
	for ; k+8 <= len(run); k += 8 {
		r0, r1, r2, r3 := run[k].values[:dim], run[k+1].values[:dim], run[k+2].values[:dim], run[k+3].values[:dim]
		r4, r5, r6, r7 := run[k+4].values[:dim], run[k+5].values[:dim], run[k+6].values[:dim], run[k+7].values[:dim]
		for d := range dim {
			o := d*columnBlock + j + k
			dst := block[o : o+8 : o+8]
			dst[0], dst[1], dst[2], dst[3] = r0[d], r1[d], r2[d], r3[d]
			dst[4], dst[5], dst[6], dst[7] = r4[d], r5[d], r6[d], r7[d]
		}
	}
	for ; k < len(run); k++ {
		for d, x := range run[k].values[:dim] {
			block[d*columnBlock+j+k] = x
		}
	}
}

// slot returns the slot of chunk id, of note file, making one when it has
// none, for a vector of dim dimensions.
func (c *columnIndex) slot(id, file int64, dim int) (int, error) {
	if c.dim == 0 {
		c.dim = dim
	}
	if dim != c.dim || c.dim == 0 {
		return 0, fmt.Errorf("vector of chunk %d has %d dimensions; the others have %d", id, dim, c.dim)
	}
	i, ok := c.at[id]
	if !ok {
		i = len(c.ids)
		if i%columnBlock == 0 && i/columnBlock == len(c.blocks) {
			c.blocks = append(c.blocks, make([]int8, columnBlock*c.dim))
		}
		c.at[id] = i
		c.ids = append(c.ids, id)
		c.files = append(c.files, file)
		c.scales = append(c.scales, 0)
	}
	c.files[i] = file
	return i, nil
}

// int8Step returns the length of vec and the step that maps its unit
// vector's largest component to ±127; both are 0 for an all-zero vector.
func int8Step(vec []float32) (norm, step float64) {
	var sq, top float64
	for _, x := range vec {
		f := float64(x)
		sq += f * f
		top = max(top, math.Abs(f))
	}
	if sq == 0 {
		return 0, 0
	}
	norm = math.Sqrt(sq)
	return norm, top / norm / 127
}

// int8Values writes vec, scaled to unit length, into dst (as long as vec)
// as int8Step quantises it, and returns the step: the unit vector is
// step·dst. An all-zero vector gives zeros and step 0.
func int8Values(vec []float32, dst []int8) float32 {
	norm, step := int8Step(vec)
	for i, x := range vec {
		var q int8
		if step != 0 {
			q = int8(math.Round(float64(x) / norm / step))
		}
		dst[i] = q
	}
	return float32(step)
}

// remove drops the vector of chunk id, moving the last slot into its place.
func (c *columnIndex) remove(id int64) {
	i, ok := c.at[id]
	if !ok {
		return
	}
	last := len(c.ids) - 1
	if i != last {
		c.ids[i], c.files[i], c.scales[i] = c.ids[last], c.files[last], c.scales[last]
		to, j := c.blocks[i/columnBlock], i%columnBlock
		from, k := c.blocks[last/columnBlock], last%columnBlock
		for d := range c.dim {
			to[d*columnBlock+j] = from[d*columnBlock+k]
		}
		c.at[c.ids[i]] = i
	}
	c.ids, c.files, c.scales = c.ids[:last], c.files[:last], c.scales[:last]
	delete(c.at, id)
	if last%columnBlock == 0 {
		// The last block is empty: let it go.
		b := last / columnBlock
		c.blocks[b] = nil
		c.blocks = c.blocks[:b]
	}
	if len(c.ids) == 0 {
		c.dim = 0
	}
}

func (c *columnIndex) kind() string { return StoreColumn }

// nearest returns the n chunks most similar to query that pass keep (nil
// keeps all) and reach minSim, best first, ties broken by chunk id.
func (c *columnIndex) nearest(_ context.Context, query []float32, n int, keep func(fileID int64) bool, minSim float32) ([]scored, error) {
	if c.len() > 0 && len(query) != c.dim {
		return nil, fmt.Errorf("%w: the query has %d dimensions, the stored vectors %d", ErrDimensionMismatch, len(query), c.dim)
	}
	return c.nearestSparse(sparseOf(query), n, keep, minSim)
}

// nearestSparse is nearest for a query given as its non-zero dimensions.
// It scores every vector, so the answer is exact for the int8 vectors.
func (c *columnIndex) nearestSparse(q sparseQuery, n int, keep func(fileID int64) bool, minSim float32) ([]scored, error) {
	if c.len() == 0 || n <= 0 || len(q.index) == 0 {
		return nil, nil
	}
	if q.dim != c.dim {
		return nil, fmt.Errorf("%w: the query has %d dimensions, the stored vectors %d", ErrDimensionMismatch, q.dim, c.dim)
	}
	blocks := len(c.blocks)
	parts := min(scanParts(c.len()), blocks)
	tops := make([]topN, parts)
	var wg sync.WaitGroup
	per := (blocks + parts - 1) / parts
	for p := range parts {
		lo, hi := p*per, min((p+1)*per, blocks)
		wg.Go(func() { tops[p] = c.scan(q, lo, hi, n, keep, minSim) })
	}
	wg.Wait()
	var out []scored
	for _, t := range tops {
		out = append(out, t...)
	}
	sortScored(out)
	return out[:min(n, len(out))], nil
}

// scan scores the slots of blocks lo to hi and keeps the best n that pass
// keep and reach minSim, in a heap whose root is the worst kept.
func (c *columnIndex) scan(q sparseQuery, lo, hi, n int, keep func(int64) bool, minSim float32) topN {
	var top topN
	acc := make([]float32, columnBlock)
	for b := lo; b < hi; b++ {
		first := b * columnBlock
		m := min(columnBlock, c.len()-first)
		if m <= 0 {
			break
		}
		sims := acc[:m]
		clear(sims)
		block := c.blocks[b]
		for k, d := range q.index {
			linalg.AddScaledInt8(sims, q.weight[k], block[d*columnBlock:d*columnBlock+m])
		}
		scales, ids, files := c.scales[first:first+m], c.ids[first:first+m], c.files[first:first+m]
		for j, dot := range sims {
			sim := dot * scales[j]
			if sim < minSim {
				continue
			}
			s := scored{id: ids[j], sim: sim}
			if len(top) == n && !better(s, top[0]) {
				continue
			}
			if keep != nil && !keep(files[j]) {
				continue
			}
			top.push(s, n)
		}
	}
	return top
}

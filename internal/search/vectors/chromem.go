package vectors

import (
	"context"
	"fmt"
	"math"
	"strconv"

	"github.com/philippgille/chromem-go"
)

// chromemIndex keeps a vault's vectors as documents of a chromem-go
// collection: unit float32 vectors, scored exactly by a float32 dot
// product, the vault's vectors as SQLite holds them. It serves vaults up
// to Vectors.ChromemMax vectors; above that a query reads too much and the
// copies take too much room, and the compact indexes serve
// (docs/benchmarks.md, "Vector store choice").
//
// chromem-go is asked for more documents than wanted, since its only
// filter is metadata equality and it has no floor: keep and minSim are
// applied to what it returns, and the query widens until n chunks pass or
// no chunk it left out could. It orders equal scores arbitrarily; the
// widening also goes on while the last one returned ties with the n-th
// kept, so ties fall to the lowest chunk id as in the other indexes. A
// filter that keeps few chunks has them read and scored one by one instead
// (chromemFew).
type chromemIndex struct {
	col *chromem.Collection
	// dims is the dimension of the vectors held, 0 when there are none.
	dims int
	// files is the note of every chunk held, so that keep needs neither
	// metadata on each document nor a lookup in the collection.
	files map[int64]int64
	// zeros are the chunks whose vector is all zeros: chromem-go would
	// normalise them to NaN. Their similarity to any query is 0, as in the
	// compact indexes.
	zeros map[int64]bool
}

// newChromemIndex returns an empty index with room for n chunks' notes.
func newChromemIndex(n int) *chromemIndex {
	// A collection made on its own, outside any chromem.DB: nothing is
	// persisted and no embedding function is ever called, as every
	// document comes with its vector.
	col, err := chromem.NewDB().CreateCollection("vectors", nil, noEmbedding)
	if err != nil {
		// CreateCollection fails only for an empty name or when
		// persisting, neither of which happens here.
		panic(fmt.Sprintf("create chromem-go collection: %v", err))
	}
	return &chromemIndex{col: col, files: make(map[int64]int64, n), zeros: map[int64]bool{}}
}

// noEmbedding is the collection's embedding function: chromem-go calls it
// only for a document or query given as text, which this package never
// does.
func noEmbedding(context.Context, string) ([]float32, error) {
	return nil, fmt.Errorf("chromem-go asked to embed text: vectors are embedded before they reach it")
}

func (c *chromemIndex) kind() string { return StoreChromem }

// len is how many vectors the index holds.
func (c *chromemIndex) len() int { return len(c.files) }

// add stores the vector of chunk id, of note file, replacing one it had.
// vec need not have unit length; it is not kept, so a caller may reuse it.
func (c *chromemIndex) add(id, file int64, vec []float32) error {
	if c.dims == 0 {
		c.dims = len(vec)
	}
	if len(vec) != c.dims || c.dims == 0 {
		return fmt.Errorf("vector of chunk %d has %d dimensions; the others have %d", id, len(vec), c.dims)
	}
	unit, ok := unitCopy(vec)
	key := strconv.FormatInt(id, 10)
	if !ok {
		if !c.zeros[id] {
			if _, had := c.files[id]; had {
				c.deleteDocument(key)
			}
		}
		c.zeros[id] = true
		c.files[id] = file
		return nil
	}
	// AddDocument, not AddDocuments: the latter starts a goroutine for
	// every document, which costs more than the insert itself.
	if err := c.col.AddDocument(context.Background(), chromem.Document{ID: key, Embedding: unit}); err != nil {
		return fmt.Errorf("add vector of chunk %d: %w", id, err)
	}
	delete(c.zeros, id)
	c.files[id] = file
	return nil
}

// deleteDocument removes one document from the collection. chromem-go
// fails a delete only when given no id and no filter.
func (c *chromemIndex) deleteDocument(key string) {
	_ = c.col.Delete(context.Background(), nil, nil, key)
}

// unitCopy returns vec scaled to unit length in a new slice, computed in
// float64 as the compact indexes scale theirs; ok is false for an all-zero
// vector. chromem-go keeps the slice it is given, and normalises in
// float32 only when the length is off by more than 1e-6.
func unitCopy(vec []float32) (unit []float32, ok bool) {
	var sq float64
	for _, x := range vec {
		sq += float64(x) * float64(x)
	}
	if sq == 0 {
		return nil, false
	}
	norm := math.Sqrt(sq)
	unit = make([]float32, len(vec))
	for i, x := range vec {
		unit[i] = float32(float64(x) / norm)
	}
	return unit, true
}

// remove drops the vector of chunk id.
func (c *chromemIndex) remove(id int64) {
	if _, ok := c.files[id]; !ok {
		return
	}
	if c.zeros[id] {
		delete(c.zeros, id)
	} else {
		c.deleteDocument(strconv.FormatInt(id, 10))
	}
	delete(c.files, id)
	if len(c.files) == 0 {
		c.dims = 0
	}
}

// each calls fn with every chunk held, its note and its unit vector (nil
// for an all-zero one), for moving the vault to another index.
func (c *chromemIndex) each(fn func(id, file int64, unit []float32) error) error {
	for id, file := range c.files {
		var unit []float32
		if !c.zeros[id] {
			doc, err := c.col.GetByID(context.Background(), strconv.FormatInt(id, 10))
			if err != nil {
				return fmt.Errorf("read vector of chunk %d: %w", id, err)
			}
			unit = doc.Embedding
		} else {
			unit = make([]float32, c.dims)
		}
		if err := fn(id, file, unit); err != nil {
			return err
		}
	}
	return nil
}

// chromemFew: a filter that lets at most one document in chromemFew
// through is served by scoring those documents one by one. A chromem-go
// query scores every document, and a filter it cannot apply makes it
// return all of them to be sorted (docs/benchmarks.md, "Vector store
// choice").
const chromemFew = 8

// scoreEach scores the documents of the given chunks against unit, with
// chromem-go's own formula (dotProduct: a float32 sum in order, the vectors
// being unit), so that a chunk scores the same as through a query, and
// returns the best n that reach minSim, with the all-zero chunks given.
func (c *chromemIndex) scoreEach(ctx context.Context, unit []float32, ids []int64, zeros []scored, n int, minSim float32) ([]scored, error) {
	out := zeros
	for _, id := range ids {
		doc, err := c.col.GetByID(ctx, strconv.FormatInt(id, 10))
		if err != nil {
			return nil, fmt.Errorf("read vector of chunk %d: %w", id, err)
		}
		var sim float32
		for i, x := range doc.Embedding {
			sim += unit[i] * x
		}
		if sim >= minSim {
			out = append(out, scored{id: id, sim: sim})
		}
	}
	sortScored(out)
	return out[:min(n, len(out))], nil
}

// chromemSlack is how many documents beyond the n wanted the first query
// asks for: a few more make a second pass for ties or for a refused chunk
// rarer, and cost next to nothing, as chromem-go scores every document
// whatever it is asked for.
const chromemSlack = 16

// nearest returns the n chunks most similar to query that pass keep (nil
// keeps all) and reach minSim, best first, ties broken by chunk id.
func (c *chromemIndex) nearest(ctx context.Context, query []float32, n int, keep func(fileID int64) bool, minSim float32) ([]scored, error) {
	if c.len() == 0 || n <= 0 {
		return nil, nil
	}
	if len(query) != c.dims {
		return nil, fmt.Errorf("%w: the query has %d dimensions, the stored vectors %d", ErrDimensionMismatch, len(query), c.dims)
	}
	unit, ok := unitCopy(query)
	if !ok {
		return nil, nil // no direction: nothing is similar
	}
	var zeros []scored
	if minSim <= 0 {
		for id := range c.zeros {
			if keep == nil || keep(c.files[id]) {
				zeros = append(zeros, scored{id: id})
			}
		}
	}
	docs := c.col.Count()
	if docs == 0 {
		sortScored(zeros)
		return zeros[:min(n, len(zeros))], nil
	}
	want := n
	if keep != nil {
		var passing []int64
		for id, file := range c.files {
			if !c.zeros[id] && keep(file) {
				passing = append(passing, id)
			}
		}
		if len(passing)*chromemFew <= docs {
			return c.scoreEach(ctx, unit, passing, zeros, n, minSim)
		}
		// Ask for as many more as the filter refuses, so that one query
		// usually suffices.
		want = int(math.Ceil(float64(n) * float64(docs) / float64(len(passing))))
	}
	want += chromemSlack
	for {
		want = min(want, docs)
		res, err := c.col.QueryEmbedding(ctx, unit, want, nil, nil)
		if err != nil {
			return nil, fmt.Errorf("query chromem-go: %w", err)
		}
		out := append(make([]scored, 0, len(zeros)+min(len(res), n+chromemSlack)), zeros...)
		for _, r := range res {
			if r.Similarity < minSim {
				break // results come best first
			}
			id, err := strconv.ParseInt(r.ID, 10, 64)
			if err != nil {
				return nil, fmt.Errorf("chromem-go document id %q: %w", r.ID, err)
			}
			if keep == nil || keep(c.files[id]) {
				out = append(out, scored{id: id, sim: r.Similarity})
			}
		}
		sortScored(out)
		// Every document not returned scores at most as the last one
		// returned: done when that is below the floor, or below the n-th
		// chunk kept, so that nothing left out can pass or tie it.
		done := want == docs || len(res) == 0
		if !done {
			last := res[len(res)-1].Similarity
			done = last < minSim || len(out) >= n && out[n-1].sim > last
		}
		if done {
			return out[:min(n, len(out))], nil
		}
		want *= 4
	}
}

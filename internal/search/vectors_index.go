package search

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"strconv"

	"github.com/philippgille/chromem-go"

	"github.com/jarvis-mcp/jarvis/internal/embed"
)

// Serve makes the store keep vectors in memory for queries: every later
// Sync brings the collections in step. Load does it too.
func (v *Vectors) Serve() {
	v.mu.Lock()
	v.serving = true
	v.mu.Unlock()
}

// Load builds the in-memory collections from the vectors stored for the
// configured embedder, without embedding anything. With no stored vectors,
// semantic search stays unavailable and says so.
func (v *Vectors) Load(ctx context.Context) error {
	s, err := v.stored(ctx)
	if err != nil {
		return err
	}
	if v.src.Restore == nil {
		return ErrNoEmbedder
	}
	emb, err := v.restore(s)
	if err != nil {
		err = fmt.Errorf("%w: %v", ErrNoEmbedder, err)
		v.setEmbedderErr(err)
		return err
	}
	chunks, err := v.countChunks(ctx)
	if err != nil {
		return err
	}
	v.mu.Lock()
	v.embedder, v.rowID, v.serving, v.chunkTotal = emb, s.id, true, chunks
	v.mu.Unlock()
	return v.Refresh(ctx)
}

// Refresh brings the in-memory collections in step with the database:
// vectors of new chunks are added, those of deleted chunks removed. Only
// the difference is read, so a refresh after a small edit is cheap.
func (v *Vectors) Refresh(ctx context.Context) error {
	v.mu.RLock()
	rowID := v.rowID
	v.mu.RUnlock()
	current, err := v.withVectors(ctx, rowID)
	if err != nil {
		return fmt.Errorf("load vectors: %w", err)
	}
	// The stored row's fingerprint, not the embedder's own: a remote
	// embedder's names no dimension until it has answered once.
	storedFP, err := v.storedFingerprint(ctx, rowID)
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return fmt.Errorf("load vectors: %w", err)
	}

	v.mu.Lock()
	defer v.mu.Unlock()
	if v.rowID != rowID {
		return nil // a Sync or Load replaced the embedder meanwhile; it refreshes itself
	}
	// Another embedder, or the same one refitted, has vectors that differ
	// from those in memory even where a chunk's hash does not: every
	// collection goes. Otherwise only those of vaults with no vectors left.
	key := loadedKey(rowID, storedFP)
	for name, col := range v.cols {
		if _, ok := current[name]; ok && v.loaded == key {
			continue
		}
		if col.c == nil {
			delete(v.cols, name)
			continue
		}
		if err := v.mem.DeleteCollection(name); err != nil {
			return fmt.Errorf("drop vectors of vault %q: %w", name, err)
		}
		delete(v.cols, name)
	}
	v.loaded = key
	for name, want := range current {
		col, err := v.collectionLocked(name)
		if err != nil {
			return err
		}
		var gone []int64
		for id, ref := range col.chunks {
			if w, ok := want[id]; !ok || w.hash != ref.hash {
				gone = append(gone, id)
			}
		}
		if err := col.drop(ctx, gone); err != nil {
			return fmt.Errorf("vectors of vault %q: %w", name, err)
		}
		var add []int64
		for id := range want {
			if _, ok := col.chunks[id]; !ok {
				add = append(add, id)
			}
		}
		if err := v.addDocs(ctx, col, rowID, add, want); err != nil {
			return fmt.Errorf("vectors of vault %q: %w", name, err)
		}
	}
	return nil
}

// loadedKey names the vectors of embedders row rowID stored under
// fingerprint fp (a deleted row's id can be given to the next one).
func loadedKey(rowID int64, fp string) string { return fmt.Sprintf("%d %s", rowID, fp) }

// absorb adds the vectors of one stored batch to the collections when the
// store serves queries, so that search uses them before the run ends. The
// first batch of an embedder new to memory loads everything stored for it
// instead.
func (v *Vectors) absorb(ctx context.Context, emb embed.Embedder, rowID int64, batch []pending, vecs [][]float32) error {
	key := loadedKey(rowID, emb.Fingerprint())
	v.mu.RLock()
	serving, current := v.serving, v.rowID == rowID && v.loaded == key
	v.mu.RUnlock()
	if !serving {
		return nil
	}
	if !current {
		v.mu.Lock()
		v.embedder, v.rowID = emb, rowID
		v.mu.Unlock()
		return v.Refresh(ctx)
	}
	if len(batch) == 0 {
		return nil
	}
	byHash := make(map[string][]float32, len(batch))
	args := make([]any, len(batch))
	for i, p := range batch {
		byHash[p.hash] = unitLength(vecs[i])
		args[i] = p.hash
	}
	type arrival struct {
		vault string
		id    int64
		ref   chunkRef
	}
	rows, err := v.db.QueryContext(ctx, `SELECT c.id, c.file_id, va.name, c.hash
		FROM chunks c JOIN files f ON f.id = c.file_id JOIN vaults va ON va.id = f.vault_id
		WHERE c.hash IN (`+placeholders(len(args))+`)`, args...)
	if err != nil {
		return fmt.Errorf("read chunks of new vectors: %w", err)
	}
	defer rows.Close()
	var in []arrival
	for rows.Next() {
		var a arrival
		if err := rows.Scan(&a.id, &a.ref.fileID, &a.vault, &a.ref.hash); err != nil {
			return fmt.Errorf("read chunks of new vectors: %w", err)
		}
		in = append(in, a)
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("read chunks of new vectors: %w", err)
	}
	v.mu.Lock()
	defer v.mu.Unlock()
	if v.rowID != rowID || v.loaded != key {
		return nil // replaced meanwhile; whoever replaced it loads its own
	}
	for _, a := range in {
		col, err := v.collectionLocked(a.vault)
		if err != nil {
			return err
		}
		if had, ok := col.chunks[a.id]; ok {
			if had.hash == a.ref.hash {
				continue
			}
			if err := col.drop(ctx, []int64{a.id}); err != nil {
				return err
			}
		}
		if err := col.put(ctx, a.id, a.ref, byHash[a.ref.hash]); err != nil {
			return err
		}
	}
	return nil
}

// put adds the vector of chunk id, of unit length, to col. chromem-go and
// the sparse scan keep vec itself; the dense index keeps a compact copy,
// so the caller may reuse vec.
func (col *collection) put(ctx context.Context, id int64, ref chunkRef, vec []float32) error {
	if col.dense != nil {
		if err := col.dense.add(id, ref.fileID, vec); err != nil {
			return err
		}
		col.chunks[id] = ref
		return nil
	}
	if err := col.c.AddDocument(ctx, chromem.Document{ID: strconv.FormatInt(id, 10), Embedding: vec}); err != nil {
		return fmt.Errorf("add vector of chunk %d: %w", id, err)
	}
	if err := col.flat.add(id, vec); err != nil {
		return err
	}
	col.chunks[id] = ref
	return nil
}

// drop removes the vectors of the given chunks from col.
func (col *collection) drop(ctx context.Context, ids []int64) error {
	if len(ids) == 0 {
		return nil
	}
	docs := make([]string, 0, len(ids))
	for _, id := range ids {
		delete(col.chunks, id)
		if col.dense != nil {
			col.dense.remove(id)
			continue
		}
		col.flat.remove(id)
		docs = append(docs, strconv.FormatInt(id, 10))
	}
	if col.c == nil {
		return nil
	}
	return deleteDocs(ctx, col.c, docs)
}

// count is how many vectors col holds.
func (col *collection) count() int {
	if col.dense != nil {
		return col.dense.len()
	}
	return col.c.Count()
}

// dim is the dimension of col's vectors, 0 when it holds none.
func (col *collection) dim() int {
	if col.dense != nil {
		return col.dense.dim
	}
	return col.flat.dim
}

// collectionLocked returns the collection of vault name, made when it has
// none yet; v.mu is held for writing.
func (v *Vectors) collectionLocked(name string) (*collection, error) {
	if col := v.cols[name]; col != nil {
		return col, nil
	}
	col := &collection{chunks: map[int64]chunkRef{}}
	if v.src.Provider == embed.ProviderLexical {
		c, err := v.mem.CreateCollection(name, nil, refuseToEmbed)
		if err != nil {
			return nil, fmt.Errorf("vectors of vault %q: %w", name, err)
		}
		col.c, col.flat = c, newFlat()
	} else {
		// Every other embedder's vectors are dense: the sparse scan
		// would skip nothing, and chromem-go's float32 copy is what the
		// dense index exists to avoid.
		col.dense = newDenseIndex()
	}
	v.cols[name] = col
	return col, nil
}

// setChunks records how many chunks the database holds, for Coverage.
func (v *Vectors) setChunks(n int) {
	v.mu.Lock()
	v.chunkTotal = n
	v.mu.Unlock()
}

// Coverage is how many chunks have a vector in memory and how many chunks
// the database held when last counted: while a neural embedder works
// through a vault, search answers from the first and says so.
func (v *Vectors) Coverage() (vectors, chunks int) {
	v.mu.RLock()
	defer v.mu.RUnlock()
	for _, col := range v.cols {
		vectors += len(col.chunks)
	}
	return vectors, max(v.chunkTotal, vectors)
}

// withVectors lists, by vault, the chunks that have a vector under the
// embedders row rowID.
func (v *Vectors) withVectors(ctx context.Context, rowID int64) (map[string]map[int64]chunkRef, error) {
	rows, err := v.db.QueryContext(ctx, `SELECT c.id, c.file_id, va.name, c.hash
		FROM chunks c JOIN files f ON f.id = c.file_id JOIN vaults va ON va.id = f.vault_id
		WHERE `+withVector, rowID)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	current := map[string]map[int64]chunkRef{}
	for rows.Next() {
		var id int64
		var vault string
		var ref chunkRef
		if err := rows.Scan(&id, &ref.fileID, &vault, &ref.hash); err != nil {
			return nil, err
		}
		if current[vault] == nil {
			current[vault] = map[int64]chunkRef{}
		}
		current[vault][id] = ref
	}
	return current, rows.Err()
}

// addDocs reads the vectors of the given chunks and adds them to col, a
// page of chunks per query.
func (v *Vectors) addDocs(ctx context.Context, col *collection, rowID int64, ids []int64, want map[int64]chunkRef) error {
	const page = 500
	for start := 0; start < len(ids); start += page {
		if err := v.addPage(ctx, col, rowID, ids[start:min(start+page, len(ids))], want); err != nil {
			return err
		}
	}
	return nil
}

func (v *Vectors) addPage(ctx context.Context, col *collection, rowID int64, ids []int64, want map[int64]chunkRef) error {
	args := make([]any, 0, len(ids)+1)
	args = append(args, rowID)
	for _, id := range ids {
		args = append(args, id)
	}
	rows, err := v.db.QueryContext(ctx, `SELECT c.id, x.vector FROM chunks c
		JOIN vectors x ON x.embedder_id = ? AND x.hash = c.hash
		WHERE c.id IN (`+placeholders(len(ids))+`)`, args...)
	if err != nil {
		return fmt.Errorf("read vectors: %w", err)
	}
	defer rows.Close()
	var scratch []float32 // the dense index copies what it keeps
	for rows.Next() {
		var id int64
		var blob sql.RawBytes
		if err := rows.Scan(&id, &blob); err != nil {
			return fmt.Errorf("read vectors: %w", err)
		}
		var vec []float32
		if col.dense != nil {
			scratch, err = decodeVectorInto(scratch, blob)
			vec = scratch
		} else {
			// Scaled here, chromem-go keeps this slice rather than a
			// normalised copy, and the sparse scan reads the same memory.
			vec, err = decodeVector(blob)
			vec = unitLength(vec)
		}
		if err != nil {
			return fmt.Errorf("vector of chunk %d: %w", id, err)
		}
		if err := col.put(ctx, id, want[id], vec); err != nil {
			return err
		}
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("read vectors: %w", err)
	}
	return nil
}

// refuseToEmbed is every collection's embedding function. chromem-go falls
// back to calling OpenAI when a collection has none; jarvis embeds queries
// and documents itself and must never send a note anywhere by accident.
func refuseToEmbed(context.Context, string) ([]float32, error) {
	return nil, errors.New("vectors are embedded by jarvis before they reach the collection")
}

// deleteDocs removes documents by id. chromem-go's Delete removes every
// document when it is given no ids, or an empty non-nil filter; this never
// calls it with either.
func deleteDocs(ctx context.Context, c *chromem.Collection, ids []string) error {
	if len(ids) == 0 {
		return nil
	}
	return c.Delete(ctx, nil, nil, ids...)
}

// setEmbedderErr records why the configured embedder could not be built,
// for searches to say.
func (v *Vectors) setEmbedderErr(err error) {
	v.mu.Lock()
	v.embedderErr = err
	v.mu.Unlock()
}

// EmbedderErr is why the configured embedder could not be built (a local
// model not pulled, a damaged one), or nil.
func (v *Vectors) EmbedderErr() error {
	v.mu.RLock()
	defer v.mu.RUnlock()
	return v.embedderErr
}

// Embedder returns the embedder vectors are loaded for, or nil.
func (v *Vectors) Embedder() embed.Embedder {
	v.mu.RLock()
	defer v.mu.RUnlock()
	return v.embedder
}

// Count is how many chunk vectors are loaded, over every vault.
func (v *Vectors) Count() int {
	v.mu.RLock()
	defer v.mu.RUnlock()
	n := 0
	for _, col := range v.cols {
		n += col.count()
	}
	return n
}

// hit is one chunk found by a vector query.
type hit struct {
	vault  string
	chunk  int64
	fileID int64
	sim    float32
}

// nearest returns the chunks most similar to query in the given vaults (all
// when names is empty), best first, ties broken by chunk id so the order
// never changes between runs. keep filters by note; n bounds the result
// before filtering only as a first guess: the query widens until n kept
// chunks are found or every chunk has been considered.
func (v *Vectors) nearest(ctx context.Context, query []float32, names []string, n int, keep func(fileID int64) bool, minSim float32) ([]hit, error) {
	v.mu.RLock()
	defer v.mu.RUnlock()
	var out []hit
	for name, col := range v.cols {
		if len(names) > 0 && !slices.Contains(names, name) {
			continue
		}
		if d := col.dim(); d != 0 && len(query) != d {
			return nil, fmt.Errorf("%w: the query has %d dimensions, the stored vectors %d", ErrDimensionMismatch, len(query), d)
		}
		hits, err := queryCollection(ctx, col, name, query, n, keep, minSim)
		if err != nil {
			return nil, fmt.Errorf("search vectors of vault %q: %w", name, err)
		}
		out = append(out, hits...)
	}
	sortHits(out)
	return out, nil
}

// queryCollection asks one collection for its best n chunks that pass keep
// and reach minSim: from the dense index when it holds them, else by the
// sparse scan when the query allows it, else through chromem-go.
func queryCollection(ctx context.Context, col *collection, name string, query []float32, n int, keep func(int64) bool, minSim float32) ([]hit, error) {
	if col.count() == 0 || n <= 0 {
		return nil, nil
	}
	if col.dense != nil {
		top, err := col.dense.nearest(query, n, keep, minSim)
		return col.hits(name, top), err
	}
	if sq, ok := sparseOf(query); ok {
		return scanCollection(col, name, sq, n, keep, minSim)
	}
	return chromemQuery(ctx, col, name, query, n, keep, minSim)
}

// chromemQuery answers queryCollection through chromem-go. chromem-go
// refuses n above its document count and returns equal scores in no fixed
// order; this clamps n and widens the query while the last score it got
// ties with the cut-off or too few chunks passed keep.
func chromemQuery(ctx context.Context, col *collection, name string, query []float32, n int, keep func(int64) bool, minSim float32) ([]hit, error) {
	total := col.c.Count()
	ask := min(n, total)
	for {
		res, err := col.c.QueryEmbedding(ctx, query, ask, nil, nil)
		if err != nil {
			return nil, err
		}
		var hits []hit
		for _, r := range res {
			id, err := strconv.ParseInt(r.ID, 10, 64)
			if err != nil {
				continue
			}
			ref, ok := col.kept(id, r.Similarity, keep, minSim)
			if !ok {
				continue
			}
			hits = append(hits, hit{vault: name, chunk: id, fileID: ref.fileID, sim: r.Similarity})
		}
		sortHits(hits)
		done := ask >= total || len(res) == 0 || res[len(res)-1].Similarity < minSim
		if !done && len(hits) >= n {
			// Enough kept; stop unless the n-th ties with the last score
			// seen, when an equal chunk may have been left out.
			done = hits[n-1].sim > res[len(res)-1].Similarity
		}
		if done {
			return hits, nil
		}
		ask = min(ask*4, total)
	}
}

// scanCollection answers queryCollection for a sparse query by scoring
// every chunk of the collection itself.
func scanCollection(col *collection, name string, q sparseQuery, n int, keep func(int64) bool, minSim float32) ([]hit, error) {
	top, err := col.flat.nearest(q, n, func(id int64, sim float32) bool {
		_, ok := col.kept(id, sim, keep, minSim)
		return ok
	})
	return col.hits(name, top), err
}

// hits names the chunks of vault name found by a scan of col.
func (col *collection) hits(name string, top []scored) []hit {
	hits := make([]hit, len(top))
	for i, s := range top {
		hits[i] = hit{vault: name, chunk: s.id, fileID: col.chunks[s.id].fileID, sim: s.sim}
	}
	return hits
}

// kept says whether a chunk found with similarity sim is an answer: it is
// still in col, reaches minSim, and its note passes keep (nil keeps all).
func (col *collection) kept(id int64, sim float32, keep func(fileID int64) bool, minSim float32) (chunkRef, bool) {
	if sim < minSim {
		return chunkRef{}, false
	}
	ref, ok := col.chunks[id]
	return ref, ok && (keep == nil || keep(ref.fileID))
}

func sortHits(h []hit) {
	slices.SortFunc(h, func(a, b hit) int {
		if a.sim != b.sim {
			if a.sim > b.sim {
				return -1
			}
			return 1
		}
		switch {
		case a.vault != b.vault:
			if a.vault < b.vault {
				return -1
			}
			return 1
		case a.chunk < b.chunk:
			return -1
		case a.chunk > b.chunk:
			return 1
		}
		return 0
	})
}

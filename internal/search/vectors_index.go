package search

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"

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
	for name := range v.cols {
		if _, ok := current[name]; ok && v.loaded == key {
			continue
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
		col.drop(gone)
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
			col.drop([]int64{a.id})
		}
		if err := col.put(a.id, a.ref, byHash[a.ref.hash]); err != nil {
			return err
		}
	}
	return nil
}

// put adds the vector of chunk id to col. The index keeps a compact copy,
// so the caller may reuse vec.
func (col *collection) put(id int64, ref chunkRef, vec []float32) error {
	var err error
	if col.dense != nil {
		err = col.dense.add(id, ref.fileID, vec)
	} else {
		err = col.lex.add(id, ref.fileID, vec)
	}
	if err != nil {
		return err
	}
	col.chunks[id] = ref
	return nil
}

// drop removes the vectors of the given chunks from col.
func (col *collection) drop(ids []int64) {
	for _, id := range ids {
		delete(col.chunks, id)
		if col.dense != nil {
			col.dense.remove(id)
		} else {
			col.lex.remove(id)
		}
	}
}

// count is how many vectors col holds.
func (col *collection) count() int {
	if col.dense != nil {
		return col.dense.len()
	}
	return col.lex.len()
}

// dim is the dimension of col's vectors, 0 when it holds none.
func (col *collection) dim() int {
	if col.dense != nil {
		return col.dense.dim
	}
	return col.lex.dim
}

// collectionLocked returns the collection of vault name, made when it has
// none yet; v.mu is held for writing.
func (v *Vectors) collectionLocked(name string) (*collection, error) {
	if col := v.cols[name]; col != nil {
		return col, nil
	}
	col := &collection{chunks: map[int64]chunkRef{}}
	if v.src.Provider == embed.ProviderLexical {
		col.lex = newColumnIndex()
	} else {
		// Every other embedder's queries are dense too: a column index
		// would read every column.
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
	var vec []float32 // the indexes copy what they keep
	for rows.Next() {
		var id int64
		var blob sql.RawBytes
		if err := rows.Scan(&id, &blob); err != nil {
			return fmt.Errorf("read vectors: %w", err)
		}
		if vec, err = decodeVectorInto(vec, blob); err != nil {
			return fmt.Errorf("vector of chunk %d: %w", id, err)
		}
		if err := col.put(id, want[id], vec); err != nil {
			return err
		}
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("read vectors: %w", err)
	}
	return nil
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
		hits, err := queryCollection(col, name, query, n, keep, minSim)
		if err != nil {
			return nil, fmt.Errorf("search vectors of vault %q: %w", name, err)
		}
		out = append(out, hits...)
	}
	sortHits(out)
	return out, nil
}

// queryCollection asks one collection for its best n chunks that pass keep
// and reach minSim.
func queryCollection(col *collection, name string, query []float32, n int, keep func(int64) bool, minSim float32) ([]hit, error) {
	if col.count() == 0 || n <= 0 {
		return nil, nil
	}
	var top []scored
	var err error
	if col.dense != nil {
		top, err = col.dense.nearest(query, n, keep, minSim)
	} else {
		top, err = col.lex.nearest(sparseOf(query), n, keep, minSim)
	}
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

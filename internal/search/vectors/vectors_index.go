package vectors

import (
	"bytes"
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"slices"

	"github.com/jarvis-mcp/jarvis/internal/embed"
	"github.com/jarvis-mcp/jarvis/internal/store"
)

// Serve makes the store keep vectors in memory for queries: every later
// Sync brings the collections in step. Load does it too.
func (v *Vectors) Serve() {
	v.mu.Lock()
	v.serving = true
	v.mu.Unlock()
}

// Forget drops every vector memory holds and the embedders row they came
// from, as when the database file was replaced by another (a rebuild):
// ids and rows are the new file's, and the next Sync or Load reads its
// vectors from the start. Queries meanwhile find no vector and say so.
func (v *Vectors) Forget() {
	v.mu.Lock()
	defer v.mu.Unlock()
	v.cols = map[string]*collection{}
	v.rowID, v.loaded, v.refreshedAt = 0, "", -1
}

// Load builds the in-memory collections from the vectors stored for the
// configured embedder, without embedding anything. With no stored vectors,
// semantic search stays unavailable and says so.
func (v *Vectors) Load(ctx context.Context) (err error) {
	v.mu.Lock()
	v.loading = true
	v.mu.Unlock()
	defer func() {
		v.mu.Lock()
		v.loading, v.reading = false, ""
		if ctx.Err() == nil {
			v.loadErr = err
		}
		v.mu.Unlock()
	}()
	s, err := v.stored(ctx)
	if err != nil {
		return err
	}
	v.mu.Lock()
	v.reading = s.fingerprint
	v.mu.Unlock()
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

// LoadStored is Load when vectors are stored for the configured embedder,
// and nothing otherwise: the server calls it at start, beside its first
// index pass, and a vault never indexed has nothing to load.
func (v *Vectors) LoadStored(ctx context.Context) error {
	// Loading from the first moment: a query meanwhile hears that the
	// stored vectors are being read, not that none were made.
	v.mu.Lock()
	v.loading = true
	v.mu.Unlock()
	s, err := v.stored(ctx)
	if err != nil || s.id == 0 {
		v.mu.Lock()
		v.loading = false
		v.mu.Unlock()
		if ctx.Err() == nil {
			v.mu.Lock()
			v.loadErr = err
			v.mu.Unlock()
		}
		return err
	}
	return v.Load(ctx)
}

// Refresh brings the in-memory collections in step with the database:
// vectors of new chunks are added, those of deleted chunks removed. It
// reads every chunk's id and hash in one pass, then only the vectors
// memory lacks: by hash, a page at a time, after a small change, or in one
// sequential pass over the vectors table when memory lacks many (at start,
// after a refit), as looking each up by its key would cost two B-tree
// descents a chunk. Vectors go into memory a batch at a time, the lock
// held only while a batch goes in, so queries answer from what is loaded
// meanwhile (and say how much that is).
func (v *Vectors) Refresh(ctx context.Context) error {
	v.refreshing.Lock()
	defer v.refreshing.Unlock()
	v.mu.RLock()
	rowID := v.rowID
	v.mu.RUnlock()
	changes, err := v.chunkChanges(ctx)
	if err != nil {
		return fmt.Errorf("load vectors: %w", err)
	}
	// The stored row's fingerprint, not the embedder's own: a remote
	// embedder's names no dimension until it has answered once.
	storedFP, err := v.storedFingerprint(ctx, rowID)
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return fmt.Errorf("load vectors: %w", err)
	}
	key := loadedKey(rowID, storedFP)
	v.mu.RLock()
	inStep := v.rowID == rowID && v.loaded == key && v.refreshedAt == changes
	v.mu.RUnlock()
	if inStep {
		return nil
	}
	chunks, err := v.readChunks(ctx)
	if err != nil {
		return fmt.Errorf("load vectors: %w", err)
	}

	need, pending, ok := v.dropStale(rowID, key, chunks)
	if !ok {
		return nil // a Sync or Load replaced the embedder meanwhile; it refreshes itself
	}
	if pending > 0 {
		if err := v.loadVectors(ctx, rowID, key, chunks, need, pending); err != nil {
			return fmt.Errorf("load vectors: %w", err)
		}
	}
	v.mu.Lock()
	for name, col := range v.cols {
		if col.count() == 0 {
			delete(v.cols, name)
		}
	}
	if v.rowID == rowID && v.loaded == key {
		v.refreshedAt = changes
	}
	v.mu.Unlock()
	return nil
}

// chunkRow is a chunk as Refresh reads it. It holds no pointer, so that
// the garbage collector need not look through the hundreds of thousands of
// them a large vault has.
type chunkRow struct {
	id    int64
	ref   chunkRef
	key   vecKey // the hash its vector is stored under
	vault int32  // an index in chunkList.names
}

// chunkList is every chunk of the database, as Refresh reads it.
type chunkList struct {
	names []string // the vaults' names
	rows  []chunkRow
	// odd keeps the stored form of the hashes a key cannot give back
	// (any but 64 lowercase hex digits; jarvis writes none such).
	odd map[vecKey]string
}

// vecKey is a chunk's hash as memory keys vectors by: the 32 bytes its 64
// hex digits spell.
type vecKey [32]byte

// keyOf returns the key of a stored hash, and whether the hash is the
// hex form of its key. Any other text is keyed by its own SHA-256, the
// same for a chunk and a vector.
func keyOf(hash []byte) (k vecKey, canonical bool) {
	if len(hash) == hex.EncodedLen(len(k)) && !bytes.ContainsAny(hash, "ABCDEF") {
		if _, err := hex.Decode(k[:], hash); err == nil {
			return k, true
		}
	}
	return sha256.Sum256(hash), false
}

// hash is the stored form of the hash keyed k.
func (l *chunkList) hash(k vecKey) string {
	if h, ok := l.odd[k]; ok {
		return h
	}
	return hex.EncodeToString(k[:])
}

// readChunks reads every chunk's id, note, vault and hash.
func (v *Vectors) readChunks(ctx context.Context) (*chunkList, error) {
	ids, err := store.VaultNames(ctx, v.db)
	if err != nil {
		return nil, err
	}
	l := &chunkList{}
	vaults := make(map[int64]int32, len(ids))
	index := func(id int64) int32 {
		i, ok := vaults[id]
		if !ok {
			i = int32(len(l.names))
			vaults[id] = i
			l.names = append(l.names, ids[id])
		}
		return i
	}
	v.mu.RLock()
	l.rows = make([]chunkRow, 0, v.chunkTotal) // as last counted: a hint
	v.mu.RUnlock()
	rows, err := v.db.QueryContext(ctx, `SELECT c.id, c.file_id, f.vault_id, c.hash FROM chunks c JOIN files f ON f.id = c.file_id`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var hash sql.RawBytes
	for rows.Next() {
		var c chunkRow
		var vault int64
		if err := rows.Scan(&c.id, &c.ref.fileID, &vault, &hash); err != nil {
			return nil, err
		}
		c.ref.hash = hashKey(hash)
		k, canonical := keyOf(hash)
		if !canonical {
			if l.odd == nil {
				l.odd = map[vecKey]string{}
			}
			l.odd[k] = string(hash)
		}
		c.key, c.vault = k, index(vault)
		l.rows = append(l.rows, c)
	}
	return l, rows.Err()
}

// needs is the chunks whose vectors memory lacks, by the vector each
// needs. Like chunkRow, it holds no pointer.
type needs struct {
	first map[vecKey]int32 // the first such chunk, an index in chunkList.rows
	next  []int32          // by index in rows: the next chunk needing the same vector, or -1
}

// dropStale removes from memory the vectors of chunks gone from chunks or
// changed, and every vector when memory holds another embedder's (key
// names the one wanted), and returns the chunks whose vectors memory
// lacks, and how many they are. ok is false when the embedder in use is
// no longer rowID's.
func (v *Vectors) dropStale(rowID int64, key string, chunks *chunkList) (need needs, pending int, ok bool) {
	v.mu.Lock()
	defer v.mu.Unlock()
	if v.rowID != rowID {
		return needs{}, 0, false
	}
	counts := make([]int, len(chunks.names))
	for _, c := range chunks.rows {
		counts[c.vault]++
	}
	// Another embedder, or the same one refitted, has vectors that differ
	// from those in memory even where a chunk's hash does not: every
	// collection goes. Otherwise only those of vaults gone.
	for name := range v.cols {
		if i := slices.Index(chunks.names, name); i < 0 || counts[i] == 0 || v.loaded != key {
			delete(v.cols, name)
		}
	}
	if v.loaded != key {
		v.refreshedAt = -1
	}
	v.loaded = key
	// had is each vault's collection as it was kept, nil for one made now.
	had := make([]*collection, len(chunks.names))
	for i, name := range chunks.names {
		col := v.cols[name]
		if col != nil && v.shrunkLocked(col, counts[i]) {
			// Reloaded from SQLite into chromem-go: the compact index
			// holds less than the stored vectors.
			delete(v.cols, name)
			col = nil
		}
		had[i] = col
	}
	wants := make([]map[int64]uint64, len(chunks.names))
	for _, c := range chunks.rows {
		if had[c.vault] != nil {
			if wants[c.vault] == nil {
				wants[c.vault] = make(map[int64]uint64, counts[c.vault])
			}
			wants[c.vault][c.id] = c.ref.hash
		}
	}
	for i, name := range chunks.names {
		if col := had[i]; col != nil {
			var gone []int64
			for id, ref := range col.chunks {
				if h, ok := wants[i][id]; !ok || h != ref.hash {
					gone = append(gone, id)
				}
			}
			col.drop(gone)
			if err := v.outgrowLocked(name, col, counts[i]); err != nil {
				// The vault is loaded again from SQLite instead.
				v.log.Warn("move vectors to the compact store", "vault", name, "err", err)
				delete(v.cols, name)
				had[i] = nil
			}
		}
		if had[i] == nil && counts[i] > 0 {
			v.collectionLocked(name, counts[i])
		}
	}
	lacks := func(c chunkRow) bool {
		if col := had[c.vault]; col != nil {
			_, ok := col.chunks[c.id]
			return !ok
		}
		return true
	}
	for _, c := range chunks.rows {
		if lacks(c) {
			pending++
		}
	}
	need = needs{first: make(map[vecKey]int32, pending), next: make([]int32, len(chunks.rows))}
	for i, c := range chunks.rows {
		if !lacks(c) {
			continue
		}
		need.next[i] = -1
		if j, ok := need.first[c.key]; ok {
			need.next[i] = j
		}
		need.first[c.key] = int32(i)
	}
	return need, pending, true
}

// scanVectorsFrom is how many missing vectors make Refresh read the whole
// vectors table in one pass rather than look them up by hash.
var scanVectorsFrom = 4096

// loadBatch is how many stored vectors go into memory under one hold of
// the lock.
const loadBatch = 1024

// loadVectors reads the stored vectors of the chunks in need and adds
// them to memory, unless the embedder in use changes meanwhile.
func (v *Vectors) loadVectors(ctx context.Context, rowID int64, key string, chunks *chunkList, need needs, pending int) error {
	if pending >= scanVectorsFrom {
		// NOT INDEXED: in rowid order, the order the table is laid out
		// in, rather than through the (embedder, hash) index.
		rows, err := v.db.QueryContext(ctx, `SELECT hash, vector FROM vectors NOT INDEXED WHERE embedder_id = ?`, rowID)
		if err != nil {
			return err
		}
		return v.takeVectors(rows, rowID, key, chunks, need)
	}
	hashes := make([]any, 0, len(need.first))
	for k := range need.first {
		hashes = append(hashes, chunks.hash(k))
	}
	const page = 500
	for start := 0; start < len(hashes); start += page {
		part := hashes[start:min(start+page, len(hashes))]
		rows, err := v.db.QueryContext(ctx, `SELECT hash, vector FROM vectors WHERE embedder_id = ? AND hash IN (`+
			store.Placeholders(len(part))+`)`, append([]any{rowID}, part...)...)
		if err != nil {
			return err
		}
		if err := v.takeVectors(rows, rowID, key, chunks, need); err != nil {
			return err
		}
	}
	return nil
}

// takeVectors adds the vectors rows yields (hash, vector) to the chunks
// in need of them, loadBatch at a time under one hold of the lock, and
// closes rows. Reading a batch and putting it into memory take about as
// long as each other, so a goroutine reads the next batch while this one
// puts the last.
func (v *Vectors) takeVectors(rows *sql.Rows, rowID int64, key string, chunks *chunkList, need needs) error {
	full := make(chan *staged, 1)
	free := make(chan *staged, 2) // never blocks: two batches exist
	free <- &staged{}
	free <- &staged{}
	stop := make(chan struct{})
	var readErr error
	go func() {
		defer close(full)
		defer rows.Close()
		readErr = stageVectors(rows, chunks, need, free, full, stop)
	}()
	var putErr error
	for b := range full {
		if putErr == nil {
			if putErr = v.putStored(rowID, key, chunks.names, b.vectors); putErr != nil {
				close(stop)
			}
		}
		// Memory holds copies: the batch serves again.
		b.vectors, b.arena = b.vectors[:0], b.arena[:0]
		free <- b
	}
	if putErr != nil {
		return ignoreReplaced(putErr)
	}
	return readErr
}

// staged is a batch of stored vectors read and not yet in memory.
type staged struct {
	vectors []storedVector
	arena   []byte // their blobs, copied out of the rows
}

// stageVectors reads rows into batches taken from free and sends each on
// full once it holds loadBatch vectors, and the last one at the end,
// until stop closes.
func stageVectors(rows *sql.Rows, chunks *chunkList, need needs, free <-chan *staged, full chan<- *staged, stop <-chan struct{}) error {
	var b *staged
	select {
	case b = <-free:
	case <-stop:
		return nil
	}
	var hash, blob sql.RawBytes
	for rows.Next() {
		if err := rows.Scan(&hash, &blob); err != nil {
			return err
		}
		k, _ := keyOf(hash)
		i, ok := need.first[k]
		for ; ok && i >= 0; i = need.next[i] {
			if len(b.arena)+len(blob) > cap(b.arena) {
				// A new arena: the staged blobs still point into the old.
				b.arena = make([]byte, 0, max(len(blob)*(loadBatch+1), 2*cap(b.arena)))
			}
			start := len(b.arena)
			b.arena = append(b.arena, blob...)
			b.vectors = append(b.vectors, storedVector{c: chunks.rows[i], blob: b.arena[start:len(b.arena):len(b.arena)]})
		}
		if len(b.vectors) >= loadBatch {
			select {
			case full <- b:
			case <-stop:
				return nil
			}
			select {
			case b = <-free:
			case <-stop:
				return nil
			}
		}
	}
	if err := rows.Err(); err != nil {
		return err
	}
	if len(b.vectors) > 0 {
		select {
		case full <- b:
		case <-stop:
		}
	}
	return nil
}

// storedVector is a chunk's vector as the vectors table holds it.
type storedVector struct {
	c    chunkRow
	blob []byte
}

// putStored adds a batch of stored vectors to memory under one hold of
// the lock, unless the embedder in use is no longer rowID's (errReplaced).
// Vectors in the int8 form go to a column index as they are.
func (v *Vectors) putStored(rowID int64, key string, names []string, batch []storedVector) error {
	v.mu.Lock()
	defer v.mu.Unlock()
	if v.rowID != rowID || v.loaded != key {
		return errReplaced
	}
	var vec []float32 // the indexes copy what they keep
	lex := map[*collection][]quantized{}
	refs := map[*collection][]chunkRef{}
	grown := map[string]*collection{}
	for _, s := range batch {
		name := names[s.c.vault]
		col := v.collectionLocked(name, 0)
		grown[name] = col
		if step, values, ok := int8Vector(s.blob); ok {
			if _, columns := col.index.(*columnIndex); columns {
				lex[col] = append(lex[col], quantized{id: s.c.id, file: s.c.ref.fileID, step: step, values: values})
				refs[col] = append(refs[col], s.c.ref)
				continue
			}
		}
		var err error
		if vec, err = decodeVectorInto(vec, s.blob); err != nil {
			return fmt.Errorf("vector of chunk %d: %w", s.c.id, err)
		}
		if err := col.put(s.c.id, s.c.ref, vec); err != nil {
			return err
		}
	}
	for col, vs := range lex {
		if err := col.index.(*columnIndex).addQuantized(vs); err != nil {
			return err
		}
		for k, q := range vs {
			col.chunks[q.id] = refs[col][k]
		}
	}
	for name, col := range grown {
		if err := v.outgrowLocked(name, col, col.count()); err != nil {
			return err
		}
	}
	return nil
}

// errReplaced stops a load whose embedder was replaced meanwhile: whoever
// replaced it loads its own.
var errReplaced = errors.New("the embedder in use was replaced")

func ignoreReplaced(err error) error {
	if errors.Is(err, errReplaced) {
		return nil
	}
	return err
}

// hashKey condenses a chunk's hash (64 hex digits) into the 64 bits memory
// keeps to notice that a chunk's text changed: FNV-1a.
func hashKey[T ~string | ~[]byte](h T) uint64 {
	k := uint64(14695981039346656037)
	for i := 0; i < len(h); i++ {
		k ^= uint64(h[i])
		k *= 1099511628211
	}
	return k
}

// loadedKey names the vectors of embedders row rowID stored under
// fingerprint fp (a deleted row's id can be given to the next one).
func loadedKey(rowID int64, fp string) string { return fmt.Sprintf("%d %s", rowID, fp) }

// absorb adds the vectors of one stored batch (blobs, as stored) to the
// collections when the store serves queries, so that search uses them
// before the run ends. The first batch of an embedder new to memory loads
// everything stored for it instead.
func (v *Vectors) absorb(ctx context.Context, emb embed.Embedder, rowID int64, batch []pending, blobs [][]byte) error {
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
	names, err := store.VaultNames(ctx, v.db)
	if err != nil {
		return fmt.Errorf("add new vectors: %w", err)
	}
	v.mu.Lock()
	defer v.mu.Unlock()
	if v.rowID != rowID || v.loaded != key {
		return nil // replaced meanwhile; whoever replaced it loads its own
	}
	// Chunks sharing a text with a planned one wait for the next Refresh,
	// which must therefore look.
	v.refreshedAt = -1
	grown := map[string]*collection{}
	var vec []float32 // the indexes copy what they keep
	for i, p := range batch {
		ref := chunkRef{hash: hashKey(p.hash)}
		if vec, err = decodeVectorInto(vec, blobs[i]); err != nil {
			return fmt.Errorf("add new vectors: vector of chunk %d: %w", p.chunks[0].id, err)
		}
		for _, c := range p.chunks {
			name := names[c.vaultID]
			col := v.collectionLocked(name, 0)
			if had, ok := col.chunks[c.id]; ok && had.hash == ref.hash {
				continue
			}
			ref.fileID = c.fileID
			if err := col.put(c.id, ref, vec); err != nil {
				return err
			}
			grown[name] = col
		}
	}
	for name, col := range grown {
		if err := v.outgrowLocked(name, col, col.count()); err != nil {
			return err
		}
	}
	return nil
}

// put adds the vector of chunk id to col. The index keeps its own copy,
// so the caller may reuse vec.
func (col *collection) put(id int64, ref chunkRef, vec []float32) error {
	if err := col.index.add(id, ref.fileID, vec); err != nil {
		return err
	}
	col.chunks[id] = ref
	return nil
}

// drop removes the vectors of the given chunks from col.
func (col *collection) drop(ids []int64) {
	for _, id := range ids {
		delete(col.chunks, id)
		col.index.remove(id)
	}
}

// count is how many vectors col holds.
func (col *collection) count() int { return col.index.len() }

// collectionLocked returns the collection of vault name, made with
// room for n vectors when it has none yet, so that a load does not grow
// (and copy) its maps and slices as it goes; v.mu is held for writing.
// Its index is chromem-go for up to ChromemMax vectors, the compact one
// above.
func (v *Vectors) collectionLocked(name string, n int) *collection {
	if col := v.cols[name]; col != nil {
		return col
	}
	col := &collection{chunks: make(map[int64]chunkRef, n)}
	if n <= v.ChromemMax {
		col.index = newChromemIndex(n)
	} else {
		col.index = v.compactIndex(n)
	}
	v.cols[name] = col
	return col
}

// compactIndex returns an empty compact index, with room for n vectors,
// for this store's embedder: the column index for the lexical embedder,
// whose queries set a hundred or so of its 768 dimensions; the dense index
// for every other, whose queries set every dimension, so that a column
// index would read every column.
func (v *Vectors) compactIndex(n int) vectorIndex {
	if v.src.Provider == embed.ProviderLexical {
		return newColumnIndex(n)
	}
	return newDenseIndex(n)
}

// outgrowLocked moves col, the collection of vault name, from chromem-go
// to the compact index when n, the vectors it holds or is about to hold,
// passes ChromemMax. The vectors move from memory: chromem-go holds them
// as SQLite does, so the compact index gets what a load would give it.
// v.mu is held for writing.
func (v *Vectors) outgrowLocked(name string, col *collection, n int) error {
	from, ok := col.index.(*chromemIndex)
	if !ok || n <= v.ChromemMax {
		return nil
	}
	to := v.compactIndex(max(n, from.len()))
	if err := from.each(to.add); err != nil {
		return err
	}
	col.index = to
	v.log.Info("vault's vectors moved to a compact store", "vault", name, "vectors", to.len(), "store", to.kind())
	return nil
}

// shrunkLocked reports whether col, served by a compact index, now
// belongs in chromem-go, the vault having n vectors: below nine tenths of
// ChromemMax, so that a vault at the line does not move at every edit.
func (v *Vectors) shrunkLocked(col *collection, n int) bool {
	_, chromem := col.index.(*chromemIndex)
	return !chromem && n < v.ChromemMax-v.ChromemMax/10
}

// Stores names the store serving each vault's vectors, by vault name:
// StoreChromem ("chromem-go") for a vault of up to ChromemMax vectors,
// StoreColumn ("column") or StoreDense ("dense") above it, for the
// lexical embedder's vectors and a neural embedder's. A vault with no
// vectors in memory is not listed.
func (v *Vectors) Stores() map[string]string {
	v.mu.RLock()
	defer v.mu.RUnlock()
	out := make(map[string]string, len(v.cols))
	for name, col := range v.cols {
		if col.count() > 0 {
			out[name] = col.index.kind()
		}
	}
	return out
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

// WillLoad marks the stored vectors as being read from now, for a
// LoadStored about to run in another goroutine: a server calls it before
// it answers its first request, so that a question asked before the load
// has begun hears that they are being read, not that none are loaded.
// LoadStored clears it when nothing is stored.
func (v *Vectors) WillLoad() {
	v.mu.Lock()
	v.loading = true
	v.mu.Unlock()
}

// Loading says whether the stored vectors are being read into memory
// now (Load), and why the last Load failed, nil when it did not.
func (v *Vectors) Loading() (loading bool, err error) {
	v.mu.RLock()
	defer v.mu.RUnlock()
	return v.loading, v.loadErr
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

// Fingerprint names the embedder in use, or the stored one Load is
// building while its model loads; "" when there is neither.
func (v *Vectors) Fingerprint() string {
	v.mu.RLock()
	defer v.mu.RUnlock()
	if v.embedder != nil {
		return v.embedder.Fingerprint()
	}
	return v.reading
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

// Hit is one chunk found by a vector query.
type Hit struct {
	Vault string
	Chunk int64
	File  int64 // the chunk's note
	Sim   float32
}

// Nearest returns the chunks most similar to query in the given vaults (all
// when names is empty), best first, ties broken by vault and chunk id so the
// order never changes between runs. keep filters by note (nil keeps all);
// n bounds each vault's result, and only chunks reaching minSim count.
func (v *Vectors) Nearest(ctx context.Context, query []float32, names []string, n int, keep func(fileID int64) bool, minSim float32) ([]Hit, error) {
	v.mu.RLock()
	defer v.mu.RUnlock()
	var out []Hit
	for name, col := range v.cols {
		if len(names) > 0 && !slices.Contains(names, name) {
			continue
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

// CountIn is how many vectors vault name has in memory.
func (v *Vectors) CountIn(name string) int {
	v.mu.RLock()
	defer v.mu.RUnlock()
	if col := v.cols[name]; col != nil {
		return col.count()
	}
	return 0
}

// ChunkVectors calls f with every chunk of the given notes that has a
// vector from the embedder in use, and that vector as stored.
func (v *Vectors) ChunkVectors(ctx context.Context, files []int64, f func(chunk, file int64, vec []float32)) error {
	if len(files) == 0 {
		return nil
	}
	v.mu.RLock()
	rowID := v.rowID
	v.mu.RUnlock()
	args := []any{rowID}
	for _, id := range files {
		args = append(args, id)
	}
	rows, err := v.db.QueryContext(ctx, `SELECT c.id, c.file_id, x.vector FROM chunks c
		JOIN vectors x ON x.embedder_id = ? AND x.hash = c.hash
		WHERE c.file_id IN (`+store.Placeholders(len(files))+`)`, args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var chunk, file int64
		var blob []byte
		if err := rows.Scan(&chunk, &file, &blob); err != nil {
			return err
		}
		vec, err := decodeVector(blob)
		if err != nil {
			return err
		}
		f(chunk, file, vec)
	}
	return rows.Err()
}

// queryCollection asks one collection for its best n chunks that pass keep
// and reach minSim.
func queryCollection(ctx context.Context, col *collection, name string, query []float32, n int, keep func(int64) bool, minSim float32) ([]Hit, error) {
	if col.count() == 0 || n <= 0 {
		return nil, nil
	}
	top, err := col.index.nearest(ctx, query, n, keep, minSim)
	return col.hits(name, top), err
}

// hits names the chunks of vault name found by a scan of col.
func (col *collection) hits(name string, top []scored) []Hit {
	hits := make([]Hit, len(top))
	for i, s := range top {
		hits[i] = Hit{Vault: name, Chunk: s.id, File: col.chunks[s.id].fileID, Sim: s.sim}
	}
	return hits
}

func sortHits(h []Hit) {
	slices.SortFunc(h, func(a, b Hit) int {
		if a.Sim != b.Sim {
			if a.Sim > b.Sim {
				return -1
			}
			return 1
		}
		switch {
		case a.Vault != b.Vault:
			if a.Vault < b.Vault {
				return -1
			}
			return 1
		case a.Chunk < b.Chunk:
			return -1
		case a.Chunk > b.Chunk:
			return 1
		}
		return 0
	})
}

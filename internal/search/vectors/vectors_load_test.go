package vectors

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/jarvis-mcp/jarvis/internal/store"
)

// queryLog is a DB that records the text of every query it is given.
type queryLog struct {
	*store.DB
	mu      sync.Mutex
	queries []string
}

func (q *queryLog) QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	q.mu.Lock()
	q.queries = append(q.queries, query)
	q.mu.Unlock()
	return q.DB.QueryContext(ctx, query, args...)
}

func (q *queryLog) QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row {
	q.mu.Lock()
	q.queries = append(q.queries, query)
	q.mu.Unlock()
	return q.DB.QueryRowContext(ctx, query, args...)
}

// reading says whether a recorded query reads every chunk.
func (q *queryLog) readsChunks() bool {
	q.mu.Lock()
	defer q.mu.Unlock()
	for _, s := range q.queries {
		if strings.Contains(s, "FROM chunks c") {
			return true
		}
	}
	return false
}

func (q *queryLog) reset() {
	q.mu.Lock()
	q.queries = nil
	q.mu.Unlock()
}

// TestSyncWithNothingChangedReadsNoChunk: once a sync has finished, the
// next one finds the count of chunk changes where it left it and reads no
// chunk at all (at 100,000 notes that reading takes seconds); a change of
// any kind to chunks, a cascade from files included, makes the next sync
// look again and bring vectors and memory in step.
func TestSyncWithNothingChangedReadsNoChunk(t *testing.T) {
	ctx := context.Background()
	sdb, add := testDB(t)
	a := add("a.md", "alpha beta", "gamma delta")
	add("b.md", "epsilon zeta")
	db := &queryLog{DB: sdb}
	v := servingVectors(db, LexicalSource(), quietLog())
	if _, err := v.Sync(ctx, SyncOptions{}); err != nil {
		t.Fatal(err)
	}
	db.reset()
	res, err := v.Sync(ctx, SyncOptions{})
	if err != nil || res.Embedded != 0 || res.Vectors != 3 || res.Chunks != 3 {
		t.Fatalf("second sync = %+v, %v; want nothing embedded and 3 of 3 chunks covered", res, err)
	}
	if db.readsChunks() {
		t.Fatalf("a sync with nothing changed read the chunks: %q", db.queries)
	}

	steps := []struct {
		name   string
		change func()
		want   int
	}{
		{"a note added", func() { add("c.md", "eta theta") }, 4},
		{"a chunk's text changed", func() {
			if _, err := sdb.Exec(`UPDATE chunks SET text = 'iota', hash = 'changed' WHERE file_id = ? AND ord = 0`, a); err != nil {
				t.Fatal(err)
			}
		}, 4},
		{"a note deleted, its chunks by cascade", func() {
			if _, err := sdb.Exec(`DELETE FROM files WHERE id = ?`, a); err != nil {
				t.Fatal(err)
			}
		}, 2},
	}
	for _, s := range steps {
		s.change()
		db.reset()
		res, err := v.Sync(ctx, SyncOptions{})
		if err != nil || res.Vectors != s.want || res.Chunks != s.want {
			t.Fatalf("%s: sync = %+v, %v; want %d of %d chunks covered", s.name, res, err, s.want, s.want)
		}
		if !db.readsChunks() {
			t.Fatalf("%s: the sync did not look at the chunks", s.name)
		}
		memoryMatchesStore(t, v, sdb, s.want)
	}
}

// TestVectorsLoadBothWays loads the same stored vectors by hash, a page
// at a time (few missing), and in one pass over the table (many missing),
// into chromem-go and into the column index: memory must hold the same
// vectors either way, and vectors stored in the float32 form by earlier
// versions load as well as the int8 form.
func TestVectorsLoadBothWays(t *testing.T) {
	ctx := context.Background()
	db, add := testDB(t)
	add("a.md", "alpha beta", "gamma delta", "alpha beta") // one text twice
	add("b.md", "epsilon zeta", "eta theta alpha")
	if _, err := NewVectors(db, LexicalSource(), quietLog()).Sync(ctx, SyncOptions{}); err != nil {
		t.Fatal(err)
	}
	var int8Form int
	if err := db.QueryRow(`SELECT count(*) FROM vectors WHERE length(vector) = 8 + 768`).Scan(&int8Form); err != nil || int8Form != 4 {
		t.Fatalf("%d lexical vectors stored in the int8 form (%v); want all 4", int8Form, err)
	}
	load := func(from int) {
		t.Helper()
		err := loadEachStore(t, db, from, func(name string, v *Vectors) {
			memoryMatchesStore(t, v, db, 5)
			hits, err := v.Nearest(ctx, mustEmbedQuery(t, v, "alpha beta"), nil, 5, nil, 0)
			if err != nil || len(hits) != 5 {
				t.Fatalf("nearest after a load into %s: %d hits, %v", name, len(hits), err)
			}
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	load(1 << 30) // by hash
	load(1)       // one pass
	// As an earlier version stored them.
	rows, err := db.Query(`SELECT id, vector FROM vectors`)
	if err != nil {
		t.Fatal(err)
	}
	old := map[int64][]byte{}
	for rows.Next() {
		var id int64
		var blob []byte
		if err := rows.Scan(&id, &blob); err != nil {
			t.Fatal(err)
		}
		vec, err := decodeVector(blob)
		if err != nil {
			t.Fatal(err)
		}
		old[id] = encodeVector(vec)
	}
	rows.Close()
	for id, blob := range old {
		if _, err := db.Exec(`UPDATE vectors SET vector = ? WHERE id = ?`, blob, id); err != nil {
			t.Fatal(err)
		}
	}
	load(1 << 30)
	load(1)
}

func mustEmbedQuery(t *testing.T, v *Vectors, q string) []float32 {
	t.Helper()
	vecs, err := v.Embedder().Embed(context.Background(), []string{q})
	if err != nil {
		t.Fatal(err)
	}
	return vecs[0]
}

// TestVectorsLoadManyBatches loads more vectors than two batches hold
// (the reader then waits for the batches memory has taken), with texts
// shared between notes and hashes stored in forms other than jarvis's
// lowercase hex, both ways: memory must hold every stored vector. A
// damaged vector stops the load with an error naming its chunk, and a
// load whose embedder is replaced stops quietly, its rows closed.
func TestVectorsLoadManyBatches(t *testing.T) {
	ctx := context.Background()
	db, add := testDB(t)
	for n := range 26 {
		var texts []string
		for c := range 100 {
			texts = append(texts, fmt.Sprintf("note%d chunk%d word%d", n, c, n*c))
		}
		add(fmt.Sprintf("n%d.md", n), texts...)
	}
	add("again.md", "note3 chunk7 word21") // n3.md's text, in another note
	const total = 26*100 + 1
	if _, err := NewVectors(db, LexicalSource(), quietLog()).Sync(ctx, SyncOptions{}); err != nil {
		t.Fatal(err)
	}
	for _, h := range []string{`upper(hash)`, `'not a hash'`, `substr(hash, 1, 63)`} {
		var old string
		if err := db.QueryRow(`SELECT hash FROM chunks WHERE id = (SELECT max(id) FROM chunks WHERE hash = lower(hash) AND length(hash) = 64)`).Scan(&old); err != nil {
			t.Fatal(err)
		}
		for _, table := range []string{"chunks", "vectors"} {
			if _, err := db.Exec(`UPDATE `+table+` SET hash = `+h+` WHERE hash = ?`, old); err != nil {
				t.Fatal(err)
			}
		}
	}
	load := func(from int) error {
		t.Helper()
		return loadEachStore(t, db, from, func(_ string, v *Vectors) { memoryMatchesStore(t, v, db, total) })
	}
	for _, from := range []int{1 << 30, 1} {
		if err := load(from); err != nil {
			t.Fatalf("load (scan from %d): %v", from, err)
		}
	}

	var rowID int64
	if err := db.QueryRow(`SELECT id FROM embedders`).Scan(&rowID); err != nil {
		t.Fatal(err)
	}
	v := NewVectors(db, LexicalSource(), quietLog())
	rows, err := db.Query(`SELECT hash, vector FROM vectors`)
	if err != nil {
		t.Fatal(err)
	}
	chunks, err := v.readChunks(ctx)
	if err != nil {
		t.Fatal(err)
	}
	need, _, _ := v.dropStale(0, "", chunks) // memory holds no embedder: rowID 0
	if err := v.takeVectors(rows, rowID, loadedKey(rowID, "x"), chunks, need); err != nil {
		t.Fatalf("a load whose embedder was replaced: %v; want it to stop quietly", err)
	}
	if rows.Next() {
		t.Fatal("the rows of a stopped load are still open")
	}

	var damaged int64
	if err := db.QueryRow(`SELECT c.id FROM chunks c JOIN vectors x ON x.hash = c.hash ORDER BY x.id DESC LIMIT 1`).Scan(&damaged); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(`UPDATE vectors SET vector = x'010203' WHERE id = (SELECT max(id) FROM vectors)`); err != nil {
		t.Fatal(err)
	}
	for _, from := range []int{1 << 30, 1} {
		err := load(from)
		if err == nil || !strings.Contains(err.Error(), fmt.Sprintf("chunk %d", damaged)) {
			t.Fatalf("load of a damaged vector (scan from %d): %v; want an error naming chunk %d", from, err, damaged)
		}
	}
}

// loadEachStore loads the vectors stored in db into chromem-go and into
// the compact index in turn, reading them by hash when fewer than from
// are missing and in one pass over the table otherwise, and calls check
// with each store loaded; it returns the first load's error.
func loadEachStore(t *testing.T, db DB, from int, check func(store string, v *Vectors)) error {
	t.Helper()
	old := scanVectorsFrom
	scanVectorsFrom = from
	defer func() { scanVectorsFrom = old }()
	for _, size := range storeSizes {
		v := NewVectors(db, LexicalSource(), quietLog())
		v.ChromemMax = size.max
		if err := v.Load(context.Background()); err != nil {
			return err
		}
		check(size.name, v)
	}
	return nil
}

// TestWillLoadSaysReadingUntilLoadStoredEnds: from WillLoad, before the
// load has begun, the vectors are said to be being read; LoadStored ends
// it, whether it found vectors to read or none.
func TestWillLoadSaysReadingUntilLoadStoredEnds(t *testing.T) {
	ctx := context.Background()
	db, add := testDB(t)
	v := servingVectors(db, LexicalSource(), quietLog())
	v.WillLoad()
	if loading, _ := v.Loading(); !loading {
		t.Fatal("after WillLoad, Loading says the vectors are not being read")
	}
	if err := v.LoadStored(ctx); err != nil {
		t.Fatal(err)
	}
	if loading, _ := v.Loading(); loading {
		t.Fatal("LoadStored of a database with no vectors left Loading set")
	}

	add("a.md", "alpha beta")
	if _, err := v.Sync(ctx, SyncOptions{}); err != nil {
		t.Fatal(err)
	}
	w := servingVectors(db, LexicalSource(), quietLog())
	w.WillLoad()
	if err := w.LoadStored(ctx); err != nil {
		t.Fatal(err)
	}
	if loading, _ := w.Loading(); loading || w.Count() != 1 {
		t.Fatalf("after LoadStored: loading %v, %d vectors; want done, 1", loading, w.Count())
	}
}

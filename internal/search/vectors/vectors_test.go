package vectors

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"log/slog"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jarvis-mcp/jarvis/internal/embed"
	"github.com/jarvis-mcp/jarvis/internal/search/searchtest"
	"github.com/jarvis-mcp/jarvis/internal/vault"
)

// Test embedders and databases, shared with the other search packages.
type (
	letters    = searchtest.Letters
	remoteLike = searchtest.RemoteLike
)

var (
	testDB    = searchtest.NoteDB
	indexedDB = searchtest.IndexedDB
	quietLog  = searchtest.Quiet
)

func sourceFor(e *letters) EmbedderSource {
	return EmbedderSource{
		Provider: "test", Model: e.Name,
		Restore: func([]byte) (embed.Embedder, error) { return e, nil },
	}
}

func TestVectorsSyncStoresAndLoadNeverReembeds(t *testing.T) {
	ctx := context.Background()
	db, add := testDB(t)
	add("a.md", "apple apple", "banana")
	add("b.md", "cherry")
	add("c.md", "banana")        // same text as a chunk of a.md, another title: its own vector
	add("x/a.md", "apple apple") // same title and text as a chunk of a.md: one vector for both

	e := &letters{Name: "m"}
	v := servingVectors(db, sourceFor(e), quietLog())
	res, err := v.Sync(ctx, SyncOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Embedded != 4 || res.Vectors != 5 || res.Chunks != 5 || res.Shared != 1 || v.Count() != 5 {
		t.Fatalf("first sync = %+v, %d loaded; want 4 texts embedded for 5 chunks (one shared), all loaded", res, v.Count())
	}

	res, err = v.Sync(ctx, SyncOptions{})
	if err != nil || res.Embedded != 0 {
		t.Fatalf("second sync = %+v, %v; want nothing embedded", res, err)
	}

	fresh := &letters{Name: "m"}
	w := servingVectors(db, sourceFor(fresh), quietLog())
	if err := w.Load(ctx); err != nil {
		t.Fatal(err)
	}
	if w.Count() != 5 || fresh.Calls.Load() != 0 {
		t.Fatalf("load: %d vectors, %d texts embedded; want 5 loaded and none embedded", w.Count(), fresh.Calls.Load())
	}
}

func TestVectorsSyncEmbedsOnlyChangedChunks(t *testing.T) {
	ctx := context.Background()
	db, add := testDB(t)
	id := add("a.md", "one", "two", "three")
	add("b.md", "four")
	e := &letters{Name: "m"}
	v := servingVectors(db, sourceFor(e), quietLog())
	if _, err := v.Sync(ctx, SyncOptions{}); err != nil {
		t.Fatal(err)
	}
	// The note is re-indexed with its middle chunk edited: its rows are
	// replaced, as the indexer does.
	if _, err := db.Exec(`DELETE FROM chunks WHERE file_id = ?`, id); err != nil {
		t.Fatal(err)
	}
	for i, c := range []string{"one", "two edited", "three"} {
		if _, err := db.Exec(`INSERT INTO chunks (file_id, ord, heading, start_line, end_line, text, hash) VALUES (?, ?, '', 1, 1, ?, ?)`,
			id, i, c, vault.TextHash(vault.EmbedText("a", "", c))); err != nil {
			t.Fatal(err)
		}
	}
	e.Calls.Store(0)
	res, err := v.Sync(ctx, SyncOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Embedded != 1 || e.Calls.Load() != 1 {
		t.Fatalf("sync after edit embedded %d (%d calls); want only the edited chunk", res.Embedded, e.Calls.Load())
	}
	if res.Vectors != 4 || res.Shared != 0 {
		t.Fatalf("sync after edit = %+v; want 4 vectors, the 3 not embedded had one before (none shared)", res)
	}
	if v.Count() != 4 {
		t.Fatalf("%d vectors loaded; want 4", v.Count())
	}
	var stored int
	if err := db.QueryRow(`SELECT count(*) FROM vectors`).Scan(&stored); err != nil || stored != 4 {
		t.Fatalf("%d vectors stored (%v); the old text's vector should be gone", stored, err)
	}

	// Reembed starts over.
	e.Calls.Store(0)
	res, err = v.Sync(ctx, SyncOptions{Reembed: true})
	if err != nil || res.Embedded != 4 {
		t.Fatalf("reembed = %+v, %v; want 4 embedded", res, err)
	}
}

func TestVectorsChangedEmbedderIsNotMixed(t *testing.T) {
	ctx := context.Background()
	db, add := testDB(t)
	add("a.md", "alpha", "beta")
	if _, err := servingVectors(db, sourceFor(&letters{Name: "old"}), quietLog()).Sync(ctx, SyncOptions{}); err != nil {
		t.Fatal(err)
	}
	other := servingVectors(db, sourceFor(&letters{Name: "new"}), quietLog())
	if err := other.Load(ctx); err != nil {
		t.Fatal(err)
	}
	if other.Count() != 0 {
		t.Fatalf("another model loaded %d vectors of the old one", other.Count())
	}
	res, err := other.Sync(ctx, SyncOptions{})
	if err != nil || res.Embedded != 2 {
		t.Fatalf("sync with the new model = %+v, %v; want both chunks embedded", res, err)
	}
}

func TestVectorsFitOnceAndAgainWhenStale(t *testing.T) {
	ctx := context.Background()
	db, add := testDB(t)
	add("a.md", "alpha", "beta")
	var fits atomic.Int64
	e := &letters{Name: "lex"}
	stale := false
	src := EmbedderSource{
		Provider: "test", Model: "lex",
		Restore: func(state []byte) (embed.Embedder, error) {
			if string(state) != "fitted" {
				return nil, fmt.Errorf("state %q", state)
			}
			return e, nil
		},
		Fit: func(ctx context.Context, texts iter.Seq[string]) (embed.Embedder, []byte, error) {
			fits.Add(1)
			n := 0
			for range texts {
				n++
			}
			if n != 2 {
				return nil, nil, fmt.Errorf("fitted on %d texts; want 2", n)
			}
			return e, []byte("fitted"), nil
		},
		Stale: func(embed.Embedder, int) bool { return stale },
	}
	v := servingVectors(db, src, quietLog())
	for range 2 {
		if _, err := v.Sync(ctx, SyncOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	if fits.Load() != 1 {
		t.Fatalf("fitted %d times over two syncs; want once", fits.Load())
	}
	if err := servingVectors(db, src, quietLog()).Load(ctx); err != nil {
		t.Fatalf("load with the stored state: %v", err)
	}
	stale = true
	e.Calls.Store(0)
	res, err := v.Sync(ctx, SyncOptions{})
	if err != nil || fits.Load() != 2 || res.Embedded != 2 {
		t.Fatalf("stale sync = %+v, %v, %d fits; want a refit and everything embedded again", res, err, fits.Load())
	}
	var rows int
	if err := db.QueryRow(`SELECT count(*) FROM embedders`).Scan(&rows); err != nil || rows != 1 {
		t.Fatalf("%d embedder rows (%v); the old statistics' vectors should be gone", rows, err)
	}
}

func TestVectorsEmbedderFailureKeepsWhatWasStored(t *testing.T) {
	ctx := context.Background()
	db, add := testDB(t)
	a := add("a.md", "alpha")
	e := &letters{Name: "m"}
	v := servingVectors(db, sourceFor(e), quietLog())
	if _, err := v.Sync(ctx, SyncOptions{}); err != nil {
		t.Fatal(err)
	}
	add("b.md", "beta")
	e.Fail = errors.New("server down")
	if _, err := v.Sync(ctx, SyncOptions{}); err == nil || !strings.Contains(err.Error(), "server down") {
		t.Fatalf("sync with a failing embedder = %v; want its error", err)
	}
	var stored int
	if err := db.QueryRow(`SELECT count(*) FROM vectors`).Scan(&stored); err != nil || stored != 1 {
		t.Fatalf("%d vectors stored; the first sync's vector must stay", stored)
	}
	// A server starting while the embedder fails still serves what is
	// stored, once the embedder answers queries again.
	fresh := servingVectors(db, sourceFor(e), quietLog())
	if _, err := fresh.Sync(ctx, SyncOptions{}); err == nil {
		t.Fatal("sync with a failing embedder gave no error")
	}
	if fresh.Count() != 1 {
		t.Fatalf("a new server holds %d vectors after a failed sync; want the 1 stored", fresh.Count())
	}
	e.Fail = nil
	if hits, err := fresh.Nearest(ctx, mustEmbedQuery(t, fresh, "alpha"), nil, 10, nil, 0); err != nil || len(hits) == 0 || hits[0].File != a {
		t.Fatalf("search over the stored vectors: %v, %v", hits, err)
	}
}

// servingVectors is a vector store that keeps its vectors in memory, as
// the server's and jarvis search's do.
func servingVectors(db DB, src EmbedderSource, log *slog.Logger) *Vectors {
	v := NewVectors(db, src, log)
	v.Serve()
	return v
}

// TestVectorsRemoteEmbedderChangingDimension: the server behind a remote
// embedder starts answering with vectors of another length. The vectors
// stored before cannot be compared with the new ones: they are dropped
// and every chunk is embedded again, never left mixed.
func TestVectorsRemoteEmbedderChangingDimension(t *testing.T) {
	ctx := context.Background()
	db, add := testDB(t)
	add("a.md", "alpha", "beta gamma")
	e := &remoteLike{Dim: 4}
	src := EmbedderSource{Provider: "test", Model: "remote", Restore: func([]byte) (embed.Embedder, error) { return e, nil }}
	v := servingVectors(db, src, quietLog())
	if _, err := v.Sync(ctx, SyncOptions{}); err != nil {
		t.Fatal(err)
	}
	add("b.md", "delta")
	e.Change(3)
	res, err := v.Sync(ctx, SyncOptions{})
	if err != nil || res.Embedded != 3 || res.Vectors != 3 || res.Embedder != "test/remote/3" {
		t.Fatalf("sync after the change = %+v, %v; want all 3 chunks embedded again with the new dimension", res, err)
	}
	var rows, wrong int
	if err := db.QueryRow(`SELECT count(*), sum(length(x.vector) != 12) FROM vectors x`).Scan(&rows, &wrong); err != nil || rows != 3 || wrong != 0 {
		t.Fatalf("%d stored vectors, %d not of 3 dimensions (%v)", rows, wrong, err)
	}
	memoryMatchesStore(t, v, db, 3)
	if _, err := v.Nearest(ctx, mustEmbedQuery(t, v, "delta"), nil, 10, nil, 0); err != nil {
		t.Fatalf("search after the change: %v", err)
	}
}

// TestVectorsSyncWaitsForOtherWriters: a sync takes the database's writer
// lock, so that two processes never embed or refit under each other.
func TestVectorsSyncWaitsForOtherWriters(t *testing.T) {
	db, add := testDB(t)
	add("a.md", "alpha")
	unlock, err := db.LockWriters(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer unlock()
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	if _, err := NewVectors(db, sourceFor(&letters{Name: "m"}), quietLog()).Sync(ctx, SyncOptions{}); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("sync while another writer holds the lock: %v; want it to wait", err)
	}
}

// stalling answers its first answers calls like letters, then never
// answers until its caller gives up: a remote embedder that hangs.
type stalling struct {
	letters
	answers int
	calls   atomic.Int64
}

func (s *stalling) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	if s.calls.Add(1) > int64(s.answers) {
		<-ctx.Done()
		return nil, fmt.Errorf("test: %w", ctx.Err())
	}
	return s.letters.Embed(ctx, texts)
}

// TestVectorsRunTimeoutKeepsWhatWasStored: an embedder that stops
// answering midway ends the sync at its run limit, with ErrRunTimeout and
// how far it got; the batches stored before stay, and the next sync embeds
// only the rest.
func TestVectorsRunTimeoutKeepsWhatWasStored(t *testing.T) {
	ctx := context.Background()
	db, add := testDB(t)
	for _, name := range []string{"a", "b", "c", "d", "e", "f"} {
		add(name+".md", "text of "+name)
	}
	hung := &stalling{letters: letters{Name: "m"}, answers: 1}
	src := EmbedderSource{Provider: "test", Model: "m", RunTimeout: 300 * time.Millisecond,
		Restore: func([]byte) (embed.Embedder, error) { return hung, nil }}
	v := NewVectors(db, src, quietLog())
	v.BatchSize = 2
	start := time.Now()
	res, err := v.Sync(ctx, SyncOptions{})
	if took := time.Since(start); took > src.RunTimeout+2*time.Second {
		t.Errorf("sync took %v with a run limit of %v", took, src.RunTimeout)
	}
	if !errors.Is(err, ErrRunTimeout) {
		t.Fatalf("sync = %v; want ErrRunTimeout", err)
	}
	if want := "embedding stopped at the run limit of 300ms with 2 of 6 texts embedded"; !strings.HasPrefix(err.Error(), want) {
		t.Errorf("error %q, want it to begin %q", err, want)
	}
	if res.Embedded != 2 {
		t.Errorf("result says %d embedded; want 2", res.Embedded)
	}
	var stored int
	if err := db.QueryRow(`SELECT count(*) FROM vectors`).Scan(&stored); err != nil || stored != 2 {
		t.Fatalf("%d vectors stored (%v); the first batch must stay", stored, err)
	}
	ok := &letters{Name: "m"}
	src.Restore = func([]byte) (embed.Embedder, error) { return ok, nil }
	if res, err := NewVectors(db, src, quietLog()).Sync(ctx, SyncOptions{}); err != nil || res.Embedded != 4 || res.Vectors != 6 {
		t.Fatalf("next sync = %+v, %v; want the 4 missing embedded", res, err)
	}
}

// closing is an embedder whose call ends the run, as a server closing
// does: it cancels the run's context and fails with it.
type closing struct {
	letters
	cancel context.CancelFunc
}

func (c *closing) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	c.cancel()
	return nil, fmt.Errorf("test: %w", context.Canceled)
}

// TestVectorsLoadCutOffAtCloseIsNoWarning: a sync cut off because the
// server closes leaves the load of the stored vectors unfinished; that is
// no problem of the vectors, and is not logged as a warning.
func TestVectorsLoadCutOffAtCloseIsNoWarning(t *testing.T) {
	db, add := testDB(t)
	add("a.md", "alpha")
	var logged strings.Builder
	log := slog.New(slog.NewTextHandler(&logged, &slog.HandlerOptions{Level: slog.LevelDebug}))
	if _, err := servingVectors(db, sourceFor(&letters{Name: "m"}), quietLog()).Sync(context.Background(), SyncOptions{}); err != nil {
		t.Fatal(err)
	}
	add("b.md", "beta")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	e := &closing{letters: letters{Name: "m"}, cancel: cancel}
	src := EmbedderSource{Provider: "test", Model: "m", Restore: func([]byte) (embed.Embedder, error) { return e, nil }}
	if _, err := servingVectors(db, src, log).Sync(ctx, SyncOptions{}); !errors.Is(err, context.Canceled) {
		t.Fatalf("sync cut off = %v; want context.Canceled", err)
	}
	if strings.Contains(logged.String(), "level=WARN") {
		t.Errorf("a sync cut off at close logs a warning:\n%s", logged.String())
	}
}

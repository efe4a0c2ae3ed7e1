package vectors

import (
	"context"
	"errors"
	"fmt"
	"io"
	"iter"
	"log/slog"
	"math"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jarvis-mcp/jarvis/internal/config"
	"github.com/jarvis-mcp/jarvis/internal/embed"
	"github.com/jarvis-mcp/jarvis/internal/index"
	"github.com/jarvis-mcp/jarvis/internal/store"
	"github.com/jarvis-mcp/jarvis/internal/vault"
)

// letters is a tiny deterministic embedder for tests: a vector of letter
// counts over a-z, normalised. Texts sharing letters are similar.
type letters struct {
	model string
	calls atomic.Int64 // texts embedded
	fail  error
}

func (l *letters) Fingerprint() string { return "test/" + l.model + "/26" }
func (l *letters) Provider() string    { return "test" }
func (l *letters) Model() string       { return l.model }
func (l *letters) Dimension() int      { return 26 }
func (l *letters) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	if l.fail != nil {
		return nil, l.fail
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	l.calls.Add(int64(len(texts)))
	out := make([][]float32, len(texts))
	for i, t := range texts {
		v := make([]float32, 26)
		for _, r := range strings.ToLower(t) {
			if r >= 'a' && r <= 'z' {
				v[r-'a']++
			}
		}
		var n float64
		for _, x := range v {
			n += float64(x * x)
		}
		if n > 0 {
			for j := range v {
				v[j] /= float32(math.Sqrt(n))
			}
		}
		out[i] = v
	}
	return out, nil
}

func sourceFor(e *letters) EmbedderSource {
	return EmbedderSource{
		Provider: "test", Model: e.model,
		Restore: func([]byte) (embed.Embedder, error) { return e, nil },
	}
}

// testDB opens a migrated database with one vault "v" and returns it with
// a function that adds a note with the given chunk texts.
func testDB(t *testing.T) (*store.DB, func(path string, chunks ...string) int64) {
	t.Helper()
	db, err := store.Open(context.Background(), filepath.Join(t.TempDir(), "j.db"), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	if _, err := db.Exec(`INSERT INTO vaults (id, name, path) VALUES (1, 'v', '/v')`); err != nil {
		t.Fatal(err)
	}
	add := func(path string, chunks ...string) int64 {
		t.Helper()
		var id int64
		title := strings.TrimSuffix(filepath.Base(path), ".md")
		err := db.QueryRow(`INSERT INTO files (vault_id, path, kind, size, mtime_ns, title) VALUES (1, ?, 'note', 1, 1, ?) RETURNING id`,
			path, title).Scan(&id)
		if err != nil {
			t.Fatal(err)
		}
		for i, c := range chunks {
			hash := vault.TextHash(vault.EmbedText(title, "", c))
			if _, err := db.Exec(`INSERT INTO chunks (file_id, ord, heading, start_line, end_line, text, hash) VALUES (?, ?, '', ?, ?, ?, ?)`,
				id, i, i+1, i+1, c, hash); err != nil {
				t.Fatal(err)
			}
		}
		return id
	}
	return db, add
}

// indexedDB indexes vaults (name, folder, name, folder, ...) into a fresh
// database and returns it.
func indexedDB(t testing.TB, vaults ...string) *store.DB {
	t.Helper()
	ctx := context.Background()
	db, err := store.Open(ctx, filepath.Join(t.TempDir(), "j.db"), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	ix := index.New(db, vault.NewParser(), quietLog())
	for i := 0; i+1 < len(vaults); i += 2 {
		if _, err := ix.Index(ctx, config.Vault{Name: vaults[i], Path: vaults[i+1]}, nil); err != nil {
			t.Fatal(err)
		}
	}
	return db
}

func quietLog() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

func TestVectorsSyncStoresAndLoadNeverReembeds(t *testing.T) {
	ctx := context.Background()
	db, add := testDB(t)
	add("a.md", "apple apple", "banana")
	add("b.md", "cherry")
	add("c.md", "banana")        // same text as a chunk of a.md, another title: its own vector
	add("x/a.md", "apple apple") // same title and text as a chunk of a.md: one vector for both

	e := &letters{model: "m"}
	v := servingVectors(db, sourceFor(e), quietLog())
	res, err := v.Sync(ctx, SyncOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Embedded != 4 || res.Vectors != 5 || res.Chunks != 5 || v.Count() != 5 {
		t.Fatalf("first sync = %+v, %d loaded; want 4 texts embedded for 5 chunks, all loaded", res, v.Count())
	}

	res, err = v.Sync(ctx, SyncOptions{})
	if err != nil || res.Embedded != 0 {
		t.Fatalf("second sync = %+v, %v; want nothing embedded", res, err)
	}

	fresh := &letters{model: "m"}
	w := servingVectors(db, sourceFor(fresh), quietLog())
	if err := w.Load(ctx); err != nil {
		t.Fatal(err)
	}
	if w.Count() != 5 || fresh.calls.Load() != 0 {
		t.Fatalf("load: %d vectors, %d texts embedded; want 5 loaded and none embedded", w.Count(), fresh.calls.Load())
	}
}

func TestVectorsSyncEmbedsOnlyChangedChunks(t *testing.T) {
	ctx := context.Background()
	db, add := testDB(t)
	id := add("a.md", "one", "two", "three")
	add("b.md", "four")
	e := &letters{model: "m"}
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
	e.calls.Store(0)
	res, err := v.Sync(ctx, SyncOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Embedded != 1 || e.calls.Load() != 1 {
		t.Fatalf("sync after edit embedded %d (%d calls); want only the edited chunk", res.Embedded, e.calls.Load())
	}
	if v.Count() != 4 {
		t.Fatalf("%d vectors loaded; want 4", v.Count())
	}
	var stored int
	if err := db.QueryRow(`SELECT count(*) FROM vectors`).Scan(&stored); err != nil || stored != 4 {
		t.Fatalf("%d vectors stored (%v); the old text's vector should be gone", stored, err)
	}

	// Reembed starts over.
	e.calls.Store(0)
	res, err = v.Sync(ctx, SyncOptions{Reembed: true})
	if err != nil || res.Embedded != 4 {
		t.Fatalf("reembed = %+v, %v; want 4 embedded", res, err)
	}
}

func TestVectorsChangedEmbedderIsNotMixed(t *testing.T) {
	ctx := context.Background()
	db, add := testDB(t)
	add("a.md", "alpha", "beta")
	if _, err := servingVectors(db, sourceFor(&letters{model: "old"}), quietLog()).Sync(ctx, SyncOptions{}); err != nil {
		t.Fatal(err)
	}
	other := servingVectors(db, sourceFor(&letters{model: "new"}), quietLog())
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
	e := &letters{model: "lex"}
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
	e.calls.Store(0)
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
	e := &letters{model: "m"}
	v := servingVectors(db, sourceFor(e), quietLog())
	if _, err := v.Sync(ctx, SyncOptions{}); err != nil {
		t.Fatal(err)
	}
	add("b.md", "beta")
	e.fail = errors.New("server down")
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
	e.fail = nil
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

// remoteLike is an embedder that, as the remote ones do, knows its
// dimension only once it has answered.
type remoteLike struct {
	dim   int
	known bool
}

func (r *remoteLike) Fingerprint() string { return fmt.Sprintf("test/remote/%d", r.Dimension()) }
func (r *remoteLike) Provider() string    { return "test" }
func (r *remoteLike) Model() string       { return "remote" }
func (r *remoteLike) Dimension() int {
	if !r.known {
		return 0
	}
	return r.dim
}
func (r *remoteLike) Embed(_ context.Context, texts []string) ([][]float32, error) {
	r.known = true
	out := make([][]float32, len(texts))
	for i, t := range texts {
		v := make([]float32, r.dim)
		v[len(t)%r.dim] = 1
		out[i] = v
	}
	return out, nil
}

// TestVectorsRemoteEmbedderChangingDimension: the server behind a remote
// embedder starts answering with vectors of another length. The vectors
// stored before cannot be compared with the new ones: they are dropped
// and every chunk is embedded again, never left mixed.
func TestVectorsRemoteEmbedderChangingDimension(t *testing.T) {
	ctx := context.Background()
	db, add := testDB(t)
	add("a.md", "alpha", "beta gamma")
	e := &remoteLike{dim: 4}
	src := EmbedderSource{Provider: "test", Model: "remote", Restore: func([]byte) (embed.Embedder, error) { return e, nil }}
	v := servingVectors(db, src, quietLog())
	if _, err := v.Sync(ctx, SyncOptions{}); err != nil {
		t.Fatal(err)
	}
	add("b.md", "delta")
	e.dim, e.known = 3, false
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
	if _, err := NewVectors(db, sourceFor(&letters{model: "m"}), quietLog()).Sync(ctx, SyncOptions{}); !errors.Is(err, context.DeadlineExceeded) {
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
	hung := &stalling{letters: letters{model: "m"}, answers: 1}
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
	ok := &letters{model: "m"}
	src.Restore = func([]byte) (embed.Embedder, error) { return ok, nil }
	if res, err := NewVectors(db, src, quietLog()).Sync(ctx, SyncOptions{}); err != nil || res.Embedded != 4 || res.Vectors != 6 {
		t.Fatalf("next sync = %+v, %v; want the 4 missing embedded", res, err)
	}
}

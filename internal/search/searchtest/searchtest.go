// Package searchtest holds what the tests of the search service and of its
// engines (fulltext, vectors) share: tiny deterministic embedders and
// databases holding a few notes, or a vault indexed for real. It is
// imported by tests only.
package searchtest

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"math"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/jarvis-mcp/jarvis/internal/config"
	"github.com/jarvis-mcp/jarvis/internal/index"
	"github.com/jarvis-mcp/jarvis/internal/store"
	"github.com/jarvis-mcp/jarvis/internal/vault"
)

// Letters is a tiny deterministic embedder: a vector of letter counts over
// a-z, normalised. Texts sharing letters are similar.
type Letters struct {
	Name  string       // the model name it reports
	Calls atomic.Int64 // texts embedded
	Fail  error        // when set, every Embed fails with it
}

func (l *Letters) Fingerprint() string { return "test/" + l.Name + "/26" }
func (l *Letters) Provider() string    { return "test" }
func (l *Letters) Model() string       { return l.Name }
func (l *Letters) Dimension() int      { return 26 }

func (l *Letters) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	if l.Fail != nil {
		return nil, l.Fail
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	l.Calls.Add(int64(len(texts)))
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

// RemoteLike is an embedder that, as the remote ones do, knows its
// dimension only once it has answered.
type RemoteLike struct {
	Dim   int
	known bool
}

func (r *RemoteLike) Fingerprint() string { return fmt.Sprintf("test/remote/%d", r.Dimension()) }
func (r *RemoteLike) Provider() string    { return "test" }
func (r *RemoteLike) Model() string       { return "remote" }

func (r *RemoteLike) Dimension() int {
	if !r.known {
		return 0
	}
	return r.Dim
}

func (r *RemoteLike) Embed(_ context.Context, texts []string) ([][]float32, error) {
	r.known = true
	out := make([][]float32, len(texts))
	for i, t := range texts {
		v := make([]float32, r.Dim)
		v[len(t)%r.Dim] = 1
		out[i] = v
	}
	return out, nil
}

// Quiet is a logger that writes nothing.
func Quiet() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

// NoteDB opens a migrated database with one vault "v" and returns it with
// a function that adds a note with the given chunk texts.
func NoteDB(t *testing.T) (*store.DB, func(path string, chunks ...string) int64) {
	t.Helper()
	db := EmptyDB(t)
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

// EmptyDB opens a migrated database in a temporary folder, closed when the
// test ends.
func EmptyDB(t testing.TB) *store.DB {
	t.Helper()
	db, err := store.Open(context.Background(), filepath.Join(t.TempDir(), "j.db"), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// IndexedDB indexes vaults (name, folder, name, folder, ...) into a fresh
// database and returns it.
func IndexedDB(t testing.TB, vaults ...string) *store.DB {
	t.Helper()
	var vs []config.Vault
	for i := 0; i+1 < len(vaults); i += 2 {
		vs = append(vs, config.Vault{Name: vaults[i], Path: vaults[i+1]})
	}
	return IndexedVaults(t, vs...)
}

// IndexedVaults indexes vaults into a fresh database and returns it.
func IndexedVaults(t testing.TB, vaults ...config.Vault) *store.DB {
	t.Helper()
	db := EmptyDB(t)
	ix := index.New(db, vault.NewParser(), Quiet())
	for _, v := range vaults {
		if _, err := ix.Index(context.Background(), v, nil); err != nil {
			t.Fatal(err)
		}
	}
	return db
}

// Change makes the embedder answer with dim dimensions from its next
// call, knowing nothing of them until then, as a remote model replaced
// behind the same name.
func (r *RemoteLike) Change(dim int) {
	r.Dim, r.known = dim, false
}

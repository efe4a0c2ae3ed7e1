package search

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
	"github.com/jarvis-mcp/jarvis/internal/embed"
	"github.com/jarvis-mcp/jarvis/internal/index"
	"github.com/jarvis-mcp/jarvis/internal/search/fulltext"
	"github.com/jarvis-mcp/jarvis/internal/search/vectors"
	"github.com/jarvis-mcp/jarvis/internal/store"
	"github.com/jarvis-mcp/jarvis/internal/vault"
)

// Test embedders, databases and vaults, as the tests of packages vectors
// and fulltext have them, for the tests of the service over both.

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

func sourceFor(e *letters) vectors.EmbedderSource {
	return vectors.EmbedderSource{
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

func quietLog() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

// servingVectors is a vector store that keeps its vectors in memory, as
// the server's and jarvis search's do.
func servingVectors(db vectors.DB, src vectors.EmbedderSource, log *slog.Logger) *vectors.Vectors {
	v := vectors.NewVectors(db, src, log)
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

// indexedKeyword indexes vaults (name, folder, name, folder, ...) into a
// fresh database and returns keyword search over it.
func indexedKeyword(t testing.TB, vaults ...string) (*fulltext.Keyword, *store.DB) {
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
	return fulltext.NewKeyword(db), db
}

// exampleVault is the vault shipped in examples/vault.
func exampleVault() string { return filepath.Join("..", "..", "examples", "vault") }

func containsString(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

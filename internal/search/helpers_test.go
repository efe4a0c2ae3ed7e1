package search

import (
	"log/slog"
	"path/filepath"
	"testing"

	"github.com/jarvis-mcp/jarvis/internal/embed"
	"github.com/jarvis-mcp/jarvis/internal/search/fulltext"
	"github.com/jarvis-mcp/jarvis/internal/search/searchtest"
	"github.com/jarvis-mcp/jarvis/internal/search/vectors"
	"github.com/jarvis-mcp/jarvis/internal/store"
)

// Test embedders, databases and vaults, as the tests of packages vectors
// and fulltext have them, for the tests of the service over both.

type (
	letters    = searchtest.Letters
	remoteLike = searchtest.RemoteLike
)

var (
	testDB   = searchtest.NoteDB
	quietLog = searchtest.Quiet
)

func sourceFor(e *letters) vectors.EmbedderSource {
	return vectors.EmbedderSource{
		Provider: "test", Model: e.Name,
		Restore: func([]byte) (embed.Embedder, error) { return e, nil },
	}
}

// servingVectors is a vector store that keeps its vectors in memory, as
// the server's and jarvis search's do.
func servingVectors(db vectors.DB, src vectors.EmbedderSource, log *slog.Logger) *vectors.Vectors {
	v := vectors.NewVectors(db, src, log)
	v.Serve()
	return v
}

// indexedKeyword indexes vaults (name, folder, name, folder, ...) into a
// fresh database and returns keyword search over it.
func indexedKeyword(t testing.TB, vaults ...string) (*fulltext.Keyword, *store.DB) {
	t.Helper()
	db := searchtest.IndexedDB(t, vaults...)
	return fulltext.NewKeyword(db), db
}

// exampleVault is the vault shipped in examples/vault.
func exampleVault() string { return filepath.Join("..", "..", "examples", "vault") }

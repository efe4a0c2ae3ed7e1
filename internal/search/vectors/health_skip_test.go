package vectors

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/jarvis-mcp/jarvis/internal/health"
	"github.com/jarvis-mcp/jarvis/internal/store"
)

// TestEmbedderCheckWithoutADatabase: with no database to look in, the
// embedder check is skipped naming the embedder once, then why, without
// a chain of colons.
func TestEmbedderCheckWithoutADatabase(t *testing.T) {
	file := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	// A database inside a file cannot be opened, even by root.
	h := store.NewHandle(filepath.Join(file, "jarvis.db"), store.Options{})
	t.Cleanup(func() { h.Close() })
	r := Checks(h, LexicalSource(), nil)[0].Run(context.Background())[0]
	want := "skip  embedder: lexical hashed-ngrams-v1 not checked: the database is not available (see the database check above)"
	if r.Status != health.Skip || r.Line() != want {
		t.Errorf("embedder check without a database: %q; want %q", r.Line(), want)
	}
}

// TestEmbedderCheckBeforeTheFirstIndex: with no database made yet, the
// skipped check says so, not that the database is not available, which
// reads as a failure.
func TestEmbedderCheckBeforeTheFirstIndex(t *testing.T) {
	h := store.NewHandle(filepath.Join(t.TempDir(), "jarvis.db"), store.Options{ReadOnly: true})
	t.Cleanup(func() { h.Close() })
	r := Checks(h, LexicalSource(), nil)[0].Run(context.Background())[0]
	want := "skip  embedder: lexical hashed-ngrams-v1 not checked: the database does not exist yet (see the database check above)"
	if r.Status != health.Skip || r.Line() != want {
		t.Errorf("embedder check before the first index: %q; want %q", r.Line(), want)
	}
}

package index

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jarvis-mcp/jarvis/internal/config"
	"github.com/jarvis-mcp/jarvis/internal/vault"
)

// TestInFlightBytesBound indexes notes whose total is many times
// InFlightBytes: no note is read while more than the bound is parsed and
// not yet written, however large BatchSize is.
func TestInFlightBytesBound(t *testing.T) {
	const notes, size = 40, 16 << 10
	root := t.TempDir()
	for i := range notes {
		body := fmt.Sprintf("# Note %d\n\nSee [[Other]].\n\n%s\n", i, strings.Repeat("word ", size/5))
		if err := os.WriteFile(filepath.Join(root, fmt.Sprintf("N%02d.md", i)), []byte(body[:size]), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	ix, _ := testIndexer(t, filepath.Join(t.TempDir(), "j.db"))
	ix.Workers, ix.BatchSize, ix.InFlightBytes = 2, 500, 128<<10
	// A note weighs its size and jobOverhead: this many fit in the bound.
	fit := int64(ix.InFlightBytes) / (size + jobOverhead)
	var parsed, written, worst atomic.Int64
	inner := ix.parse
	ix.parse = func(ctx context.Context, p string, src []byte) (vault.Note, error) {
		n := parsed.Add(1)
		if held := n - written.Load(); held > worst.Load() {
			worst.Store(held)
		}
		return inner(ctx, p, src)
	}
	progress := func(phase Phase, done, _ Counts) {
		if phase == PhaseWrite {
			written.Store(int64(done.Files()))
		}
	}
	if _, err := ix.Index(context.Background(), config.Vault{Name: "v", Path: root}, progress); err != nil {
		t.Fatal(err)
	}
	if parsed.Load() != notes {
		t.Fatalf("parsed %d notes, want %d", parsed.Load(), notes)
	}
	if w := worst.Load(); w > fit {
		t.Errorf("%d notes held at once, over the %d that InFlightBytes (%d) holds", w, fit, ix.InFlightBytes)
	}
}

// TestParseBytesBound indexes two notes that together are over
// ParseBytes: they are never parsed at the same time.
func TestParseBytesBound(t *testing.T) {
	root := t.TempDir()
	for _, name := range []string{"A.md", "B.md"} {
		if err := os.WriteFile(filepath.Join(root, name), []byte(strings.Repeat("Text [[A]] and [[B]].\n", 2_000)), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	ix, _ := testIndexer(t, filepath.Join(t.TempDir(), "j.db"))
	ix.Workers, ix.ParseBytes = 2, 64<<10 // each note is 44 KB
	var now, most atomic.Int64
	inner := ix.parse
	ix.parse = func(ctx context.Context, p string, src []byte) (vault.Note, error) {
		if n := now.Add(1); n > most.Load() {
			most.Store(n)
		}
		defer now.Add(-1)
		time.Sleep(200 * time.Millisecond) // long enough for the other worker to start
		return inner(ctx, p, src)
	}
	mustIndex(t, ix, "v", root)
	if most.Load() != 1 {
		t.Errorf("%d notes parsed at once; want 1, as two are over ParseBytes", most.Load())
	}
}

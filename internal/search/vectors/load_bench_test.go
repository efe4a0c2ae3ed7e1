package vectors

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/jarvis-mcp/jarvis/internal/search/searchtest"
	"github.com/jarvis-mcp/jarvis/internal/store"
	"github.com/jarvis-mcp/jarvis/internal/vaultgen"
)

// BenchmarkLoad measures what a server does at start before semantic
// search answers at full quality: every stored vector read from SQLite
// into memory. By default the database is a generated vault of 3,000
// notes (about 10,000 chunk vectors, lexical, served by the compact
// index); JARVIS_LOAD_DB names another, for example a copy of the 100k
// index that BenchmarkScale builds (it is migrated, not otherwise
// changed). It reports the vectors loaded and the heap they hold.
//
//	JARVIS_LOAD_DB=/tmp/j100k.db go test -run '^$' -bench Load -benchtime 5x ./internal/search/vectors/
func BenchmarkLoad(b *testing.B) {
	ctx := context.Background()
	var db *store.DB
	if path := os.Getenv("JARVIS_LOAD_DB"); path != "" {
		var err error
		if db, err = store.Open(ctx, path, store.Options{}); err != nil {
			b.Fatal(err)
		}
		defer db.Close()
	} else {
		root := filepath.Join(b.TempDir(), "vault")
		if _, err := vaultgen.Generate(root, vaultgen.Options{Notes: 3000, Seed: 1}); err != nil {
			b.Fatal(err)
		}
		db = searchtest.IndexedDB(b, "gen", root)
		if _, err := NewVectors(db, LexicalSource(), quietLog()).Sync(ctx, SyncOptions{}); err != nil {
			b.Fatal(err)
		}
	}
	load := func() *Vectors {
		v := NewVectors(db, LexicalSource(), quietLog())
		if err := v.Load(ctx); err != nil {
			b.Fatal(err)
		}
		return v
	}
	for b.Loop() {
		load()
	}
	b.StopTimer()
	before := heapInUse()
	v := load()
	held := heapInUse() - before
	if v.Count() == 0 {
		b.Fatal("nothing loaded")
	}
	b.ReportMetric(float64(v.Count()), "vectors")
	b.ReportMetric(float64(held)/float64(1<<20), "heap-MB")
	runtime.KeepAlive(v)
}

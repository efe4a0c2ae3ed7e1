package vectors_test

import (
	"context"
	"fmt"
	"log/slog"
	"runtime"
	"slices"
	"testing"
	"time"

	"github.com/jarvis-mcp/jarvis/internal/embed"
	"github.com/jarvis-mcp/jarvis/internal/search"
	"github.com/jarvis-mcp/jarvis/internal/search/vectors"
)

// BenchmarkSemanticDense measures what the server does with a 384-dimension
// model's vectors stored for 36,000 and 360,000 chunks: loading them from
// SQLite at start (reporting the heap they then hold, chunk map included),
// and a semantic search for 10 notes (embedding the query, which a real
// model adds its own time to, the scan, and reading the notes found).
func BenchmarkSemanticDense(b *testing.B) {
	for _, n := range []int{36_000, 360_000} {
		b.Run(fmt.Sprintf("chunks=%d", n), func(b *testing.B) {
			ctx := context.Background()
			db := vectors.DenseStoreForBench(b, n)
			src := vectors.EmbedderSource{Provider: "test", Model: "dense", Restore: func([]byte) (embed.Embedder, error) { return vectors.DenseStub{}, nil }}
			before := vectors.HeapInUse()
			t0 := time.Now()
			v := vectors.NewVectors(db, src, slog.New(slog.DiscardHandler))
			if err := v.Load(ctx); err != nil {
				b.Fatal(err)
			}
			load := time.Since(t0)
			held := vectors.HeapInUse() - before
			if v.Count() != n {
				b.Fatalf("loaded %d vectors; want %d", v.Count(), n)
			}
			sem := search.NewSemantic(v, db)
			var lat []time.Duration
			i := 0
			for b.Loop() {
				t0 := time.Now()
				rs, err := sem.Search(ctx, search.SemanticQuery{Text: fmt.Sprintf("query %d", i%64), Limit: 10})
				lat = append(lat, time.Since(t0))
				if err != nil || len(rs) != 10 {
					b.Fatalf("%d results, %v", len(rs), err)
				}
				i++
			}
			slices.Sort(lat)
			b.ReportMetric(float64(lat[len(lat)/2])/1e6, "p50-ms")
			b.ReportMetric(float64(lat[len(lat)*95/100])/1e6, "p95-ms")
			b.ReportMetric(load.Seconds(), "load-s")
			b.ReportMetric(float64(held)/(1<<20), "heap-MiB")
			runtime.KeepAlive(v)
		})
	}
}

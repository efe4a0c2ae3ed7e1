package search

import (
	"context"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/jarvis-mcp/jarvis/internal/search/vectors"
	"github.com/jarvis-mcp/jarvis/internal/vaultgen"
)

var semanticBenchQueries = []string{
	"how to avoid goroutine leaks in background workers",
	"notes about the deployment pipeline",
	"sourdough starter feeding schedule",
	"what did we decide about retries",
	"linear regression assumptions",
	"weekly review",
	"apartment search in Zürich",
	"咖啡笔记",
}

// BenchmarkSemantic measures, over a generated vault of 10,000 notes with
// the lexical embedder: a semantic query (embed the query, rank every chunk,
// read the best notes), and loading the stored vectors into memory as the
// server does at start.
func BenchmarkSemantic(b *testing.B) {
	root := filepath.Join(b.TempDir(), "vault")
	if _, err := vaultgen.Generate(root, vaultgen.Options{Notes: 10000, Seed: 1}); err != nil {
		b.Fatal(err)
	}
	_, db := indexedKeyword(b, "gen", root)
	ctx := context.Background()
	v := servingVectors(db, vectors.LexicalSource(), quietLog())
	res, err := v.Sync(ctx, vectors.SyncOptions{})
	if err != nil {
		b.Fatal(err)
	}
	b.Logf("%d chunks embedded, served by %v", res.Embedded, v.Stores())

	b.Run("query", func(b *testing.B) {
		sem := NewSemantic(v, db)
		var lat []time.Duration
		for b.Loop() {
			for _, q := range semanticBenchQueries {
				t0 := time.Now()
				rs, err := sem.Search(ctx, SemanticQuery{Text: q, Limit: 10})
				if err != nil || len(rs) == 0 {
					b.Fatalf("%q: %d results, %v", q, len(rs), err)
				}
				lat = append(lat, time.Since(t0))
			}
		}
		slices.Sort(lat)
		b.ReportMetric(float64(lat[len(lat)/2])/1e6, "p50-ms")
		b.ReportMetric(float64(lat[len(lat)*95/100])/1e6, "p95-ms")
	})
	b.Run("load", func(b *testing.B) {
		for b.Loop() {
			w := vectors.NewVectors(db, vectors.LexicalSource(), quietLog())
			if err := w.Load(ctx); err != nil {
				b.Fatal(err)
			}
			if w.Count() != res.Vectors {
				b.Fatalf("loaded %d vectors; want %d", w.Count(), res.Vectors)
			}
		}
		b.ReportMetric(float64(res.Vectors), "vectors")
	})
}

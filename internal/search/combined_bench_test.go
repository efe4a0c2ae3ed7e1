package search

import (
	"context"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/jarvis-mcp/jarvis/internal/config"
	"github.com/jarvis-mcp/jarvis/internal/vaultgen"
)

// BenchmarkCombined runs combined search through the search service over
// a generated vault of 10,000 notes with the lexical embedder: the two
// retrievers, the fusion and the passages of the notes shown. p50-ms and
// p95-ms are the latencies of single queries.
func BenchmarkCombined(b *testing.B) {
	root := filepath.Join(b.TempDir(), "vault")
	if _, err := vaultgen.Generate(root, vaultgen.Options{Notes: 10000, Seed: 1}); err != nil {
		b.Fatal(err)
	}
	svc, _ := indexedService(b, config.Vault{Name: "gen", Path: root})
	ctx := context.Background()
	queries := []string{"retry logic for background jobs", "deployment pipeline", "team feedback review", "how do we roll back a failed deployment"}
	var lat []time.Duration
	for b.Loop() {
		for _, q := range queries {
			t0 := time.Now()
			a, err := svc.Search(ctx, Query{Mode: ModeCombined, Text: q})
			if err != nil || len(a.Results) == 0 || a.Degraded {
				b.Fatalf("%q: %+v %v", q, a, err)
			}
			lat = append(lat, time.Since(t0))
		}
	}
	slices.Sort(lat)
	b.ReportMetric(float64(lat[len(lat)/2])/1e6, "p50-ms")
	b.ReportMetric(float64(lat[len(lat)*95/100])/1e6, "p95-ms")
}

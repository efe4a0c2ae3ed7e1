package fulltext

import (
	"context"
	"os"
	"slices"
	"testing"
	"time"

	"github.com/jarvis-mcp/jarvis/internal/store"
)

// benchIndexQueries are the keyword queries BenchmarkKeywordIndex runs: the
// search-vault query of BenchmarkScale, the common words of
// BenchmarkKeywordCommonWords, and the query of its search-combined call.
var benchIndexQueries = []string{
	"deployment pipeline review",
	"team feedback review",
	"client draft plan",
	"retry logic for background jobs",
}

// BenchmarkKeywordIndex runs keyword search over an index made beforehand
// by jarvis index, such as one of a 100k-note generated vault, which takes
// minutes to make: JARVIS_BENCH_DB names it (the benchmark writes
// nothing, but opening it may bring its schema up to date, so give it a
// copy). Skipped when unset. "search" is keyword search as search-vault
// asks it; "candidates" as combined search asks it, 101 notes ranked
// without passages. p50-ms and p95-ms are the latencies of single
// queries.
//
//	cp /work/scale/idx-100k.db /tmp/kw-100k.db
//	JARVIS_BENCH_DB=/tmp/kw-100k.db go test -run '^$' -bench KeywordIndex -benchtime 20x ./internal/search/fulltext/
func BenchmarkKeywordIndex(b *testing.B) {
	path := os.Getenv("JARVIS_BENCH_DB")
	if path == "" {
		b.Skip("JARVIS_BENCH_DB is not set")
	}
	ctx := context.Background()
	db, err := store.Open(ctx, path, store.Options{})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { db.Close() })
	k := NewKeyword(db)
	for _, bc := range []struct {
		name string
		q    func(text string) KeywordQuery
	}{
		{"search", func(text string) KeywordQuery { return KeywordQuery{Text: text} }},
		{"candidates", func(text string) KeywordQuery { return KeywordQuery{Text: text, Limit: 101, Bare: true} }}, // the service asks MaxLimit + 1
	} {
		b.Run(bc.name, func(b *testing.B) {
			for _, text := range benchIndexQueries { // the first calls warm the page cache
				if rs, err := k.Search(ctx, bc.q(text)); err != nil || len(rs) == 0 {
					b.Fatalf("%q: %d results, %v", text, len(rs), err)
				}
			}
			var lat []time.Duration
			for b.Loop() {
				for _, text := range benchIndexQueries {
					t0 := time.Now()
					if _, err := k.Search(ctx, bc.q(text)); err != nil {
						b.Fatal(err)
					}
					lat = append(lat, time.Since(t0))
				}
			}
			slices.Sort(lat)
			b.ReportMetric(float64(lat[len(lat)/2])/1e6, "p50-ms")
			b.ReportMetric(float64(lat[len(lat)*95/100])/1e6, "p95-ms")
		})
	}
}

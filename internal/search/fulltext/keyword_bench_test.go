package fulltext

import (
	"context"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/jarvis-mcp/jarvis/internal/search/notes"
	"github.com/jarvis-mcp/jarvis/internal/vaultgen"
)

// benchQueries is a mix of what people and models ask keyword search:
// titles, common and rare words, a prefix typed halfway, a question, a
// phrase, Chinese and Japanese, names only, and filters.
var benchQueries = []KeywordQuery{
	{Text: "linear regression"},
	{Text: "caching strategy checklist"},
	{Text: "goroutine leaks"},
	{Text: "sourdough"},
	{Text: "regr"},
	{Text: "time"},
	{Text: "what did we decide about the retry logic for background jobs"},
	{Text: `"feature flags"`},
	{Text: "Zürich apartment"},
	{Text: "咖啡笔记"},
	{Text: "東京のカフェ"},
	{Text: "weekly review", NamesOnly: true},
	{Text: "kimc", NamesOnly: true},
	{Text: "deployment pipeline", Filter: notes.Filter{PathPrefix: "Projects/"}},
	{Text: "retry", Filter: notes.Filter{Tag: "idea"}},
	{Text: "memory profiling", Limit: 50},
}

// commonWordQueries are three-word queries whose words each occur in
// 4,300 to 8,900 of the 10,000 generated notes, all three together in
// 1,700 to 3,700: every word must match, so BM25 ranks thousands of notes,
// and the last word is also a prefix of other words in the index.
var commonWordQueries = []KeywordQuery{
	{Text: "team feedback review"},
	{Text: "client draft plan"},
	{Text: "weekly progress checklist"},
	{Text: "measure test results"},
	{Text: "background project notes"},
	{Text: "setup clean start"},
}

// BenchmarkKeywordSearch runs benchQueries over a generated vault of
// 10,000 notes. ns/op is one pass over all the queries; p50-ms and p95-ms
// are the latencies of single queries.
func BenchmarkKeywordSearch(b *testing.B) {
	benchKeyword(b, benchQueries)
}

// BenchmarkKeywordCommonWords runs commonWordQueries over the same vault,
// the slowest kind of short query.
func BenchmarkKeywordCommonWords(b *testing.B) {
	benchKeyword(b, commonWordQueries)
}

// benchKeyword indexes a generated vault of 10,000 notes and runs queries
// over it, reporting the latencies of single queries.
func benchKeyword(b *testing.B, queries []KeywordQuery) {
	root := filepath.Join(b.TempDir(), "vault")
	if _, err := vaultgen.Generate(root, vaultgen.Options{Notes: 10000, Seed: 1}); err != nil {
		b.Fatal(err)
	}
	k, _ := indexedKeyword(b, "gen", root)
	ctx := context.Background()
	for _, q := range queries {
		rs, err := k.Search(ctx, q)
		if err != nil {
			b.Fatalf("%q: %v", q.Text, err)
		}
		if len(rs) == 0 {
			b.Fatalf("%q finds nothing in the generated vault", q.Text)
		}
	}
	var lat []time.Duration
	for b.Loop() {
		for _, q := range queries {
			t0 := time.Now()
			if _, err := k.Search(ctx, q); err != nil {
				b.Fatal(err)
			}
			lat = append(lat, time.Since(t0))
		}
	}
	slices.Sort(lat)
	ms := func(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
	b.ReportMetric(ms(lat[len(lat)/2]), "p50-ms")
	b.ReportMetric(ms(lat[len(lat)*95/100]), "p95-ms")
}

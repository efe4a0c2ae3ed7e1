package vectors

import (
	"context"
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"runtime"
	"slices"
	"testing"
	"time"

	"github.com/jarvis-mcp/jarvis/internal/search/searchtest"
	"github.com/jarvis-mcp/jarvis/internal/store"
)

// denseBenchDim is the dimension of the small local models (MiniLM,
// bge-small, e5-small).
const denseBenchDim = 384

// heapInUse is the live heap after a collection.
func heapInUse() uint64 {
	runtime.GC()
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapInuse
}

// BenchmarkDenseScan measures a semantic query against the dense index at
// 36,000 chunk vectors (a 10,000-note vault) and 360,000 (100,000 notes) of
// 384 dimensions: 40 chunks asked for, as a search for 10 notes asks,
// with the neural floor of 0. Vectors gather around 2,000 subjects, so a
// query's best matches are close together. It reports the median and 95th
// percentile time per query and the heap each vector holds (the slot map
// and per-slot ids included).
func BenchmarkDenseScan(b *testing.B) {
	for _, n := range []int{36_000, 360_000} {
		b.Run(fmt.Sprintf("chunks=%d", n), func(b *testing.B) {
			r := rand.New(rand.NewPCG(1, 2))
			centres := units(r, 2000, denseBenchDim)
			before := heapInUse()
			d := newDenseIndex(0)
			v := make([]float32, denseBenchDim)
			for i := range n {
				c := centres[r.IntN(len(centres))]
				for k := range v {
					v[k] = c[k] + float32(0.05*r.NormFloat64())
				}
				if err := d.add(int64(i+1), int64(i/4), v); err != nil {
					b.Fatal(err)
				}
			}
			held := heapInUse() - before
			queries := around(r, centres, 64, 1)
			var lat []time.Duration
			i := 0
			for b.Loop() {
				t0 := time.Now()
				got, err := d.nearest(context.Background(), queries[i%len(queries)], 40, nil, 0)
				lat = append(lat, time.Since(t0))
				if err != nil || len(got) != 40 {
					b.Fatalf("%d chunks, %v", len(got), err)
				}
				i++
			}
			slices.Sort(lat)
			b.ReportMetric(float64(lat[len(lat)/2])/1e6, "p50-ms")
			b.ReportMetric(float64(lat[len(lat)*95/100])/1e6, "p95-ms")
			b.ReportMetric(float64(held)/float64(n), "bytes/vector")
			b.ReportMetric(float64(held)/(1<<20), "heap-MiB")
			runtime.KeepAlive(d)
		})
	}
}

// denseStub embeds a text as a random unit vector seeded by the text, for
// queries against stored vectors made without it.
type denseStub struct{}

func (denseStub) Fingerprint() string { return fmt.Sprintf("test/dense/%d", denseBenchDim) }
func (denseStub) Provider() string    { return "test" }
func (denseStub) Model() string       { return "dense" }
func (denseStub) Dimension() int      { return denseBenchDim }
func (denseStub) Embed(_ context.Context, texts []string) ([][]float32, error) {
	out := make([][]float32, len(texts))
	for i, t := range texts {
		h := fnv.New64a()
		h.Write([]byte(t))
		out[i] = randomUnit(rand.New(rand.NewPCG(h.Sum64(), 1)), denseBenchDim, 1)
	}
	return out, nil
}

// storeDense writes n chunks, four to a note, with clustered vectors of
// denseBenchDim dimensions stored for denseStub, straight into a new
// database.
func storeDense(b *testing.B, n int) *store.DB {
	b.Helper()
	ctx := context.Background()
	db := searchtest.EmptyDB(b)
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		b.Fatal(err)
	}
	defer tx.Rollback()
	exec := func(q string, args ...any) {
		if _, err := tx.ExecContext(ctx, q, args...); err != nil {
			b.Fatal(err)
		}
	}
	exec(`INSERT INTO vaults (id, name, path) VALUES (1, 'v', '/v')`)
	exec(`INSERT INTO embedders (id, fingerprint, provider, model, dimension, created_ms) VALUES (1, ?, 'test', 'dense', ?, 0)`,
		denseStub{}.Fingerprint(), denseBenchDim)
	r := rand.New(rand.NewPCG(1, 2))
	centres := units(r, 2000, denseBenchDim)
	v := make([]float32, denseBenchDim)
	for i := range n {
		if i%4 == 0 {
			exec(`INSERT INTO files (id, vault_id, path, kind, size, mtime_ns, title) VALUES (?, 1, ?, 'note', 1, 1, ?)`,
				i/4+1, fmt.Sprintf("n%06d.md", i/4), fmt.Sprintf("n%06d", i/4))
		}
		hash := fmt.Sprintf("%064x", i)
		exec(`INSERT INTO chunks (id, file_id, ord, heading, start_line, end_line, text, hash) VALUES (?, ?, ?, '', 1, 1, ?, ?)`,
			i+1, i/4+1, i%4, fmt.Sprintf("passage %d", i), hash)
		c := centres[r.IntN(len(centres))]
		for k := range v {
			v[k] = c[k] + float32(0.05*r.NormFloat64())
		}
		exec(`INSERT INTO vectors (embedder_id, hash, vector) VALUES (1, ?, ?)`, hash, encodeVector(unitLength(v)))
	}
	if err := tx.Commit(); err != nil {
		b.Fatal(err)
	}
	return db
}

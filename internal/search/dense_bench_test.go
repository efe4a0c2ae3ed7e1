package search

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"slices"
	"testing"
	"time"
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
			d := newDenseIndex()
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
				got, err := d.nearest(queries[i%len(queries)], 40, nil, 0)
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

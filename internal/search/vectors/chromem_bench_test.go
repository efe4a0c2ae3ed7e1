package vectors

import (
	"context"
	"fmt"
	"math/rand/v2"
	"runtime"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/philippgille/chromem-go"
)

// storeBenchShape is a kind of vector for BenchmarkVectorStore: the
// lexical embedder's (768 dimensions, two thirds of them set; its queries
// set a hundred or so) or a small neural model's (384, every one set,
// vectors gathered around subjects).
type storeBenchShape struct {
	name    string
	dim     int
	compact func(n int) vectorIndex
	vectors func(r *rand.Rand, n int) [][]float32
	queries func(r *rand.Rand, n int) [][]float32
	minSim  float32 // the floor semantic search asks with
}

var storeBenchShapes = []storeBenchShape{
	{
		name:    "lexical768",
		dim:     768,
		compact: func(n int) vectorIndex { return newColumnIndex(n) },
		vectors: func(r *rand.Rand, n int) [][]float32 {
			out := make([][]float32, n)
			for i := range out {
				out[i] = randomUnit(r, 768, 0.65)
			}
			return out
		},
		queries: func(r *rand.Rand, n int) [][]float32 {
			out := make([][]float32, n)
			for i := range out {
				out[i] = randomUnit(r, 768, 0.13)
			}
			return out
		},
		minSim: 0.18, // semantic search's floor for the lexical embedder
	},
	{
		name:    "dense384",
		dim:     denseBenchDim,
		compact: func(n int) vectorIndex { return newDenseIndex(n) },
		vectors: func(r *rand.Rand, n int) [][]float32 {
			return around(r, units(rand.New(rand.NewPCG(5, 6)), 2000, denseBenchDim), n, 1)
		},
		queries: func(r *rand.Rand, n int) [][]float32 {
			return around(r, units(rand.New(rand.NewPCG(5, 6)), 2000, denseBenchDim), n, 1)
		},
		minSim: 0, // and for a neural one
	},
}

// BenchmarkVectorStore measures what decides which store serves a vault
// (Vectors.ChromemMax): a query of chromem-go and of the compact index
// (column for lexical vectors, dense for 384-dimension ones) at several
// vault sizes, 40 chunks asked for as a search for 10 notes asks, with
// semantic search's floor, with no filter, with one keeping half the notes
// and with one keeping one note in a hundred; and the heap each holds a
// vector in. It reports the median and
// 95th percentile per query.
//
//	go test -run '^$' -bench BenchmarkVectorStore -benchtime 200x ./internal/search/vectors/
func BenchmarkVectorStore(b *testing.B) {
	ctx := context.Background()
	halfNotes := func(file int64) bool { return file%2 == 0 }
	// A filter as build-context's passages use: the few notes whose
	// passages are being scored.
	fewNotes := func(file int64) bool { return file%100 == 0 }
	for _, shape := range storeBenchShapes {
		for _, n := range []int{1000, 2000, 4000, 6000, 8000, 10000, 12000, 16000, 36000} {
			for _, store := range []string{StoreChromem, "compact"} {
				b.Run(fmt.Sprintf("%s/chunks=%d/%s", shape.name, n, store), func(b *testing.B) {
					r := rand.New(rand.NewPCG(1, uint64(n)))
					vecs := shape.vectors(r, n)
					queries := shape.queries(r, 64)
					before := heapInUse()
					var idx vectorIndex = newChromemIndex(n)
					if store != StoreChromem {
						idx = shape.compact(n)
					}
					for i, v := range vecs {
						if err := idx.add(int64(i+1), int64(i/4), v); err != nil {
							b.Fatal(err)
						}
					}
					held := heapInUse() - before
					runtime.KeepAlive(vecs) // not counted in held
					for _, filter := range []struct {
						name string
						keep func(int64) bool
					}{{"all", nil}, {"half", halfNotes}, {"few", fewNotes}} {
						b.Run(filter.name, func(b *testing.B) {
							var lat []time.Duration
							i := 0
							for b.Loop() {
								t0 := time.Now()
								_, err := idx.nearest(ctx, queries[i%len(queries)], 40, filter.keep, shape.minSim)
								lat = append(lat, time.Since(t0))
								if err != nil {
									b.Fatal(err)
								}
								i++
							}
							slices.Sort(lat)
							b.ReportMetric(float64(lat[len(lat)/2])/1e6, "p50-ms")
							b.ReportMetric(float64(lat[len(lat)*95/100])/1e6, "p95-ms")
							b.ReportMetric(float64(held)/float64(n), "bytes/vector")
						})
					}
					runtime.KeepAlive(idx)
				})
			}
		}
	}
}

// BenchmarkChromemAdd compares the two ways of putting vectors into a
// chromem-go collection: AddDocument one at a time, as chromemIndex does,
// and AddDocuments, which starts a goroutine for every document.
//
//	go test -run '^$' -bench BenchmarkChromemAdd ./internal/search/vectors/
func BenchmarkChromemAdd(b *testing.B) {
	ctx := context.Background()
	const n = 4000
	r := rand.New(rand.NewPCG(1, 2))
	docs := make([]chromem.Document, n)
	for i := range docs {
		docs[i] = chromem.Document{ID: strconv.Itoa(i + 1), Embedding: randomUnit(r, 768, 0.65)}
	}
	newCollection := func() *chromem.Collection {
		c, err := chromem.NewDB().CreateCollection("v", nil, noEmbedding)
		if err != nil {
			b.Fatal(err)
		}
		return c
	}
	b.Run("AddDocument", func(b *testing.B) {
		for b.Loop() {
			c := newCollection()
			for _, d := range docs {
				if err := c.AddDocument(ctx, d); err != nil {
					b.Fatal(err)
				}
			}
		}
	})
	for _, workers := range []int{1, 2} {
		b.Run(fmt.Sprintf("AddDocuments/concurrency=%d", workers), func(b *testing.B) {
			for b.Loop() {
				if err := newCollection().AddDocuments(ctx, docs, workers); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

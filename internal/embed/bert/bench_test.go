package bert

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"sort"
	"testing"
	"time"
)

// mapSource is an in-memory tensorSource.
type mapSource map[string]struct {
	data  []float32
	shape []int
}

func (s mapSource) Has(name string) bool { _, ok := s[name]; return ok }

func (s mapSource) Float32(name string) ([]float32, []int, error) {
	t, ok := s[name]
	if !ok {
		return nil, nil, fmt.Errorf("no tensor %q", name)
	}
	return t.data, t.shape, nil
}

// randomModel builds a model of cfg's shapes with random weights, without
// files.
func randomModel(tb testing.TB, cfg Config) *Model {
	tb.Helper()
	rng := rand.New(rand.NewPCG(1, 2))
	src := mapSource{}
	add := func(name string, scale float64, shape ...int) {
		n := 1
		for _, d := range shape {
			n *= d
		}
		v := make([]float32, n)
		for i := range v {
			v[i] = float32(rng.NormFloat64() * scale)
		}
		src[name] = struct {
			data  []float32
			shape []int
		}{v, shape}
	}
	h, in := cfg.HiddenSize, cfg.IntermediateSize
	add("embeddings.word_embeddings.weight", 0.05, cfg.VocabSize, h)
	add("embeddings.position_embeddings.weight", 0.05, cfg.MaxPositionEmbeddings, h)
	add("embeddings.token_type_embeddings.weight", 0.05, 2, h)
	add("embeddings.LayerNorm.weight", 0.1, h)
	add("embeddings.LayerNorm.bias", 0.1, h)
	for l := 0; l < cfg.NumHiddenLayers; l++ {
		p := fmt.Sprintf("encoder.layer.%d.", l)
		for _, n := range []string{"query", "key", "value"} {
			add(p+"attention.self."+n+".weight", 1/math.Sqrt(float64(h)), h, h)
			add(p+"attention.self."+n+".bias", 0.02, h)
		}
		add(p+"attention.output.dense.weight", 1/math.Sqrt(float64(h)), h, h)
		add(p+"attention.output.dense.bias", 0.02, h)
		add(p+"attention.output.LayerNorm.weight", 0.1, h)
		add(p+"attention.output.LayerNorm.bias", 0.1, h)
		add(p+"intermediate.dense.weight", 1/math.Sqrt(float64(h)), in, h)
		add(p+"intermediate.dense.bias", 0.02, in)
		add(p+"output.dense.weight", 1/math.Sqrt(float64(in)), h, in)
		add(p+"output.dense.bias", 0.02, h)
		add(p+"output.LayerNorm.weight", 0.1, h)
		add(p+"output.LayerNorm.bias", 0.1, h)
	}
	m, err := newModel(cfg, src, layout{pooling: PoolMean, normalize: true, maxSeqLen: 256})
	if err != nil {
		tb.Fatal(err)
	}
	return m
}

// miniLM has all-MiniLM-L6-v2's shapes; bgeSmall has bge-small-en-v1.5's.
var (
	miniLM = Config{ModelType: "bert", VocabSize: 30522, HiddenSize: 384, NumHiddenLayers: 6,
		NumAttentionHeads: 12, IntermediateSize: 1536, HiddenAct: "gelu", LayerNormEps: 1e-12,
		MaxPositionEmbeddings: 512, TypeVocabSize: 2}
	bgeSmall = Config{ModelType: "bert", VocabSize: 30522, HiddenSize: 384, NumHiddenLayers: 12,
		NumAttentionHeads: 12, IntermediateSize: 1536, HiddenAct: "gelu", LayerNormEps: 1e-12,
		MaxPositionEmbeddings: 512, TypeVocabSize: 2}
)

func randomBatch(n, length, vocab int) [][]int32 {
	rng := rand.New(rand.NewPCG(3, 4))
	batch := make([][]int32, n)
	for i := range batch {
		seq := make([]int32, length)
		seq[0], seq[length-1] = 101, 102
		for j := 1; j < length-1; j++ {
			seq[j] = int32(1000 + rng.IntN(vocab-1000))
		}
		batch[i] = seq
	}
	return batch
}

// benchChunks reports milliseconds per 128-token chunk when chunks are
// embedded 32 at a time, as indexing does.
func benchChunks(b *testing.B, cfg Config) {
	m := randomModel(b, cfg)
	batch := randomBatch(32, 128, cfg.VocabSize)
	ctx := context.Background()
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := m.Embed(ctx, batch); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Milliseconds())/float64(b.N*len(batch)), "ms/chunk")
}

// benchQuery reports the median latency of embedding one 16-token query.
func benchQuery(b *testing.B, cfg Config) {
	m := randomModel(b, cfg)
	q := randomBatch(1, 16, cfg.VocabSize)
	ctx := context.Background()
	times := make([]time.Duration, 0, b.N)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		start := time.Now()
		if _, err := m.Embed(ctx, q); err != nil {
			b.Fatal(err)
		}
		times = append(times, time.Since(start))
	}
	sort.Slice(times, func(i, j int) bool { return times[i] < times[j] })
	b.ReportMetric(float64(times[len(times)/2].Microseconds())/1000, "ms-p50")
}

func BenchmarkMiniLMChunks(b *testing.B)   { benchChunks(b, miniLM) }
func BenchmarkMiniLMQuery(b *testing.B)    { benchQuery(b, miniLM) }
func BenchmarkBGESmallChunks(b *testing.B) { benchChunks(b, bgeSmall) }
func BenchmarkBGESmallQuery(b *testing.B)  { benchQuery(b, bgeSmall) }

package static

import (
	"math/rand/v2"
	"testing"
)

// BenchmarkPoolPotion pools a 128-token text with potion-base-8M's table
// shape (29,528 tokens × 256), built in memory.
func BenchmarkPoolPotion(b *testing.B) {
	const rows, dim = 29528, 256
	rng := rand.New(rand.NewPCG(1, 2))
	table := make([]float32, rows*dim)
	for i := range table {
		table[i] = float32(rng.NormFloat64())
	}
	m := &Model{format: Model2Vec, dim: dim, rows: rows, table: table, tokens: rows, unkID: 100,
		maxTokens: model2vecMaxTokens, normalize: true, normEps: 1e-32}
	ids := make([]int32, 128)
	for i := range ids {
		ids[i] = int32(rng.IntN(rows))
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		m.Pool(ids)
	}
}

package linalg

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// The shapes a BERT sentence encoder with hidden size 384 and FFN size
// 1536 (MiniLM, bge-small) runs: rows are the tokens in a batch.
var benchLinearShapes = []shape{
	{16, 384, 384}, {16, 384, 1536}, {16, 1536, 384},
	{128, 384, 384}, {128, 384, 1536}, {128, 1536, 384},
	{4096, 384, 384}, {4096, 384, 1536}, {4096, 1536, 384},
}

func reportGFLOPS(b *testing.B, flops int) {
	b.ReportMetric(float64(flops)*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
}

// BenchmarkLinear compares the plain definition with Linear on raw
// weights and with weights packed once.
func BenchmarkLinear(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 1))
	for _, s := range benchLinearShapes {
		x := randomMatrix(rng, s.rows*s.in)
		w := randomMatrix(rng, s.out*s.in)
		bias := randomMatrix(rng, s.out)
		y := make([]float32, s.rows*s.out)
		flops := 2 * s.rows * s.in * s.out
		name := fmt.Sprintf("rows=%d/%d->%d", s.rows, s.in, s.out)
		b.Run("plain/"+name, func(b *testing.B) {
			for b.Loop() {
				linearRef(y, x, w, bias, s.rows, s.in, s.out)
			}
			reportGFLOPS(b, flops)
		})
		b.Run("fast/"+name, func(b *testing.B) {
			for b.Loop() {
				Linear(y, x, w, bias, s.rows, s.in, s.out)
			}
			reportGFLOPS(b, flops)
		})
		pw := Pack(w, s.out, s.in)
		b.Run("packed/"+name, func(b *testing.B) {
			for b.Loop() {
				pw.Linear(y, x, bias, s.rows)
			}
			reportGFLOPS(b, flops)
		})
	}
}

// BenchmarkAttention runs the per-head products of self-attention with
// head size 32: scores = q·kᵀ (Linear with k as the weights) and
// context = softmax(scores)·v (MatMul).
func BenchmarkAttention(b *testing.B) {
	rng := rand.New(rand.NewPCG(2, 2))
	const head = 32
	for _, seq := range []int{16, 128, 512} {
		q := randomMatrix(rng, seq*head)
		k := randomMatrix(rng, seq*head)
		scores := make([]float32, seq*seq)
		ctx := make([]float32, seq*head)
		flops := 2 * seq * seq * head
		b.Run(fmt.Sprintf("scores/plain/seq=%d", seq), func(b *testing.B) {
			for b.Loop() {
				linearRef(scores, q, k, nil, seq, head, seq)
			}
			reportGFLOPS(b, flops)
		})
		b.Run(fmt.Sprintf("scores/fast/seq=%d", seq), func(b *testing.B) {
			for b.Loop() {
				Linear(scores, q, k, nil, seq, head, seq)
			}
			reportGFLOPS(b, flops)
		})
		b.Run(fmt.Sprintf("context/plain/seq=%d", seq), func(b *testing.B) {
			for b.Loop() {
				matMulRef(ctx, scores, k, seq, seq, head)
			}
			reportGFLOPS(b, flops)
		})
		b.Run(fmt.Sprintf("context/fast/seq=%d", seq), func(b *testing.B) {
			for b.Loop() {
				MatMul(ctx, scores, k, seq, seq, head)
			}
			reportGFLOPS(b, flops)
		})
	}
}

// BenchmarkKernel measures one micro-kernel call on packed operands that
// sit in L1: the ceiling the blocked product can approach on one core.
func BenchmarkKernel(b *testing.B) {
	rng := rand.New(rand.NewPCG(3, 3))
	const kc = 256
	a := randomMatrix(rng, mr*kc)
	bp := randomMatrix(rng, kc*nr)
	c := make([]float32, mr*nr)
	for name, kern := range kernels() {
		b.Run(name, func(b *testing.B) {
			for b.Loop() {
				kern(kc, a, kc, bp, c, nr, c, nr)
			}
			reportGFLOPS(b, 2*kc*mr*nr)
		})
	}
}

// BenchmarkPackTransposed measures gathering Linear's weights into panels,
// the part of a call on raw weights that a Weights does once.
func BenchmarkPackTransposed(b *testing.B) {
	rng := rand.New(rand.NewPCG(4, 4))
	const out, in = 1536, 384
	w := randomMatrix(rng, out*in)
	p := product{n: out, k: in, w: w}
	dst := make([]float32, panelCount(out)*in*nr)
	for b.Loop() {
		p.packPanels(dst, 0, panelCount(out))
	}
	b.ReportMetric(float64(out*in)*float64(b.N)/b.Elapsed().Seconds()/1e9, "Gfloats/s")
}

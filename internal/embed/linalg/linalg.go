// Package linalg holds the dense float32 kernels the local embedders run
// on. Matrices are row-major slices; shapes are passed explicitly and are
// the caller's to get right: a slice shorter than its shape says panics.
//
// Linear and MatMul are cache-blocked products: the right-hand operand is
// gathered into panels 16 columns wide, and a register-tiled micro-kernel
// computes the output 6 rows by 16 columns at a time. The kernel is AVX2
// and FMA assembly on amd64 CPUs that have both (Intel since Haswell, AMD
// since Excavator and every Zen), checked once at start-up; other amd64
// CPUs, every other architecture, and builds with the purego tag run a
// portable Go kernel on the same layout (on amd64, about a twentieth of
// the assembly's speed). Large products are split over GOMAXPROCS
// goroutines; small ones run on the calling goroutine. Results agree with
// the plain definitions up to float32 rounding (sums are accumulated in
// another order, and with fused multiply-adds where the CPU has them), not
// bit for bit.
//
// Weights packs a weight matrix once for repeated Linear calls, which
// saves the per-call gathering; it pays most when rows is small.
//
// Outputs must not overlap inputs: the functions panic if they do.
package linalg

import (
	"fmt"
	"unsafe"
)

// Linear computes y = x·wᵀ + b, PyTorch's nn.Linear: x is rows×in, w is
// out×in (the layout safetensors files store), b has out values or is nil,
// and y, rows×out, is overwritten. y must not overlap x, w or b.
//
// Each call repacks w; a caller that applies the same weights many times
// can pack them once with Pack.
func Linear(y, x, w, b []float32, rows, in, out int) {
	checkShape("Linear", rows, in, out)
	checkLen("Linear", "x", x, rows*in)
	checkLen("Linear", "w", w, out*in)
	checkLen("Linear", "y", y, rows*out)
	if b != nil {
		checkLen("Linear", "b", b, out)
		b = b[:out]
	}
	x, w, y = x[:rows*in], w[:out*in], y[:rows*out]
	checkDisjoint("Linear", y, x, w, b)
	p := product{m: rows, n: out, k: in, a: x, c: y, bias: b, w: w}
	p.do(fastKernel)
}

// MatMul computes c = a·b: a is m×k, b is k×n, and c, m×n, is overwritten.
// c must not overlap a or b.
func MatMul(c, a, b []float32, m, k, n int) {
	checkShape("MatMul", m, k, n)
	checkLen("MatMul", "a", a, m*k)
	checkLen("MatMul", "b", b, k*n)
	checkLen("MatMul", "c", c, m*n)
	a, b, c = a[:m*k], b[:k*n], c[:m*n]
	checkDisjoint("MatMul", c, a, b)
	p := product{m: m, n: n, k: k, a: a, c: c, b: b}
	p.do(fastKernel)
}

// Weights is a weight matrix for Linear packed once into the panel layout
// the kernels read, so that repeated products with it (every forward pass
// of a model) skip the per-call repacking. That matters most when rows is
// small: for a 16-token query, packing costs about as much as the product.
// A Weights is read-only after Pack and safe for concurrent use.
type Weights struct {
	out, in int
	panels  []float32
}

// Pack packs w, out×in as Linear takes it, into a Weights. w is copied:
// later changes to it do not reach the Weights.
func Pack(w []float32, out, in int) *Weights {
	checkShape("Pack", out, in, 0)
	checkLen("Pack", "w", w, out*in)
	p := product{n: out, k: in, w: w[:out*in]}
	pw := &Weights{out: out, in: in, panels: make([]float32, panelCount(out)*in*nr)}
	p.packPanels(pw.panels, 0, panelCount(out))
	return pw
}

// Out is the number of outputs (rows of the w Pack was given).
func (pw *Weights) Out() int { return pw.out }

// In is the number of inputs (columns of the w Pack was given).
func (pw *Weights) In() int { return pw.in }

// Linear computes y = x·wᵀ + b as the package-level Linear does, with the
// w that was packed: x is rows×In(), b has Out() values or is nil, and y,
// rows×Out(), is overwritten. y must not overlap x or b.
func (pw *Weights) Linear(y, x, b []float32, rows int) {
	in, out := pw.in, pw.out
	checkShape("Weights.Linear", rows, in, out)
	checkLen("Weights.Linear", "x", x, rows*in)
	checkLen("Weights.Linear", "y", y, rows*out)
	if b != nil {
		checkLen("Weights.Linear", "b", b, out)
		b = b[:out]
	}
	x, y = x[:rows*in], y[:rows*out]
	checkDisjoint("Weights.Linear", y, x, b)
	p := product{m: rows, n: out, k: in, a: x, c: y, bias: b, packed: pw.panels}
	p.do(fastKernel)
}

func checkShape(fn string, d0, d1, d2 int) {
	if d0 < 0 || d1 < 0 || d2 < 0 {
		panic(fmt.Sprintf("linalg.%s: negative dimension in %d×%d×%d", fn, d0, d1, d2))
	}
}

func checkLen(fn, name string, s []float32, want int) {
	if len(s) < want {
		panic(fmt.Sprintf("linalg.%s: %s has %d values, the shape needs %d", fn, name, len(s), want))
	}
}

// checkDisjoint panics if out shares memory with any of ins: the kernels
// write out while they still read the inputs.
func checkDisjoint(fn string, out []float32, ins ...[]float32) {
	for _, in := range ins {
		if overlap(out, in) {
			panic(fmt.Sprintf("linalg.%s: the output overlaps an input", fn))
		}
	}
}

func overlap(a, b []float32) bool {
	if len(a) == 0 || len(b) == 0 {
		return false
	}
	const size = unsafe.Sizeof(float32(0))
	a0 := uintptr(unsafe.Pointer(unsafe.SliceData(a)))
	b0 := uintptr(unsafe.Pointer(unsafe.SliceData(b)))
	return a0 < b0+uintptr(len(b))*size && b0 < a0+uintptr(len(a))*size
}

// AddScaled adds a·x to y, element by element: y[i] += a·x[i] for every i
// of x. y must be at least as long as x.
func AddScaled(y []float32, a float32, x []float32) {
	if len(y) < len(x) {
		panic(fmt.Sprintf("linalg.AddScaled: y has %d values, x %d", len(y), len(x)))
	}
	addScaled(y[:len(x)], a, x)
}

// AddScaledInt8 adds a·x to y, element by element, for int8 x: y[i] +=
// a·float32(x[i]) for every i of x. y must be at least as long as x. It is
// the inner loop of a scan over int8-quantised vectors laid out by
// dimension.
func AddScaledInt8(y []float32, a float32, x []int8) {
	if len(y) < len(x) {
		panic(fmt.Sprintf("linalg.AddScaledInt8: y has %d values, x %d", len(y), len(x)))
	}
	addScaledInt8(y[:len(x)], a, x)
}

// addScaledInt8 is AddScaledInt8 on slices of equal length: the assembly
// where the CPU has it, else addScaledInt8Go.
var addScaledInt8 = addScaledInt8Go

func addScaledInt8Go(y []float32, a float32, x []int8) {
	y = y[:len(x)]
	i := 0
	for ; i+4 <= len(x); i += 4 {
		y[i] += a * float32(x[i])
		y[i+1] += a * float32(x[i+1])
		y[i+2] += a * float32(x[i+2])
		y[i+3] += a * float32(x[i+3])
	}
	for ; i < len(x); i++ {
		y[i] += a * float32(x[i])
	}
}

// addScaled is AddScaled on slices of equal length: the assembly where
// the CPU has it (see fastKernel), else addScaledGo.
var addScaled = addScaledGo

func addScaledGo(y []float32, a float32, x []float32) {
	y = y[:len(x)]
	i := 0
	for ; i+4 <= len(x); i += 4 {
		y[i] += a * x[i]
		y[i+1] += a * x[i+1]
		y[i+2] += a * x[i+2]
		y[i+3] += a * x[i+3]
	}
	for ; i < len(x); i++ {
		y[i] += a * x[i]
	}
}

package linalg

import (
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"sync"
	"testing"
)

// kernels are every microKernel this build can run, so that the portable
// one is tested on machines where the assembly is what Linear uses.
func kernels() map[string]microKernel {
	ks := map[string]microKernel{"go": kernelGo}
	ks["fast"] = fastKernel
	return ks
}

func randomMatrix(rng *rand.Rand, n int) []float32 {
	s := make([]float32, n)
	for i := range s {
		s[i] = float32(rng.NormFloat64())
	}
	return s
}

// tolerance is the relative error allowed against the reference, measured
// against the sum of the magnitudes of the terms of each output: the sums
// are added in another order, and with fused multiply-adds on some CPUs.
const tolerance = 1e-5

// checkLinear compares got with linearRef on the same operands, element by
// element, allowing tolerance times the size of the terms summed.
func checkLinear(t *testing.T, got, x, w, b []float32, rows, in, out int) {
	t.Helper()
	want := make([]float32, rows*out)
	linearRef(want, x, w, b, rows, in, out)
	bad := 0
	for r := 0; r < rows; r++ {
		for o := 0; o < out; o++ {
			var scale float64
			for i := 0; i < in; i++ {
				scale += math.Abs(float64(x[r*in+i]) * float64(w[o*in+i]))
			}
			if b != nil {
				scale += math.Abs(float64(b[o]))
			}
			g, wv := got[r*out+o], want[r*out+o]
			if math.Abs(float64(g)-float64(wv)) > tolerance*scale+1e-30 || math.IsNaN(float64(g)) {
				if bad++; bad <= 5 {
					t.Errorf("y[%d][%d] = %g, reference %g (terms' magnitude %g)", r, o, g, wv, scale)
				}
			}
		}
	}
	if bad > 5 {
		t.Errorf("%d outputs differ in all", bad)
	}
}

// transpose returns the n×k transpose of the k×n matrix b.
func transpose(b []float32, k, n int) []float32 {
	t := make([]float32, n*k)
	for q := 0; q < k; q++ {
		for j := 0; j < n; j++ {
			t[j*k+q] = b[q*n+j]
		}
	}
	return t
}

type shape struct{ rows, in, out int }

// edgeShapes cover sizes below, at and just past the tile (6×16), the
// row block (192) and the k block (256), so every edge path runs.
func edgeShapes() []shape {
	var shapes []shape
	for _, rows := range []int{1, 3, 6, 7, 15, 17, 33, 127} {
		for _, in := range []int{1, 3, 15, 17, 33, 127, 257} {
			for _, out := range []int{1, 3, 15, 16, 17, 33, 127} {
				shapes = append(shapes, shape{rows, in, out})
			}
		}
	}
	return append(shapes,
		shape{193, 33, 17},  // one row past a row block
		shape{200, 513, 40}, // three k blocks, ragged everywhere
		shape{16, 384, 384}, // a query through an attention projection
		shape{20, 384, 1536},
		shape{20, 1536, 384},
		shape{64, 32, 64}, // attention scores, q·kᵀ
	)
}

func TestProductMatchesReference(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for name, kern := range kernels() {
		for _, s := range edgeShapes() {
			x := randomMatrix(rng, s.rows*s.in)
			w := randomMatrix(rng, s.out*s.in)
			b := randomMatrix(rng, s.out)
			for _, bias := range [][]float32{nil, b} {
				t.Run(fmt.Sprintf("%s/%dx%dx%d/bias=%t", name, s.rows, s.in, s.out, bias != nil), func(t *testing.T) {
					y := randomMatrix(rng, s.rows*s.out) // garbage that must be overwritten
					p := product{m: s.rows, n: s.out, k: s.in, a: x, c: y, bias: bias, w: w}
					p.do(kern)
					checkLinear(t, y, x, w, bias, s.rows, s.in, s.out)
				})
			}
		}
	}
}

func TestLinearMatchesReference(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, s := range []shape{{1, 1, 1}, {17, 33, 15}, {127, 257, 33}, {200, 384, 384}, {16, 1536, 384}} {
		x := randomMatrix(rng, s.rows*s.in)
		w := randomMatrix(rng, s.out*s.in)
		b := randomMatrix(rng, s.out)
		for _, bias := range [][]float32{nil, b} {
			t.Run(fmt.Sprintf("%dx%dx%d/bias=%t", s.rows, s.in, s.out, bias != nil), func(t *testing.T) {
				y := randomMatrix(rng, s.rows*s.out)
				Linear(y, x, w, bias, s.rows, s.in, s.out)
				checkLinear(t, y, x, w, bias, s.rows, s.in, s.out)

				packed := randomMatrix(rng, s.rows*s.out)
				Pack(w, s.out, s.in).Linear(packed, x, bias, s.rows)
				checkLinear(t, packed, x, w, bias, s.rows, s.in, s.out)
			})
		}
	}
}

func TestMatMulMatchesReference(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	shapes := []struct{ m, k, n int }{
		{1, 1, 1}, {3, 5, 7}, {16, 16, 32}, {17, 17, 33}, {127, 127, 32},
		{128, 128, 32}, {512, 512, 32}, {40, 300, 100},
	}
	for name, kern := range kernels() {
		for _, s := range shapes {
			t.Run(fmt.Sprintf("%s/%dx%dx%d", name, s.m, s.k, s.n), func(t *testing.T) {
				a := randomMatrix(rng, s.m*s.k)
				b := randomMatrix(rng, s.k*s.n)
				c := randomMatrix(rng, s.m*s.n)
				p := product{m: s.m, n: s.n, k: s.k, a: a, c: c, b: b}
				p.do(kern)
				// a·b is Linear with w = bᵀ, which checkLinear knows how to judge.
				checkLinear(t, c, a, transpose(b, s.k, s.n), nil, s.m, s.k, s.n)

				want := make([]float32, s.m*s.n)
				matMulRef(want, a, b, s.m, s.k, s.n)
				got := make([]float32, s.m*s.n)
				MatMul(got, a, b, s.m, s.k, s.n)
				checkLinear(t, got, a, transpose(b, s.k, s.n), nil, s.m, s.k, s.n)
			})
		}
	}
}

// TestSmallProductsExactly checks values worked out by hand: with small
// integers every product and sum is exact in float32, so no tolerance.
func TestSmallProductsExactly(t *testing.T) {
	x := []float32{1, 2, 3, 4, 5, 6}  // 2×3
	w := []float32{1, 0, -1, 2, 1, 0} // 2×3: y = x·wᵀ
	b := []float32{10, -10}
	y := make([]float32, 4)
	Linear(y, x, w, b, 2, 3, 2)
	if want := []float32{1 - 3 + 10, 2 + 2 - 10, 4 - 6 + 10, 8 + 5 - 10}; fmt.Sprint(y) != fmt.Sprint(want) {
		t.Errorf("Linear = %v, want %v", y, want)
	}
	c := make([]float32, 4)
	MatMul(c, x, []float32{1, 2, 3, 4, 5, 6}, 2, 3, 2) // 2×3 · 3×2
	if want := []float32{22, 28, 49, 64}; fmt.Sprint(c) != fmt.Sprint(want) {
		t.Errorf("MatMul = %v, want %v", c, want)
	}
}

func TestEmptyDimensions(t *testing.T) {
	b := []float32{1, 2, 3}
	y := []float32{9, 9, 9, 9, 9, 9}
	Linear(y, nil, nil, b, 2, 0, 3)
	if want := []float32{1, 2, 3, 1, 2, 3}; fmt.Sprint(y) != fmt.Sprint(want) {
		t.Errorf("Linear with in = 0 gave %v, want the bias on every row %v", y, want)
	}
	Linear(y, nil, nil, nil, 2, 0, 3)
	if want := []float32{0, 0, 0, 0, 0, 0}; fmt.Sprint(y) != fmt.Sprint(want) {
		t.Errorf("Linear with in = 0 and no bias gave %v, want zeros", y)
	}
	MatMul(y, nil, nil, 2, 0, 3)
	if want := []float32{0, 0, 0, 0, 0, 0}; fmt.Sprint(y) != fmt.Sprint(want) {
		t.Errorf("MatMul with k = 0 gave %v, want zeros", y)
	}
	Linear(nil, nil, []float32{1}, nil, 0, 1, 1) // no rows: nothing to do, no panic
}

// TestOnlyTheOutputIsWritten puts sentinels past the end of y: the tiles
// at the edges must write back only the part of the tile that exists.
func TestOnlyTheOutputIsWritten(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	const rows, in, out, spare = 13, 20, 19, 40
	x := randomMatrix(rng, rows*in)
	w := randomMatrix(rng, out*in)
	for name, kern := range kernels() {
		y := make([]float32, rows*out+spare)
		for i := range y {
			y[i] = -7
		}
		p := product{m: rows, n: out, k: in, a: x, c: y[:rows*out], w: w}
		p.do(kern)
		for i, v := range y[rows*out:] {
			if v != -7 {
				t.Errorf("%s: y[%d], past the output, became %g", name, rows*out+i, v)
			}
		}
		checkLinear(t, y[:rows*out], x, w, nil, rows, in, out)
	}
}

// TestSplitsAcrossGoroutines runs products big enough to be split, under
// worker counts that do not divide the rows or the panels evenly, both by
// columns (many panels) and by rows (few panels).
func TestSplitsAcrossGoroutines(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	for _, procs := range []int{2, 3, 5} {
		runtime.GOMAXPROCS(procs)
		for _, s := range []shape{{301, 200, 35}, {41, 300, 400}, {512, 512, 32}, {7, 1536, 512}} {
			t.Run(fmt.Sprintf("procs=%d/%dx%dx%d", procs, s.rows, s.in, s.out), func(t *testing.T) {
				x := randomMatrix(rng, s.rows*s.in)
				w := randomMatrix(rng, s.out*s.in)
				b := randomMatrix(rng, s.out)
				y := make([]float32, s.rows*s.out)
				Linear(y, x, w, b, s.rows, s.in, s.out)
				checkLinear(t, y, x, w, b, s.rows, s.in, s.out)
				Pack(w, s.out, s.in).Linear(y, x, b, s.rows)
				checkLinear(t, y, x, w, b, s.rows, s.in, s.out)
			})
		}
	}
}

func TestWeightsAreSharedSafely(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	const rows, in, out = 40, 384, 384
	w := randomMatrix(rng, out*in)
	b := randomMatrix(rng, out)
	pw := Pack(w, out, in)
	if pw.In() != in || pw.Out() != out {
		t.Fatalf("Pack(%d×%d) reports %d×%d", out, in, pw.Out(), pw.In())
	}
	packedFrom := slices.Clone(w)
	clear(w) // Pack copied w: changing it now must not change the product
	var wg sync.WaitGroup
	for g := 0; g < 4; g++ {
		x := randomMatrix(rng, rows*in)
		wg.Go(func() {
			y := make([]float32, rows*out)
			pw.Linear(y, x, b, rows)
			checkLinear(t, y, x, packedFrom, b, rows, in, out)
		})
	}
	wg.Wait()
}

func TestMisuse(t *testing.T) {
	x := make([]float32, 12)
	w := make([]float32, 12)
	y := make([]float32, 9)
	cases := []struct {
		name string
		call func()
	}{
		{"short x", func() { Linear(y, x[:11], w, nil, 3, 4, 3) }},
		{"short w", func() { Linear(y, x, w[:11], nil, 3, 4, 3) }},
		{"short y", func() { Linear(y[:8], x, w, nil, 3, 4, 3) }},
		{"short bias", func() { Linear(y, x, w, []float32{1, 2}, 3, 4, 3) }},
		{"negative rows", func() { Linear(y, x, w, nil, -1, 4, 3) }},
		{"y is x", func() { Linear(x[:9], x, w, nil, 3, 4, 3) }},
		{"y overlaps w's tail", func() { Linear(w[6:], x[:4], w, nil, 1, 4, 2) }},
		{"c overlaps b", func() { MatMul(x[2:11], w, x[:12], 3, 4, 3) }},
		{"short packed x", func() { Pack(w, 3, 4).Linear(y, x[:11], nil, 3) }},
		{"packed y is x", func() { Pack(w, 3, 4).Linear(x[:9], x, nil, 3) }},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			defer func() {
				if recover() == nil {
					t.Errorf("did not panic")
				}
			}()
			c.call()
		})
	}
}

func TestSerialProductsDoNotAllocate(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 14))
	const rows, in, out = 16, 32, 16 // too small to be split
	x := randomMatrix(rng, rows*in)
	w := randomMatrix(rng, out*in)
	y := make([]float32, rows*out)
	pw := Pack(w, out, in)
	if n := testing.AllocsPerRun(100, func() { Linear(y, x, w, nil, rows, in, out) }); n > 0 {
		t.Errorf("Linear allocates %v times a call", n)
	}
	if n := testing.AllocsPerRun(100, func() { pw.Linear(y, x, nil, rows) }); n > 0 {
		t.Errorf("Weights.Linear allocates %v times a call", n)
	}
}

// TestPackPanelTransposed checks the packed layout itself, for every way
// of packing a panel this build has, against the definition
// d[q*nr+t] = w[(c0+t)*k+q].
func TestPackPanelTransposed(t *testing.T) {
	rng := rand.New(rand.NewPCG(15, 16))
	for _, k := range []int{1, 7, 8, 9, 63, 64, 65, 129, 384, 1536} {
		const out, c0 = 40, 16
		w := randomMatrix(rng, out*k)
		packs := map[string]func(d []float32){
			"go": func(d []float32) {
				saved := fastTranspose
				fastTranspose = nil
				defer func() { fastTranspose = saved }()
				packPanelTransposed(d, w, k, c0, nr)
			},
			"fast": func(d []float32) { packPanelTransposed(d, w, k, c0, nr) },
			"edge": func(d []float32) { packPanelTransposed(d, w, k, c0, nr-1) },
		}
		for name, pack := range packs {
			d := make([]float32, k*nr)
			pack(d)
			cols := nr
			if name == "edge" {
				cols = nr - 1
			}
			for q := 0; q < k; q++ {
				for c := 0; c < cols; c++ {
					if got, want := d[q*nr+c], w[(c0+c)*k+q]; got != want {
						t.Fatalf("%s, k = %d: step %d column %d is %g, want %g", name, k, q, c, got, want)
					}
				}
			}
		}
	}
}

// TestAddScaled: the fast path adds a·x to y as the plain loop does, for
// lengths around every step of the assembly (32, 8 and single values),
// and leaves y past len(x) alone.
func TestAddScaled(t *testing.T) {
	for _, n := range []int{0, 1, 7, 8, 9, 31, 32, 33, 40, 63, 64, 65, 256, 257} {
		x := make([]float32, n)
		y := make([]float32, n+3)
		for i := range x {
			x[i] = float32(i%13) - 6.5
		}
		for i := range y {
			y[i] = float32(i%5) * 0.25
		}
		want := append([]float32(nil), y...)
		for i := range x {
			want[i] += 1.75 * x[i]
		}
		AddScaled(y, 1.75, x)
		for i := range y {
			if diff := y[i] - want[i]; diff > 1e-6 || diff < -1e-6 {
				t.Fatalf("n=%d: y[%d] = %v, want %v", n, i, y[i], want[i])
			}
		}
		got := append([]float32(nil), want[:n]...)
		addScaledGo(got, 0, x)
		for i := range got {
			if got[i] != want[i] {
				t.Fatalf("n=%d: adding 0·x changed y[%d]", n, i)
			}
		}
	}
	defer func() {
		if recover() == nil {
			t.Error("AddScaled into a shorter y did not panic")
		}
	}()
	AddScaled(make([]float32, 2), 1, make([]float32, 3))
}

// TestAddScaledInt8: the fast path widens every int8, the extremes
// included, and adds a·x to y as the plain loop does, for lengths around
// every step of the assembly (32, 8 and the Go tail), leaving y past
// len(x) alone. The values are exact in float32, so both paths must agree
// to the bit.
func TestAddScaledInt8(t *testing.T) {
	for _, n := range []int{0, 1, 7, 8, 9, 31, 32, 33, 40, 63, 64, 65, 256, 257} {
		x := make([]int8, n)
		y := make([]float32, n+3)
		for i := range x {
			x[i] = int8(uint8(i*37 + 128)) // every byte value, -128 and 127 among them
		}
		for i := range y {
			y[i] = float32(i%5) * 0.25
		}
		want := append([]float32(nil), y...)
		for i := range x {
			want[i] += 1.75 * float32(x[i])
		}
		AddScaledInt8(y, 1.75, x)
		for i := range y {
			if y[i] != want[i] {
				t.Fatalf("n=%d: y[%d] = %v, want %v", n, i, y[i], want[i])
			}
		}
	}
	defer func() {
		if recover() == nil {
			t.Error("AddScaledInt8 into a shorter y did not panic")
		}
	}()
	AddScaledInt8(make([]float32, 2), 1, make([]int8, 3))
}

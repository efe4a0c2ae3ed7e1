//go:build amd64 && !purego

package linalg

import "golang.org/x/sys/cpu"

// fastKernel is the microKernel Linear and MatMul use: the AVX2/FMA
// assembly where the CPU has both (and the OS saves the YMM registers,
// which cpu.X86.HasAVX2 already accounts for), the portable one otherwise.
var fastKernel microKernel = kernelGo

// fastTranspose, when set, packs a whole panel of Linear's weights; see
// packPanelTransposed.
var fastTranspose func(d, w []float32, k, c0 int)

func init() {
	if cpu.X86.HasAVX2 && cpu.X86.HasFMA {
		fastKernel = kernelAVX2
		fastTranspose = transposePanelAVX2
		addScaled = func(y []float32, a float32, x []float32) {
			if len(x) > 0 {
				axpyAVX2(&y[0], &x[0], len(x), a)
			}
		}
		addScaledInt8 = func(y []float32, a float32, x []int8) {
			whole := len(x) / 8 * 8
			if whole > 0 {
				axpyInt8AVX2(&y[0], &x[0], whole, a)
			}
			addScaledInt8Go(y[whole:], a, x[whole:])
		}
	}
}

// axpyAVX2 adds a·x[i] to y[i] for i < n.
//
//go:noescape
func axpyAVX2(y, x *float32, n int, a float32)

// axpyInt8AVX2 adds a·x[i] to y[i] for i < n, n a multiple of 8.
//
//go:noescape
func axpyInt8AVX2(y *float32, x *int8, n int, a float32)

// kernelAVX2 checks the slices the assembly is about to read and write,
// so a bad shape panics in Go instead of touching memory it should not.
func kernelAVX2(kc int, a []float32, lda int, b, c []float32, ldc int, init []float32, ldi int) {
	_ = a[(mr-1)*lda+kc-1]
	_ = b[kc*nr-1]
	_ = c[(mr-1)*ldc+nr-1]
	var ip *float32
	if init != nil {
		_ = init[(mr-1)*ldi+nr-1]
		ip = &init[0]
	}
	kernel6x16AVX2(kc, &a[0], lda, &b[0], &c[0], ldc, ip, ldi)
}

// kernel6x16AVX2 is the microKernel contract on raw pointers, with kc >= 1.
//
//go:noescape
func kernel6x16AVX2(kc int, a *float32, lda int, b, c *float32, ldc int, init *float32, ldi int)

// transposePanelAVX2 does what packPanelTransposed does for a whole panel
// (nr rows of w from c0), eight by eight rows and steps at a time. It goes
// down k in chunks so that the panel lines it writes half of in the first
// pass are still in L1 for the second.
func transposePanelAVX2(d, w []float32, k, c0 int) {
	const chunk = 128
	d = d[:k*nr]
	w = w[c0*k : (c0+nr)*k]
	whole := k / 8 * 8
	for q0 := 0; q0 < whole; q0 += chunk {
		blocks := min(chunk, whole-q0) / 8
		for t := 0; t < nr; t += 8 {
			transpose8AVX2(&d[q0*nr+t], &w[t*k+q0], k, blocks)
		}
	}
	for q := whole; q < k; q++ {
		for t := range nr {
			d[q*nr+t] = w[t*k+q]
		}
	}
}

// transpose8AVX2 transposes blocks 8×8 blocks from src (row stride lds)
// into dst (row stride nr), going along src's rows and down dst.
//
//go:noescape
func transpose8AVX2(dst, src *float32, lds int, blocks int)

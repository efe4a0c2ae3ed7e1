//go:build amd64 && !purego

package linalg

import "golang.org/x/sys/cpu"

// fastKernel is the microKernel Linear and MatMul use: the AVX2/FMA
// assembly where the CPU has both (and the OS saves the YMM registers,
// which cpu.X86.HasAVX2 already accounts for), the portable one otherwise.
var fastKernel microKernel = kernelGo

func init() {
	if cpu.X86.HasAVX2 && cpu.X86.HasFMA {
		fastKernel = kernelAVX2
	}
}

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

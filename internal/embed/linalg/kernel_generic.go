//go:build !amd64 || purego

package linalg

// fastKernel is the microKernel Linear and MatMul use. Without the amd64
// assembly it is the portable one.
var fastKernel microKernel = kernelGo

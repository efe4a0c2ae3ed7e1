//go:build !amd64 || purego

package linalg

// fastKernel is the microKernel Linear and MatMul use. Without the amd64
// assembly it is the portable one.
var fastKernel microKernel = kernelGo

// fastTranspose is nil: packPanelTransposed's Go loop does every panel.
var fastTranspose func(d, w []float32, k, c0 int)

// Package linalg holds the dense float32 kernels the local embedders run
// on. Matrices are row-major slices; shapes are passed explicitly and are
// the caller's to get right (a short slice panics, as an index would).
package linalg

// Linear computes y = x·wᵀ + b, PyTorch's nn.Linear: x is rows×in, w is
// out×in (the layout safetensors files store), b has out values or is nil,
// and y, rows×out, is overwritten.
func Linear(y, x, w, b []float32, rows, in, out int) {
	for r := 0; r < rows; r++ {
		xr := x[r*in : (r+1)*in]
		yr := y[r*out : (r+1)*out]
		for o := 0; o < out; o++ {
			wo := w[o*in : (o+1)*in]
			var s float32
			for i, v := range xr {
				s += v * wo[i]
			}
			if b != nil {
				s += b[o]
			}
			yr[o] = s
		}
	}
}

// MatMul computes c = a·b: a is m×k, b is k×n, and c, m×n, is overwritten.
func MatMul(c, a, b []float32, m, k, n int) {
	for i := 0; i < m; i++ {
		ci := c[i*n : (i+1)*n]
		clear(ci)
		for p := 0; p < k; p++ {
			av := a[i*k+p]
			bp := b[p*n : (p+1)*n]
			for j, v := range bp {
				ci[j] += av * v
			}
		}
	}
}

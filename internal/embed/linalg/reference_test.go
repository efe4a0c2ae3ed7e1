package linalg

// linearRef is Linear written as its definition: one dot product per
// output. It is the yardstick the tests hold the fast paths to, and it
// stays readable on purpose.
func linearRef(y, x, w, b []float32, rows, in, out int) {
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

// matMulRef is MatMul written as its definition, for the same reason as
// linearRef.
func matMulRef(c, a, b []float32, m, k, n int) {
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

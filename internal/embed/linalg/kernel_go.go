package linalg

// kernelGo is the portable microKernel. It walks the mr×nr tile in 2×4
// blocks, few enough sums to stay in registers on every architecture Go
// targets, and streams its rows of A and the packed B panel (which sit in L1) once per
// block.
func kernelGo(kc int, a []float32, lda int, b, c []float32, ldc int, init []float32, ldi int) {
	_ = a[(mr-1)*lda+kc-1]
	b = b[:kc*nr]
	_ = c[(mr-1)*ldc+nr-1]
	if init != nil {
		_ = init[(mr-1)*ldi+nr-1]
	}
	for r := 0; r < mr; r += 2 {
		for j := 0; j < nr; j += 4 {
			var s00, s01, s02, s03, s10, s11, s12, s13 float32
			if init != nil {
				i0 := init[r*ldi+j : r*ldi+j+4]
				i1 := init[(r+1)*ldi+j : (r+1)*ldi+j+4]
				s00, s01, s02, s03 = i0[0], i0[1], i0[2], i0[3]
				s10, s11, s12, s13 = i1[0], i1[1], i1[2], i1[3]
			}
			a0s, a1s, bb := a[r*lda:][:kc], a[(r+1)*lda:][:kc], b[j:]
			for q, a0 := range a0s {
				a1 := a1s[q]
				bv := bb[q*nr : q*nr+4]
				b0, b1, b2, b3 := bv[0], bv[1], bv[2], bv[3]
				s00 += a0 * b0
				s01 += a0 * b1
				s02 += a0 * b2
				s03 += a0 * b3
				s10 += a1 * b0
				s11 += a1 * b1
				s12 += a1 * b2
				s13 += a1 * b3
			}
			c0 := c[r*ldc+j : r*ldc+j+4]
			c1 := c[(r+1)*ldc+j : (r+1)*ldc+j+4]
			c0[0], c0[1], c0[2], c0[3] = s00, s01, s02, s03
			c1[0], c1[1], c1[2], c1[3] = s10, s11, s12, s13
		}
	}
}

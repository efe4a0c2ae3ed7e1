package search

import (
	"math"
	"slices"
	"testing"
)

func TestVectorCodec(t *testing.T) {
	tests := []struct {
		name string
		vec  []float32
	}{
		{"one", []float32{1}},
		{"mixed signs", []float32{0.5, -0.25, 0, 3.75}},
		{"extremes", []float32{math.MaxFloat32, -math.SmallestNonzeroFloat32, float32(math.Inf(1))}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := encodeVector(tt.vec)
			if len(b) != 4*len(tt.vec) {
				t.Fatalf("%d bytes for %d floats", len(b), len(tt.vec))
			}
			got, err := decodeVector(b)
			if err != nil || !slices.Equal(got, tt.vec) {
				t.Fatalf("decode(encode(%v)) = %v, %v", tt.vec, got, err)
			}
		})
	}
	// Little-endian, as vectors stored by earlier versions were written.
	if b := encodeVector([]float32{1}); !slices.Equal(b, []byte{0, 0, 0x80, 0x3f}) {
		t.Errorf("1.0 encodes as % x; want 00 00 80 3f", b)
	}
	for _, bad := range [][]byte{nil, {}, {1, 2, 3}, {1, 2, 3, 4, 5}} {
		if v, err := decodeVector(bad); err == nil {
			t.Errorf("decodeVector(% x) = %v; want an error", bad, v)
		}
	}
}

func TestUnitLength(t *testing.T) {
	v := []float32{3, 4}
	if got := unitLength(v); !slices.Equal(got, []float32{0.6, 0.8}) || &got[0] != &v[0] {
		t.Errorf("unitLength([3 4]) = %v; want [0.6 0.8], scaled in place", got)
	}
	zero := []float32{0, 0}
	if got := unitLength(zero); !slices.Equal(got, []float32{0, 0}) {
		t.Errorf("unitLength of zeros = %v; want them unchanged", got)
	}
	// Within chromem-go's tolerance of 1 already: left exactly as it was,
	// so the bits stored and the bits served agree.
	near := []float32{1.0000003, 0}
	if got := unitLength(slices.Clone(near)); !slices.Equal(got, near) {
		t.Errorf("unitLength(%v) = %v; want it unchanged", near, got)
	}
}

package vectors

import (
	"math"
	"math/rand/v2"
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

// TestInt8VectorCodec: the int8 form keeps a vector's direction to half a
// step a dimension, whatever its length, reads back through the same
// decoder as the float32 form, and is never mistaken for it either way.
func TestInt8VectorCodec(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for _, vec := range [][]float32{
		{3, -4},
		{0, 0, 0},
		randomUnit(r, 768, 0.65),
		{1e-30, -2e-30, 5e-31},
		{float32(math.MaxFloat32) / 4, 1},
	} {
		b := encodeInt8Vector(vec)
		if len(b) != 8+len(vec) {
			t.Fatalf("%d bytes for %d dimensions", len(b), len(vec))
		}
		step, values, ok := int8Vector(b)
		if !ok || len(values) != len(vec) {
			t.Fatalf("int8Vector(encodeInt8Vector(%d dims)) = %v, %d values", len(vec), ok, len(values))
		}
		got, err := decodeVector(b)
		if err != nil || len(got) != len(vec) {
			t.Fatalf("decodeVector of the int8 form: %d values, %v", len(got), err)
		}
		norm, _ := int8Step(vec)
		for i, x := range vec {
			want := 0.0
			if norm != 0 {
				want = float64(x) / norm
			}
			if math.Abs(float64(got[i])-want) > float64(step)/2+1e-7 {
				t.Fatalf("dimension %d: %v read back, want %v within %v", i, got[i], want, step/2)
			}
		}
		if _, _, ok := int8Vector(encodeVector(vec)); ok {
			t.Fatalf("a float32 vector %v was read as the int8 form", vec[:min(3, len(vec))])
		}
	}
	// The magic is a NaN: a float32 vector whose first value is a NaN made
	// by arithmetic does not carry it.
	nan := float32(math.NaN())
	if _, _, ok := int8Vector(encodeVector([]float32{nan, nan})); ok {
		t.Fatal("a float32 vector starting with an arithmetic NaN was read as the int8 form")
	}
}

// unitLength scales v in place to length 1 and returns it; all zeros stay
// zeros.
func unitLength(v []float32) []float32 {
	var sq float64
	for _, x := range v {
		sq += float64(x) * float64(x)
	}
	if n := math.Sqrt(sq); n != 0 {
		for i := range v {
			v[i] = float32(float64(v[i]) / n)
		}
	}
	return v
}

// FuzzDecodeVector: whatever bytes the vectors table holds (a damaged
// database, one written by another program), decoding returns a vector or
// an error and never panics; a vector read in the int8 form has as many
// values as bytes after its header, and goes into a column index.
func FuzzDecodeVector(f *testing.F) {
	f.Add(encodeVector([]float32{0.5, -0.25}))
	f.Add(encodeInt8Vector([]float32{3, -4, 0}))
	f.Add([]byte{0x31, 0x51, 0x8a, 0x7f})
	f.Add([]byte{0x31, 0x51, 0x8a, 0x7f, 0, 0, 0x80, 0x3f})
	f.Fuzz(func(t *testing.T, b []byte) {
		v, err := decodeVector(b)
		step, values, ok := int8Vector(b)
		if ok {
			if err != nil || len(values) != len(b)-8 || len(v) != len(values) {
				t.Fatalf("int8 form of %d bytes: %d values, %d decoded, %v", len(b), len(values), len(v), err)
			}
			idx := newColumnIndex(0)
			if err := idx.addQuantized([]quantized{{id: 1, file: 1, step: step, values: values}}); err != nil && len(values) != 0 {
				t.Fatalf("a %d-value vector was refused: %v", len(values), err)
			}
			return
		}
		if err == nil && len(v)*4 != len(b) {
			t.Fatalf("%d bytes decoded as %d float32s", len(b), len(v))
		}
	})
}

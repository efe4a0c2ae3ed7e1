package vectors

import (
	"encoding/binary"
	"fmt"
	"math"
	"slices"
	"unsafe"
)

// A vector is stored in one of two forms, told apart by its first four
// bytes:
//
//   - float32: the values as little-endian float32s. Neural embedders'
//     vectors are stored so, exactly as the model gave them.
//   - int8: int8Magic, the step as a float32, then one int8 a dimension;
//     the unit vector is step·values (int8Step's quantisation). The
//     lexical embedder's vectors are stored so: the column index, which
//     serves every large vault of them, holds them at that precision
//     anyway, and a quarter of the bytes makes a 100k-note index 800 MB
//     smaller and its load four times shorter. chromem-go, serving the
//     small vaults, holds these values as float32.
//
// int8Magic is the bit pattern of a signalling NaN with a payload: no
// arithmetic produces it, so no float32 vector starts with it.
const int8Magic uint32 = 0x7f8a5131

// encodeVector stores a vector as little-endian float32s.
func encodeVector(v []float32) []byte {
	b := make([]byte, 4*len(v))
	for i, f := range v {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(f))
	}
	return b
}

// encodeInt8Vector stores v, scaled to unit length, in the int8 form.
func encodeInt8Vector(v []float32) []byte {
	values := make([]int8, len(v))
	step := int8Values(v, values)
	b := make([]byte, 8+len(v))
	binary.LittleEndian.PutUint32(b, int8Magic)
	binary.LittleEndian.PutUint32(b[4:], math.Float32bits(step))
	for i, q := range values {
		b[8+i] = byte(q)
	}
	return b
}

// int8Vector reads a vector stored in the int8 form: its step and values,
// the latter aliasing b. ok is false for the float32 form.
func int8Vector(b []byte) (step float32, values []int8, ok bool) {
	if len(b) < 8 || binary.LittleEndian.Uint32(b) != int8Magic {
		return 0, nil, false
	}
	step = math.Float32frombits(binary.LittleEndian.Uint32(b[4:]))
	if len(b) == 8 {
		return step, nil, true
	}
	return step, unsafe.Slice((*int8)(unsafe.Pointer(&b[8])), len(b)-8), true
}

func decodeVector(b []byte) ([]float32, error) {
	return decodeVectorInto(nil, b)
}

// decodeVectorInto decodes b into dst when it has room, else into a new
// slice, and returns the vector.
func decodeVectorInto(dst []float32, b []byte) ([]float32, error) {
	if step, values, ok := int8Vector(b); ok {
		v := slices.Grow(dst[:0], len(values))[:len(values)]
		for i, c := range values {
			v[i] = step * float32(c)
		}
		return v, nil
	}
	if len(b)%4 != 0 || len(b) == 0 {
		return nil, fmt.Errorf("stored vector has %d bytes, not a whole number of float32s", len(b))
	}
	v := slices.Grow(dst[:0], len(b)/4)[:len(b)/4]
	for i := range v {
		v[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
	}
	return v, nil
}

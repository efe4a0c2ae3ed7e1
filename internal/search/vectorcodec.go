package search

import (
	"encoding/binary"
	"fmt"
	"math"
	"slices"
)

// encodeVector stores a vector as little-endian float32s.
func encodeVector(v []float32) []byte {
	b := make([]byte, 4*len(v))
	for i, f := range v {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(f))
	}
	return b
}

// unitLength scales v in place to length 1, unless it is within
// chromem-go's tolerance of it already (or all zeros), and returns it.
func unitLength(v []float32) []float32 {
	var sq float64
	for _, x := range v {
		sq += float64(x) * float64(x)
	}
	n := math.Sqrt(sq)
	if n == 0 || math.Abs(n-1) < 1e-6 {
		return v
	}
	for i := range v {
		v[i] = float32(float64(v[i]) / n)
	}
	return v
}

func decodeVector(b []byte) ([]float32, error) {
	return decodeVectorInto(nil, b)
}

// decodeVectorInto decodes b into dst when it has room, else into a new
// slice, and returns the vector.
func decodeVectorInto(dst []float32, b []byte) ([]float32, error) {
	if len(b)%4 != 0 || len(b) == 0 {
		return nil, fmt.Errorf("stored vector has %d bytes, not a whole number of float32s", len(b))
	}
	v := slices.Grow(dst[:0], len(b)/4)[:len(b)/4]
	for i := range v {
		v[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
	}
	return v, nil
}

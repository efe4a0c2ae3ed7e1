package bert

import "math"

// activations maps config.json's hidden_act to the function applied, in
// place, to the intermediate layer.
var activations = map[string]func([]float32){
	"gelu":              geluErf,
	"gelu_new":          geluTanh,
	"gelu_pytorch_tanh": geluTanh,
	"relu":              relu,
}

// geluErf is GELU as defined, x·Φ(x) = x/2·(1 + erf(x/√2)).
func geluErf(x []float32) {
	for i, v := range x {
		f := float64(v)
		x[i] = float32(0.5 * f * (1 + math.Erf(f*(1/math.Sqrt2))))
	}
}

// geluTanh is GELU's tanh approximation, x/2·(1 + tanh(√(2/π)·(x + 0.044715x³))).
func geluTanh(x []float32) {
	c := math.Sqrt(2 / math.Pi)
	for i, v := range x {
		f := float64(v)
		x[i] = float32(0.5 * f * (1 + math.Tanh(c*(f+0.044715*f*f*f))))
	}
}

func relu(x []float32) {
	for i, v := range x {
		x[i] = max(v, 0)
	}
}

// expf is e^x for float32, accurate to a few parts in 10⁸: x = n·ln2 + r
// with |r| ≤ ln2/2, e^r from its Taylor series to r⁷ (truncation below
// 6e-9), and 2^n put straight into the exponent bits. It is several times
// quicker than math.Exp, which matters because softmax calls it for every
// pair of tokens in every head and layer.
func expf(x float32) float32 {
	switch {
	case x < -104: // below the smallest float32 subnormal
		return 0
	case x > 88.8: // above the largest float32
		return float32(math.Inf(1))
	case x != x:
		return x
	}
	f := float64(x)
	n := math.Floor(f*math.Log2E + 0.5)
	r := f - n*math.Ln2
	p := 1 + r*(1+r*(1.0/2+r*(1.0/6+r*(1.0/24+r*(1.0/120+r*(1.0/720+r*(1.0/5040)))))))
	return float32(p * math.Float64frombits(uint64(int64(n)+1023)<<52))
}

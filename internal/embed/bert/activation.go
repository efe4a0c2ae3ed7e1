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

// GELU with erf is x·Φ(x), Φ the standard normal distribution function.
// Calling math.Erf for every element costs tens of nanoseconds, as much as
// a large share of the matrix products, so Φ is read from a table of its
// values and slopes (Φ' is the normal density φ) at steps of 1/64 on
// [-8, 8], with cubic Hermite interpolation between knots. The
// interpolation error is below h⁴/384·max|Φ⁽⁴⁾| ≈ 2e-10, far under float32
// resolution. Outside the table Φ is 0 or 1 to within 1e-15.
const (
	phiSteps = 64 // knots per unit
	phiRange = 8
)

// phiTable holds, per knot, Φ and φ·h (the slope scaled to one step).
var phiTable = func() [][2]float64 {
	t := make([][2]float64, 2*phiRange*phiSteps+2)
	for i := range t {
		x := -phiRange + float64(i)/phiSteps
		t[i][0] = 0.5 * math.Erfc(-x/math.Sqrt2)
		t[i][1] = math.Exp(-x*x/2) / math.Sqrt(2*math.Pi) / phiSteps
	}
	return t
}()

// geluErf is GELU as defined, x·Φ(x) = x/2·(1 + erf(x/√2)).
func geluErf(x []float32) {
	for i, v := range x {
		f := float64(v)
		switch {
		case f >= phiRange:
			continue // Φ = 1
		case !(f > -phiRange): // also NaN
			x[i] = v * 0
			continue
		}
		t := (f + phiRange) * phiSteps
		k := int(t)
		u := t - float64(k)
		a, b := phiTable[k], phiTable[k+1]
		u2 := u * u
		u3 := u2 * u
		phi := (2*u3-3*u2+1)*a[0] + (u3-2*u2+u)*a[1] + (3*u2-2*u3)*b[0] + (u3-u2)*b[1]
		x[i] = float32(f * phi)
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

// exp2Table holds 2^(j/64) for j in [0, 64).
var exp2Table = func() (t [64]float64) {
	for j := range t {
		t[j] = math.Exp2(float64(j) / 64)
	}
	return t
}()

// expf is e^x for float32, accurate to a few parts in 10⁸, several times
// quicker than math.Exp (softmax calls it for every pair of tokens in
// every head and layer). With x = (64m + j)·ln2/64 + r, |r| ≤ ln2/128,
// e^x = 2^m · 2^(j/64) · e^r, the middle factor from a table and e^r from
// its Taylor series to r³ (truncation below 4e-11).
func expf(x float32) float32 {
	switch {
	case x < -104: // below the smallest float32 subnormal
		return 0
	case x > 88.8: // above the largest float32
		return float32(math.Inf(1))
	case x != x:
		return x
	}
	const toSteps = 64 / math.Ln2
	f := float64(x)
	// f·toSteps lies in (-9600, 8200); the offset keeps the conversion's
	// truncation a floor.
	k := int(f*toSteps+(1<<14)+0.5) - 1<<14
	r := f - float64(k)*(math.Ln2/64)
	p := 1 + r*(1+r*(0.5+r*(1.0/6)))
	scale := math.Float64frombits(uint64(k>>6+1023) << 52)
	return float32(p * exp2Table[k&63] * scale)
}

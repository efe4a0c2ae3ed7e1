package bert

import (
	"math"
	"testing"
)

func TestExpfAccuracy(t *testing.T) {
	worst := 0.0
	for x := -103.0; x <= 88.7; x += 0.0137 {
		got := float64(expf(float32(x)))
		want := math.Exp(float64(float32(x)))
		if want < 1e-37 { // float32 subnormals carry few digits
			if math.Abs(got-want) > 1e-44 {
				t.Fatalf("expf(%g) = %g, want %g", x, got, want)
			}
			continue
		}
		worst = max(worst, math.Abs(got-want)/want)
	}
	if worst > 2e-7 {
		t.Errorf("expf relative error %g, want at most 2e-7", worst)
	}
	for _, c := range []struct{ x, want float32 }{
		{0, 1}, {-200, 0}, {float32(math.Inf(-1)), 0}, {100, float32(math.Inf(1))},
	} {
		if got := expf(c.x); got != c.want {
			t.Errorf("expf(%g) = %g, want %g", c.x, got, c.want)
		}
	}
	if got := expf(float32(math.NaN())); got == got {
		t.Errorf("expf(NaN) = %g", got)
	}
}

func TestSoftmaxScaled(t *testing.T) {
	row := []float32{1, 2, 3, -1e30}
	softmaxScaled(row, 0.5)
	z := math.Exp(0.5) + math.Exp(1) + math.Exp(1.5)
	want := []float64{math.Exp(0.5) / z, math.Exp(1) / z, math.Exp(1.5) / z, 0}
	for i := range row {
		if math.Abs(float64(row[i])-want[i]) > 1e-7 {
			t.Errorf("softmax[%d] = %g, want %g", i, row[i], want[i])
		}
	}
}

func TestActivations(t *testing.T) {
	// Values from the definitions: GELU(1) = Φ(1) = 0.841344746...,
	// the tanh form gives 0.841191990..., GELU(-3) = -3·Φ(-3).
	cases := []struct {
		act  string
		x    float32
		want float64
	}{
		{"gelu", 1, 0.8413447460685429},
		{"gelu", -3, -3 * 0.0013498980316301},
		{"gelu", 0, 0},
		{"gelu_new", 1, 0.8411919906082768},
		{"gelu_pytorch_tanh", 1, 0.8411919906082768},
		{"relu", -2, 0},
		{"relu", 2, 2},
	}
	for _, c := range cases {
		v := []float32{c.x}
		activations[c.act](v)
		if math.Abs(float64(v[0])-c.want) > 1e-7 {
			t.Errorf("%s(%g) = %.9g, want %.9g", c.act, c.x, v[0], c.want)
		}
	}
}

// TestGeluErfAgainstMathErf compares the tabulated GELU with the formula
// evaluated by math.Erf, densely over the range that matters and beyond.
func TestGeluErfAgainstMathErf(t *testing.T) {
	var xs []float32
	for x := -12.0; x <= 12; x += 0.00071 {
		xs = append(xs, float32(x))
	}
	got := append([]float32(nil), xs...)
	geluErf(got)
	for i, v := range xs {
		f := float64(v)
		want := 0.5 * f * (1 + math.Erf(f/math.Sqrt2))
		// One float32 rounding of the result, plus the table's 1e-9.
		if d := math.Abs(float64(got[i]) - want); d > 1e-9+math.Abs(want)*6e-8 {
			t.Fatalf("gelu(%g) = %.10g, want %.10g (off by %g)", v, got[i], want, d)
		}
	}
}

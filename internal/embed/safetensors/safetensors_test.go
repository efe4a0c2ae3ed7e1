package safetensors

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// tensor is one entry for writeFile: its dtype, shape and raw bytes.
type tensor struct {
	dtype DType
	shape []int
	data  []byte
}

// encode builds a safetensors file image: tensors are laid out in the
// order given, the header padded with spaces to a multiple of 8.
func encode(t *testing.T, names []string, tensors map[string]tensor, meta map[string]string) []byte {
	t.Helper()
	header := map[string]any{}
	if meta != nil {
		header["__metadata__"] = meta
	}
	var data []byte
	for _, n := range names {
		tt := tensors[n]
		shape := tt.shape
		if shape == nil {
			shape = []int{}
		}
		header[n] = map[string]any{
			"dtype":        tt.dtype,
			"shape":        shape,
			"data_offsets": []int{len(data), len(data) + len(tt.data)},
		}
		data = append(data, tt.data...)
	}
	js, err := json.Marshal(header)
	if err != nil {
		t.Fatal(err)
	}
	for len(js)%8 != 0 {
		js = append(js, ' ')
	}
	out := binary.LittleEndian.AppendUint64(nil, uint64(len(js)))
	out = append(out, js...)
	return append(out, data...)
}

func writeFile(t *testing.T, image []byte) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "model.safetensors")
	if err := os.WriteFile(p, image, 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

func f32bytes(v ...float32) []byte {
	var b []byte
	for _, x := range v {
		b = binary.LittleEndian.AppendUint32(b, math.Float32bits(x))
	}
	return b
}

func u16bytes(v ...uint16) []byte {
	var b []byte
	for _, x := range v {
		b = binary.LittleEndian.AppendUint16(b, x)
	}
	return b
}

func TestReadTensors(t *testing.T) {
	tensors := map[string]tensor{
		"a.f32":  {F32, []int{2, 3}, f32bytes(1, -2, 3.5, 0, 1e-30, -7)},
		"b.f16":  {F16, []int{4}, u16bytes(0x3c00, 0xc000, 0x0001, 0x7c00)},
		"c.bf16": {BF16, []int{2}, u16bytes(0x3f80, 0xc040)},
		"d.i64":  {I64, []int{3}, binary.LittleEndian.AppendUint64(binary.LittleEndian.AppendUint64(binary.LittleEndian.AppendUint64(nil, 5), math.MaxUint64), 1<<40)},
		"e.i32":  {I32, []int{2}, binary.LittleEndian.AppendUint32(binary.LittleEndian.AppendUint32(nil, 7), math.MaxUint32)},
		"f.f64":  {F64, []int{1}, binary.LittleEndian.AppendUint64(nil, math.Float64bits(0.25))},
		"g.none": {F32, []int{0, 5}, nil},
	}
	names := []string{"a.f32", "b.f16", "c.bf16", "d.i64", "e.i32", "f.f64", "g.none"}
	f, err := Open(writeFile(t, encode(t, names, tensors, map[string]string{"format": "pt"})))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()

	if got := strings.Join(f.Names(), ","); got != strings.Join(names, ",") {
		t.Errorf("Names = %s", got)
	}
	if f.Metadata()["format"] != "pt" {
		t.Errorf("Metadata = %v", f.Metadata())
	}
	info, ok := f.Info("a.f32")
	if !ok || info.DType != F32 || info.Elements() != 6 || info.Length != 24 {
		t.Errorf("Info(a.f32) = %+v, %v", info, ok)
	}

	floats := []struct {
		name  string
		want  []float32
		shape []int
	}{
		{"a.f32", []float32{1, -2, 3.5, 0, 1e-30, -7}, []int{2, 3}},
		{"b.f16", []float32{1, -2, float32(math.Ldexp(1, -24)), float32(math.Inf(1))}, []int{4}},
		{"c.bf16", []float32{1, -3}, []int{2}},
		{"f.f64", []float32{0.25}, []int{1}},
		{"g.none", []float32{}, []int{0, 5}},
	}
	for _, c := range floats {
		got, shape, err := f.Float32(c.name)
		if err != nil {
			t.Errorf("Float32(%s): %v", c.name, err)
			continue
		}
		if !equalInts(shape, c.shape) {
			t.Errorf("Float32(%s) shape = %v, want %v", c.name, shape, c.shape)
		}
		if len(got) != len(c.want) {
			t.Errorf("Float32(%s) = %v, want %v", c.name, got, c.want)
			continue
		}
		for i := range got {
			if got[i] != c.want[i] {
				t.Errorf("Float32(%s)[%d] = %v, want %v", c.name, i, got[i], c.want[i])
			}
		}
	}

	ints, _, err := f.Int64s("d.i64")
	if err != nil || ints[0] != 5 || ints[1] != -1 || ints[2] != 1<<40 {
		t.Errorf("Int64s(d.i64) = %v, %v", ints, err)
	}
	ints, _, err = f.Int64s("e.i32")
	if err != nil || ints[0] != 7 || ints[1] != -1 {
		t.Errorf("Int64s(e.i32) = %v, %v", ints, err)
	}

	if _, _, err := f.Float32("missing"); !errors.Is(err, ErrNotFound) || !strings.Contains(err.Error(), "missing") {
		t.Errorf("Float32(missing) error = %v, want ErrNotFound naming the tensor", err)
	}
	if _, _, err := f.Float32("d.i64"); err == nil {
		t.Error("Float32 of an integer tensor succeeded")
	}
	if _, _, err := f.Int64s("a.f32"); err == nil {
		t.Error("Int64s of a float tensor succeeded")
	}
}

// TestLargeTensorChunks reads a tensor bigger than the conversion buffer,
// so that chunk boundaries are crossed.
func TestLargeTensorChunks(t *testing.T) {
	n := chunkSize/2 + 1001 // F16 elements: more than one chunk
	raw := make([]uint16, n)
	for i := range raw {
		raw[i] = uint16(i * 7)
	}
	f, err := Open(writeFile(t, encode(t, []string{"x"}, map[string]tensor{"x": {F16, []int{n}, u16bytes(raw...)}}, nil)))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	got, _, err := f.Float32("x")
	if err != nil {
		t.Fatal(err)
	}
	for i, h := range raw {
		want := HalfToFloat32(h)
		if math.Float32bits(got[i]) != math.Float32bits(want) {
			t.Fatalf("element %d = %v, want %v", i, got[i], want)
		}
	}
}

// halfByDefinition evaluates a binary16 bit pattern from the standard's
// formula in float64, independently of HalfToFloat32's bit manipulation.
func halfByDefinition(h uint16) float64 {
	sign := 1.0
	if h&0x8000 != 0 {
		sign = -1
	}
	exp := int(h>>10) & 0x1f
	mant := float64(h & 0x3ff)
	switch {
	case exp == 0x1f && mant == 0:
		return math.Inf(int(sign))
	case exp == 0x1f:
		return math.NaN()
	case exp == 0:
		return sign * math.Ldexp(mant, -24)
	}
	return sign * math.Ldexp(1024+mant, exp-25)
}

func TestHalfToFloat32AllValues(t *testing.T) {
	for i := 0; i < 1<<16; i++ {
		h := uint16(i)
		got := HalfToFloat32(h)
		want := halfByDefinition(h)
		if math.IsNaN(want) {
			if !math.IsNaN(float64(got)) {
				t.Fatalf("%#04x: got %v, want NaN", h, got)
			}
			continue
		}
		if float64(got) != want || math.Signbit(float64(got)) != math.Signbit(want) {
			t.Fatalf("%#04x: got %v, want %v", h, got, want)
		}
	}
}

func TestBFloat16(t *testing.T) {
	cases := map[uint16]float32{0x3f80: 1, 0xbf80: -1, 0x4049: 3.140625, 0x0000: 0, 0x7f80: float32(math.Inf(1))}
	for b, want := range cases {
		if got := BFloat16ToFloat32(b); got != want {
			t.Errorf("BFloat16ToFloat32(%#04x) = %v, want %v", b, got, want)
		}
	}
}

func TestRejectsBadFiles(t *testing.T) {
	good := encode(t, []string{"x"}, map[string]tensor{"x": {F32, []int{2}, f32bytes(1, 2)}}, nil)
	header := func(js string, data int) []byte {
		b := binary.LittleEndian.AppendUint64(nil, uint64(len(js)))
		b = append(b, js...)
		return append(b, make([]byte, data)...)
	}
	cases := []struct {
		name  string
		image []byte
		want  string
	}{
		{"too short", []byte{1, 2, 3}, "too short"},
		{"huge header length", binary.LittleEndian.AppendUint64(nil, 1<<40), "limit"},
		{"header past end", append(binary.LittleEndian.AppendUint64(nil, 64), "{}"...), "past the end"},
		{"not json", header("nope", 0), "not a JSON object"},
		{"truncated data", good[:len(good)-1], "outside"},
		{"unknown dtype", header(`{"x":{"dtype":"F8_E4M3","shape":[1],"data_offsets":[0,1]}}`, 1), "unsupported dtype"},
		{"shape mismatch", header(`{"x":{"dtype":"F32","shape":[3],"data_offsets":[0,8]}}`, 8), "offsets give"},
		{"reversed offsets", header(`{"x":{"dtype":"F32","shape":[0],"data_offsets":[8,0]}}`, 8), "outside"},
		{"overflowing shape", header(`{"x":{"dtype":"F32","shape":[4294967296,4294967296,4],"data_offsets":[0,8]}}`, 8), "needs more"},
		{"negative dim", header(`{"x":{"dtype":"F32","shape":[-1],"data_offsets":[0,4]}}`, 4), "tensor \"x\""},
		{"overlap", header(`{"x":{"dtype":"F32","shape":[2],"data_offsets":[0,8]},"y":{"dtype":"F32","shape":[1],"data_offsets":[4,8]}}`, 8), "overlap"},
		{"bad metadata", header(`{"__metadata__":{"a":1}}`, 0), "__metadata__"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := writeFile(t, c.image)
			f, err := Open(p)
			if err == nil {
				f.Close()
				t.Fatal("Open succeeded")
			}
			if !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), p) {
				t.Errorf("error %q should contain %q and the path", err, c.want)
			}
		})
	}
}

func FuzzParseHeader(f *testing.F) {
	f.Add([]byte(`{"x":{"dtype":"F32","shape":[2],"data_offsets":[0,8]}}`), int64(8))
	f.Add([]byte(`{"__metadata__":{"format":"pt"},"a":{"dtype":"F16","shape":[2,2],"data_offsets":[0,8]},"b":{"dtype":"BF16","shape":[],"data_offsets":[8,10]}}`), int64(10))
	f.Add([]byte(`{"x":{"dtype":"I64","shape":[0,18446744073709551615],"data_offsets":[0,0]}}`), int64(0))
	f.Fuzz(func(t *testing.T, raw []byte, dataLen int64) {
		if dataLen < 0 {
			return
		}
		h, err := ParseHeader(raw, dataLen, 100)
		if err != nil {
			return
		}
		for name, ti := range h.Tensors {
			if ti.Offset < 100 || ti.Offset+ti.Length > 100+dataLen {
				t.Fatalf("%s: range [%d,+%d) escapes the data section", name, ti.Offset, ti.Length)
			}
			if int64(ti.Elements()*ti.DType.Size()) != ti.Length {
				t.Fatalf("%s: %d elements of %s but %d bytes", name, ti.Elements(), ti.DType, ti.Length)
			}
		}
	})
}

func equalInts(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// Package safetensors reads tensors from files in the safetensors format:
// an 8-byte little-endian header length, a JSON header mapping each tensor
// name to its dtype, shape and byte range, then the raw little-endian data.
//
// Tensors are read one at a time with ReadAt, so opening a large file costs
// only its header, and reading a tensor costs that tensor's float32 copy
// plus a small fixed buffer.
package safetensors

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"math/bits"
	"os"
	"slices"
	"sort"
)

// MaxHeaderLen bounds the JSON header. Real headers are a few hundred
// bytes per tensor; anything past this is a corrupt or hostile file.
const MaxHeaderLen = 100 << 20

// DType names an element type as the format spells it.
type DType string

// The element types this package knows. Float32 converts the float types;
// Int64s converts the integer types.
const (
	F64  DType = "F64"
	F32  DType = "F32"
	F16  DType = "F16"
	BF16 DType = "BF16"
	I64  DType = "I64"
	I32  DType = "I32"
	I16  DType = "I16"
	I8   DType = "I8"
	U8   DType = "U8"
	BOOL DType = "BOOL"
)

// Size is the width of one element in bytes, or 0 for a dtype this package
// does not know.
func (d DType) Size() int {
	switch d {
	case F64, I64:
		return 8
	case F32, I32:
		return 4
	case F16, BF16, I16:
		return 2
	case I8, U8, BOOL:
		return 1
	}
	return 0
}

func (d DType) isFloat() bool { return d == F64 || d == F32 || d == F16 || d == BF16 }
func (d DType) isInt() bool   { return d == I64 || d == I32 || d == I16 || d == I8 || d == U8 }

// maxDim bounds a single dimension, so that a shape with a zero elsewhere
// cannot carry absurd sizes to callers.
const maxDim = 1 << 40

// ErrNotFound is returned (wrapped) when a file has no tensor of the
// requested name.
var ErrNotFound = errors.New("no such tensor")

// TensorInfo describes one tensor as its header entry does, after
// validation: Offset and Length are absolute positions in the file.
type TensorInfo struct {
	Name   string
	DType  DType
	Shape  []int
	Offset int64 // first byte of the tensor's data in the file
	Length int64 // bytes of data: product of Shape times DType.Size()
}

// Elements is the number of values in the tensor.
func (t TensorInfo) Elements() int {
	n := 1
	for _, d := range t.Shape {
		n *= d
	}
	return n
}

// Header is a parsed and validated header.
type Header struct {
	Tensors  map[string]TensorInfo
	Metadata map[string]string
	// DataStart is the file offset at which the data section begins.
	DataStart int64
}

// File is an open safetensors file. Its methods are safe for concurrent
// use; Close must not race with them.
type File struct {
	path   string
	f      *os.File
	header Header
}

// Open reads and validates the header of the safetensors file at path.
func Open(path string) (*File, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("open safetensors: %w", err)
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("open safetensors: %w", err)
	}
	h, err := readHeader(f, st.Size())
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("safetensors %s: %w", path, err)
	}
	return &File{path: path, f: f, header: h}, nil
}

// Close releases the file.
func (f *File) Close() error { return f.f.Close() }

// Path is the file's path as given to Open.
func (f *File) Path() string { return f.path }

// Metadata is the header's optional __metadata__ map (nil if absent).
func (f *File) Metadata() map[string]string { return f.header.Metadata }

// Names lists the tensor names in sorted order.
func (f *File) Names() []string {
	names := make([]string, 0, len(f.header.Tensors))
	for n := range f.header.Tensors {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// Has reports whether the file holds a tensor called name.
func (f *File) Has(name string) bool {
	_, ok := f.header.Tensors[name]
	return ok
}

// Info describes the tensor called name.
func (f *File) Info(name string) (TensorInfo, bool) {
	t, ok := f.header.Tensors[name]
	if ok {
		t.Shape = slices.Clone(t.Shape)
	}
	return t, ok
}

// chunkSize bounds the raw-byte buffer a conversion reads through.
const chunkSize = 1 << 20

// Float32 reads a float tensor (F32, F16, BF16 or F64) and converts it to
// float32, returning the values in row-major order and the shape.
func (f *File) Float32(name string) ([]float32, []int, error) {
	t, err := f.lookup(name)
	if err != nil {
		return nil, nil, err
	}
	if !t.DType.isFloat() {
		return nil, nil, fmt.Errorf("safetensors %s: tensor %q has dtype %s, want a float type", f.path, name, t.DType)
	}
	out := make([]float32, t.Elements())
	size := t.DType.Size()
	err = f.readChunks(t, func(i int, b []byte) {
		dst := out[i : i+len(b)/size]
		switch t.DType {
		case F32:
			for j := range dst {
				dst[j] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*j:]))
			}
		case F16:
			for j := range dst {
				dst[j] = HalfToFloat32(binary.LittleEndian.Uint16(b[2*j:]))
			}
		case BF16:
			for j := range dst {
				dst[j] = BFloat16ToFloat32(binary.LittleEndian.Uint16(b[2*j:]))
			}
		case F64:
			for j := range dst {
				dst[j] = float32(math.Float64frombits(binary.LittleEndian.Uint64(b[8*j:])))
			}
		}
	})
	if err != nil {
		return nil, nil, err
	}
	return out, slices.Clone(t.Shape), nil
}

// Int64s reads an integer tensor (I64, I32, I16, I8 or U8) widened to
// int64, returning the values and the shape.
func (f *File) Int64s(name string) ([]int64, []int, error) {
	t, err := f.lookup(name)
	if err != nil {
		return nil, nil, err
	}
	if !t.DType.isInt() {
		return nil, nil, fmt.Errorf("safetensors %s: tensor %q has dtype %s, want an integer type", f.path, name, t.DType)
	}
	out := make([]int64, t.Elements())
	size := t.DType.Size()
	err = f.readChunks(t, func(i int, b []byte) {
		dst := out[i : i+len(b)/size]
		switch t.DType {
		case I64:
			for j := range dst {
				dst[j] = int64(binary.LittleEndian.Uint64(b[8*j:]))
			}
		case I32:
			for j := range dst {
				dst[j] = int64(int32(binary.LittleEndian.Uint32(b[4*j:])))
			}
		case I16:
			for j := range dst {
				dst[j] = int64(int16(binary.LittleEndian.Uint16(b[2*j:])))
			}
		case I8:
			for j := range dst {
				dst[j] = int64(int8(b[j]))
			}
		case U8:
			for j := range dst {
				dst[j] = int64(b[j])
			}
		}
	})
	if err != nil {
		return nil, nil, err
	}
	return out, slices.Clone(t.Shape), nil
}

func (f *File) lookup(name string) (TensorInfo, error) {
	t, ok := f.header.Tensors[name]
	if !ok {
		return TensorInfo{}, fmt.Errorf("safetensors %s: tensor %q: %w", f.path, name, ErrNotFound)
	}
	return t, nil
}

// readChunks reads t's data through a bounded buffer, calling convert with
// the index of the first element in each chunk and the chunk's bytes (a
// whole number of elements).
func (f *File) readChunks(t TensorInfo, convert func(first int, b []byte)) error {
	size := int64(t.DType.Size())
	step := int64(chunkSize) / size * size
	buf := make([]byte, min(step, t.Length))
	for done := int64(0); done < t.Length; {
		n := min(step, t.Length-done)
		b := buf[:n]
		if _, err := f.f.ReadAt(b, t.Offset+done); err != nil {
			if errors.Is(err, io.EOF) {
				err = io.ErrUnexpectedEOF
			}
			return fmt.Errorf("safetensors %s: read tensor %q: %w", f.path, t.Name, err)
		}
		convert(int(done/size), b)
		done += n
	}
	return nil
}

// readHeader reads and validates the header of a file of the given size.
func readHeader(r io.ReaderAt, fileSize int64) (Header, error) {
	var lenBuf [8]byte
	if fileSize < 8 {
		return Header{}, fmt.Errorf("file is %d bytes, too short for a header", fileSize)
	}
	if _, err := r.ReadAt(lenBuf[:], 0); err != nil {
		return Header{}, fmt.Errorf("read header length: %w", err)
	}
	n := binary.LittleEndian.Uint64(lenBuf[:])
	if n > MaxHeaderLen {
		return Header{}, fmt.Errorf("header length %d exceeds the %d byte limit", n, MaxHeaderLen)
	}
	if n > uint64(fileSize-8) {
		return Header{}, fmt.Errorf("header length %d runs past the end of the %d byte file", n, fileSize)
	}
	raw := make([]byte, n)
	if _, err := r.ReadAt(raw, 8); err != nil {
		return Header{}, fmt.Errorf("read header: %w", err)
	}
	return ParseHeader(raw, fileSize-8-int64(n), 8+int64(n))
}

// headerEntry is one tensor's entry as the JSON spells it.
type headerEntry struct {
	DType       DType     `json:"dtype"`
	Shape       []uint64  `json:"shape"`
	DataOffsets [2]uint64 `json:"data_offsets"`
}

// ParseHeader parses the JSON header raw for a data section of dataLen
// bytes starting at file offset dataStart, and checks every entry: a known
// dtype, offsets inside the data section, a byte length that matches the
// shape, and no two tensors overlapping.
func ParseHeader(raw []byte, dataLen, dataStart int64) (Header, error) {
	raw = bytes.TrimRight(raw, " ") // the format pads the header with spaces for alignment
	if len(raw) == 0 || raw[0] != '{' {
		return Header{}, errors.New("header is not a JSON object")
	}
	var entries map[string]json.RawMessage
	if err := json.Unmarshal(raw, &entries); err != nil {
		return Header{}, fmt.Errorf("parse header: %w", err)
	}
	h := Header{Tensors: make(map[string]TensorInfo, len(entries)), DataStart: dataStart}
	type span struct {
		begin, end uint64
		name       string
	}
	var spans []span
	for name, msg := range entries {
		if name == "__metadata__" {
			if err := json.Unmarshal(msg, &h.Metadata); err != nil {
				return Header{}, fmt.Errorf("parse __metadata__: %w", err)
			}
			continue
		}
		var e headerEntry
		if err := json.Unmarshal(msg, &e); err != nil {
			return Header{}, fmt.Errorf("tensor %q: %w", name, err)
		}
		t, err := checkEntry(name, e, dataLen, dataStart)
		if err != nil {
			return Header{}, err
		}
		h.Tensors[name] = t
		if e.DataOffsets[1] > e.DataOffsets[0] {
			spans = append(spans, span{e.DataOffsets[0], e.DataOffsets[1], name})
		}
	}
	sort.Slice(spans, func(i, j int) bool { return spans[i].begin < spans[j].begin })
	for i := 1; i < len(spans); i++ {
		if spans[i].begin < spans[i-1].end {
			return Header{}, fmt.Errorf("tensors %q and %q overlap", spans[i-1].name, spans[i].name)
		}
	}
	return h, nil
}

func checkEntry(name string, e headerEntry, dataLen, dataStart int64) (TensorInfo, error) {
	size := e.DType.Size()
	if size == 0 {
		return TensorInfo{}, fmt.Errorf("tensor %q: unsupported dtype %q", name, e.DType)
	}
	begin, end := e.DataOffsets[0], e.DataOffsets[1]
	if begin > end || end > uint64(dataLen) {
		return TensorInfo{}, fmt.Errorf("tensor %q: data offsets [%d, %d] outside the %d byte data section", name, begin, end, dataLen)
	}
	// The product of the shape, times the element size, must equal the
	// byte length. Each partial product is checked against the length
	// before the next multiplication, so none can overflow.
	shape := make([]int, len(e.Shape))
	want := end - begin
	bytesTotal := uint64(size)
	for i, d := range e.Shape {
		if d > maxDim {
			return TensorInfo{}, fmt.Errorf("tensor %q: dimension %d too large", name, d)
		}
		hi, lo := bits.Mul64(bytesTotal, d)
		if hi != 0 || lo > want {
			return TensorInfo{}, fmt.Errorf("tensor %q: shape %v needs more than the %d bytes its offsets give", name, e.Shape, want)
		}
		bytesTotal = lo
		shape[i] = int(d)
	}
	if bytesTotal != want {
		return TensorInfo{}, fmt.Errorf("tensor %q: shape %v of %s is %d bytes but its offsets give %d", name, e.Shape, e.DType, bytesTotal, want)
	}
	return TensorInfo{
		Name:   name,
		DType:  e.DType,
		Shape:  shape,
		Offset: dataStart + int64(begin),
		Length: int64(want),
	}, nil
}

// HalfToFloat32 converts an IEEE 754 binary16 value to float32 exactly,
// including subnormals, infinities and NaNs (whose payload is kept).
func HalfToFloat32(h uint16) float32 {
	sign := uint32(h>>15) << 31
	exp := uint32(h>>10) & 0x1f
	mant := uint32(h) & 0x3ff
	switch {
	case exp == 0x1f: // infinity or NaN
		return math.Float32frombits(sign | 0x7f800000 | mant<<13)
	case exp != 0: // normal: rebias 15 -> 127
		return math.Float32frombits(sign | (exp+112)<<23 | mant<<13)
	case mant == 0: // signed zero
		return math.Float32frombits(sign)
	}
	// Subnormal: mant × 2^-24, which is a normal float32. Shift the
	// mantissa up until its leading one reaches the implicit bit.
	e := uint32(113) // biased exponent of 2^-14
	for mant&0x400 == 0 {
		mant <<= 1
		e--
	}
	return math.Float32frombits(sign | e<<23 | (mant&0x3ff)<<13)
}

// BFloat16ToFloat32 converts a bfloat16 value, the top half of a float32,
// to float32 exactly.
func BFloat16ToFloat32(b uint16) float32 {
	return math.Float32frombits(uint32(b) << 16)
}

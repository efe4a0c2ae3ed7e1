// Package bert runs the encoder of a BERT sentence-transformers model (the
// all-MiniLM, bge-small, e5-small, gte-small family) in pure Go: Hugging
// Face's BertModel forward pass with absolute positions, then the
// directory's own pooling (mean or CLS) and optional normalisation.
//
// The caller tokenises: Embed takes complete id sequences, [CLS] and [SEP]
// included, already cut to MaxSeqLen. Each sequence is computed at its own
// length, which gives what a padded, masked batch gives for its real tokens.
package bert

import (
	"context"
	"errors"
	"fmt"
	"github.com/jarvis-mcp/jarvis/internal/embed/linalg"
	"math"
	"os"
	"path/filepath"

	"github.com/jarvis-mcp/jarvis/internal/embed/safetensors"
)

// layer holds one encoder layer's weights, PyTorch layout (out × in).
type layer struct {
	// The weight matrices are packed once, at load, into the layout the
	// kernels read, rather than at every call.
	qkvW           *linalg.Weights // query, key and value stacked: 3h × h
	qkvB           []float32
	attnOutW       *linalg.Weights // h × h
	attnOutB       []float32
	attnLNW        []float32
	attnLNB        []float32
	interW         *linalg.Weights // intermediate × h
	interB         []float32
	outW           *linalg.Weights // h × intermediate
	outB           []float32
	outLNW, outLNB []float32
}

// Model is a loaded encoder. It is immutable after loading, and Embed may
// be called from many goroutines at once.
type Model struct {
	cfg       Config
	act       func([]float32)
	eps       float32
	wordEmb   []float32 // vocab × h
	posEmb    []float32 // positions × h
	typeEmb0  []float32 // token type 0's row
	embLNW    []float32
	embLNB    []float32
	layers    []layer
	pooling   Pooling
	normalize bool
	maxSeqLen int
	scratch   scratchPool
}

// Config is the model's config.json.
func (m *Model) Config() Config { return m.cfg }

// Dim is the length of an embedding.
func (m *Model) Dim() int { return m.cfg.HiddenSize }

// MaxSeqLen is the longest id sequence, [CLS] and [SEP] included, the
// model is meant to see (sentence_bert_config.json's max_seq_length, never
// more than the position table).
func (m *Model) MaxSeqLen() int { return m.maxSeqLen }

// Pooling is how token states are combined.
func (m *Model) Pooling() Pooling { return m.pooling }

// Normalize reports whether embeddings are L2-normalised (a Normalize
// module follows pooling).
func (m *Model) Normalize() bool { return m.normalize }

// Load reads a sentence-transformers directory: modules.json (a
// Transformer, a Pooling, optionally a Normalize), the pooling config,
// sentence_bert_config.json, and the transformer's config.json and
// model.safetensors (F32, F16 or BF16).
func Load(dir string) (*Model, error) {
	l, err := readLayout(dir)
	if err != nil {
		return nil, fmt.Errorf("load bert model %s: %w", dir, err)
	}
	var cfg Config
	if err := readJSON(filepath.Join(l.transformerDir, "config.json"), &cfg); err != nil {
		return nil, fmt.Errorf("load bert model %s: %w", dir, err)
	}
	// Refuse an unsupported model before reading its weights.
	if err := cfg.check(); err != nil {
		return nil, fmt.Errorf("load bert model %s: %w", dir, err)
	}
	weights := filepath.Join(l.transformerDir, "model.safetensors")
	if _, err := os.Stat(weights); errors.Is(err, os.ErrNotExist) {
		if _, err := os.Stat(filepath.Join(l.transformerDir, "pytorch_model.bin")); err == nil {
			return nil, fmt.Errorf("load bert model %s: %w: weights only as pytorch_model.bin; model.safetensors is required", dir, ErrUnsupported)
		}
	}
	f, err := safetensors.Open(weights)
	if err != nil {
		return nil, fmt.Errorf("load bert model %s: %w", dir, err)
	}
	defer f.Close()
	m, err := newModel(cfg, f, l)
	if err != nil {
		return nil, fmt.Errorf("load bert model %s: %w", dir, err)
	}
	return m, nil
}

// tensorSource is where weights come from: a safetensors file, or a map in
// tests and benchmarks.
type tensorSource interface {
	Has(name string) bool
	Float32(name string) ([]float32, []int, error)
}

// newModel checks cfg and reads every weight from src.
func newModel(cfg Config, src tensorSource, l layout) (*Model, error) {
	if err := cfg.check(); err != nil {
		return nil, err
	}
	h, inter := cfg.HiddenSize, cfg.IntermediateSize
	m := &Model{cfg: cfg, act: activations[cfg.HiddenAct], eps: float32(cfg.LayerNormEps),
		pooling: l.pooling, normalize: l.normalize}
	m.maxSeqLen = cfg.MaxPositionEmbeddings
	if l.maxSeqLen > 0 && l.maxSeqLen < m.maxSeqLen {
		m.maxSeqLen = l.maxSeqLen
	}

	prefix := ""
	if src.Has("bert.embeddings.word_embeddings.weight") {
		prefix = "bert."
	}
	r := weightReader{src: src, prefix: prefix}
	m.wordEmb = r.matrix("embeddings.word_embeddings.weight", -1, h)
	m.posEmb = r.matrix("embeddings.position_embeddings.weight", -1, h)
	typeEmb := r.matrix("embeddings.token_type_embeddings.weight", -1, h)
	m.embLNW, m.embLNB = r.layerNorm("embeddings.LayerNorm", h)
	if r.err != nil {
		return nil, r.err
	}
	vocab := len(m.wordEmb) / h
	if cfg.VocabSize != 0 && cfg.VocabSize != vocab {
		return nil, fmt.Errorf("config.json vocab_size %d but word_embeddings has %d rows", cfg.VocabSize, vocab)
	}
	if len(m.posEmb)/h < cfg.MaxPositionEmbeddings {
		return nil, fmt.Errorf("config.json max_position_embeddings %d but position_embeddings has %d rows", cfg.MaxPositionEmbeddings, len(m.posEmb)/h)
	}
	if len(typeEmb) == 0 {
		return nil, errors.New("token_type_embeddings has no rows")
	}
	m.typeEmb0 = typeEmb[:h]

	m.layers = make([]layer, cfg.NumHiddenLayers)
	for i := range m.layers {
		p := fmt.Sprintf("encoder.layer.%d.", i)
		ly := &m.layers[i]
		q := r.matrix(p+"attention.self.query.weight", h, h)
		k := r.matrix(p+"attention.self.key.weight", h, h)
		v := r.matrix(p+"attention.self.value.weight", h, h)
		qb := r.vector(p+"attention.self.query.bias", h)
		kb := r.vector(p+"attention.self.key.bias", h)
		vb := r.vector(p+"attention.self.value.bias", h)
		ly.qkvB = concat(qb, kb, vb)
		attnOut := r.matrix(p+"attention.output.dense.weight", h, h)
		ly.attnOutB = r.vector(p+"attention.output.dense.bias", h)
		ly.attnLNW, ly.attnLNB = r.layerNorm(p+"attention.output.LayerNorm", h)
		interW := r.matrix(p+"intermediate.dense.weight", inter, h)
		ly.interB = r.vector(p+"intermediate.dense.bias", inter)
		outW := r.matrix(p+"output.dense.weight", h, inter)
		ly.outB = r.vector(p+"output.dense.bias", h)
		ly.outLNW, ly.outLNB = r.layerNorm(p+"output.LayerNorm", h)
		if r.err != nil {
			return nil, r.err
		}
		ly.qkvW = linalg.Pack(concat(q, k, v), 3*h, h)
		ly.attnOutW = linalg.Pack(attnOut, h, h)
		ly.interW = linalg.Pack(interW, inter, h)
		ly.outW = linalg.Pack(outW, h, inter)
	}
	return m, nil
}

func concat(parts ...[]float32) []float32 {
	n := 0
	for _, p := range parts {
		n += len(p)
	}
	out := make([]float32, 0, n)
	for _, p := range parts {
		out = append(out, p...)
	}
	return out
}

// weightReader reads named tensors of known shapes, keeping the first
// error so that a run of reads can be checked once.
type weightReader struct {
	src    tensorSource
	prefix string
	err    error
}

// matrix reads a rows×cols tensor; rows < 0 accepts any row count.
func (r *weightReader) matrix(name string, rows, cols int) []float32 {
	if r.err != nil {
		return nil
	}
	v, shape, err := r.read(name)
	if err != nil {
		return nil
	}
	if len(shape) != 2 || shape[1] != cols || rows >= 0 && shape[0] != rows {
		want := fmt.Sprintf("[%d, %d]", rows, cols)
		if rows < 0 {
			want = fmt.Sprintf("[rows, %d]", cols)
		}
		r.err = fmt.Errorf("tensor %q has shape %v, want %s", r.prefix+name, shape, want)
		return nil
	}
	return v
}

func (r *weightReader) vector(name string, n int) []float32 {
	if r.err != nil {
		return nil
	}
	v, shape, err := r.read(name)
	if err != nil {
		return nil
	}
	if len(shape) != 1 || shape[0] != n {
		r.err = fmt.Errorf("tensor %q has shape %v, want [%d]", r.prefix+name, shape, n)
		return nil
	}
	return v
}

// layerNorm reads a LayerNorm's scale and shift, under either the current
// names (weight, bias) or the original TensorFlow port's (gamma, beta).
func (r *weightReader) layerNorm(name string, n int) (w, b []float32) {
	if r.err == nil && !r.src.Has(r.prefix+name+".weight") && r.src.Has(r.prefix+name+".gamma") {
		return r.vector(name+".gamma", n), r.vector(name+".beta", n)
	}
	return r.vector(name+".weight", n), r.vector(name+".bias", n)
}

func (r *weightReader) read(name string) ([]float32, []int, error) {
	full := r.prefix + name
	if !r.src.Has(full) {
		r.err = fmt.Errorf("missing tensor %q", full)
		return nil, nil, r.err
	}
	v, shape, err := r.src.Float32(full)
	if err != nil {
		r.err = err
	}
	return v, shape, err
}

// Embed returns one embedding per id sequence. Each sequence must be
// non-empty, no longer than the position table, and hold ids inside the
// vocabulary. It checks ctx between layers.
//
// A call's working memory grows with the batch's total tokens, about
// 4·(6·hidden + intermediate) bytes each (15 KB for MiniLM, so 63 MB for
// 32 chunks of 128), and is reused by later calls.
func (m *Model) Embed(ctx context.Context, batch [][]int32) ([][]float32, error) {
	vocab := int32(len(m.wordEmb) / m.cfg.HiddenSize)
	total := 0
	for i, seq := range batch {
		if len(seq) == 0 {
			return nil, fmt.Errorf("embed: sequence %d is empty", i)
		}
		if len(seq) > m.cfg.MaxPositionEmbeddings {
			return nil, fmt.Errorf("embed: sequence %d has %d tokens, more than the model's %d positions", i, len(seq), m.cfg.MaxPositionEmbeddings)
		}
		for _, id := range seq {
			if id < 0 || id >= vocab {
				return nil, fmt.Errorf("embed: sequence %d has token id %d outside the vocabulary of %d", i, id, vocab)
			}
		}
		total += len(seq)
	}
	out := make([][]float32, len(batch))
	if len(batch) == 0 {
		return out, nil
	}
	s := m.scratch.get(m, batch, total)
	defer m.scratch.put(s)
	if err := m.forward(ctx, s, batch); err != nil {
		return nil, err
	}
	h := m.cfg.HiddenSize
	flat := make([]float32, len(batch)*h)
	sum := make([]float64, h)
	off := 0
	for i, seq := range batch {
		v := flat[i*h : (i+1)*h : (i+1)*h]
		m.pool(v, sum, s.x[off*h:(off+len(seq))*h], len(seq))
		off += len(seq)
		out[i] = v
	}
	return out, nil
}

// pool combines one sequence's n token states (n×h) into dst, using sum
// (h values) as scratch.
func (m *Model) pool(dst []float32, sum []float64, states []float32, n int) {
	h := m.cfg.HiddenSize
	switch m.pooling {
	case PoolCLS:
		copy(dst, states[:h])
	default:
		clear(sum)
		for t := 0; t < n; t++ {
			for j, v := range states[t*h : (t+1)*h] {
				sum[j] += float64(v)
			}
		}
		for j := range dst {
			dst[j] = float32(sum[j] / float64(n))
		}
	}
	if m.normalize {
		var sq float64
		for _, v := range dst {
			sq += float64(v) * float64(v)
		}
		scale := 1 / max(math.Sqrt(sq), 1e-12) // torch.nn.functional.normalize's eps
		for j := range dst {
			dst[j] = float32(float64(dst[j]) * scale)
		}
	}
}

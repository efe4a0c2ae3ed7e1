// Package static runs token-embedding-table models: a text's vector is the
// mean of its tokens' rows. Two directory formats are read, each pooled the
// way its own library pools it:
//
//   - model2vec (minishlab/potion-*): config.json, model.safetensors with
//     "embeddings" [rows, dim] and optionally "weights" [tokens] and
//     "mapping" [tokens], and tokenizer.json. A token's vector is its row
//     (through mapping, if present) scaled by its weight (if present);
//     unknown tokens are dropped, at most 512 tokens are kept, and the
//     mean is L2-normalised when config.json says "normalize": true.
//   - sentence-transformers StaticEmbedding: modules.json names a
//     StaticEmbedding module whose folder holds model.safetensors with
//     "embedding.weight" and tokenizer.json, optionally followed by a
//     Normalize module. The vector is a plain mean (EmbeddingBag's), with
//     no dropping and no length limit.
//
// Token ids come from the caller, who tokenises with the directory's
// tokenizer.json and without special tokens.
package static

import (
	"encoding/json"
	"errors"
	"fmt"
	"github.com/jarvis-mcp/jarvis/internal/embed/linalg"
	"math"
	"os"
	"path/filepath"
	"unicode/utf8"

	"github.com/jarvis-mcp/jarvis/internal/embed/safetensors"
)

// Format names a directory layout, and with it a pooling rule.
type Format string

const (
	// Model2Vec is the model2vec library's own layout.
	Model2Vec Format = "model2vec"
	// SentenceTransformers is a sentence-transformers StaticEmbedding.
	SentenceTransformers Format = "sentence-transformers"
)

// model2vecMaxTokens is model2vec's default max_length for encode.
const model2vecMaxTokens = 512

// Model is a loaded table model. It is immutable after Load and safe for
// concurrent use.
type Model struct {
	format    Format
	dim       int
	rows      int
	table     []float32 // rows × dim
	mapping   []int32   // token id -> row; nil means the identity
	weights   []float32 // per token id; nil means 1
	tokens    int       // ids in [0, tokens) are valid
	unkID     int32     // dropped before pooling; -1 for none
	maxTokens int       // 0 for no limit
	maxRunes  int       // text clip in runes; 0 for none
	normalize bool
	normEps   float64 // added to (model2vec) or floor of (sentence-transformers) the norm
}

// Format says which layout the model was read from.
func (m *Model) Format() Format { return m.format }

// Dim is the length of a pooled vector.
func (m *Model) Dim() int { return m.dim }

// UnknownID is the unknown token's id, which Pool drops, when the format
// drops it (model2vec with a tokenizer that names an unknown token).
func (m *Model) UnknownID() (int32, bool) { return m.unkID, m.unkID >= 0 }

// MaxTokens is the most tokens Pool uses (the rest are ignored), counted
// after unknown tokens are dropped; 0 means no limit.
func (m *Model) MaxTokens() int { return m.maxTokens }

// Normalize reports whether the format L2-normalises pooled vectors.
func (m *Model) Normalize() bool { return m.normalize }

// ClipText cuts text to the number of characters the format looks at
// before tokenising: model2vec keeps MaxTokens times the median token
// length of its vocabulary. Other formats return text unchanged.
func (m *Model) ClipText(text string) string {
	if m.maxRunes <= 0 || len(text) <= m.maxRunes {
		return text
	}
	n := 0
	for i := range text {
		if n == m.maxRunes {
			return text[:i]
		}
		n++
	}
	return text
}

// Pool turns the token ids of one text (tokenised without special tokens)
// into its vector, applying the format's whole rule: dropping the unknown
// token and truncating to MaxTokens where the format does, scaling rows by
// per-token weights, averaging, and normalising if the format says so. A
// text with no tokens left gets the zero vector. Ids outside the
// vocabulary (which the model's own tokenizer never produces) are ignored.
func (m *Model) Pool(ids []int32) []float32 {
	// Rows are added in float32, a block of them at a time, with the
	// machine's vector instructions, and each block's sum is carried into
	// float64: over a block the float32 rounding stays far below the 1e-5
	// the reference is held to, and over a long text it does not grow.
	const block = 32
	sum := make([]float64, m.dim)
	acc := make([]float32, m.dim)
	n, inBlock := 0, 0
	flush := func() {
		for j, v := range acc {
			sum[j] += float64(v)
		}
		clear(acc)
		inBlock = 0
	}
	for _, id := range ids {
		if id < 0 || int(id) >= m.tokens || id == m.unkID {
			continue
		}
		if m.maxTokens > 0 && n == m.maxTokens {
			break
		}
		row := int(id)
		if m.mapping != nil {
			row = int(m.mapping[id])
		}
		w := float32(1)
		if m.weights != nil {
			w = m.weights[id]
		}
		linalg.AddScaled(acc, w, m.table[row*m.dim:(row+1)*m.dim])
		n++
		if inBlock++; inBlock == block {
			flush()
		}
	}
	flush()
	out := make([]float32, m.dim)
	if n == 0 {
		return out
	}
	var sq float64
	for j := range sum {
		sum[j] /= float64(n)
		sq += sum[j] * sum[j]
	}
	scale := 1.0
	if m.normalize {
		norm := math.Sqrt(sq)
		switch m.format {
		case Model2Vec:
			scale = 1 / (norm + m.normEps)
		default:
			scale = 1 / max(norm, m.normEps)
		}
	}
	for j, v := range sum {
		out[j] = float32(v * scale)
	}
	return out
}

// Load reads the model in dir. A directory with a model2vec
// model.safetensors ("embeddings") at its root is read as model2vec;
// otherwise modules.json must name a sentence-transformers StaticEmbedding.
func Load(dir string) (*Model, error) {
	root := filepath.Join(dir, "model.safetensors")
	if isModel2Vec(root) {
		m, err := loadModel2Vec(dir)
		if err != nil {
			return nil, fmt.Errorf("load model2vec model %s: %w", dir, err)
		}
		return m, nil
	}
	if _, err := os.Stat(filepath.Join(dir, "modules.json")); err == nil {
		m, err := loadStaticEmbedding(dir)
		if err != nil {
			return nil, fmt.Errorf("load sentence-transformers static model %s: %w", dir, err)
		}
		return m, nil
	}
	return nil, fmt.Errorf("load static model %s: neither a model2vec model.safetensors with an \"embeddings\" tensor nor a sentence-transformers modules.json", dir)
}

func isModel2Vec(path string) bool {
	f, err := safetensors.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	return f.Has("embeddings")
}

// model2vecConfig is the part of a model2vec config.json read here.
type model2vecConfig struct {
	ModelType string `json:"model_type"`
	Normalize bool   `json:"normalize"`
	HiddenDim int    `json:"hidden_dim"`
}

func loadModel2Vec(dir string) (*Model, error) {
	var cfg model2vecConfig
	if err := readJSON(filepath.Join(dir, "config.json"), &cfg); err != nil {
		return nil, err
	}
	if cfg.ModelType != "" && cfg.ModelType != "model2vec" {
		return nil, fmt.Errorf("config.json model_type %q is not model2vec", cfg.ModelType)
	}
	facts, err := readVocabFacts(filepath.Join(dir, "tokenizer.json"))
	if err != nil {
		return nil, err
	}
	f, err := safetensors.Open(filepath.Join(dir, "model.safetensors"))
	if err != nil {
		return nil, err
	}
	defer f.Close()
	m := &Model{format: Model2Vec, unkID: facts.unkID, maxTokens: model2vecMaxTokens,
		maxRunes: model2vecMaxTokens * facts.medianRunes, normalize: cfg.Normalize, normEps: 1e-32}
	if err := m.readTable(f, "embeddings"); err != nil {
		return nil, err
	}
	if cfg.HiddenDim != 0 && cfg.HiddenDim != m.dim {
		return nil, fmt.Errorf("config.json hidden_dim %d but the embeddings have %d columns", cfg.HiddenDim, m.dim)
	}
	m.tokens = m.rows
	if f.Has("mapping") {
		ids, shape, err := f.Int64s("mapping")
		if err != nil {
			return nil, err
		}
		if len(shape) != 1 {
			return nil, fmt.Errorf("tensor \"mapping\" has shape %v, want [tokens]", shape)
		}
		m.mapping = make([]int32, len(ids))
		for i, r := range ids {
			if r < 0 || r >= int64(m.rows) {
				return nil, fmt.Errorf("tensor \"mapping\"[%d] = %d is outside the %d embedding rows", i, r, m.rows)
			}
			m.mapping[i] = int32(r)
		}
		m.tokens = len(ids)
	}
	if f.Has("weights") {
		w, shape, err := f.Float32("weights")
		if err != nil {
			return nil, err
		}
		if len(shape) != 1 || shape[0] != m.tokens {
			return nil, fmt.Errorf("tensor \"weights\" has shape %v, want [%d]", shape, m.tokens)
		}
		m.weights = w
	}
	// model2vec itself refuses a table whose size differs from the
	// tokenizer's unless a mapping says which row each token uses.
	if facts.size != m.tokens || facts.maxID >= m.tokens {
		return nil, fmt.Errorf("tokenizer.json has %d tokens (largest id %d) but the model has %d", facts.size, facts.maxID, m.tokens)
	}
	return m, nil
}

// stModule is one entry of a sentence-transformers modules.json.
type stModule struct {
	Path string `json:"path"`
	Type string `json:"type"`
}

func loadStaticEmbedding(dir string) (*Model, error) {
	var modules []stModule
	if err := readJSON(filepath.Join(dir, "modules.json"), &modules); err != nil {
		return nil, err
	}
	if len(modules) == 0 || modules[0].Type != "sentence_transformers.models.StaticEmbedding" {
		return nil, errors.New("modules.json does not start with a sentence_transformers.models.StaticEmbedding module")
	}
	m := &Model{format: SentenceTransformers, unkID: -1, normEps: 1e-12}
	for _, mod := range modules[1:] {
		switch mod.Type {
		case "sentence_transformers.models.Normalize":
			m.normalize = true
		default:
			return nil, fmt.Errorf("modules.json module %q is not supported after a StaticEmbedding", mod.Type)
		}
	}
	sub := filepath.Join(dir, modules[0].Path)
	facts, err := readVocabFacts(filepath.Join(sub, "tokenizer.json"))
	if err != nil {
		return nil, err
	}
	f, err := safetensors.Open(filepath.Join(sub, "model.safetensors"))
	if err != nil {
		return nil, err
	}
	defer f.Close()
	name := "embedding.weight"
	if !f.Has(name) && f.Has("embeddings") {
		name = "embeddings" // StaticEmbedding.load accepts a model2vec table too
	}
	if err := m.readTable(f, name); err != nil {
		return nil, err
	}
	m.tokens = m.rows
	if facts.maxID >= m.rows {
		return nil, fmt.Errorf("tokenizer.json has token id %d but the table has %d rows", facts.maxID, m.rows)
	}
	return m, nil
}

// readTable reads the embedding table called name: any float dtype, or
// int8 (model2vec's quantised tables, used as the integers they hold).
func (m *Model) readTable(f *safetensors.File, name string) error {
	info, ok := f.Info(name)
	if !ok {
		return fmt.Errorf("%s has no tensor %q", f.Path(), name)
	}
	if len(info.Shape) != 2 || info.Shape[0] == 0 || info.Shape[1] == 0 {
		return fmt.Errorf("%s: tensor %q has shape %v, want [rows, dim]", f.Path(), name, info.Shape)
	}
	m.rows, m.dim = info.Shape[0], info.Shape[1]
	if info.DType == safetensors.I8 {
		ints, _, err := f.Int64s(name)
		if err != nil {
			return err
		}
		m.table = make([]float32, len(ints))
		for i, v := range ints {
			m.table[i] = float32(v)
		}
		return nil
	}
	table, _, err := f.Float32(name)
	if err != nil {
		return err
	}
	m.table = table
	return nil
}

func readJSON(path string, v any) error {
	raw, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	if !utf8.Valid(raw) {
		return fmt.Errorf("%s is not UTF-8", path)
	}
	if err := json.Unmarshal(raw, v); err != nil {
		return fmt.Errorf("parse %s: %w", path, err)
	}
	return nil
}

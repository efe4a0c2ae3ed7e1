package bert

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// ErrUnsupported is wrapped by every refusal of a model this package cannot
// run faithfully: another architecture, another position encoding, another
// pooling, a module it does not know.
var ErrUnsupported = errors.New("unsupported model")

// Config is the part of a Hugging Face BERT config.json the forward pass
// depends on.
type Config struct {
	ModelType             string  `json:"model_type"`
	VocabSize             int     `json:"vocab_size"`
	HiddenSize            int     `json:"hidden_size"`
	NumHiddenLayers       int     `json:"num_hidden_layers"`
	NumAttentionHeads     int     `json:"num_attention_heads"`
	IntermediateSize      int     `json:"intermediate_size"`
	HiddenAct             string  `json:"hidden_act"`
	LayerNormEps          float64 `json:"layer_norm_eps"`
	MaxPositionEmbeddings int     `json:"max_position_embeddings"`
	TypeVocabSize         int     `json:"type_vocab_size"`
	PositionEmbeddingType string  `json:"position_embedding_type"`
}

// check refuses what the forward pass does not implement.
func (c *Config) check() error {
	if c.ModelType != "bert" {
		return fmt.Errorf("%w: model_type %q (only \"bert\" is supported)", ErrUnsupported, c.ModelType)
	}
	if c.PositionEmbeddingType == "" {
		c.PositionEmbeddingType = "absolute"
	}
	if c.PositionEmbeddingType != "absolute" {
		return fmt.Errorf("%w: position_embedding_type %q (only \"absolute\" is supported)", ErrUnsupported, c.PositionEmbeddingType)
	}
	if _, ok := activations[c.HiddenAct]; !ok {
		return fmt.Errorf("%w: hidden_act %q (supported: gelu, gelu_new, gelu_pytorch_tanh, relu)", ErrUnsupported, c.HiddenAct)
	}
	if c.LayerNormEps == 0 {
		c.LayerNormEps = 1e-12 // BertConfig's default
	}
	// The bounds are far beyond any encoder jarvis runs on a CPU; they
	// keep a hostile config.json from asking for memory before a single
	// weight is read.
	for _, f := range []struct {
		name     string
		v, limit int
	}{
		{"hidden_size", c.HiddenSize, 1 << 14}, {"num_hidden_layers", c.NumHiddenLayers, 256},
		{"num_attention_heads", c.NumAttentionHeads, 1 << 10}, {"intermediate_size", c.IntermediateSize, 1 << 16},
		{"max_position_embeddings", c.MaxPositionEmbeddings, 1 << 16},
	} {
		if f.v <= 0 || f.v > f.limit {
			return fmt.Errorf("config.json %s is %d, want a number from 1 to %d", f.name, f.v, f.limit)
		}
	}
	if c.HiddenSize%c.NumAttentionHeads != 0 {
		return fmt.Errorf("config.json hidden_size %d is not a multiple of num_attention_heads %d", c.HiddenSize, c.NumAttentionHeads)
	}
	return nil
}

// Pooling is how token states become one vector.
type Pooling string

const (
	// PoolMean averages the states of every token, [CLS] and [SEP] included.
	PoolMean Pooling = "mean"
	// PoolCLS takes the state of the first token.
	PoolCLS Pooling = "cls"
)

// stModule is one entry of a sentence-transformers modules.json.
type stModule struct {
	Path string `json:"path"`
	Type string `json:"type"`
}

// layout is what a sentence-transformers directory says around the
// transformer: where it lives, how to pool, whether to normalise, how long
// an input may be.
type layout struct {
	transformerDir string
	pooling        Pooling
	normalize      bool
	maxSeqLen      int // 0 if sentence_bert_config.json does not say
}

func readLayout(dir string) (layout, error) {
	var modules []stModule
	if err := readJSON(filepath.Join(dir, "modules.json"), &modules); err != nil {
		return layout{}, err
	}
	var l layout
	var sawTransformer, sawPooling bool
	for i, m := range modules {
		switch {
		case m.Type == "sentence_transformers.models.Transformer" && i == 0:
			sawTransformer = true
			l.transformerDir = filepath.Join(dir, m.Path)
		case m.Type == "sentence_transformers.models.Pooling" && sawTransformer && !sawPooling:
			sawPooling = true
			p, err := readPooling(filepath.Join(dir, m.Path, "config.json"))
			if err != nil {
				return layout{}, err
			}
			l.pooling = p
		case m.Type == "sentence_transformers.models.Normalize" && sawPooling:
			l.normalize = true
		default:
			return layout{}, fmt.Errorf("%w: modules.json module %d is %q (supported: Transformer, then Pooling, then optionally Normalize)", ErrUnsupported, i, m.Type)
		}
	}
	if !sawTransformer || !sawPooling {
		return layout{}, errors.New("modules.json must list a Transformer module and then a Pooling module")
	}
	var sb struct {
		MaxSeqLength int `json:"max_seq_length"`
	}
	err := readJSON(filepath.Join(l.transformerDir, "sentence_bert_config.json"), &sb)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return layout{}, err
	}
	l.maxSeqLen = sb.MaxSeqLength
	return l, nil
}

// readPooling reads a sentence-transformers Pooling config: exactly one of
// mean or CLS pooling, and no other mode.
func readPooling(path string) (Pooling, error) {
	var cfg map[string]any
	if err := readJSON(path, &cfg); err != nil {
		return "", err
	}
	var on []string
	for k, v := range cfg {
		if b, ok := v.(bool); ok && b && strings.HasPrefix(k, "pooling_mode_") {
			on = append(on, k)
		}
	}
	sort.Strings(on)
	if len(on) == 1 {
		switch on[0] {
		case "pooling_mode_mean_tokens":
			return PoolMean, nil
		case "pooling_mode_cls_token":
			return PoolCLS, nil
		}
	}
	// Newer files may name the mode as a string instead.
	if mode, ok := cfg["pooling_mode"].(string); ok && len(on) == 0 {
		switch mode {
		case "mean":
			return PoolMean, nil
		case "cls":
			return PoolCLS, nil
		}
		return "", fmt.Errorf("%w: %s: pooling_mode %q (supported: mean, cls)", ErrUnsupported, path, mode)
	}
	return "", fmt.Errorf("%w: %s: pooling modes %v (supported: exactly one of pooling_mode_mean_tokens, pooling_mode_cls_token)", ErrUnsupported, path, on)
}

func readJSON(path string, v any) error {
	raw, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	if err := json.Unmarshal(raw, v); err != nil {
		return fmt.Errorf("parse %s: %w", path, err)
	}
	return nil
}

package hub

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
)

// Layout is how a model's files are laid out, which says which files an
// embedder reads and how.
type Layout string

const (
	// LayoutModel2Vec is a model2vec static model: config.json,
	// model.safetensors (one embeddings matrix) and tokenizer.json.
	LayoutModel2Vec Layout = "model2vec"
	// LayoutStaticEmbedding is a sentence-transformers StaticEmbedding
	// model: modules.json and the matrix and tokenizer in 0_StaticEmbedding/.
	LayoutStaticEmbedding Layout = "sentence-transformers-static"
	// LayoutBERT is a BERT encoder as sentence-transformers saves it:
	// config.json, model.safetensors, the tokenizer (tokenizer.json or
	// vocab.txt), and the pooling settings when the repository has them.
	LayoutBERT Layout = "bert"
)

// ErrUnsupported means a repository or folder holds no model in a layout
// jarvis can run.
var ErrUnsupported = errors.New("unsupported model")

// fileRule lists what a layout reads: each required entry is a set of
// alternatives of which at least one must be present (all present ones are
// taken); optional files are taken when present.
type fileRule struct {
	required [][]string
	optional []string
}

var rules = map[Layout]fileRule{
	LayoutModel2Vec: {
		required: [][]string{{"config.json"}, {"model.safetensors"}, {"tokenizer.json"}},
	},
	LayoutStaticEmbedding: {
		required: [][]string{{"modules.json"}, {"0_StaticEmbedding/model.safetensors"}, {"0_StaticEmbedding/tokenizer.json"}},
		optional: []string{"config_sentence_transformers.json"},
	},
	LayoutBERT: {
		required: [][]string{{"config.json"}, {"model.safetensors"}, {"tokenizer.json", "vocab.txt"}},
		optional: []string{
			"tokenizer_config.json", "special_tokens_map.json", "modules.json",
			"sentence_bert_config.json", "1_Pooling/config.json", "config_sentence_transformers.json",
		},
	},
}

// Kind is the kind of model a layout holds.
func (l Layout) Kind() Kind {
	if l == LayoutBERT {
		return KindTransformer
	}
	return KindStatic
}

// Files picks, from the slash-separated paths a repository or folder holds,
// those an embedder of this layout reads, in a stable order. It fails with
// ErrUnsupported naming the first required file that is missing.
func (l Layout) Files(have []string) ([]string, error) {
	rule, ok := rules[l]
	if !ok {
		return nil, errorf(ErrUnsupported, "layout %q is not one jarvis runs", l)
	}
	present := make(map[string]bool, len(have))
	for _, p := range have {
		present[p] = true
	}
	var files []string
	for _, alts := range rule.required {
		n := len(files)
		for _, a := range alts {
			if present[a] {
				files = append(files, a)
			}
		}
		if len(files) == n {
			return nil, errorf(ErrUnsupported, "a %s model needs %s, which is missing", l, strings.Join(alts, " or "))
		}
	}
	for _, o := range rule.optional {
		if present[o] {
			files = append(files, o)
		}
	}
	return files, nil
}

// modelConfig is what layout detection reads of a config.json.
type modelConfig struct {
	ModelType     string   `json:"model_type"`
	Architectures []string `json:"architectures"`
	HiddenSize    int      `json:"hidden_size"` // BERT
	HiddenDim     int      `json:"hidden_dim"`  // model2vec
}

// DetectLayout names the layout of a model from the slash-separated paths
// it holds and the content of its config.json (nil when it has none). It
// is the one rule for repositories on the hub and folders on disk alike.
func DetectLayout(have []string, config []byte) (Layout, error) {
	if slices.Contains(have, "0_StaticEmbedding/model.safetensors") {
		_, err := LayoutStaticEmbedding.Files(have)
		return LayoutStaticEmbedding, err
	}
	if !slices.Contains(have, "model.safetensors") {
		var other []string
		for _, p := range have {
			base := path.Base(p)
			if base == "pytorch_model.bin" || base == "tf_model.h5" || strings.HasSuffix(base, ".onnx") || strings.HasSuffix(base, ".gguf") {
				other = append(other, p)
			}
		}
		if len(other) > 0 {
			slices.Sort(other)
			return "", errorf(ErrUnsupported, "it has no model.safetensors, only %s, which jarvis does not read", strings.Join(other, ", "))
		}
		return "", errorf(ErrUnsupported, "it has no model.safetensors")
	}
	if config == nil {
		return "", errorf(ErrUnsupported, "it has model.safetensors but no config.json saying what model it is")
	}
	var c modelConfig
	if err := json.Unmarshal(config, &c); err != nil {
		return "", errorf(ErrUnsupported, "its config.json cannot be read: %v", err)
	}
	var l Layout
	switch {
	case c.ModelType == "model2vec" || slices.Contains(c.Architectures, "StaticModel"):
		l = LayoutModel2Vec
	case c.ModelType == "bert":
		l = LayoutBERT
	default:
		kind := c.ModelType
		if kind == "" {
			kind = "not named"
		}
		return "", errorf(ErrUnsupported, "its model type is %s; jarvis runs BERT encoders and static models (model2vec, sentence-transformers StaticEmbedding)", kind)
	}
	_, err := l.Files(have)
	return l, err
}

// configDimensions is the vector length a config.json states, or 0.
func configDimensions(config []byte) int {
	var c modelConfig
	if json.Unmarshal(config, &c) != nil {
		return 0
	}
	if c.HiddenDim > 0 {
		return c.HiddenDim
	}
	return c.HiddenSize
}

// LayoutOf detects the layout of a model folder on disk, such as one
// downloaded by hand.
func LayoutOf(dir string) (Layout, error) {
	var have []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			// Two levels are all any layout uses; skip .git and the like.
			if p != dir && (strings.HasPrefix(d.Name(), ".") || strings.Count(filepath.ToSlash(strings.TrimPrefix(p, dir)), "/") > 1) {
				return filepath.SkipDir
			}
			return nil
		}
		rel, err := filepath.Rel(dir, p)
		if err != nil {
			return err
		}
		have = append(have, filepath.ToSlash(rel))
		return nil
	})
	if err != nil {
		return "", fmt.Errorf("read model folder %s: %w", dir, err)
	}
	config, err := os.ReadFile(filepath.Join(dir, "config.json"))
	if err != nil {
		config = nil
	}
	l, err := DetectLayout(have, config)
	if err != nil {
		return "", fmt.Errorf("model folder %s: %w", dir, err)
	}
	return l, nil
}

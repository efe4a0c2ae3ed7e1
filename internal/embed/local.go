package embed

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/jarvis-mcp/jarvis/internal/embed/bert"
	"github.com/jarvis-mcp/jarvis/internal/embed/hub"
	"github.com/jarvis-mcp/jarvis/internal/embed/static"
	"github.com/jarvis-mcp/jarvis/internal/embed/wordpiece"
)

// ProviderLocal names embedders that run a model from a folder on this
// machine: a static token table or a BERT sentence encoder.
const ProviderLocal = "local"

// The kinds of local model.
const (
	KindStatic      = "static"
	KindTransformer = "transformer"
)

// LocalOptions say how to run a local model beyond what its folder says.
type LocalOptions struct {
	// Name is the model as configured: a known name, owner/name, or the
	// folder's path. Model() returns it.
	Name string
	// QueryPrefix and PassagePrefix, when set, replace the prefixes the
	// model's manifest or the catalogue give (e5's "query: ").
	QueryPrefix, PassagePrefix *string
	// BatchSize is how many windows a transformer runs at once; 0 is 4.
	BatchSize int
}

// Local runs a model from a folder: tokenise with its WordPiece
// vocabulary, then pool its token table (static) or run its encoder
// (transformer).
//
// No text is dropped: a text longer than the model's window (the
// encoder's max_seq_length less [CLS] and [SEP], or a static model's token
// limit) is cut into consecutive windows of that many tokens, each window
// is embedded as the model embeds a text, and the text's vector is the
// mean of the windows' vectors weighted by their token counts, normalised.
// A text that fits is embedded exactly as the model's own library does.
type Local struct {
	name, dir   string
	kind        string
	fingerprint string
	tok         *wordpiece.Tokenizer
	table       *static.Model
	enc         *bert.Model
	dim         int
	window      int // tokens per window, specials excluded
	queryPrefix string
	passPrefix  string
	batch       int
}

// NewLocal loads the model in dir. It reads everything once; the result is
// safe for concurrent use and should be shared.
func NewLocal(dir string, opts LocalOptions) (*Local, error) {
	kind, err := localKind(dir)
	if err != nil {
		return nil, err
	}
	l := &Local{name: opts.Name, dir: dir, batch: opts.BatchSize}
	if l.name == "" {
		l.name = dir
	}
	if l.batch <= 0 {
		l.batch = 4
	}
	man, manErr := hub.ReadManifest(dir)
	switch m, known := hub.Lookup(filepath.Base(dir)); {
	case manErr == nil:
		l.queryPrefix, l.passPrefix = man.QueryPrefix, man.PassagePrefix
	case known:
		l.queryPrefix, l.passPrefix = m.QueryPrefix, m.PassagePrefix
	default:
		l.queryPrefix, l.passPrefix = savedPrompts(dir)
	}
	if opts.QueryPrefix != nil {
		l.queryPrefix = *opts.QueryPrefix
	}
	if opts.PassagePrefix != nil {
		l.passPrefix = *opts.PassagePrefix
	}
	switch kind {
	case hub.KindStatic:
		l.kind = KindStatic
		if l.table, err = static.Load(dir); err != nil {
			return nil, err
		}
		tokDir, err := moduleDir(dir, "StaticEmbedding")
		if err != nil {
			return nil, err
		}
		if l.tok, err = wordpiece.Load(tokDir); err != nil {
			return nil, fmt.Errorf("model %s: %w", dir, err)
		}
		l.dim, l.window = l.table.Dim(), l.table.MaxTokens()
	case hub.KindTransformer:
		l.kind = KindTransformer
		if l.enc, err = bert.Load(dir); err != nil {
			return nil, err
		}
		tokDir, err := moduleDir(dir, "Transformer")
		if err != nil {
			return nil, err
		}
		if l.tok, err = wordpiece.Load(tokDir); err != nil {
			return nil, fmt.Errorf("model %s: %w", dir, err)
		}
		if l.tok.CLS() < 0 || l.tok.SEP() < 0 {
			return nil, fmt.Errorf("model %s: the vocabulary has no [CLS] or [SEP] token, which a BERT encoder needs", dir)
		}
		l.dim, l.window = l.enc.Dim(), l.enc.MaxSeqLen()-2
		if l.window < 1 {
			return nil, fmt.Errorf("model %s: a window of %d tokens leaves no room for text", dir, l.enc.MaxSeqLen())
		}
	default:
		return nil, fmt.Errorf("model %s: a %s model is not one jarvis can run", dir, kind)
	}
	weights, err := weightsID(dir, man, manErr == nil)
	if err != nil {
		return nil, err
	}
	// The passage prefix changes every stored vector, so it is part of
	// the fingerprint; the query prefix changes none.
	l.fingerprint = fmt.Sprintf("%s/%s/%d/%s", ProviderLocal, l.name, l.dim, weights)
	if l.passPrefix != "" {
		sum := sha256.Sum256([]byte(l.passPrefix))
		l.fingerprint += "/p" + hex.EncodeToString(sum[:4])
	}
	return l, nil
}

// savedPrompts are the query and passage prompts a sentence-transformers
// model saved with itself (config_sentence_transformers.json's "prompts"),
// for models the catalogue does not know.
func savedPrompts(dir string) (query, passage string) {
	raw, err := os.ReadFile(filepath.Join(dir, "config_sentence_transformers.json"))
	if err != nil {
		return "", ""
	}
	var cfg struct {
		Prompts map[string]string `json:"prompts"`
	}
	if json.Unmarshal(raw, &cfg) != nil {
		return "", ""
	}
	passage = cfg.Prompts["document"]
	if passage == "" {
		passage = cfg.Prompts["passage"]
	}
	return cfg.Prompts["query"], passage
}

// localKind says whether dir holds a static model or a transformer: by
// the layouts the hub client knows, or by a sentence-transformers
// modules.json whose Transformer module has a folder of its own.
func localKind(dir string) (hub.Kind, error) {
	layout, err := hub.LayoutOf(dir)
	if err == nil {
		return layout.Kind(), nil
	}
	if sub, merr := moduleDir(dir, "Transformer"); merr == nil && sub != dir {
		if _, serr := os.Stat(filepath.Join(sub, "model.safetensors")); serr == nil {
			return hub.KindTransformer, nil
		}
	}
	return "", err
}

// moduleDir is the folder of a model's first module, which holds its
// tokenizer: the model folder itself when it has a tokenizer of its own
// (model2vec, or a sentence-transformers Transformer saved at the root),
// else the folder modules.json gives the module whose type ends in kind.
func moduleDir(dir, kind string) (string, error) {
	for _, f := range []string{"tokenizer.json", "vocab.txt"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err == nil {
			return dir, nil
		}
	}
	raw, err := os.ReadFile(filepath.Join(dir, "modules.json"))
	if err != nil {
		return "", fmt.Errorf("model %s: no tokenizer.json or vocab.txt, and no modules.json to find one: %w", dir, err)
	}
	var modules []struct{ Path, Type string }
	if err := json.Unmarshal(raw, &modules); err != nil {
		return "", fmt.Errorf("model %s: modules.json: %w", dir, err)
	}
	for _, m := range modules {
		if strings.HasSuffix(m.Type, kind) && (m.Path == "" || filepath.IsLocal(m.Path)) {
			return filepath.Join(dir, m.Path), nil
		}
	}
	return "", fmt.Errorf("model %s: modules.json names no %s module", dir, kind)
}

// weightsID names the model's weights: the revision and weight hash the
// manifest of a pulled model records, or, for a folder put there by hand,
// a hash of its weight file, so that a change of weights re-embeds.
func weightsID(dir string, man hub.Manifest, pulled bool) (string, error) {
	if pulled {
		for _, f := range man.Files {
			if strings.HasSuffix(f.Path, ".safetensors") && f.SHA256 != "" {
				rev := man.Commit
				if rev == "" {
					rev = man.Revision
				}
				return shortID(rev) + "-" + shortID(f.SHA256), nil
			}
		}
	}
	var path string
	for _, p := range []string{"model.safetensors", "0_StaticEmbedding/model.safetensors", "0_Transformer/model.safetensors"} {
		if _, err := os.Stat(filepath.Join(dir, p)); err == nil {
			path = filepath.Join(dir, p)
			break
		}
	}
	if path == "" {
		return "", fmt.Errorf("model %s: no model.safetensors", dir)
	}
	f, err := os.Open(path)
	if err != nil {
		return "", fmt.Errorf("model %s: %w", dir, err)
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", fmt.Errorf("model %s: hash weights: %w", dir, err)
	}
	return "local-" + shortID(hex.EncodeToString(h.Sum(nil))), nil
}

func shortID(s string) string { return s[:min(len(s), 12)] }

// Fingerprint names the model, its weights and its passage prefix.
func (l *Local) Fingerprint() string { return l.fingerprint }

// Provider is "local".
func (l *Local) Provider() string { return ProviderLocal }

// Model is the model as configured.
func (l *Local) Model() string { return l.name }

// Dimension is the length of every vector.
func (l *Local) Dimension() int { return l.dim }

// Kind is KindStatic or KindTransformer.
func (l *Local) Kind() string { return l.kind }

// Dir is the model's folder.
func (l *Local) Dir() string { return l.dir }

// BatchHint is how many passages to give Embed at once so that a call
// takes a second or two: a transformer's windows cost tens of milliseconds
// each, and a sync holds the writer lock for a batch.
func (l *Local) BatchHint() int {
	if l.kind == KindTransformer {
		return 2 * l.batch
	}
	return 0
}

// Embed embeds passages, with the model's passage prefix.
func (l *Local) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	return l.embed(ctx, texts, l.passPrefix)
}

// EmbedQuery embeds a search query, with the model's query prefix.
func (l *Local) EmbedQuery(ctx context.Context, text string) ([]float32, error) {
	v, err := l.embed(ctx, []string{text}, l.queryPrefix)
	if err != nil {
		return nil, err
	}
	return v[0], nil
}

// piece is one window of one text.
type piece struct {
	text int // index of the text
	ids  []int32
}

func (l *Local) embed(ctx context.Context, texts []string, prefix string) ([][]float32, error) {
	out := make([][]float32, len(texts))
	ids := make([][]int32, len(texts))
	eachText(len(texts), func(i int) {
		if strings.TrimSpace(texts[i]) == "" {
			return // the zero vector: similar to nothing
		}
		ids[i] = l.tok.Encode(prefix + texts[i])
		if l.kind == KindStatic {
			ids[i] = l.dropUnknown(ids[i])
		}
	})
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if l.kind == KindStatic {
		// Pooling is cheap; each text is pooled where it is.
		eachText(len(texts), func(i int) { out[i] = l.pooled(ids[i]) })
		return out, nil
	}
	var pieces []piece
	for i := range texts {
		out[i] = make([]float32, l.dim)
		for start := 0; start < len(ids[i]); start += l.window {
			pieces = append(pieces, piece{text: i, ids: ids[i][start:min(start+l.window, len(ids[i]))]})
		}
	}
	vecs, err := l.run(ctx, pieces)
	if err != nil {
		return nil, err
	}
	for k, p := range pieces {
		w := float32(len(p.ids))
		for j, x := range vecs[k] {
			out[p.text][j] += w * x
		}
	}
	for i := range out {
		normalize(out[i])
	}
	return out, nil
}

// pooled is a static model's vector for one text's ids, window by window
// when there are more than the model takes at once.
func (l *Local) pooled(ids []int32) []float32 {
	w := l.window
	if w <= 0 || len(ids) <= w {
		v := l.table.Pool(ids)
		normalize(v)
		return v
	}
	out := make([]float32, l.dim)
	for start := 0; start < len(ids); start += w {
		win := ids[start:min(start+w, len(ids))]
		v := l.table.Pool(win)
		for j, x := range v {
			out[j] += float32(len(win)) * x
		}
	}
	normalize(out)
	return out
}

// eachText calls f for 0..n-1, over every processor when n is large
// enough to be worth it.
func eachText(n int, f func(i int)) {
	workers := min(runtime.GOMAXPROCS(0), n/8)
	if workers <= 1 {
		for i := range n {
			f(i)
		}
		return
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for i := int(next.Add(1) - 1); i < n; i = int(next.Add(1) - 1) {
				f(i)
			}
		})
	}
	wg.Wait()
}

// dropUnknown removes the unknown token where the static format drops it,
// before windows are cut, as the format counts its limit after dropping.
func (l *Local) dropUnknown(ids []int32) []int32 {
	unk, ok := l.table.UnknownID()
	if !ok {
		return ids
	}
	kept := ids[:0]
	for _, id := range ids {
		if id != unk {
			kept = append(kept, id)
		}
	}
	return kept
}

// run embeds each window as the encoder embeds a text.
func (l *Local) run(ctx context.Context, pieces []piece) ([][]float32, error) {
	out := make([][]float32, len(pieces))
	for start := 0; start < len(pieces); start += l.batch {
		end := min(start+l.batch, len(pieces))
		batch := make([][]int32, end-start)
		for i, p := range pieces[start:end] {
			seq := make([]int32, 0, len(p.ids)+2)
			seq = append(seq, l.tok.CLS())
			seq = append(seq, p.ids...)
			batch[i] = append(seq, l.tok.SEP())
		}
		vecs, err := l.enc.Embed(ctx, batch)
		if err != nil {
			return nil, fmt.Errorf("run %s: %w", l.name, err)
		}
		copy(out[start:end], vecs)
	}
	return out, nil
}

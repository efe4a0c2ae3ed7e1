// Package embedtest gives tests runnable tiny models: copies of the
// reference models in internal/embed/testdata (random weights made by
// testdata/refgen/gen.py) with a WordPiece vocabulary of letters, so that
// any English text tokenises to something.
package embedtest

import (
	"bufio"
	"compress/gzip"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// testdata is internal/embed/testdata, found from this file's place in the
// source tree, so that tests of any package can use it.
func testdata() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "testdata")
}

// transformerDir is the folder of a sentence-transformers model's
// Transformer module: the model's own, or the one modules.json gives.
func transformerDir(t testing.TB, dir string) string {
	t.Helper()
	var modules []struct{ Path, Type string }
	ReadJSON(t, filepath.Join(dir, "modules.json"), &modules)
	for _, m := range modules {
		if strings.HasSuffix(m.Type, "Transformer") {
			return filepath.Join(dir, m.Path)
		}
	}
	t.Fatalf("%s: modules.json names no Transformer", dir)
	return ""
}

// LetterVocab is a WordPiece vocabulary of n tokens in which every
// lowercase ASCII word has pieces (its letters), so that any English text
// embeds to something: the tiny reference models have random words.
func LetterVocab(n int) []string {
	v := []string{"[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"}
	for c := 'a'; c <= 'z'; c++ {
		v = append(v, string(c))
	}
	for c := 'a'; c <= 'z'; c++ {
		v = append(v, "##"+string(c))
	}
	for c := '0'; c <= '9'; c++ {
		v = append(v, string(c))
	}
	v = append(v, strings.Split(". , ! ? ( ) - ' : ; / =", " ")...)
	for _, w := range []string{"the", "and", "links", "note", "notes", "back", "##links", "search", "vault", "of", "in", "to"} {
		if len(v) < n {
			v = append(v, w)
		}
	}
	for i := 0; len(v) < n; i++ {
		v = append(v, fmt.Sprintf("[unused%d]", i))
	}
	if len(v) > n {
		panic(fmt.Sprintf("a letter vocabulary needs %d tokens; the model has %d", len(v), n))
	}
	return v
}

// CopyDir copies a folder, reference outputs left out, into a temporary
// one.
func CopyDir(t testing.TB, src string) string {
	t.Helper()
	dst := filepath.Join(t.TempDir(), filepath.Base(src))
	err := filepath.WalkDir(src, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		}
		if d.Name() == "reference.json" {
			return nil
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dst, rel), data, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	return dst
}

// TinyBERT is a copy of a reference BERT model with a vocab.txt of letters.
func TinyBERT(t testing.TB, variant string) string {
	t.Helper()
	dir := CopyDir(t, filepath.Join(testdata(), "bert", variant))
	enc := transformerDir(t, dir)
	var cfg struct {
		VocabSize int `json:"vocab_size"`
	}
	ReadJSON(t, filepath.Join(enc, "config.json"), &cfg)
	vocab := strings.Join(LetterVocab(cfg.VocabSize), "\n") + "\n"
	if err := os.WriteFile(filepath.Join(enc, "vocab.txt"), []byte(vocab), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(enc, "tokenizer_config.json"), []byte(`{"do_lower_case": true}`), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

// TinyStatic is a copy of a reference static model whose tokenizer.json (at tok,
// relative to the model folder) has its vocabulary replaced by letters.
func TinyStatic(t testing.TB, variant, tok string) string {
	t.Helper()
	dir := CopyDir(t, filepath.Join(testdata(), "static", variant))
	path := filepath.Join(dir, tok, "tokenizer.json")
	var doc map[string]any
	ReadJSON(t, path, &doc)
	model := doc["model"].(map[string]any)
	old := model["vocab"].(map[string]any)
	vocab := map[string]int{}
	for i, w := range LetterVocab(len(old)) {
		vocab[w] = i
	}
	model["vocab"] = vocab
	data, err := json.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

// ReadJSON decodes the JSON file at path into v.
func ReadJSON(t testing.TB, path string, v any) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, v); err != nil {
		t.Fatal(err)
	}
}

// Shape is the size of a BERT encoder.
type Shape struct {
	Layers, Hidden, Heads, Intermediate, MaxPositions, MaxSeqLen int
}

// The shapes of the known small transformers (their vocabulary is
// bert-base-uncased's 30,522 tokens).
var (
	MiniLML6 = Shape{Layers: 6, Hidden: 384, Heads: 12, Intermediate: 1536, MaxPositions: 512, MaxSeqLen: 256}
	BGESmall = Shape{Layers: 12, Hidden: 384, Heads: 12, Intermediate: 1536, MaxPositions: 512, MaxSeqLen: 512}
)

// wordpieceData is a file among the tokenizer's test data: the real public
// vocabularies of the known models.
func wordpieceData(name string) string {
	return filepath.Join(testdata(), "..", "wordpiece", "testdata", name)
}

// RandomBERT writes, into a new folder, a sentence-transformers BERT model
// of shape s with random weights (a fixed seed) and bert-base-uncased's
// real vocabulary: the files and the cost of the real model, for
// benchmarks, with vectors that mean nothing.
func RandomBERT(t testing.TB, s Shape) string {
	t.Helper()
	dir := t.TempDir()
	vocab, err := os.ReadFile(wordpieceData("all-MiniLM-L6-v2/vocab.txt"))
	if err != nil {
		t.Fatal(err)
	}
	n := strings.Count(string(vocab), "\n")
	h, in := s.Hidden, s.Intermediate
	rng := rand.New(rand.NewPCG(1, uint64(s.Layers)))
	normal := func(k int) []float32 {
		v := make([]float32, k)
		for i := range v {
			v[i] = float32(rng.NormFloat64() * 0.05)
		}
		return v
	}
	ones := func(k int) []float32 {
		v := make([]float32, k)
		for i := range v {
			v[i] = 1
		}
		return v
	}
	tensors := []namedTensor{
		{"embeddings.word_embeddings.weight", []int{n, h}, normal(n * h)},
		{"embeddings.position_embeddings.weight", []int{s.MaxPositions, h}, normal(s.MaxPositions * h)},
		{"embeddings.token_type_embeddings.weight", []int{2, h}, normal(2 * h)},
		{"embeddings.LayerNorm.weight", []int{h}, ones(h)},
		{"embeddings.LayerNorm.bias", []int{h}, make([]float32, h)},
	}
	for l := range s.Layers {
		p := fmt.Sprintf("encoder.layer.%d.", l)
		for _, m := range []string{"attention.self.query", "attention.self.key", "attention.self.value", "attention.output.dense"} {
			tensors = append(tensors, namedTensor{p + m + ".weight", []int{h, h}, normal(h * h)}, namedTensor{p + m + ".bias", []int{h}, normal(h)})
		}
		tensors = append(tensors,
			namedTensor{p + "attention.output.LayerNorm.weight", []int{h}, ones(h)},
			namedTensor{p + "attention.output.LayerNorm.bias", []int{h}, make([]float32, h)},
			namedTensor{p + "intermediate.dense.weight", []int{in, h}, normal(in * h)},
			namedTensor{p + "intermediate.dense.bias", []int{in}, normal(in)},
			namedTensor{p + "output.dense.weight", []int{h, in}, normal(h * in)},
			namedTensor{p + "output.dense.bias", []int{h}, normal(h)},
			namedTensor{p + "output.LayerNorm.weight", []int{h}, ones(h)},
			namedTensor{p + "output.LayerNorm.bias", []int{h}, make([]float32, h)},
		)
	}
	writeSafetensors(t, filepath.Join(dir, "model.safetensors"), tensors)
	files := map[string]string{
		"vocab.txt":             string(vocab),
		"tokenizer_config.json": `{"do_lower_case": true, "model_max_length": 512}`,
		"config.json": fmt.Sprintf(`{"model_type": "bert", "architectures": ["BertModel"], "vocab_size": %d, "hidden_size": %d,
 "num_hidden_layers": %d, "num_attention_heads": %d, "intermediate_size": %d, "hidden_act": "gelu",
 "layer_norm_eps": 1e-12, "max_position_embeddings": %d, "type_vocab_size": 2, "position_embedding_type": "absolute"}`,
			n, h, s.Layers, s.Heads, in, s.MaxPositions),
		"modules.json": `[{"idx": 0, "name": "0", "path": "", "type": "sentence_transformers.models.Transformer"},
 {"idx": 1, "name": "1", "path": "1_Pooling", "type": "sentence_transformers.models.Pooling"},
 {"idx": 2, "name": "2", "path": "2_Normalize", "type": "sentence_transformers.models.Normalize"}]`,
		"sentence_bert_config.json": fmt.Sprintf(`{"max_seq_length": %d, "do_lower_case": false}`, s.MaxSeqLen),
		"1_Pooling/config.json":     fmt.Sprintf(`{"word_embedding_dimension": %d, "pooling_mode_mean_tokens": true}`, h),
	}
	writeFiles(t, dir, files)
	return dir
}

// RandomStatic writes, into a new folder, a model2vec model of dim
// dimensions with random weights and potion-base-8M's real tokenizer.
func RandomStatic(t testing.TB, dim int) string {
	t.Helper()
	dir := t.TempDir()
	tok := Gunzip(t, wordpieceData("potion-base-8M/tokenizer.json.gz"))
	var doc struct {
		Model struct {
			Vocab map[string]int `json:"vocab"`
		} `json:"model"`
	}
	if err := json.Unmarshal(tok, &doc); err != nil {
		t.Fatal(err)
	}
	n := len(doc.Model.Vocab)
	rng := rand.New(rand.NewPCG(2, uint64(dim)))
	table := make([]float32, n*dim)
	for i := range table {
		table[i] = float32(rng.NormFloat64())
	}
	writeSafetensors(t, filepath.Join(dir, "model.safetensors"), []namedTensor{{"embeddings", []int{n, dim}, table}})
	writeFiles(t, dir, map[string]string{
		"tokenizer.json": string(tok),
		"config.json":    fmt.Sprintf(`{"model_type": "model2vec", "architectures": ["StaticModel"], "hidden_dim": %d, "normalize": true}`, dim),
	})
	return dir
}

type namedTensor struct {
	name  string
	shape []int
	data  []float32
}

// writeSafetensors writes F32 tensors in the safetensors format: an
// 8-byte little-endian header length, a JSON header of names, dtypes,
// shapes and byte ranges, then the data.
func writeSafetensors(t testing.TB, path string, tensors []namedTensor) {
	t.Helper()
	header := map[string]any{}
	var off int64
	for _, x := range tensors {
		n := int64(4 * len(x.data))
		header[x.name] = map[string]any{"dtype": "F32", "shape": x.shape, "data_offsets": []int64{off, off + n}}
		off += n
	}
	head, err := json.Marshal(header)
	if err != nil {
		t.Fatal(err)
	}
	for len(head)%8 != 0 {
		head = append(head, ' ')
	}
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	w := bufio.NewWriterSize(f, 1<<20)
	var n [8]byte
	binary.LittleEndian.PutUint64(n[:], uint64(len(head)))
	w.Write(n[:])
	w.Write(head)
	var b [4]byte
	for _, x := range tensors {
		for _, v := range x.data {
			binary.LittleEndian.PutUint32(b[:], math.Float32bits(v))
			w.Write(b[:])
		}
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}

func writeFiles(t testing.TB, dir string, files map[string]string) {
	t.Helper()
	for name, content := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// Gunzip reads the gzipped file at path.
func Gunzip(t testing.TB, path string) []byte {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	data, err := io.ReadAll(zr)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// Package embedtest gives tests runnable tiny models: copies of the
// reference models in internal/embed/testdata (random weights made by
// testdata/refgen/gen.py) with a WordPiece vocabulary of letters, so that
// any English text tokenises to something.
package embedtest

import (
	"encoding/json"
	"fmt"
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

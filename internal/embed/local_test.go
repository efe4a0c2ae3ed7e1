package embed

import (
	"context"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/jarvis-mcp/jarvis/internal/embed/bert"
	"github.com/jarvis-mcp/jarvis/internal/embed/embedtest"
	"github.com/jarvis-mcp/jarvis/internal/embed/static"
)

func newLocal(t testing.TB, dir string, opts LocalOptions) *Local {
	t.Helper()
	l, err := NewLocal(dir, opts)
	if err != nil {
		t.Fatal(err)
	}
	return l
}

// TestLocalIsTheModel: a text that fits the window embeds to exactly what
// the model gives its ids, [CLS] and [SEP] around them for an encoder.
func TestLocalIsTheModel(t *testing.T) {
	ctx := context.Background()
	text := "Links and backlinks of the note."
	t.Run("transformer", func(t *testing.T) {
		dir := embedtest.TinyBERT(t, "mean_norm_f32")
		l := newLocal(t, dir, LocalOptions{Name: "tiny"})
		enc, err := bert.Load(dir)
		if err != nil {
			t.Fatal(err)
		}
		ids := l.tok.Encode(text)
		want, err := enc.Embed(ctx, [][]int32{append(append([]int32{l.tok.CLS()}, ids...), l.tok.SEP())})
		if err != nil {
			t.Fatal(err)
		}
		got, err := l.Embed(ctx, []string{text})
		if err != nil {
			t.Fatal(err)
		}
		closeTo(t, got[0], want[0], 1e-6)
		if l.Kind() != KindTransformer || l.Dimension() != enc.Dim() {
			t.Fatalf("kind %s, dimension %d", l.Kind(), l.Dimension())
		}
	})
	t.Run("static", func(t *testing.T) {
		dir := embedtest.TinyStatic(t, "m2v_f32", "")
		l := newLocal(t, dir, LocalOptions{Name: "tiny"})
		m, err := static.Load(dir)
		if err != nil {
			t.Fatal(err)
		}
		want := m.Pool(l.tok.Encode(text))
		normalize(want)
		got, err := l.Embed(ctx, []string{text})
		if err != nil {
			t.Fatal(err)
		}
		closeTo(t, got[0], want, 1e-6)
	})
}

// TestLocalWindows: a text longer than the window is embedded window by
// window and the windows' vectors averaged by their token counts.
func TestLocalWindows(t *testing.T) {
	ctx := context.Background()
	dir := embedtest.TinyBERT(t, "mean_norm_f32")
	l := newLocal(t, dir, LocalOptions{})
	words := strings.Repeat("the vault of notes and links to search in a note ", 8)
	ids := l.tok.Encode(words)
	if len(ids) <= l.window {
		t.Fatalf("the text is %d tokens, not longer than the window of %d", len(ids), l.window)
	}
	want := make([]float32, l.dim)
	for start := 0; start < len(ids); start += l.window {
		w := ids[start:min(start+l.window, len(ids))]
		v, err := l.enc.Embed(ctx, [][]int32{append(append([]int32{l.tok.CLS()}, w...), l.tok.SEP())})
		if err != nil {
			t.Fatal(err)
		}
		for j := range want {
			want[j] += float32(len(w)) * v[0][j]
		}
	}
	normalize(want)
	got, err := l.Embed(ctx, []string{words})
	if err != nil {
		t.Fatal(err)
	}
	closeTo(t, got[0], want, 1e-6)
	// Nothing past the first window is dropped: changing the last word
	// changes the vector.
	other, err := l.Embed(ctx, []string{strings.TrimSpace(words) + " back"})
	if err != nil {
		t.Fatal(err)
	}
	if slices.Equal(other[0], got[0]) {
		t.Fatal("a word after the first window changed nothing")
	}
}

// TestLocalPrefixes: queries and passages get their own prefixes, and the
// passage prefix is part of the fingerprint, as it changes every vector.
func TestLocalPrefixes(t *testing.T) {
	ctx := context.Background()
	dir := embedtest.TinyBERT(t, "mean_norm_f32")
	q, p := "query: ", "passage: "
	l := newLocal(t, dir, LocalOptions{QueryPrefix: &q, PassagePrefix: &p})
	plain := newLocal(t, dir, LocalOptions{})
	got, err := l.EmbedQuery(ctx, "links")
	if err != nil {
		t.Fatal(err)
	}
	want, err := plain.Embed(ctx, []string{"query: links"})
	if err != nil {
		t.Fatal(err)
	}
	closeTo(t, got, want[0], 0)
	pass, err := l.Embed(ctx, []string{"links"})
	if err != nil {
		t.Fatal(err)
	}
	wantPass, err := plain.Embed(ctx, []string{"passage: links"})
	if err != nil {
		t.Fatal(err)
	}
	closeTo(t, pass[0], wantPass[0], 0)
	if l.Fingerprint() == plain.Fingerprint() {
		t.Fatal("a passage prefix left the fingerprint as it was")
	}
}

// TestLocalFingerprintNamesTheWeights: other weights in the same folder
// under the same name are another embedder, so a change re-embeds.
func TestLocalFingerprintNamesTheWeights(t *testing.T) {
	dir := embedtest.TinyBERT(t, "mean_norm_f32")
	before := newLocal(t, dir, LocalOptions{Name: "tiny"}).Fingerprint()
	if !strings.Contains(before, "tiny") || !strings.HasPrefix(before, ProviderLocal+"/") {
		t.Fatalf("fingerprint %q does not name the provider and model", before)
	}
	path := filepath.Join(dir, "model.safetensors")
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	data[len(data)-1] ^= 0x40 // a weight's low bits
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	if after := newLocal(t, dir, LocalOptions{Name: "tiny"}).Fingerprint(); after == before {
		t.Fatalf("fingerprint %q unchanged after the weights changed", after)
	}
}

// TestLocalRefusesWhatItCannotRun: a folder that is not a supported model
// is refused with a message naming what is wrong.
func TestLocalRefusesWhatItCannotRun(t *testing.T) {
	dir := embedtest.TinyBERT(t, "mean_norm_f32")
	cfg := filepath.Join(dir, "config.json")
	var doc map[string]any
	embedtest.ReadJSON(t, cfg, &doc)
	doc["model_type"] = "roberta"
	data, _ := json.Marshal(doc)
	if err := os.WriteFile(cfg, data, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := NewLocal(dir, LocalOptions{}); err == nil || !strings.Contains(err.Error(), "roberta") {
		t.Fatalf("a RoBERTa config: %v; want an error naming it", err)
	}
	empty := t.TempDir()
	if _, err := NewLocal(empty, LocalOptions{}); err == nil {
		t.Fatal("an empty folder loaded as a model")
	}
}

func closeTo(t *testing.T, got, want []float32, tol float64) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%d dimensions, want %d", len(got), len(want))
	}
	for i := range got {
		if math.Abs(float64(got[i]-want[i])) > tol {
			t.Fatalf("dimension %d: %v, want %v (within %g)", i, got[i], want[i], tol)
		}
	}
}

// TestLocalWithRealVocabularies: models with the known models' real
// tokenizers (bert-base-uncased's vocab.txt, potion-base-8M's
// tokenizer.json) and random weights load and embed through the whole
// path, in the folder layouts the hub serves.
func TestLocalWithRealVocabularies(t *testing.T) {
	ctx := context.Background()
	small := embedtest.Shape{Layers: 1, Hidden: 32, Heads: 4, Intermediate: 64, MaxPositions: 64, MaxSeqLen: 64}
	for name, dir := range map[string]string{
		"transformer": embedtest.RandomBERT(t, small),
		"static":      embedtest.RandomStatic(t, 16),
	} {
		l, err := NewLocal(dir, LocalOptions{Name: name})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		ids := l.tok.Encode("Linking notes together with wikilinks")
		if len(ids) < 5 || slices.Contains(ids, l.tok.UNK()) {
			t.Errorf("%s: the real vocabulary gave %v", name, l.tok.Tokens("Linking notes together with wikilinks"))
		}
		vecs, err := l.Embed(ctx, []string{"Linking notes together with wikilinks", strings.Repeat("a long note about many things ", 40)})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		for i, v := range vecs {
			if n := norm(v); math.Abs(float64(n)-1) > 1e-5 {
				t.Errorf("%s: vector %d has norm %v", name, i, n)
			}
		}
	}
}

// TestLocalSavedPrompts: a model the catalogue does not know takes its
// prefixes from the prompts sentence-transformers saved with it.
func TestLocalSavedPrompts(t *testing.T) {
	dir := embedtest.TinyBERT(t, "mean_norm_f32")
	if err := os.WriteFile(filepath.Join(dir, "config_sentence_transformers.json"),
		[]byte(`{"prompts": {"query": "Represent the question: ", "document": "doc: "}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	l := newLocal(t, dir, LocalOptions{})
	if l.queryPrefix != "Represent the question: " || l.passPrefix != "doc: " {
		t.Fatalf("prefixes %q and %q", l.queryPrefix, l.passPrefix)
	}
}

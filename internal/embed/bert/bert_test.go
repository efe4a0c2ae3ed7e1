package bert

import (
	"context"
	"encoding/json"
	"errors"
	"github.com/jarvis-mcp/jarvis/internal/embed/embedtest"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
)

// The reference directories are written by ../testdata/refgen/gen.py,
// which runs BertModel's forward pass in torch (float64, padded batches
// with an attention mask) on tiny random models.
const refDir = "../testdata/bert"

type reference struct {
	Dim       int     `json:"dim"`
	Pooling   Pooling `json:"pooling"`
	Normalize bool    `json:"normalize"`
	MaxSeqLen int     `json:"max_seq_len"`
	Single    []struct {
		IDs  []int32   `json:"ids"`
		Want []float64 `json:"want"`
	} `json:"single"`
	Batch struct {
		IDs  [][]int32   `json:"ids"`
		Want [][]float64 `json:"want"`
	} `json:"batch"`
}

func readReference(t *testing.T, dir string) reference {
	t.Helper()
	var ref reference
	embedtest.ReadJSON(t, filepath.Join(dir, "reference.json"), &ref)
	return ref
}

const tolerance = 1e-5

func assertClose(t *testing.T, what string, got []float32, want []float64) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d dimensions, want %d", what, len(got), len(want))
	}
	worst, at := 0.0, 0
	for i := range got {
		if d := math.Abs(float64(got[i]) - want[i]); d > worst || math.IsNaN(d) {
			worst, at = d, i
		}
	}
	if testing.Verbose() {
		t.Logf("%s: largest difference %.2g", what, worst)
	}
	if !(worst <= tolerance) {
		t.Errorf("%s: dimension %d differs by %g (got %g, want %g)", what, at, worst, got[at], want[at])
	}
}

// TestMatchesReference runs every reference model (F32, F16 and BF16
// weights; mean and CLS pooling; with and without Normalize) one sequence
// at a time and as one batch whose torch reference was padded and masked.
func TestMatchesReference(t *testing.T) {
	dirs, err := os.ReadDir(refDir)
	if err != nil {
		t.Fatal(err)
	}
	if len(dirs) < 5 {
		t.Fatalf("only %d reference models in %s", len(dirs), refDir)
	}
	ctx := context.Background()
	for _, d := range dirs {
		t.Run(d.Name(), func(t *testing.T) {
			dir := filepath.Join(refDir, d.Name())
			ref := readReference(t, dir)
			m, err := Load(dir)
			if err != nil {
				t.Fatal(err)
			}
			if m.Dim() != ref.Dim || m.Pooling() != ref.Pooling || m.Normalize() != ref.Normalize || m.MaxSeqLen() != ref.MaxSeqLen {
				t.Errorf("Dim, Pooling, Normalize, MaxSeqLen = %d, %s, %v, %d; want %d, %s, %v, %d",
					m.Dim(), m.Pooling(), m.Normalize(), m.MaxSeqLen(), ref.Dim, ref.Pooling, ref.Normalize, ref.MaxSeqLen)
			}
			for i, c := range ref.Single {
				got, err := m.Embed(ctx, [][]int32{c.IDs})
				if err != nil {
					t.Fatal(err)
				}
				assertClose(t, "single "+strconv.Itoa(i), got[0], c.Want)
			}
			got, err := m.Embed(ctx, ref.Batch.IDs)
			if err != nil {
				t.Fatal(err)
			}
			for i := range got {
				assertClose(t, "batch row "+strconv.Itoa(i), got[i], ref.Batch.Want[i])
			}
		})
	}
}

// TestParallelPathsMatchReference repeats the reference check with every
// parallel step forced on, since the tiny models fall below the thresholds.
func TestParallelPathsMatchReference(t *testing.T) {
	attn, rows := parallelAttentionWork, parallelRowsWork
	parallelAttentionWork, parallelRowsWork = 0, 0
	defer func() { parallelAttentionWork, parallelRowsWork = attn, rows }()
	TestMatchesReference(t)
}

// TestPoolingChoicesDiffer checks that the reference models' pooling and
// normalisation settings change the output the way they should.
func TestPoolingChoicesDiffer(t *testing.T) {
	ctx := context.Background()
	norm, err := Load(filepath.Join(refDir, "mean_norm_f32"))
	if err != nil {
		t.Fatal(err)
	}
	raw, err := Load(filepath.Join(refDir, "mean_raw_f16"))
	if err != nil {
		t.Fatal(err)
	}
	cls, err := Load(filepath.Join(refDir, "cls_raw_f32"))
	if err != nil {
		t.Fatal(err)
	}
	ids := [][]int32{{2, 10, 11, 12, 3}}
	for _, c := range []struct {
		name string
		m    *Model
		unit bool
	}{{"mean+normalize", norm, true}, {"mean", raw, false}, {"cls", cls, false}} {
		v, err := c.m.Embed(ctx, ids)
		if err != nil {
			t.Fatal(err)
		}
		n := 0.0
		for _, x := range v[0] {
			n += float64(x) * float64(x)
		}
		if isUnit := math.Abs(math.Sqrt(n)-1) < 1e-5; isUnit != c.unit {
			t.Errorf("%s: norm %g, unit = %v, want %v", c.name, math.Sqrt(n), isUnit, c.unit)
		}
	}
	// CLS pooling reads only the first token's state, which still depends
	// on every token through attention.
	a, _ := cls.Embed(ctx, [][]int32{{2, 10, 11, 3}})
	b, _ := cls.Embed(ctx, [][]int32{{2, 10, 12, 3}})
	if equal32(a[0], b[0]) {
		t.Error("CLS pooling ignored the tokens after [CLS]")
	}
}

func equal32(a, b []float32) bool {
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return len(a) == len(b)
}

func TestEmbedRejectsBadInput(t *testing.T) {
	m, err := Load(filepath.Join(refDir, "mean_norm_f32"))
	if err != nil {
		t.Fatal(err)
	}
	long := make([]int32, m.Config().MaxPositionEmbeddings+1)
	cases := map[string][][]int32{
		"empty sequence": {{2, 3}, {}},
		"id too large":   {{2, 100, 3}},
		"negative id":    {{2, -1, 3}},
		"past positions": {long},
	}
	for name, batch := range cases {
		if _, err := m.Embed(context.Background(), batch); err == nil {
			t.Errorf("%s: Embed succeeded", name)
		}
	}
	got, err := m.Embed(context.Background(), nil)
	if err != nil || len(got) != 0 {
		t.Errorf("Embed(nil) = %v, %v", got, err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := m.Embed(ctx, [][]int32{{2, 3}}); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled Embed error = %v", err)
	}
}

// TestConcurrentEmbed runs many Embed calls at once (the race detector
// checks the shared scratch pool) and requires each to give the result it
// gives alone.
func TestConcurrentEmbed(t *testing.T) {
	dir := filepath.Join(refDir, "mean_norm_f32")
	ref := readReference(t, dir)
	m, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			for r := 0; r < 5; r++ {
				c := ref.Single[(g+r)%len(ref.Single)]
				got, err := m.Embed(context.Background(), [][]int32{c.IDs, ref.Batch.IDs[len(ref.Batch.IDs)-1]})
				if err != nil {
					t.Error(err)
					return
				}
				assertClose(t, "concurrent", got[0], c.Want)
			}
		}(g)
	}
	wg.Wait()
}

// writeModelDir copies a reference model and applies edits to its JSON
// files, for refusal tests.
func writeModelDir(t *testing.T, from string, edits map[string]func(map[string]any)) string {
	t.Helper()
	dst := t.TempDir()
	err := filepath.WalkDir(from, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(from, p)
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		}
		raw, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		if edit, ok := edits[filepath.ToSlash(rel)]; ok {
			var v map[string]any
			if err := json.Unmarshal(raw, &v); err != nil {
				return err
			}
			edit(v)
			if raw, err = json.Marshal(v); err != nil {
				return err
			}
		}
		return os.WriteFile(filepath.Join(dst, rel), raw, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	return dst
}

func TestLoadRefusesUnsupported(t *testing.T) {
	from := filepath.Join(refDir, "mean_norm_f32")
	set := func(k string, v any) func(map[string]any) { return func(m map[string]any) { m[k] = v } }
	cases := []struct {
		name        string
		edits       map[string]func(map[string]any)
		remove      string
		add         string
		modules     string
		want        string
		unsupported bool
	}{
		{name: "roberta", edits: map[string]func(map[string]any){"config.json": set("model_type", "roberta")}, want: `"roberta"`, unsupported: true},
		{name: "nomic_bert", edits: map[string]func(map[string]any){"config.json": set("model_type", "nomic_bert")}, want: `"nomic_bert"`, unsupported: true},
		{name: "relative positions", edits: map[string]func(map[string]any){"config.json": set("position_embedding_type", "relative_key")}, want: "relative_key", unsupported: true},
		{name: "activation", edits: map[string]func(map[string]any){"config.json": set("hidden_act", "swish")}, want: "swish", unsupported: true},
		{name: "max pooling", edits: map[string]func(map[string]any){"1_Pooling/config.json": func(m map[string]any) {
			m["pooling_mode_mean_tokens"] = false
			m["pooling_mode_max_tokens"] = true
		}}, want: "pooling_mode_max_tokens", unsupported: true},
		{name: "two poolings", edits: map[string]func(map[string]any){"1_Pooling/config.json": set("pooling_mode_cls_token", true)}, want: "pooling_mode_cls_token", unsupported: true},
		{name: "dense module", modules: `[{"path":"","type":"sentence_transformers.models.Transformer"},{"path":"1_Pooling","type":"sentence_transformers.models.Pooling"},{"path":"2_Dense","type":"sentence_transformers.models.Dense"}]`, want: "Dense", unsupported: true},
		{name: "no weights", remove: "model.safetensors", want: "model.safetensors"},
		{name: "pickle weights", remove: "model.safetensors", add: "pytorch_model.bin", want: "pytorch_model.bin", unsupported: true},
		{name: "no modules.json", remove: "modules.json", want: "modules.json"},
		{name: "missing layer", edits: map[string]func(map[string]any){"config.json": set("num_hidden_layers", 3)}, want: "encoder.layer.2."},
		{name: "wrong width", edits: map[string]func(map[string]any){"config.json": set("intermediate_size", 65)}, want: "intermediate.dense.weight"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := writeModelDir(t, from, c.edits)
			if c.remove != "" {
				if err := os.Remove(filepath.Join(dir, c.remove)); err != nil {
					t.Fatal(err)
				}
			}
			if c.add != "" {
				if err := os.WriteFile(filepath.Join(dir, c.add), []byte("not read"), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			if c.modules != "" {
				if err := os.WriteFile(filepath.Join(dir, "modules.json"), []byte(c.modules), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			_, err := Load(dir)
			if err == nil {
				t.Fatal("Load succeeded")
			}
			if !strings.Contains(err.Error(), c.want) {
				t.Errorf("error %q does not name %q", err, c.want)
			}
			if errors.Is(err, ErrUnsupported) != c.unsupported {
				t.Errorf("errors.Is(err, ErrUnsupported) = %v, want %v", !c.unsupported, c.unsupported)
			}
		})
	}
}

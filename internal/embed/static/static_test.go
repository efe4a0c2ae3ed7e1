package static

import (
	"encoding/json"
	"github.com/jarvis-mcp/jarvis/internal/embed/embedtest"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// The reference directories are written by ../testdata/refgen/gen.py from
// model2vec's and sentence-transformers' pooling definitions, in numpy.
const refDir = "../testdata/static"

type reference struct {
	Format    Format `json:"format"`
	Dim       int    `json:"dim"`
	Normalize bool   `json:"normalize"`
	UnkID     int32  `json:"unk_id"`
	MaxTokens int    `json:"max_tokens"`
	MaxChars  int    `json:"max_chars"`
	Single    []struct {
		IDs  []int32   `json:"ids"`
		Want []float64 `json:"want"`
	} `json:"single"`
}

func readReference(t *testing.T, dir string) reference {
	t.Helper()
	var ref reference
	embedtest.ReadJSON(t, filepath.Join(dir, "reference.json"), &ref)
	return ref
}

// TestMatchesReference covers model2vec with and without vocabulary
// quantisation (mapping and per-token weights), normalised or not, and
// sentence-transformers StaticEmbedding with and without Normalize, in F32
// and F16; the id sequences include empty ones, unknown tokens and one
// longer than model2vec's 512-token limit.
func TestMatchesReference(t *testing.T) {
	dirs, err := os.ReadDir(refDir)
	if err != nil {
		t.Fatal(err)
	}
	if len(dirs) < 4 {
		t.Fatalf("only %d reference models in %s", len(dirs), refDir)
	}
	for _, d := range dirs {
		t.Run(d.Name(), func(t *testing.T) {
			dir := filepath.Join(refDir, d.Name())
			ref := readReference(t, dir)
			m, err := Load(dir)
			if err != nil {
				t.Fatal(err)
			}
			unk, hasUnk := m.UnknownID()
			if m.Format() != ref.Format || m.Dim() != ref.Dim || m.Normalize() != ref.Normalize ||
				m.MaxTokens() != ref.MaxTokens || hasUnk != (ref.UnkID >= 0) || hasUnk && unk != ref.UnkID {
				t.Errorf("model says format %s dim %d normalize %v max tokens %d unknown %d/%v; reference %+v",
					m.Format(), m.Dim(), m.Normalize(), m.MaxTokens(), unk, hasUnk, ref)
			}
			if ref.MaxChars > 0 {
				long := strings.Repeat("é", ref.MaxChars+5)
				if got := m.ClipText(long); got != strings.Repeat("é", ref.MaxChars) {
					t.Errorf("ClipText kept %d characters, want %d", len([]rune(got)), ref.MaxChars)
				}
			}
			for i, c := range ref.Single {
				got := m.Pool(c.IDs)
				if len(got) != len(c.Want) {
					t.Fatalf("case %d: %d dimensions, want %d", i, len(got), len(c.Want))
				}
				for j := range got {
					if d := math.Abs(float64(got[j]) - c.Want[j]); !(d <= 1e-5) {
						t.Errorf("case %d (%d ids): dimension %d = %g, want %g", i, len(c.IDs), j, got[j], c.Want[j])
						break
					}
				}
			}
		})
	}
}

func TestClipTextShort(t *testing.T) {
	m, err := Load(filepath.Join(refDir, "m2v_f32"))
	if err != nil {
		t.Fatal(err)
	}
	if got := m.ClipText("short text"); got != "short text" {
		t.Errorf("ClipText changed a short text to %q", got)
	}
	st, err := Load(filepath.Join(refDir, "st_norm_f32"))
	if err != nil {
		t.Fatal(err)
	}
	long := strings.Repeat("word ", 10000)
	if st.ClipText(long) != long {
		t.Error("sentence-transformers format clipped text")
	}
}

// TestPoolIgnoresOutOfRange checks that ids past the vocabulary are skipped
// rather than read from beyond the table.
func TestPoolIgnoresOutOfRange(t *testing.T) {
	m, err := Load(filepath.Join(refDir, "st_raw_f16"))
	if err != nil {
		t.Fatal(err)
	}
	a := m.Pool([]int32{7, 9})
	b := m.Pool([]int32{7, 1 << 30, 9, -4})
	for i := range a {
		if a[i] != b[i] {
			t.Fatalf("dimension %d: %g with out-of-range ids, %g without", i, b[i], a[i])
		}
	}
}

func copyDir(t *testing.T, from string) string {
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
		return os.WriteFile(filepath.Join(dst, rel), raw, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	return dst
}

func TestLoadRefuses(t *testing.T) {
	cases := []struct {
		name  string
		from  string
		edit  func(t *testing.T, dir string)
		wants string
	}{
		{"empty dir", "", func(t *testing.T, dir string) {}, "neither"},
		{"model2vec without tokenizer", "m2v_f32", func(t *testing.T, dir string) {
			os.Remove(filepath.Join(dir, "tokenizer.json"))
		}, "tokenizer.json"},
		{"model2vec vocabulary mismatch", "m2v_f32", func(t *testing.T, dir string) {
			tok := filepath.Join(dir, "tokenizer.json")
			raw, _ := os.ReadFile(tok)
			var v map[string]any
			json.Unmarshal(raw, &v)
			vocab := v["model"].(map[string]any)["vocab"].(map[string]any)
			vocab["extra"] = len(vocab)
			raw, _ = json.Marshal(v)
			os.WriteFile(tok, raw, 0o644)
		}, "121 tokens"},
		{"other module", "st_norm_f32", func(t *testing.T, dir string) {
			os.WriteFile(filepath.Join(dir, "modules.json"), []byte(`[{"path":"0_StaticEmbedding","type":"sentence_transformers.models.StaticEmbedding"},{"path":"1_Dense","type":"sentence_transformers.models.Dense"}]`), 0o644)
		}, "Dense"},
		{"not static", "st_norm_f32", func(t *testing.T, dir string) {
			os.WriteFile(filepath.Join(dir, "modules.json"), []byte(`[{"path":"","type":"sentence_transformers.models.Transformer"}]`), 0o644)
		}, "StaticEmbedding"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			if c.from != "" {
				dir = copyDir(t, filepath.Join(refDir, c.from))
			}
			c.edit(t, dir)
			_, err := Load(dir)
			if err == nil {
				t.Fatal("Load succeeded")
			}
			if !strings.Contains(err.Error(), c.wants) || !strings.Contains(err.Error(), dir) {
				t.Errorf("error %q should name %q and the directory", err, c.wants)
			}
		})
	}
}

func TestMedianFloor(t *testing.T) {
	for i, c := range []struct {
		in   []int
		want int
	}{{nil, 0}, {[]int{3}, 3}, {[]int{1, 4}, 2}, {[]int{5, 1, 4, 2}, 3}, {[]int{2, 3, 9}, 3}} {
		if got := medianFloor(c.in); got != c.want {
			t.Errorf("case %s: medianFloor = %d, want %d", strconv.Itoa(i), got, c.want)
		}
	}
}

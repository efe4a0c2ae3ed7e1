package eval

import (
	"context"
	"math"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jarvis-mcp/jarvis/internal/sharedtest"
)

func TestSpearman(t *testing.T) {
	for _, c := range []struct {
		name string
		x, y []float64
		want float64
	}{
		{"same order", []float64{1, 2, 3, 4}, []float64{10, 20, 30, 40}, 1},
		{"reversed", []float64{1, 2, 3, 4}, []float64{4, 3, 2, 1}, -1},
		// Ranks, not values: a cube keeps the order, so the correlation is
		// 1 where Pearson's on the values would not be.
		{"monotone, not linear", []float64{1, 2, 3, 10}, []float64{1, 8, 27, 1000}, 1},
		// x's ranks are 1.5, 1.5, 3, 4: covariance 4.5 over sqrt(4.5 * 5).
		{"tie shares its ranks", []float64{1, 1, 2, 3}, []float64{1, 2, 3, 4}, 4.5 / math.Sqrt(22.5)},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := Spearman(c.x, c.y); math.Abs(got-c.want) > 1e-12 {
				t.Errorf("Spearman = %v, want %v", got, c.want)
			}
		})
	}
	if got := Spearman([]float64{2, 2, 2}, []float64{1, 2, 3}); !math.IsNaN(got) {
		t.Errorf("Spearman of a constant = %v, want NaN", got)
	}
}

func TestLoadSTSB(t *testing.T) {
	dir := t.TempDir()
	sharedtest.WriteFile(t, dir, "good.csv", "sentence1,sentence2,score\nA cat sits.,\"A cat, sitting.\",4.6\nA man runs.,It rains.,0.0\n")
	pairs, err := LoadSTSB(filepath.Join(dir, "good.csv"))
	if err != nil {
		t.Fatal(err)
	}
	want := []Pair{{"A cat sits.", "A cat, sitting.", 4.6}, {"A man runs.", "It rains.", 0}}
	if len(pairs) != len(want) || pairs[0] != want[0] || pairs[1] != want[1] {
		t.Fatalf("pairs = %+v, want %+v", pairs, want)
	}
	sharedtest.WriteFile(t, dir, "bad.csv", "A,B,1.0\nC,D,high\n")
	if _, err := LoadSTSB(filepath.Join(dir, "bad.csv")); err == nil || !strings.Contains(err.Error(), "row 2") {
		t.Fatalf("a score that is not a number on row 2: err = %v", err)
	}
}

// angleEmbedder places a text of n runes at angle n/20 on the unit circle,
// so texts of close lengths are similar (up to 62 runes, half a turn).
type angleEmbedder struct{ calls int }

func (*angleEmbedder) Fingerprint() string { return "test/angle/2" }
func (*angleEmbedder) Provider() string    { return "test" }
func (*angleEmbedder) Model() string       { return "angle" }
func (*angleEmbedder) Dimension() int      { return 2 }
func (e *angleEmbedder) Embed(_ context.Context, texts []string) ([][]float32, error) {
	e.calls++
	out := make([][]float32, len(texts))
	for i, s := range texts {
		a := float64(len([]rune(s))) / 20
		out[i] = []float32{float32(math.Cos(a)), float32(math.Sin(a))}
	}
	return out, nil
}

func TestScorePairs(t *testing.T) {
	// The further apart two sentences' lengths, the less alike people
	// found them: cosine falls as the score does, so the correlation is 1.
	var pairs []Pair
	for d := range 50 {
		pairs = append(pairs, Pair{A: "x", B: strings.Repeat("x", 1+d), Score: 5 - float64(d)/10})
	}
	emb := &angleEmbedder{}
	got, err := ScorePairs(context.Background(), emb, pairs)
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(got-1) > 1e-12 {
		t.Errorf("Spearman = %v, want 1", got)
	}
	if emb.calls != 2 {
		t.Errorf("100 sentences took %d calls to the embedder, want 2 batches of at most %d", emb.calls, stsbBatch)
	}
}

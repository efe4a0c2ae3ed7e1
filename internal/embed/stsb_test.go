package embed

import (
	"context"
	"encoding/csv"
	"io"
	"math"
	"os"
	"slices"
	"strconv"
	"testing"

	"github.com/jarvis-mcp/jarvis/internal/sharedtest"
)

// stsbSpearman is the Spearman correlation of the lexical embedder's cosine
// similarities with the human scores of STS-B's English training pairs,
// with document frequencies fitted on all of the file's sentences.
// Measured by: go test ./internal/embed/ -run 'TestLexicalSTSB$' -v
const stsbSpearman = 0.7325

// stsbPair is one sentence pair of STS-B with its human similarity (0-5).
type stsbPair struct {
	a, b  string
	score float64
}

func readSTSB(tb testing.TB) []stsbPair {
	tb.Helper()
	f, err := os.Open(sharedtest.Path(tb, "datasets/stsb/stsb-en-train.csv"))
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	r := csv.NewReader(f)
	r.FieldsPerRecord = 3
	var pairs []stsbPair
	for {
		rec, err := r.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			tb.Fatal(err)
		}
		score, err := strconv.ParseFloat(rec[2], 64)
		if err != nil {
			if len(pairs) == 0 {
				continue // a header row
			}
			tb.Fatalf("line %d: %v", len(pairs)+1, err)
		}
		pairs = append(pairs, stsbPair{rec[0], rec[1], score})
	}
	if len(pairs) < 1000 {
		tb.Fatalf("only %d STS-B pairs read", len(pairs))
	}
	return pairs
}

// stsbScore fits a lexical embedder with params p on every sentence of
// pairs and returns the Spearman correlation of its cosines with the
// human scores.
func stsbScore(tb testing.TB, pairs []stsbPair, p lexicalParams) float64 {
	tb.Helper()
	f := newLexicalFitter(p)
	texts := make([]string, 0, 2*len(pairs))
	for _, pr := range pairs {
		texts = append(texts, pr.a, pr.b)
	}
	for _, t := range texts {
		f.Add(t)
	}
	l := f.Lexical()
	vecs, err := l.Embed(context.Background(), texts)
	if err != nil {
		tb.Fatal(err)
	}
	cos := make([]float64, len(pairs))
	human := make([]float64, len(pairs))
	for i, pr := range pairs {
		cos[i] = dot(vecs[2*i], vecs[2*i+1])
		human[i] = pr.score
	}
	return spearman(cos, human)
}

func dot(a, b []float32) float64 {
	var s float64
	for i := range a {
		s += float64(a[i]) * float64(b[i])
	}
	return s
}

// spearman is the Pearson correlation of the ranks of x and y, ties
// sharing their average rank.
func spearman(x, y []float64) float64 {
	return pearson(ranks(x), ranks(y))
}

func ranks(x []float64) []float64 {
	idx := make([]int, len(x))
	for i := range idx {
		idx[i] = i
	}
	slices.SortFunc(idx, func(a, b int) int {
		switch {
		case x[a] < x[b]:
			return -1
		case x[a] > x[b]:
			return 1
		}
		return 0
	})
	r := make([]float64, len(x))
	for i := 0; i < len(idx); {
		j := i
		for j+1 < len(idx) && x[idx[j+1]] == x[idx[i]] {
			j++
		}
		avg := float64(i+j)/2 + 1
		for k := i; k <= j; k++ {
			r[idx[k]] = avg
		}
		i = j + 1
	}
	return r
}

func pearson(x, y []float64) float64 {
	var mx, my float64
	for i := range x {
		mx += x[i]
		my += y[i]
	}
	mx /= float64(len(x))
	my /= float64(len(y))
	var sxy, sxx, syy float64
	for i := range x {
		dx, dy := x[i]-mx, y[i]-my
		sxy += dx * dy
		sxx += dx * dx
		syy += dy * dy
	}
	return sxy / math.Sqrt(sxx*syy)
}

func TestLexicalSTSB(t *testing.T) {
	pairs := readSTSB(t)
	got := stsbScore(t, pairs, defaultLexicalParams)
	t.Logf("STS-B train Spearman: %.4f over %d pairs", got, len(pairs))
	if got < stsbSpearman-0.01 {
		t.Errorf("STS-B Spearman %.4f fell below %.4f - 0.01", got, stsbSpearman)
	}
}

// cranfieldNDCG is the lexical embedder's mean nDCG@10 on the Cranfield
// collection, document frequencies fitted on its abstracts: the retrieval
// side that STS-B's sentence pairs leave out.
// Measured by: go test ./internal/embed/ -run 'TestLexicalCranfield$' -v
const cranfieldNDCG = 0.3348

func TestLexicalCranfield(t *testing.T) {
	ndcg, mrr := readCranfield(t).score(t, defaultLexicalParams)
	t.Logf("Cranfield nDCG@10 %.4f, MRR %.4f", ndcg, mrr)
	if ndcg < cranfieldNDCG-0.01 {
		t.Errorf("Cranfield nDCG@10 %.4f fell below %.4f - 0.01", ndcg, cranfieldNDCG)
	}
}

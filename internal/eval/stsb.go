package eval

import (
	"context"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"

	"github.com/jarvis-mcp/jarvis/internal/embed"
)

// Pair is one STS-B sentence pair with the similarity people gave it, 0
// (unrelated) to 5 (the same meaning).
type Pair struct {
	A, B  string
	Score float64
}

// LoadSTSB reads STS-B pairs from a CSV file of rows sentence1, sentence2,
// score. A first row whose score is not a number is taken as a header.
func LoadSTSB(path string) ([]Pair, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	r := csv.NewReader(f)
	r.FieldsPerRecord = 3
	var out []Pair
	for row := 1; ; row++ {
		rec, err := r.Read()
		if errors.Is(err, io.EOF) {
			return out, nil
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		score, err := strconv.ParseFloat(rec[2], 64)
		if err != nil {
			if row == 1 {
				continue
			}
			return nil, fmt.Errorf("%s: row %d: score %q is not a number", path, row, rec[2])
		}
		out = append(out, Pair{A: rec[0], B: rec[1], Score: score})
	}
}

// stsbBatch is how many sentences go to the embedder at once.
const stsbBatch = 64

// ScorePairs embeds both sentences of every pair as passages, the way notes
// are embedded, and returns the Spearman correlation of their cosine
// similarities with the people's scores.
func ScorePairs(ctx context.Context, emb embed.Embedder, pairs []Pair) (float64, error) {
	texts := make([]string, 0, 2*len(pairs))
	for _, p := range pairs {
		texts = append(texts, p.A, p.B)
	}
	vecs := make([][]float32, 0, len(texts))
	for start := 0; start < len(texts); start += stsbBatch {
		got, err := emb.Embed(ctx, texts[start:min(start+stsbBatch, len(texts))])
		if err != nil {
			return 0, fmt.Errorf("embed STS-B sentences: %w", err)
		}
		vecs = append(vecs, got...)
	}
	if len(vecs) != len(texts) {
		return 0, fmt.Errorf("embed STS-B sentences: %d vectors for %d sentences", len(vecs), len(texts))
	}
	cos := make([]float64, len(pairs))
	human := make([]float64, len(pairs))
	for i, p := range pairs {
		// Vectors are unit length, so the dot product is the cosine.
		var dot float64
		for j, x := range vecs[2*i] {
			dot += float64(x) * float64(vecs[2*i+1][j])
		}
		cos[i], human[i] = dot, p.Score
	}
	return Spearman(cos, human), nil
}

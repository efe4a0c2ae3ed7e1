package embed

import (
	"fmt"
	"os"
	"testing"
)

// TestLexicalTune prints the STS-B Spearman correlation of each tuning step
// that led to defaultLexicalParams, then of variations around it, for
// docs/embedders.md. It takes about a minute, so it runs only when asked:
//
//	JARVIS_TUNE=1 go test ./internal/embed/ -run TestLexicalTune -v
func TestLexicalTune(t *testing.T) {
	if os.Getenv("JARVIS_TUNE") == "" {
		t.Skip("set JARVIS_TUNE=1 to print the tuning table")
	}
	pairs := readSTSB(t)
	try := func(name string, p lexicalParams) {
		t.Logf("%-62s %.4f", name, stsbScore(t, pairs, p))
	}

	t.Log("cumulative steps:")
	p := lexicalParams{dim: LexicalDimension, charWeight: [maxCharGram + 1]float32{3: 1}, idfAdd: 1, idfPower: 1}
	try("0 char 3-grams, smoothed TF-IDF", p)
	p.wordWeight, p.bigramWeight, p.charWeight[4] = 1, 1, 1
	try("1 + words, bigrams, char 4-grams, equal weights", p)
	p.wordWeight, p.bigramWeight = 0.3, 0.1
	try("2 words 0.3, bigrams 0.1", p)
	p.familyNorm = true
	try("3 + each family L2-normalised before weighting", p)
	p.idfAdd = 0
	try("4 IDF ln((1+N)/(1+df)) without +1", p)
	p.charLenPower = 0.5
	try("5 + char n-grams weighted by (word length+2)^-0.5", p)
	p.charWeight = [maxCharGram + 1]float32{2: 0.5, 3: 1, 4: 0.5}
	try("6 + char 2-grams; n-gram weights 0.5, 1, 0.5 for n=2,3,4", p)
	if p != defaultLexicalParams {
		t.Errorf("the last step is not defaultLexicalParams: %+v", p)
	}

	t.Log("variations on the default:")
	vary := func(name string, change func(*lexicalParams)) {
		q := defaultLexicalParams
		change(&q)
		try(name, q)
	}
	for _, d := range []int{256, 384, 768, 1024, 4096} {
		vary(fmt.Sprintf("dimension %d", d), func(q *lexicalParams) { q.dim = d })
	}
	vary("stop words dropped from words and bigrams", func(q *lexicalParams) { q.stopWords = true })
	vary("no family normalisation", func(q *lexicalParams) { q.familyNorm = false })
	vary("IDF +1 (scikit-learn smoothing)", func(q *lexicalParams) { q.idfAdd = 1 })
	vary("IDF squared-root (power 0.5)", func(q *lexicalParams) { q.idfPower = 0.5 })
	vary("IDF power 1.5", func(q *lexicalParams) { q.idfPower = 1.5 })
	vary("no IDF", func(q *lexicalParams) { q.idfPower = 0 })
	for _, lp := range []float64{0, 0.25, 0.75, 1} {
		vary(fmt.Sprintf("length power %v", lp), func(q *lexicalParams) { q.charLenPower = lp })
	}
	for _, w := range []float32{0, 0.6, 1} {
		vary(fmt.Sprintf("word weight %v", w), func(q *lexicalParams) { q.wordWeight = w })
	}
	for _, w := range []float32{0, 0.3} {
		vary(fmt.Sprintf("bigram weight %v", w), func(q *lexicalParams) { q.bigramWeight = w })
	}
	for _, cw := range [][maxCharGram + 1]float32{
		{3: 1, 4: 1}, {2: 1, 3: 1}, {2: 1, 3: 1, 4: 1}, {1: 0.5, 2: 0.5, 3: 1, 4: 0.5}, {2: 0.5, 3: 1, 4: 0.5, 5: 0.3}, {2: 0.3, 3: 1, 4: 0.7},
	} {
		vary(fmt.Sprintf("char n-gram weights %v", cw[1:]), func(q *lexicalParams) { q.charWeight = cw })
	}
}

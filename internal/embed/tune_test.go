package embed

import (
	"bufio"
	"context"
	"fmt"
	"math"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/jarvis-mcp/jarvis/internal/sharedtest"
)

// TestLexicalTune prints, for each tuning step that led to
// defaultLexicalParams and for variations around it, the STS-B Spearman
// correlation and the Cranfield nDCG@10 and MRR, for docs/embedders.md.
// It takes a few minutes, so it runs only when asked:
//
//	JARVIS_TUNE=1 go test ./internal/embed/ -run TestLexicalTune -v -timeout 30m
func TestLexicalTune(t *testing.T) {
	if os.Getenv("JARVIS_TUNE") == "" {
		t.Skip("set JARVIS_TUNE=1 to print the tuning table")
	}
	pairs := readSTSB(t)
	cran := readCranfield(t)
	try := func(name string, p lexicalParams) {
		ndcg, mrr := cran.score(t, p)
		t.Logf("| %-58s | %.4f | %.4f | %.4f |", name, stsbScore(t, pairs, p), ndcg, mrr)
	}

	t.Log("cumulative steps:")
	p := lexicalParams{dim: 512, charWeight: [maxCharGram + 1]float32{3: 1}, idfAdd: 1, idfPower: 1}
	try("0 char 3-grams, smoothed TF-IDF, 512 dimensions", p)
	p.wordWeight, p.bigramWeight, p.charWeight[4] = 1, 1, 1
	try("1 + words, bigrams, char 4-grams, equal weights", p)
	p.wordWeight, p.bigramWeight = 0.3, 0.1
	try("2 words 0.3, bigrams 0.1", p)
	p.familyNorm = true
	try("3 + each family L2-normalised before weighting", p)
	p.charLenPower = 0.5
	try("4 + char n-grams weighted by (word length+2)^-0.5", p)
	p.dim = LexicalDimension
	try("5 768 dimensions (the default)", p)
	if p != defaultLexicalParams {
		t.Errorf("the last step is not defaultLexicalParams: %+v", p)
	}

	t.Log("variations on the default:")
	vary := func(name string, change func(*lexicalParams)) {
		q := defaultLexicalParams
		change(&q)
		try(name, q)
	}
	for _, d := range []int{256, 384, 512, 1024, 2048} {
		vary(fmt.Sprintf("%d dimensions", d), func(q *lexicalParams) { q.dim = d })
	}
	vary("stop words dropped from words and bigrams", func(q *lexicalParams) { q.stopWords = true })
	vary("no family normalisation", func(q *lexicalParams) { q.familyNorm = false })
	vary("IDF without the +1: ln((1+N)/(1+df))", func(q *lexicalParams) { q.idfAdd = 0 })
	vary("IDF +0.5", func(q *lexicalParams) { q.idfAdd = 0.5 })
	vary("IDF to the power 1.3", func(q *lexicalParams) { q.idfPower = 1.3 })
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
		{3: 1}, {3: 1, 4: 0.7}, {2: 0.5, 3: 1, 4: 0.5}, {2: 1, 3: 1}, {3: 1, 4: 1, 5: 0.5},
	} {
		vary(fmt.Sprintf("char n-gram weights for n=1..5: %v", cw[1:]), func(q *lexicalParams) { q.charWeight = cw })
	}
}

// cranfield is the Cranfield collection: 1,400 aeronautics abstracts, 225
// queries and their relevant abstracts. It stands in for notes searched by
// short queries, which STS-B's sentence pairs do not measure.
type cranfield struct {
	docs, queries []string
	relevant      []map[int]bool // by query, the relevant document indexes
}

func readCranfield(tb testing.TB) *cranfield {
	tb.Helper()
	dir := sharedtest.Path(tb, "datasets/cranfield")
	c := &cranfield{
		docs:    readCranfieldRecords(tb, dir+"/cran.all.1400"),
		queries: readCranfieldRecords(tb, dir+"/cran.qry"),
	}
	c.relevant = make([]map[int]bool, len(c.queries))
	f, err := os.Open(dir + "/cranqrel")
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fs := strings.Fields(sc.Text())
		if len(fs) < 3 {
			continue
		}
		// Queries are numbered by position in cran.qry, not by their .I
		// ids; relevance 1-4 is relevant, -1 is not.
		q, _ := strconv.Atoi(fs[0])
		d, _ := strconv.Atoi(fs[1])
		r, _ := strconv.Atoi(fs[2])
		if q < 1 || q > len(c.queries) || d < 1 || d > len(c.docs) || r < 1 || r > 4 {
			continue
		}
		if c.relevant[q-1] == nil {
			c.relevant[q-1] = map[int]bool{}
		}
		c.relevant[q-1][d-1] = true
	}
	return c
}

// readCranfieldRecords reads the text fields of ".I"-separated records.
func readCranfieldRecords(tb testing.TB, path string) []string {
	data, err := os.ReadFile(path)
	if err != nil {
		tb.Fatal(err)
	}
	var out []string
	var cur strings.Builder
	for i, line := range strings.Split(string(data), "\n") {
		if strings.HasPrefix(line, ".I ") {
			if i > 0 {
				out = append(out, cur.String())
			}
			cur.Reset()
			continue
		}
		if len(line) == 2 && line[0] == '.' {
			continue // field marker
		}
		cur.WriteString(line)
		cur.WriteByte(' ')
	}
	return append(out, cur.String())
}

// score fits p on the abstracts and returns the mean nDCG@10 (binary
// relevance) and mean reciprocal rank over the queries.
func (c *cranfield) score(tb testing.TB, p lexicalParams) (ndcg, mrr float64) {
	f := newLexicalFitter(p)
	for _, d := range c.docs {
		f.Add(d)
	}
	l := f.Lexical()
	ctx := context.Background()
	dv, err := l.Embed(ctx, c.docs)
	if err != nil {
		tb.Fatal(err)
	}
	qv, err := l.Embed(ctx, c.queries)
	if err != nil {
		tb.Fatal(err)
	}
	order := make([]int, len(dv))
	scores := make([]float64, len(dv))
	n := 0
	for qi, q := range qv {
		rel := c.relevant[qi]
		if len(rel) == 0 {
			continue
		}
		n++
		for i, d := range dv {
			order[i], scores[i] = i, dot(q, d)
		}
		slices.SortStableFunc(order, func(a, b int) int {
			switch {
			case scores[a] > scores[b]:
				return -1
			case scores[a] < scores[b]:
				return 1
			}
			return 0
		})
		var dcg, ideal float64
		for k := range 10 {
			if rel[order[k]] {
				dcg += 1 / math.Log2(float64(k+2))
			}
			if k < len(rel) {
				ideal += 1 / math.Log2(float64(k+2))
			}
		}
		ndcg += dcg / ideal
		for k, i := range order {
			if rel[i] {
				mrr += 1 / float64(k+1)
				break
			}
		}
	}
	return ndcg / float64(n), mrr / float64(n)
}

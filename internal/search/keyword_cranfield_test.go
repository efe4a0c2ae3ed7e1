package search

import (
	"bufio"
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/jarvis-mcp/jarvis/internal/sharedtest"
)

// cranfield is the Cranfield collection as a vault: one note per
// abstract, titled by its .T field, with the .W abstract as its body.
type cranfield struct {
	queries []string
	// relevant[q] maps a document number to its gain, 5 - grade (grade 1
	// is the most relevant, 4 the least); unjudged and -1 mean 0.
	relevant []map[int]float64
}

// cranfieldVault writes the collection into a vault under dir and reads
// the queries and judgements.
func cranfieldVault(t testing.TB, dir string) cranfield {
	t.Helper()
	root := sharedtest.Path(t, "datasets/cranfield")
	docs := cranRecords(t, filepath.Join(root, "cran.all.1400"))
	for _, d := range docs {
		title, _ := json.Marshal(strings.Join(strings.Fields(d.fields['T']), " "))
		note := "---\ntitle: " + string(title) + "\n---\n" + d.fields['W']
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("%04d.md", d.id)), []byte(note), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	var c cranfield
	for _, q := range cranRecords(t, filepath.Join(root, "cran.qry")) {
		c.queries = append(c.queries, strings.Join(strings.Fields(q.fields['W']), " "))
		c.relevant = append(c.relevant, map[int]float64{})
	}
	f, err := os.Open(filepath.Join(root, "cranqrel"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fs := strings.Fields(sc.Text())
		if len(fs) != 3 {
			continue
		}
		q, _ := strconv.Atoi(fs[0])
		doc, _ := strconv.Atoi(fs[1])
		grade, _ := strconv.Atoi(fs[2])
		if q >= 1 && q <= len(c.relevant) && grade >= 1 && grade <= 4 {
			c.relevant[q-1][doc] = float64(5 - grade)
		}
	}
	return c
}

type cranRecord struct {
	id     int
	fields map[byte]string
}

// cranRecords reads a file of ".I n" records with ".X" fields.
func cranRecords(t testing.TB, path string) []cranRecord {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out []cranRecord
	var field byte
	for _, line := range strings.Split(strings.ReplaceAll(string(data), "\r", ""), "\n") {
		if strings.HasPrefix(line, ".I ") {
			id, _ := strconv.Atoi(strings.TrimSpace(line[3:]))
			out = append(out, cranRecord{id: id, fields: map[byte]string{}})
			continue
		}
		if len(line) == 2 && line[0] == '.' {
			field = line[1]
			continue
		}
		if len(out) > 0 {
			out[len(out)-1].fields[field] += line + "\n"
		}
	}
	return out
}

// cranfieldScores runs every query and returns mean nDCG@10 and
// recall@10.
func cranfieldScores(t testing.TB, k *Keyword, c cranfield) (ndcg, recall float64) {
	t.Helper()
	for i, text := range c.queries {
		rs, err := k.Search(context.Background(), KeywordQuery{Text: text, Limit: 10})
		if err != nil {
			t.Fatalf("query %d %q: %v", i+1, text, err)
		}
		rel := c.relevant[i]
		var dcg, found float64
		for rank, r := range rs {
			doc, _ := strconv.Atoi(strings.TrimSuffix(r.Path, ".md"))
			if g := rel[doc]; g > 0 {
				dcg += g / math.Log2(float64(rank+2))
				found++
			}
		}
		gains := make([]float64, 0, len(rel))
		for _, g := range rel {
			gains = append(gains, g)
		}
		slices.SortFunc(gains, func(a, b float64) int { return cmp.Compare(b, a) })
		var ideal float64
		for rank, g := range gains[:min(10, len(gains))] {
			ideal += g / math.Log2(float64(rank+2))
		}
		if ideal > 0 {
			ndcg += dcg / ideal
			recall += found / float64(len(gains))
		}
	}
	n := float64(len(c.queries))
	return ndcg / n, recall / n
}

// TestKeywordCranfield measures keyword search on the Cranfield
// collection, a retrieval benchmark nobody here wrote: 225 questions in
// full sentences over 1,400 aeronautics abstracts. The floor is a little
// under the figure reached, so that a change that hurts ranking fails.
func TestKeywordCranfield(t *testing.T) {
	if testing.Short() {
		t.Skip("indexes 1,400 notes")
	}
	dir := t.TempDir()
	c := cranfieldVault(t, dir)
	k, _ := indexedKeyword(t, "cranfield", dir)
	ndcg, recall := cranfieldScores(t, k, c)
	t.Logf("Cranfield, %d queries: nDCG@10 %.4f, recall@10 %.4f", len(c.queries), ndcg, recall)
	if ndcg < 0.365 {
		t.Errorf("nDCG@10 %.4f, below the 0.365 floor", ndcg)
	}
}

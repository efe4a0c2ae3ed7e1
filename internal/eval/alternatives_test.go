package eval

import (
	"bufio"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jarvis-mcp/jarvis/internal/config"
	"github.com/jarvis-mcp/jarvis/internal/container"
	"github.com/jarvis-mcp/jarvis/internal/search"
	"github.com/jarvis-mcp/jarvis/internal/sharedtest"
)

// loadAlternatives reads the alternatives testdata/wordnet_alternatives.py
// wrote for a query set, one line per query in order, and checks that
// they are for the queries given.
func loadAlternatives(t *testing.T, path string, queries []string) [][]string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out [][]string
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var line struct {
			Query        string   `json:"query"`
			Alternatives []string `json:"alternatives"`
		}
		if err := json.Unmarshal(sc.Bytes(), &line); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		if i := len(out); i >= len(queries) || strings.Join(strings.Fields(line.Query), " ") != strings.Join(strings.Fields(queries[i]), " ") {
			t.Fatalf("%s line %d is for %q, not for the query set's query %d; write it again with wordnet_alternatives.py", path, i+1, line.Query, i+1)
		}
		out = append(out, line.Alternatives)
	}
	if len(out) != len(queries) {
		t.Fatalf("%s has %d lines for %d queries", path, len(out), len(queries))
	}
	return out
}

// serviceRankers are the search service's modes, as the MCP tools call it,
// each with the alternatives alts gives a query (none when alts is nil).
func serviceRankers(deps container.SearchDeps, alts func(q string) []string) map[string]Ranker {
	out := map[string]Ranker{}
	for _, mode := range []search.Mode{search.ModeKeyword, search.ModeSemantic, search.ModeCombined} {
		out[string(mode)] = func(ctx context.Context, q string, limit int) ([]string, error) {
			a, err := deps.Search.Search(ctx, search.Query{Mode: mode, Text: q, Limit: limit, Alternatives: alts(q)})
			var paths []string
			for _, r := range a.Results {
				paths = append(paths, r.Path)
			}
			return paths, err
		}
	}
	return out
}

// TestEvalAlternatives measures alternatives written by a stated rule
// (WordNet synonyms of the query's content words: testdata/
// wordnet_alternatives.py) on both query sets, in every mode, against the
// same searches without them, and logs the figures for docs/benchmarks.md.
// It holds the searches without alternatives, and with alternatives that
// only repeat the query, to the same figures.
func TestEvalAlternatives(t *testing.T) {
	ctx := context.Background()
	c, err := LoadCranfield(sharedtest.Path(t, "datasets/cranfield"))
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "cranfield")
	if err := c.WriteVault(dir); err != nil {
		t.Fatal(err)
	}
	var graded []Graded
	var texts []string
	for _, q := range c.Queries {
		graded = append(graded, Graded{Text: q.Text, Gains: q.Gains})
		texts = append(texts, q.Text)
	}
	cranAlts := byQuery(texts, loadAlternatives(t, "testdata/cranfield-alternatives.jsonl", texts))

	known, err := LoadKnown("testdata/obsidian-help-queries.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	texts = nil
	for _, q := range known {
		texts = append(texts, q.Query)
	}
	helpAlts := byQuery(texts, loadAlternatives(t, "testdata/help-alternatives.jsonl", texts))

	none := func(string) []string { return nil }
	repeat := func(q string) []string { return []string{q, " " + strings.ToUpper(q) + " "} }
	got := map[string]Scores{}
	cran := stack(t, config.Vault{Name: "cranfield", Path: dir})
	help := stack(t, config.Vault{Name: "en", Path: sharedtest.Path(t, "vaults/obsidian-help/en")})
	for _, run := range []struct {
		name string
		alts func(string) []string
	}{{"plain", none}, {"repeated", repeat}, {"wordnet", func(q string) []string { return cranAlts[q] }}} {
		for mode, rank := range serviceRankers(cran, run.alts) {
			if got["cranfield/"+mode+"/"+run.name], err = RunGraded(ctx, graded, rank); err != nil {
				t.Fatal(err)
			}
		}
	}
	for _, run := range []struct {
		name string
		alts func(string) []string
	}{{"plain", none}, {"repeated", repeat}, {"wordnet", func(q string) []string { return helpAlts[q] }}} {
		for mode, rank := range serviceRankers(help, run.alts) {
			if got["help/"+mode+"/"+run.name], _, err = RunKnown(ctx, known, rank); err != nil {
				t.Fatal(err)
			}
		}
	}
	for key, s := range got {
		if plainKey, ok := strings.CutSuffix(key, "/repeated"); ok && s != got[plainKey+"/plain"] {
			t.Errorf("%s: %+v, but the query alone gives %+v", key, s, got[plainKey+"/plain"])
		}
	}
	check(t, got)
}

// byQuery pairs each query with its alternatives.
func byQuery(queries []string, alts [][]string) map[string][]string {
	out := map[string][]string{}
	for i, q := range queries {
		out[q] = alts[i]
	}
	return out
}

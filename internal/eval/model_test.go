package eval

import (
	"context"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jarvis-mcp/jarvis/internal/config"
	"github.com/jarvis-mcp/jarvis/internal/embed"
	"github.com/jarvis-mcp/jarvis/internal/embed/embedtest"
	"github.com/jarvis-mcp/jarvis/internal/embed/hub"
	"github.com/jarvis-mcp/jarvis/internal/search"
	"github.com/jarvis-mcp/jarvis/internal/sharedtest"
)

// The environment variables of the model runs. Each list is optional; the
// runs measure every model with every floor and every weight.
const (
	// envModel names the local models to measure, separated as paths are
	// in PATH: catalogue names or owner/name resolved in the models
	// folder (JARVIS_MODELS), or absolute paths of model folders.
	envModel = "JARVIS_EVAL_MODEL"
	// envSemanticWeight is a comma-separated list of semantic weights
	// for combined search, in place of the default for neural embedders.
	envSemanticWeight = "JARVIS_EVAL_SEMANTIC_WEIGHT"
	// envSimilarityFloor is a comma-separated list of similarity floors
	// for semantic search, in place of the default for neural embedders.
	envSimilarityFloor = "JARVIS_EVAL_SIMILARITY_FLOOR"
)

// modelModes are the search modes a model changes; keyword search is the
// same whatever the embedder.
var modelModes = []string{"semantic", "combined"}

// modelSets are what a model is measured on: the Obsidian Help vault and
// its queries, Cranfield as a vault and its queries, and STS-B pairs.
type modelSets struct {
	help      config.Vault
	helpQs    []Known
	cranfield config.Vault
	cranQs    []Graded
	pairs     []Pair
}

// tuning is one semantic weight and one similarity floor to search with;
// nil keeps the default for the embedder's kind.
type tuning struct{ weight, floor *float64 }

// modelRow is what one model measured with one tuning.
type modelRow struct {
	label       string
	fingerprint string
	// weight and floor are those the services used, read back from them.
	weight, floor float64
	// embedded counts the chunks embedded for this row: all of them for a
	// model's first row, none after, as later rows reuse the databases.
	embedded        int
	help, cranfield map[string]Scores // by mode
	// calls and empty count, by "help/semantic" and so on, the searches
	// run and those that found nothing.
	calls, empty map[string]int
	stsb         float64
	pairs        int
}

// TestEvalModels measures local models as the lexical embedder is measured
// above: Help vault recall@5 and MRR, Cranfield nDCG@10, and STS-B
// Spearman, for semantic and combined search, built as `jarvis search`
// builds them with the model as embedder. It always runs a tiny random
// BERT on a small part of each set, which proves that the path works and
// says nothing about quality; with JARVIS_EVAL_MODEL set it measures those
// models on every query and pair, and logs a table for docs/embedders.md.
//
//	JARVIS_EVAL_MODEL=bge-small-en-v1.5 JARVIS_EVAL_SEMANTIC_WEIGHT=0.5,1 \
//	  go test ./internal/eval -run TestEvalModels -v -timeout 2h
func TestEvalModels(t *testing.T) {
	t.Run("tiny-bert", testTinyModel)
	models := filepath.SplitList(os.Getenv(envModel))
	if len(models) == 0 {
		return
	}
	weights := envFloats(t, envSemanticWeight)
	floors := envFloats(t, envSimilarityFloor)
	t.Logf("%s=%q %s=%q (unset: the default for neural embedders, weight %g, floor %g)",
		envSemanticWeight, os.Getenv(envSemanticWeight), envSimilarityFloor, os.Getenv(envSimilarityFloor),
		search.DefaultSemanticWeights[search.KindNeural], search.DefaultSimilarityFloors[search.KindNeural])
	sets := fullSets(t)
	modelsDir, err := hub.Dir(os.Getenv)
	if err != nil {
		t.Fatal(err)
	}
	var rows []modelRow
	for _, m := range models {
		// A folder is labelled by its name, a model by the name given.
		label := m
		if strings.ContainsRune(m, filepath.Separator) && !hub.IsRepoName(m) {
			label = filepath.Base(m)
		}
		t.Run(label, func(t *testing.T) {
			folder, err := hub.Resolve(modelsDir, m)
			if err != nil {
				t.Fatal(err)
			}
			rows = append(rows, measureModel(t, label, folder, sets, tunings(weights, floors))...)
			t.Logf("%s: %s, vectors fingerprinted %s", label, folder, rows[len(rows)-1].fingerprint)
		})
	}
	t.Log(modelTable(rows, sets))
}

// testTinyModel runs a tiny BERT with random weights through every figure
// on a few queries and pairs, at the default tuning and with both
// overrides, and checks that each step ran with the model and the tuning
// asked for.
func testTinyModel(t *testing.T) {
	sets := tinySets(t)
	half, one := 0.5, 1.0
	// A floor of 1 keeps only chunks exactly like the query: none.
	tus := []tuning{{}, {weight: &half}, {floor: &one}}
	start := time.Now()
	rows := measureModel(t, "tiny-bert", embedtest.TinyBERT(t, "mean_norm_f32"), sets, tus)
	t.Logf("measured in %s%s", time.Since(start).Round(time.Millisecond), modelTable(rows, sets))

	neuralWeight, neuralFloor := search.DefaultSemanticWeights[search.KindNeural], search.DefaultSimilarityFloors[search.KindNeural]
	wantTuning := [][2]float64{{neuralWeight, neuralFloor}, {half, neuralFloor}, {neuralWeight, one}}
	for i, r := range rows {
		if got := [2]float64{r.weight, r.floor}; got != wantTuning[i] {
			t.Errorf("row %d: search used weight and floor %v, want %v", i, got, wantTuning[i])
		}
		if !strings.HasPrefix(r.fingerprint, embed.ProviderLocal+"/") || r.fingerprint != rows[0].fingerprint {
			t.Errorf("row %d: vectors made by %q, want the local model of row 0 (%q)", i, r.fingerprint, rows[0].fingerprint)
		}
		if (i == 0) != (r.embedded > 0) {
			t.Errorf("row %d embedded %d chunks: want all of them in the first row and none after, which reuse the databases", i, r.embedded)
		}
		if r.help["semantic"].Queries != len(sets.helpQs) || r.cranfield["combined"].Queries != len(sets.cranQs) {
			t.Errorf("row %d scored %d Help and %d Cranfield queries, want %d and %d", i,
				r.help["semantic"].Queries, r.cranfield["combined"].Queries, len(sets.helpQs), len(sets.cranQs))
		}
		if r.pairs != len(sets.pairs) || math.IsNaN(r.stsb) || r.stsb < -1 || r.stsb > 1 {
			t.Errorf("row %d: STS-B Spearman %v over %d pairs, want a correlation over %d", i, r.stsb, r.pairs, len(sets.pairs))
		}
		for _, set := range []string{"help", "cranfield"} {
			if k := set + "/combined"; r.empty[k] == r.calls[k] {
				t.Errorf("row %d: combined search found nothing for any of %d %s searches", i, r.calls[k], set)
			}
			k := set + "/semantic"
			if floored := r.floor == one; floored != (r.empty[k] == r.calls[k]) {
				t.Errorf("row %d, floor %g: semantic search found nothing for %d of %d %s searches", i, r.floor, r.empty[k], r.calls[k], set)
			}
		}
	}
}

// measureModel measures the model in folder with each tuning. The first
// tuning indexes and embeds the sets; the others reuse its databases, so
// that a sweep embeds everything once.
func measureModel(t *testing.T, label, folder string, sets modelSets, tus []tuning) []modelRow {
	t.Helper()
	ctx := context.Background()
	dbs := map[string]string{"help": filepath.Join(t.TempDir(), "help.db"), "cranfield": filepath.Join(t.TempDir(), "cranfield.db")}
	var rows []modelRow
	for i, tu := range tus {
		row := modelRow{label: label, help: map[string]Scores{}, cranfield: map[string]Scores{},
			calls: map[string]int{}, empty: map[string]int{}}
		for _, set := range []string{"help", "cranfield"} {
			vault := sets.help
			if set == "cranfield" {
				vault = sets.cranfield
			}
			start := time.Now()
			deps, res, stop := openStack(t, config.Config{
				DBPath:   dbs[set],
				Vaults:   []config.Vault{vault},
				Embedder: config.Embedder{Provider: config.ProviderLocal, Model: folder},
				Search:   config.Search{SemanticWeight: tu.weight, SimilarityFloor: tu.floor},
			})
			emb := deps.Vectors.Embedder()
			if emb == nil || emb.Provider() != embed.ProviderLocal {
				t.Fatalf("%s: semantic search is not using the local model (embedder %v)", set, emb)
			}
			if res.Embedded > 0 {
				t.Logf("%s: embedded %d chunks of %s in %s", label, res.Embedded, set, time.Since(start).Round(time.Millisecond))
			}
			row.embedded += res.Embedded
			if row.fingerprint == "" {
				row.fingerprint = emb.Fingerprint()
			} else if emb.Fingerprint() != row.fingerprint {
				t.Errorf("%s vectors made by %s, Help's by %s", set, emb.Fingerprint(), row.fingerprint)
			}
			kind := deps.Semantic.Kind()
			row.weight, row.floor = deps.Combined.SemanticWeights[kind], deps.Semantic.Floors[kind]
			if i == 0 && set == "help" {
				start := time.Now()
				rho, err := ScorePairs(ctx, emb, sets.pairs)
				if err != nil {
					t.Fatal(err)
				}
				row.stsb, row.pairs = rho, len(sets.pairs)
				t.Logf("%s: STS-B Spearman %.4f over %d pairs in %s", label, rho, len(sets.pairs), time.Since(start).Round(time.Millisecond))
			}
			all := rankers(deps)
			for _, mode := range modelModes {
				key := set + "/" + mode
				rank := func(ctx context.Context, q string, limit int) ([]string, error) {
					got, err := all[mode](ctx, q, limit)
					row.calls[key]++
					if len(got) == 0 {
						row.empty[key]++
					}
					return got, err
				}
				var err error
				if set == "help" {
					row.help[mode], _, err = RunKnown(ctx, sets.helpQs, rank)
				} else {
					row.cranfield[mode], err = RunGraded(ctx, sets.cranQs, rank)
				}
				if err != nil {
					t.Fatalf("%s %s: %v", set, mode, err)
				}
			}
			stop()
		}
		if i > 0 {
			row.stsb, row.pairs = rows[0].stsb, rows[0].pairs
		}
		rows = append(rows, row)
	}
	return rows
}

// modelTable lays rows out as a Markdown table.
func modelTable(rows []modelRow, sets modelSets) string {
	var b strings.Builder
	fmt.Fprintf(&b, "\nHelp: %d queries, recall@5 and MRR; Cranfield: %d queries, nDCG@10; STS-B: %d pairs, Spearman.\n\n",
		len(sets.helpQs), len(sets.cranQs), len(sets.pairs))
	b.WriteString("| model | weight | floor | Help semantic R@5 / MRR | Help combined R@5 / MRR | Cranfield semantic | Cranfield combined | STS-B |\n")
	b.WriteString("|---|---|---|---|---|---|---|---|\n")
	for _, r := range rows {
		fmt.Fprintf(&b, "| %s | %g | %g | %.3f / %.3f | %.3f / %.3f | %.3f | %.3f | %.3f |\n", r.label, r.weight, r.floor,
			r.help["semantic"].Recall5, r.help["semantic"].MRR, r.help["combined"].Recall5, r.help["combined"].MRR,
			r.cranfield["semantic"].NDCG10, r.cranfield["combined"].NDCG10, r.stsb)
	}
	return b.String()
}

// tunings is every floor with every weight.
func tunings(weights, floors []*float64) []tuning {
	var out []tuning
	for _, f := range floors {
		for _, w := range weights {
			out = append(out, tuning{weight: w, floor: f})
		}
	}
	return out
}

// envFloats reads the comma-separated numbers of an environment variable;
// unset, it is one nil, the default.
func envFloats(t *testing.T, name string) []*float64 {
	t.Helper()
	out, err := parseFloats(os.Getenv(name))
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return out
}

func parseFloats(s string) ([]*float64, error) {
	if strings.TrimSpace(s) == "" {
		return []*float64{nil}, nil
	}
	var out []*float64
	for _, f := range strings.Split(s, ",") {
		x, err := strconv.ParseFloat(strings.TrimSpace(f), 64)
		if err != nil || math.IsNaN(x) || math.IsInf(x, 0) || x < 0 {
			return nil, fmt.Errorf("%q is not a number of 0 or more", strings.TrimSpace(f))
		}
		out = append(out, &x)
	}
	return out, nil
}

func TestParseFloats(t *testing.T) {
	for _, c := range []struct {
		give string
		want []float64 // nil for the one default
		err  bool
	}{
		{give: ""},
		{give: "0.3", want: []float64{0.3}},
		{give: " 0.5, 1,2 ", want: []float64{0.5, 1, 2}},
		{give: "0.5,,1", err: true},
		{give: "high", err: true},
		{give: "-1", err: true},
	} {
		t.Run(c.give, func(t *testing.T) {
			got, err := parseFloats(c.give)
			if c.err {
				if err == nil {
					t.Fatalf("parseFloats(%q) = %d values, want an error", c.give, len(got))
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if c.want == nil {
				if len(got) != 1 || got[0] != nil {
					t.Fatalf("parseFloats(%q) = %v, want the one default", c.give, got)
				}
				return
			}
			var vals []float64
			for _, p := range got {
				vals = append(vals, *p)
			}
			if !slices.Equal(vals, c.want) {
				t.Fatalf("parseFloats(%q) = %v, want %v", c.give, vals, c.want)
			}
		})
	}
}

// fullSets are every Help query over the Help vault, every Cranfield
// query over its 1,400 abstracts, and every STS-B training pair.
func fullSets(t *testing.T) modelSets {
	t.Helper()
	c, err := LoadCranfield(sharedtest.Path(t, "datasets/cranfield"))
	if err != nil {
		t.Fatal(err)
	}
	return buildSets(t, sharedtest.Path(t, "vaults/obsidian-help/en"), nil, c, -1)
}

// tinySets are a part of each set small enough for a test: two Help
// queries of each kind over their notes and a few others, the Cranfield
// queries with judged abstracts among the first 100 (judgements outside
// them dropped) over those abstracts, and 200 STS-B pairs.
func tinySets(t *testing.T) modelSets {
	t.Helper()
	root := sharedtest.Path(t, "vaults/obsidian-help/en")
	qs, err := LoadKnown("testdata/obsidian-help-queries.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	var picked []Known
	perKind := map[string]int{}
	for _, q := range qs {
		if perKind[q.Kind] < 2 {
			perKind[q.Kind]++
			picked = append(picked, q)
		}
	}
	c, err := LoadCranfield(sharedtest.Path(t, "datasets/cranfield"))
	if err != nil {
		t.Fatal(err)
	}
	const docs, queries = 100, 8
	c.Docs = c.Docs[:docs]
	var kept []Query
	for _, q := range c.Queries {
		gains := map[string]int{}
		for _, d := range c.Docs {
			if g, ok := q.Gains[NotePath(d.ID)]; ok {
				gains[NotePath(d.ID)] = g
			}
		}
		if len(gains) > 0 && len(kept) < queries {
			q.Gains = gains
			kept = append(kept, q)
		}
	}
	c.Queries = kept
	return buildSets(t, root, picked, c, 200)
}

// buildSets writes the vaults the sets search. With helpQs nil it takes
// every Help query over the whole vault; otherwise it copies into a new
// vault the notes those queries expect and the first 16 others. pairs < 0
// takes every STS-B pair.
func buildSets(t *testing.T, helpRoot string, helpQs []Known, c *Cranfield, pairs int) modelSets {
	t.Helper()
	var s modelSets
	s.help = config.Vault{Name: "en", Path: helpRoot}
	if helpQs == nil {
		qs, err := LoadKnown("testdata/obsidian-help-queries.jsonl")
		if err != nil {
			t.Fatal(err)
		}
		s.helpQs = qs
	} else {
		s.helpQs = helpQs
		keep := map[string]bool{}
		for _, q := range helpQs {
			for _, p := range q.Expect {
				keep[p] = true
			}
		}
		others := 16
		err := filepath.WalkDir(helpRoot, func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || filepath.Ext(p) != ".md" {
				return err
			}
			rel, _ := filepath.Rel(helpRoot, p)
			if rel = filepath.ToSlash(rel); !keep[rel] && others > 0 {
				keep[rel] = true
				others--
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		s.help.Path = filepath.Join(t.TempDir(), "en")
		for rel := range keep {
			data, err := os.ReadFile(filepath.Join(helpRoot, filepath.FromSlash(rel)))
			if err != nil {
				t.Fatalf("note %s: %v", rel, err)
			}
			sharedtest.WriteFile(t, s.help.Path, rel, string(data))
		}
	}
	dir := filepath.Join(t.TempDir(), "cranfield")
	if err := c.WriteVault(dir); err != nil {
		t.Fatal(err)
	}
	s.cranfield = config.Vault{Name: "cranfield", Path: dir}
	for _, q := range c.Queries {
		s.cranQs = append(s.cranQs, Graded{Text: q.Text, Gains: q.Gains})
	}
	all, err := LoadSTSB(sharedtest.Path(t, "datasets/stsb/stsb-en-train.csv"))
	if err != nil {
		t.Fatal(err)
	}
	if pairs >= 0 {
		all = all[:min(pairs, len(all))]
	}
	s.pairs = all
	return s
}

package search

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/jarvis-mcp/jarvis/internal/config"
	"github.com/jarvis-mcp/jarvis/internal/index"
	"github.com/jarvis-mcp/jarvis/internal/search/fulltext"
	"github.com/jarvis-mcp/jarvis/internal/search/notes"
	"github.com/jarvis-mcp/jarvis/internal/search/searchtest"
	"github.com/jarvis-mcp/jarvis/internal/search/vectors"
	"github.com/jarvis-mcp/jarvis/internal/store"
)

// indexedService indexes vaults into a fresh database, makes the lexical
// vectors, and returns the search service over them, wired as the
// container wires it.
func indexedService(t testing.TB, vaults ...config.Vault) (*Service, *store.DB) {
	t.Helper()
	ctx := context.Background()
	db := searchtest.IndexedVaults(t, vaults...)
	vec := vectors.NewVectors(db, vectors.LexicalSource(), quietLog())
	vec.Serve()
	if _, err := vec.Sync(ctx, vectors.SyncOptions{}); err != nil {
		t.Fatal(err)
	}
	kw, sem := fulltext.NewKeyword(db), NewSemantic(vec, db)
	return NewService(kw, sem, NewCombinedOver(kw, sem), vaults, nil, quietLog()), db
}

var allModes = []Mode{ModeKeyword, ModeSemantic, ModeCombined}

// TestPathPrefixRules holds every mode, and the file scan, to the rules
// notes.Filter states: case, "./" and "\", a trailing "/" for a folder, and a
// prefix of a name.
func TestPathPrefixRules(t *testing.T) {
	dir := t.TempDir()
	for name, text := range map[string]string{
		"Beans/Guji.md":             "Washed beans from Guji, roasted light.",
		"Beans/Huila.md":            "Beans from Huila, roasted medium.",
		"Beans/Old/Sumatra.md":      "Beans from Sumatra, roasted dark.",
		"Beanstalk.md":              "Beans grow on a beanstalk, roasted in a story.",
		"Recipes/Roasted beans.md":  "Roasted beans with garlic.",
		"Über/Bohnen.md":            "Beans, roasted in Vienna.",
		"Notes about beans/Misc.md": "More beans, roasted.",
	} {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	v := config.Vault{Name: "v", Path: dir}
	svc, _ := indexedService(t, v)
	beans := []string{"Beans/Guji.md", "Beans/Huila.md", "Beans/Old/Sumatra.md"}
	for _, tc := range []struct {
		prefix string
		want   []string
	}{
		{"Beans/", beans},
		{"beans/", beans},
		{"BEANS/", beans},
		{"./Beans/", beans},
		{"/Beans/", beans},
		{`Beans\`, beans},
		{" Beans/ ", beans},
		{"Beans", append(slices.Clone(beans), "Beanstalk.md")},
		{"beans/old", []string{"Beans/Old/Sumatra.md"}},
		{"Beans/Gu", []string{"Beans/Guji.md"}},
		{"über/", []string{"Über/Bohnen.md"}},
		{"U\u0308ber/", []string{"Über/Bohnen.md"}}, // decomposed, as macOS writes it
		{"Recipes/", []string{"Recipes/Roasted beans.md"}},
		{"Nothing/", nil},
		{"", []string{"Beans/Guji.md", "Beans/Huila.md", "Beans/Old/Sumatra.md", "Beanstalk.md", "Notes about beans/Misc.md", "Recipes/Roasted beans.md", "Über/Bohnen.md"}},
	} {
		for _, mode := range allModes {
			a, err := svc.Search(context.Background(), Query{Mode: mode, Text: "roasted beans", Limit: 50,
				Filter: notes.Filter{Vaults: []string{"v"}, PathPrefix: tc.prefix}})
			if err != nil {
				t.Fatalf("%s %q: %v", mode, tc.prefix, err)
			}
			got := resultPaths(a.Results)
			if !sameSet(got, tc.want) || a.Degraded {
				t.Errorf("%s, path prefix %q: %v (degraded %q); want %v", mode, tc.prefix, got, a.Reason, tc.want)
			}
			if len(tc.want) == 0 && a.Empty == "" {
				t.Errorf("%s, path prefix %q: no results and no sentence saying why", mode, tc.prefix)
			}
		}
		res, err := scanFiles(context.Background(), []config.Vault{v}, "roasted beans", notes.Filter{PathPrefix: tc.prefix}, 50, true)
		if err != nil {
			t.Fatal(err)
		}
		if got := resultPaths(res); !sameSet(got, tc.want) {
			t.Errorf("file scan, path prefix %q: %v; want %v", tc.prefix, got, tc.want)
		}
	}
}

func resultPaths(rs []notes.Result) []string {
	out := make([]string, len(rs))
	for i, r := range rs {
		out[i] = r.Path
	}
	return out
}

func sameSet(a, b []string) bool {
	a, b = slices.Clone(a), slices.Clone(b)
	slices.Sort(a)
	slices.Sort(b)
	return slices.Equal(a, b)
}

func TestServiceFallsBack(t *testing.T) {
	v := config.Vault{Name: "coffee", Path: exampleVault()}
	svc, db := indexedService(t, v)
	ctx := context.Background()

	// No vectors: semantic and combined answer by keywords, and say so.
	noVectors := NewSemantic(vectors.NewVectors(db, vectors.LexicalSource(), quietLog()), db)
	bare := NewService(svc.keyword, noVectors, NewCombinedOver(svc.keyword, noVectors), []config.Vault{v}, nil, quietLog())
	for _, mode := range []Mode{ModeSemantic, ModeCombined} {
		a, err := bare.Search(ctx, Query{Mode: mode, Text: "french press"})
		if err != nil {
			t.Fatal(err)
		}
		if !a.Degraded || !strings.Contains(a.Reason, "no vectors yet") || len(a.Results) == 0 || a.Results[0].Path != "Methods/French press.md" {
			t.Errorf("%s without vectors: %+v", mode, a)
		}
		busy := index.State{State: index.StateIndexing}
		if a, _ := bare.Search(ctx, Query{Mode: mode, Text: "french press", Index: busy}); !strings.Contains(a.Reason, "making their vectors now") || !strings.Contains(a.Reason, "ask again") {
			t.Errorf("%s while indexing: %q", mode, a.Reason)
		}
	}

	// The database gone: every mode scans the files.
	db.Close()
	for _, mode := range allModes {
		a, err := svc.Search(ctx, Query{Mode: mode, Text: "french press", Filter: notes.Filter{PathPrefix: "methods/"}})
		if err != nil {
			t.Fatal(err)
		}
		if !a.Degraded || !strings.Contains(a.Reason, "index cannot be read") || len(a.Results) == 0 || a.Results[0].Path != "Methods/French press.md" {
			t.Errorf("%s without the database: %+v", mode, a)
		}
		if strings.Contains(a.Reason, "sql") || strings.Contains(a.Reason, "closed") {
			t.Errorf("%s: the reason shows an internal error: %q", mode, a.Reason)
		}
	}
}

func TestServiceQueryLimits(t *testing.T) {
	svc, _ := indexedService(t, config.Vault{Name: "coffee", Path: exampleVault()})
	ctx := context.Background()
	for _, mode := range allModes {
		if _, err := svc.Search(ctx, Query{Mode: mode, Text: "  "}); !errors.Is(err, notes.ErrEmptyQuery) {
			t.Errorf("%s, blank query: %v", mode, err)
		}
		if _, err := svc.Search(ctx, Query{Mode: mode, Text: strings.Repeat("x", MaxQueryChars+1)}); !errors.Is(err, ErrQueryTooLong) {
			t.Errorf("%s, query over the limit: %v", mode, err)
		}
		// A long question pasted whole is searched, and the cut said.
		long := strings.Repeat("how fine should I grind for a french press and what ratio of water ", 200)[:MaxQueryChars]
		a, err := svc.Search(ctx, Query{Mode: mode, Text: long})
		if err != nil {
			t.Fatalf("%s, long query: %v", mode, err)
		}
		if len(a.Results) == 0 || len(a.Notes) == 0 {
			t.Errorf("%s, long query: %d results, notes %q", mode, len(a.Results), a.Notes)
		}
		a, err = svc.Search(ctx, Query{Mode: mode, Text: "water", Limit: 2})
		if err != nil || len(a.Results) != 2 || !a.Truncated {
			t.Errorf("%s, limit 2: %d results, truncated %v, %v", mode, len(a.Results), a.Truncated, err)
		}
		for i, r := range a.Results {
			if r.Score <= 0 || FormatScore(r.Score) == "0.000" {
				t.Errorf("%s: %s has score %v", mode, r.Path, r.Score)
			}
			if mode == ModeCombined && (r.Score > 1 || i > 0 && r.Score > a.Results[i-1].Score && !a.Results[i-1].ExactName) {
				t.Errorf("combined: %s has score %v after %v; want 0 to 1, best first", r.Path, r.Score, a.Results[max(i-1, 0)].Score)
			}
		}
	}
	if _, err := ParseMode("fuzzy"); err == nil {
		t.Error("ParseMode took an unknown mode")
	}
}

func TestFormatScore(t *testing.T) {
	for x, want := range map[float64]string{12.345: "12.35", 0.4567: "0.457", 0.00002: "<0.001", -0.00002: ">-0.001", 0: "0", 1234.5: "1234.50"} {
		if got := FormatScore(x); got != want {
			t.Errorf("FormatScore(%v) = %q; want %q", x, got, want)
		}
	}
}

// TestCombinedShowsKeywordPassages: combined search ranks keyword
// candidates without their passages, then reads the passages of the notes
// it shows, marked as keyword search marks them.
func TestCombinedShowsKeywordPassages(t *testing.T) {
	svc, _ := indexedService(t, config.Vault{Name: "coffee", Path: exampleVault()})
	ctx := context.Background()
	kw, err := svc.Search(ctx, Query{Mode: ModeKeyword, Text: "bloom"})
	if err != nil || len(kw.Results) == 0 {
		t.Fatalf("keyword: %+v %v", kw, err)
	}
	cmb, err := svc.Search(ctx, Query{Mode: ModeCombined, Text: "bloom"})
	if err != nil {
		t.Fatal(err)
	}
	byPath := map[string]notes.Result{}
	for _, r := range kw.Results {
		byPath[r.Path] = r
	}
	checked := 0
	for _, r := range cmb.Results {
		want, ok := byPath[r.Path]
		if !ok {
			continue
		}
		checked++
		if r.Snippet != want.Snippet || r.Line != want.Line || r.Heading != want.Heading || !strings.Contains(r.Snippet, "**") {
			t.Errorf("%s: combined passage %q (line %d, %q); keyword's %q (line %d, %q)", r.Path, r.Snippet, r.Line, r.Heading, want.Snippet, want.Line, want.Heading)
		}
	}
	if checked == 0 {
		t.Fatal("combined search found none of keyword search's notes")
	}
}

package fulltext

import (
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jarvis-mcp/jarvis/internal/config"
	"github.com/jarvis-mcp/jarvis/internal/index"
	"github.com/jarvis-mcp/jarvis/internal/search/notes"
	"github.com/jarvis-mcp/jarvis/internal/store"
	"github.com/jarvis-mcp/jarvis/internal/vault"
	"github.com/jarvis-mcp/jarvis/internal/vaultgen"
)

// agreementIndex indexes a generated vault twice, changing and deleting
// notes in between, so that note_fts holds several segments, delete
// markers and rows written twice; a note repeating one word thousands of
// times has a position list spanning several leaves.
func agreementIndex(t *testing.T) *Keyword {
	t.Helper()
	ctx := context.Background()
	root := filepath.Join(t.TempDir(), "vault")
	if _, err := vaultgen.Generate(root, vaultgen.Options{Notes: 1500, Seed: 7}); err != nil {
		t.Fatal(err)
	}
	long := "# Zebra crossings\n\n" + strings.Repeat("zebra stripes review ", 3000) + "\n"
	if err := os.WriteFile(filepath.Join(root, "Zebra.md"), []byte(long), 0o644); err != nil {
		t.Fatal(err)
	}
	db, err := store.Open(ctx, filepath.Join(t.TempDir(), "j.db"), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	ix := index.New(db, vault.NewParser(), quietLog())
	v := config.Vault{Name: "gen", Path: root}
	if _, err := ix.Index(ctx, v, nil); err != nil {
		t.Fatal(err)
	}
	var notes []string
	err = filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(p, ".md") {
			notes = append(notes, p)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	for i, p := range notes {
		switch i % 25 {
		case 3: // rewritten: old entries of its words deleted, new ones added
			text := fmt.Sprintf("# Rewritten %d\n\nA review of the deployment pipeline and the team feedback, rewritten.\n", i)
			if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
				t.Fatal(err)
			}
		case 11:
			if err := os.Remove(p); err != nil {
				t.Fatal(err)
			}
		}
	}
	if _, err := ix.Index(ctx, v, nil); err != nil {
		t.Fatal(err)
	}
	k := NewKeyword(db)
	ver, err := readFTSVersion(ctx, db, "note_fts")
	if err != nil {
		t.Fatal(err)
	}
	if len(ver.segments) < 2 {
		t.Fatalf("note_fts has %d segments; the test wants several", len(ver.segments))
	}
	return k
}

// TestGoRankingAgreesWithFTS5 holds ranking in Go to FTS5's own, over one
// index: for queries of common and rare words and phrases, every term or
// any, each note's score must be the one bm25() gives it, bit for bit,
// and the order the same, down to the last note matching; so must
// feedback's weighted ranking, to rounding, and its count of common words.
func TestGoRankingAgreesWithFTS5(t *testing.T) {
	k := agreementIndex(t)
	t.Run("bm25", func(t *testing.T) { goRankingAgrees(t, k) })
	t.Run("weighted", func(t *testing.T) { goWeightedRankingAgrees(t, k) })
	t.Run("common words", func(t *testing.T) { goCommonWordsAgree(t, k) })
}

func goRankingAgrees(t *testing.T, k *Keyword) {
	ctx := context.Background()
	f, err := notes.Filter{}.Resolve(ctx, k.db)
	if err != nil {
		t.Fatal(err)
	}
	queries := []string{
		"review", "zebra", "zebra review", "deployment pipeline review", "team feedback review",
		"client draft plan", "weekly progress checklist", "retry logic background jobs", "rewritten",
		"setup clean start notes project", "measure test results", "nothingmatchesthis review",
		"review review", "kubernetes", "2024", "sourdough starter",
		// Phrases, quoted or joined by punctuation, one spanning leaves.
		`"deployment pipeline"`, `"team feedback" review`, "retry-logic background", `"zebra stripes"`,
		`"stripes review zebra" crossings`, `"review review"`, `"pipeline deployment"`, "follow-up",
	}
	for _, q := range queries {
		pq := parseQuery(q).withoutPrefix()
		// One ranking for both, as a search that fills up with notes
		// matching any word has: the postings read for the first serve
		// the second.
		r := k.ranking("note_fts", f)
		defer r.close()
		for _, e := range []rankExpr{pq.allExpr(), pq.anyExpr()} {
			t.Run(fmt.Sprintf("%s/all=%v", q, e.all), func(t *testing.T) {
				if e.words == nil {
					t.Fatalf("%q is not ranked in Go", q)
				}
				got, err := r.rankInGo(ctx, goRank{words: e.words, all: e.all, limit: 100000})
				if err != nil {
					t.Fatal(err)
				}
				want, err := k.rank(ctx, "note_fts", r.weights, e.match(), f, 100000, nil)
				if err != nil {
					t.Fatal(err)
				}
				if len(got) != len(want) {
					t.Fatalf("%d notes ranked in Go, %d by FTS5", len(got), len(want))
				}
				for i := range got {
					if got[i].id != want[i].id || got[i].res.Score != want[i].res.Score {
						t.Fatalf("#%d: note %d scored %v in Go; FTS5 ranks note %d there, scored %v",
							i, got[i].id, got[i].res.Score, want[i].id, want[i].res.Score)
					}
				}
			})
		}
	}
}

// goWeightedRankingAgrees holds the weighted ranking of feedback's second
// pass to FTS5's: SQLite sums the terms' scores in an order of its own, so
// scores agree to rounding and the order wherever two notes' scores are
// not that close.
func goWeightedRankingAgrees(t *testing.T, k *Keyword) {
	ctx := context.Background()
	f, err := notes.Filter{}.Resolve(ctx, k.db)
	if err != nil {
		t.Fatal(err)
	}
	words := []string{"review", "deployment", "pipeline", "zebra", "team", "feedback", "plan", "kubernetes", "notes"}
	var terms []weightedTerm
	for i, w := range words {
		terms = append(terms, weightedTerm{expr: ftsString(w), weight: 1 / float64(i+2), word: w, indexWord: indexWord(w)})
	}
	r := k.ranking("note_fts", f)
	defer r.close()
	got, err := r.rankWeighted(ctx, terms, 100000)
	if err != nil {
		t.Fatal(err)
	}
	if r.set == nil || !r.inGo {
		t.Fatal("the weighted ranking did not run in Go")
	}
	want, err := k.rankWeighted(ctx, r.weights, terms, f, 100000)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(want) {
		t.Fatalf("%d notes ranked in Go, %d by FTS5", len(got), len(want))
	}
	close := func(a, b float64) bool { return math.Abs(a-b) <= 1e-12*math.Max(math.Abs(a), math.Abs(b)) }
	for i := range got {
		if !close(got[i].res.Score, want[i].res.Score) {
			t.Fatalf("#%d: note %d scored %v in Go; FTS5 ranks note %d there, scored %v",
				i, got[i].id, got[i].res.Score, want[i].id, want[i].res.Score)
		}
		if got[i].id != want[i].id {
			tied := i+1 < len(got) && close(got[i].res.Score, got[i+1].res.Score) ||
				i > 0 && close(got[i].res.Score, got[i-1].res.Score)
			if !tied {
				t.Fatalf("#%d: note %d in Go, %d by FTS5, scores %v and %v", i, got[i].id, want[i].id, got[i].res.Score, want[i].res.Score)
			}
		}
	}
}

// TestGoRankingFollowsTheIndex changes the index between two searches and
// in the middle of one: the lengths kept between searches are read again,
// and a search whose postings were read before the change is ranked by
// FTS5 from then on rather than from two versions of the index.
func TestGoRankingFollowsTheIndex(t *testing.T) {
	ctx := context.Background()
	root := t.TempDir()
	write := func(name, text string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(root, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("Kettle.md", "# Kettle\n\nThe kettle boils water for the pour over.\n")
	write("Grinder.md", "# Grinder\n\nThe grinder sets the grind for the pour over.\n")
	write("Old espresso.md", "# Old espresso\n\nEspresso from the old machine, before the moka pot.\n")
	k, db := indexedKeyword(t, "v", root)
	ix := index.New(db, vault.NewParser(), quietLog())
	v := config.Vault{Name: "v", Path: root}
	paths := func(q string) []string {
		t.Helper()
		rs, err := k.Search(ctx, KeywordQuery{Text: q})
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, r := range rs {
			out = append(out, r.Path)
		}
		return out
	}
	if got := paths("pour over"); len(got) != 2 {
		t.Fatalf("pour over: %v", got)
	}

	f, err := notes.Filter{}.Resolve(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	r := k.ranking("note_fts", f)
	defer r.close()
	if _, err := r.rank(ctx, parseQuery("kettle").withoutPrefix().allExpr(), 10, nil); err != nil || r.set == nil {
		t.Fatalf("the first ranking did not run in Go: %v", err)
	}

	write("Kettle.md", "# Kettle\n\nThe kettle is gone; a moka pot makes espresso now.\n")
	write("Moka.md", "# Moka pot\n\nA moka pot for espresso at home.\n")
	// Deleted: its words' entries stay in the older segment, and the new
	// one holds delete markers for them.
	if err := os.Remove(filepath.Join(root, "Old espresso.md")); err != nil {
		t.Fatal(err)
	}
	if _, err := ix.Index(ctx, v, nil); err != nil {
		t.Fatal(err)
	}

	// The search begun before the change: FTS5 ranks the rest of it.
	e := parseQuery("espresso").withoutPrefix().allExpr()
	got, err := r.rank(ctx, e, 10, nil)
	if err != nil {
		t.Fatal(err)
	}
	if r.inGo {
		t.Error("a search that read the index before it changed still ranks in Go")
	}
	want, err := k.rank(ctx, "note_fts", r.weights, e.match(), f, 10, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || len(got) != len(want) || got[0].id != want[0].id || got[1].id != want[1].id {
		t.Errorf("espresso after the change: %+v; FTS5 ranks %+v", got, want)
	}

	// A new search: lengths and postings of the new version, in Go.
	if got := paths("espresso"); len(got) != 2 || got[0] != "Moka.md" {
		t.Errorf("espresso: %v; want Moka.md first of two", got)
	}
	if got := paths("pour over"); len(got) != 1 || got[0] != "Grinder.md" {
		t.Errorf("pour over: %v; want Grinder.md alone", got)
	}
	r2 := k.ranking("note_fts", f)
	defer r2.close()
	if _, err := r2.rank(ctx, e, 10, nil); err != nil || !r2.inGo || r2.set == nil {
		t.Errorf("a search after the change does not rank in Go: %v", err)
	}
}

// TestGoRankingPassesOverDeletedNotes deletes a note, so that a newer
// segment holds delete markers for the entries an older one keeps of its
// words: ranking stays in Go and leaves the note out.
func TestGoRankingPassesOverDeletedNotes(t *testing.T) {
	ctx := context.Background()
	root := t.TempDir()
	for name, text := range map[string]string{
		"Kept.md": "# Kept\n\nEspresso from the moka pot.\n", "Gone.md": "# Gone\n\nEspresso from the old machine.\n",
		"Moka.md": "# Moka\n\nThe moka pot on the stove.\n",
	} {
		if err := os.WriteFile(filepath.Join(root, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	k, db := indexedKeyword(t, "v", root)
	ix := index.New(db, vault.NewParser(), quietLog())
	v := config.Vault{Name: "v", Path: root}
	if err := os.Remove(filepath.Join(root, "Gone.md")); err != nil {
		t.Fatal(err)
	}
	if _, err := ix.Index(ctx, v, nil); err != nil {
		t.Fatal(err)
	}
	if ver, err := readFTSVersion(ctx, db, "note_fts"); err != nil || len(ver.segments) < 2 {
		t.Fatalf("note_fts: %+v, %v; the test wants the delete markers in a segment of their own", ver, err)
	}
	f, err := notes.Filter{}.Resolve(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{"espresso", "espresso moka", `"old machine"`} {
		e := parseQuery(q).withoutPrefix().anyExpr()
		r := k.ranking("note_fts", f)
		got, err := r.rankInGo(ctx, goRank{words: e.words, limit: 10})
		r.close()
		if err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		want, err := k.rank(ctx, "note_fts", r.weights, e.match(), f, 10, nil)
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != len(want) {
			t.Fatalf("%s: %d notes in Go, %d by FTS5", q, len(got), len(want))
		}
		for i := range got {
			if got[i].id != want[i].id || got[i].res.Score != want[i].res.Score {
				t.Errorf("%s #%d: note %d scored %v in Go; FTS5 ranks note %d there, scored %v", q, i, got[i].id, got[i].res.Score, want[i].id, want[i].res.Score)
			}
		}
	}
}

// TestGoRankingKeepsToTheVaultsAsked searches one vault of a database
// holding two: ranking stays in Go, and finds what FTS5 finds.
func TestGoRankingKeepsToTheVaultsAsked(t *testing.T) {
	ctx := context.Background()
	db, err := store.Open(ctx, filepath.Join(t.TempDir(), "j.db"), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	ix := index.New(db, vault.NewParser(), quietLog())
	for _, name := range []string{"home", "work"} {
		root := t.TempDir()
		for i := range 5 {
			text := fmt.Sprintf("# Note %d\n\nThe %s espresso notes, number %d, on the moka pot.\n", i, name, i)
			if err := os.WriteFile(filepath.Join(root, fmt.Sprintf("Note %d.md", i)), []byte(text), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := ix.Index(ctx, config.Vault{Name: name, Path: root}, nil); err != nil {
			t.Fatal(err)
		}
	}
	k := NewKeyword(db)
	for _, filter := range []notes.Filter{{Vault: "work"}, {Vaults: []string{"home"}}, {Vaults: []string{"home", "work"}}} {
		f, err := filter.Resolve(ctx, db)
		if err != nil {
			t.Fatal(err)
		}
		e := parseQuery("espresso moka").withoutPrefix().allExpr()
		r := k.ranking("note_fts", f)
		got, err := r.rankInGo(ctx, goRank{words: e.words, all: true, limit: 100})
		r.close()
		if err != nil {
			t.Fatalf("%+v: %v", filter, err)
		}
		want, err := k.rank(ctx, "note_fts", r.weights, e.match(), f, 100, nil)
		if err != nil {
			t.Fatal(err)
		}
		wantN := 5
		if len(filter.Vaults) == 2 {
			wantN = 10
		}
		if len(got) != wantN || len(want) != wantN {
			t.Fatalf("%+v: %d notes in Go, %d by FTS5; want %d", filter, len(got), len(want), wantN)
		}
		for i := range got {
			if got[i].id != want[i].id || got[i].res.Score != want[i].res.Score {
				t.Errorf("%+v #%d: note %d in Go, %d by FTS5", filter, i, got[i].id, want[i].id)
			}
		}
	}
}

// goCommonWordsAgree holds feedback's count of common words in Go, which
// stops at half the notes, to FTS5's.
func goCommonWordsAgree(t *testing.T, k *Keyword) {
	ctx := context.Background()
	f, err := notes.Filter{}.Resolve(ctx, k.db)
	if err != nil {
		t.Fatal(err)
	}
	words := []string{"the", "notes", "review", "project", "zebra", "deployment", "meeting", "nothingmatchesthis", "and", "with"}
	r := k.ranking("note_fts", f)
	defer r.close()
	got, err := r.commonWords(ctx, words)
	if err != nil {
		t.Fatal(err)
	}
	if r.set == nil || !r.inGo {
		t.Fatal("the words were not counted in Go")
	}
	want, err := k.commonWords(ctx, words)
	if err != nil {
		t.Fatal(err)
	}
	common := 0
	for _, w := range words {
		if got[w] != want[w] {
			t.Errorf("%s: common %v in Go, %v by FTS5", w, got[w], want[w])
		}
		if want[w] {
			common++
		}
	}
	if common == 0 || common == len(words) {
		t.Errorf("%d of %d words common: the test wants some of each", common, len(words))
	}
}

// FuzzFTSRecords: whatever bytes FTS5's structure record and position
// lists hold (a damaged database), reading them gives segments or
// positions, or errFTSFormat, and never panics or allocates without
// bound; the search then ranks through FTS5.
func FuzzFTSRecords(f *testing.F) {
	f.Add([]byte{0, 0, 0, 0, 1, 1, 1, 0, 1, 5, 1, 9})
	f.Add([]byte{0, 0, 0, 0, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff})
	f.Add([]byte{2, 4, 1, 3, 6})
	f.Fuzz(func(t *testing.T, b []byte) {
		segs, err := parseFTSStructure(b)
		if err != nil && !errors.Is(err, errFTSFormat) {
			t.Fatalf("structure: %v", err)
		}
		for _, s := range segs {
			if s.first <= 0 {
				t.Fatalf("a segment with no leaves was listed: %+v", s)
			}
		}
		if _, err := decodePositions(b, nil); err != nil && !errors.Is(err, errFTSFormat) {
			t.Fatalf("positions: %v", err)
		}
	})
}

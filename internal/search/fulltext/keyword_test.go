package fulltext

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/jarvis-mcp/jarvis/internal/search/notes"
	"github.com/jarvis-mcp/jarvis/internal/search/searchtest"
	"github.com/jarvis-mcp/jarvis/internal/sharedtest"
	"github.com/jarvis-mcp/jarvis/internal/store"
)

// indexedKeyword indexes vaults (name, folder, name, folder, ...) into a
// fresh database and returns keyword search over it.
func indexedKeyword(t testing.TB, vaults ...string) (*Keyword, *store.DB) {
	t.Helper()
	db := searchtest.IndexedDB(t, vaults...)
	return NewKeyword(db), db
}

// exampleVault is the vault shipped in examples/vault.
func exampleVault() string { return filepath.Join("..", "..", "..", "examples", "vault") }

// keywordCase is a query and what its results must show. Empty fields are
// not checked.
type keywordCase struct {
	name  string
	query KeywordQuery
	first string // path of the first result
	// heading and line of the first result's passage (line 0: unchecked).
	heading string
	line    int
	// snippet is a marked word the first result's snippet must hold.
	snippet string
	// only lists every path the results may have; none means no results.
	only []string
	none bool
}

func runKeywordCases(t *testing.T, k *Keyword, tests []keywordCase) {
	t.Helper()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rs, err := k.Search(context.Background(), tt.query)
			if err != nil {
				t.Fatal(err)
			}
			if tt.none {
				if len(rs) > 0 {
					t.Fatalf("got %d results, want none: %v", len(rs), paths(rs))
				}
				return
			}
			if len(rs) == 0 {
				t.Fatal("no results")
			}
			r := rs[0]
			if tt.first != "" && r.Path != tt.first {
				t.Errorf("first result %q, want %q; all: %v", r.Path, tt.first, paths(rs))
			}
			if tt.heading != "" && r.Heading != tt.heading {
				t.Errorf("heading %q, want %q", r.Heading, tt.heading)
			}
			if tt.line != 0 && r.Line != tt.line {
				t.Errorf("line %d, want %d", r.Line, tt.line)
			}
			if tt.snippet != "" && !strings.Contains(r.Snippet, "**"+tt.snippet+"**") {
				t.Errorf("snippet %q does not mark %q", r.Snippet, tt.snippet)
			}
			for _, r := range rs {
				if tt.only != nil && !slices.Contains(tt.only, r.Path) {
					t.Errorf("result %q is none of %v", r.Path, tt.only)
				}
				if r.Score <= 0 || r.Vault == "" || r.Title == "" || r.Line < 1 {
					t.Errorf("incomplete result %+v", r)
				}
			}
			seen := map[string]bool{}
			for _, r := range rs {
				if seen[r.Vault+"/"+r.Path] {
					t.Errorf("note %s twice", r.Path)
				}
				seen[r.Vault+"/"+r.Path] = true
			}
		})
	}
}

func TestKeywordExampleVault(t *testing.T) {
	k, _ := indexedKeyword(t, "coffee", exampleVault())
	q := func(text string) KeywordQuery { return KeywordQuery{Text: text} }
	runKeywordCases(t, k, []keywordCase{
		{name: "title", query: q("pour over"), first: "Methods/Pour over.md", snippet: "pour"},
		{name: "alias", query: q("V60"), first: "Methods/Pour over.md", snippet: "V60"},
		{name: "alias of two words", query: q("burr grinder"), first: "Gear/Grinder.md"},
		{name: "title in another case", query: q("AEROPRESS"), first: "Methods/AeroPress.md"},
		{name: "last word as a prefix", query: q("aeropr"), first: "Methods/AeroPress.md"},
		{name: "stemmed", query: q("drains"), first: "Methods/Pour over.md", snippet: "draining"},
		{
			name: "quoted heading", query: q(`"adjusting strength"`), first: "Brewing ratios.md",
			heading: "Brewing ratios > Adjusting strength", line: 20, snippet: "Adjusting strength",
		},
		{name: "every word of a short query", query: q("sour thin grind"), first: "Methods/Pour over.md", heading: "Pour over > Troubleshooting", line: 23},
		{name: "Japanese word", query: q("喫茶店"), first: "喫茶店めぐり.md", snippet: "喫茶店"},
		{name: "Japanese heading", query: q("吉祥寺"), first: "喫茶店めぐり.md", heading: "喫茶店めぐり > 吉祥寺", line: 16, snippet: "吉祥寺"},
		{name: "Japanese two characters", query: q("深煎"), first: "喫茶店めぐり.md", snippet: "深煎"},
		{name: "Japanese one character", query: q("苦"), first: "喫茶店めぐり.md", snippet: "苦"},
		{name: "Japanese sentence", query: q("家で飲んでいるエチオピア"), first: "喫茶店めぐり.md", heading: "喫茶店めぐり > 吉祥寺"},
		{name: "Japanese and English", query: q("Guji 浅煎り"), first: "喫茶店めぐり.md"},
		{name: "question", query: q("how many hours does cold brew sit in the fridge"), first: "Methods/Cold brew.md"},
		{name: "words in no note", query: q("zymurgy quokka"), none: true},
	})
}

func TestKeywordFilters(t *testing.T) {
	k, _ := indexedKeyword(t, "coffee", exampleVault(), "other", exampleVault())
	immersion := []string{"Methods/Index.md", "Methods/French press.md", "Methods/Cold brew.md", "Methods/AeroPress.md"}
	method := append([]string{"Methods/Pour over.md"}, immersion...)
	beans := []string{"Beans/Index.md", "Beans/Ethiopia Guji.md", "Beans/Colombia Huila.md", "Beans/Roast levels.md"}
	runKeywordCases(t, k, []keywordCase{
		{name: "tag and the tags under it", query: KeywordQuery{Text: "water", Filter: notes.Filter{Tag: "method"}}, only: method},
		{name: "nested tag, hash and case", query: KeywordQuery{Text: "water", Filter: notes.Filter{Tag: "#Method/Immersion"}}, only: immersion},
		{name: "tag prefix is not a parent", query: KeywordQuery{Text: "water", Filter: notes.Filter{Tag: "meth"}}, none: true},
		{name: "folder", query: KeywordQuery{Text: "roast", Filter: notes.Filter{PathPrefix: "Beans"}}, only: beans},
		{name: "folder with slashes", query: KeywordQuery{Text: "roast", Filter: notes.Filter{PathPrefix: "./Beans/"}}, only: beans},
		{name: "file path", query: KeywordQuery{Text: "roast", Filter: notes.Filter{PathPrefix: "Beans/Roast"}}, only: []string{"Beans/Roast levels.md"}},
		{name: "unknown vault", query: KeywordQuery{Text: "water", Filter: notes.Filter{Vault: "nope"}}, none: true},
		{name: "all filters", query: KeywordQuery{Text: "bloom", Filter: notes.Filter{Vault: "other", PathPrefix: "Methods/", Tag: "method/immersion"}},
			first: "Methods/French press.md", only: immersion},
	})
	rs, err := k.Search(context.Background(), KeywordQuery{Text: "water", Filter: notes.Filter{Vault: "other"}, Limit: 50})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rs {
		if r.Vault != "other" {
			t.Errorf("vault filter let %s/%s through", r.Vault, r.Path)
		}
	}
	both, err := k.Search(context.Background(), KeywordQuery{Text: "water", Limit: 50})
	if err != nil {
		t.Fatal(err)
	}
	if len(both) != 2*len(rs) {
		t.Errorf("%d results across both vaults, %d in one", len(both), len(rs))
	}
}

func TestKeywordNamesOnly(t *testing.T) {
	k, _ := indexedKeyword(t, "coffee", exampleVault())
	names := func(text string) KeywordQuery { return KeywordQuery{Text: text, NamesOnly: true} }
	runKeywordCases(t, k, []keywordCase{
		{name: "title", query: names("ratios"), first: "Brewing ratios.md", snippet: "ratios", line: 1},
		{name: "alias", query: names("kissaten visits"), first: "喫茶店めぐり.md", snippet: "Kissaten"},
		{name: "alias among others", query: names("hand drip"), first: "Methods/Pour over.md", snippet: "Hand"},
		{name: "folder in the path", query: names("gear"), only: []string{"Gear/Grinder.md", "Gear/Kettle.md", "Gear/Scale.md"}},
		{name: "prefix", query: names("grin"), first: "Gear/Grinder.md"},
		{name: "Japanese title", query: names("喫茶"), first: "喫茶店めぐり.md", snippet: "喫茶"},
		{name: "word only in the text", query: names("bloom"), none: true},
		{name: "tag only", query: names("percolation"), none: true},
	})
}

// TestKeywordAnyText feeds text a person or a model might type, FTS5
// syntax included; none of it may fail.
func TestKeywordAnyText(t *testing.T) {
	k, _ := indexedKeyword(t, "coffee", exampleVault())
	for _, text := range []string{
		"C++", `"unbalanced`, `unbalanced"`, `""`, `"`, "AND OR NOT", "NOT water", "water NOT", "-", "-water", "*", "water*",
		"NEAR(", "NEAR(a b, 3)", "col:term", "title:water", "{title}: water", "^water", "a:b:c", "🚀", "☕ coffee ☕",
		"(", ")", "((water))", "[[Pour over]]", "#tasting", "'", "';DROP TABLE files;--", `\`, "%", "_", "x\x00y",
		"ｗａｔｅｒ", "Ωmega", "café", "naïve", "e\u0301", "\u200b", "a AND", "OR", "\"\"\"", "“curly”", "«water»",
		strings.Repeat("water ", 500), strings.Repeat("水", 300), "\xff\xfe", "喫茶店 AND 東京",
	} {
		for _, names := range []bool{false, true} {
			if _, err := k.Search(context.Background(), KeywordQuery{Text: text, NamesOnly: names}); err != nil {
				t.Errorf("Search(%q, names only %v): %v", text, names, err)
			}
		}
	}
	for _, text := range []string{"", " ", "\t\n "} {
		if _, err := k.Search(context.Background(), KeywordQuery{Text: text}); !errors.Is(err, notes.ErrEmptyQuery) {
			t.Errorf("Search(%q) = %v; want ErrEmptyQuery", text, err)
		}
	}
}

func TestKeywordLimit(t *testing.T) {
	k, _ := indexedKeyword(t, "coffee", exampleVault())
	def := DefaultLimit
	for _, tt := range []struct{ limit, most int }{{0, def}, {3, 3}} {
		rs, err := k.Search(context.Background(), KeywordQuery{Text: "coffee", Limit: tt.limit})
		if err != nil {
			t.Fatal(err)
		}
		if len(rs) > tt.most || len(rs) == 0 {
			t.Errorf("limit %d: %d results", tt.limit, len(rs))
		}
	}
	// A short query finds notes with every word first, then the rest.
	rs, err := k.Search(context.Background(), KeywordQuery{Text: "bloom kettle", Limit: 5})
	if err != nil {
		t.Fatal(err)
	}
	if len(rs) < 3 {
		t.Fatalf("results %v", paths(rs))
	}
}

// helpKeyword indexes the English and Chinese Obsidian Help vaults.
func helpKeyword(t *testing.T) *Keyword {
	t.Helper()
	en := sharedtest.Path(t, "vaults/obsidian-help/en")
	zh := sharedtest.Path(t, "vaults/obsidian-help/zh")
	k, _ := indexedKeyword(t, "en", en, "zh", zh)
	return k
}

func TestKeywordHelpVault(t *testing.T) {
	k := helpKeyword(t)
	en := func(text string) KeywordQuery {
		return KeywordQuery{Text: text, Filter: notes.Filter{Vault: "en"}}
	}
	zh := func(text string) KeywordQuery {
		return KeywordQuery{Text: text, Filter: notes.Filter{Vault: "zh"}}
	}
	runKeywordCases(t, k, []keywordCase{
		{name: "title", query: en("canvas"), first: "Plugins/Canvas.md", snippet: "Canvas"},
		{name: "title typed halfway", query: en("canv"), first: "Plugins/Canvas.md"},
		{name: "alias", query: en("keyboard shortcuts"), first: "User interface/Hotkeys.md"},
		// The alias is found in a code example, shown as written: not marked.
		{name: "alias inside an example", query: en("Woofer"), first: "Linking notes and files/Aliases.md"},
		{
			name: "quoted heading", query: en(`"link to a heading"`), first: "Linking notes and files/Internal links.md",
			heading: "Link to a heading in a note",
		},
		{name: "two words of a title", query: en("daily notes"), first: "Plugins/Daily notes.md"},
		{name: "question", query: en("how do I embed a note in another note"), first: "Linking notes and files/Embed files.md"},
		{name: "names only, exact title first", query: KeywordQuery{Text: "tags", NamesOnly: true, Filter: notes.Filter{Vault: "en"}},
			first: "Editing and formatting/Tags.md"},
		{name: "Chinese title", query: zh("白板"), first: "插件/白板.md", snippet: "白板"},
		{name: "Chinese, four characters", query: zh("同步设置"), first: "Obsidian Sync/同步文件和设置.md", snippet: "同步设置"},
		{name: "Chinese title, names only", query: KeywordQuery{Text: "快捷键", NamesOnly: true, Filter: notes.Filter{Vault: "zh"}},
			first: "用户界面/快捷键.md", snippet: "快捷键"},
	})
}

func TestMarkedExcerptInsideBoldText(t *testing.T) {
	got := markedExcerpt("See **Linking notes** and __more__.", []string{"linking"}, 100)
	if want := "See **Linking** notes and __more__."; got != want {
		t.Fatalf("excerpt %q; want %q", got, want)
	}
}

// TestResultHeadingIsTheOneAboveItsLine: a tiny section shares a chunk with
// the deeper section after it, yet a match in it reports its own heading.
func TestResultHeadingIsTheOneAboveItsLine(t *testing.T) {
	dir := t.TempDir()
	note := "# Project Alpha\n\nThe budget is set.\n\n## Goals\n\nShip the parser, then measure the index against a real vault.\n\n### Stretch\n\nA watcher.\n"
	if err := os.WriteFile(filepath.Join(dir, "Alpha.md"), []byte(note), 0o644); err != nil {
		t.Fatal(err)
	}
	k, _ := indexedKeyword(t, "v", dir)
	for query, want := range map[string]struct {
		heading string
		line    int
	}{
		"budget":  {"Project Alpha", 3},
		"parser":  {"Project Alpha > Goals", 7},
		"watcher": {"Project Alpha > Goals > Stretch", 11},
	} {
		rs, err := k.Search(context.Background(), KeywordQuery{Text: query})
		if err != nil || len(rs) != 1 {
			t.Fatalf("%q: %v, %v", query, rs, err)
		}
		if rs[0].Heading != want.heading || rs[0].Line != want.line {
			t.Errorf("%q: heading %q line %d; want %q line %d", query, rs[0].Heading, rs[0].Line, want.heading, want.line)
		}
	}
}

// TestSnippetLeavesCodeAsWritten: a query word inside code, fenced in a
// quote or inline, is not marked and its text (bold markers and link
// brackets included) is shown as written; outside code it is marked.
func TestSnippetLeavesCodeAsWritten(t *testing.T) {
	dir := t.TempDir()
	note := "# Code note\n\n> Quoted code\n\n> Example:\n> ```python\n> # **bold** heading in code\n> x = [[not a link]]\n> ```\n\nSome `inline code` and zebrafish words.\n"
	if err := os.WriteFile(filepath.Join(dir, "Code note.md"), []byte(note), 0o644); err != nil {
		t.Fatal(err)
	}
	k, _ := indexedKeyword(t, "v", dir)
	rs, err := k.Search(context.Background(), KeywordQuery{Text: "bold heading code"})
	if err != nil || len(rs) != 1 {
		t.Fatalf("%v, %v", rs, err)
	}
	s := rs[0].Snippet
	if !strings.Contains(s, "Quoted **code**") || !strings.Contains(s, "`# **bold** heading in code x = [[not a link]]`") ||
		!strings.Contains(s, "`inline code`") {
		t.Fatalf("snippet %q; want the match outside code marked and the code as written", s)
	}
}

// TestSnippetMarksOnlyMatches: bold text in the note loses its markers in
// the snippet, so that ** marks the query's words alone.
func TestSnippetMarksOnlyMatches(t *testing.T) {
	k, _ := indexedKeyword(t, "coffee", exampleVault())
	rs, err := k.Search(context.Background(), KeywordQuery{Text: "sour thin"})
	if err != nil || len(rs) == 0 || rs[0].Path != "Methods/Pour over.md" {
		t.Fatalf("%v, %v", paths(rs), err)
	}
	if s := rs[0].Snippet; !strings.Contains(s, "**Sour** and **thin**:") || strings.Contains(s, "***") {
		t.Fatalf("snippet %q; want the matches marked and the note's own bold gone", s)
	}
	if got := oneLine("| a | b |\n|---------|:------:|"); got != "a · b" {
		t.Fatalf("oneLine kept a table ruler: %q", got)
	}
}

// TestWholeWordSkipsPrefix: the last word of a short query matches as a
// prefix too, unless it matches as many notes as asked for on its own.
func TestWholeWordSkipsPrefix(t *testing.T) {
	dir := t.TempDir()
	for name, text := range map[string]string{
		"a.md": "The pipe leaks.", "b.md": "A pipe bends.", "c.md": "Pipe fittings.",
		"d.md": "The deployment pipeline.", "e.md": "Pipelines everywhere.",
	} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	k, _ := indexedKeyword(t, "v", dir)
	for _, tt := range []struct {
		limit int
		want  []string
	}{
		{3, []string{"a.md", "b.md", "c.md"}},
		{10, []string{"a.md", "b.md", "c.md", "d.md", "e.md"}},
	} {
		rs, err := k.Search(context.Background(), KeywordQuery{Text: "pipe", Limit: tt.limit})
		if err != nil {
			t.Fatal(err)
		}
		got := paths(rs)
		slices.Sort(got)
		if !slices.Equal(got, tt.want) {
			t.Errorf("limit %d: %v; want %v", tt.limit, got, tt.want)
		}
	}
}

// TestKeywordDropsFunctionWordsOfOtherLanguages: a query in French whose
// names are in no note finds nothing, rather than every note holding "à"
// (trial 20: "Gaspard à Sète" listed seven notes that held only "à"); the
// word alone is still searched, and an English content word that is a
// function word elsewhere ("pour") is kept.
func TestKeywordDropsFunctionWordsOfOtherLanguages(t *testing.T) {
	dir := t.TempDir()
	sharedtest.WriteFile(t, dir, "Remerciements.md", "# Remerciements\n\nÀ la médiathèque de Perpignan, et à mes amis.\n")
	sharedtest.WriteFile(t, dir, "Café.md", "# Café\n\nPour over, à la main.\n")
	k, _ := indexedKeyword(t, "roman", dir)
	runKeywordCases(t, k, []keywordCase{
		{name: "names in no note", query: KeywordQuery{Text: "Gaspard à Sète"}, none: true},
		{name: "the word alone", query: KeywordQuery{Text: "à"}, only: []string{"Remerciements.md", "Café.md"}},
		{name: "an English content word", query: KeywordQuery{Text: "pour la main"}, first: "Café.md", only: []string{"Café.md"}},
	})
}

// TestKeywordDropsEverydayPrepositions: "mit", "con" and "über", which
// German and Spanish notes hold in nearly every sentence, are dropped as
// "à" is (trial 22: "Gaspard mit Sète" listed every note with "mit"); a
// query of one of them alone still searches it.
func TestKeywordDropsEverydayPrepositions(t *testing.T) {
	dir := t.TempDir()
	sharedtest.WriteFile(t, dir, "Intercambio.md", "# Intercambio Sevilla\n\nAustausch mit Sevilla, con los alumnos, über Ostern.\n")
	k, _ := indexedKeyword(t, "schule", dir)
	runKeywordCases(t, k, []keywordCase{
		{name: "mit", query: KeywordQuery{Text: "Gaspard mit Sète"}, none: true},
		{name: "con", query: KeywordQuery{Text: "Gaspard con Sète"}, none: true},
		{name: "über", query: KeywordQuery{Text: "Gaspard über Sète"}, none: true},
		{name: "mit alone", query: KeywordQuery{Text: "mit"}, first: "Intercambio.md"},
	})
}

// TestSnippetStaysInTheSectionOfItsLine: a result is labelled by the
// section of its first match's line, and its snippet shows that section
// only: never the end of the section before it (the heading above) nor the
// start of the next, in a search and in the passages read for a bare one.
func TestSnippetStaysInTheSectionOfItsLine(t *testing.T) {
	dir := t.TempDir()
	sharedtest.WriteFile(t, dir, "Plan de clase.md", "# Plan de clase: el subjuntivo\n\n## Objetivos\n\n"+
		"Usar el subjuntivo tras expresiones de deseo y de duda.\n\n## Actividades\n\n"+
		"1. Lectura en parejas del cuento.\n2. Completar frases con ojalá.\n3. Dictado corto.\n\n"+
		"4. Juego de rol en grupos: pedir favores al profesor.\n\n## Evaluación\n\nPequeño examen el viernes sobre el modo.\n")
	sharedtest.WriteFile(t, dir, "Perfekt.md", "---\ntags: [deutsch]\nniveau: A2\nklasse: 7b\n"+
		"datum: 2026-03-02\n---\n\n# Übungen zum Perfekt\n## Ziel\n"+
		"Die Klasse bildet Sätze mit haben und sein im Gespräch über das Wochenende.\n\n## Aufgaben\n\nLückentext.\n")
	k, _ := indexedKeyword(t, "v", dir)
	for _, tc := range []struct {
		query, path, heading string
		line                 int
		not                  []string // text of other sections the snippet must not show
	}{
		{"juego rol favores", "Plan de clase.md", "Plan de clase: el subjuntivo > Actividades", 13, []string{"Evaluación", "Objetivos"}},
		{"haben sein", "Perfekt.md", "Übungen zum Perfekt > Ziel", 10, []string{"Übungen", "Aufgaben"}},
	} {
		t.Run(tc.path, func(t *testing.T) {
			rs, err := k.Search(context.Background(), KeywordQuery{Text: tc.query})
			if err != nil || len(rs) == 0 || rs[0].Path != tc.path {
				t.Fatalf("%q: %v, %v", tc.query, rs, err)
			}
			bare := []notes.Result{{Vault: rs[0].Vault, Path: rs[0].Path, File: rs[0].File}}
			if err := k.Passages(context.Background(), tc.query, bare); err != nil {
				t.Fatal(err)
			}
			for how, r := range map[string]notes.Result{"search": rs[0], "passages": bare[0]} {
				if r.HeadingLabel() != tc.heading || r.Line != tc.line {
					t.Errorf("%s: %s · line %d; want %s · line %d", how, r.HeadingLabel(), r.Line, tc.heading, tc.line)
				}
				if !strings.Contains(r.Snippet, "**") || slices.ContainsFunc(tc.not, func(s string) bool { return strings.Contains(r.Snippet, s) }) {
					t.Errorf("%s: snippet %q shows another section than %s", how, r.Snippet, tc.heading)
				}
			}
		})
	}
}

// TestSnippetShowsTheSectionHoldingMostQueryWords: when the best window
// crosses a heading, the section shown is the one whose own best window
// holds the most query words, not that of the crossing window's first
// match; its label, line and snippet agree, in a search and in the
// passages read for a bare result.
func TestSnippetShowsTheSectionHoldingMostQueryWords(t *testing.T) {
	dir := t.TempDir()
	sharedtest.WriteFile(t, dir, "Zettelkasten workflow.md", "---\ntags: [pkm]\ncreated: 2026-01-12\n---\n\n"+
		"# Zettelkasten workflow\n\n"+
		"Read and write a literature note. Turn claims into permanent notes. Link each new note to the MOC it belongs to.\n\n"+
		"## Inbox\n\n- Check the fleeting notes\n- Process two literature notes\n- Empty the tray\n\n"+
		"## Review\n\nOnce a week, walk the MOCs.\n")
	k, _ := indexedKeyword(t, "zk", dir)
	const query = "literature note inbox fleeting"
	rs, err := k.Search(context.Background(), KeywordQuery{Text: query})
	if err != nil || len(rs) == 0 || rs[0].Path != "Zettelkasten workflow.md" {
		t.Fatalf("%q: %v, %v", query, rs, err)
	}
	bare := []notes.Result{{Vault: rs[0].Vault, Path: rs[0].Path, File: rs[0].File}}
	if err := k.Passages(context.Background(), query, bare); err != nil {
		t.Fatal(err)
	}
	for how, r := range map[string]notes.Result{"search": rs[0], "passages": bare[0]} {
		if r.HeadingLabel() != "Zettelkasten workflow > Inbox" || r.Line != 10 {
			t.Errorf("%s: %s · line %d; want Zettelkasten workflow > Inbox · line 10", how, r.HeadingLabel(), r.Line)
		}
		for _, w := range []string{"**Inbox**", "**fleeting**", "**literature**", "**notes**"} {
			if !strings.Contains(r.Snippet, w) {
				t.Errorf("%s: snippet %q lacks %s", how, r.Snippet, w)
			}
		}
		if strings.Contains(r.Snippet, "claims") || strings.Contains(r.Snippet, "week") {
			t.Errorf("%s: snippet %q shows another section than Inbox", how, r.Snippet)
		}
	}
}

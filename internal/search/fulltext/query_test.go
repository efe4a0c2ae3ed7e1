package fulltext

import (
	"context"
	"errors"
	"testing"

	"github.com/jarvis-mcp/jarvis/internal/search/notes"
)

func TestParseQuery(t *testing.T) {
	tests := []struct {
		text      string
		all, any  string
		cjk       bool
		noTerms   bool
		notStrict bool
	}{
		{text: "canvas", all: `("canvas" OR "canvas"*)`, any: `("canvas" OR "canvas"*)`},
		{text: "Internal Links", all: `"internal" AND ("links" OR "links"*)`, any: `"internal" OR ("links" OR "links"*)`},
		{text: "go", all: `"go"`, any: `"go"`},
		{text: `"link to a heading"`, all: `"link to a heading"`, any: `"link to a heading"`},
		{text: `"unbalanced quote`, all: `"unbalanced quote"`, any: `"unbalanced quote"`},
		{text: `say “hello there”`, all: `"say" AND "hello there"`, any: `"say" OR "hello there"`},
		{text: "e-mail", all: `"e mail"`, any: `"e" OR "mail"`},
		{text: "C++", all: `"c"`, any: `"c"`},
		{text: "col:term", all: `"col term"`, any: `"col" OR "term"`},
		{text: "NEAR(", all: `("near" OR "near"*)`, any: `("near" OR "near"*)`},
		{text: "AND OR NOT", all: `"and" AND "or" AND ("not" OR "not"*)`, any: `"and" OR "or" OR ("not" OR "not"*)`},
		{text: "the canvas", all: `("canvas" OR "canvas"*)`, any: `("canvas" OR "canvas"*)`},
		{text: "*", noTerms: true},
		{text: "- * ^ :", noTerms: true},
		{text: "🚀", noTerms: true},
		{text: "🚀launch", all: `("launch" OR "launch"*)`, any: `("launch" OR "launch"*)`},
		{text: "Café", all: `("café" OR "café"*)`, any: `("café" OR "café"*)`},
		{text: "喫茶店", all: `"喫茶 茶店"`, any: `"喫茶" OR "茶店"`, cjk: true},
		{text: "東京", all: `"東京"`, any: `"東京"`, cjk: true},
		{text: "茶", all: `"茶"*`, any: `"茶"*`, cjk: true},
		{text: "Obsidian同步", all: `"obsidian" AND "同步"`, any: `"obsidian" OR "同步"`, cjk: true},
		{
			text:      "what similarity laws must be obeyed when constructing aeroelastic models",
			all:       `"similarity" AND "laws" AND "obeyed" AND "constructing" AND "aeroelastic" AND "models"`,
			any:       `"similarity" OR "laws" OR "obeyed" OR "constructing" OR "aeroelastic" OR "models"`,
			notStrict: true,
		},
		{text: "喫茶店のメニューを見る", any: `"喫茶" OR "茶店" OR "店の" OR "のメ" OR "メニ" OR "ニュ" OR "ュー" OR "ーを" OR "を見" OR "見る"`, cjk: true, notStrict: true},
	}
	for _, tt := range tests {
		t.Run(tt.text, func(t *testing.T) {
			q := parseQuery(tt.text)
			if tt.noTerms {
				if len(q.terms) != 0 {
					t.Fatalf("terms %+v, want none", q.terms)
				}
				return
			}
			if q.cjk != tt.cjk {
				t.Errorf("cjk %v, want %v", q.cjk, tt.cjk)
			}
			if q.strict() == tt.notStrict {
				t.Errorf("strict %v, want %v", q.strict(), !tt.notStrict)
			}
			if tt.all != "" && q.matchAll() != tt.all {
				t.Errorf("all terms:\n got %s\nwant %s", q.matchAll(), tt.all)
			}
			if got := q.matchAny(); got != tt.any {
				t.Errorf("any term:\n got %s\nwant %s", got, tt.any)
			}
		})
	}
}

// FuzzKeywordQuery asserts that no text makes keyword search fail: the
// MATCH expression is built from parsed words, never from the text itself.
func FuzzKeywordQuery(f *testing.F) {
	for _, s := range []string{
		"canvas", `"unbalanced`, "C++", "AND OR NOT", "-", "*", "NEAR(", "col:term", "🚀", "喫茶店", "東京 茶", `a "b c" d`,
		"x\"y", "{title}: x", "^x", "x*", "(x OR y) AND NOT z", "\x00", "\xff", "ｶﾀｶﾅ", "e\u0301",
		// Long enough for pseudo-relevance feedback.
		"how fine should I grind for a pour over with the gooseneck kettle", `"bloom" water* NEAR(grind kettle) scale: timer 🚀`,
	} {
		f.Add(s, false)
		f.Add(s, true)
	}
	k, _ := indexedKeyword(f, "coffee", exampleVault())
	f.Fuzz(func(t *testing.T, text string, names bool) {
		rs, err := k.Search(context.Background(), KeywordQuery{Text: text, NamesOnly: names, Limit: 5})
		if err != nil && !errors.Is(err, notes.ErrEmptyQuery) {
			t.Fatalf("Search(%q): %v", text, err)
		}
		if len(rs) > 5 {
			t.Fatalf("Search(%q): %d results over the limit", text, len(rs))
		}
	})
}

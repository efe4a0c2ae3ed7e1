package fulltext

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/jarvis-mcp/jarvis/internal/search/notes"
	"github.com/jarvis-mcp/jarvis/internal/sharedtest"
)

func TestSymbolWords(t *testing.T) {
	for text, want := range map[string][]string{
		"🚀":             {"🚀"},
		"🚀 launch 🎉🎉 🚀": {"🚀", "🎉🎉"},
		"👩‍💻 at work":   {"👩‍💻"}, // one sequence, joined by U+200D
		"✅ done ©":      {"✅", "©"},
		"*":             nil,
		"-":             nil,
		"\u200d":        nil, // a joiner alone is no symbol
	} {
		if got := SymbolWords(text); !slices.Equal(got, want) {
			t.Errorf("SymbolWords(%q) = %q; want %q", text, got, want)
		}
	}
}

// TestKeywordFindsEmoji searches for emoji, which no full-text table
// indexes: names first, then notes by how often their text holds them.
func TestKeywordFindsEmoji(t *testing.T) {
	dir := t.TempDir()
	for name, text := range map[string]string{
		"Launch 🚀.md":     "# Launch\n\nThe plan for the launch.\n",
		"Budget.md":       "# Budget\n\nCosts.\n\n## Party\n\nA rocket 🚀 cake, another 🚀 and 🎉 balloons.\n",
		"Party.md":        "Cake 🎉\n",
		"Team/Pairing.md": "👩‍💻 pairing on Fridays\n",
		"Plain.md":        "No symbols here at all.\n",
	} {
		sharedtest.WriteFile(t, dir, name, text)
	}
	k, _ := indexedKeyword(t, "v", dir)
	ctx := context.Background()
	for _, c := range []struct {
		query KeywordQuery
		want  []string
	}{
		{KeywordQuery{Text: "🚀"}, []string{"Launch 🚀.md", "Budget.md"}},
		{KeywordQuery{Text: " 🎉 "}, []string{"Budget.md", "Party.md"}},
		{KeywordQuery{Text: "🚀", NamesOnly: true}, []string{"Launch 🚀.md"}},
		{KeywordQuery{Text: "🎉", Filter: notes.Filter{PathPrefix: "Party"}}, []string{"Party.md"}},
		{KeywordQuery{Text: "👩‍💻"}, []string{"Team/Pairing.md"}},
		{KeywordQuery{Text: "🦄"}, nil},
	} {
		rs, err := k.Search(ctx, c.query)
		if err != nil {
			t.Fatal(err)
		}
		if got := paths(rs); !slices.Equal(got, c.want) {
			t.Errorf("%+v found %q; want %q", c.query, got, c.want)
		}
	}
	rs, _ := k.Search(ctx, KeywordQuery{Text: "🚀"})
	if b := rs[1]; !strings.Contains(b.Snippet, "**🚀**") || b.Line != 7 || b.Heading != "Budget > Party" || b.Vault != "v" || b.Title != "Budget" {
		t.Fatalf("Budget.md: %+v; want the 🚀 marked, line 7, under Budget > Party", b)
	}
}

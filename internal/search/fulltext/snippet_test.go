package fulltext

import (
	"slices"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestMarkerMarksWhatFTS5Matched(t *testing.T) {
	for _, tt := range []struct {
		name, query, text, want string
	}{
		{"stemmed both ways", "syncing", "We sync daily; it synced twice.", "We **sync** daily; it **synced** twice."},
		{"case and accents", "cafe", "The Café opened.", "The **Café** opened."},
		{"prefix of the last word", "deploy pipe", "Pipelines deploy.", "**Pipelines** **deploy**."},
		{"no prefix before the last word", "pipe deploy", "Pipelines deploy.", "Pipelines **deploy**."},
		{"quoted phrase whole", `"feature flags"`, "flags: feature flags, feature.", "flags: **feature flags**, feature."},
		{"words joined by punctuation", "e-mail", "Send an email or mail.", "Send an email or **mail**."},
		{"stop words of a question unmarked", "what is the retry logic", "The retry is logical.", "The **retry** is **logical**."},
		{"note's own bold dropped", "sour", "**Sour** and thin", "**Sour** and thin"},
		{"nothing", "kettle", "Grind finer.", "Grind finer."},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got, found := newMarker(parseQuery(tt.query)).marked(tt.text)
			if got != tt.want {
				t.Errorf("marked %q; want %q", got, tt.want)
			}
			if found != strings.Contains(tt.want, "**") {
				t.Errorf("found %v", found)
			}
		})
	}
}

func TestPassageOf(t *testing.T) {
	filler := strings.Repeat("word ", 40)
	chunks := []storedChunk{
		{line: 1, text: "# Title\n\nIntro about kettles."},
		{line: 5, text: "## Brew\n\n" + filler + "\nThe grind size and the kettle matter. " + filler},
	}
	m := newMarker(parseQuery("grind kettle"))
	p := m.passageOf(chunks, nil)
	if !p.found || p.line != 8 {
		t.Fatalf("passage %+v; want the second chunk's line 8", p)
	}
	if !strings.Contains(p.snippet, "**grind** size and the **kettle** matter") || !strings.HasPrefix(p.snippet, "…") ||
		!strings.HasSuffix(p.snippet, "…") {
		t.Fatalf("snippet %q", p.snippet)
	}
	if n := len(textWords(strings.Trim(p.snippet, "…"))); n != snippetTokens {
		t.Errorf("snippet of %d words; want %d", n, snippetTokens)
	}
	// A passage at the start of the text keeps what precedes its first word;
	// its line is that of the match.
	p = newMarker(parseQuery("kettles")).passageOf(chunks, nil)
	if p.line != 3 || !strings.HasPrefix(p.snippet, "Title · Intro about **kettles**.") {
		t.Fatalf("passage %+v", p)
	}
	// Without a match: the start of the text, the first chunk's line.
	p = newMarker(parseQuery("espresso")).passageOf(chunks, nil)
	if p.found || p.line != 1 || !strings.HasPrefix(p.snippet, "Title · Intro") {
		t.Fatalf("passage %+v", p)
	}
}

// TestOccurrences: each unit of a query is counted once at each word it
// matches, as keyword search matches it: a whole word, stemmed, the last
// word of a short query also as a prefix (but not twice for one word),
// Chinese or Japanese as written, and a query of symbols alone by any of
// its symbols, as keyword search looks for them.
func TestOccurrences(t *testing.T) {
	for _, tc := range []struct {
		name, query, text string
		want              []int
	}{
		{"letters inside words are no word", "x", "context Index", []int{0}},
		{"a word", "x", "the x axis, X again", []int{2}},
		{"stemmed", "syncing", "synced and sync", []int{2}},
		{"word and prefix count once", "canvas", "canvas canvases", []int{2}},
		{"prefix of the last word", "canv", "a canvas", []int{1}},
		{"two words", "black tea", "tea, black tea", []int{1, 2}},
		{"cjk as written", "東京", "東京に行く。東京", []int{2}},
		{"a symbol", "🚀", "Rocket 🚀 launch ideas.md", []int{1}},
		{"symbols are one unit, any of them", "🚀 🎉", "🎉 and 🚀, 🚀", []int{3}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := QueryTerms(tc.query).Occurrences(tc.text); !slices.Equal(got, tc.want) {
				t.Errorf("Occurrences(%q) in %q = %v; want %v", tc.query, tc.text, got, tc.want)
			}
		})
	}
}

// TestMarkedExcerptCutsBetweenWords: an excerpt cut short of its text's
// start or end begins and ends at a whole word, whatever characters of
// several bytes (emoji, CJK, combining accents) stand before the match.
// Each text puts the start of the cut, max/5 characters before the match,
// inside a word.
func TestMarkedExcerptCutsBetweenWords(t *testing.T) {
	after := strings.Repeat(" filler words here", 20)
	for _, tc := range []struct {
		name, text string
		max        int
		want       string // the excerpt begins so
	}{
		{"ascii", "Thrusters and propellant budgets. 🚀", 160, "…and propellant budgets. **🚀**"},
		{"emoji before", "🛰️ Thrusters and propellant budgets. 🚀", 160, "…and propellant budgets. **🚀**"},
		{"cjk before", "東京タワー Thrusters and propellant budgets. 🚀", 160, "…and propellant budgets. **🚀**"},
		{"combining accents before", "cafe\u0301 re\u0301sume\u0301 Thrusters and propellant budgets. 🚀", 160, "…and propellant budgets. **🚀**"},
		{"between a letter and its accent", "A re\u0301sume\u0301 and budgets. 🚀", 100, "…and budgets. **🚀**"},
		{"inside an emoji sequence", "See 👩\u200d💻 and budgets. 🚀", 80, "…and budgets. **🚀**"},
		{"inside a cjk run, which has no spaces", "東京タワーの展望台から見える 🚀", 35, "…台から見える **🚀**"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := markedExcerpt(tc.text+after, []string{"🚀"}, tc.max)
			if !strings.HasPrefix(got, tc.want) {
				t.Errorf("excerpt %q; want it to begin %q", got, tc.want)
			}
			if !strings.HasSuffix(got, " here…") && !strings.HasSuffix(got, " words…") && !strings.HasSuffix(got, " filler…") {
				t.Errorf("excerpt %q ends inside a word", got)
			}
		})
	}
}

// TestMarkedExcerptShowsWhatFits: a passage no longer than the excerpt is
// shown whole, its heading too, however late in it the match is; a
// longer one whose match is near its end fills the excerpt back from its
// end rather than opening just before the match.
func TestMarkedExcerptShowsWhatFits(t *testing.T) {
	got := markedExcerpt("# Rocket\n\nThrusters and propellant budgets. 🚀", []string{"🚀"}, snippetRunes)
	if want := "Rocket · Thrusters and propellant budgets. **🚀**"; got != want {
		t.Errorf("excerpt %q; want %q", got, want)
	}
	long := strings.Repeat("filler words here ", 20) + "Thrusters and propellant budgets. 🚀"
	got = markedExcerpt(long, []string{"🚀"}, 60)
	if !strings.HasPrefix(got, "…") || !strings.HasSuffix(got, "Thrusters and propellant budgets. **🚀**") || utf8.RuneCountInString(got) < 55 {
		t.Errorf("excerpt %q; want about 60 characters ending with the match", got)
	}
}

// TestPassageCutInsideAHeading: a passage that begins inside a heading
// sets the heading apart from the text after it (" · "), as one that
// begins before the heading does: the rule is notes.Plain's, wherever the
// cut falls.
func TestPassageCutInsideAHeading(t *testing.T) {
	pre := strings.Repeat("padding words go here ", 10)
	post := strings.Repeat(" more text follows on", 10)
	for _, h := range []string{"", " h h", " h h h h h h h h"} {
		text := pre + "\n\n## Atomic notes principle" + h + "\nEach zettel holds one idea" + post
		got, _, _ := QueryTerms("zettel").Passage(text, 1)
		if want := "principle" + h + " · Each **zettel**"; !strings.Contains(got, want) {
			t.Errorf("snippet %q; want it to hold %q", got, want)
		}
	}
}

// TestPassageOfNeverCutsALink: the window is cut on the text a reader
// sees, so a link is shown whole or not at all, never the tail of its
// target ("Shattered Crown > …" for "Lore/The Shattered Crown > …"), and
// the line is still that of the first match.
func TestPassageOfNeverCutsALink(t *testing.T) {
	text := "# Night\n\nThe tavern was loud and the rain kept falling on the roof so " +
		"nobody wanted to leave the warm fire at all that night, see " +
		"[[Lore/The Shattered Crown#The Second Shard of the Old Crown of Kings]] zephyrine and also " +
		"[[Silas Crowe#^crowe-secret]] quokkalike then more words follow here for padding in the text.\nLast line."
	for _, tc := range []struct{ query, want string }{
		{"zephyrine", "Lore/The Shattered Crown > The Second Shard of the Old Crown of Kings **zephyrine** and also Silas Crowe > ^crowe-secret quokkalike"},
		{"quokkalike", "**quokkalike** then more words"},
	} {
		t.Run(tc.query, func(t *testing.T) {
			p := newMarker(parseQuery(tc.query)).passageOf([]storedChunk{{line: 10, text: text}}, nil)
			if !p.found || p.line != 12 {
				t.Errorf("passage %+v; want found on line 12", p)
			}
			if !strings.Contains(p.snippet, tc.want) {
				t.Errorf("snippet %q; want it to hold %q", p.snippet, tc.want)
			}
			for _, part := range []string{"[[", "]]", "#"} {
				if strings.Contains(p.snippet, part) {
					t.Errorf("snippet %q holds %q", p.snippet, part)
				}
			}
			// Nor does it begin or end inside one.
			for _, link := range []string{"Lore/The Shattered Crown > The Second Shard of the Old Crown of Kings", "Silas Crowe > ^crowe-secret"} {
				words := strings.Fields(link)
				for i, w := range words {
					if i > 0 && strings.HasPrefix(p.snippet, "…"+w) {
						t.Errorf("snippet %q begins inside %q", p.snippet, link)
					}
					if i < len(words)-1 && strings.HasSuffix(p.snippet, w+"…") {
						t.Errorf("snippet %q ends inside %q", p.snippet, link)
					}
				}
			}
			// A link the window reaches is shown whole.
			for _, link := range []string{"Shattered Crown > The Second Shard", "Crowe > ^crowe-secret"} {
				if strings.Contains(p.snippet, strings.Fields(link)[0]) && !strings.Contains(p.snippet, link) {
					t.Errorf("snippet %q shows part of %q", p.snippet, link)
				}
			}
			if strings.Contains(p.snippet, "The Shattered Crown") != strings.Contains(p.snippet, "Lore/The Shattered Crown") {
				t.Errorf("snippet %q drops the start of a link", p.snippet)
			}
		})
	}
}

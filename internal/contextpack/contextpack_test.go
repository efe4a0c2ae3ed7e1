package contextpack

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/jarvis-mcp/jarvis/internal/graph"
	"github.com/jarvis-mcp/jarvis/internal/search"
	"github.com/jarvis-mcp/jarvis/internal/search/notes"
	"github.com/jarvis-mcp/jarvis/internal/vault"
)

func TestTokens(t *testing.T) {
	for text, want := range map[string]int{"": 0, "a": 1, "abcd": 1, "abcde": 2, "日本語の": 1, "日本語のx": 2} {
		if got := Tokens(text); got != want {
			t.Errorf("Tokens(%q) = %d; want %d", text, got, want)
		}
	}
}

func TestNearDuplicate(t *testing.T) {
	base := "Sour and thin: grind finer, or pour more slowly. Bitter and dry: grind coarser, or drop the water temperature."
	for _, tc := range []struct {
		name string
		text string
		want bool
	}{
		{"the same text", base, true},
		{"case and punctuation", strings.ToUpper(strings.ReplaceAll(base, ",", "")), true},
		{"held whole in a longer text", "From the pour over note. " + base + " More words follow here about other things entirely.", true},
		{"one word changed in a short text", strings.Replace(base, "slowly", "gently", 1), false},
		{"another text", "Descale the kettle monthly with citric acid; hard water leaves scale fast.", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := shinglesOf(base).nearDuplicate(shinglesOf(tc.text)); got != tc.want {
				t.Fatalf("nearDuplicate = %v; want %v", got, tc.want)
			}
		})
	}
}

// note is a note of n sections of words words each, scored from best to
// worst in order.
func note(path string, n, words int) search.NotePassages {
	np := search.NotePassages{Vault: "v", Path: path, Title: path}
	line := 1
	for i := range n {
		np.Headings = append(np.Headings, vault.Heading{Level: 1, Text: fmt.Sprintf("S%d", i), Line: line})
		text := fmt.Sprintf("# S%d\n%s", i, strings.TrimSpace(strings.Repeat(fmt.Sprintf("w%s%d ", path, i), words)))
		np.Passages = append(np.Passages, search.Passage{Heading: fmt.Sprintf("S%d", i), StartLine: line, EndLine: line + 1, Text: text,
			Score: 1 - float64(i)/10})
		line += 3
	}
	return np
}

func TestChooseKeepsToTheBudget(t *testing.T) {
	notes := []search.NotePassages{note("A.md", 5, 40), note("B.md", 5, 30)}
	for budget := MinBudget; budget <= 800; budget += 37 {
		pack := choose(notes, budget)
		used := 0
		for _, p := range pack.Passages {
			// 4 characters a token, rounded up, over the citation line, a
			// line break and the text, counted here by hand.
			if chars := len([]rune(p.Citation)) + 1 + len([]rune(p.Text)); p.Tokens != (chars+3)/4 {
				t.Fatalf("budget %d: %s costs %d", budget, p.Citation, p.Tokens)
			}
			used += p.Tokens
		}
		if used != pack.Used || used > budget {
			t.Fatalf("budget %d: passages cost %d, Used %d", budget, used, pack.Used)
		}
		if len(pack.Passages)+len(pack.LeftOut)+pack.MoreLeftOut != 10 {
			t.Fatalf("budget %d: %d taken and %d+%d left out of 10", budget, len(pack.Passages), len(pack.LeftOut), pack.MoreLeftOut)
		}
	}
}

func TestChooseOrderAndReasons(t *testing.T) {
	a, b := note("A.md", 3, 20), note("B.md", 2, 20)
	b.Passages[0].Score = 0.95 // B's best passage is second overall
	a.Passages[2].Weak = true
	b.Passages[1].Text = a.Passages[0].Text // a copy of A's best
	pack := choose([]search.NotePassages{a, b}, MaxBudget)
	var got []string
	for _, p := range pack.Passages {
		got = append(got, p.Path+"#"+p.Heading)
	}
	if want := "A.md#S0 A.md#S1 B.md#S0"; strings.Join(got, " ") != want {
		t.Fatalf("passages %v; want %s", got, want)
	}
	reasons := map[string]string{}
	for _, l := range pack.LeftOut {
		reasons[l.Path+"#"+l.Heading] = l.Reason
	}
	if reasons["A.md#S2"] != WeakMatch || reasons["B.md#S1"] != Duplicate || len(reasons) != 2 {
		t.Fatalf("left out %v", reasons)
	}
	// A note asked for is never a weak match.
	a.Asked = true
	if pack := choose([]search.NotePassages{a}, MaxBudget); len(pack.Passages) != 3 {
		t.Fatalf("a weak passage of a note asked for was left out: %+v", pack.LeftOut)
	}
}

func TestChooseTakesParagraphsOfALargeSection(t *testing.T) {
	np := note("A.md", 1, 10)
	big := strings.Repeat("filler words that say nothing much. ", 60)
	np.Passages[0].Text = "# S0\n" + big + "\n\nThe answer is here.\n\n" + big
	np.Passages[0].EndLine = 6
	np.Passages[0].Keyword = 0.5
	np.Passages[0].Parts = []search.PassagePart{
		{StartLine: 1, EndLine: 2, Text: "# S0\n" + big},
		{StartLine: 4, EndLine: 4, Text: "The answer is here.", Keyword: 1},
		{StartLine: 6, EndLine: 6, Text: big},
	}
	pack := choose([]search.NotePassages{np}, MinBudget)
	if len(pack.Passages) != 1 || pack.Passages[0].Text != "The answer is here." || !pack.Passages[0].Part || pack.Passages[0].StartLine != 4 {
		t.Fatalf("passages %+v", pack.Passages)
	}
	// Only the lines not given are left out: no line is said to be both.
	var got []string
	for _, l := range pack.LeftOut {
		got = append(got, fmt.Sprintf("%d-%d %s %v", l.StartLine, l.EndLine, l.Reason, l.Part))
	}
	if want := "1-2 over budget true, 6-6 over budget true"; strings.Join(got, ", ") != want {
		t.Fatalf("left out %s; want %s", strings.Join(got, ", "), want)
	}
	// What a run left out costs is its own lines with their citation.
	if l := pack.LeftOut[0]; l.Tokens != Cost(Citation("v", "A.md", "S0", 1, 2), "# S0\n"+big) {
		t.Fatalf("lines 1-2 left out cost %d", l.Tokens)
	}
}

// TestChooseLeavesOutTheRestOfASectionByReason: of a section given in
// part, neighbouring paragraphs left out for one reason are named
// together, and a paragraph repeating one given is a duplicate.
func TestChooseLeavesOutTheRestOfASectionByReason(t *testing.T) {
	np := note("A.md", 1, 10)
	big := strings.Repeat("filler words that say nothing much. ", 60)
	kept := "The key is kept in the drawer."
	np.Passages[0].Text = "# S0\n" + kept + "\n\n" + big + "\n\n" + big + "\n\n" + kept + "\n\nAnother line about a key."
	np.Passages[0].EndLine = 10
	np.Passages[0].Keyword = 0.5
	np.Passages[0].Parts = []search.PassagePart{
		{StartLine: 1, EndLine: 2, Text: "# S0\n" + kept, Keyword: 1},
		{StartLine: 4, EndLine: 4, Text: big},
		{StartLine: 6, EndLine: 6, Text: big},
		{StartLine: 8, EndLine: 8, Text: kept, Keyword: 0.5},
		{StartLine: 10, EndLine: 10, Text: "Another line about a key.", Keyword: 0.5},
	}
	pack := choose([]search.NotePassages{np}, MinBudget)
	var taken, left []string
	for _, p := range pack.Passages {
		taken = append(taken, fmt.Sprintf("%d-%d", p.StartLine, p.EndLine))
	}
	for _, l := range pack.LeftOut {
		left = append(left, fmt.Sprintf("%d-%d %s", l.StartLine, l.EndLine, l.Reason))
	}
	if want := "1-2, 10-10"; strings.Join(taken, ", ") != want {
		t.Fatalf("taken %s; want %s", strings.Join(taken, ", "), want)
	}
	if want := "4-6 over budget, 8-8 duplicate"; strings.Join(left, ", ") != want {
		t.Fatalf("left out %s; want %s", strings.Join(left, ", "), want)
	}
}

func TestChooseListsAtMostMaxLeftOut(t *testing.T) {
	pack := choose([]search.NotePassages{note("A.md", 30, 200)}, MinBudget)
	if len(pack.LeftOut) != MaxLeftOut || pack.MoreLeftOut != 30-MaxLeftOut-len(pack.Passages) {
		t.Fatalf("%d listed, %d more, %d taken", len(pack.LeftOut), pack.MoreLeftOut, len(pack.Passages))
	}
}

func TestBuildRefuses(t *testing.T) {
	passages := func(context.Context, search.PassageQuery) (search.PassageAnswer, error) {
		return search.PassageAnswer{}, nil
	}
	find := func(_ context.Context, _, ref string) (graph.Match, error) {
		return graph.Match{}, &graph.NotFoundError{Ref: ref}
	}
	b := New(passages, find, nil)
	for _, tc := range []struct {
		r    Request
		want error
	}{
		{Request{Query: "x", Budget: 100}, ErrBadBudget},
		{Request{Query: "x", Budget: MaxBudget + 1}, ErrBadBudget},
		{Request{Query: " "}, notes.ErrEmptyQuery},
		{Request{Query: "x", Paths: []string{"Nope.md"}}, graph.ErrNoteNotFound},
	} {
		if _, err := b.Build(context.Background(), tc.r); !errors.Is(err, tc.want) {
			t.Errorf("%+v: %v; want %v", tc.r, err, tc.want)
		}
	}
	if _, err := b.Build(context.Background(), Request{Query: "x", Paths: make([]string, MaxPaths+1)}); !errors.Is(err, ErrTooManyPaths) {
		t.Errorf("too many paths: %v", err)
	}
}

// TestCitationOfOneLine: a passage of one line is cited as that line, not
// as a range from it to itself.
func TestCitationOfOneLine(t *testing.T) {
	if got := Citation("v", "a.md", "Chapter", 13, 13); got != "[v] a.md § Chapter, line 13" {
		t.Errorf("one line: %q", got)
	}
	if got := Citation("v", "a.md", "", 13, 15); got != "[v] a.md, lines 13-15" {
		t.Errorf("three lines: %q", got)
	}
}

func TestSectionLabel(t *testing.T) {
	long := strings.Repeat("word ", vault.MaxHeadingPath)
	hs := []vault.Heading{{Level: 1, Text: "Ingest lag", Line: 5}, {Level: 2, Text: "Timeline", Line: 7}, {Level: 2, Text: long, Line: 11}}
	for _, tc := range []struct {
		name       string
		heading    string
		start, end int
		want       string
	}{
		{"one section", "Ingest lag > Timeline", 7, 9, "Ingest lag > Timeline"},
		{"into the next", "Ingest lag", 5, 9, "Ingest lag, then Timeline"},
		{"too long a label", "Ingest lag", 7, 12, "Ingest lag"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := SectionLabel(hs, tc.heading, tc.start, tc.end); got != tc.want {
				t.Errorf("SectionLabel(%d, %d) = %q; want %q", tc.start, tc.end, got, tc.want)
			}
		})
	}
}

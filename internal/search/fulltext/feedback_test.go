package fulltext

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// TestFeedbackFindsNotesInTheAnswersWords: a long question whose best
// notes share a word it lacks ("levain") finds, through feedback, a note
// that holds only that word, with the word marked in its snippet; without
// feedback it finds nothing of the kind. The bicycle notes keep "levain"
// in fewer than half the notes, where FTS5's idf still gives it weight.
func TestFeedbackFindsNotesInTheAnswersWords(t *testing.T) {
	root := t.TempDir()
	for name, text := range map[string]string{
		"Sourdough.md": "# Sourdough\n\nSourdough bread needs a starter, flour, water and salt. The starter is a levain; feeding the levain daily keeps it lively.\n",
		"Starter.md":   "# Starter\n\nFeeding a sourdough starter: the levain gets flour and water twice a day, and a levain kept warm rises faster.\n",
		"Levain.md":    "# Levain\n\nLevain hydration and levain temperature decide how fast the dough rises.\n",
		"Bicycle.md":   "# Bicycle\n\nA chain wants oil every few hundred kilometres.\n",
		"Tyres.md":     "# Tyres\n\nPressure drops a little every week.\n",
		"Brakes.md":    "# Brakes\n\nPads wear faster in the rain.\n",
		"Lights.md":    "# Lights\n\nCharge them before dark evenings.\n",
		"Saddle.md":    "# Saddle\n\nA saddle too high hurts the knees.\n",
	} {
		if err := os.WriteFile(filepath.Join(root, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	k, _ := indexedKeyword(t, "v", root)
	ctx := context.Background()
	const q = "sourdough starter feeding schedule for bread baking"
	k.Feedback = Feedback{}
	plain, err := k.Search(ctx, KeywordQuery{Text: q})
	if err != nil {
		t.Fatal(err)
	}
	if slices.Contains(paths(plain), "Levain.md") {
		t.Fatalf("without feedback: %v; Levain.md shares no word with the query", paths(plain))
	}
	k.Feedback = DefaultFeedback
	rs, err := k.Search(ctx, KeywordQuery{Text: q})
	if err != nil {
		t.Fatal(err)
	}
	got := paths(rs)
	if len(got) < 3 || !slices.Contains(got[:2], "Sourdough.md") || !slices.Contains(got[:2], "Starter.md") || got[2] != "Levain.md" {
		t.Fatalf("with feedback: %v; want the two notes on the query first, then Levain.md", got)
	}
	if slices.Contains(got, "Bicycle.md") {
		t.Fatalf("with feedback: %v; Bicycle.md has nothing to do with it", got)
	}
	if s := rs[2].Snippet; !strings.Contains(strings.ToLower(s), "**levain**") {
		t.Fatalf("Levain.md snippet %q; want the expansion word marked", s)
	}
}

// TestFeedbackLeavesShortQueriesAlone: a query of at most four terms, whose
// every word must match, ranks the same with feedback on or off.
func TestFeedbackLeavesShortQueriesAlone(t *testing.T) {
	k, _ := indexedKeyword(t, "coffee", exampleVault())
	ctx := context.Background()
	for _, q := range []string{"grind", "pour over grind", "cold brew milk ratio", "which beans for the pour over"} {
		k.Feedback = Feedback{}
		plain, err := k.Search(ctx, KeywordQuery{Text: q})
		if err != nil {
			t.Fatal(err)
		}
		k.Feedback = DefaultFeedback
		fb, err := k.Search(ctx, KeywordQuery{Text: q})
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(plain, fb) {
			t.Errorf("%q: %v without feedback, %v with it", q, paths(plain), paths(fb))
		}
	}
}

func TestCountWords(t *testing.T) {
	counts, n := countWords("The levain, the LEVAIN and 42 levains; é café 喫茶店 x")
	want := map[string]int{"levain": 2, "levains": 1, "café": 1}
	if !reflect.DeepEqual(counts, want) || n != 4 {
		t.Fatalf("countWords = %v, %d; want %v, 4 (no stop words, numbers, single letters or CJK)", counts, n, want)
	}
}

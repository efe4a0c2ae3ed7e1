package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/jarvis-mcp/jarvis/internal/related"
	"github.com/jarvis-mcp/jarvis/internal/sharedtest"
)

// TestRelatedCommand runs jarvis related on the example vault, with and
// without --json, and checks its usage errors.
func TestRelatedCommand(t *testing.T) {
	example, _ := filepath.Abs("../../examples/vault")
	db := filepath.Join(t.TempDir(), "j.db")
	code, stdout, stderr := jarvis(t, nil, "related", "--vault", example, "--db", db, "--json", "--limit", "5", "Pour over")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var a related.Answer
	if err := json.Unmarshal([]byte(stdout), &a); err != nil {
		t.Fatalf("stdout is not the related JSON: %v\n%s", err, stdout)
	}
	if a.Path != "Methods/Pour over.md" || len(a.Related) != 5 || len(a.Missing) != 0 || !strings.HasPrefix(a.Embedder, "lexical/") {
		t.Fatalf("answer %+v", a)
	}
	kinds := map[string]bool{}
	for _, n := range a.Related {
		for _, r := range n.Reasons {
			kinds[r.Kind] = true
		}
	}
	for _, k := range []string{related.KindLink, related.KindMeaning, related.KindSharedLinks, related.KindCoCited} {
		if !kinds[k] {
			t.Errorf("no reason of kind %s in %+v", k, a.Related)
		}
	}
	if !slices.ContainsFunc(a.Mentions, func(m related.Mention) bool { return m.Path == "Beans/Colombia Huila.md" && m.Line == 12 }) {
		t.Errorf("mentions %+v", a.Mentions)
	}

	code, stdout, stderr = jarvis(t, nil, "related", "--vault", example, "--db", db, "--no-refresh", "V60")
	if code != 0 || !strings.Contains(stdout, "Related to Pour over") || !strings.Contains(stdout, "Unlinked mentions (") ||
		!strings.Contains(stdout, "Links to consider:") {
		t.Fatalf("exit %d (%s):\n%s", code, stderr, stdout)
	}

	for _, tc := range []struct {
		name string
		args []string
		code int
		want string
	}{
		{"no note", []string{"related", "--vault", example, "--db", db}, 2, "give the note"},
		{"bad limit", []string{"related", "--vault", example, "--db", db, "--limit", "51", "Water"}, 2, "--limit 51"},
		{"unknown note", []string{"related", "--vault", example, "--db", db, "--no-refresh", "Espresso machine"}, 1, "no note matches"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, _, stderr := jarvis(t, nil, tc.args...)
			if code != tc.code || !strings.Contains(stderr, tc.want) {
				t.Fatalf("exit %d; want %d with %q: %s", code, tc.code, tc.want, stderr)
			}
		})
	}
}

// TestPrintRelatedCountsTheRest: the last mention listed from a note
// says how many more lines of that note mention it.
func TestPrintRelatedCountsTheRest(t *testing.T) {
	var b strings.Builder
	printRelated(&b, related.Answer{Vault: "v", Path: "Green tea.md", Title: "Green tea", MentionsFound: 6, Mentions: []related.Mention{
		{Path: "Log.md", Line: 5, Name: "Green tea", Sentence: "Green tea on line 5.", MoreInNote: 1},
		{Path: "Shop.md", Line: 1, Name: "Green tea", Sentence: "Bought green tea.", MoreInNote: 2},
	}}, nil)
	for _, want := range []string{
		"  Log.md:5  \"Green tea\": Green tea on line 5.\n  … and 1 more line in Log.md\n",
		"  … and 2 more lines in Shop.md\n",
	} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("the output lacks %q:\n%s", want, b.String())
		}
	}
}

// TestPrintRelatedShowsTitles: a note named by a timestamp id shows its
// frontmatter title beside its path, and its proposed link leads to the
// file; a note whose title is its file name shows the path alone.
func TestPrintRelatedShowsTitles(t *testing.T) {
	var b strings.Builder
	printRelated(&b, related.Answer{Vault: "v", Path: "202401011200.md", Title: "Atomic notes",
		Related: []related.Note{
			{Path: "Zettel/202403091008.md", Title: "Evergreen Notes", Score: 0.5},
			{Path: "Cooking.md", Title: "Cooking", Score: 0.4, Reasons: []related.Reason{{Kind: related.KindMeaning, Detail: "similar passage"}}},
		},
		Embedder:    "lexical/hashed-ngrams-v1",
		Suggestions: []related.Suggestion{{Path: "Zettel/202403091008.md", Title: "Evergreen Notes", Link: related.Wikilink("Zettel/202403091008.md", "Evergreen Notes", []string{"Zettel/202403091008.md"}), Similarity: 0.5}},
	}, nil)
	for _, want := range []string{
		" 1. Zettel/202403091008.md — Evergreen Notes  (",
		" 2. Cooking.md  (",
		"  [[202403091008|Evergreen Notes]]  (Zettel/202403091008.md, similarity",
		"    similar      similar passage", // not "meaning" beside "not meaning"
	} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("the output lacks %q:\n%s", want, b.String())
		}
	}
}

// TestRelatedNotFoundSaysWhatToPassOnce: a note not found is said with the
// closest paths and what to pass, once.
func TestRelatedNotFoundSaysWhatToPassOnce(t *testing.T) {
	example, _ := filepath.Abs("../../examples/vault")
	code, _, stderr := jarvis(t, nil, "related", "--vault", example, "--db", filepath.Join(t.TempDir(), "j.db"), "Kettl")
	if code == 0 || !strings.Contains(stderr, "no note matches \"Kettl\"") || strings.Count(stderr, "pass") != 1 || strings.Contains(stderr, "give its") {
		t.Errorf("exit %d: %s", code, stderr)
	}
}

// TestRelatedNamesTheOtherMatches: a name two notes share answers for the
// one a link would lead to and names the other, in the words read-note
// and related-notes use.
func TestRelatedNamesTheOtherMatches(t *testing.T) {
	dir := t.TempDir()
	sharedtest.WriteFile(t, dir, "Essays/Ideas.md", "# Ideas\n\nIdeas about walking and writing.\n")
	sharedtest.WriteFile(t, dir, "Fiction/Ideas.md", "# Ideas\n\nA story about a lighthouse.\n")
	sharedtest.WriteFile(t, dir, "Essays/On Walking.md", "# On Walking\n\nSee [[Essays/Ideas]].\n")
	db := filepath.Join(t.TempDir(), "j.db")
	code, stdout, stderr := jarvis(t, nil, "related", "--vault", dir, "--db", db, "Ideas")
	want := related.AlsoMatching([]string{"Fiction/Ideas.md"})
	if code != 0 || !strings.Contains(stdout, "Related to Ideas (") || !strings.Contains(stdout, "\n"+want+"\n") {
		t.Fatalf("exit %d (%s); want %q in:\n%s", code, stderr, want, stdout)
	}
}

// TestRelatedNoteWithALeadingSpace: the path offered for a note whose name
// begins with a space, passed back, finds it.
func TestRelatedNoteWithALeadingSpace(t *testing.T) {
	dir := t.TempDir()
	sharedtest.WriteFile(t, dir, " Leading space.md", "# Leading\n[[Other]]\n")
	sharedtest.WriteFile(t, dir, "Other.md", "# Other\n")
	db := filepath.Join(t.TempDir(), "j.db")
	code, _, stderr := jarvis(t, nil, "related", "--vault", dir, "--db", db, "Leading spac")
	if code != 1 || !strings.Contains(stderr, `closest: " Leading space.md"`) {
		t.Fatalf("related of a near miss: exit %d: %s", code, stderr)
	}
	if code, stdout, stderr := jarvis(t, nil, "related", "--vault", dir, "--db", db, "--no-refresh", " Leading space.md"); code != 0 || !strings.Contains(stdout, "Related to") {
		t.Errorf("related of the path offered: exit %d: %s%s", code, stdout, stderr)
	}
}

// TestPassageLabelsNameEverySection indexes a note whose tiny first section
// joins the next, deeper one in a single passage, and checks that related
// and search label that passage by the heading it starts under, then the
// one it runs into, with the line it starts at: not by the later heading
// alone, which the first sentence is not under.
func TestPassageLabelsNameEverySection(t *testing.T) {
	dir := t.TempDir()
	notes := map[string]string{
		"Silas Crowe.md": "# Silas Crowe\n\nMaster of the thieves' guild.\n\n## Secrets\n\nHe holds the second shard of the Crown.\n",
		"Ël'dris.md":     "# Ël'dris\n\nThe elven city. Its guild of thieves is led by a man who holds the second shard of the Crown.\n",
	}
	for name, text := range notes {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	db := filepath.Join(t.TempDir(), "j.db")
	code, stdout, stderr := jarvis(t, nil, "related", "--vault", dir, "--db", db, "Ël'dris")
	if code != 0 || !strings.Contains(stdout, "second shard of the Crown.\" (Silas Crowe, then Secrets)") {
		t.Errorf("related: exit %d (%s):\n%s", code, stderr, stdout)
	}
	code, stdout, stderr = jarvis(t, nil, "search", "--vault", dir, "--db", db, "--no-refresh", "--mode", "semantic", "second shard")
	if code != 0 || !strings.Contains(stdout, "Silas Crowe, then Secrets · line 1\n") {
		t.Errorf("search: exit %d (%s):\n%s", code, stderr, stdout)
	}
}

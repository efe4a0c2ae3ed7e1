package related

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jarvis-mcp/jarvis/internal/config"
	"github.com/jarvis-mcp/jarvis/internal/graph"
	"github.com/jarvis-mcp/jarvis/internal/search"
	"github.com/jarvis-mcp/jarvis/internal/search/fulltext"
	"github.com/jarvis-mcp/jarvis/internal/search/searchtest"
	"github.com/jarvis-mcp/jarvis/internal/search/vectors"
	"github.com/jarvis-mcp/jarvis/internal/sharedtest"
	"github.com/jarvis-mcp/jarvis/internal/vault"
)

// indexedService indexes the vault at dir as name, with the lexical
// embedder's vectors, and returns the service as the container builds it.
func indexedService(t *testing.T, name, dir string) *Service {
	t.Helper()
	ctx := context.Background()
	db := searchtest.IndexedDB(t, name, dir)
	vec := vectors.NewVectors(db, vectors.LexicalSource(), nil)
	vec.Serve()
	if _, err := vec.Sync(ctx, vectors.SyncOptions{}); err != nil {
		t.Fatal(err)
	}
	sem := search.NewSemantic(vec, db)
	return New([]config.Vault{{Name: name, Path: dir}}, graph.New(db), NewSimilarity(vec, db, sem), sem, fulltext.NewKeyword(db), vault.NewParser())
}

// TestSuggestionSentencesAreSpecific: notes written from one template
// share its sentences word for word. Such a sentence shares every word
// with each of them and says nothing about any one, so it is proposed
// for none; a sentence sharing a word only the two notes use is.
func TestSuggestionSentencesAreSpecific(t *testing.T) {
	dir := t.TempDir()
	write := func(rel, text string) {
		if err := os.WriteFile(filepath.Join(dir, rel), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	tools := []string{"Quillon", "Marrowby", "Tessaline", "Hobbinet"}
	for i, tool := range tools {
		own := fmt.Sprintf("The %s export is a folder of pages.", tool)
		if i == 0 {
			own = "The Quillon export keeps every zarvelite sketch in one folder."
		}
		if i == 1 {
			own += " Each page may hold a zarvelite sketch as well."
		}
		write("Import from "+tool+".md", "# Import from "+tool+"\n\n"+
			"You will need the official importer plugin, which you can install from the plugin browser.\n"+
			"Open the importer with the command palette and choose the export to read.\n"+
			own+"\n")
	}
	for i := range 6 {
		write(fmt.Sprintf("Journal %d.md", i), fmt.Sprintf("# Journal %d\n\nA day of walking by the river, then reading in the evening.\n", i))
	}
	s := indexedService(t, "v", dir)
	a, err := s.Find(context.Background(), Query{Vault: "v", Path: "Import from Quillon.md"})
	if err != nil {
		t.Fatal(err)
	}
	if len(a.Suggestions) < len(tools)-1 || len(a.Missing) > 0 {
		t.Fatalf("suggestions %+v, missing %q", a.Suggestions, a.Missing)
	}
	for _, sg := range a.Suggestions {
		switch {
		case sg.Path == "Import from Marrowby.md":
			if !strings.Contains(sg.Sentence, "zarvelite") || sg.Because != "shares words with it that no other note holds all of" {
				t.Errorf("the sentence sharing a word no third note has is not proposed for %s: %+v", sg.Path, sg)
			}
		case sg.Sentence != "":
			t.Errorf("a sentence every import note shares is proposed for %s: %+v", sg.Path, sg)
		}
	}
}

// TestSuggestionNamesAreOthers: a note that carries the name of the note
// asked about (a translation keeping the original title as an alias) is
// not mentioned where that name is written: the name is the note's own.
func TestSuggestionNamesAreOthers(t *testing.T) {
	notes := map[string]string{
		"Functions.md":  "# Functions\n\nFunctions turn the values of properties into new values.\n",
		"Funktionen.md": "---\naliases: [Functions]\n---\n# Funktionen\n\nFunktionen berechnen Werte.\n",
	}
	kin := graph.Kinship{Ref: graph.Ref{Vault: "v", Path: "Functions.md", Title: "Functions"}, ID: 1}
	s := fakeService(t, notes, kin)
	s.Names = func(context.Context, string) ([]graph.NoteNames, error) {
		return []graph.NoteNames{{Path: "Functions.md", Title: "Functions"}, {Path: "Funktionen.md", Title: "Funktionen", Aliases: []string{"Functions"}}}, nil
	}
	s.Similar = func(context.Context, string, int64, int) ([]SimilarNote, error) {
		return []SimilarNote{{Path: "Funktionen.md", Title: "Funktionen", Similarity: 0.6,
			Passage: ChunkPassage{Line: 4, End: 6, Text: "Funktionen berechnen Werte."}, From: ChunkPassage{Line: 1, End: 3}}}, nil
	}
	a, err := s.Find(context.Background(), Query{Vault: "v", Path: "Functions.md"})
	if err != nil {
		t.Fatal(err)
	}
	if len(a.Suggestions) != 1 || a.Suggestions[0].Because == "mentions it" {
		t.Fatalf("the note's own name is taken for a mention of another: %+v", a.Suggestions)
	}
	if len(a.Mentioning) != 0 {
		t.Fatalf("the note's own name is taken for another note's: %+v", a.Mentioning)
	}
}

// TestSuggestionSentencesOnTheHelpVault asks for the related notes of
// every note of the Obsidian Help vault, in English and in Japanese: a
// sentence proposed for a link because of the words it shares is never
// one written in a third note as well, as the template lines of its
// import guides and plugin pages are, nor one proposed for another link
// of the same answer.
func TestSuggestionSentencesOnTheHelpVault(t *testing.T) {
	for _, lang := range []string{"en", "ja"} {
		t.Run(lang, func(t *testing.T) { suggestionSentencesIn(t, lang) })
	}
}

func suggestionSentencesIn(t *testing.T, lang string) {
	dir := sharedtest.Path(t, "vaults/obsidian-help/"+lang)
	s := indexedService(t, "help", dir)
	texts := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || filepath.Ext(p) != ".md" {
			return err
		}
		b, err := os.ReadFile(p)
		rel, _ := filepath.Rel(dir, p)
		texts[filepath.ToSlash(rel)] = string(b)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	proposed := 0
	for p := range texts {
		a, err := s.Find(context.Background(), Query{Vault: "help", Path: p})
		if err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		proposedFor := map[string]string{}
		for _, sg := range a.Suggestions {
			if sg.Sentence == "" || sg.Because == "mentions it" {
				continue
			}
			if other, twice := proposedFor[sg.Sentence]; twice {
				t.Errorf("%s: %q is proposed for links to both %s and %s", p, sg.Sentence, other, sg.Path)
			}
			proposedFor[sg.Sentence] = sg.Path
			proposed++
			for q, text := range texts {
				if q != p && q != sg.Path && strings.Contains(text, sg.Sentence) {
					t.Errorf("%s: %q is proposed for a link to %s, and %s has it too", p, sg.Sentence, sg.Path, q)
				}
			}
		}
	}
	if proposed == 0 {
		t.Fatal("no sentence is proposed for any link")
	}
}

// TestSentencesEndAtEveryScriptsFullStop: Chinese and Japanese sentences
// end at 。！？ with no space after; Arabic and Hindi at their own marks;
// decimals and abbreviations do not end one.
func TestSentencesEndAtEveryScriptsFullStop(t *testing.T) {
	for _, tc := range []struct {
		text string
		want []string
	}{
		{"ノートを作成します。リンクを追加します！本当？はい", []string{"ノートを作成します。", "リンクを追加します！", "本当？", "はい"}},
		{"打开设置。选择插件。", []string{"打开设置。", "选择插件。"}},
		{"Use 0.1 g, e.g., less. Then stop! Why? Done", []string{"Use 0.1 g, e.g., less.", "Then stop!", "Why?", "Done"}},
		{"هل هذا صحيح؟ نعم", []string{"هل هذا صحيح؟", "نعم"}},
		{"यह नोट है। दूसरा", []string{"यह नोट है।", "दूसरा"}},
	} {
		var got []string
		for _, m := range sentences(vault.Prose{Text: tc.text, Free: []vault.FreeText{{Start: 0, End: len(tc.text), Line: 1}}}) {
			got = append(got, m.Sentence)
		}
		if strings.Join(got, "|") != strings.Join(tc.want, "|") {
			t.Errorf("sentences of %q:\n got %q\nwant %q", tc.text, got, tc.want)
		}
	}
}

// TestSuggestionsDoNotShrinkWithTheLimit: a short list of related notes
// proposes the links a full one does (trial 23: `jarvis related --limit 3`
// showed no "Links to consider" where the default listed five).
func TestSuggestionsDoNotShrinkWithTheLimit(t *testing.T) {
	s := indexedService(t, "coffee", filepath.Join("..", "..", "examples", "vault"))
	paths := func(limit int) []string {
		a, err := s.Find(context.Background(), Query{Vault: "coffee", Path: "Methods/Pour over.md", Limit: limit})
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, sg := range a.Suggestions {
			out = append(out, sg.Path)
		}
		return out
	}
	full, short := paths(DefaultLimit), paths(3)
	if len(full) == 0 || strings.Join(full, "|") != strings.Join(short, "|") {
		t.Errorf("suggestions with the default limit %q, with limit 3 %q; want the same, and some", full, short)
	}
}

package search

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/jarvis-mcp/jarvis/internal/config"
	"github.com/jarvis-mcp/jarvis/internal/search/fulltext"
	"github.com/jarvis-mcp/jarvis/internal/search/notes"
	"github.com/jarvis-mcp/jarvis/internal/search/vectors"
	"github.com/jarvis-mcp/jarvis/internal/sharedtest"
)

// TestNothingFoundIsNothing: a query about nothing in the vault (invented
// words, an emoji no note holds, a subject the vault lacks) finds no note
// in any mode, rather than the least unlike ones. A query about something
// in the vault still finds it in every mode.
func TestNothingFoundIsNothing(t *testing.T) {
	ctx := context.Background()
	k, db := indexedKeyword(t, "coffee", exampleVault())
	v := servingVectors(db, vectors.LexicalSource(), quietLog())
	if _, err := v.Sync(ctx, vectors.SyncOptions{}); err != nil {
		t.Fatal(err)
	}
	sem := NewSemantic(v, db)
	c := NewCombined(
		func(ctx context.Context, text string, f notes.Filter, limit int) ([]notes.Result, error) {
			return k.Search(ctx, fulltext.KeywordQuery{Text: text, Filter: f, Limit: limit})
		},
		func(ctx context.Context, text string, f notes.Filter, limit int) ([]notes.Result, error) {
			return sem.Search(ctx, SemanticQuery{Text: text, Filter: f, Limit: limit})
		})
	modes := map[string]func(q string) ([]notes.Result, error){
		"keyword": func(q string) ([]notes.Result, error) { return k.Search(ctx, fulltext.KeywordQuery{Text: q}) },
		"semantic": func(q string) ([]notes.Result, error) {
			return sem.Search(ctx, SemanticQuery{Text: q})
		},
		"combined": func(q string) ([]notes.Result, error) {
			rs, semErr, err := c.Search(ctx, CombinedQuery{Text: q})
			if err == nil && semErr != nil {
				t.Errorf("combined search without semantic search: %v", semErr)
			}
			return rs, err
		},
	}
	for _, tc := range []struct {
		name, query string
		want        string // a note the query must find; "" for none at all
	}{
		{"invented words", "florbizzle quantamax", ""},
		{"more invented words", "zorglub wibbleflap snarfblatt", ""},
		{"an emoji in no note", "🦄", ""},
		{"a subject the vault lacks", "kubernetes pod autoscaling", ""},
		{"a subject the vault lacks, asked in full", "how do I configure kubernetes pod autoscaling for my cluster", ""},
		{"a subject the vault has", "pour over grind size", "Methods/Pour over.md"},
	} {
		for name, search := range modes {
			t.Run(tc.name+"/"+name, func(t *testing.T) {
				rs, err := search(tc.query)
				if err != nil {
					t.Fatal(err)
				}
				if tc.want == "" {
					if len(rs) > 0 {
						t.Fatalf("%d results, want none: %v (first score %.3f)", len(rs), paths(rs), rs[0].Score)
					}
					return
				}
				if !slices.Contains(paths(rs), tc.want) {
					t.Fatalf("results %v; want %s among them", paths(rs), tc.want)
				}
			})
		}
	}
}

// TestSemanticSymbolsFindOnlyTheirNotes: with the lexical embedder, a
// query of symbols alone finds the notes holding them and no other.
func TestSemanticSymbolsFindOnlyTheirNotes(t *testing.T) {
	ctx := context.Background()
	root := t.TempDir()
	for name, text := range map[string]string{
		"Unicorns.md": "# Unicorns\n\n🦄 sightings, noted as they come.\n",
		"Horses.md":   "# Horses\n\nA horse is not a unicorn, whatever the stories say.\n",
		"Stars.md":    "# Stars\n\n⭐ marks the evenings worth remembering.\n",
	} {
		if err := os.WriteFile(filepath.Join(root, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	_, db := indexedKeyword(t, "v", root)
	v := servingVectors(db, vectors.LexicalSource(), quietLog())
	if _, err := v.Sync(ctx, vectors.SyncOptions{}); err != nil {
		t.Fatal(err)
	}
	sem := NewSemantic(v, db)
	for query, want := range map[string]string{"🦄": "Unicorns.md", "⭐": "Stars.md", "🐙": ""} {
		rs, err := sem.Search(ctx, SemanticQuery{Text: query})
		if err != nil {
			t.Fatal(err)
		}
		if got := strings.Join(paths(rs), ","); got != want {
			t.Errorf("%s: %q; want %q", query, got, want)
		}
	}
}

// TestFilterKeepingNothingSaysSoToItsReader: a filter that keeps no note
// gets one sentence that reads as English, naming what the reader can
// change: the tool's arguments and list-vaults for a model, the flags of
// jarvis search for a person at a terminal.
func TestFilterKeepingNothingSaysSoToItsReader(t *testing.T) {
	svc, _ := indexedService(t, config.Vault{Name: "coffee", Path: exampleVault()})
	for _, tc := range []struct {
		name   string
		filter notes.Filter
		reader notes.Reader
		want   string
	}{
		{"path for a model", notes.Filter{PathPrefix: "Nope/", Vault: "coffee"}, notes.ReaderModel,
			`There are no notes whose path starts with "Nope/", in vault "coffee", so nothing was searched. ` +
				`Check path_prefix: paths start at the vault's top folder, as search results give them ("Projects/" for the folder Projects). ` +
				`list-vaults says how many notes each vault holds.`},
		{"path at a terminal", notes.Filter{PathPrefix: "Nope/"}, notes.ReaderTerminal,
			`There are no notes whose path starts with "Nope/", so nothing was searched. ` +
				`Check --path-prefix: paths start at the vault's top folder, as search results give them ("Projects/" for the folder Projects).`},
		{"tag at a terminal", notes.Filter{Tag: "#nope"}, notes.ReaderTerminal,
			`There are no notes tagged #nope, so nothing was searched. ` +
				`Check --tag: it keeps the notes with that tag or one nested under it ("project" keeps #project/alpha), with or without "#".`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a, err := svc.Search(context.Background(), Query{Mode: ModeKeyword, Text: "grind", Filter: tc.filter, Reader: tc.reader})
			if err != nil {
				t.Fatal(err)
			}
			if len(a.Results) != 0 || a.Empty != tc.want {
				t.Fatalf("%d results, empty:\n%s\nwant:\n%s", len(a.Results), a.Empty, tc.want)
			}
		})
	}
}

// TestSemanticEmptyPointsToKeywords: a semantic search that finds no
// passage similar enough, for a query whose words some note holds (one
// word against whole passages can fall under the floor), points to
// keyword search in the reader's words, not to other words; a query no
// note holds keeps the plain answer.
func TestSemanticEmptyPointsToKeywords(t *testing.T) {
	svc, _ := indexedService(t, config.Vault{Name: "coffee", Path: exampleVault()})
	for _, tc := range []struct {
		text   string
		reader notes.Reader
		want   string
	}{
		{"paper", notes.ReaderModel, "but some notes hold its words: search again with search-vault (keyword) or search-combined"},
		{"paper", notes.ReaderTerminal, "but some notes hold its words: search again with --mode keyword"},
		{"Sunday", notes.ReaderTerminal, "no passage is similar enough to it. The notes may not cover this topic"},
	} {
		a, err := svc.Search(context.Background(), Query{Mode: ModeSemantic, Text: tc.text, Reader: tc.reader})
		if err != nil {
			t.Fatal(err)
		}
		if len(a.Results) != 0 || !strings.Contains(a.Empty, tc.want) {
			t.Errorf("%q for reader %d: %d results, empty %q; want %q in it", tc.text, tc.reader, len(a.Results), a.Empty, tc.want)
		}
	}
}

// TestNamesOnlyEmptySaysOnlyNamesWereSearched: a search of names only that
// finds none said "no note holds its words" of a word a note's text holds
// (trial 18). It says only names were searched, and points to a search of
// the text, in the reader's words, when that finds the word.
func TestNamesOnlyEmptySaysOnlyNamesWereSearched(t *testing.T) {
	svc, _ := indexedService(t, config.Vault{Name: "coffee", Path: exampleVault()})
	for _, tc := range []struct {
		text   string
		reader notes.Reader
		want   string
	}{
		{"paper", notes.ReaderModel, "No note's title, alias or path matches this query (only names were searched). Some notes hold its words in their text: search again with search_content true to find them."},
		{"paper", notes.ReaderTerminal, "No note's title, alias or path matches this query (only names were searched). Some notes hold its words in their text: search again without --names-only to find them."},
		{"Sunday", notes.ReaderTerminal, "No note's title, alias or path matches this query (only names were searched). No note holds its words in its text either"},
	} {
		a, err := svc.Search(context.Background(), Query{Mode: ModeKeyword, NamesOnly: true, Text: tc.text, Reader: tc.reader})
		if err != nil {
			t.Fatal(err)
		}
		if len(a.Results) != 0 || !strings.HasPrefix(a.Empty, tc.want) {
			t.Errorf("%q for reader %d: %d results, empty %q; want it to begin %q", tc.text, tc.reader, len(a.Results), a.Empty, tc.want)
		}
	}
}

// TestEmptyAnswerPointsToProperties: a word a note holds only in its
// frontmatter (a contact's name, a property's name) is not searched as
// text; the empty answer said "no note holds its words" (trial 27). It
// names the note and the property, with a filter that finds it, in the
// reader's words; a word no property holds keeps the plain answer.
func TestEmptyAnswerPointsToProperties(t *testing.T) {
	dir := t.TempDir()
	sharedtest.WriteFile(t, dir, "Clients/Northwind Legal.md", "---\ncontact: Priya Shah\nrate: 0.12\n---\n# Northwind Legal\n\nContracts from London.\n")
	// The property whose value is the word is named before one whose
	// value holds it inside an address (trial 29).
	sharedtest.WriteFile(t, dir, "Guests/Marisol.md", "---\nemail: marisol@greenblocks.org\norganisation: GreenBlocks\n---\n# Marisol\n\nA guest.\n")
	sharedtest.WriteFile(t, dir, "Projects/Manual.md", "---\ndeadline: 2026-12-01\n---\n# Manual\n\nA technical manual.\n")
	svc, _ := indexedService(t, config.Vault{Name: "work", Path: dir})
	for _, tc := range []struct {
		text      string
		mode      Mode
		namesOnly bool
		reader    notes.Reader
		want      string
	}{
		{"Priya", ModeKeyword, false, notes.ReaderTerminal, "No note's text or names hold the words of this query, but the properties (frontmatter) of Clients/Northwind Legal.md do, which search does not read as text: list the notes by the property contact with `jarvis query --in work --filter 'contact == \"Priya Shah\"'`."},
		{"Priya", ModeCombined, false, notes.ReaderModel, `list the notes by the property contact with query-notes, vault "work" and filter contact == "Priya Shah".`},
		// Every mode says it (trial 28: semantic and names-only did not).
		{"Priya", ModeSemantic, false, notes.ReaderTerminal, "the properties (frontmatter) of Clients/Northwind Legal.md do"},
		{"Priya", ModeKeyword, true, notes.ReaderTerminal, "the properties (frontmatter) of Clients/Northwind Legal.md do"},
		{"deadline", ModeKeyword, false, notes.ReaderTerminal, "list the notes by the property deadline with `jarvis query --in work --filter 'file.hasProperty(\"deadline\")' --property deadline`."},
		{"zanzibar", ModeKeyword, false, notes.ReaderTerminal, "Nothing in the notes matches this query: no note holds its words."},
		{"GreenBlocks", ModeKeyword, false, notes.ReaderTerminal, "list the notes by the property organisation with `jarvis query --in work --filter 'organisation == \"GreenBlocks\"'`."},
	} {
		a, err := svc.Search(context.Background(), Query{Mode: tc.mode, NamesOnly: tc.namesOnly, Text: tc.text, Reader: tc.reader})
		if err != nil {
			t.Fatal(err)
		}
		if len(a.Results) != 0 || !strings.Contains(a.Empty, tc.want) {
			t.Errorf("%q (%s, names only %v): %d results, empty %q; want %q in it", tc.text, tc.mode, tc.namesOnly, len(a.Results), a.Empty, tc.want)
		}
	}
}

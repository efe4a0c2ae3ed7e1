package related

import (
	"context"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"testing"

	"github.com/jarvis-mcp/jarvis/internal/graph"
	"github.com/jarvis-mcp/jarvis/internal/health"
	"github.com/jarvis-mcp/jarvis/internal/search"
	"github.com/jarvis-mcp/jarvis/internal/search/notes"
	"github.com/jarvis-mcp/jarvis/internal/search/vectors"
)

// TestNamesResolveAsLinks: a name several notes share stands for the one
// a link of that text would lead to from the note it is written in (the
// file name first, nearest the note, then aliases), and a note the note
// already links to is not listed as merely named in it.
func TestNamesResolveAsLinks(t *testing.T) {
	notes := map[string]string{
		"a/Plan.md":       "# Plan\n\nThe first plan.\n",
		"b/Plan.md":       "# Plan\n\nThe second plan.\n",
		"b/Kettle.md":     "# Kettle\n\nBoils water.\n",
		"a/Boiler.md":     "---\naliases: [Kettle]\n---\n# Boiler\n",
		"a/Cup.md":        "# Cup\n\nHolds tea.\n",
		"b/Note.md":       "# Note\n\nThe Plan needs a Kettle. Pour into the [[Cup]], a Cup of tea.\n",
		"c/Deep/Other.md": "---\naliases: [Plan]\n---\n# Other\n",
	}
	kin := graph.Kinship{Ref: graph.Ref{Vault: "v", Path: "b/Note.md", Title: "Note"}, ID: 1,
		Kin: []graph.Kin{{Path: "a/Cup.md", Title: "Cup", LinksTo: true}}}
	s := fakeService(t, notes, kin)
	s.Names = func(context.Context, string) ([]graph.NoteNames, error) {
		var out []graph.NoteNames
		for _, p := range []string{"a/Boiler.md", "a/Cup.md", "a/Plan.md", "b/Kettle.md", "b/Note.md", "b/Plan.md", "c/Deep/Other.md"} {
			n := graph.NoteNames{Path: p, Title: strings.TrimSuffix(p[strings.LastIndex(p, "/")+1:], ".md")}
			switch p {
			case "a/Boiler.md":
				n.Aliases = []string{"Kettle"}
			case "c/Deep/Other.md":
				n.Aliases = []string{"Plan"}
			}
			out = append(out, n)
		}
		return out, nil
	}
	a, err := s.Find(context.Background(), Query{Vault: "v", Path: "b/Note.md"})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, m := range a.Mentioning {
		got = append(got, fmt.Sprintf("%s %s", m.Name, m.Path))
	}
	want := []string{"Plan b/Plan.md", "Kettle b/Kettle.md"}
	if !slices.Equal(got, want) {
		t.Fatalf("named in the note: %q\nwant %q", got, want)
	}
}

// TestMentionsPerNoteAreBounded: a note naming the note on every line
// has at most maxMentionsPerNote of its lines listed, the last saying
// how many more there are, so that the list reaches the other notes; a
// line naming it in two sentences is listed once.
func TestMentionsPerNoteAreBounded(t *testing.T) {
	notes := map[string]string{
		"Green tea.md": "# Green tea\n\nCooler water.\n",
		"Log.md": "Green tea today. Green tea again.\n\nGreen tea on line 3.\n\nGreen tea on line 5.\n\n" +
			"Green tea on line 7.\n\nGreen tea on line 9.\n",
		"Shop.md": "Bought green tea.\n",
	}
	kin := graph.Kinship{Ref: graph.Ref{Vault: "v", Path: "Green tea.md", Title: "Green tea"}, ID: 1}
	a, err := fakeService(t, notes, kin).Find(context.Background(), Query{Vault: "v", Path: "Green tea.md"})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, m := range a.Mentions {
		got = append(got, fmt.Sprintf("%s:%d %s (%d more)", m.Path, m.Line, m.Sentence, m.MoreInNote))
	}
	want := []string{
		"Log.md:1 Green tea today. (0 more)",
		"Log.md:3 Green tea on line 3. (0 more)",
		"Log.md:5 Green tea on line 5. (2 more)",
		"Shop.md:1 Bought green tea. (0 more)",
	}
	if !slices.Equal(got, want) || a.MentionsFound != 6 {
		t.Fatalf("mentions (%d found)\n%s\nwant (6 found)\n%s", a.MentionsFound, strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// TestMentionsAreOfTheNoteALinkFinds: a name two notes share, written
// where a link of it would lead to the other one (in its folder), is no
// mention of the note asked about; written elsewhere, it is.
func TestMentionsAreOfTheNoteALinkFinds(t *testing.T) {
	notes := map[string]string{
		"a/Plan.md":   "# Plan\n\nThe first plan.\n",
		"b/Plan.md":   "# Plan\n\nThe second plan.\n",
		"a/Day.md":    "Follow the plan today.\n",
		"b/Day.md":    "Follow the plan tomorrow.\n",
		"c/Review.md": "Review the plan.\n",
	}
	kin := graph.Kinship{Ref: graph.Ref{Vault: "v", Path: "b/Plan.md", Title: "Plan"}, ID: 1}
	a, err := fakeService(t, notes, kin).Find(context.Background(), Query{Vault: "v", Path: "b/Plan.md"})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, m := range a.Mentions {
		got = append(got, m.Path)
	}
	// From c/, a link [[Plan]] leads to a/Plan.md: the shorter path,
	// then the first in order, as in Obsidian.
	if want := []string{"b/Day.md"}; !slices.Equal(got, want) || a.MentionsFound != 1 {
		t.Fatalf("mentions in %q (%d found); want %q", got, a.MentionsFound, want)
	}
}

// TestMeaningMissingWhileVectorsLoad: while the stored vectors are read
// into memory, the answer says to ask again shortly, not to look for a
// fix; stored vectors that cannot be read point to what tells the fix to
// the reader at hand, and a missing embedder is worded as search words it.
func TestMeaningMissingWhileVectorsLoad(t *testing.T) {
	loading := func() (string, bool) { return search.VectorsReading, true }
	if got := meaningMissing(search.ErrNoVectors, loading, nil, 0); got != search.VectorsReading+"; ask again in a few seconds" {
		t.Errorf("loading: %q", got)
	}
	svc := search.NewService(nil, &search.Semantic{}, nil, nil, health.Invocation{"--db", "/j.db"}, slog.New(slog.DiscardHandler))
	broken := func() (string, bool) { return "the stored vectors cannot be read (the database is damaged)", true }
	for r, want := range map[notes.Reader]string{
		notes.ReaderModel:    "; health-status or `jarvis doctor --db /j.db` says how to fix it",
		notes.ReaderTerminal: "; `jarvis doctor --db /j.db` says how to fix it",
	} {
		if got := meaningMissing(search.ErrNoVectors, broken, svc, r); !strings.HasSuffix(got, want) || strings.Contains(got, "ask again") {
			t.Errorf("unreadable, reader %d: %q; want it to end %q", r, got, want)
		}
	}
	notPulled := fmt.Errorf("%w: model gte-small is not installed: run `jarvis model pull gte-small`", vectors.ErrNoEmbedder)
	if got := meaningMissing(notPulled, nil, svc, notes.ReaderTerminal); got != "the embedder is not available: model gte-small is not installed: run `jarvis model pull gte-small`" {
		t.Errorf("no embedder, at the terminal: %q", got)
	}
	if got := meaningMissing(notPulled, nil, svc, notes.ReaderModel); got != "the embedder is not available (health-status or `jarvis doctor --db /j.db` says why and how to fix it)" {
		t.Errorf("no embedder, for a model: %q", got)
	}
}

// TestTemplatesAreNotProposed: a note in the vault's templates folder is a
// pattern for new notes: its name written in a note is not offered as a
// link, nor is a template that writes the note's name a mention of it.
func TestTemplatesAreNotProposed(t *testing.T) {
	notes := map[string]string{
		"Drafts/Novel.md":      "# Novel\n\n## Chapter One\n\nThe Lighthouse stands. A Chapter begins.\n",
		"Templates/Chapter.md": "# {{title}}\n\nA new chapter of the Novel.\n",
		"Lighthouse.md":        "# Lighthouse\n\nThe Novel's setting.\n",
	}
	kin := graph.Kinship{Ref: graph.Ref{Vault: "v", Path: "Drafts/Novel.md", Title: "Novel"}, ID: 1}
	find := func() (mentioning, mentions []string) {
		a, err := fakeService(t, notes, kin).Find(context.Background(), Query{Vault: "v", Path: "Drafts/Novel.md"})
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range a.Mentioning {
			mentioning = append(mentioning, m.Path)
		}
		for _, m := range a.Mentions {
			mentions = append(mentions, m.Path)
		}
		return mentioning, mentions
	}
	// Without a templates folder set, the template is a note as any other.
	if mentioning, mentions := find(); !slices.Contains(mentioning, "Templates/Chapter.md") || !slices.Contains(mentions, "Templates/Chapter.md") {
		t.Fatalf("no templates folder: mentioning %q, mentions %q; want the template in both", mentioning, mentions)
	}
	notes[".obsidian/templates.json"] = `{"folder": "Templates"}`
	mentioning, mentions := find()
	if slices.Contains(mentioning, "Templates/Chapter.md") || slices.Contains(mentions, "Templates/Chapter.md") {
		t.Errorf("templates folder set: mentioning %q, mentions %q; want no template", mentioning, mentions)
	}
	if !slices.Contains(mentioning, "Lighthouse.md") || !slices.Contains(mentions, "Lighthouse.md") {
		t.Errorf("templates folder set: mentioning %q, mentions %q; want the other note still", mentioning, mentions)
	}
}

package related

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/jarvis-mcp/jarvis/internal/config"
	"github.com/jarvis-mcp/jarvis/internal/graph"
	"github.com/jarvis-mcp/jarvis/internal/search"
	"github.com/jarvis-mcp/jarvis/internal/search/vectors"
	"github.com/jarvis-mcp/jarvis/internal/vault"
)

// fakeVault writes notes into a temp folder and returns it as a vault.
func fakeVault(t *testing.T, notes map[string]string) config.Vault {
	t.Helper()
	dir := t.TempDir()
	for rel, text := range notes {
		p := filepath.Join(dir, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return config.Vault{Name: "v", Path: dir}
}

// fakeService is a Service over the notes given, whose graph knows only
// the kin given and whose full-text search names every other note.
func fakeService(t *testing.T, notes map[string]string, kin graph.Kinship) *Service {
	v := fakeVault(t, notes)
	p := vault.NewParser()
	return &Service{
		Vaults: []config.Vault{v},
		Kin: func(_ context.Context, _, path string) (graph.Kinship, error) {
			if path != kin.Path {
				return graph.Kinship{}, &graph.NotFoundError{Ref: path}
			}
			return kin, nil
		},
		Mentioning: func(context.Context, string, []string, int) ([]string, bool, error) {
			var out []string
			for rel := range notes {
				out = append(out, rel)
			}
			slices.Sort(out)
			return out, false, nil
		},
		Names: func(context.Context, string) ([]graph.NoteNames, error) {
			var out []graph.NoteNames
			for rel := range notes {
				out = append(out, graph.NoteNames{Path: rel, Title: vault.TitleFromPath(rel)})
			}
			slices.SortFunc(out, func(a, b graph.NoteNames) int { return strings.Compare(a.Path, b.Path) })
			return out, nil
		},
		Prose: p.Prose,
	}
}

func TestFindDegrades(t *testing.T) {
	notes := map[string]string{
		"Tea.md":    "# Tea\n\nGreen tea wants cooler water than black tea.\n",
		"Kettle.md": "# Kettle\n\nBoils water for tea. See [[Tea]].\n",
	}
	kin := graph.Kinship{Ref: graph.Ref{Vault: "v", Path: "Tea.md", Title: "Tea"}, ID: 1,
		Kin: []graph.Kin{{Path: "Kettle.md", Title: "Kettle", LinkedFrom: true}}}
	for _, tc := range []struct {
		name    string
		similar func(context.Context, string, int64, int) ([]SimilarNote, error)
		want    string
	}{
		{"no similar", nil, "links and tags are complete, but similar passages and links to consider are missing because semantic search is not set up here"},
		{"no vectors", func(context.Context, string, int64, int) ([]SimilarNote, error) {
			return nil, search.ErrNoVectors
		}, "links and tags are complete, but similar passages and links to consider are missing because there are no vectors for this note yet"},
		{"embedder down", func(context.Context, string, int64, int) ([]SimilarNote, error) {
			return nil, fmt.Errorf("%w: dial tcp 127.0.0.1:11434: connection refused", vectors.ErrNoEmbedder)
		}, "links and tags are complete, but similar passages and links to consider are missing because the embedder cannot be used"},
		{"vectors being read", func(context.Context, string, int64, int) ([]SimilarNote, error) {
			return nil, search.ErrNoVectors
		}, "links and tags are complete, but similar passages and links to consider are missing because " + search.VectorsReading + "; ask again in a few seconds"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := fakeService(t, notes, kin)
			s.Similar = tc.similar
			if tc.name == "vectors being read" {
				s.VectorsAbsent = func() (string, bool) { return search.VectorsReading, true }
			}
			a, err := s.Find(context.Background(), Query{Vault: "v", Path: "Tea.md"})
			if err != nil {
				t.Fatal(err)
			}
			// Whatever the embedder measures, what is missing is the
			// similar passages: with the lexical one meaning never was
			// there. One colon at most, so that it reads after "Degraded:".
			if len(a.Missing) != 1 || !strings.HasPrefix(a.Missing[0], tc.want) || strings.Contains(a.Missing[0], "dial") ||
				strings.Contains(a.Missing[0], "meaning") || strings.Contains(a.Missing[0], ":") {
				t.Fatalf("missing %q; want %q", a.Missing, tc.want)
			}
			if len(a.Related) != 1 || a.Related[0].Path != "Kettle.md" || a.Related[0].Reasons[0].Detail != "it links to this note" {
				t.Fatalf("the links are not used without meaning: %+v", a.Related)
			}
		})
	}
	// Some vectors found while the rest are still being read (trial 25:
	// at a server's start the answer had no similar passages and no links
	// to consider, and did not say why).
	t.Run("some vectors read", func(t *testing.T) {
		s := fakeService(t, notes, kin)
		s.Similar = func(context.Context, string, int64, int) ([]SimilarNote, error) { return nil, nil }
		s.VectorsAbsent = func() (string, bool) { return search.VectorsReading, true }
		a, err := s.Find(context.Background(), Query{Vault: "v", Path: "Tea.md"})
		if err != nil {
			t.Fatal(err)
		}
		if want := "similar passages and links to consider may be missing because " + search.VectorsReading + "; ask again in a few seconds"; len(a.Missing) != 1 || !strings.Contains(a.Missing[0], want) {
			t.Fatalf("missing %q; want %q", a.Missing, want)
		}
		s.VectorsAbsent = func() (string, bool) { return "", false }
		if a, err := s.Find(context.Background(), Query{Vault: "v", Path: "Tea.md"}); err != nil || len(a.Missing) != 0 {
			t.Fatalf("with every vector read: missing %q, %v", a.Missing, err)
		}
	})
	t.Run("no index", func(t *testing.T) {
		s := fakeService(t, notes, kin)
		s.Kin = func(context.Context, string, string) (graph.Kinship, error) {
			return graph.Kinship{}, errors.New("database is locked")
		}
		if _, err := s.Find(context.Background(), Query{Vault: "v", Path: "Tea.md"}); !errors.Is(err, ErrUnavailable) {
			t.Fatalf("error %v", err)
		}
		s.Kin = nil
		if _, err := s.Find(context.Background(), Query{Vault: "v", Path: "Tea.md"}); !errors.Is(err, ErrUnavailable) {
			t.Fatalf("error %v", err)
		}
	})
	t.Run("not indexed", func(t *testing.T) {
		s := fakeService(t, notes, kin)
		if _, err := s.Find(context.Background(), Query{Vault: "v", Path: "Coffee.md"}); !errors.Is(err, graph.ErrNoteNotFound) {
			t.Fatalf("error %v", err)
		}
	})
	t.Run("the note's file is gone", func(t *testing.T) {
		s := fakeService(t, notes, kin)
		os.Remove(filepath.Join(s.Vaults[0].Path, "Tea.md"))
		a, err := s.Find(context.Background(), Query{Vault: "v", Path: "Tea.md"})
		if err != nil || !slices.ContainsFunc(a.Missing, func(m string) bool { return strings.HasPrefix(m, "the note's own text could not be read") }) {
			t.Fatalf("error %v, missing %q", err, a.Missing)
		}
	})
}

func TestMentions(t *testing.T) {
	notes := map[string]string{
		"Green tea.md": "---\naliases: [Sencha]\n---\n# Green tea\n\nCooler water than for black tea. Try it with a [[Kettle]].\n",
		"Kettle.md":    "# Kettle\n\nGood for green tea. Greentea is not a word, green teapot is no mention.\nAlso [[Green tea]] and `green tea` and #green-tea.\n",
		"Twice.md":     "Green tea, then green tea again.\n",
		"Log.md":       "# Log\n\n- Had sencha today.\n\n```\ngreen tea in code\n```\n\n| Tea | Verdict |\n| --- | --- |\n| Green tea | fine |\n",
	}
	kin := graph.Kinship{Ref: graph.Ref{Vault: "v", Path: "Green tea.md", Title: "Green tea"}, Aliases: []string{"Sencha"}, ID: 1}
	a, err := fakeService(t, notes, kin).Find(context.Background(), Query{Vault: "v", Path: "Green tea.md"})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, m := range a.Mentions {
		got = append(got, fmt.Sprintf("%s:%d %s: %s", m.Path, m.Line, m.Name, m.Sentence))
	}
	want := []string{
		"Kettle.md:3 Green tea: Good for green tea.",
		"Log.md:3 Sencha: Had sencha today.",
		"Log.md:11 Green tea: Green tea",
		"Twice.md:1 Green tea: Green tea, then green tea again.",
	}
	if !slices.Equal(got, want) || a.MentionsFound != 4 {
		t.Fatalf("mentions (%d found)\n%s\nwant\n%s", a.MentionsFound, strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if len(a.Mentioning) != 0 {
		t.Fatalf("mentioning %+v: [[Kettle]] is a link", a.Mentioning)
	}
	kettle := graph.Kinship{Ref: graph.Ref{Vault: "v", Path: "Kettle.md", Title: "Kettle"}, ID: 2}
	a, err = fakeService(t, notes, kettle).Find(context.Background(), Query{Vault: "v", Path: "Kettle.md"})
	if err != nil {
		t.Fatal(err)
	}
	if len(a.Mentioning) != 1 || a.Mentioning[0].Path != "Green tea.md" || a.Mentioning[0].Line != 3 {
		t.Fatalf("mentioning %+v", a.Mentioning)
	}
}

// TestSentence reads the sentence around a word of a paragraph, as a
// reader sees it: whole, or cut around the word (never inside a link),
// without Markdown, and not ended by "i.e." nor by a full stop in code.
func TestSentence(t *testing.T) {
	long := strings.Repeat("word ", 100)
	link := "[[Alpha beta gamma delta epsilon zeta eta theta]] "
	for _, tc := range []struct {
		name, md, at, want string
	}{
		{"middle", "First one. The grinder is here. Last one.", "grinder", "The grinder is here."},
		{"start", "Grinder first! Then more.", "Grinder", "Grinder first!"},
		{"no stop", "a grinder without a full stop", "grinder", "a grinder without a full stop"},
		{"decimal", "Weigh 0.1 g with the grinder. Next.", "grinder", "Weigh 0.1 g with the grinder."},
		{"long", long + "grinder " + long, "grinder", "…" + strings.TrimSpace(long[len(long)-maxSentence/2:]) + " grinder " + strings.TrimSpace(long[:maxSentence/2]) + "…"},
		{"abbreviation", "First. Embed it in files (i.e. as an embed) or on a grinder. Next.", "grinder", "Embed it in files (i.e. as an embed) or on a grinder."},
		{"stop in code", "First. Run `make. all` with the grinder. Next.", "grinder", "Run make. all with the grinder."},
		{"callout", "> [!note] Grinders\n> The grinder is loud.", "grinder", "Grinders The grinder is loud."},
		{"cut outside a link", link + strings.Repeat("w ", 50) + "grinder " + strings.Repeat("w ", 100) + "end.", "grinder",
			"…" + strings.Repeat("w ", 50) + "grinder " + strings.TrimSpace(strings.Repeat("w ", 60)) + "…"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			blocks, err := vault.NewParser().Prose(context.Background(), []byte(tc.md+"\n"))
			if err != nil || len(blocks) != 1 {
				t.Fatalf("prose %+v, %v", blocks, err)
			}
			i := strings.Index(blocks[0].Text, tc.at)
			if got := sentence(blocks[0], i, i+len(tc.at)); got != tc.want {
				t.Fatalf("sentence %q\nwant %q", got, tc.want)
			}
		})
	}
}

func TestSentences(t *testing.T) {
	src := "# Note\n\nFirst one. Second one weighs\n0.1 g! Third, with [[a link]].\n"
	blocks, err := vault.NewParser().Prose(context.Background(), []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, s := range sentences(blocks[1]) {
		got = append(got, fmt.Sprintf("%d %s", s.Line, s.Sentence))
	}
	want := []string{"3 First one.", "3 Second one weighs 0.1 g!", "4 Third, with a link."}
	if !slices.Equal(got, want) {
		t.Fatalf("sentences %q\nwant %q", got, want)
	}
}

// TestFindWithNoKinListsNone: a note nothing is close to answers with
// empty lists, not null ones, which a client's schema would refuse.
func TestFindWithNoKinListsNone(t *testing.T) {
	notes := map[string]string{"Alone.md": "# Alone\n\nNothing links here.\n"}
	s := fakeService(t, notes, graph.Kinship{Ref: graph.Ref{Vault: "v", Path: "Alone.md", Title: "Alone"}, ID: 1})
	a, err := s.Find(context.Background(), Query{Vault: "v", Path: "Alone.md"})
	if err != nil {
		t.Fatal(err)
	}
	data, err := json.Marshal(a)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(data), "null") || len(a.Related) != 0 {
		t.Fatalf("answer %s; want empty lists", data)
	}
}

// TestMentionsReadBoundedText gives a note a candidate mention too big to
// read within mentionBytes: it is left unread, the others are read, and
// the answer says mentions were cut.
func TestMentionsReadBoundedText(t *testing.T) {
	notes := map[string]string{
		"Green tea.md": "# Green tea\n\nCooler water.\n",
		"Big.md":       strings.Repeat("Green tea again, and more words to read.\n", mentionBytes/40+1),
		"Kettle.md":    "Good for green tea.\n",
	}
	kin := graph.Kinship{Ref: graph.Ref{Vault: "v", Path: "Green tea.md", Title: "Green tea"}, ID: 1}
	a, err := fakeService(t, notes, kin).Find(context.Background(), Query{Vault: "v", Path: "Green tea.md"})
	if err != nil {
		t.Fatal(err)
	}
	if len(a.Mentions) != 1 || a.Mentions[0].Path != "Kettle.md" || !a.MentionsCut {
		t.Fatalf("mentions %+v, cut %v; want Kettle.md's alone, cut", a.Mentions, a.MentionsCut)
	}
}

// TestNoteFoundTooComplexIsNotParsedAgain: a note the index found too
// complex to parse in time, as the note asked about or as a candidate
// mention, is not parsed again (it would spend its budget to fail again);
// the answer says the note's own sentences are missing, and the other
// notes' mentions are still found.
func TestNoteFoundTooComplexIsNotParsedAgain(t *testing.T) {
	notes := map[string]string{
		"Green tea.md": "# Green tea\n\nSee the kettle.\n",
		"Kettle.md":    "Good for green tea.\n",
		"Knot.md":      "Green tea, in a knot of Markdown.\n",
	}
	kin := graph.Kinship{Ref: graph.Ref{Vault: "v", Path: "Green tea.md", Title: "Green tea"}, ID: 1}
	s := fakeService(t, notes, kin)
	s.TooComplex = func(_ context.Context, vaultName, path string, src []byte) bool {
		return vaultName == "v" && (path == "Green tea.md" || path == "Knot.md") && string(src) == notes[path]
	}
	prose := s.Prose
	var parsed []string
	s.Prose = func(ctx context.Context, src []byte) ([]vault.Prose, error) {
		parsed = append(parsed, string(src))
		return prose(ctx, src)
	}
	a, err := s.Find(context.Background(), Query{Vault: "v", Path: "Green tea.md"})
	if err != nil {
		t.Fatal(err)
	}
	if len(parsed) != 1 || parsed[0] != notes["Kettle.md"] {
		t.Fatalf("parsed %q; want Kettle.md's text alone", parsed)
	}
	if len(a.Mentions) != 1 || a.Mentions[0].Path != "Kettle.md" {
		t.Fatalf("mentions %+v; want Kettle.md's", a.Mentions)
	}
	if !slices.ContainsFunc(a.Missing, func(m string) bool { return strings.Contains(m, "too complex to parse") }) {
		t.Fatalf("missing %q does not say the note is too complex to parse", a.Missing)
	}
}

// TestOwnTextIsBounded: of a note past ownProseBytes, only its first MB,
// to the end of a line, is parsed for its own sentences, and the answer
// says so; a link suggestion from that part is still made.
func TestOwnTextIsBounded(t *testing.T) {
	big := "# Big\n\nThis names Kettle early on.\n\n" + strings.Repeat("Plain words that name nothing at all here.\n", ownProseBytes/43+10)
	notes := map[string]string{"Big.md": big, "Kettle.md": "# Kettle\n"}
	kin := graph.Kinship{Ref: graph.Ref{Vault: "v", Path: "Big.md", Title: "Big"}, ID: 1}
	s := fakeService(t, notes, kin)
	prose := s.Prose
	parsed := 0
	s.Prose = func(ctx context.Context, src []byte) ([]vault.Prose, error) {
		if strings.HasPrefix(string(src), "# Big") {
			parsed = len(src)
		}
		return prose(ctx, src)
	}
	a, err := s.Find(context.Background(), Query{Vault: "v", Path: "Big.md"})
	if err != nil {
		t.Fatal(err)
	}
	if parsed > ownProseBytes || parsed == 0 || big[parsed-1] != '\n' {
		t.Fatalf("parsed %d bytes of %d; want at most %d, to a line's end", parsed, len(big), ownProseBytes)
	}
	if !slices.ContainsFunc(a.Missing, func(m string) bool { return strings.Contains(m, "only the first") }) {
		t.Fatalf("missing %q does not say the note was read in part", a.Missing)
	}
}

// TestTagReasonsRead: the reason two notes share tags reads as a
// sentence, and its kind stays "tags".
func TestTagReasonsRead(t *testing.T) {
	kin := graph.Kinship{Ref: graph.Ref{Vault: "v", Path: "Plan.md", Title: "Plan"}, Kin: []graph.Kin{
		{Path: "One.md", Title: "One", Tags: []string{"project"}, TagWeight: 1},
		{Path: "Two.md", Title: "Two", Tags: []string{"project", "draft", "q3"}, TagWeight: 2},
	}}
	want := map[string]string{"One.md": "both tagged #project", "Two.md": "both tagged #project, #draft and #q3"}
	for _, n := range merge(kin, nil, 10, noteNames{}) {
		if len(n.Reasons) != 1 || n.Reasons[0].Kind != KindTags || n.Reasons[0].Detail != want[n.Path] {
			t.Errorf("%s: reasons %+v; want one of kind %s: %q", n.Path, n.Reasons, KindTags, want[n.Path])
		}
	}
}

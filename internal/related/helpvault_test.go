package related

import (
	"context"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/jarvis-mcp/jarvis/internal/sharedtest"
)

// TestCanvasOnTheHelpVault asks for the related notes of the Canvas page
// of the Obsidian Help vault, every language indexed, as a newcomer
// trying jarvis related on it did.
func TestCanvasOnTheHelpVault(t *testing.T) {
	s := indexedService(t, "help", sharedtest.Path(t, "vaults/obsidian-help"))
	a, err := s.Find(context.Background(), Query{Vault: "help", Path: "en/Plugins/Canvas.md"})
	if err != nil {
		t.Fatal(err)
	}
	t.Run("names resolve as links do", func(t *testing.T) {
		// The note links to these: they are linked, not merely named.
		linked := map[string]bool{"en/Plugins/Command palette.md": true, "en/Plugins/File explorer.md": true, "en/Plugins/Backlinks.md": true}
		for _, m := range a.Mentioning {
			if linked[m.Path] {
				t.Errorf("line %d names %s, which the note links to: %+v", m.Line, m.Path, m)
			}
			switch m.Name {
			case "Command palette", "File explorer", "Backlinks":
				t.Errorf("%q is listed as named in the note, for %s: [[%s]] there leads to the English note, which the note links to", m.Name, m.Path, m.Name)
			case "Attachments":
				if m.Path != "en/Editing and formatting/Attachments.md" {
					t.Errorf("%q stands for %s; a link of that name leads to en/Editing and formatting/Attachments.md", m.Name, m.Path)
				}
			}
		}
	})
	t.Run("mentions reach many notes", func(t *testing.T) {
		type place struct {
			path string
			line int
		}
		seen := map[place]bool{}
		perNote := map[string]int{}
		for _, m := range a.Mentions {
			if seen[place{m.Path, m.Line}] {
				t.Errorf("%s:%d is listed twice", m.Path, m.Line)
			}
			seen[place{m.Path, m.Line}] = true
			perNote[m.Path]++
		}
		for p, n := range perNote {
			if n > maxMentionsPerNote {
				t.Errorf("%d mentions listed from %s; want at most %d, and a count of the rest", n, p, maxMentionsPerNote)
			}
		}
		if len(a.Mentions) < MaxMentions || len(perNote) < MaxMentions/maxMentionsPerNote {
			t.Errorf("%d mentions from %d notes; want %d from at least %d", len(a.Mentions), len(perNote), MaxMentions, MaxMentions/maxMentionsPerNote)
		}
	})
	t.Run("sentences read as text", func(t *testing.T) {
		var shown []string
		for _, m := range append(slices.Clone(a.Mentions), a.Mentioning...) {
			shown = append(shown, m.Sentence)
		}
		for _, sg := range a.Suggestions {
			shown = append(shown, sg.Sentence)
		}
		// Every sentence of a release note naming canvases, as mentions
		// of them would show it, listed or not.
		src, err := os.ReadFile(sharedtest.Path(t, "vaults/obsidian-help/Release notes/v1.1.5.md"))
		if err != nil {
			t.Fatal(err)
		}
		prose, err := s.Prose(context.Background(), src)
		if err != nil {
			t.Fatal(err)
		}
		for _, b := range prose {
			for _, m := range findNames(b, []string{"Canvas", "canvases"}) {
				shown = append(shown, sentence(b, m.start, m.end))
			}
		}
		for _, s := range shown {
			if strings.Contains(s, "[[") || strings.Contains(s, "]]") || strings.HasPrefix(s, ")") || strings.Contains(s, "[!") {
				t.Errorf("a sentence shown holds Markdown or starts in the middle of one: %q", s)
			}
		}
	})
}

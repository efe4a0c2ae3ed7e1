package related

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/jarvis-mcp/jarvis/internal/graph"
)

// TestWikilinkLeadsToTheFile: a proposed link names the file, never the
// title alone, and the path when the name is not unique.
func TestWikilinkLeadsToTheFile(t *testing.T) {
	paths := []string{"Zettel/202403091008.md", "Plan.md", "Work/Plan.md", "A/Deep/Idea.md", "B/Deep/Idea.md", "Notes/Solo.md", "Assets/logo.png"}
	tests := []struct {
		name, path, title, want string
	}{
		{"title differs", "Zettel/202403091008.md", "Evergreen Notes", "[[202403091008|Evergreen Notes]]"},
		{"title is the name", "Notes/Solo.md", "solo", "[[Solo]]"},
		{"no title", "Notes/Solo.md", "", "[[Solo]]"},
		{"name shared", "Work/Plan.md", "Plan", "[[Work/Plan]]"},
		{"name shared, at the root", "Plan.md", "Plan", "[[Plan]]"},
		{"folder shared too", "A/Deep/Idea.md", "Big idea", "[[A/Deep/Idea|Big idea]]"},
		{"title with a bar", "Notes/Solo.md", "a|b", "[[Solo]]"},
		{"no paths known", "Zettel/202403091008.md", "Evergreen Notes", "[[Zettel/202403091008|Evergreen Notes]]"},
		{"an attachment keeps its extension", "Assets/logo.png", "", "[[logo.png]]"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ps := paths
			if tt.name == "no paths known" {
				ps = nil
			}
			if got := Wikilink(tt.path, tt.title, ps); got != tt.want {
				t.Errorf("Wikilink(%q, %q) = %q, want %q", tt.path, tt.title, got, tt.want)
			}
		})
	}
}

// TestSharedLinksNameAttachmentsWhole: the notes both link to are named as
// links that lead to them, an attachment with its extension (trial 17:
// "both link to [[Assets/logo]]" leads nowhere in Obsidian).
func TestSharedLinksNameAttachmentsWhole(t *testing.T) {
	if got, want := wikiList([]string{"Assets/logo.png", "Plans/Q3.md"}, noteNames{}), "[[Assets/logo.png]] and [[Plans/Q3]]"; got != want {
		t.Errorf("wikiList = %q, want %q", got, want)
	}
	// A note named by a timestamp id is linked with its title (trial 24:
	// "both link to [[202403111200]]" told a reader nothing).
	known := newNoteNames([]graph.NoteNames{{Path: "Zettel/202403111200.md", Title: "Ebbinghaus forgetting curve"}, {Path: "Plans/Q3.md", Title: "Q3"}})
	if got, want := wikiList([]string{"Zettel/202403111200.md", "Plans/Q3.md", "Assets/logo.png"}, known),
		"[[202403111200|Ebbinghaus forgetting curve]], [[Q3]] and [[Assets/logo.png]]"; got != want {
		t.Errorf("wikiList with titles = %q, want %q", got, want)
	}
}

// TestSuggestedLinkNamesTheFile: Find proposes a note named by a
// timestamp id and titled in its frontmatter as a link to its file name.
func TestSuggestedLinkNamesTheFile(t *testing.T) {
	dir := t.TempDir()
	for rel, text := range map[string]string{
		"202401011200.md": "---\ntitle: Atomic notes\n---\nEvergreen zettel notes grow slowly, one evergreen idea per zettel, revised over years.\n",
		"202403091008.md": "---\ntitle: Evergreen Notes\n---\nEvergreen notes grow slowly: each evergreen zettel holds one idea, revised over years.\n",
		"Cooking.md":      "Bread needs flour, water, salt and time in a warm kitchen.\n",
	} {
		if err := os.WriteFile(filepath.Join(dir, rel), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	s := indexedService(t, "v", dir)
	a, err := s.Find(context.Background(), Query{Vault: "v", Path: "202401011200.md", Limit: 5})
	if err != nil {
		t.Fatal(err)
	}
	for _, sg := range a.Suggestions {
		if sg.Path == "202403091008.md" {
			if sg.Link != "[[202403091008|Evergreen Notes]]" {
				t.Errorf("link %q, want [[202403091008|Evergreen Notes]]", sg.Link)
			}
			return
		}
	}
	t.Fatalf("no suggestion of 202403091008.md: %+v", a.Suggestions)
}

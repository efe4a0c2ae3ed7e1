package vault

import (
	"errors"
	"strings"
	"testing"

	"github.com/jarvis-mcp/jarvis/internal/sharedtest"
)

func TestLeftOutByNamesTheRuleThatApplies(t *testing.T) {
	patterns := []string{"Drafts/**", "*.tmp", ObsidianPattern("Archive/"), ObsidianPattern(`/\.pdf$/`)}
	for _, tc := range []struct {
		rel  string
		want string // Rule.String; "" when rel is let in
	}{
		{"Notes/Plan.md", ""},
		{"Archive/Nouvelle idée.md", `Obsidian's excluded files ("Archive/", in .obsidian/app.json)`},
		{"archive/old/x.md", `Obsidian's excluded files ("Archive/", in .obsidian/app.json)`},
		{"Files/scan.pdf", `Obsidian's excluded files ("/\\.pdf$/", in .obsidian/app.json)`},
		{"Drafts/idea.md", `the vault's exclude pattern "Drafts/**" (in the config file)`},
		{"Notes/x.tmp", `the vault's exclude pattern "*.tmp" (in the config file)`},
		{".trash/old.md", `the hidden folder ".trash" (its name starts with a dot)`},
		{"Notes/.draft.md", `the hidden file "Notes/.draft.md" (its name starts with a dot)`},
		{"web/node_modules/pkg/README.md", `the node_modules folder "web/node_modules"`},
		{strings.Repeat("a", MaxPathChars) + ".md", "a path longer than 1000 characters"},
	} {
		rule, out := LeftOutBy(tc.rel, patterns)
		if out != (tc.want != "") || out != LeftOut(tc.rel, patterns) {
			t.Errorf("LeftOutBy(%.40q) left out %v, LeftOut %v; want %v", tc.rel, out, LeftOut(tc.rel, patterns), tc.want != "")
			continue
		}
		if out && rule.String() != tc.want {
			t.Errorf("LeftOutBy(%.40q) = %s; want %s", tc.rel, rule, tc.want)
		}
	}
}

func TestRootOpenNamesTheRuleThatLeavesAPathOut(t *testing.T) {
	root, _ := linkVault(t)
	r, err := OpenRoot(root, []string{"Drafts/**", ObsidianPattern("Archive/")})
	if err != nil {
		t.Fatal(err)
	}
	for rel, want := range map[string]string{
		"Archive/secret.md": `because of Obsidian's excluded files ("Archive/", in .obsidian/app.json)`,
		"Drafts/x.md":       `because of the vault's exclude pattern "Drafts/**" (in the config file)`,
		"peek-archive.md":   `because a symbolic link on it leads to "Archive/secret.md", which is left out because of Obsidian's excluded files ("Archive/", in .obsidian/app.json)`,
	} {
		_, err := r.Open(rel)
		if !errors.Is(err, ErrLeftOut) || LeftOutWhy(err) != want {
			t.Errorf("Open(%q) = %v; want ErrLeftOut %s", rel, err, want)
		}
	}
	sharedtest.WriteFile(t, root, "Notes/kept.md", "x")
	if _, err := r.Open("Notes/kept.md"); err != nil {
		t.Errorf("Open of a note let in: %v", err)
	}
}

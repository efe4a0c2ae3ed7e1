package vault

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/jarvis-mcp/jarvis/internal/sharedtest"
)

// TestTemplateFolders: the folders the Templates and Templater plugins
// keep templates in are read from the vault's settings; one that names
// the vault itself, or a broken setting, is passed over.
func TestTemplateFolders(t *testing.T) {
	for _, tc := range []struct {
		name     string
		settings map[string]string
		want     []string
	}{
		{"none", nil, nil},
		{"core plugin", map[string]string{"templates.json": `{"folder": "Templates/"}`}, []string{"Templates"}},
		{"both", map[string]string{"templates.json": `{"folder": "Meta/Templates"}`,
			"plugins/templater-obsidian/data.json": `{"templates_folder": "/Templater"}`}, []string{"Meta/Templates", "Templater"}},
		{"the vault itself", map[string]string{"templates.json": `{"folder": "/"}`}, nil},
		{"broken", map[string]string{"templates.json": `{"folder": `}, nil},
		{"not text", map[string]string{"templates.json": `{"folder": 3}`}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			for name, body := range tc.settings {
				sharedtest.WriteFile(t, dir, SettingsDir+"/"+name, body)
			}
			root, err := OpenRoot(dir, nil)
			if err != nil {
				t.Fatal(err)
			}
			if got := root.TemplateFolders(); !slices.Equal(got, tc.want) {
				t.Errorf("folders %q; want %q", got, tc.want)
			}
		})
	}
	folders := []string{"Templates", "Meta/Templates"}
	for rel, want := range map[string]bool{"Templates/Chapter.md": true, "Meta/Templates/a/b.md": true,
		"Templates.md": false, "TemplatesOld/x.md": false, "Notes/Templates/x.md": false, "templates/x.md": false} {
		if got := InFolder(rel, folders); got != want {
			t.Errorf("InFolder(%q) = %v; want %v", rel, got, want)
		}
	}
}

func TestReadTemplateLetsInOnlyObsidiansExcludedFiles(t *testing.T) {
	dir := t.TempDir()
	outside := t.TempDir()
	sharedtest.WriteFile(t, outside, "Day.md", "OUTSIDE")
	sharedtest.WriteFile(t, dir, "Templates/Day.md", "# {{title}}")
	sharedtest.WriteFile(t, dir, "Private/Day.md", "private")
	sharedtest.WriteFile(t, dir, ".hidden/Day.md", "hidden")
	if err := os.Symlink(filepath.Join(outside, "Day.md"), filepath.Join(dir, "Templates", "Out.md")); err != nil {
		sharedtest.NoSymlinks(t, err)
	}
	if err := os.Symlink(filepath.Join("..", "Private", "Day.md"), filepath.Join(dir, "Templates", "Private.md")); err != nil {
		sharedtest.NoSymlinks(t, err)
	}
	r, err := OpenRoot(dir, []string{ObsidianPattern("Templates/"), "Private/**"})
	if err != nil {
		t.Fatal(err)
	}
	if _, _, _, err := r.ReadNote("Templates/Day.md"); !errors.Is(err, ErrLeftOut) {
		t.Fatalf("ReadNote of a file in Obsidian's excluded files = %v; want ErrLeftOut", err)
	}
	if data, _, _, err := r.ReadTemplate("Templates/Day.md"); err != nil || string(data) != "# {{title}}" {
		t.Fatalf("ReadTemplate of a template in Obsidian's excluded files = %q, %v", data, err)
	}
	for rel, want := range map[string]error{
		"Private/Day.md":       ErrLeftOut,
		".hidden/Day.md":       ErrLeftOut,
		"Templates/Out.md":     ErrOutside,
		"Templates/Private.md": ErrLeftOut,
		"../Day.md":            ErrOutside,
	} {
		if data, _, _, err := r.ReadTemplate(rel); !errors.Is(err, want) {
			t.Errorf("ReadTemplate(%q) = %q, %v; want %v", rel, data, err, want)
		}
	}
}

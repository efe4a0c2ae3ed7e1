package vault

import (
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

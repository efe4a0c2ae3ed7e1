package vault

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jarvis-mcp/jarvis/internal/sharedtest"
)

// TestReadSettingsStaysInTheSettingsFolder: the settings reader opens files
// beneath .obsidian, and nothing else: not a note, not a link out of the
// folder or the vault, not a file over the bound.
func TestReadSettingsStaysInTheSettingsFolder(t *testing.T) {
	outside := t.TempDir()
	sharedtest.WriteFile(t, outside, "secret.json", `{"secret": true}`)
	root := t.TempDir()
	sharedtest.WriteFile(t, root, ".obsidian/daily-notes.json", `{"folder": "Daily"}`)
	sharedtest.WriteFile(t, root, ".obsidian/plugins/periodic-notes/data.json", `{}`)
	sharedtest.WriteFile(t, root, "Notes/note.json", `{"note": true}`)
	sharedtest.WriteFile(t, root, ".obsidian/big.json", strings.Repeat(" ", MaxSettingsSize+1))
	for name, target := range map[string]string{
		".obsidian/to-note.json":    "../Notes/note.json",
		".obsidian/to-outside.json": filepath.Join(outside, "secret.json"),
		".obsidian/alias.json":      "daily-notes.json",
	} {
		if err := os.Symlink(target, filepath.Join(root, filepath.FromSlash(name))); err != nil {
			sharedtest.NoSymlinks(t, err)
		}
	}
	r, err := OpenRoot(root, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		want error
		text string
	}{
		{name: "daily-notes.json", text: `{"folder": "Daily"}`},
		{name: "plugins/periodic-notes/data.json", text: `{}`},
		{name: "alias.json", text: `{"folder": "Daily"}`},
		{name: "to-note.json", want: ErrLeftOut},
		{name: "to-outside.json", want: ErrOutside},
		{name: "../Notes/note.json", want: ErrLeftOut},
		{name: "../../" + filepath.Base(outside) + "/secret.json", want: ErrOutside},
		{name: "big.json", want: ErrSettingsTooBig},
		{name: "missing.json", want: fs.ErrNotExist},
	} {
		data, err := r.ReadSettings(tc.name)
		if tc.want != nil {
			if !errors.Is(err, tc.want) {
				t.Errorf("ReadSettings(%q) = %q, %v; want %v", tc.name, data, err, tc.want)
			}
			continue
		}
		if err != nil || string(data) != tc.text {
			t.Errorf("ReadSettings(%q) = %q, %v; want %q", tc.name, data, err, tc.text)
		}
	}
	// The notes' reader still keeps the settings folder out.
	if _, err := r.Open(".obsidian/daily-notes.json"); !errors.Is(err, ErrLeftOut) {
		t.Errorf("Open of a settings file: %v; want ErrLeftOut", err)
	}
}

package vault

import (
	"encoding/json"
	"io/fs"
	"path"
	"slices"
	"strings"
)

// The settings files that name a vault's templates folder, beneath its
// SettingsDir, and the key each keeps it under: the Templates core plugin
// and the Templater community plugin.
var templateSettings = []struct{ file, key string }{
	{"templates.json", "folder"},
	{"plugins/templater-obsidian/data.json", "templates_folder"},
}

// TemplateFolders are the vault-relative folders the vault keeps note
// templates in, as its Obsidian settings name them: notes there are
// patterns for new notes, not notes to link to. A setting that is missing,
// unreadable or names the vault folder itself is passed over.
func (r *Root) TemplateFolders() []string {
	var out []string
	for _, s := range templateSettings {
		data, err := r.ReadSettings(s.file)
		if err != nil {
			continue
		}
		var m map[string]any
		if json.Unmarshal(data, &m) != nil {
			continue
		}
		folder, _ := m[s.key].(string)
		// Cleaned as beneath the vault folder: "../x" cannot leave it.
		folder = strings.Trim(path.Clean("/"+strings.ReplaceAll(folder, `\`, "/")), "/")
		if folder != "" {
			out = append(out, folder)
		}
	}
	return out
}

// InFolder reports whether the vault-relative path rel is beneath one of
// folders, compared as Obsidian compares paths: case-sensitively, by whole
// path segments.
func InFolder(rel string, folders []string) bool {
	for _, f := range folders {
		if strings.HasPrefix(rel, f+"/") {
			return true
		}
	}
	return false
}

// ReadTemplate reads the note at rel as the template of a new note, as
// ReadNote reads a note, but with Obsidian's excluded files let through:
// Obsidian uses a template kept where that setting leaves files out (it
// hides them from its search, graph and suggestions only), and keeping
// the templates folder so excluded is common. The read is otherwise
// ReadNote's: beneath the vault folder, through no link out of it, and
// refused for a hidden name or one the config file's own exclude patterns
// keep out, which the user gave jarvis to keep out.
func (r *Root) ReadTemplate(rel string) ([]byte, fs.FileInfo, string, error) {
	t := *r
	t.exclude = slices.DeleteFunc(slices.Clone(r.exclude), func(pat string) bool {
		_, obsidian := ObsidianFilter(pat)
		return obsidian
	})
	return t.ReadNote(rel)
}

package watch

import (
	"path"
	"strings"

	"github.com/jarvis-mcp/jarvis/internal/vault"
)

// filter decides which vault-relative paths the watcher reports. It follows
// the indexer's rules (vault.Scan), so a change the indexer would not read
// never wakes it, and adds editor temp files, which come and go in every save.
type filter struct {
	exclude []string
}

// tempFile reports whether a file name is an editor's or office suite's
// scratch file: a change to one is always followed by a change to the real
// file (a rename over it, or a write), which is the one worth reporting.
// Names starting with '.' (".#note.md", ".note.md.swp") are hidden and never
// reach this check.
func tempFile(name string) bool {
	lower := strings.ToLower(name)
	return strings.HasPrefix(name, "~$") ||
		strings.HasSuffix(lower, ".tmp") ||
		strings.HasSuffix(lower, ".swp") ||
		strings.HasSuffix(lower, ".swx") ||
		strings.HasSuffix(name, "~")
}

// skipFolder reports whether the indexer leaves out the folder at rel.
func (f filter) skipFolder(rel string) bool {
	return vault.KeptOut(rel, true, f.exclude)
}

// skipFile reports whether a change to the file at rel can be ignored. A
// note is never a temp file, whatever its name.
func (f filter) skipFile(rel string) bool {
	if vault.KeptOut(rel, false, f.exclude) {
		return true
	}
	name := path.Base(rel)
	return !vault.IsNote(name) && tempFile(name)
}

// ignores reports whether a change at rel, a folder when dir is true, can be
// ignored: because it or one of its parent folders is left out of the index,
// or because it is a temp file. Events normally come only from watched
// folders, but a change to a left-out folder itself is seen in its parent,
// and a rename can carry a path across.
func (f filter) ignores(rel string, dir bool) bool {
	for i := 0; i < len(rel); i++ {
		if rel[i] == '/' && f.skipFolder(rel[:i]) {
			return true
		}
	}
	if dir {
		return f.skipFolder(rel)
	}
	return f.skipFile(rel)
}

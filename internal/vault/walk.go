package vault

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"sort"
	"strings"
	"syscall"
	"unicode/utf8"

	"github.com/bmatcuk/doublestar/v4"
	"golang.org/x/text/unicode/norm"
)

// MaxNoteSize is the largest note whose content is parsed. A bigger Markdown
// file is still recorded, so links to it resolve, but with a warning and
// without its content: such files are nearly always exports or logs, and
// parsing them would dominate the time and memory of an index run.
const MaxNoteSize = 8 << 20

// File is one file found in a vault.
type File struct {
	// Path is vault-relative with '/' separators, as Obsidian shows it.
	Path    string
	Size    int64
	ModTime int64 // Unix nanoseconds
	// Created is when the file was made (its birth time), in Unix
	// nanoseconds, where the system and the file system keep it: statx on
	// Linux, the birth time on macOS and the BSDs, the creation time on
	// Windows. Zero is unknown.
	Created int64
	// Note is true for Markdown files; everything else is an attachment.
	Note bool
	// Unreadable is set on a note the scan found this process may not read
	// (where the system says so cheaply: Unix), so that an index run reads
	// it again and says why it cannot, though its time and size are as
	// they were.
	Unreadable bool
}

// CannotRead begins the warning of a file that could not be read (no
// permission, gone, a hung disk): doctor tells these from problems in a
// note's text, since only the user's access can fix them.
const CannotRead = "cannot read: "

// Warning is a problem with one file that did not stop the rest of the vault.
type Warning struct {
	Path    string
	Message string
	// Unread is set when the scan could not see what is at Path, a file or
	// a folder, for a reason that does not say it is gone (no permission,
	// an I/O error, too many open files): what the index holds there and
	// beneath it is kept as last read.
	Unread bool
}

// KeptAsRead ends the warning of a file or folder that could not be read
// and whose notes the index keeps as they were last read.
const KeptAsRead = "; what was indexed there is kept as last read"

// unreadWarning is the warning of a path whose reading failed with err,
// when err does not say the path is gone (see Missing).
func unreadWarning(p string, err error) Warning {
	return Warning{Path: p, Message: CannotRead + ErrText(err) + KeptAsRead, Unread: true}
}

// Missing reports whether err says nothing is at a path any more: it does
// not exist, a folder on the way is no longer a folder, or a symbolic link
// stands where a folder was or loops. It is the one rule by which a failed
// read deletes: any other failure (no permission, an I/O error on a
// network or FUSE folder, too many open files) says nothing about what is
// there, and the index keeps what it read before.
func Missing(err error) bool {
	return errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR) || errors.Is(err, syscall.ELOOP)
}

// Unread is the set of paths a scan could not read (Warning.Unread).
type Unread map[string]bool

// UnreadIn gathers the paths of ws that the scan could not read.
func UnreadIn(ws []Warning) Unread {
	u := Unread{}
	for _, w := range ws {
		if w.Unread {
			u[w.Path] = true
		}
	}
	return u
}

// Covers reports whether the vault-relative path p is at or beneath a path
// the scan could not read, so that its absence from the scan says nothing.
func (u Unread) Covers(p string) bool {
	if len(u) == 0 {
		return false
	}
	for {
		if u[p] {
			return true
		}
		i := strings.LastIndexByte(p, '/')
		if i < 0 {
			return false
		}
		p = p[:i]
	}
}

// IsNote reports whether a file name is a Markdown note.
func IsNote(name string) bool {
	return strings.EqualFold(path.Ext(name), ".md")
}

// SkipDir reports whether a folder is never part of a vault's content:
// Obsidian hides every dot-folder (.obsidian, .trash, .git) and node_modules
// holds plugin sources that are not notes.
func SkipDir(name string) bool {
	return strings.HasPrefix(name, ".") || strings.EqualFold(name, "node_modules")
}

// Scan lists the notes and attachments of the vault at root, sorted by path.
// It skips hidden files and folders, node_modules and paths matching an
// exclude glob, and a symbolic link whose target is outside the vault or
// itself left out; a link to a folder is skipped, its target being listed
// where it really is. Problems with single files become warnings; only an
// unreadable root is an error. A file or folder that cannot be read but is
// not gone gets a warning marked Unread, and nothing beneath it is listed.
func Scan(ctx context.Context, root string, exclude []string) ([]File, []Warning, error) {
	r, err := OpenRoot(root, exclude)
	if err != nil {
		return nil, nil, err
	}
	return r.Scan(ctx)
}

// Scan lists the notes and attachments beneath r, as the function Scan
// does.
func (r *Root) Scan(ctx context.Context) ([]File, []Warning, error) {
	files, warnings, err := r.scan(ctx)
	if err != nil {
		return nil, nil, fmt.Errorf("scan vault %s: %w", r.dir, err)
	}
	sort.Slice(files, func(i, j int) bool { return files[i].Path < files[j].Path })
	return files, warnings, nil
}

// linkWarning says why a symbolic link found by Scan was skipped: it leads
// out of the vault or to what the vault leaves out, it is broken, or what
// it leads to could not be read, which keeps what was indexed through it.
func linkWarning(p string, err error) Warning {
	switch {
	case errors.Is(err, ErrOutside):
		return Warning{Path: p, Message: "symbolic link to outside the vault skipped"}
	case errors.Is(err, ErrLeftOut):
		var lo *LeftOutError
		if errors.As(err, &lo) && lo.Through != "" {
			return Warning{Path: p, Message: fmt.Sprintf("symbolic link to %q skipped: that path is left out because of %s", lo.Through, lo.Rule)}
		}
		return Warning{Path: p, Message: "symbolic link to a file the vault's rules leave out skipped"}
	case Missing(err):
		return Warning{Path: p, Message: "broken symbolic link skipped: " + ErrText(err)}
	}
	return unreadWarning(p, err)
}

// Excluded reports whether a vault-relative path matches an exclude glob.
// A pattern without '/' matches a file or folder name at any depth. The
// watcher uses it too, so that it ignores exactly what the index leaves out.
// A pattern made of a filter of Obsidian's excluded files setting
// (ObsidianPattern) matches as Obsidian matches it (obsidianExcludes).
//
// Pattern and path are compared folded (FoldName: lower case, composed
// Unicode), as the disks of macOS and Windows compare names: there
// "archive/secret.md", or "Privé" typed decomposed, opens the folder
// "Archive" or "Privé" that a case- or form-sensitive match would let
// through. On a disk that tells them apart, the pattern then also covers
// names that differ only so: leaving out too much, never too little.
func Excluded(rel string, patterns []string) bool {
	_, ok := excludedBy(rel, false, patterns)
	return ok
}

// excludedBy is Excluded of the entry at rel, a folder when dir is true,
// with the first pattern that matches it.
func excludedBy(rel string, dir bool, patterns []string) (string, bool) {
	if len(patterns) == 0 {
		return "", false // most vaults: no folding on every name scanned
	}
	folded := FoldName(rel)
	for _, written := range patterns {
		if filter, ok := strings.CutPrefix(written, obsidianMark); ok {
			if obsidianExcludes(filter, rel, dir) {
				return written, true
			}
			continue
		}
		pat := patternKey(written)
		if pat == "" {
			continue
		}
		if !strings.Contains(pat, "/") {
			if ok, _ := doublestar.Match(pat, path.Base(folded)); ok {
				return written, true
			}
			continue
		}
		if ok, _ := doublestar.Match(pat, folded); ok {
			return written, true
		}
	}
	return "", false
}

// patternKey is an exclude pattern as Excluded compares it: without a
// leading or trailing "/", folded; "" for a pattern that matches nothing.
// An Obsidian filter (ObsidianPattern) keeps its slashes, which are part
// of a prefix, and a regular expression is kept as written.
func patternKey(pat string) string {
	if filter, ok := strings.CutPrefix(pat, obsidianMark); ok {
		if filter == "" {
			return ""
		}
		if _, isRegexp := obsidianRegexp(filter); isRegexp {
			return pat
		}
		return obsidianMark + FoldName(filter)
	}
	return FoldName(strings.TrimSuffix(strings.TrimPrefix(pat, "/"), "/"))
}

// MaxPathChars is the longest vault-relative path jarvis takes, in
// characters: a file at a longer path is left out of the vault (KeptOut),
// so that no answer names a path the tools' path arguments, bounded by it,
// could not take back.
const MaxPathChars = 1000

// tooLong reports whether a path is longer than MaxPathChars characters
// in its composed form, so that the same name written decomposed (as
// macOS may, or as read-note tries it) is judged the same.
func tooLong(rel string) bool {
	return utf8.RuneCountInString(rel) > MaxPathChars && utf8.RuneCountInString(norm.NFC.String(rel)) > MaxPathChars
}

// scanKeptOut is KeptOut as the scans apply it to each entry they meet,
// with the warning of an entry left out for a reason the user did not
// choose (a path too long), or "" for one the vault's rules leave out.
func scanKeptOut(rel string, dir bool, patterns []string) (out bool, warning string) {
	if !KeptOut(rel, dir, patterns) {
		return false, ""
	}
	if tooLong(rel) {
		return true, fmt.Sprintf("path longer than %d characters left out: no tool could name it", MaxPathChars)
	}
	return true, ""
}

// KeptOut reports whether Scan leaves out the entry at the vault-relative
// path rel itself, a folder when dir is true, leaving its parents aside:
// a path longer than MaxPathChars, a hidden name, node_modules for a
// folder, or an exclude pattern (the config's, or Obsidian's excluded
// files: ObsidianPattern). It is
// the one rule; LeftOut applies it to a path and every folder above, the
// scans and the watcher to each entry they meet.
func KeptOut(rel string, dir bool, patterns []string) bool {
	_, out := keptOutBy(rel, dir, patterns)
	return out
}

// LeftOut reports whether Scan leaves out the file at the vault-relative
// path rel: the file or a folder above it is hidden, skipped or matches an
// exclude pattern. Code that reads a file by path, rather than from a
// scan, asks it so as never to show what the index keeps out.
func LeftOut(rel string, patterns []string) bool {
	_, out := LeftOutBy(rel, patterns)
	return out
}

// LinkStem is the target a wikilink gives for the file at p, by path: a
// note's path without its ".md", which Obsidian adds, and any other file's
// whole, as Obsidian needs it ("Assets/logo.png").
func LinkStem(p string) string {
	if IsNote(p) {
		return p[:len(p)-len(".md")]
	}
	return p
}

// TitleFromPath is the title of a note without a frontmatter title: its file
// name without the extension.
func TitleFromPath(p string) string {
	return path.Base(LinkStem(p))
}

// ErrText is the reason in an error from the file system without the path,
// which a warning names already.
func ErrText(err error) string {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err.Error()
	}
	return err.Error()
}

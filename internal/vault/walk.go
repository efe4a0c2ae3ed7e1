package vault

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"

	"github.com/bmatcuk/doublestar/v4"
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
	// Note is true for Markdown files; everything else is an attachment.
	Note bool
}

// Warning is a problem with one file that did not stop the rest of the vault.
type Warning struct {
	Path    string
	Message string
}

// IsNote reports whether a file name is a Markdown note.
func IsNote(name string) bool {
	return strings.EqualFold(path.Ext(name), ".md")
}

// SkipDir reports whether a folder is never part of a vault's content:
// Obsidian hides every dot-folder (.obsidian, .trash, .git) and node_modules
// holds plugin sources that are not notes.
func SkipDir(name string) bool {
	return strings.HasPrefix(name, ".") || name == "node_modules"
}

// Scan lists the notes and attachments of the vault at root, sorted by path.
// It skips hidden files and folders, node_modules and paths matching an
// exclude glob, and never follows a symbolic link out of the vault. Problems
// with single files become warnings; only an unreadable root is an error.
func Scan(ctx context.Context, root string, exclude []string) ([]File, []Warning, error) {
	for _, pat := range exclude {
		if !doublestar.ValidatePattern(pat) {
			return nil, nil, fmt.Errorf("exclude pattern %q is not a valid glob", pat)
		}
	}
	st, err := os.Stat(root)
	if err != nil {
		return nil, nil, fmt.Errorf("vault folder: %w", err)
	}
	if !st.IsDir() {
		return nil, nil, fmt.Errorf("vault folder %s is not a folder", root)
	}
	realRoot, err := filepath.EvalSymlinks(root)
	if err != nil {
		return nil, nil, fmt.Errorf("vault folder: %w", err)
	}
	// A vault reached through a symbolic link (~/Notes -> /Volumes/...)
	// is walked from where it really is: WalkDir does not enter a link
	// given as its root.
	root = realRoot

	var files []File
	var warnings []Warning
	err = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if ctxErr := ctx.Err(); ctxErr != nil {
			return ctxErr
		}
		rel, relErr := filepath.Rel(root, p)
		if relErr != nil {
			return relErr
		}
		rel = filepath.ToSlash(rel)
		if err != nil {
			if rel == "." {
				return err
			}
			warnings = append(warnings, Warning{Path: rel, Message: "cannot read: " + ErrText(err)})
			if d != nil && d.IsDir() {
				return fs.SkipDir
			}
			return nil
		}
		if rel == "." {
			return nil
		}
		name := d.Name()
		if d.IsDir() {
			if SkipDir(name) || Excluded(rel, exclude) {
				return fs.SkipDir
			}
			return nil
		}
		if strings.HasPrefix(name, ".") || Excluded(rel, exclude) {
			return nil
		}
		info, err := d.Info()
		if err != nil {
			warnings = append(warnings, Warning{Path: rel, Message: "cannot read: " + ErrText(err)})
			return nil
		}
		if info.Mode()&fs.ModeSymlink != 0 {
			target, ok, w := followLink(p, realRoot)
			if !ok {
				if w != "" {
					warnings = append(warnings, Warning{Path: rel, Message: w})
				}
				return nil
			}
			info = target
		}
		if !info.Mode().IsRegular() {
			return nil
		}
		f := File{Path: rel, Size: info.Size(), ModTime: info.ModTime().UnixNano(), Note: IsNote(name)}
		files = append(files, f)
		return nil
	})
	if err != nil {
		return nil, nil, fmt.Errorf("scan vault %s: %w", root, err)
	}
	sort.Slice(files, func(i, j int) bool { return files[i].Path < files[j].Path })
	return files, warnings, nil
}

// followLink resolves a symbolic link to a file. Links that leave the vault
// are skipped with a warning; links to folders are skipped because their
// target is indexed where it really is (and following them risks loops).
func followLink(p, realRoot string) (fs.FileInfo, bool, string) {
	target, err := filepath.EvalSymlinks(p)
	if err != nil {
		return nil, false, "broken symbolic link skipped: " + ErrText(err)
	}
	rel, err := filepath.Rel(realRoot, target)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) || filepath.IsAbs(rel) {
		return nil, false, "symbolic link to outside the vault skipped"
	}
	info, err := os.Stat(target)
	if err != nil {
		return nil, false, "broken symbolic link skipped: " + ErrText(err)
	}
	if info.IsDir() {
		return nil, false, ""
	}
	return info, true, ""
}

// Excluded reports whether a vault-relative path matches an exclude glob.
// A pattern without '/' matches a file or folder name at any depth. The
// watcher uses it too, so that it ignores exactly what the index leaves out.
func Excluded(rel string, patterns []string) bool {
	for _, pat := range patterns {
		pat = strings.TrimSuffix(strings.TrimPrefix(pat, "/"), "/")
		if pat == "" {
			continue
		}
		if !strings.Contains(pat, "/") {
			if ok, _ := doublestar.Match(pat, path.Base(rel)); ok {
				return true
			}
			continue
		}
		if ok, _ := doublestar.Match(pat, rel); ok {
			return true
		}
	}
	return false
}

// LeftOut reports whether Scan leaves out the file at the vault-relative
// path rel: the file or a folder above it is hidden, skipped or matches an
// exclude pattern. Code that reads a file by path, rather than from a
// scan, asks it so as never to show what the index keeps out.
func LeftOut(rel string, patterns []string) bool {
	parts := strings.Split(path.Clean(strings.ReplaceAll(rel, `\`, "/")), "/")
	for i, part := range parts {
		dir := i < len(parts)-1
		if (dir && SkipDir(part)) || strings.HasPrefix(part, ".") || part == ".." {
			return true
		}
		if Excluded(strings.Join(parts[:i+1], "/"), patterns) {
			return true
		}
	}
	return false
}

// ReadNote reads a note for parsing. A note over MaxNoteSize is not read: the
// returned warning says so and the content is nil.
func ReadNote(root, rel string, size int64) ([]byte, string, error) {
	if size > MaxNoteSize {
		return nil, fmt.Sprintf("note is %d MB, over the %d MB limit: indexed by name only", size>>20, MaxNoteSize>>20), nil
	}
	data, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(rel)))
	if err != nil {
		return nil, "", fmt.Errorf("read %s: %w", rel, err)
	}
	if len(data) > MaxNoteSize {
		return nil, fmt.Sprintf("note is %d MB, over the %d MB limit: indexed by name only", len(data)>>20, MaxNoteSize>>20), nil
	}
	return data, "", nil
}

// TitleFromPath is the title of a note without a frontmatter title: its file
// name without the extension.
func TitleFromPath(p string) string {
	base := path.Base(p)
	if IsNote(base) {
		return base[:len(base)-len(".md")]
	}
	return base
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

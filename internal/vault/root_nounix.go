//go:build !unix

package vault

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
	"syscall"
)

// open resolves the names in parts a link at a time, each link's target
// checked by linkTarget and LeftOut, then opens the resolved path through
// os.Root, which the operating system keeps beneath the vault folder.
// Where the system can say where the opened file is (Windows), that is
// checked too, so that a name changed between resolving and opening cannot
// lead to what the vault excludes.
func (r *Root) open(parts []string) (*os.File, string, error) {
	root, err := os.OpenRoot(r.dir)
	if err != nil {
		return nil, "", err
	}
	defer root.Close()
	asked := strings.Join(parts, "/")
	links := 0
walk:
	for {
		rel := strings.Join(parts, "/")
		for i := range parts {
			prefix := filepath.FromSlash(strings.Join(parts[:i+1], "/"))
			st, err := root.Lstat(prefix)
			if err != nil {
				return nil, "", err
			}
			if st.Mode()&fs.ModeSymlink == 0 {
				continue
			}
			if links++; links > maxLinks {
				return nil, "", &fs.PathError{Op: "open", Path: rel, Err: syscall.ELOOP}
			}
			target, err := root.Readlink(prefix)
			if err != nil {
				return nil, "", err
			}
			if parts, err = r.linkTarget(parts[:i], target, parts[i+1:]); err != nil {
				return nil, "", err
			}
			if len(parts) == 0 {
				return nil, "", ErrNotRegular
			}
			if err := r.leftOut(strings.Join(parts, "/"), asked); err != nil {
				return nil, "", err // where the link leads is kept out
			}
			continue walk
		}
		f, err := root.Open(filepath.FromSlash(rel))
		if err != nil {
			return nil, "", err
		}
		where, known := openedPath(f)
		if !known && mustKnowPath {
			f.Close() // a junction cannot be told from a folder otherwise
			return nil, "", &fs.PathError{Op: "open", Path: rel, Err: errors.New("the system cannot say where the opened file is")}
		}
		if known {
			inside, ok := r.underRoot(where)
			if !ok {
				f.Close()
				return nil, "", ErrLeftOut
			}
			if err := r.leftOut(inside, rel); err != nil {
				f.Close()
				return nil, "", err
			}
		}
		return f, rel, nil
	}
}

// scan walks the vault folder by name; links are described by what Open
// would open.
func (r *Root) scan(ctx context.Context) ([]File, []Warning, error) {
	var files []File
	var warnings []Warning
	err := filepath.WalkDir(r.dir, func(p string, d fs.DirEntry, err error) error {
		if ctxErr := ctx.Err(); ctxErr != nil {
			return ctxErr
		}
		rel, relErr := filepath.Rel(r.dir, p)
		if relErr != nil {
			return relErr
		}
		rel = filepath.ToSlash(rel)
		if err != nil {
			if rel == "." {
				return err
			}
			// A folder that cannot be listed is unread, not empty; one
			// gone since its parent was listed is gone.
			if !Missing(err) {
				warnings = append(warnings, unreadWarning(rel, err))
			}
			if d != nil && d.IsDir() {
				return fs.SkipDir
			}
			return nil
		}
		if rel == "." {
			return nil
		}
		out, warning := scanKeptOut(rel, d.IsDir(), r.exclude)
		if warning != "" {
			warnings = append(warnings, Warning{Path: rel, Message: warning})
		}
		if d.IsDir() {
			if out || strings.Count(rel, "/")+1 >= maxDepth {
				return fs.SkipDir
			}
			return nil
		}
		if out {
			return nil
		}
		info, err := d.Info()
		if err != nil {
			if !Missing(err) {
				warnings = append(warnings, unreadWarning(rel, err))
			}
			return nil
		}
		if info.Mode()&fs.ModeSymlink != 0 {
			target, _, err := r.Stat(rel)
			if errors.Is(err, ErrNotRegular) {
				return nil
			}
			if err != nil {
				warnings = append(warnings, linkWarning(rel, err))
				return nil
			}
			info = target
		}
		if !info.Mode().IsRegular() {
			return nil
		}
		files = append(files, File{Path: rel, Size: info.Size(), ModTime: info.ModTime().UnixNano(), Created: infoCreated(info), Note: IsNote(path.Base(rel))})
		return nil
	})
	return files, warnings, err
}

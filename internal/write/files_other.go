//go:build !unix

package write

import (
	"cmp"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"

	"github.com/jarvis-mcp/jarvis/internal/vault"
)

// folder is a folder of the vault, reached through os.Root, which the
// system keeps beneath the vault folder. Each name on the way is looked at
// first and a link (or a junction, which Lstat does not show as a folder)
// refused; a name changed between that look and its use can still lead
// elsewhere inside the vault, a window Unix systems do not have.
type folder struct {
	root *os.Root // the vault folder, shared by every folder of one Apply
	top  bool
	rel  string
}

func openTop(dir string) (*folder, error) {
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, err
	}
	return &folder{root: root, top: true}, nil
}

func (f *folder) close() {
	if f.top {
		f.root.Close()
	}
}

func (f *folder) path(name string) string { return path.Join(f.rel, name) }

func (f *folder) native(name string) string { return filepath.FromSlash(f.path(name)) }

func (f *folder) sub(name string) (*folder, error) {
	st, err := f.stat(name)
	switch {
	case err != nil:
		return nil, err
	case st.kind == kindAbsent:
		return nil, &fs.PathError{Op: "open", Path: f.path(name), Err: fs.ErrNotExist}
	case st.kind == kindLink:
		return nil, errLink
	case st.kind != kindFolder:
		return nil, errNotFolder
	}
	return &folder{root: f.root, rel: f.path(name)}, nil
}

func (f *folder) mkdir(name string) error { return f.root.Mkdir(f.native(name), 0o777) }

func (f *folder) stat(name string) (entry, error) {
	info, err := f.root.Lstat(f.native(name))
	if errors.Is(err, fs.ErrNotExist) {
		return entry{kind: kindAbsent}, nil
	}
	if err != nil {
		return entry{}, err
	}
	return infoEntry(info), nil
}

func infoEntry(info fs.FileInfo) entry {
	e := entry{perm: info.Mode().Perm(), uid: -1, gid: -1}
	switch m := info.Mode(); {
	case m&fs.ModeSymlink != 0:
		e.kind = kindLink
	case m.IsRegular():
		e.kind = kindFile
	case m.IsDir():
		e.kind = kindFolder
	default:
		e.kind = kindOther // a junction or a device
	}
	return e
}

func (f *folder) read(name string) ([]byte, entry, error) {
	st, err := f.stat(name)
	if err != nil || st.kind != kindFile {
		return nil, st, err
	}
	file, err := f.root.Open(f.native(name))
	if err != nil {
		return nil, entry{}, err
	}
	defer file.Close()
	info, err := file.Stat()
	if err != nil {
		return nil, entry{}, err
	}
	if e := infoEntry(info); e.kind != kindFile {
		return nil, e, nil
	}
	if info.Size() > vault.MaxNoteSize {
		return nil, st, errTooBig(info.Size())
	}
	data, err := io.ReadAll(io.LimitReader(file, vault.MaxNoteSize+1))
	if err != nil {
		return nil, st, err
	}
	if len(data) > vault.MaxNoteSize {
		return nil, st, errTooBig(int64(len(data)))
	}
	return data, st, nil
}

func (f *folder) writeTemp(data []byte, like *entry) (string, error) {
	for range 10 {
		name := tempName()
		file, err := f.root.OpenFile(f.native(name), os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		if err != nil {
			return "", err
		}
		_, err = file.Write(data)
		if err == nil {
			err = file.Sync()
		}
		if cerr := file.Close(); err == nil {
			err = cerr
		}
		if err == nil && like != nil {
			err = f.root.Chmod(f.native(name), like.perm)
		}
		if err != nil {
			f.root.Remove(f.native(name))
			return "", err
		}
		return name, nil
	}
	return "", fmt.Errorf("create a temporary file in %q: every name tried was taken", f.rel)
}

func (f *folder) remove(name string) error { return f.root.Remove(f.native(name)) }

func (f *folder) rmdir(name string) error { return f.root.Remove(f.native(name)) }

// sync does nothing: these systems do not sync a folder; a rename is
// recorded by the file system's own journal.
func (f *folder) sync() error { return nil }

func renameOver(from *folder, a string, to *folder, b string) error {
	return from.root.Rename(from.native(a), to.native(b))
}

// renameNew looks for a file at to/b, then renames: unlike on Unix, a
// file put there in between by another program is replaced.
func renameNew(from *folder, a string, to *folder, b string) error {
	st, err := to.stat(b)
	if err != nil {
		return err
	}
	if st.kind != kindAbsent {
		return &fs.PathError{Op: "rename", Path: to.path(b), Err: fs.ErrExist}
	}
	return renameOver(from, a, to, b)
}

// lockVault takes no lock between processes here: two jarvis processes
// writing one vault are kept apart by the etag check made again just
// before each rename, not by a lock.
func lockVault(string) (func(), error) { return func() {}, nil }

// names lists the names in f.
func (f *folder) names() ([]string, error) {
	d, err := f.root.Open(filepath.FromSlash(cmp.Or(f.rel, ".")))
	if err != nil {
		return nil, err
	}
	defer d.Close()
	return d.Readdirnames(-1)
}

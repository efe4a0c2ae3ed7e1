//go:build unix

package write

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"

	"golang.org/x/sys/unix"

	"github.com/jarvis-mcp/jarvis/internal/vault"
)

// folder is a folder of the vault held open, reached from the vault folder
// one name at a time, each opened relative to the one above with
// O_NOFOLLOW: a symbolic link anywhere on the way is refused by the kernel
// itself, and what is done in the folder afterwards (openat, renameat,
// unlinkat) happens in it whatever its path is changed to meanwhile.
type folder struct {
	fd  int
	rel string // vault-relative; "" for the vault folder
}

func openTop(dir string) (*folder, error) {
	fd, err := unix.Open(dir, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, &fs.PathError{Op: "open", Path: dir, Err: err}
	}
	return &folder{fd: fd}, nil
}

func (f *folder) close() { unix.Close(f.fd) }

func (f *folder) path(name string) string { return path.Join(f.rel, name) }

// sub opens the folder name in f: fs.ErrNotExist when there is none,
// errLink for a symbolic link, errNotFolder for anything else.
func (f *folder) sub(name string) (*folder, error) {
	fd, err := unix.Openat(f.fd, name, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if err == nil {
		return &folder{fd: fd, rel: f.path(name)}, nil
	}
	st, serr := f.stat(name)
	switch {
	case serr != nil:
		return nil, serr
	case st.kind == kindLink:
		return nil, errLink
	case st.kind != kindAbsent && st.kind != kindFolder:
		return nil, errNotFolder
	}
	return nil, &fs.PathError{Op: "open", Path: f.path(name), Err: err}
}

func (f *folder) mkdir(name string) error {
	if err := unix.Mkdirat(f.fd, name, 0o777); err != nil { // less the umask, as Obsidian's own folders
		return &fs.PathError{Op: "mkdir", Path: f.path(name), Err: err}
	}
	return nil
}

// stat describes name in f without following a link.
func (f *folder) stat(name string) (entry, error) {
	var st unix.Stat_t
	if err := unix.Fstatat(f.fd, name, &st, unix.AT_SYMLINK_NOFOLLOW); err != nil {
		if errors.Is(err, unix.ENOENT) {
			return entry{kind: kindAbsent}, nil
		}
		return entry{}, &fs.PathError{Op: "stat", Path: f.path(name), Err: err}
	}
	return statEntry(&st), nil
}

func statEntry(st *unix.Stat_t) entry {
	e := entry{perm: fs.FileMode(st.Mode & 0o777), uid: int(st.Uid), gid: int(st.Gid)}
	switch st.Mode & unix.S_IFMT {
	case unix.S_IFREG:
		e.kind = kindFile
	case unix.S_IFDIR:
		e.kind = kindFolder
	case unix.S_IFLNK:
		e.kind = kindLink
	default:
		e.kind = kindOther
	}
	return e
}

// read reads the regular file name in f, refusing a link, and bounded by
// vault.MaxNoteSize. A file that is not there is entry kindAbsent.
func (f *folder) read(name string) ([]byte, entry, error) {
	fd, err := unix.Openat(f.fd, name, unix.O_RDONLY|unix.O_NOFOLLOW|unix.O_NONBLOCK|unix.O_NOCTTY|unix.O_CLOEXEC, 0)
	if err != nil {
		st, serr := f.stat(name)
		if serr != nil || st.kind == kindAbsent || st.kind == kindLink {
			return nil, st, serr
		}
		return nil, entry{}, &fs.PathError{Op: "open", Path: f.path(name), Err: err}
	}
	file := os.NewFile(uintptr(fd), f.path(name))
	defer file.Close()
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return nil, entry{}, &fs.PathError{Op: "stat", Path: f.path(name), Err: err}
	}
	e := statEntry(&st)
	if e.kind != kindFile {
		return nil, e, nil
	}
	if st.Size > vault.MaxNoteSize {
		return nil, e, errTooBig(st.Size)
	}
	data, err := io.ReadAll(io.LimitReader(file, vault.MaxNoteSize+1))
	if err != nil {
		return nil, e, &fs.PathError{Op: "read", Path: f.path(name), Err: err}
	}
	if len(data) > vault.MaxNoteSize {
		return nil, e, errTooBig(int64(len(data)))
	}
	return data, e, nil
}

// writeTemp writes data to a new hidden file in f, synced to disk, with
// the permissions (and, where the process may, the owner) of like, or
// 0644 less the umask when like is nil, and returns its name. It never
// opens an existing file or follows a link (O_EXCL).
func (f *folder) writeTemp(data []byte, like *entry) (string, error) {
	for range 10 {
		name := tempName()
		fd, err := unix.Openat(f.fd, name, unix.O_WRONLY|unix.O_CREAT|unix.O_EXCL|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0o644)
		if errors.Is(err, unix.EEXIST) {
			continue
		}
		if err != nil {
			return "", &fs.PathError{Op: "create", Path: f.path(name), Err: err}
		}
		file := os.NewFile(uintptr(fd), f.path(name))
		err = fillTemp(file, fd, data, like)
		if cerr := file.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			unix.Unlinkat(f.fd, name, 0)
			return "", err
		}
		return name, nil
	}
	return "", fmt.Errorf("create a temporary file in %q: every name tried was taken", f.rel)
}

func fillTemp(file *os.File, fd int, data []byte, like *entry) error {
	if _, err := file.Write(data); err != nil {
		return err
	}
	if like != nil {
		var st unix.Stat_t
		if unix.Fstat(fd, &st) == nil && (int(st.Uid) != like.uid || int(st.Gid) != like.gid) {
			_ = unix.Fchown(fd, like.uid, like.gid) // only a privileged writer may; the content matters more
		}
		if err := unix.Fchmod(fd, uint32(like.perm)); err != nil {
			return &fs.PathError{Op: "chmod", Path: file.Name(), Err: err}
		}
	}
	return file.Sync()
}

func (f *folder) remove(name string) error {
	if err := unix.Unlinkat(f.fd, name, 0); err != nil {
		return &fs.PathError{Op: "remove", Path: f.path(name), Err: err}
	}
	return nil
}

func (f *folder) rmdir(name string) error {
	return unix.Unlinkat(f.fd, name, unix.AT_REMOVEDIR)
}

func (f *folder) sync() error {
	if err := unix.Fsync(f.fd); err != nil && !errors.Is(err, unix.EINVAL) { // EINVAL: a file system that cannot sync folders
		return &fs.PathError{Op: "sync", Path: f.rel, Err: err}
	}
	return nil
}

// renameOver puts the file from/a in place of to/b, replacing what is
// there in one step.
func renameOver(from *folder, a string, to *folder, b string) error {
	if err := unix.Renameat(from.fd, a, to.fd, b); err != nil {
		return &fs.PathError{Op: "rename", Path: to.path(b), Err: err}
	}
	return nil
}

// errNoReplaceUnsupported says the file system cannot rename without
// replacing in one step.
var errNoReplaceUnsupported = errors.New("the file system cannot rename without replacing")

// noReplace is renameNoReplace; tests take it away to try the way of the
// systems and file systems that lack it.
var noReplace = renameNoReplace

// renameNew moves from/a to to/b only if nothing is at to/b, in one step
// where the system can (renameat2 on Linux), else by a hard link and an
// unlink; an error matching fs.ErrExist when something is there.
func renameNew(from *folder, a string, to *folder, b string) error {
	err := noReplace(from.fd, a, to.fd, b)
	if errors.Is(err, errNoReplaceUnsupported) {
		if err = unix.Linkat(from.fd, a, to.fd, b, 0); err == nil {
			if err = unix.Unlinkat(from.fd, a, 0); err != nil {
				unix.Unlinkat(to.fd, b, 0)
			}
		}
	}
	if err != nil {
		return &fs.PathError{Op: "rename", Path: to.path(b), Err: err}
	}
	return nil
}

// lockVault takes the lock every jarvis process writing the vault at the
// real path dir holds from its first check to its last rename, so that of
// two writes with the same etag, even from two processes, exactly one
// wins. The lock is an flock on a file in the system's temporary folder,
// named by the vault's path: nothing is written into the vault. It is
// opened read-only, never through a link, so that any user's process can
// take it and no planted link makes it write anywhere.
func lockVault(dir string) (func(), error) {
	sum := sha256.Sum256([]byte(dir))
	name := filepath.Join(os.TempDir(), "jarvis-write-"+hex.EncodeToString(sum[:8])+".lock")
	fd, err := unix.Open(name, unix.O_RDONLY|unix.O_CREAT|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0o644)
	if err != nil {
		return nil, fmt.Errorf("open the vault's write lock %s: %w", name, err)
	}
	for {
		err = unix.Flock(fd, unix.LOCK_EX)
		if !errors.Is(err, unix.EINTR) {
			break
		}
	}
	if err != nil {
		unix.Close(fd)
		return nil, fmt.Errorf("take the vault's write lock %s: %w", name, err)
	}
	return func() { unix.Close(fd) }, nil
}

// names lists the names in f, read through a description of the folder
// of its own, so that f's own is not moved along.
func (f *folder) names() ([]string, error) {
	fd, err := unix.Openat(f.fd, ".", unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, &fs.PathError{Op: "open", Path: f.rel, Err: err}
	}
	d := os.NewFile(uintptr(fd), f.rel)
	defer d.Close()
	names, err := d.Readdirnames(-1)
	if err != nil {
		return nil, &fs.PathError{Op: "list", Path: f.rel, Err: err}
	}
	return names, nil
}

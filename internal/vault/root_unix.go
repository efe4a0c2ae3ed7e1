//go:build unix

package vault

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"strings"
	"time"

	"golang.org/x/sys/unix"
)

// openFlags open a file for reading without side effects: no controlling
// terminal, and no wait on a pipe that has no writer.
const openFlags = unix.O_RDONLY | unix.O_CLOEXEC | unix.O_NOCTTY | unix.O_NONBLOCK

// open opens the file the names in parts lead to, beneath the vault folder.
// Where the kernel can refuse every symbolic link on the way itself
// (openat2 on Linux), one call does it; when a link is on the way, the path
// is walked a name at a time, each opened relative to the folder above it
// with O_NOFOLLOW, and a link is read and resolved by linkTarget, which
// keeps it in the vault, and by LeftOut, which keeps it to what the vault
// shows.
func (r *Root) open(parts []string) (*os.File, string, error) {
	rootFD, err := unix.Open(r.dir, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, "", &fs.PathError{Op: "open", Path: r.dir, Err: err}
	}
	defer unix.Close(rootFD)
	rel := strings.Join(parts, "/")
	asked := rel
	if fd, err := openBeneath(rootFD, rel); err == nil {
		return r.checked(fd, rel)
	} else if !errors.Is(err, unix.ELOOP) && !errors.Is(err, errNoOpenat2) {
		return nil, "", &fs.PathError{Op: "open", Path: rel, Err: err}
	}
	links := 0
walk:
	for {
		rel = strings.Join(parts, "/")
		dirFD := rootFD
		closeDir := func() {
			if dirFD != rootFD {
				unix.Close(dirFD)
			}
		}
		for i, name := range parts {
			last := i == len(parts)-1
			flags := openFlags | unix.O_NOFOLLOW
			if !last {
				flags |= unix.O_DIRECTORY
			}
			fd, err := unix.Openat(dirFD, name, flags, 0)
			if err == nil {
				closeDir()
				if last {
					return r.checked(fd, rel)
				}
				dirFD = fd
				continue
			}
			var st unix.Stat_t
			if unix.Fstatat(dirFD, name, &st, unix.AT_SYMLINK_NOFOLLOW) != nil || st.Mode&unix.S_IFMT != unix.S_IFLNK {
				closeDir()
				return nil, "", &fs.PathError{Op: "open", Path: strings.Join(parts[:i+1], "/"), Err: err}
			}
			links++
			if links > maxLinks {
				closeDir()
				return nil, "", &fs.PathError{Op: "open", Path: rel, Err: unix.ELOOP}
			}
			target, err := readlinkat(dirFD, name)
			closeDir()
			if err != nil {
				return nil, "", &fs.PathError{Op: "readlink", Path: strings.Join(parts[:i+1], "/"), Err: err}
			}
			if parts, err = r.linkTarget(parts[:i], target, parts[i+1:]); err != nil {
				return nil, "", err
			}
			if len(parts) == 0 {
				return nil, "", ErrNotRegular // a link to the vault folder itself
			}
			if err := r.leftOut(strings.Join(parts, "/"), asked); err != nil {
				return nil, "", err // where the link leads is kept out
			}
			continue walk
		}
	}
}

// checked makes fd a file, after asking the kernel where the opened file
// really is, where it can say (Linux's /proc): a folder renamed while the
// path was walked must not carry the open outside the vault or into what
// it excludes.
func (r *Root) checked(fd int, rel string) (*os.File, string, error) {
	if where, ok := askKernel(fd); ok {
		inside, ok := r.underRoot(strings.TrimSuffix(where, " (deleted)"))
		if !ok {
			unix.Close(fd)
			return nil, "", ErrOutside
		}
		if err := r.leftOut(inside, rel); err != nil {
			unix.Close(fd)
			return nil, "", err
		}
	}
	return os.NewFile(uintptr(fd), path.Join(r.dir, rel)), rel, nil
}

// finalPath is dir: the kernel names an open file by the same real path.
func finalPath(dir string) string { return dir }

// askKernel is openedPath; tests turn it off to try the walk alone, as
// it runs on systems that cannot say.
var askKernel = openedPath

func readlinkat(dirFD int, name string) (string, error) {
	for size := 256; size <= 1<<16; size *= 4 {
		buf := make([]byte, size)
		n, err := unix.Readlinkat(dirFD, name, buf)
		if err != nil {
			return "", err
		}
		if n < size {
			return string(buf[:n]), nil
		}
	}
	return "", unix.ENAMETOOLONG
}

// scan walks the vault folder a folder at a time, each opened relative to
// its parent without following links, so that a folder swapped for a link
// while it is walked is not entered. Files are described by fstatat on the
// open folder; a symbolic link is described by what Open would open.
func (r *Root) scan(ctx context.Context) ([]File, []Warning, error) {
	rootFD, err := unix.Open(r.dir, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, nil, &fs.PathError{Op: "open", Path: r.dir, Err: err}
	}
	s := &scanner{r: r, ctx: ctx}
	err = s.dir(rootFD, "", 0)
	return s.files, s.warnings, err
}

// scanCalls are the calls scan makes on the folders it walks. Tests replace
// them to make one fail as a network disk, a FUSE folder or a full table of
// open files does, which the root that runs the tests cannot cause with
// permissions.
var scanCalls = struct {
	openat    func(dirFD int, name string, flags int, mode uint32) (int, error)
	describe  func(dirFD int, name string) (entry, error)
	readNames func(f *os.File) ([]string, error)
	// mayRead is access(2) for reading the name in the folder dirFD.
	mayRead func(dirFD int, name string) error
}{
	openat:    unix.Openat,
	describe:  describeAt,
	readNames: func(f *os.File) ([]string, error) { return f.Readdirnames(-1) },
	mayRead:   func(dirFD int, name string) error { return unix.Faccessat(dirFD, name, unix.R_OK, 0) },
}

// entry is what the scan reads of one name in a folder, the name itself
// and not what a symbolic link leads to: one call per name, statx on
// Linux (describeAt), fstatat elsewhere.
type entry struct {
	mode    uint32 // the type bits (unix.S_IFMT)
	nlink   uint64
	size    int64
	mtime   int64 // Unix nanoseconds
	created int64 // Unix nanoseconds; 0 when the system does not say
}

// fromStat is the entry of a name fstatat described, with its birth time
// where the system's stat gives one (statBirth).
func fromStat(st *unix.Stat_t) entry {
	return entry{mode: uint32(st.Mode), nlink: uint64(st.Nlink), size: st.Size, mtime: unixNano(st.Mtim), created: statBirth(st)}
}

// unixNano is a time the kernel gives in Unix nanoseconds.
func unixNano(ts unix.Timespec) int64 { return time.Unix(ts.Unix()).UnixNano() }

// birthNano is a birth time the kernel gives, in Unix nanoseconds, or 0
// for none: a file system that keeps no birth time reports zero, or -1
// seconds on macOS and FreeBSD.
func birthNano(sec, nsec int64) int64 {
	if sec < 0 || (sec == 0 && nsec == 0) {
		return 0
	}
	return time.Unix(sec, nsec).UnixNano()
}

type scanner struct {
	r        *Root
	ctx      context.Context
	files    []File
	warnings []Warning
}

// dir lists the open folder fd at the vault-relative path rel, and closes
// it. A folder that cannot be listed is unread, not empty: a listing cut
// short is not trusted either.
func (s *scanner) dir(fd int, rel string, depth int) error {
	f := os.NewFile(uintptr(fd), path.Join(s.r.dir, rel))
	names, err := scanCalls.readNames(f)
	if err != nil {
		f.Close()
		if rel == "" {
			return err
		}
		s.warnings = append(s.warnings, unreadWarning(rel, err))
		return nil
	}
	defer f.Close()
	for _, name := range names {
		if err := s.ctx.Err(); err != nil {
			return err
		}
		p := name
		if rel != "" {
			p = rel + "/" + name
		}
		st, err := scanCalls.describe(fd, name)
		if err != nil {
			if !Missing(err) { // else gone since it was listed
				s.warnings = append(s.warnings, unreadWarning(p, err))
			}
			continue
		}
		switch st.mode & unix.S_IFMT {
		case unix.S_IFDIR:
			if s.keptOut(p, true) {
				continue
			}
			if depth+1 >= maxDepth {
				s.warn(p, fmt.Sprintf("folder nested more than %d deep skipped", maxDepth))
				continue
			}
			sub, err := scanCalls.openat(fd, name, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
			if err != nil {
				// Missing: gone, or no longer a folder (a file or a link
				// in its place) since it was described.
				if !Missing(err) {
					s.warnings = append(s.warnings, unreadWarning(p, err))
				}
				continue
			}
			if err := s.dir(sub, p, depth+1); err != nil {
				return err
			}
		case unix.S_IFREG:
			if s.keptOut(p, false) {
				continue
			}
			note := IsNote(name)
			if note && st.nlink > 1 {
				s.warn(p, hardLinked(st.nlink))
			}
			// A note this process may not read: its rights may have changed
			// (chmod) with its time and size as they were, and it is read
			// again to say so. access(2) answers as an open would, groups
			// and ACLs included, for one call a note.
			unreadable := note && scanCalls.mayRead(fd, name) != nil
			s.files = append(s.files, File{Path: p, Size: st.size, ModTime: st.mtime, Created: st.created, Note: note, Unreadable: unreadable})
		case unix.S_IFLNK:
			if s.keptOut(p, false) {
				continue
			}
			s.link(p)
		}
	}
	return nil
}

// hardLinked is the warning of a note file with n hard links. Its other
// names cannot be listed, so nothing shows they are inside the vault: the
// note is indexed, and the user told that what it holds may be a file kept
// elsewhere, which a vault's exclusions and link checks do not reach.
func hardLinked(n uint64) string {
	return fmt.Sprintf("the note file has %d hard links: its content may be shared with a file outside the vault; indexed all the same", n)
}

// link lists the file the symbolic link at p leads to, described as Open
// opens it: its size and times are the target's.
func (s *scanner) link(p string) {
	f, err := s.r.Open(p)
	switch {
	case err == nil:
		created := openedCreated(int(f.Fd()))
		f.Close()
		s.files = append(s.files, File{Path: p, Size: f.Info.Size(), ModTime: f.Info.ModTime().UnixNano(), Created: created, Note: IsNote(p)})
	case errors.Is(err, ErrNotRegular):
		// A link to a folder: its target is scanned where it really is,
		// and following it risks loops.
	default:
		s.warnings = append(s.warnings, linkWarning(p, err))
	}
}

// keptOut reports whether the scan leaves out the entry at p, and warns
// of one left out for a reason the user did not choose.
func (s *scanner) keptOut(p string, dir bool) bool {
	out, warning := scanKeptOut(p, dir, s.r.exclude)
	if warning != "" {
		s.warn(p, warning)
	}
	return out
}

func (s *scanner) warn(p, msg string) {
	s.warnings = append(s.warnings, Warning{Path: p, Message: msg})
}

package vault

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/bmatcuk/doublestar/v4"
)

// Errors from Root for paths it will not open. Callers word them for the
// user; fs.ErrNotExist is returned for a file that is not there.
var (
	// ErrOutside is a path that leads outside the vault: absolute, with a
	// ".." part, or through a symbolic link whose target is outside.
	ErrOutside = errors.New("the path leads outside the vault")
	// ErrLinkOutside is ErrOutside for a path written inside the vault
	// that a symbolic link on it leads out of.
	ErrLinkOutside = fmt.Errorf("%w through a symbolic link", ErrOutside)
	// ErrLeftOut is a path the vault's rules keep out of jarvis: hidden,
	// excluded, or a link to such a file.
	ErrLeftOut = errors.New("the path is hidden or excluded from the vault")
	// ErrBadName is a path no file can have: one holding a NUL
	// character, or longer than MaxPathChars. The error says which.
	ErrBadName = errors.New("no file can have this path")
	// ErrNotRegular is a path to a folder, pipe, device or socket.
	ErrNotRegular = errors.New("not a regular file")
)

// maxNameBytes is the longest name of one file or folder the file systems
// a vault lives on allow (NAME_MAX on Linux and macOS; NTFS's 255
// characters are at least this).
const maxNameBytes = 255

// maxLinks bounds the symbolic links followed in resolving one path, as
// the kernel's own limit does, so that a loop of links ends.
const maxLinks = 40

// maxDepth bounds how deep Scan descends: each level holds a folder open,
// and a vault nested deeper than this is a hostile or broken one.
const maxDepth = 128

// Root is a vault folder from which files are opened by vault-relative
// path. Every open starts at the folder and goes down one name at a time
// without following a symbolic link blindly: a link is read, its target
// is checked against the vault's rules like any other path, and only then
// is it walked, again from the top. What is opened is therefore always a
// file beneath the folder that the rules let through, whatever the names
// are changed to while it happens: there is no check of a name followed by
// a second open of the same name.
type Root struct {
	dir     string // the folder's real path, symbolic links resolved
	final   string // the same as the system names it for an open file
	exclude []string
	// settings turns the rules round for ReadSettings: only files beneath
	// SettingsDir may be opened, links included.
	settings bool
}

// OpenRoot prepares the vault folder dir, with its exclude globs, for
// opening files beneath it.
func OpenRoot(dir string, exclude []string) (*Root, error) {
	for _, pat := range exclude {
		if !doublestar.ValidatePattern(pat) {
			return nil, fmt.Errorf("exclude pattern %q is not a valid glob", pat)
		}
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("vault folder: %w", err)
	}
	real, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return nil, fmt.Errorf("vault folder: %w", err)
	}
	st, err := os.Stat(real)
	if err != nil {
		return nil, fmt.Errorf("vault folder: %w", err)
	}
	if !st.IsDir() {
		return nil, fmt.Errorf("vault folder %s is a file, not a folder", dir)
	}
	return &Root{dir: real, final: finalPath(real), exclude: exclude}, nil
}

// Dir is the real path of the vault folder.
func (r *Root) Dir() string { return r.dir }

// Opened is a regular file opened beneath a Root.
type Opened struct {
	*os.File
	// Info is the opened file's own metadata, not that of whatever has
	// the name now.
	Info fs.FileInfo
	// Real is the vault-relative path the file was reached at once
	// symbolic links were followed; the path asked for when none was.
	Real string
}

// Open opens the regular file at the vault-relative path rel ('/'
// separators) for reading. It fails with ErrOutside, ErrLeftOut,
// ErrBadName, ErrNotRegular or an error matching fs.ErrNotExist.
func (r *Root) Open(rel string) (*Opened, error) {
	parts, err := splitRel(rel)
	if err != nil {
		return nil, err
	}
	if err := r.leftOut(strings.Join(parts, "/"), ""); err != nil {
		return nil, err
	}
	f, real, err := r.open(parts)
	if err != nil {
		return nil, err
	}
	info, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	if !info.Mode().IsRegular() {
		f.Close()
		return nil, ErrNotRegular
	}
	return &Opened{File: f, Info: info, Real: real}, nil
}

// Stat is what Open would open at rel: its metadata and real path.
func (r *Root) Stat(rel string) (fs.FileInfo, string, error) {
	f, err := r.Open(rel)
	if err != nil {
		return nil, "", err
	}
	f.Close()
	return f.Info, f.Real, nil
}

// ReadNote reads the note at rel for parsing, with the opened file's
// metadata. A note over MaxNoteSize is not read: the returned warning says
// so and the content is nil. The read is bounded whatever the file grows
// to while it happens.
func (r *Root) ReadNote(rel string) ([]byte, fs.FileInfo, string, error) {
	f, err := r.Open(rel)
	if err != nil {
		return nil, nil, "", err
	}
	defer f.Close()
	if size := f.Info.Size(); size > MaxNoteSize {
		return nil, f.Info, tooBig(size), nil
	}
	data, err := io.ReadAll(io.LimitReader(f, MaxNoteSize+1))
	if err != nil {
		return nil, f.Info, "", &fs.PathError{Op: "read", Path: rel, Err: err}
	}
	if len(data) > MaxNoteSize {
		return nil, f.Info, tooBig(int64(len(data))), nil
	}
	return data, f.Info, "", nil
}

// leftOut is the rule every open of r applies to a path, the path asked
// for, where a link leads and where the opened file really is: LeftOut, or
// for the settings reader anything not beneath SettingsDir. It is nil for
// a path let through, else ErrLeftOut, as a LeftOutError naming the rule
// (LeftOutBy) but for the settings reader; asked is the path asked for
// when rel is where it led instead, else "".
func (r *Root) leftOut(rel, asked string) error {
	if r.settings {
		if !strings.HasPrefix(rel, SettingsDir+"/") || tooLong(rel) {
			return ErrLeftOut
		}
		return nil
	}
	rule, out := LeftOutBy(rel, r.exclude)
	if !out {
		return nil
	}
	e := &LeftOutError{Rule: rule}
	if asked != "" && asked != rel {
		e.Through = rel
	}
	return e
}

// SettingsDir is the folder of a vault's Obsidian settings, hidden from
// every read but ReadSettings.
const SettingsDir = ".obsidian"

// MaxSettingsSize bounds a settings file read: Obsidian's own are a few
// kilobytes.
const MaxSettingsSize = 256 << 10

// ErrSettingsTooBig is a settings file over MaxSettingsSize.
var ErrSettingsTooBig = fmt.Errorf("the file is over %d KB", MaxSettingsSize>>10)

// ReadSettings reads the settings file at name beneath the vault's
// SettingsDir (such as "daily-notes.json"), bounded by MaxSettingsSize, by
// the same walk as every other open: a name or a link that leads out of
// SettingsDir is ErrLeftOut, or ErrOutside when it leaves the vault. A
// missing file matches fs.ErrNotExist.
func (r *Root) ReadSettings(name string) ([]byte, error) {
	s := *r
	s.settings = true
	f, err := s.Open(SettingsDir + "/" + name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if f.Info.Size() > MaxSettingsSize {
		return nil, ErrSettingsTooBig
	}
	data, err := io.ReadAll(io.LimitReader(f, MaxSettingsSize+1))
	if err != nil {
		return nil, &fs.PathError{Op: "read", Path: SettingsDir + "/" + name, Err: err}
	}
	if len(data) > MaxSettingsSize {
		return nil, ErrSettingsTooBig
	}
	return data, nil
}

func tooBig(size int64) string {
	return fmt.Sprintf("note is %d MB, over the %d MB limit, so search finds it by its name only, not by its text", size>>20, MaxNoteSize>>20)
}

// splitRel checks a vault-relative path and splits it into names. A path
// no file can have is ErrBadName; one that is empty, absolute, holds a
// volume name, or climbs above the vault folder is refused as leading
// outside. ".." is taken by the
// letter ("a/../b" is "b"): whatever "a" is, "b" is then opened from the
// vault folder with every check.
func splitRel(rel string) ([]string, error) {
	if strings.ContainsRune(rel, 0) {
		return nil, fmt.Errorf("%w: it holds a NUL character", ErrBadName)
	}
	for name := range strings.SplitSeq(rel, "/") {
		if len(name) > maxNameBytes {
			return nil, fmt.Errorf("%w: a name in it is over %d bytes long, more than a disk allows", ErrBadName, maxNameBytes)
		}
	}
	if tooLong(rel) {
		return nil, fmt.Errorf("%w: it is over %d characters long", ErrBadName, MaxPathChars)
	}
	if rel == "" || strings.HasPrefix(rel, "/") || filepath.VolumeName(rel) != "" {
		return nil, ErrOutside
	}
	if os.PathSeparator == '\\' && strings.ContainsAny(rel, `\:`) {
		return nil, ErrOutside // a second separator or a stream name on Windows
	}
	clean := path.Clean(rel)
	if clean == "." {
		return nil, ErrNotRegular // the vault folder itself
	}
	if clean == ".." || strings.HasPrefix(clean, "../") {
		return nil, ErrOutside
	}
	return strings.Split(clean, "/"), nil
}

// linkTarget resolves a symbolic link found at dir/name (dir a list of
// real folder names from the vault folder down) to the names it leads to,
// with rest appended; ErrOutside when it leads out of the vault.
func (r *Root) linkTarget(dir []string, target string, rest []string) ([]string, error) {
	var joined string
	if filepath.IsAbs(target) {
		inside, err := filepath.Rel(r.dir, filepath.Clean(target))
		if err != nil || !filepath.IsLocal(inside) {
			if filepath.Clean(target) == r.dir {
				joined = "."
			} else {
				return nil, ErrLinkOutside
			}
		} else {
			joined = filepath.ToSlash(inside)
		}
	} else {
		joined = path.Join(append(append([]string{}, dir...), filepath.ToSlash(target))...)
		if joined == ".." || strings.HasPrefix(joined, "../") || path.IsAbs(joined) {
			return nil, ErrLinkOutside
		}
	}
	var out []string
	for _, p := range strings.Split(joined, "/") {
		if os.PathSeparator == '\\' && strings.Contains(p, ":") {
			return nil, ErrLinkOutside // a drive or a stream name on Windows
		}
		if p != "" && p != "." {
			out = append(out, p)
		}
	}
	return append(out, rest...), nil
}

// underRoot is the vault-relative path of the real path p, or false when p
// is not beneath the vault folder.
func (r *Root) underRoot(p string) (string, bool) {
	rel, err := filepath.Rel(r.final, p)
	if err != nil || !filepath.IsLocal(rel) {
		return "", false
	}
	return filepath.ToSlash(rel), true
}

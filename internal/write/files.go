package write

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"slices"
	"strings"
	"sync"

	"github.com/jarvis-mcp/jarvis/internal/vault"
	"golang.org/x/text/unicode/norm"
)

// Vault is a vault folder open for writing notes. Every path is opened
// from the vault folder down without following a symbolic link, and only
// what CheckPath lets through is written.
//
// Of two Applies with the same etag, exactly one wins: within a process a
// mutex holds each Apply from its first check to its last rename, and
// between jarvis processes on Unix a lock file in the system's temporary
// folder does the same. A program that takes no lock (Obsidian itself)
// can still change a note between the check and the rename; each file's
// bytes are therefore compared again just before it is renamed over,
// which leaves that window at the length of one rename.
type Vault struct {
	root    *vault.Root
	exclude []string
	mu      sync.Mutex
	// beforeCommit, when set, is called before the i-th file of an Apply
	// is put in place; an error fails that file as a failed rename does.
	// Tests use it.
	beforeCommit func(i int) error
}

// OpenVault opens the vault folder dir, with its exclude globs (those of
// the index, so that what is written is what is indexed), for writing.
func OpenVault(dir string, exclude []string) (*Vault, error) {
	r, err := vault.OpenRoot(dir, exclude)
	if err != nil {
		return nil, err
	}
	return &Vault{root: r, exclude: exclude}, nil
}

// Dir is the real path of the vault folder.
func (v *Vault) Dir() string { return v.root.Dir() }

// CheckPath is the package's CheckPath with the vault's exclude globs.
func (v *Vault) CheckPath(rel string) error { return CheckPath(rel, v.exclude) }

// AppliedFile is what Apply did to one file, in the order of the
// Change's files: what the journal keeps to undo it.
type AppliedFile struct {
	// Path is the path the change named (FileChange.Path).
	Path string
	// Final is where the file is now: Path, MoveTo, or its place in the
	// vault's trash (".trash/...") for a delete.
	Final string
	// Previous is what Path held before, nil when there was no file.
	Previous []byte
	// ETag is the etag of what Final holds now.
	ETag string
}

// Applied is the outcome of an Apply, one AppliedFile per FileChange.
type Applied struct {
	Files []AppliedFile
	// Folders are the folders Apply made for the files, in the order
	// made (outermost first), for the journal: undo removes them again
	// when empty (Change.RemoveFolders).
	Folders []string
}

// TrashDir is the vault's trash folder, where Delete moves a note, as
// Obsidian's "move to Obsidian trash" setting does.
const TrashDir = ".trash"

// tempPrefix begins the name of every temporary file: hidden, so that
// neither the index nor Obsidian shows one, even one left by a crash.
const tempPrefix = ".jarvis-write-"

func tempName() string {
	b := make([]byte, 8)
	rand.Read(b)
	return tempPrefix + hex.EncodeToString(b) + ".tmp"
}

// Errors of the walk to a file, worded where the path is known.
var (
	errLink      = errors.New("a symbolic link")
	errNotFolder = errors.New("not a folder")
)

func errTooBig(n int64) error {
	return fmt.Errorf("%w: the note holds %s, over the %d MB a note may hold", ErrTooLarge, sizeText(n), vault.MaxNoteSize>>20)
}

type kind int

const (
	kindAbsent kind = iota
	kindFile
	kindFolder
	kindLink
	kindOther
)

// entry is what is at a name: its kind, permissions and owner (-1 where
// the system has none).
type entry struct {
	kind     kind
	perm     fs.FileMode
	uid, gid int
}

// Read reads the note at rel, as Apply would find it, with its etag. A
// missing note is an error matching fs.ErrNotExist.
func (v *Vault) Read(ctx context.Context, rel string) ([]byte, string, error) {
	if err := ctx.Err(); err != nil {
		return nil, "", err
	}
	if err := v.CheckPath(rel); err != nil {
		return nil, "", err
	}
	w, err := v.walker()
	if err != nil {
		return nil, "", err
	}
	defer w.close()
	data, st, err := w.readNote(rel)
	if err != nil {
		return nil, "", err
	}
	if st.kind == kindAbsent {
		return nil, "", fmt.Errorf("no note at %q: %w", rel, fs.ErrNotExist)
	}
	return data, ETag(data), nil
}

// IsFolder reports whether rel names a folder of the vault ("Projects",
// "Projects/"), reached from the vault folder down without a link, as
// every path written is: a write given one is refused by FolderError.
func (v *Vault) IsFolder(ctx context.Context, rel string) bool {
	rel = strings.TrimSuffix(rel, "/")
	if ctx.Err() != nil || rel == "." || !fs.ValidPath(rel) {
		return false
	}
	w, err := v.walker()
	if err != nil {
		return false
	}
	defer w.close()
	_, err = w.folder(rel, false)
	return err == nil
}

// FolderError is the one answer to a write given rel, the path of a
// folder (Vault.IsFolder): each write tool changes one note, and none a
// folder. tool is the write asked for ("" for any); movingNote, when
// set, is the note move-note was asked to move to rel.
func FolderError(tool, rel, movingNote string) error {
	rel = strings.TrimSuffix(rel, "/")
	list := fmt.Sprintf("as search-vault with path_prefix %q lists them", rel+"/")
	var why string
	switch {
	case movingNote != "":
		why = fmt.Sprintf("%q is a folder: to is the note's new path, name included, such as %q", rel, path.Join(rel, path.Base(movingNote)))
	case tool == ToolCreate:
		why = fmt.Sprintf("%q is a folder: give the new note's path, name included, such as %q", rel, path.Join(rel, "Idea.md"))
	case tool == ToolDelete:
		why = fmt.Sprintf("%q is a folder, not a note: delete-note deletes one note, and folders are not deleted; give the path of a note in it, %s", rel, list)
	case tool == ToolMove:
		why = fmt.Sprintf("%q is a folder, not a note: move-note moves one note, and folders are not moved; give the path of a note in it, %s", rel, list)
	case tool == ToolEdit:
		why = fmt.Sprintf("%q is a folder, not a note: edit-note changes one note; give the path of a note in it, %s", rel, list)
	default:
		why = fmt.Sprintf("%q is a folder, not a note: only notes are written, one at a time", rel)
	}
	return fmt.Errorf("%w: %s", ErrNotWritable, why)
}

// walker opens folders of one Read or Apply from the vault folder down,
// each once, and remembers the folders it created.
type walker struct {
	root    *vault.Root
	top     *folder
	open    map[string]*folder
	created []string // vault-relative, in the order made
}

func (v *Vault) walker() (*walker, error) {
	top, err := openTop(v.root.Dir())
	if err != nil {
		return nil, fmt.Errorf("open the vault folder: %w", err)
	}
	return &walker{root: v.root, top: top, open: map[string]*folder{"": top}}, nil
}

func (w *walker) close() {
	for _, f := range w.open {
		if f != w.top {
			f.close()
		}
	}
	w.top.close()
}

// folder opens the folder rel ("" for the vault folder), creating what is
// missing when create is set; fs.ErrNotExist when it is missing otherwise.
func (w *walker) folder(rel string, create bool) (*folder, error) {
	if f, ok := w.open[rel]; ok {
		return f, nil
	}
	parent, name := "", rel
	if i := strings.LastIndexByte(rel, '/'); i >= 0 {
		parent, name = rel[:i], rel[i+1:]
	}
	up, err := w.folder(parent, create)
	if err != nil {
		return nil, err
	}
	f, err := up.sub(name)
	if err != nil && errors.Is(err, fs.ErrNotExist) && create {
		if err = up.mkdir(name); err == nil {
			w.created = append(w.created, rel)
			f, err = up.sub(name)
		}
	}
	switch {
	case errors.Is(err, errLink) && (rel == TrashDir || strings.HasPrefix(rel, TrashDir+"/")):
		return nil, fmt.Errorf("%w: the vault's trash folder %q is a symbolic link, and a deleted note goes only into a real folder of the vault; replace the link with a real folder of that name in the vault folder (moving what it holds into it), then delete again", ErrNotWritable, rel)
	case errors.Is(err, errLink):
		return nil, fmt.Errorf("%w: the folder %q is a symbolic link; jarvis writes only notes in the vault's own folders", ErrNotWritable, rel)
	case errors.Is(err, errNotFolder):
		return nil, fmt.Errorf("%w: %q is a file, not a folder", ErrNotWritable, rel)
	case err != nil:
		return nil, err
	}
	w.open[rel] = f
	return f, nil
}

// removeCreated removes the folders the walker made, deepest first, when
// they are empty again.
func (w *walker) removeCreated() {
	for i := len(w.created) - 1; i >= 0; i-- {
		rel := w.created[i]
		parent, name := path.Split(rel)
		if f, ok := w.open[rel]; ok {
			f.close()
			delete(w.open, rel)
		}
		if up, ok := w.open[strings.TrimSuffix(parent, "/")]; ok {
			_ = up.rmdir(name)
		}
	}
	w.created = nil
}

// removeEmpty removes the folders rels (vault-relative, outermost
// first) that are empty, deepest first. One that is gone, is not a
// folder, or still holds anything is left as it is: the write is made
// whatever becomes of them.
func (w *walker) removeEmpty(rels []string) {
	for _, rel := range slices.Backward(rels) {
		if rel == "" {
			continue
		}
		if f, ok := w.open[rel]; ok {
			f.close()
			delete(w.open, rel)
		}
		up, name, err := w.at(rel, false)
		if err != nil {
			continue
		}
		if st, err := up.stat(name); err != nil || st.kind != kindFolder {
			continue
		}
		if up.rmdir(name) == nil {
			_ = up.sync()
		}
	}
}

// syncCreated syncs the folders holding the folders the walker made, so
// that a new folder's entry is on disk with the files in it.
func (w *walker) syncCreated() error {
	for _, rel := range w.created {
		parent, _ := path.Split(rel)
		if up, ok := w.open[strings.TrimSuffix(parent, "/")]; ok {
			if err := up.sync(); err != nil {
				return err
			}
		}
	}
	return nil
}

// at is the folder holding rel and rel's name in it.
func (w *walker) at(rel string, create bool) (*folder, string, error) {
	dir, name := path.Split(rel)
	f, err := w.folder(strings.TrimSuffix(dir, "/"), create)
	return f, name, err
}

// readNote reads the file at rel: kindAbsent when there is none (nor its
// folder); a link or anything but a regular file is ErrNotWritable.
func (w *walker) readNote(rel string) ([]byte, entry, error) {
	f, name, err := w.at(rel, false)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, entry{kind: kindAbsent}, nil
	}
	if err != nil {
		return nil, entry{}, err
	}
	data, st, err := f.read(name)
	switch {
	case err != nil:
		return nil, st, fmt.Errorf("read %q: %w", rel, err)
	case st.kind == kindLink:
		return nil, st, linkError(w.root, rel)
	case st.kind == kindFolder:
		return nil, st, FolderError("", rel, "")
	case st.kind == kindOther:
		return nil, st, fmt.Errorf("%w: %q is not a regular file", ErrNotWritable, rel)
	}
	return data, st, nil
}

// linkError is why the note at rel, a symbolic link, is not written,
// saying where the link leads as a reader of the vault (root) follows it:
// to a note in the vault, which can be written in its place; out of the
// vault, which jarvis never writes; or nowhere.
func linkError(root *vault.Root, rel string) error {
	_, real, err := root.Stat(rel)
	switch {
	case errors.Is(err, vault.ErrOutside):
		return fmt.Errorf("%w: %q is a symbolic link to a file outside the vault, and jarvis writes only notes inside the vault", ErrNotWritable, rel)
	case err == nil:
		// real is the vault-relative path the link leads to.
		return fmt.Errorf("%w: %q is a symbolic link to %q; write that note instead", ErrNotWritable, rel, real)
	case errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("%w: %q is a symbolic link to a file that does not exist", ErrNotWritable, rel)
	}
	return fmt.Errorf("%w: %q is a symbolic link; jarvis writes only the vault's own notes", ErrNotWritable, rel)
}

// step is one FileChange of an Apply on its way.
type step struct {
	fc      FileChange
	src     *folder // the folder of fc.Path
	name    string
	prev    []byte // fc.Path's bytes, nil when absent
	st      entry
	final   string  // where the file ends
	dst     *folder // the folder of final
	dstName string
	tmp     string // the new bytes, in dst, until renamed
	done    bool
	// caseOnly is set for a move that changes only the case of the
	// note's name: renamed through a temporary name.
	caseOnly bool
	// trash and trashName are the copy of the note in the trash that a
	// FileChange with Trashed brings back, when it holds After;
	// restored is set once it is renamed back.
	trash     *folder
	trashName string
	restored  bool
}

// Apply carries out every FileChange of ch, all or nothing. First every
// path is checked (CheckPath, sizes) and every file's etag compared with
// its Before (ErrStale naming the path; ErrExists for a file where none
// must be); then the new bytes of every file are written to a hidden
// temporary file in its final folder (O_EXCL, never through a link),
// synced, with the permissions of the file they replace (0644 less the
// umask for a new one); then, one by one, each file's bytes are compared
// again and it is renamed into place and its folder synced. When a step
// fails, the files already changed are put back from their previous
// bytes, kept in memory, and the folders made for the change removed;
// the error says what failed (and what could not be put back, should
// that fail too).
//
// After is written exactly as given: line endings, a BOM and every byte
// the edit did not touch are the caller's to keep. A Delete moves the
// note to TrashDir beneath the vault, at its own path, adding " 1",
// " 2"... before the extension when that is taken. A MoveTo renames,
// refusing a target that exists (ErrExists) and creating missing folders.
func (v *Vault) Apply(ctx context.Context, ch Change) (Applied, error) {
	return v.ApplyRecorded(ctx, ch, nil)
}

// ApplyRecorded is Apply with record called (when not nil) once every
// check has passed and the new bytes are in their temporary files, but
// before the first file changes, with what Apply will have done when it
// succeeds: the journal records the write there, so that no file changes
// unless the bytes it held are kept. When record fails, nothing is
// changed and its error is returned as it is.
func (v *Vault) ApplyRecorded(ctx context.Context, ch Change, record func(Applied) error) (Applied, error) {
	if err := v.checkChange(ch); err != nil {
		return Applied{}, err
	}
	v.mu.Lock()
	defer v.mu.Unlock()
	unlock, err := lockVault(v.root.Dir())
	if err != nil {
		return Applied{}, err
	}
	defer unlock()
	if err := ctx.Err(); err != nil {
		return Applied{}, err
	}
	w, err := v.walker()
	if err != nil {
		return Applied{}, err
	}
	defer w.close()

	steps := make([]*step, len(ch.Files))
	for i, fc := range ch.Files {
		if steps[i], err = w.check(fc); err != nil {
			return Applied{}, err
		}
	}
	if err := ctx.Err(); err != nil {
		return Applied{}, err
	}
	for _, s := range steps {
		if err = w.prepare(s); err != nil {
			break
		}
	}
	out := Applied{Files: make([]AppliedFile, len(steps))}
	if err == nil {
		for i, s := range steps {
			now := s.fc.After
			if now == nil {
				now = s.prev
			}
			out.Files[i] = AppliedFile{Path: s.fc.Path, Final: s.final, Previous: s.prev, ETag: ETag(now)}
		}
		out.Folders = slices.Clone(w.created)
		if record != nil {
			if err = record(out); err != nil {
				return Applied{}, w.undo(steps, err)
			}
		}
		for i, s := range steps {
			if v.beforeCommit != nil {
				if err = v.beforeCommit(i); err != nil {
					err = fmt.Errorf("write %q: %w", s.fc.Path, err)
					break
				}
			}
			if err = w.commit(s); err != nil {
				break
			}
		}
	}
	if err == nil {
		err = w.syncCreated()
	}
	if err != nil {
		return Applied{}, w.undo(steps, err)
	}
	w.tidyTrash(steps)
	w.removeEmpty(ch.RemoveFolders)
	return out, nil
}

// checkChange checks the form of every FileChange and every path it
// names, before anything is opened.
func (v *Vault) checkChange(ch Change) error {
	if len(ch.Files) == 0 {
		return errors.New("the change names no file")
	}
	seen := map[string]string{}
	claim := func(p string) error {
		key := vault.FoldName(p) // one file on the disks of macOS and Windows
		if other, ok := seen[key]; ok {
			return fmt.Errorf("the change names %q twice (as %q): one change may touch a file once", p, other)
		}
		seen[key] = p
		return nil
	}
	for _, fc := range ch.Files {
		forms := 0
		if fc.After != nil || fc.MoveTo != "" {
			forms++
		}
		if fc.Delete {
			forms++
		}
		if forms != 1 {
			return fmt.Errorf("the change of %q must either write, move or delete it", fc.Path)
		}
		if err := v.CheckPath(fc.Path); err != nil {
			return err
		}
		if err := claim(fc.Path); err != nil {
			return err
		}
		if (fc.Delete || fc.MoveTo != "") && fc.Before == "" {
			return fmt.Errorf("moving or deleting %q needs the etag it was read with", fc.Path)
		}
		if fc.MoveTo != "" {
			if err := v.CheckPath(fc.MoveTo); err != nil {
				return err
			}
			// A rename that changes only the case of the name names
			// one file twice, as it should.
			if vault.FoldName(fc.MoveTo) != vault.FoldName(fc.Path) {
				if err := claim(fc.MoveTo); err != nil {
					return err
				}
			}
		}
		if fc.Trashed != "" {
			if err := checkTrashed(fc); err != nil {
				return err
			}
		}
		if fc.After != nil {
			if err := CheckSize(len(fc.After)); err != nil {
				return fmt.Errorf("write %q: %w", fc.Path, err)
			}
		}
	}
	return nil
}

// checkTrashed checks the form of a FileChange bringing a note back
// from the trash: a new note whose Trashed is a path beneath TrashDir.
// What is at that path is looked at through the open vault folder, as
// every other path is, when the change is applied.
func checkTrashed(fc FileChange) error {
	rest, ok := strings.CutPrefix(fc.Trashed, TrashDir+"/")
	if !ok || fc.After == nil || fc.Before != "" || fc.MoveTo != "" {
		return fmt.Errorf("the change of %q must bring back a note from the vault's trash (%s) as a new note", fc.Path, TrashDir)
	}
	// The path in the trash is a note's path that a delete put there.
	if err := CheckPath(rest, nil); err != nil {
		return fmt.Errorf("bring back %q from %q: %w", fc.Path, fc.Trashed, err)
	}
	return nil
}

func existsError(rel string) error {
	return fmt.Errorf("cannot create %q: %w", rel, ErrExists)
}

func moveExistsError(from, to string) error {
	return fmt.Errorf("cannot move %q to %q: %w", from, to, ErrExists)
}

// TwinError is a write refused because the vault already has a note or
// folder whose name differs from one the write would make only in case
// (or in Unicode form): on macOS and Windows the two names are one file,
// and Obsidian's links find notes by name whatever the case. It is an
// ErrExists.
type TwinError struct {
	// Path is what the write would make; Twin is what the vault has.
	Path, Twin string
	// From is the note a move would rename to Path, "" for a new note.
	From string
	// Folder is set when Twin is a folder.
	Folder bool
}

func (e *TwinError) Error() string {
	what := "note"
	if e.Folder {
		what = "folder"
	}
	doing := fmt.Sprintf("cannot create %q", e.Path)
	if e.From != "" {
		doing = fmt.Sprintf("cannot move %q to %q", e.From, e.Path)
	}
	same := "the same file on macOS and Windows and the same note to Obsidian's links"
	if e.Folder {
		same = "the same folder on macOS and Windows"
	}
	return fmt.Sprintf("%s: the vault already has the %s %q, %s, which is %s", doing, what, e.Twin, e.differs(), same)
}

// differs says how the name the write would make differs from its twin's,
// both being one name by vault.FoldName: in case, in Unicode form (an
// accented letter written as one character or as a letter and a
// combining accent, as macOS writes file names), or in both.
func (e *TwinError) differs() string {
	twin := path.Base(e.Twin)
	name := twin
	if parts := strings.Split(e.Path, "/"); strings.Count(e.Twin, "/") < len(parts) {
		name = parts[strings.Count(e.Twin, "/")]
	}
	switch {
	case norm.NFC.String(name) == norm.NFC.String(twin):
		return "the same name in another Unicode form (its accented letters are encoded differently)"
	case norm.NFC.String(name) == name && norm.NFC.String(twin) == twin || norm.NFD.String(name) == name && norm.NFD.String(twin) == twin:
		return "a name that differs only in case"
	}
	return "a name that differs only in case and in Unicode form (how its accented letters are encoded)"
}

// InFolder is Path put into the folder the vault has, Twin, in place of
// the one the write named: "Inbox/x.md" for "inbox/x.md" beside a folder
// Inbox. "" when Twin is a note.
func (e *TwinError) InFolder() string {
	if !e.Folder {
		return ""
	}
	depth := strings.Count(e.Twin, "/") + 1
	parts := strings.Split(e.Path, "/")
	if len(parts) <= depth {
		return ""
	}
	return e.Twin + "/" + strings.Join(parts[depth:], "/")
}

// Is makes a TwinError an ErrExists.
func (e *TwinError) Is(target error) bool { return target == ErrExists }

// CheckNew is the rule for the path rel a write puts a note at where
// there was none, the same for a dry run as for the write: nothing may
// be there (ErrExists), nor a note or folder whose name differs only in
// case or Unicode form (*TwinError), compared as notes' names are
// (vault.FoldName). from is the note a move renames to rel ("" for a new
// note): its own name spelled with other capitals is no twin, and the
// move is a rename.
func (v *Vault) CheckNew(ctx context.Context, rel, from string) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	w, err := v.walker()
	if err != nil {
		return err
	}
	defer w.close()
	_, err = w.checkNew(rel, from)
	return err
}

// checkNew is CheckNew in the walker of an Apply or a check; renaming
// says that rel is from's own name in other capitals.
func (w *walker) checkNew(rel, from string) (renaming bool, err error) {
	twin, folder, err := w.caseTwin(rel)
	if err != nil {
		return false, err
	}
	switch {
	case twin != "" && twin == from:
		return true, nil
	case twin != "":
		return false, &TwinError{Path: rel, Twin: twin, From: from, Folder: folder}
	}
	f, name, err := w.at(rel, false)
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	st, err := f.stat(name)
	switch {
	case err != nil:
		return false, err
	case st.kind == kindAbsent:
		return false, nil
	case from != "":
		return false, moveExistsError(from, rel)
	}
	return false, existsError(rel)
}

// caseTwin is the file or folder of the vault that rel would be one with
// on a disk that ignores case: the first of rel's names, from the vault
// folder down, that is not in its folder as written while a name equal to
// it by vault.FoldName is; folder says the twin is a folder. "" when
// every name is there as written or the rest of rel is new.
func (w *walker) caseTwin(rel string) (twin string, folder bool, err error) {
	parts := strings.Split(rel, "/")
	dir := ""
	for i, part := range parts {
		f, err := w.folder(dir, false)
		if errors.Is(err, fs.ErrNotExist) {
			return "", false, nil
		}
		if err != nil {
			return "", false, err
		}
		names, err := f.names()
		if err != nil {
			return "", false, err
		}
		key, other, exact := vault.FoldName(part), "", false
		for _, n := range names {
			if n == part {
				exact = true
				break
			}
			if other == "" && vault.FoldName(n) == key {
				other = n
			}
		}
		switch {
		case exact:
			dir = path.Join(dir, part)
		case other != "":
			return path.Join(dir, other), i < len(parts)-1, nil
		default:
			return "", false, nil
		}
	}
	return "", false, nil
}

func staleError(rel string) error {
	return fmt.Errorf("cannot write %q: %w", rel, ErrStale)
}

// check compares the file of fc with its Before and the target of a move
// with nothing, changing nothing.
func (w *walker) check(fc FileChange) (*step, error) {
	s := &step{fc: fc, final: fc.Path}
	if fc.Before == "" && !fc.Delete && fc.MoveTo == "" {
		// A new note: a name that differs only in case from one there
		// is refused as such, even where the disk takes them for one.
		var twin *TwinError
		if _, err := w.checkNew(fc.Path, ""); errors.As(err, &twin) {
			return nil, err
		}
	}
	data, st, err := w.readNote(fc.Path)
	if err != nil {
		return nil, err
	}
	s.prev, s.st = data, st
	switch {
	case fc.Before == "" && st.kind != kindAbsent:
		return nil, existsError(fc.Path)
	case fc.Before != "" && (st.kind == kindAbsent || ETag(data) != fc.Before):
		return nil, staleError(fc.Path)
	}
	if fc.MoveTo != "" {
		s.final = fc.MoveTo
		if s.caseOnly, err = w.checkNew(fc.MoveTo, fc.Path); err != nil {
			return nil, err
		}
	}
	if fc.Trashed != "" {
		s.trash, s.trashName = w.trashCopy(fc.Trashed, fc.After)
	}
	return s, nil
}

// trashCopy is the folder and name of the file at trashed, in the vault's
// trash, when it holds want; nil when it does not, is gone, or cannot be
// read (the note is then written from want).
func (w *walker) trashCopy(trashed string, want []byte) (*folder, string) {
	f, name, err := w.at(trashed, false)
	if err != nil {
		return nil, ""
	}
	if !holds(f, name, want) {
		return nil, ""
	}
	return f, name
}

// holds reports whether the regular file name in f holds exactly want.
func holds(f *folder, name string, want []byte) bool {
	data, st, err := f.read(name)
	return err == nil && st.kind == kindFile && bytes.Equal(data, want)
}

// prepare opens (making them if need be) the folders of s and writes its
// new bytes to a temporary file.
func (w *walker) prepare(s *step) error {
	var err error
	if s.src, s.name, err = w.at(s.fc.Path, s.st.kind == kindAbsent); err != nil {
		return err
	}
	switch {
	case s.fc.Delete:
		if s.dst, s.dstName, err = w.at(path.Join(TrashDir, s.fc.Path), true); err != nil {
			return fmt.Errorf("delete %q: %w", s.fc.Path, err)
		}
		if s.dstName, err = freeName(s.dst, s.dstName); err != nil {
			return fmt.Errorf("delete %q: %w", s.fc.Path, err)
		}
		s.final = s.dst.path(s.dstName)
		return nil
	case s.fc.MoveTo != "":
		if s.dst, s.dstName, err = w.at(s.fc.MoveTo, true); err != nil {
			return err
		}
	default:
		s.dst, s.dstName = s.src, s.name
	}
	if s.fc.After == nil {
		return nil
	}
	var like *entry
	if s.st.kind == kindFile {
		like = &s.st
	}
	if s.tmp, err = s.dst.writeTemp(s.fc.After, like); err != nil {
		return fmt.Errorf("write %q: %w", s.final, err)
	}
	return nil
}

// freeName is name, or name with " 1", " 2"... before its extension, the
// first that nothing in f has.
func freeName(f *folder, name string) (string, error) {
	ext := path.Ext(name)
	stem := strings.TrimSuffix(name, ext)
	for n := 0; n < 1000; n++ {
		try := name
		if n > 0 {
			try = fmt.Sprintf("%s %d%s", stem, n, ext)
		}
		st, err := f.stat(try)
		if err != nil {
			return "", err
		}
		if st.kind == kindAbsent {
			return try, nil
		}
	}
	return "", fmt.Errorf("the trash holds too many notes named %q", name)
}

// commit compares the file of s with what was checked and puts the new
// state in place.
func (w *walker) commit(s *step) error {
	data, st, err := s.src.read(s.name)
	if err != nil {
		return fmt.Errorf("read %q: %w", s.fc.Path, err)
	}
	if st.kind != s.st.kind || !bytes.Equal(data, s.prev) {
		if s.st.kind == kindAbsent {
			return existsError(s.fc.Path)
		}
		return staleError(s.fc.Path)
	}
	switch {
	case s.caseOnly:
		if err = renameVia(s.src, s.name, s.dst, s.dstName); err == nil && s.tmp != "" {
			if err = renameOver(s.dst, s.tmp, s.dst, s.dstName); err != nil {
				_ = renameVia(s.dst, s.dstName, s.src, s.name)
			}
		}
	case s.fc.Delete, s.fc.After == nil: // a move, or a move to the trash
		err = renameNew(s.src, s.name, s.dst, s.dstName)
	case s.trash != nil && holds(s.trash, s.trashName, s.fc.After):
		// The note deleted is still in the trash as it was: it goes
		// back, and no copy stays there.
		if err = renameNew(s.trash, s.trashName, s.dst, s.dstName); err == nil {
			s.restored = true
			_ = s.dst.remove(s.tmp)
		}
	case s.fc.MoveTo != "":
		if err = renameNew(s.dst, s.tmp, s.dst, s.dstName); err == nil {
			s.tmp = ""
			if err = s.src.remove(s.name); err != nil {
				_ = s.dst.remove(s.dstName)
			}
		}
	case s.st.kind == kindFile:
		err = renameOver(s.dst, s.tmp, s.dst, s.dstName)
	default:
		err = renameNew(s.dst, s.tmp, s.dst, s.dstName)
	}
	if errors.Is(err, fs.ErrExist) {
		return existsError(s.final)
	}
	if err != nil {
		return fmt.Errorf("write %q: %w", s.final, err)
	}
	s.tmp = ""
	s.done = true
	if err := s.dst.sync(); err != nil {
		return err
	}
	if s.restored {
		if err := s.trash.sync(); err != nil {
			return err
		}
	}
	if s.src != s.dst {
		return s.src.sync()
	}
	return nil
}

// renameVia renames from/a to to/b through a temporary name, refusing a
// file at to/b: a rename that changes only the case of a name is, on a
// file system that ignores case, a rename onto the file itself, which
// renameNew would refuse.
func renameVia(from *folder, a string, to *folder, b string) error {
	tmp := tempName()
	if err := renameNew(from, a, from, tmp); err != nil {
		return err
	}
	if err := renameNew(from, tmp, to, b); err != nil {
		_ = renameNew(from, tmp, from, a)
		return err
	}
	return nil
}

// tidyTrash removes the folders of the trash that the notes brought back
// from it leave empty, the deepest first, up to the trash folder itself:
// the trash is then as it was before the delete, when the delete made
// them.
func (w *walker) tidyTrash(steps []*step) {
	for _, s := range steps {
		if !s.restored {
			continue
		}
		for rel := path.Dir(s.fc.Trashed); rel != "." && rel != ""; rel = path.Dir(rel) {
			parent := path.Dir(rel)
			if parent == "." {
				parent = ""
			}
			up, ok := w.open[parent]
			if !ok || up.rmdir(path.Base(rel)) != nil {
				break
			}
			if f, ok := w.open[rel]; ok {
				f.close()
				delete(w.open, rel)
			}
			_ = up.sync()
		}
	}
}

// undo puts back the steps done, the last done first, removes the temporary
// files and folders made, and returns err with anything that could not
// be put back.
func (w *walker) undo(steps []*step, err error) error {
	var lost []error
	for i := len(steps) - 1; i >= 0; i-- {
		s := steps[i]
		if s == nil {
			continue
		}
		if s.tmp != "" {
			_ = s.dst.remove(s.tmp)
			s.tmp = ""
		}
		if !s.done {
			continue
		}
		if perr := s.putBack(); perr != nil {
			lost = append(lost, fmt.Errorf("%q could not be put back as it was: %w", s.fc.Path, perr))
		}
	}
	w.removeCreated()
	if len(lost) > 0 {
		return errors.Join(append([]error{err}, lost...)...)
	}
	return err
}

// putBack undoes a step done.
func (s *step) putBack() error {
	switch {
	case s.caseOnly:
		if err := renameVia(s.dst, s.dstName, s.src, s.name); err != nil {
			return err
		}
		if s.fc.After != nil {
			tmp, err := s.src.writeTemp(s.prev, &s.st)
			if err != nil {
				return err
			}
			if err := renameOver(s.src, tmp, s.src, s.name); err != nil {
				_ = s.src.remove(tmp)
				return err
			}
		}
	case s.fc.Delete, s.fc.After == nil:
		if err := renameNew(s.dst, s.dstName, s.src, s.name); err != nil {
			return err
		}
	case s.restored:
		if err := renameNew(s.dst, s.dstName, s.trash, s.trashName); err != nil {
			return err
		}
		if err := s.trash.sync(); err != nil {
			return err
		}
	case s.st.kind == kindAbsent:
		if err := s.dst.remove(s.dstName); err != nil {
			return err
		}
	default:
		tmp, err := s.src.writeTemp(s.prev, &s.st)
		if err != nil {
			return err
		}
		put := renameOver
		if s.fc.MoveTo != "" {
			put = renameNew
		}
		if err := put(s.src, tmp, s.src, s.name); err != nil {
			_ = s.src.remove(tmp)
			return err
		}
		if s.fc.MoveTo != "" {
			if err := s.dst.remove(s.dstName); err != nil {
				return err
			}
		}
	}
	if err := s.src.sync(); err != nil {
		return err
	}
	return s.dst.sync()
}

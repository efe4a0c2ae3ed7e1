package write

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"path"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"

	"github.com/jarvis-mcp/jarvis/internal/store"
	"github.com/jarvis-mcp/jarvis/internal/words"
)

// The journal keeps every write made to a vault's notes, with the bytes
// each file held before, so that it can be undone (UndoChange). Its
// tables are writes and write_files (migrations/0014_write_journal.sql).

// Bounds are how much of the journal is kept: after each write, the
// oldest writes beyond any of them are dropped. The write just recorded
// is kept whatever its size, so that it can always be undone.
type Bounds struct {
	// Writes is the most writes kept.
	Writes int
	// Bytes is the most bytes of files' previous contents kept.
	Bytes int64
	// Age is how long a write is kept.
	Age time.Duration
}

// JournalBounds are the journal's bounds: 1,000 writes, 64 MiB of
// previous contents, 90 days. The README's Writing section says them.
var JournalBounds = Bounds{Writes: 1000, Bytes: 64 << 20, Age: 90 * 24 * time.Hour}

// JournalDB is what the journal needs of the database: *store.DB and
// *store.Handle both serve.
type JournalDB interface {
	BeginTx(ctx context.Context, opts *sql.TxOptions) (*sql.Tx, error)
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
}

// FileKind is what a write did to one file.
type FileKind string

// The kinds of change to a file, as the journal stores them.
const (
	Created FileKind = "create"
	Edited  FileKind = "edit"
	Moved   FileKind = "move"
	Deleted FileKind = "delete"
)

// KindOf is what f does to its file.
func KindOf(f FileChange) FileKind {
	switch {
	case f.Delete:
		return Deleted
	case f.MoveTo != "":
		return Moved
	case f.Before == "":
		return Created
	}
	return Edited
}

// Entry is one write of the journal.
type Entry struct {
	// ID numbers the write: jarvis undo N takes it.
	ID      int64
	At      time.Time
	Tool    string
	Vault   string
	Summary string
	Files   []EntryFile
}

// EntryFile is one file a write changed.
type EntryFile struct {
	Change FileKind
	// Path is the file's path before the write: for a note an undo
	// brought back from the trash, its path in the trash.
	Path string
	// PathAfter is where it is after: the new path of a move, the path in
	// the trash of a delete, Path otherwise.
	PathAfter string
}

// ErrNoWrite means the journal holds no write by that number: never
// made, or dropped as the journal keeps within its bounds.
var ErrNoWrite = errors.New("no such write in the journal")

// ChangedError is why a write cannot be undone: a file it wrote changed
// since (or one it removed is back), and undoing the write would lose
// that change. It is an ErrStale.
type ChangedError struct {
	// Write is the number of the write to undo.
	Write int64
	// Path is the file, as it is named now.
	Path string
	// Gone is set when the file was moved or deleted since; Back when a
	// file is again where the write removed one.
	Gone, Back bool
}

func (e *ChangedError) Error() string {
	switch {
	case e.Back:
		return fmt.Sprintf("a file is at %s again since write %d; undoing it would replace that file", e.Path, e.Write)
	case e.Gone:
		return fmt.Sprintf("%s was moved or deleted since write %d; undoing it would lose that change", e.Path, e.Write)
	}
	return fmt.Sprintf("%s changed since write %d; undoing it would lose that change", e.Path, e.Write)
}

// Is makes a ChangedError an ErrStale.
func (e *ChangedError) Is(target error) bool { return target == ErrStale }

// Journal is the write journal in a database. Record, History, Lookup
// and UndoChange are its methods with the default bounds and clock.
type Journal struct {
	DB JournalDB
	// Bounds are what is kept; zero means JournalBounds.
	Bounds Bounds
	// Now is the clock; nil means time.Now.
	Now func() time.Time
}

// Record journals a write to vault that Apply carries out (applied, as
// ApplyRecorded gives it before any file changes), and returns its
// number. ApplyJournalled is the one way writes are made: it records
// first.
func Record(ctx context.Context, db JournalDB, vault string, ch Change, applied Applied) (int64, error) {
	return Journal{DB: db}.Record(ctx, vault, ch, applied)
}

// History lists the last n writes, newest first.
func History(ctx context.Context, db JournalDB, n int) ([]Entry, error) {
	return Journal{DB: db}.History(ctx, n)
}

// Lookup is write id; ErrNoWrite when the journal does not hold it.
func Lookup(ctx context.Context, db JournalDB, id int64) (Entry, error) {
	return Journal{DB: db}.Lookup(ctx, id)
}

// UndoChange is the Change that reverts write id (see Journal.UndoChange).
func UndoChange(ctx context.Context, db JournalDB, id int64, current func(path string) (etag string, exists bool, err error)) (Change, error) {
	return Journal{DB: db}.UndoChange(ctx, id, current)
}

// Recorder is what a journalled write needs of a vault's files: Apply
// that lets the journal record the write before any file changes
// (Vault.ApplyRecorded).
type Recorder interface {
	ApplyRecorded(ctx context.Context, ch Change, record func(Applied) error) (Applied, error)
}

// ApplyJournalled carries out ch in vault's files, journalled
// (Journal.Apply with the default bounds and clock).
func ApplyJournalled(ctx context.Context, db JournalDB, files Recorder, vault string, ch Change) (Applied, int64, error) {
	return Journal{DB: db}.Apply(ctx, files, vault, ch)
}

// Apply carries out ch in vault's files and journals it, the journal
// first: the write, with the bytes of every file it replaces, is
// committed to the database before any file changes, so that no write is
// made that jarvis undo cannot revert. When the journal cannot take it
// (the database locked by another program beyond its busy timeout, a full
// disk), nothing is written and the error is a *JournalError. When the
// files then cannot be changed, the write is taken out of the journal
// again, so that history and undo list only writes made.
func (j Journal) Apply(ctx context.Context, files Recorder, vault string, ch Change) (Applied, int64, error) {
	var id int64
	applied, err := files.ApplyRecorded(ctx, ch, func(planned Applied) error {
		var err error
		if id, err = j.Record(ctx, vault, ch, planned); err != nil {
			return &JournalError{Err: err}
		}
		return nil
	})
	if err != nil {
		if id != 0 {
			// The files are as they were: the write was not made.
			if ferr := j.forget(context.WithoutCancel(ctx), id); ferr != nil {
				err = errors.Join(err, fmt.Errorf("write %d stays in the journal though it was not made: %w", id, ferr))
			}
		}
		return Applied{}, 0, err
	}
	return applied, id, nil
}

// forget takes write id out of the journal (its files go with it).
func (j Journal) forget(ctx context.Context, id int64) error {
	tx, err := j.DB.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if _, err := tx.ExecContext(ctx, `DELETE FROM writes WHERE id = ?`, id); err != nil {
		return err
	}
	return tx.Commit()
}

// JournalError is a write refused because the journal could not record
// it first: nothing was written. Its text says why and what to do.
type JournalError struct {
	Err error
}

func (e *JournalError) Error() string {
	const lead = "nothing was written: every write is recorded for undo before it is made, and "
	switch store.Classify(e.Err) {
	case store.KindBusy:
		return lead + "jarvis's database is locked by another program (such as a jarvis index run) and stayed locked longer than jarvis waits; wait for it to finish, then try again"
	case store.KindDiskFull:
		return lead + "the disk holding jarvis's database is full; free some space on it, then try again"
	case store.KindAccess:
		return lead + "jarvis's database cannot be written by this user; run jarvis doctor to see why"
	}
	return lead + "the record could not be written: " + store.Plain(e.Err)
}

// Unwrap is the database's error.
func (e *JournalError) Unwrap() error { return e.Err }

func (j Journal) bounds() Bounds {
	if j.Bounds == (Bounds{}) {
		return JournalBounds
	}
	return j.Bounds
}

func (j Journal) now() time.Time {
	if j.Now == nil {
		return time.Now()
	}
	return j.Now()
}

// Record journals a write to vault that Apply carries out, with what
// Apply does (applied, one file for each of ch.Files), and returns its
// number. In the same transaction it drops the oldest writes beyond
// the bounds.
func (j Journal) Record(ctx context.Context, vault string, ch Change, applied Applied) (int64, error) {
	if len(applied.Files) != len(ch.Files) {
		return 0, fmt.Errorf("journal the write: %d files changed but %d applied", len(ch.Files), len(applied.Files))
	}
	summary := ch.Summary
	if summary == "" {
		summary = Describe(ch)
	}
	now := j.now()
	tx, err := j.DB.BeginTx(ctx, nil)
	if err != nil {
		return 0, fmt.Errorf("journal the write: %w", err)
	}
	defer tx.Rollback()
	var id int64
	if err := tx.QueryRowContext(ctx, `INSERT INTO writes (at_ms, tool, vault, summary) VALUES (?, ?, ?, ?) RETURNING id`,
		now.UnixMilli(), ch.Tool, vault, summary).Scan(&id); err != nil {
		return 0, fmt.Errorf("journal the write: %w", err)
	}
	for i, f := range ch.Files {
		a := applied.Files[i]
		kind := KindOf(f)
		after := a.Final
		if after == "" {
			after = f.Path
			if kind == Moved {
				after = f.MoveTo
			}
		}
		from := f.Path
		if kind == Created && f.Trashed != "" {
			from = f.Trashed // the note was in the trash before
		}
		var before []byte // NULL: the file did not exist
		if kind != Created {
			before = append([]byte{}, a.Previous...) // an empty file is an empty BLOB, not NULL
		}
		var etag any = a.ETag
		if kind == Deleted {
			etag = nil
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO write_files (write_id, ord, change, path, path_after, bytes_before, etag_after)
			VALUES (?, ?, ?, ?, ?, ?, ?)`, id, i, string(kind), from, after, before, etag); err != nil {
			return 0, fmt.Errorf("journal the write: %w", err)
		}
	}
	for i, folder := range applied.Folders {
		if _, err := tx.ExecContext(ctx, `INSERT INTO write_folders (write_id, ord, path) VALUES (?, ?, ?)`, id, i, folder); err != nil {
			return 0, fmt.Errorf("journal the write: %w", err)
		}
	}
	if err := prune(ctx, tx, id, now, j.bounds()); err != nil {
		return 0, fmt.Errorf("journal the write: %w", err)
	}
	if err := tx.Commit(); err != nil {
		return 0, fmt.Errorf("journal the write: %w", err)
	}
	return id, nil
}

// prune drops the writes older than newest beyond b: those past b.Age,
// those beyond the b.Writes newest, and the oldest whose previous bytes,
// added to those of every newer write, pass b.Bytes.
func prune(ctx context.Context, tx *sql.Tx, newest int64, now time.Time, b Bounds) error {
	if _, err := tx.ExecContext(ctx, `DELETE FROM writes WHERE id < ? AND at_ms < ?`,
		newest, now.Add(-b.Age).UnixMilli()); err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, `DELETE FROM writes WHERE id < ?
		AND id NOT IN (SELECT id FROM writes ORDER BY id DESC LIMIT ?)`, newest, b.Writes); err != nil {
		return err
	}
	_, err := tx.ExecContext(ctx, `DELETE FROM writes WHERE id IN (
		SELECT id FROM (
			SELECT w.id, sum(coalesce(s.bytes, 0)) OVER (ORDER BY w.id DESC) AS kept
			FROM writes w LEFT JOIN (
				SELECT write_id, sum(length(bytes_before)) AS bytes FROM write_files GROUP BY write_id
			) s ON s.write_id = w.id
		) WHERE kept > ? AND id < ?)`, b.Bytes, newest)
	return err
}

// History lists the last n writes, newest first.
func (j Journal) History(ctx context.Context, n int) ([]Entry, error) {
	return j.entries(ctx, `SELECT id, at_ms, tool, vault, summary FROM writes ORDER BY id DESC LIMIT ?`, n)
}

// Lookup is write id; ErrNoWrite when the journal does not hold it.
func (j Journal) Lookup(ctx context.Context, id int64) (Entry, error) {
	es, err := j.entries(ctx, `SELECT id, at_ms, tool, vault, summary FROM writes WHERE id = ?`, id)
	if err != nil {
		return Entry{}, err
	}
	if len(es) == 0 {
		return Entry{}, fmt.Errorf("write %d: %w", id, ErrNoWrite)
	}
	return es[0], nil
}

// entries are the writes query selects, with their files.
func (j Journal) entries(ctx context.Context, query string, arg any) ([]Entry, error) {
	rows, err := j.DB.QueryContext(ctx, query, arg)
	if err != nil {
		return nil, fmt.Errorf("read the write journal: %w", err)
	}
	var out []Entry
	for rows.Next() {
		var e Entry
		var at int64
		if err := rows.Scan(&e.ID, &at, &e.Tool, &e.Vault, &e.Summary); err != nil {
			rows.Close()
			return nil, fmt.Errorf("read the write journal: %w", err)
		}
		e.At = time.UnixMilli(at)
		out = append(out, e)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("read the write journal: %w", err)
	}
	for i := range out {
		files, err := j.files(ctx, out[i].ID)
		if err != nil {
			return nil, err
		}
		for _, f := range files {
			out[i].Files = append(out[i].Files, f.EntryFile)
		}
	}
	return out, nil
}

// journalFile is a row of write_files.
type journalFile struct {
	EntryFile
	before    []byte
	etagAfter string
}

func (j Journal) files(ctx context.Context, id int64) ([]journalFile, error) {
	rows, err := j.DB.QueryContext(ctx, `SELECT change, path, path_after, bytes_before, coalesce(etag_after, '')
		FROM write_files WHERE write_id = ? ORDER BY ord`, id)
	if err != nil {
		return nil, fmt.Errorf("read the write journal: %w", err)
	}
	defer rows.Close()
	var out []journalFile
	for rows.Next() {
		var f journalFile
		var kind string
		if err := rows.Scan(&kind, &f.Path, &f.PathAfter, &f.before, &f.etagAfter); err != nil {
			return nil, fmt.Errorf("read the write journal: %w", err)
		}
		f.Change = FileKind(kind)
		out = append(out, f)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("read the write journal: %w", err)
	}
	return out, nil
}

// folders are the folders write id made, outermost first.
func (j Journal) folders(ctx context.Context, id int64) ([]string, error) {
	rows, err := j.DB.QueryContext(ctx, `SELECT path FROM write_folders WHERE write_id = ? ORDER BY ord`, id)
	if err != nil {
		return nil, fmt.Errorf("read the write journal: %w", err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var p string
		if err := rows.Scan(&p); err != nil {
			return nil, fmt.Errorf("read the write journal: %w", err)
		}
		out = append(out, p)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("read the write journal: %w", err)
	}
	return out, nil
}

// UndoChange is the Change that reverts write id, for Apply in the
// write's vault (Lookup names it), to be recorded in turn (its Tool is
// "undo"), so that undoing an undo redoes. A created note is deleted (to
// the trash), an edited one gets its bytes back, a deleted one comes back
// from the trash (FileChange.Trashed: its copy there is moved back when
// it still holds what was deleted, else the journal's copy of its bytes
// is written, the trash having been emptied or the copy changed), and a
// moved one moves back with the notes whose links the move changed given
// their bytes back. The folders the write made are removed again, each
// only when empty (Change.RemoveFolders); a folder that was there before
// the write is never among them.
//
// current tells a file's etag now, or that it does not exist. Each file
// the write left must be as it left it; otherwise UndoChange fails with
// a *ChangedError naming the file, and nothing should be written. The
// Change's Before etags make Apply check again as it writes.
func (j Journal) UndoChange(ctx context.Context, id int64, current func(path string) (etag string, exists bool, err error)) (Change, error) {
	e, err := j.Lookup(ctx, id)
	if err != nil {
		return Change{}, err
	}
	files, err := j.files(ctx, id)
	if err != nil {
		return Change{}, err
	}
	folders, err := j.folders(ctx, id)
	if err != nil {
		return Change{}, err
	}
	ch := Change{Tool: "undo", Summary: undoSummary(id, e), RemoveFolders: folders}
	for _, f := range slices.Backward(files) {
		if f.Change == Deleted {
			_, exists, err := current(f.Path)
			if err != nil {
				return Change{}, fmt.Errorf("undo write %d: %w", id, err)
			}
			if exists {
				return Change{}, &ChangedError{Write: id, Path: f.Path, Back: true}
			}
			back := FileChange{Path: f.Path, After: nonNil(f.before)}
			if strings.HasPrefix(f.PathAfter, TrashDir+"/") {
				back.Trashed = f.PathAfter
			}
			ch.Files = append(ch.Files, back)
			continue
		}
		etag, exists, err := current(f.PathAfter)
		if err != nil {
			return Change{}, fmt.Errorf("undo write %d: %w", id, err)
		}
		if !exists {
			return Change{}, &ChangedError{Write: id, Path: f.PathAfter, Gone: true}
		}
		if etag != f.etagAfter {
			return Change{}, &ChangedError{Write: id, Path: f.PathAfter}
		}
		switch f.Change {
		case Created:
			ch.Files = append(ch.Files, FileChange{Path: f.PathAfter, Before: etag, Delete: true})
		case Edited:
			ch.Files = append(ch.Files, FileChange{Path: f.Path, Before: etag, After: nonNil(f.before)})
		case Moved:
			ch.Files = append(ch.Files, FileChange{Path: f.PathAfter, Before: etag, MoveTo: f.Path, After: nonNil(f.before)})
		default:
			return Change{}, fmt.Errorf("undo write %d: the journal holds an unknown change %q to %s", id, f.Change, f.Path)
		}
	}
	return ch, nil
}

// undoSummary is the summary of the undo of write id (e): "undid write
// 10 (deleted Test.md)"; the undo of that undo redoes write 10 and says
// so ("redid write 10 (deleted Test.md)") rather than nesting, and the
// undo of a redo undoes it again.
func undoSummary(id int64, e Entry) string {
	if e.Tool == "undo" {
		for _, swap := range [][2]string{{"undid write ", "redid write "}, {"redid write ", "undid write "}} {
			if rest, ok := strings.CutPrefix(e.Summary, swap[0]); ok {
				return swap[1] + rest
			}
		}
	}
	return fmt.Sprintf("undid write %d (%s)", id, e.Summary)
}

// Reverts reads what the undo u did from its summary (undoSummary): the
// write n it undid or, redo set, redid, and that write's own summary;
// ok is false when u is not an undo. The history marks write n by it.
func Reverts(u Entry) (n int64, redo bool, summary string, ok bool) {
	if u.Tool != "undo" {
		return 0, false, "", false
	}
	rest, found := strings.CutPrefix(u.Summary, "undid write ")
	if !found {
		if rest, found = strings.CutPrefix(u.Summary, "redid write "); !found {
			return 0, false, "", false
		}
		redo = true
	}
	num, inner, found := strings.Cut(rest, " (")
	if !found || !strings.HasSuffix(inner, ")") {
		return 0, false, "", false
	}
	n, err := strconv.ParseInt(num, 10, 64)
	if err != nil {
		return 0, false, "", false
	}
	return n, redo, strings.TrimSuffix(inner, ")"), true
}

// UndoSaid says what the undo u did, for its own report (UndoReport)
// and for the history, in one set of words: "reverted write 2 (which
// created A.md): moved A.md to the vault's .trash". reverted is the
// write u reverted (write 2 itself, or the undo or redo of it that u
// turned around), 0 when not known; vault, when given, is named after
// the write as the report names it.
func UndoSaid(u Entry, reverted int64, vault string) string {
	n, redo, summary, ok := Reverts(u)
	if !ok {
		return u.Summary
	}
	in := ""
	if vault != "" {
		in = fmt.Sprintf(" in %q", vault)
	}
	var said string
	switch {
	case reverted == 0 && redo:
		said = fmt.Sprintf("redid write %d%s (%s)", n, in, summary)
	case reverted == 0:
		said = fmt.Sprintf("undid write %d%s (%s)", n, in, summary)
	case redo:
		said = fmt.Sprintf("redid write %d%s (%s) by reverting write %d, its undo", n, in, summary, reverted)
	case reverted != n:
		said = fmt.Sprintf("undid write %d%s (%s) again by reverting write %d, its redo", n, in, summary, reverted)
	default:
		said = fmt.Sprintf("reverted write %d%s (which %s)", n, in, summary)
	}
	if files := DescribeUndo(u); files != "" {
		said += ": " + files
	}
	return said
}

// UndoReport says what the undo u (as the journal holds it) did, in the
// words the history shows for it (UndoSaid), reverting write reverted:
// "Reverted write 2 in "notes" (which edited A.md): restored the earlier
// A.md. This undo is write 3: run `jarvis undo` again to redo it;
// `jarvis undo 1` undoes the write before." again is the command that
// reverts the newest write, u; before, when not "", the one that undoes
// the write a tool made before the one reverted (WriteBefore).
func UndoReport(u Entry, reverted int64, again, before string) string {
	said := UndoSaid(u, reverted, u.Vault)
	if _, redo, _, _ := Reverts(u); redo {
		return fmt.Sprintf("%s. This redo is write %d: run %s to undo it again.", capital(said), u.ID, again)
	}
	if before == "" {
		return fmt.Sprintf("%s. This undo is write %d: run %s again to redo it.", capital(said), u.ID, again)
	}
	return fmt.Sprintf("%s. This undo is write %d: run %s again to redo it; %s undoes the write before.", capital(said), u.ID, again, before)
}

// WriteBefore is the newest write a tool made (not an undo) before write
// id that can still be undone (Undoable, the rule the history offers
// writes by), for an undo's report to offer as the next to undo; 0 when
// there is none.
func WriteBefore(ctx context.Context, db JournalDB, id int64) (int64, error) {
	rows, err := db.QueryContext(ctx, `SELECT id FROM writes WHERE id < ? AND tool <> 'undo' ORDER BY id DESC`, id)
	if err != nil {
		return 0, fmt.Errorf("read the write journal: %w", err)
	}
	var ids []int64
	for rows.Next() {
		var n int64
		if err := rows.Scan(&n); err != nil {
			rows.Close()
			return 0, fmt.Errorf("read the write journal: %w", err)
		}
		ids = append(ids, n)
	}
	err = rows.Err()
	rows.Close()
	if err != nil {
		return 0, fmt.Errorf("read the write journal: %w", err)
	}
	for _, n := range ids {
		e, err := Lookup(ctx, db, n)
		if err != nil {
			return 0, err
		}
		if ok, err := Undoable(ctx, db, e); err != nil || ok {
			return n, err
		}
	}
	return 0, nil
}

// capital is s with its first letter in upper case.
func capital(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

// DescribeUndo says what the undo u did to its files, from the files the
// journal holds for it: "moved Notes/A.md back to A.md and restored the
// links in 2 notes", "restored B.md (from .trash/B.md)", "moved C.md to
// the vault's .trash".
func DescribeUndo(u Entry) string {
	n, redo, _, _ := Reverts(u)
	var moved, others []string
	for _, f := range u.Files {
		switch f.Change {
		case Moved:
			moved = append(moved, PathText(f.Path)+" back to "+PathText(f.PathAfter))
		case Created:
			if f.Path != f.PathAfter {
				others = append(others, Restored(f.PathAfter, f.Path))
			} else {
				others = append(others, "restored "+PathText(f.Path))
			}
		case Deleted:
			others = append(others, Trashed(f.Path, f.PathAfter))
		case Edited:
			if redo {
				// A redo brings back what write n made, not what was
				// there before it.
				others = append(others, fmt.Sprintf("restored %s as write %d left it", PathText(f.Path), n))
			} else {
				others = append(others, "restored the earlier "+PathText(f.Path))
			}
		}
	}
	switch {
	case len(moved) > 0 && len(others) > 0:
		return "moved " + words.List(moved) + " and restored the links in " + words.Count(len(others), "note")
	case len(moved) > 0:
		return "moved " + words.List(moved)
	}
	return words.List(others)
}

// Restored says that the note at path was brought back from trash, its
// place in the vault's trash: "restored A.md (from .trash/A.md)". The
// report of an undo and the history both say it so.
func Restored(path, trash string) string {
	return "restored " + PathText(path) + " (from " + PathText(trash) + ")"
}

// Trashed says that the note at p was moved to trash, its place in the
// vault's trash: "moved A.md to the vault's .trash", adding where when
// the trash held a note of that name already ("…, as .trash/A 1.md").
// The report of an undo and the history both say it so.
func Trashed(p, trash string) string {
	if !strings.HasPrefix(trash, TrashDir+"/") {
		return "deleted " + PathText(p)
	}
	said := "moved " + PathText(p) + " to the vault's " + TrashDir
	if trash != TrashDir+"/"+path.Base(p) {
		said += ", as " + PathText(trash)
	}
	return said
}

// LaterWrites are the writes after write id that changed the file at
// path (its path before or after), oldest first, so that a refused undo
// can say which writes to undo first; none when the journal holds none.
func LaterWrites(ctx context.Context, db JournalDB, id int64, path string) ([]int64, error) {
	rows, err := db.QueryContext(ctx, `SELECT DISTINCT write_id FROM write_files WHERE write_id > ? AND (path = ? OR path_after = ?) ORDER BY write_id`, id, path, path)
	if err != nil {
		return nil, fmt.Errorf("read the write journal: %w", err)
	}
	defer rows.Close()
	var later []int64
	for rows.Next() {
		var n int64
		if err := rows.Scan(&n); err != nil {
			return nil, fmt.Errorf("read the write journal: %w", err)
		}
		later = append(later, n)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("read the write journal: %w", err)
	}
	return later, nil
}

// Undoable reports whether write e can be undone as far as the journal
// knows: no later write that still stands changed a file it wrote
// (LaterWrites, less those an undo cancelled: NetWrites). A write already
// undone is not, its undo having changed its files since; a write whose
// later writes were all undone is. A file changed outside jarvis is found
// only when the undo looks at the files.
func Undoable(ctx context.Context, db JournalDB, e Entry) (bool, error) {
	for _, f := range e.Files {
		for _, p := range []string{f.Path, f.PathAfter} {
			later, err := LaterWrites(ctx, db, e.ID, p)
			if err != nil {
				return false, err
			}
			standing, err := NetWrites(ctx, db, later)
			if err != nil {
				return false, err
			}
			if len(standing) > 0 {
				return false, nil
			}
		}
	}
	return true, nil
}

// NetWrites are the writes among later (oldest first, each one that
// changed a note since some write) whose changes still stand: an undo and
// the write it reverted (RevertedBy) cancel out, so that undoing the
// rest, newest first, brings the note back. Of write 3, its undo 4 and 5,
// the undo of 4, only 5 stands: undoing it takes back what all three did.
func NetWrites(ctx context.Context, db JournalDB, later []int64) ([]int64, error) {
	var standing []int64
	var seen []Entry // newest first, as RevertedBy reads them
	for _, n := range later {
		e, err := Lookup(ctx, db, n)
		if err != nil {
			return nil, err
		}
		if t := RevertedBy(seen, e); t != 0 && len(standing) > 0 && standing[len(standing)-1] == t {
			standing = standing[:len(standing)-1]
		} else {
			standing = append(standing, n)
		}
		seen = append([]Entry{e}, seen...)
	}
	return standing, nil
}

// RevertedBy is the write the undo u reverted, among older (newest
// first): the newest that is the write u undid or redid, or another undo
// of it; 0 when it is not among them.
func RevertedBy(older []Entry, u Entry) int64 {
	n, _, _, ok := Reverts(u)
	if !ok {
		return 0
	}
	for _, e := range older {
		if m, _, _, ok := Reverts(e); e.ID == n || ok && m == n {
			return e.ID
		}
	}
	return 0
}

// RevertedByIn is RevertedBy with the older writes read from the journal:
// for an undo whose reverted write is not among the entries at hand (a
// history cut by its limit), so that it is worded as when it is.
func RevertedByIn(ctx context.Context, db JournalDB, u Entry) (int64, error) {
	n, _, _, ok := Reverts(u)
	if !ok {
		return 0, nil
	}
	return queryInt(ctx, db, `SELECT coalesce(max(id), 0) FROM writes WHERE id < ?1 AND (id = ?2 OR tool = 'undo' AND
		(substr(summary, 1, length(?3)) = ?3 OR substr(summary, 1, length(?4)) = ?4))`,
		u.ID, n, fmt.Sprintf("undid write %d (", n), fmt.Sprintf("redid write %d (", n))
}

// Count is how many writes the journal holds.
func Count(ctx context.Context, db JournalDB) (int, error) {
	n, err := queryInt(ctx, db, `SELECT count(*) FROM writes`)
	return int(n), err
}

// queryInt runs a query of the journal for one number.
func queryInt(ctx context.Context, db JournalDB, query string, args ...any) (int64, error) {
	rows, err := db.QueryContext(ctx, query, args...)
	if err != nil {
		return 0, fmt.Errorf("read the write journal: %w", err)
	}
	defer rows.Close()
	var n int64
	if rows.Next() {
		if err := rows.Scan(&n); err != nil {
			return 0, fmt.Errorf("read the write journal: %w", err)
		}
	}
	if err := rows.Err(); err != nil {
		return 0, fmt.Errorf("read the write journal: %w", err)
	}
	return n, nil
}

// nonNil is b, or an empty slice for an empty file: After nil would be
// no content to write.
func nonNil(b []byte) []byte {
	if b == nil {
		return []byte{}
	}
	return b
}

// PathText is a note's path as the journal's words name it: as it is,
// or quoted when it would not read as one name (a name in it with a
// space at either end, a quote, a control character, or a word the
// sentences that name paths use to join them: " to ", " and ", ", "), so
// that " lead.md" is not taken for "lead.md", nor "moved Q to R.md to S"
// read as two moves.
func PathText(p string) string {
	if p == "" || strings.ContainsAny(p, "\"`") || strings.ContainsFunc(p, unicode.IsControl) {
		return strconv.Quote(p)
	}
	for _, name := range strings.Split(p, "/") {
		if name != strings.TrimSpace(name) || strings.Contains(name, ", ") {
			return strconv.Quote(p)
		}
		for _, sep := range []string{" to ", " and "} {
			if strings.Contains(" "+name+" ", sep) {
				return strconv.Quote(p)
			}
		}
	}
	return p
}

// Describe says what ch does, in a few words, for the journal: "created
// Inbox/Idea.md", "moved A.md to Notes/A.md and updated the links in 2
// notes". Paths are named by PathText.
func Describe(ch Change) string {
	var moved, others []string
	var said string
	for _, f := range ch.Files {
		switch KindOf(f) {
		case Moved:
			moved = append(moved, PathText(f.Path)+" to "+PathText(f.MoveTo))
		case Created:
			others = append(others, "created "+PathText(f.Path))
		case Deleted:
			others = append(others, "deleted "+PathText(f.Path))
		case Edited:
			others = append(others, "edited "+PathText(f.Path))
		}
	}
	switch {
	case len(moved) > 0 && len(others) > 0:
		said = "moved " + words.List(moved) + " and updated the links in " + words.Count(len(others), "note")
	case len(moved) > 0:
		said = "moved " + words.List(moved)
	default:
		said = words.List(others)
	}
	return said
}

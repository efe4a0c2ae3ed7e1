package store

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/jarvis-mcp/jarvis/internal/config"
	"github.com/jarvis-mcp/jarvis/internal/health"
	sqlite3 "modernc.org/sqlite/lib"
)

// More sentinels callers branch on, beside ErrAccess, ErrNotDatabase and
// ErrNewerSchema.
var (
	// ErrBusy means another program held the database locked for longer
	// than jarvis waits.
	ErrBusy = errors.New("the database is locked by another program")
	// ErrDiskFull means the disk that holds the database is full.
	ErrDiskFull = errors.New("the disk holding the database is full")
)

// Kind is what a database error means to the user, whatever the door it
// came in by: opening, a statement in the middle of an index run, a
// vector sync, a graph walk.
type Kind int

// The kinds of database error.
const (
	// KindOther is an error that is not about the database's state, or
	// one this package cannot name.
	KindOther Kind = iota
	// KindAccess: this user may not read or write the file, its -wal,
	// -shm or .lock companions, or create files in its folder. The file
	// may well be sound: never fixed with --rebuild.
	KindAccess
	// KindBusy: another program holds the database locked.
	KindBusy
	// KindDiskFull: the disk that holds the database is full.
	KindDiskFull
	// KindDamaged: the file is not a usable jarvis database; only a fresh
	// index helps.
	KindDamaged
	// KindNewer: a newer jarvis wrote the database.
	KindNewer
	// KindForeign: the path names something jarvis did not make (a
	// folder, a file that is not SQLite's, another program's database):
	// never fixed with --rebuild, which would put an index in its place.
	KindForeign
)

// Explanation is what a database error means, in words for the user.
type Explanation struct {
	Kind Kind
	// Why says what is wrong, naming the file: "/d/j.db is read-only
	// for you".
	Why string
	// Fix says what to do, starting with a verb: "run `chmod u+rw
	// /d/j.db`, or choose another database with --db".
	Fix string
	// Readable is set for an access problem that still lets this user
	// read the index as it is (not bring it up to date).
	Readable bool
}

func (x Explanation) String() string { return x.Why + "; " + x.Fix }

// Error is a database error with its explanation. Its text is the
// explanation alone; the error it explains stays reachable through
// errors.Is and errors.As (and in debug logs), never in what the user
// reads.
type Error struct {
	Explanation
	err error
}

func (e *Error) Error() string { return e.Explanation.String() }

// Unwrap gives the error explained.
func (e *Error) Unwrap() error { return e.err }

// Is matches the sentinel of the error's kind, so that callers branch on
// ErrAccess, ErrNotDatabase and the like however the error arose.
func (e *Error) Is(target error) bool {
	switch e.Kind {
	case KindAccess:
		return target == ErrAccess || target == fs.ErrPermission
	case KindBusy:
		return target == ErrBusy
	case KindDiskFull:
		return target == ErrDiskFull
	case KindDamaged:
		return target == ErrNotDatabase
	case KindNewer:
		return target == ErrNewerSchema
	case KindForeign:
		return target == ErrNotJarvis
	}
	return false
}

// Classify says what kind of database error err is, from the SQLite
// result code it carries or the sentinel it wraps.
func Classify(err error) Kind {
	var x *Error
	switch {
	case err == nil, errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		return KindOther
	case errors.As(err, &x):
		return x.Kind
	case errors.Is(err, ErrNewerSchema):
		return KindNewer
	case errors.Is(err, ErrNotJarvis):
		return KindForeign
	case errors.Is(err, ErrAccess):
		// Before the codes: a look at the files decided it.
		return KindAccess
	case errors.Is(err, ErrBusy):
		return KindBusy
	case errors.Is(err, ErrDiskFull):
		return KindDiskFull
	}
	if code, ok := sqliteCode(err); ok {
		switch code & 0xff {
		case sqlite3.SQLITE_READONLY, sqlite3.SQLITE_CANTOPEN, sqlite3.SQLITE_PERM, sqlite3.SQLITE_AUTH:
			return KindAccess
		case sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED:
			return KindBusy
		case sqlite3.SQLITE_FULL:
			return KindDiskFull
		case sqlite3.SQLITE_CORRUPT, sqlite3.SQLITE_NOTADB:
			return KindDamaged
		}
	}
	switch {
	case errors.Is(err, syscall.ENOSPC):
		return KindDiskFull
	case errors.Is(err, ErrNotDatabase):
		// After the codes: a permission code inside it (sqliteError)
		// is a permission, not damage.
		return KindDamaged
	case errors.Is(err, fs.ErrPermission):
		return KindAccess
	}
	return KindOther
}

// Explain is the one place that decides what an error met while using the
// database at path means, and how to fix it: a permission problem (of the
// file, its -wal, -shm or .lock, or its folder), a lock held by another
// program, a full disk, a damaged file, a file written by a newer jarvis.
// Fixes that name a jarvis command repeat the user's flags through inv;
// probe (nil: ask the system) finds which files lack which permission. ok
// is false for an error that is not about the database, which the caller
// reports as it is.
func Explain(path string, err error, inv health.Invocation, probe Probe) (x Explanation, ok bool) {
	var done *Error
	if errors.As(err, &done) {
		return done.Explanation, true
	}
	x.Kind = Classify(err)
	switch x.Kind {
	case KindAccess:
		problems := AccessProblems(path, probe)
		if len(problems) == 0 {
			if !errors.Is(err, ErrAccess) && !hasCode(err) {
				// A permission error that names no file of the
				// database: a note or folder of a vault, most likely.
				return Explanation{}, false
			}
			real := config.RealPath(path)
			x.Why = fmt.Sprintf("%s cannot be written (the disk or folder that holds it may be read-only)", path)
			x.Fix = fmt.Sprintf("check that you may write to %s and its folder %s, or choose another database with --db",
				health.Quote(real), health.Quote(filepath.Dir(real)))
			return x, true
		}
		x.Why, x.Fix = describe(problems), AccessFix(problems)
		x.Readable = readable(path, problems)
	case KindBusy:
		x.Why = fmt.Sprintf("%s is locked by another program, such as another jarvis writing to it, and stayed locked longer than jarvis waits", path)
		x.Fix = "wait for it to finish, then try again"
	case KindDiskFull:
		x.Why = fmt.Sprintf("the disk that holds %s is full", path)
		x.Fix = "free some space on it, or choose another database with --db, then try again"
	case KindDamaged:
		x.Why = damaged(path, err)
		x.Fix = "run " + inv.Command("index", "--rebuild") + ": it moves the file aside to a timestamped backup and starts a fresh index"
	case KindForeign:
		x.Why, x.Fix = foreign(path, err)
	case KindNewer:
		x.Why = fmt.Sprintf("%s was written by a newer version of jarvis", path)
		// A rebuild keeps the newer file aside (keepOld), so a newer
		// jarvis can still use it.
		x.Fix = "upgrade jarvis; or run " + inv.Command("index", "--rebuild") +
			": it keeps this file as " + filepath.Base(path) + ".newer-<time> and starts a fresh index; or choose another database with --db"
	default:
		if !hasCode(err) {
			return Explanation{}, false
		}
		x.Why = fmt.Sprintf("%s could not be used: %s", path, Plain(err))
		x.Fix = "run " + inv.Command("doctor") + " for what to do"
	}
	return x, true
}

// Explained is err as an *Error when it is about the database at path
// (see Explain), and err as it is otherwise.
func Explained(path string, err error, inv health.Invocation, probe Probe) error {
	if err == nil {
		return nil
	}
	x, ok := Explain(path, err, inv, probe)
	if !ok {
		return err
	}
	return &Error{Explanation: x, err: err}
}

// damaged says that the file at path is damaged, and how (Damage).
func damaged(path string, err error) string {
	if code, ok := sqliteCode(err); ok && code&0xff == sqlite3.SQLITE_CORRUPT || strings.Contains(err.Error(), "database disk image is malformed") {
		return fmt.Sprintf("%s is damaged: %s", path, Damage(err))
	}
	return fmt.Sprintf("%s is not a usable jarvis database: %s", path, Damage(err))
}

// foreign says that path names something other than a jarvis index, and
// what to choose instead. A folder gets an example of a file in it.
func foreign(path string, err error) (why, fix string) {
	what := "it is not a file jarvis made"
	var fe *foreignError
	if errors.As(err, &fe) {
		what = fe.what
		if fe.dir {
			return fmt.Sprintf("%s is not a jarvis index: %s", path, what),
				fmt.Sprintf("--db takes a file, not a folder: give one inside it, such as `%s`", filepath.Join(path, "jarvis.db"))
		}
	}
	return fmt.Sprintf("%s is not a jarvis index: %s", path, what),
		"choose another --db (for example the default, which `jarvis help config` names); jarvis leaves that file as it is"
}

// chooseAnother is the fix for a database path jarvis cannot use in
// place, where no change of it would help.
const chooseAnother = "choose another --db, in a folder you may write (for example the default, which `jarvis help config` names)"

// readable reports whether problems leave the database file readable, so
// that the index can be read as it is.
func readable(path string, problems []AccessProblem) bool {
	real := config.RealPath(path)
	for _, p := range problems {
		if p.Path == real && !p.read {
			return false
		}
	}
	return true
}

// Damage says in words what is wrong with a damaged file: what jarvis
// found itself ("it holds 3 tables that jarvis did not create"), or what
// SQLite's result means, in words that do not need SQLite to read.
func Damage(err error) string {
	code, ok := sqliteCode(err)
	if !ok {
		// The code is lost where an error was wrapped as text; the
		// message SQLite gives for each code is fixed.
		switch s := err.Error(); {
		case strings.Contains(s, "database disk image is malformed"):
			code, ok = sqlite3.SQLITE_CORRUPT, true
		case strings.Contains(s, "file is not a database"):
			code, ok = sqlite3.SQLITE_NOTADB, true
		default:
			if _, after, found := strings.Cut(s, ErrNotDatabase.Error()+": "); found {
				return after
			}
		}
	}
	switch {
	case ok && code&0xff == sqlite3.SQLITE_CORRUPT:
		return "parts of it cannot be read (pages of the file are broken, as after a crash of the disk or a copy cut short)"
	case ok && code&0xff == sqlite3.SQLITE_NOTADB:
		return "it is not a database SQLite can read (another kind of file, or one cut short)"
	}
	return "SQLite cannot read it"
}

// sqliteCode is the SQLite result code err carries, if it carries one.
func sqliteCode(err error) (int, bool) {
	var se interface{ Code() int }
	if errors.As(err, &se) {
		return se.Code(), true
	}
	return 0, false
}

func hasCode(err error) bool {
	_, ok := sqliteCode(err)
	return ok
}

// Plain is err's text without SQLite's result codes, such as the "(11)"
// of "database disk image is malformed (11)": they mean nothing to a
// reader.
func Plain(err error) string {
	s := err.Error()
	var strip func(e error)
	strip = func(e error) {
		if se, ok := e.(interface{ Code() int }); ok {
			s = strings.ReplaceAll(s, fmt.Sprintf(" (%d)", se.Code()), "")
		}
		switch u := e.(type) {
		case interface{ Unwrap() error }:
			if next := u.Unwrap(); next != nil {
				strip(next)
			}
		case interface{ Unwrap() []error }:
			for _, next := range u.Unwrap() {
				strip(next)
			}
		}
	}
	strip(err)
	return s
}

// Said is err in a few words, for a line that leaves the rest to the
// database check (doctor's "see the database check above"): the kind of
// trouble the database is in (Classify), or else err's own text without
// SQLite's result codes. A database this user may read but not update
// says what keeps it from being updated, in the words the database check
// and jarvis index use (describe): it answers searches all the same.
func Said(err error) string {
	switch Classify(err) {
	case KindAccess:
		var x *Error
		if errors.As(err, &x) && x.Readable && x.Why != "" {
			return "the database cannot be updated: " + x.Why
		}
		return "the database cannot be used by you"
	case KindBusy:
		return "the database is locked by another program"
	case KindDiskFull:
		return "the disk holding the database is full"
	case KindDamaged:
		return "the database is damaged"
	case KindNewer:
		return "the database was written by a newer jarvis"
	case KindForeign:
		return "the database path does not name a jarvis index"
	}
	return Plain(err)
}

package store

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"
)

// Rebuild is a fresh index built in a file of its own beside the database,
// put in the database's place by one rename when it is complete. Until
// then the database is not touched: a server reading it goes on answering
// from the whole old index, and a rebuild stopped at any moment (Ctrl-C,
// a crash, kill -9) leaves it as it was. A database that is damaged, or
// was written by a newer jarvis, is kept aside under a timestamped name;
// a sound one is replaced. A file jarvis did not make (ErrNotJarvis) is
// refused.
type Rebuild struct {
	// Path is the database as the user named it; Fresh is the file the
	// fresh index is built in, beside the real file (realFile).
	Path, Fresh string
	// real is where the database really is (beside): where Path is a
	// symbolic link, or lies in a folder that is one, the fresh index is
	// built in the real folder and renamed over the real file, and any
	// old file kept aside is kept there, so that the link stays a link
	// and every path to the database names the fresh index.
	real string
	// Old is what the inspection of the database found; its zero value
	// when there was no database.
	Old    Inspection
	exists bool
	unlock func()
	opts   Options
}

// freshSuffix names the file a rebuild builds its index in. One rebuild
// runs at a time (it holds the writer lock), so a file of that name is
// what a stopped rebuild left, and the next one starts it again.
const freshSuffix = ".rebuild"

// BeginRebuild takes the database's writer lock for the whole rebuild, so
// that no other jarvis writes meanwhile (a server's index passes wait, its
// reads go on), looks at the database with a full integrity check, and
// clears what a stopped rebuild left. It fails without changing anything
// when this user may not use the database's files or folder: the database
// may well be sound. onWait is called if the lock is held by another.
func BeginRebuild(ctx context.Context, path string, opts Options, onWait func()) (*Rebuild, error) {
	// Before the lock: its file would be left beside a folder, and would
	// make a file jarvis did not make look like one it did.
	if err := notJarvisIfFolder(path); err != nil {
		return nil, err
	}
	if problems := AccessProblems(path, opts.Probe); len(problems) > 0 {
		return nil, accessError(path, problems)
	}
	if err := refuseForeign(ctx, path); err != nil {
		return nil, err
	}
	real := realFile(path)
	if err := os.MkdirAll(filepath.Dir(real), 0o755); err != nil {
		return nil, explainAccess(path, opts, fmt.Errorf("create database folder: %w", err))
	}
	unlock, err := lockWriters(ctx, path, onWait)
	if err != nil {
		return nil, err
	}
	r := &Rebuild{Path: path, Fresh: beside(path, freshSuffix), real: real, unlock: unlock, opts: opts}
	if err := r.removeFresh(); err != nil {
		r.Close()
		return nil, err
	}
	if _, err := os.Stat(path); err == nil {
		r.exists = true
		r.Old = Inspect(ctx, path, opts, false)
		if r.Old.Stopped {
			r.Close()
			return nil, fmt.Errorf("check database %s: %w", path, ctx.Err())
		}
		if r.Old.OpenErr != nil && !r.Old.Damaged() {
			// Someone else's file among them (ErrNotJarvis): never
			// moved aside for an index to take its place.
			r.Close()
			return nil, r.Old.OpenErr
		}
	}
	return r, nil
}

// refuseForeign is ErrNotJarvis when path names something jarvis did not
// make (a folder, a file that is not SQLite's, another program's
// database), and nil otherwise: a damaged index is for Inspect to find.
func refuseForeign(ctx context.Context, path string) error {
	st, err := os.Stat(path)
	if err != nil || st.IsDir() {
		return notJarvisIfFolder(path)
	}
	err = checkHeader(path, st.Size())
	if err == nil {
		err = checkReadOnly(ctx, path)
	}
	if errors.Is(err, ErrNotJarvis) {
		return err
	}
	return nil
}

// keepOld reports whether the old database is kept aside rather than
// replaced, and says why.
func (r *Rebuild) keepOld() (why string, keep bool) {
	switch {
	case !r.exists:
		return "", false
	case r.Old.Damaged():
		return "broken", true
	case r.Old.Schema > LatestVersion():
		return "newer", true
	}
	return "", false
}

// CopyVectors copies the stored vectors and the embedders that made them,
// and the write journal (jarvis history and undo), from a sound database at the same schema version into fresh, the
// database open on r.Fresh: vectors are keyed by the text they embed, so
// those of unchanged notes are used again rather than made again, which
// takes minutes to hours with a neural model. A damaged database gives
// nothing: a vector read from a damaged page could be wrong without any
// error saying so.
func (r *Rebuild) CopyVectors(ctx context.Context, fresh *DB) error {
	if _, keep := r.keepOld(); keep || !r.exists || r.Old.Schema != LatestVersion() {
		return nil
	}
	conn, err := fresh.Conn(ctx)
	if err != nil {
		return fmt.Errorf("copy vectors: %w", err)
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, `ATTACH DATABASE ? AS old`, fileURI(r.Path)+"?mode=ro"); err != nil {
		return fmt.Errorf("copy vectors: %w", err)
	}
	defer conn.ExecContext(context.Background(), `DETACH DATABASE old`)
	tx, err := conn.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("copy vectors: %w", err)
	}
	defer tx.Rollback()
	// The write journal too: a rebuild must not take away the undo of
	// the user's writes.
	for _, table := range []string{"embedders", "vectors", "writes", "write_files"} {
		if _, err := tx.ExecContext(ctx, `INSERT INTO main.`+table+` SELECT * FROM old.`+table); err != nil {
			return fmt.Errorf("copy vectors: %w", err)
		}
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("copy vectors: %w", err)
	}
	return nil
}

// Commit puts the fresh index in the database's place. Everything that
// had the fresh file open must have closed it first, so that the file
// alone is the whole index. A damaged database, or one of a newer jarvis,
// is kept beside it as <db>.broken-<UTC time> (or .newer-), with its -wal
// and -shm, and Commit returns that name; a sound one is replaced, its
// -wal and -shm removed first so that they are never taken for the fresh
// file's. A process still reading the old file keeps reading it until it
// opens the database again (a server does on its next check).
func (r *Rebuild) Commit(now time.Time) (backup string, err error) {
	if nonEmpty(r.Fresh + "-wal") {
		return "", fmt.Errorf("rebuild %s: the fresh index was not closed", r.Path)
	}
	for _, suffix := range []string{"-wal", "-shm"} {
		if err := removeIfThere(r.Fresh + suffix); err != nil {
			return "", fmt.Errorf("rebuild %s: %w", r.Path, err)
		}
	}
	if why, keep := r.keepOld(); keep {
		backup = beside(r.Path, "."+why+"-"+now.UTC().Format("20060102T150405Z"))
		if err := keepAside(r.real, backup); err != nil {
			return "", fmt.Errorf("rebuild %s: keep the old file: %w", r.Path, err)
		}
	} else {
		for _, suffix := range []string{"-wal", "-shm"} {
			if err := removeIfThere(beside(r.Path, suffix)); err != nil {
				return "", fmt.Errorf("rebuild %s: %w", r.Path, err)
			}
		}
	}
	if err := os.Rename(r.Fresh, r.real); err != nil {
		return "", fmt.Errorf("rebuild %s: put the fresh index in place (is a jarvis server using it on a system that forbids replacing an open file? stop it and run again): %w", r.Path, err)
	}
	syncDir(filepath.Dir(r.real))
	return backup, nil
}

// keepAside gives the database at path, with its -wal and -shm, the name
// backup. The main file gets its second name by a hard link where the
// file system has them, so that path names a file at every moment until
// the fresh index replaces it; elsewhere it is renamed.
func keepAside(path, backup string) error {
	for _, suffix := range []string{"-wal", "-shm"} {
		if err := os.Rename(path+suffix, backup+suffix); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
	}
	if os.Link(path, backup) == nil {
		return nil
	}
	return os.Rename(path, backup)
}

// Close gives the writer lock back and removes the fresh file unless
// Commit put it in place.
func (r *Rebuild) Close() {
	r.removeFresh()
	if r.unlock != nil {
		r.unlock()
		r.unlock = nil
	}
}

// removeFresh removes the fresh file and its companions.
func (r *Rebuild) removeFresh() error {
	for _, suffix := range []string{"", "-wal", "-shm", "-journal", ".lock"} {
		if err := removeIfThere(r.Fresh + suffix); err != nil {
			return fmt.Errorf("rebuild %s: %w", r.Path, err)
		}
	}
	return nil
}

func removeIfThere(path string) error {
	if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return nil
}

// syncDir makes a rename in dir durable where the system allows it.
func syncDir(dir string) {
	if d, err := os.Open(dir); err == nil {
		d.Sync()
		d.Close()
	}
}

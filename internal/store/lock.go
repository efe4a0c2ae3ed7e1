package store

import (
	"context"
	"fmt"
	"os"
	"time"

	"github.com/jarvis-mcp/jarvis/internal/config"
)

// beside is the path of a file kept beside the database at path: its
// -wal, -shm or -journal (suffix), which SQLite makes beside the real file
// when path is a symbolic link or lies in a folder that is one, and so
// jarvis's .lock too, that two paths to one database share one lock.
func beside(path, suffix string) string {
	return realFile(path) + suffix
}

// realFile is where the database at path really is (config.RealPath):
// the file a rebuild replaces, and the one beside which every file jarvis
// makes for it lies.
func realFile(path string) string { return config.RealPath(path) }

// lockPath is the writer lock's file for the database at path.
func lockPath(path string) string { return beside(path, ".lock") }

// lockPoll is how often a writer waiting for the lock tries again.
const lockPoll = 50 * time.Millisecond

// LockWriters waits until no other writer, in this process or another,
// holds the database's writer lock, takes it and returns the function that
// gives it back. Index runs, vector syncs and rebuilds take it: Claude
// Desktop, Claude Code and Cursor each start their own jarvis mcp, all on
// the default database, and two index runs planned from the same state
// would both insert the same new files. SQLite serialises single writes,
// not a run's plan and its writes. The lock is an advisory lock on the
// file <db>.lock, released by the system if the process dies.
//
// Once it holds the lock, the writer works on the file the path names:
// one that took the place of the open file (a rebuild's) is opened, and
// when the file was deleted a new one is made, for the writer to fill.
func (db *DB) LockWriters(ctx context.Context) (func(), error) {
	unlock, err := lockWriters(ctx, db.Path, db.OnWait)
	if err != nil {
		return nil, err
	}
	db.follow(ctx, true)
	return unlock, nil
}

// lockWriters takes the writer lock of the database at path, calling
// onWait (when not nil) once if it has to wait.
func lockWriters(ctx context.Context, path string, onWait func()) (func(), error) {
	f, err := os.OpenFile(lockPath(path), os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, fmt.Errorf("writer lock: %w", err)
	}
	for first := true; ; first = false {
		ok, err := tryLock(f)
		if err != nil {
			f.Close()
			return nil, fmt.Errorf("writer lock: %w", err)
		}
		if ok {
			return func() {
				unlockFile(f)
				f.Close()
			}, nil
		}
		if first && onWait != nil {
			onWait()
		}
		select {
		case <-ctx.Done():
			f.Close()
			return nil, fmt.Errorf("writer lock: %w", ctx.Err())
		case <-time.After(lockPoll):
		}
	}
}

// writerWatch is how long WriterAlive watches the writer lock before it
// calls it free: several times the moment a vector sync gives the lock
// up between turns (its yieldWriters, 75 ms), so a live sync is seen.
const writerWatch = 4 * lockPoll

// WriterAlive reports whether a writer (an index run or a vector sync,
// of this process or another) holds the writer lock of the database at
// path now. Progress a run recorded in the database is live only while
// this holds: the system gives the lock back when the process dies, as
// after a kill -9, while its last progress row stays as it was.
func WriterAlive(ctx context.Context, path string) bool {
	f, err := os.OpenFile(lockPath(path), os.O_RDWR, 0)
	if err != nil {
		if f, err = os.Open(lockPath(path)); err != nil {
			// No lock file: no writer ever ran here; one that cannot
			// be opened cannot be watched.
			return false
		}
	}
	defer f.Close()
	deadline := time.Now().Add(writerWatch)
	for {
		ok, err := tryLock(f)
		if err != nil {
			return false
		}
		if !ok {
			return true
		}
		unlockFile(f)
		if time.Now().After(deadline) {
			return false
		}
		select {
		case <-ctx.Done():
			return false
		case <-time.After(lockPoll):
		}
	}
}

// LockedNow reports whether another program holds the database at path
// locked for writing right now, so that a write would wait for it (and
// fail after busy_timeout). Reads go on meanwhile (WAL), so only this says
// the lock. It only looks: nothing is opened for writing, nothing created.
func LockedNow(path string) bool {
	return walWriterLocked(path)
}

// busyTimeout is how long a statement waits for another program's lock
// on the database file (the DSN's busy_timeout, in milliseconds).
const busyTimeout = 10000

// WaitWritable waits, as a write would (up to the busy timeout), until
// no other program holds the database file locked against writing: a
// sqlite3 shell in a transaction, a backup tool. It calls onBusy, when
// not nil, once it finds the file locked and before it waits, so that a
// run can say it waits, and time its own work apart from the wait. The
// writer lock (LockWriters) keeps other jarvis processes out; this is
// for programs that do not take it.
func (db *DB) WaitWritable(ctx context.Context, onBusy func()) error {
	conn, err := db.Conn(ctx)
	if err != nil {
		return fmt.Errorf("wait for the database: %w", err)
	}
	defer conn.Close()
	try := func(timeout int) error {
		if _, err := conn.ExecContext(ctx, fmt.Sprintf("PRAGMA busy_timeout = %d", timeout)); err != nil {
			return err
		}
		if _, err := conn.ExecContext(ctx, "BEGIN IMMEDIATE"); err != nil {
			return err
		}
		_, err := conn.ExecContext(ctx, "ROLLBACK")
		return err
	}
	err = try(0)
	if Classify(err) == KindBusy {
		if onBusy != nil {
			onBusy()
		}
		err = try(busyTimeout)
	}
	// The connection goes back to the pool as the DSN set it.
	if _, rerr := conn.ExecContext(context.WithoutCancel(ctx), fmt.Sprintf("PRAGMA busy_timeout = %d", busyTimeout)); rerr != nil && err == nil {
		err = rerr
	}
	if err != nil {
		return fmt.Errorf("wait for the database: %w", err)
	}
	return nil
}

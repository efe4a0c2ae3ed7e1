package store

import (
	"context"
	"fmt"
	"os"
	"time"
)

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
	f, err := os.OpenFile(path+".lock", os.O_RDWR|os.O_CREATE, 0o644)
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

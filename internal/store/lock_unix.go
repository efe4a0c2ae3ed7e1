//go:build unix

package store

import (
	"errors"
	"io"
	"os"

	"golang.org/x/sys/unix"
)

// tryLock takes an exclusive flock on f without waiting, reporting false
// when another open file holds it.
func tryLock(f *os.File) (bool, error) {
	err := unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB)
	if errors.Is(err, unix.EWOULDBLOCK) {
		return false, nil
	}
	return err == nil, err
}

func unlockFile(f *os.File) { unix.Flock(int(f.Fd()), unix.LOCK_UN) }

// walWriterLocked reports whether another process holds the WAL write
// lock of the database at path. SQLite's unix VFS takes it, for as long as
// a write transaction is open, as a write lock on byte 120 of the -shm
// file (WALINDEX_LOCK_OFFSET, the first of its locks); readers lock other
// bytes. F_GETLK asks without taking anything; it does not see this
// process's own locks.
func walWriterLocked(path string) bool {
	f, err := os.Open(beside(path, "-shm"))
	if err != nil {
		return false
	}
	defer f.Close()
	lk := unix.Flock_t{Type: unix.F_WRLCK, Whence: io.SeekStart, Start: 120, Len: 1}
	if err := unix.FcntlFlock(f.Fd(), unix.F_GETLK, &lk); err != nil {
		return false
	}
	return lk.Type != unix.F_UNLCK
}

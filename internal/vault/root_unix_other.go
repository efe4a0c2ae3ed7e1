//go:build unix && !linux

package vault

import (
	"errors"
	"sync/atomic"

	"golang.org/x/sys/unix"
)

// errNoOpenat2 says the kernel cannot refuse links by itself, so the path
// is walked a name at a time.
var errNoOpenat2 = errors.New("openat2 is unavailable")

// noOpenat2 is always true here; it exists for the tests that turn the
// fast path off on Linux.
var noOpenat2 atomic.Bool

func openBeneath(int, string) (int, error) { return -1, errNoOpenat2 }

// openedPath is not asked of these kernels: the walk itself keeps to the
// vault.
func openedPath(int) (string, bool) { return "", false }

// describeAt describes the name in the folder dirFD without following a
// link, its birth time from the same call where the system's stat has one
// (statBirth).
func describeAt(dirFD int, name string) (entry, error) {
	var st unix.Stat_t
	if err := unix.Fstatat(dirFD, name, &st, unix.AT_SYMLINK_NOFOLLOW); err != nil {
		return entry{}, err
	}
	return fromStat(&st), nil
}

// openedCreated is the birth time of the file open on fd, 0 when unknown.
func openedCreated(fd int) int64 {
	var st unix.Stat_t
	if unix.Fstat(fd, &st) != nil {
		return 0
	}
	return statBirth(&st)
}

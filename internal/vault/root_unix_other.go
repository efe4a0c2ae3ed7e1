//go:build unix && !linux

package vault

import (
	"errors"
	"sync/atomic"
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

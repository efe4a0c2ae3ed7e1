//go:build unix

package vault

import (
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

func mkfifo(p string) error { return unix.Mkfifo(p, 0o644) }

// TestRootOpenByWalkAlone runs the refusals and the swap race through the
// name-by-name walk alone, without openat2 and without asking the kernel
// where the file is: the path macOS and the BSDs take.
func TestRootOpenByWalkAlone(t *testing.T) {
	was := noOpenat2.Load()
	noOpenat2.Store(true)
	askKernel = func(int) (string, bool) { return "", false }
	t.Cleanup(func() { noOpenat2.Store(was); askKernel = openedPath })
	t.Run("refusals", checkRefusals)
	t.Run("swap race", func(t *testing.T) { checkSwapRace(t, 2*time.Second) })
}

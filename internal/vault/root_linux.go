package vault

import (
	"errors"
	"strconv"
	"sync/atomic"

	"golang.org/x/sys/unix"
)

// errNoOpenat2 says the kernel cannot refuse links by itself, so the path
// is walked a name at a time.
var errNoOpenat2 = errors.New("openat2 is unavailable")

// noOpenat2 is set once openat2 has been found missing (kernels before
// 5.6) or forbidden (some container sandboxes), so it is not tried again.
var noOpenat2 atomic.Bool

// openBeneath opens rel beneath the folder dirFD in one call, the kernel
// refusing any symbolic link on the way (ELOOP) and any step out of the
// folder.
func openBeneath(dirFD int, rel string) (int, error) {
	if noOpenat2.Load() {
		return -1, errNoOpenat2
	}
	how := unix.OpenHow{
		Flags:   openFlags,
		Resolve: unix.RESOLVE_BENEATH | unix.RESOLVE_NO_SYMLINKS | unix.RESOLVE_NO_MAGICLINKS,
	}
	fd, err := unix.Openat2(dirFD, rel, &how)
	switch {
	case err == nil:
		return fd, nil
	case errors.Is(err, unix.ENOSYS), errors.Is(err, unix.EPERM), errors.Is(err, unix.E2BIG):
		noOpenat2.Store(true)
		return -1, errNoOpenat2
	case errors.Is(err, unix.EXDEV), errors.Is(err, unix.EAGAIN):
		// EXDEV: a step out (not possible for a checked path, but then the
		// walk decides); EAGAIN: a rename raced the lookup. Both walk.
		return -1, errNoOpenat2
	}
	return -1, err
}

// openedPath is where the file open on fd is, as the kernel says.
func openedPath(fd int) (string, bool) {
	buf := make([]byte, 4096)
	n, err := unix.Readlink("/proc/self/fd/"+strconv.Itoa(fd), buf)
	if err != nil || n == len(buf) || n == 0 || buf[0] != '/' {
		return "", false
	}
	return string(buf[:n]), true
}

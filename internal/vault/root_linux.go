package vault

import (
	"errors"
	"strconv"
	"sync/atomic"
	"time"

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

// statxMask asks statx for what lstat gives the scan, and the birth time.
const statxMask = unix.STATX_TYPE | unix.STATX_MODE | unix.STATX_NLINK | unix.STATX_SIZE | unix.STATX_MTIME | unix.STATX_BTIME

// noStatx is set once statx has been found missing (kernels before 4.11)
// or forbidden (some container sandboxes), so it is not tried again.
var noStatx atomic.Bool

// describeAt describes the name in the folder dirFD without following a
// link, in one statx call, which gives the birth time where the file
// system keeps it (ext4, XFS, Btrfs; tmpfs from Linux 5.17); where statx
// cannot be called, by fstatat without it.
func describeAt(dirFD int, name string) (entry, error) {
	if !noStatx.Load() {
		var sx unix.Statx_t
		err := unix.Statx(dirFD, name, unix.AT_SYMLINK_NOFOLLOW|unix.AT_STATX_SYNC_AS_STAT, statxMask, &sx)
		if err == nil {
			return fromStatx(&sx), nil
		}
		if !errors.Is(err, unix.ENOSYS) && !errors.Is(err, unix.EPERM) {
			return entry{}, err
		}
	}
	var st unix.Stat_t
	if err := unix.Fstatat(dirFD, name, &st, unix.AT_SYMLINK_NOFOLLOW); err != nil {
		return entry{}, err
	}
	noStatx.Store(true) // statx failed where fstatat did not
	return fromStat(&st), nil
}

func fromStatx(sx *unix.Statx_t) entry {
	return entry{mode: uint32(sx.Mode), nlink: uint64(sx.Nlink), size: int64(sx.Size),
		mtime: time.Unix(sx.Mtime.Sec, int64(sx.Mtime.Nsec)).UnixNano(), created: statxBirth(sx)}
}

// statxBirth is the birth time statx gave, 0 when the file system does
// not keep one (it leaves STATX_BTIME out of the mask, or gives zero).
func statxBirth(sx *unix.Statx_t) int64 {
	if sx.Mask&unix.STATX_BTIME == 0 {
		return 0
	}
	return birthNano(sx.Btime.Sec, int64(sx.Btime.Nsec))
}

// openedCreated is the birth time of the file open on fd, 0 when unknown.
func openedCreated(fd int) int64 {
	if noStatx.Load() {
		return 0
	}
	var sx unix.Statx_t
	if unix.Statx(fd, "", unix.AT_EMPTY_PATH|unix.AT_STATX_SYNC_AS_STAT, unix.STATX_BTIME, &sx) != nil {
		return 0
	}
	return statxBirth(&sx)
}

// statBirth is 0: Linux's stat has no birth time; statx gives it.
func statBirth(*unix.Stat_t) int64 { return 0 }

//go:build darwin || freebsd || netbsd

package vault

import "golang.org/x/sys/unix"

// statBirth is the birth time stat gives on macOS, FreeBSD and NetBSD,
// 0 when the file system does not keep one.
func statBirth(st *unix.Stat_t) int64 { return birthNano(st.Btim.Unix()) }

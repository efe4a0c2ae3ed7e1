//go:build unix

package store

import (
	"os"
	"syscall"

	"golang.org/x/sys/unix"
)

// ProbeFile asks the system what this process may do with path: access(2)
// for reading and writing, the owner from stat(2).
func ProbeFile(path string) (FileAccess, error) {
	fa, st, err := statAccess(path)
	if err != nil || !fa.Exists {
		return fa, err
	}
	if s, ok := st.Sys().(*syscall.Stat_t); ok {
		fa.Owner = int(s.Uid)
	}
	fa.Read = unix.Access(path, unix.R_OK) == nil
	write := uint32(unix.W_OK)
	if fa.IsDir {
		write |= unix.X_OK // creating a file in a folder needs both
	}
	fa.Write = unix.Access(path, write) == nil
	return fa, nil
}

func currentUser() int { return os.Geteuid() }

//go:build unix

package main

import "syscall"

// openFilesLimit is the most descriptors this process may hold open at
// once: RLIMIT_NOFILE's soft limit, which the Go runtime raises to the
// hard limit at start. ok is false when it cannot be read.
func openFilesLimit() (limit uint64, ok bool) {
	var rl syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &rl); err != nil {
		return 0, false
	}
	return uint64(rl.Cur), true
}

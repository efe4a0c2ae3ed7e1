//go:build !unix

package main

// openFilesLimit reports no limit where the system sets none per process
// that a connection could exhaust: Windows allows a process some sixteen
// million handles.
func openFilesLimit() (limit uint64, ok bool) {
	return 0, false
}

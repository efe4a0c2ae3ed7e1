//go:build unix && !linux

package write

// renameNoReplace is done by a hard link and an unlink on these systems.
func renameNoReplace(int, string, int, string) error { return errNoReplaceUnsupported }

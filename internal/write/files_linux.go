package write

import (
	"errors"

	"golang.org/x/sys/unix"
)

// renameNoReplace is renameat2 with RENAME_NOREPLACE; file systems that
// cannot (EINVAL) are told by errNoReplaceUnsupported.
func renameNoReplace(fromFD int, a string, toFD int, b string) error {
	err := unix.Renameat2(fromFD, a, toFD, b, unix.RENAME_NOREPLACE)
	if errors.Is(err, unix.EINVAL) || errors.Is(err, unix.ENOSYS) {
		return errNoReplaceUnsupported
	}
	return err
}

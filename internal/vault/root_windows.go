package vault

import (
	"os"
	"strings"

	"golang.org/x/sys/windows"
)

// openedPath is where the file open as f is, as Windows says.
func openedPath(f *os.File) (string, bool) {
	buf := make([]uint16, windows.MAX_LONG_PATH)
	n, err := windows.GetFinalPathNameByHandle(windows.Handle(f.Fd()), &buf[0], uint32(len(buf)), 0) // normalized name, drive letter
	if err != nil || n == 0 || int(n) >= len(buf) {
		return "", false
	}
	p := windows.UTF16ToString(buf[:n])
	if rest, ok := strings.CutPrefix(p, `\\?\UNC\`); ok {
		p = `\\` + rest
	} else {
		p = strings.TrimPrefix(p, `\\?\`)
	}
	return p, true
}

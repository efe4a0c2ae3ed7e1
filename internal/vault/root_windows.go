package vault

import (
	"io/fs"
	"os"
	"strings"
	"syscall"

	"golang.org/x/sys/windows"
)

// mustKnowPath: on Windows a junction is not a symbolic link to Lstat, so
// the opened handle's final path is the check that catches one, and an
// open whose path cannot be read is refused.
const mustKnowPath = true

// finalPath is the vault folder as Windows names it for an open handle (a
// mapped or subst drive named by what it maps), so that opened files'
// final paths compare with it; the path itself when that cannot be read.
func finalPath(dir string) string {
	f, err := os.Open(dir)
	if err != nil {
		return dir
	}
	defer f.Close()
	if p, ok := openedPath(f); ok {
		return p
	}
	return dir
}

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

// infoCreated is the creation time Windows keeps of every file, from the
// same listing or open that gave info; 0 when it is not there.
func infoCreated(info fs.FileInfo) int64 {
	d, ok := info.Sys().(*syscall.Win32FileAttributeData)
	if !ok || (d.CreationTime.HighDateTime == 0 && d.CreationTime.LowDateTime == 0) {
		return 0
	}
	return d.CreationTime.Nanoseconds()
}

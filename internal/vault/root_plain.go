//go:build !unix && !windows

package vault

import (
	"io/fs"
	"os"
)

// openedPath is not known on these systems; os.Root alone keeps opens
// beneath the vault folder.
func openedPath(*os.File) (string, bool) { return "", false }

// mustKnowPath is false: these systems cannot say, and os.Root keeps the
// open beneath the vault folder.
const mustKnowPath = false

func finalPath(dir string) string { return dir }

// infoCreated is 0: these systems do not say when a file was made.
func infoCreated(fs.FileInfo) int64 { return 0 }

//go:build !unix && !windows

package vault

import "os"

// openedPath is not known on these systems; os.Root alone keeps opens
// beneath the vault folder.
func openedPath(*os.File) (string, bool) { return "", false }

// mustKnowPath is false: these systems cannot say, and os.Root keeps the
// open beneath the vault folder.
const mustKnowPath = false

func finalPath(dir string) string { return dir }

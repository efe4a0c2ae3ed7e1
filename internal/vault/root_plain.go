//go:build !unix && !windows

package vault

import "os"

// openedPath is not known on these systems; os.Root alone keeps opens
// beneath the vault folder.
func openedPath(*os.File) (string, bool) { return "", false }

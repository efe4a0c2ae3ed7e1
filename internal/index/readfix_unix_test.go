//go:build unix

package index

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jarvis-mcp/jarvis/internal/sharedtest"
)

// TestReadFixOfAFileAnotherUserOwns: chmod works only for a file's owner,
// so a file another user owns (root's, after a sudo run) gets chown, and
// whose it is. The file is given away with chown, which needs root: the
// tests run as root in CI.
func TestReadFixOfAFileAnotherUserOwns(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("giving a file to another user needs root")
	}
	root := t.TempDir()
	sharedtest.WriteFile(t, root, "theirs.md", "x")
	p := filepath.Join(root, "theirs.md")
	if err := os.Chown(p, 4242, 4242); err != nil {
		t.Fatal(err)
	}
	got := ReadFix(p)
	if !strings.HasPrefix(got, "`sudo chown $USER "+p+"`") || !strings.Contains(got, "belongs to") || strings.Contains(got, "chmod") {
		t.Errorf("readFix = %s; want a chown naming the owner", got)
	}
}

package index

import (
	"testing"

	"github.com/jarvis-mcp/jarvis/internal/vault"
)

// TestPlanReadsAgainANoteItMayNotRead: a note whose time and size are as
// stored is unchanged, unless the scan found it may not be read (its
// rights changed, which changes neither): then it is read again, so that
// the run says it cannot be, rather than counting it unchanged.
func TestPlanReadsAgainANoteItMayNotRead(t *testing.T) {
	known := func() map[string]*existing {
		return map[string]*existing{"A.md": {path: "A.md", size: 5, mtime: 100, note: true}}
	}
	for _, unreadable := range []bool{false, true} {
		work, same, _ := plan([]vault.File{{Path: "A.md", Size: 5, ModTime: 100, Note: true, Unreadable: unreadable}}, known(), nil)
		if got := len(work) == 1 && len(same) == 0; got != unreadable {
			t.Errorf("unreadable %v: %d to read, %d unchanged", unreadable, len(work), len(same))
		}
	}
}

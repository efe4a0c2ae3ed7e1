package index

import (
	"context"
	"path/filepath"
	"slices"
	"testing"

	"github.com/jarvis-mcp/jarvis/internal/config"
	"github.com/jarvis-mcp/jarvis/internal/sharedtest"
)

// TestIndexSaysTheWaitForALockedDatabase: with the database file locked
// by another program, `jarvis index` timed the wait as part of "scanning
// files". The run reports the wait as a phase of its own, after the scan
// and before the first write, so the scan is timed alone.
func TestIndexSaysTheWaitForALockedDatabase(t *testing.T) {
	ctx := context.Background()
	root := t.TempDir()
	sharedtest.WriteFile(t, root, "A.md", "# A\n")
	dbPath := filepath.Join(t.TempDir(), "j.db")
	ix, _ := testIndexer(t, dbPath)
	mustIndex(t, ix, "v", root)
	sharedtest.WriteFile(t, root, "B.md", "# B\n")

	conn := sharedtest.HoldWriteLock(t, dbPath)
	var phases []Phase
	_, err := ix.Index(ctx, config.Vault{Name: "v", Path: root}, func(phase Phase, done, total Counts) {
		if len(phases) == 0 || phases[len(phases)-1] != phase {
			phases = append(phases, phase)
		}
		if phase == PhaseLocked {
			// The other program is done as the run starts waiting.
			if _, err := conn.ExecContext(ctx, "ROLLBACK"); err != nil {
				t.Error(err)
			}
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	if want := []Phase{PhaseScan, PhaseLocked, PhaseWrite, PhaseLinks}; !slices.Equal(phases, want) {
		t.Errorf("phases %v; want %v", phases, want)
	}

	// Unlocked, no wait is reported.
	phases = nil
	sharedtest.WriteFile(t, root, "C.md", "# C\n")
	if _, err := ix.Index(ctx, config.Vault{Name: "v", Path: root}, func(phase Phase, _, _ Counts) {
		if len(phases) == 0 || phases[len(phases)-1] != phase {
			phases = append(phases, phase)
		}
	}); err != nil {
		t.Fatal(err)
	}
	if slices.Contains(phases, PhaseLocked) {
		t.Errorf("phases %v with the database unlocked", phases)
	}
}

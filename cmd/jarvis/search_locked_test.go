package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/jarvis-mcp/jarvis/internal/sharedtest"
)

// TestSearchOnALockedDatabaseUsesTheStoredVectors: with another program
// holding the database in a write transaction, search could not bring
// the index up to date and then said semantic search had no vectors yet,
// offering `jarvis index`, which waits for the same lock, though every
// passage had one. The stored vectors are read (WAL lets reads go on), and
// no command that cannot work while the lock is held is offered.
func TestSearchOnALockedDatabaseUsesTheStoredVectors(t *testing.T) {
	vault := t.TempDir()
	sharedtest.WriteFile(t, vault, "Kettle.md", "# Kettle\nThe kettle boils water for tea.\n")
	sharedtest.WriteFile(t, vault, "Beans.md", "# Beans\nCoffee beans are ground before brewing.\n")
	db := filepath.Join(t.TempDir(), "j.db")
	if code, _, stderr := jarvis(t, nil, "index", "--vault", vault, "--db", db); code != 0 {
		t.Fatalf("index: exit %d: %s", code, stderr)
	}
	sharedtest.WriteFile(t, vault, "Tea.md", "# Tea\nTea leaves steep in hot water.\n") // work for the refresh

	sharedtest.HoldWriteLock(t, db) // as another program would

	_, stdout, stderr := jarvis(t, nil, "search", "--vault", vault, "--db", db, "kettle water")
	out := stdout + stderr
	if !strings.Contains(out, "locked by another program") {
		t.Errorf("the search does not say the lock:\n%s", out)
	}
	if strings.Contains(out, "no vectors yet") || strings.Contains(out, "`jarvis index") {
		t.Errorf("the search says there are no vectors, or offers a command the lock stops:\n%s", out)
	}
	if !strings.Contains(stdout, "semantic") {
		t.Errorf("no result found by meaning though every passage has a vector:\n%s", out)
	}
}

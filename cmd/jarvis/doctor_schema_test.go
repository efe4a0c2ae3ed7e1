package main

import (
	"database/sql"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jarvis-mcp/jarvis/internal/sharedtest"
)

// TestDoctorOnAFirstRunCutShort: a first index run killed before its
// migrations were done leaves a database at version 0. Doctor says once
// that the index is not set up yet, with the index run that sets it up,
// and the checks that need its tables say they were not checked because
// of it, not SQLite's words nor that the database is older than semantic
// search. Following the fix makes doctor healthy.
func TestDoctorOnAFirstRunCutShort(t *testing.T) {
	base := t.TempDir()
	vault := filepath.Join(base, "help")
	sharedtest.WriteFile(t, vault, "A.md", "# A\n\n[[B]]\n")
	sharedtest.WriteFile(t, vault, "B.md", "# B\n")
	db := filepath.Join(base, "j.db")
	raw, err := sql.Open("sqlite", db)
	if err != nil {
		t.Fatal(err)
	}
	// As migrate leaves it when stopped between making its record and
	// committing the first migration.
	if _, err := raw.Exec(`CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL)`); err != nil {
		t.Fatal(err)
	}
	raw.Close()
	args := []string{"--vault", vault, "--db", db}

	_, stdout, _ := jarvis(t, nil, append([]string{"doctor"}, args...)...)
	for _, bad := range []string{"SQL", "no such table", "predates", "version 0", "see the database check above"} {
		if strings.Contains(stdout, bad) {
			t.Errorf("doctor says %q:\n%s", bad, stdout)
		}
	}
	if line := lineOf(t, stdout, "schema version:"); !strings.Contains(line, "the index is not set up yet: the first index run was cut short (or has not run)") {
		t.Errorf("schema version: %q", line)
	}
	for _, name := range []string{"index freshness help", "index warnings help", "other vaults", "unresolved links help", "heading links help", "embedder"} {
		if line := lineOf(t, stdout, name+":"); !strings.HasPrefix(line, "skip") || !strings.HasSuffix(line, "not checked: the index is not set up yet (see schema version)") {
			t.Errorf("%s: %q", name, line)
		}
	}
	follow(t, fixFor(t, stdout, "schema version"))
	assertHealthy(t, args...)
}

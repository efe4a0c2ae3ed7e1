package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/jarvis-mcp/jarvis/internal/sharedtest"
)

// TestSetupWarnsOfADatabaseItCannotMake: an entry whose database cannot
// be made by this user would start a server that fails at once; setup
// says so, with the fix, and says nothing of a database it can make.
func TestSetupWarnsOfADatabaseItCannotMake(t *testing.T) {
	vault := filepath.Join(t.TempDir(), "vault")
	sharedtest.WriteFile(t, vault, "Grinder.md", "# Grinder\n")
	dir := t.TempDir()
	as := func(e *env) { e.dbProbe = probeAs(dir) }

	db := filepath.Join(dir, "rootonly", "j.db")
	code, _, stderr := jarvisIn(t, nil, as, "setup", "claude", "--print", "--vault", vault, "--db", db)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, w := range []string{"warning: the entry names the database " + db + ", which jarvis cannot use: ",
		dir + " is a folder you cannot create files in", "choose another --db"} {
		if !strings.Contains(stderr, w) {
			t.Errorf("setup --print lacks %q:\n%s", w, stderr)
		}
	}
	sharedtest.CheckWords(t, "setup claude --print", stderr)

	fine := filepath.Join(t.TempDir(), "j.db")
	if _, _, stderr := jarvisIn(t, nil, as, "setup", "claude", "--print", "--vault", vault, "--db", fine); strings.Contains(stderr, "warning") {
		t.Errorf("setup warns of a database it can make:\n%s", stderr)
	}
}

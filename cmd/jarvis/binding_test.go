package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/jarvis-mcp/jarvis/internal/sharedtest"
)

// TestVaultGivenOtherRulesIsRefused: a vault indexed from the config file
// with an exclude pattern, then given by a symbolic link to its folder
// under the same name (so the config's pattern does not apply), is refused
// by jarvis index and jarvis mcp before they index or serve anything,
// with a message naming the vault, both folders and rules, and the fix.
func TestVaultGivenOtherRulesIsRefused(t *testing.T) {
	dir := t.TempDir()
	folder := filepath.Join(dir, "notes")
	if err := os.MkdirAll(filepath.Join(folder, "Secret"), 0o755); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(folder, "Public.md"), []byte("# Public\n"), 0o644)
	os.WriteFile(filepath.Join(folder, "Secret", "Plan.md"), []byte("# Plan\n"), 0o644)
	link := filepath.Join(dir, "links", "notes")
	os.MkdirAll(filepath.Dir(link), 0o755)
	if err := os.Symlink(folder, link); err != nil {
		t.Skipf("symbolic links: %v", err)
	}
	db := filepath.Join(dir, "j.db")
	cfgFile := filepath.Join(dir, "config.yaml")
	os.WriteFile(cfgFile, []byte("vaults:\n  - name: notes\n    path: "+folder+"\n    exclude: [\"Secret/\"]\n"), 0o644)
	if code, _, stderr := jarvis(t, nil, "index", "--config", cfgFile, "--db", db, "--no-embed"); code != 0 {
		t.Fatalf("index: exit %d: %s", code, stderr)
	}
	for _, cmd := range [][]string{
		{"index", "--vault", link, "--db", db, "--no-embed"},
		{"mcp", "--vault", link, "--db", db, "--watch=false"},
	} {
		code, _, stderr := jarvis(t, nil, cmd...)
		if code != 2 {
			t.Fatalf("%s: exit %d, want 2: %s", cmd[0], code, stderr)
		}
		for _, want := range []string{`vault "notes"`, folder, `exclude pattern "Secret/"`, link, "with no exclude patterns", "--forget notes`"} {
			if !strings.Contains(stderr, want) {
				t.Errorf("%s: the message does not say %q: %s", cmd[0], want, stderr)
			}
		}
		if fix := commandIn(t, stderr); !strings.Contains(fix, "--db") {
			t.Errorf("%s: the command %q does not name the database", cmd[0], fix)
		}
	}
	// The same folder and rules through the link are the same vault.
	if code, _, stderr := jarvis(t, nil, "index", "--config", cfgFile, "--vault", "notes", "--db", db, "--no-embed"); code != 0 {
		t.Fatalf("index again: exit %d: %s", code, stderr)
	}
}

// commandIn is the first command in backquotes in a message.
func commandIn(t *testing.T, msg string) string {
	t.Helper()
	m := regexp.MustCompile("`([^`]*)`").FindStringSubmatch(msg)
	if m == nil {
		t.Fatalf("no command in %q", msg)
	}
	return m[1]
}

// TestMovedVaultFixWorksAsPrinted indexes a vault given by --vault and
// --db, moves its folder, and runs the command the refusal suggests as
// printed: the vault is then indexed where it is now.
func TestMovedVaultFixWorksAsPrinted(t *testing.T) {
	dir := t.TempDir()
	before := filepath.Join(dir, "old", "notes")
	sharedtest.WriteFile(t, before, "A.md", "# A\n")
	db := filepath.Join(dir, "data dir", "j.db")
	if code, _, stderr := jarvis(t, nil, "index", "--vault", before, "--db", db, "--no-embed"); code != 0 {
		t.Fatalf("index: exit %d: %s", code, stderr)
	}
	after := filepath.Join(dir, "new", "notes")
	os.MkdirAll(filepath.Dir(after), 0o755)
	if err := os.Rename(before, after); err != nil {
		t.Fatal(err)
	}
	code, _, stderr := jarvis(t, nil, "index", "--vault", after, "--db", db, "--no-embed")
	if code != 2 {
		t.Fatalf("index after the move: exit %d: %s", code, stderr)
	}
	follow(t, commandIn(t, stderr))
	// The fix makes no vectors (--no-embed), so that it cannot fail for
	// the embedder; the next run makes them.
	if code, _, stderr := jarvis(t, nil, "index", "--vault", after, "--db", db); code != 0 {
		t.Fatalf("index after the fix: exit %d: %s", code, stderr)
	}
	assertHealthy(t, "--vault", after, "--db", db)
}

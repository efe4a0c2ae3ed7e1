package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
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
	os.WriteFile(cfgFile, []byte("vaults:\n  - name: notes\n    path: "+folder+"\n    exclude: [\"Secret/**\"]\n"), 0o644)
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
		for _, want := range []string{`vault "notes"`, folder, `["secret/**"]`, link, "exclude []", "jarvis index --forget notes"} {
			if !strings.Contains(stderr, want) {
				t.Errorf("%s: the message does not say %q: %s", cmd[0], want, stderr)
			}
		}
	}
	// The same folder and rules through the link are the same vault.
	if code, _, stderr := jarvis(t, nil, "index", "--config", cfgFile, "--vault", "notes", "--db", db, "--no-embed"); code != 0 {
		t.Fatalf("index again: exit %d: %s", code, stderr)
	}
}

package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jarvis-mcp/jarvis/internal/sharedtest"
)

// TestOverlappingVaultsRefused gives every command that reads vaults a
// folder and one inside it, in both orders, and one folder twice through
// a symbolic link: each refuses, naming both vaults, where without the
// check every note of the inner folder would be indexed and found twice.
// Doctor runs all the same and fails its configuration check.
func TestOverlappingVaultsRefused(t *testing.T) {
	base := t.TempDir()
	notes := filepath.Join(base, "Notes")
	work := filepath.Join(notes, "Work")
	sharedtest.WriteFile(t, work, "Plan.md", "# Plan\nquarterly budget\n")
	link := filepath.Join(base, "Notes link")
	if err := os.Symlink(notes, link); err != nil {
		t.Fatal(err)
	}
	db := filepath.Join(base, "j.db")
	for _, tc := range []struct {
		name, outer, inner string
		vaults             []string
	}{
		{"inner after outer", "Notes", "Work", []string{notes, work}},
		{"inner before outer", "Notes", "Work", []string{work, notes}},
		{"a link to the same folder", "Notes", "Notes link", []string{notes, link}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var flags []string
			for _, v := range tc.vaults {
				flags = append(flags, "--vault", v)
			}
			flags = append(flags, "--db", db)
			for _, cmd := range [][]string{{"index"}, {"search", "budget"}, {"mcp"}} {
				code, _, stderr := jarvis(t, nil, append(cmd, flags...)...)
				if code != 2 || !strings.Contains(stderr, `"`+tc.outer+`"`) || !strings.Contains(stderr, `"`+tc.inner+`"`) {
					t.Errorf("%s: exit %d: %s", cmd[0], code, stderr)
				}
			}
			code, stdout, _ := jarvis(t, nil, append([]string{"doctor"}, flags...)...)
			line := lineOf(t, stdout, "configuration:")
			if code != 2 || !strings.HasPrefix(line, "fail") || !strings.Contains(line, `"`+tc.inner+`"`) || !strings.Contains(stdout, "fix: give only one of them") {
				t.Errorf("doctor: exit %d:\n%s", code, stdout)
			}
		})
	}
	if _, err := os.Stat(db); err == nil {
		t.Error("a refused run made the database")
	}
}

// TestOverlapExcludedIsAccepted lists the outer vault in a config file
// with the inner folder excluded: both vaults are indexed, and a search
// finds the inner note once.
func TestOverlapExcludedIsAccepted(t *testing.T) {
	base := t.TempDir()
	notes := filepath.Join(base, "Notes")
	work := filepath.Join(notes, "Work")
	sharedtest.WriteFile(t, work, "Plan.md", "# Plan\nquarterly budget\n")
	sharedtest.WriteFile(t, notes, "Home.md", "# Home\n")
	cfg := filepath.Join(base, "config.yaml")
	sharedtest.WriteFile(t, base, "config.yaml", "vaults:\n  - name: all\n    path: "+notes+"\n    exclude: [\"Work/**\"]\n  - name: job\n    path: "+work+"\n")
	db := filepath.Join(base, "j.db")
	if code, _, stderr := jarvis(t, nil, "index", "--config", cfg, "--db", db, "--no-embed"); code != 0 {
		t.Fatalf("index: exit %d: %s", code, stderr)
	}
	code, stdout, stderr := jarvis(t, nil, "search", "budget", "--config", cfg, "--db", db, "--mode", "keyword")
	if code != 0 || strings.Count(stdout, "Plan.md") != 1 {
		t.Fatalf("search: exit %d: %s\n%s", code, stderr, stdout)
	}
}

// TestForgetAsDoctorPrintsWithNoVault indexes a vault into a database,
// then runs doctor with the database alone and no vault configured, takes
// the command doctor prints to drop that vault, and runs it as printed.
func TestForgetAsDoctorPrintsWithNoVault(t *testing.T) {
	base := t.TempDir()
	vault := filepath.Join(base, "vault-all")
	sharedtest.WriteFile(t, vault, "A.md", "# A\n")
	db := filepath.Join(base, "data dir", "j.db")
	if code, _, stderr := jarvis(t, nil, "index", "--vault", vault, "--db", db, "--no-embed"); code != 0 {
		t.Fatal(stderr)
	}

	_, stdout, _ := jarvis(t, nil, "doctor", "--db", db)
	line := lineOf(t, stdout, "other vault vault-all:")
	if !strings.Contains(line, "(1 note)") {
		t.Errorf("a wrong count in %q", line)
	}
	forget := commandIn(t, line)
	follow(t, forget)

	_, stdout, _ = jarvis(t, nil, "doctor", "--db", db)
	if strings.Contains(stdout, "other vault vault-all") {
		t.Fatalf("after %s doctor still finds the vault:\n%s", forget, stdout)
	}
}

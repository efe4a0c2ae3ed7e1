package main

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/jarvis-mcp/jarvis/internal/mcp"
	"github.com/jarvis-mcp/jarvis/internal/sharedtest"
)

// heldVaults are the names of the vaults the database at db holds.
func heldVaults(t *testing.T, db string) []string {
	t.Helper()
	rows, err := openRaw(t, db).Query(`SELECT name FROM vaults ORDER BY name`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var n string
		if err := rows.Scan(&n); err != nil {
			t.Fatal(err)
		}
		out = append(out, n)
	}
	return out
}

// TestMovedVaultIsSaid: a vault folder renamed and indexed at its new path
// is indexed as a vault of its own, and the run says which vault it looks
// like, with a --forget command that drops the old index when pasted;
// doctor says the old vault was probably moved.
func TestMovedVaultIsSaid(t *testing.T) {
	old := namedVault(t, "bv")
	moved := filepath.Join(filepath.Dir(old), "bv-renamed")
	db := filepath.Join(t.TempDir(), "j.db")
	mustIndex(t, nil, "--vault", old, "--db", db)
	if err := os.Rename(old, moved); err != nil {
		t.Fatal(err)
	}

	r := readCLI(t, nil, "index", "--vault", moved, "--db", db)
	if r.code != 0 {
		t.Fatalf("index of the moved vault: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	want := `this looks like vault "bv", moved from ` + old + " to " + moved
	if !strings.Contains(r.stderr, want) || !strings.Contains(r.stderr, "--forget bv`") {
		t.Fatalf("index of the moved vault does not say it looks moved (want %q):\n%s", want, r.stderr)
	}

	d := readCLI(t, nil, "doctor", "--vault", moved, "--db", db)
	line := ""
	for _, l := range strings.Split(d.stdout, "\n") {
		if strings.Contains(l, "other vault bv") {
			line = l
		}
	}
	wantDoctor := `its folder ` + old + ` is gone; the vault "bv-renamed" at ` + moved + ` holds the same notes: it was probably moved`
	if !strings.Contains(line, wantDoctor) {
		t.Errorf("doctor does not say vault bv was probably moved (want %q):\n%s", wantDoctor, d.stdout)
	}

	runSuggestions(t, nil, r)
	if got := heldVaults(t, db); !slices.Equal(got, []string{"bv-renamed"}) {
		t.Errorf("after the suggested --forget the database holds %q, want only bv-renamed", got)
	}
}

// TestMovedOnlyWhenTheNotesAreTheSame: with the database holding a vault
// whose folder is gone, a search that first indexes a vault says it looks
// like that vault moved when it holds the same notes, and not when it
// holds other notes; nor does doctor.
func TestMovedOnlyWhenTheNotesAreTheSame(t *testing.T) {
	for _, tc := range []struct {
		name  string
		moved bool
	}{
		{"the same notes", true},
		{"other notes", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			gone := namedVault(t, "bv")
			db := filepath.Join(t.TempDir(), "j.db")
			mustIndex(t, nil, "--vault", gone, "--db", db)
			other := filepath.Join(t.TempDir(), "garden")
			if tc.moved {
				if err := os.Rename(gone, other); err != nil {
					t.Fatal(err)
				}
			} else {
				if err := os.RemoveAll(gone); err != nil {
					t.Fatal(err)
				}
				sharedtest.WriteFile(t, other, "Roses.md", "# Roses\nPrune in early spring.\n")
				sharedtest.WriteFile(t, other, "Tea.md", "# Tea\nA camellia, grown in the greenhouse.\n")
				sharedtest.WriteFile(t, other, "Beds/Soil.md", "# Soil\nCompost every autumn.\n")
			}
			r := readCLI(t, nil, "search", "--vault", other, "--db", db, "tea")
			said := strings.Contains(r.stderr, `jarvis: this looks like vault "bv", moved from `+gone+" to "+other)
			if r.code != 0 || said != tc.moved {
				t.Errorf("search (exit %d) says the vault looks moved: %v, want %v:\n%s", r.code, said, tc.moved, r.stderr)
			}
			d := readCLI(t, nil, "doctor", "--vault", other, "--db", db)
			if said := strings.Contains(d.stdout, "it was probably moved"); said != tc.moved {
				t.Errorf("doctor says vault bv was probably moved: %v, want %v:\n%s", said, tc.moved, d.stdout)
			}
		})
	}
}

// TestMovedVaultIsSaidOverMCP: the server's index pass logs that the vault
// it serves looks moved, and health-status says it as doctor does.
func TestMovedVaultIsSaidOverMCP(t *testing.T) {
	old := namedVault(t, "bv")
	moved := filepath.Join(filepath.Dir(old), "bv-renamed")
	db := filepath.Join(t.TempDir(), "j.db")
	mustIndex(t, nil, "--vault", old, "--db", db, "--no-embed")
	if err := os.Rename(old, moved); err != nil {
		t.Fatal(err)
	}
	logPath := filepath.Join(t.TempDir(), "log")
	cs, _ := serve(t, []string{"HOME=" + t.TempDir()}, "--vault", moved, "--db", db, "--watch=false", "--log-file", logPath)
	eventually(t, "the index pass to log the move", func() bool {
		data, _ := os.ReadFile(logPath)
		return strings.Contains(string(data), `this looks like vault \"bv\", moved from `+old+" to "+moved)
	})
	eventually(t, "health-status to say the vault was probably moved", func() bool {
		var hs mcp.HealthOutput
		callTool(t, cs, mcp.ToolHealthStatus, nil, &hs)
		for _, c := range hs.Checks {
			if c.Name == "other vault bv" && strings.Contains(c.Detail, "it was probably moved") {
				return true
			}
		}
		return false
	})
}

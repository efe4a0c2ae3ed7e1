package main

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

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

// TestOtherVaultIsNotSaidMoved: a vault of other notes, indexed while the
// database holds a vault whose folder is gone, is not said to be that
// vault moved; nor is a search of it.
func TestOtherVaultIsNotSaidMoved(t *testing.T) {
	gone := namedVault(t, "bv")
	db := filepath.Join(t.TempDir(), "j.db")
	mustIndex(t, nil, "--vault", gone, "--db", db)
	if err := os.RemoveAll(gone); err != nil {
		t.Fatal(err)
	}
	other := filepath.Join(t.TempDir(), "garden")
	sharedtest.WriteFile(t, other, "Roses.md", "# Roses\nPrune in early spring.\n")
	sharedtest.WriteFile(t, other, "Tea.md", "# Tea\nA camellia, grown in the greenhouse.\n")
	sharedtest.WriteFile(t, other, "Beds/Soil.md", "# Soil\nCompost every autumn.\n")

	r := readCLI(t, nil, "search", "--vault", other, "--db", db, "roses")
	if r.code != 0 || strings.Contains(r.stderr, "looks like") {
		t.Errorf("search of another vault (exit %d) says it looks moved:\n%s", r.code, r.stderr)
	}
	d := readCLI(t, nil, "doctor", "--vault", other, "--db", db)
	if strings.Contains(d.stdout, "moved") {
		t.Errorf("doctor says a vault of other notes was moved:\n%s", d.stdout)
	}
}

// TestMovedVaultIsSaidBySearch: a search that indexes the moved vault
// first says it looks moved, as index does.
func TestMovedVaultIsSaidBySearch(t *testing.T) {
	old := namedVault(t, "bv")
	moved := filepath.Join(filepath.Dir(old), "bv-renamed")
	db := filepath.Join(t.TempDir(), "j.db")
	mustIndex(t, nil, "--vault", old, "--db", db)
	if err := os.Rename(old, moved); err != nil {
		t.Fatal(err)
	}
	r := readCLI(t, nil, "search", "--vault", moved, "--db", db, "coffee")
	if r.code != 0 || !strings.Contains(r.stderr, `jarvis: this looks like vault "bv", moved from `+old+" to "+moved) {
		t.Errorf("search of the moved vault (exit %d) does not say it looks moved:\n%s", r.code, r.stderr)
	}
}

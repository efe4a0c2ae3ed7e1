package main

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/jarvis-mcp/jarvis/internal/search"
	"github.com/jarvis-mcp/jarvis/internal/store"
)

// An empty answer of jarvis search says why when the reason is not the
// query: these tests give it each such reason.

// TestSearchNoRefreshWithoutDatabase: --no-refresh over a database never
// built says that nothing is indexed and gives the command that indexes,
// with the user's flags, in every mode; and it makes no database file.
func TestSearchNoRefreshWithoutDatabase(t *testing.T) {
	example, _ := filepath.Abs("../../examples/vault")
	db := filepath.Join(t.TempDir(), "never.db")
	for _, args := range [][]string{
		{"--mode", "keyword"}, {"--mode", "semantic"}, {"--mode", "combined"}, {"--names-only"},
	} {
		out := searchJSON(t, append([]string{"--vault", example, "--db", db, "--no-refresh", "pour over"}, args...)...)
		want := "Nothing is indexed yet for vault \"vault\": run `jarvis index --vault " + example + " --db " + db + "` to build the index"
		if len(out.Results) != 0 || !strings.Contains(out.Empty, want) {
			t.Errorf("%v: results %v, empty %q; want none, and %q", args, topPaths(out, 3), out.Empty, want)
		}
		if _, err := os.Stat(db); err == nil {
			t.Fatalf("%v: the search made the database file %s", args, db)
		}
	}
	code, stdout, _ := jarvis(t, nil, "search", "--vault", example, "--db", db, "--no-refresh", "pour over")
	if code != 0 || !strings.HasPrefix(stdout, "Nothing is indexed yet") {
		t.Errorf("exit %d:\n%s", code, stdout)
	}
}

// TestSearchMissingVaultFolder: a vault whose folder is missing does not
// keep the other vaults' results from coming; the answer names it, its
// path and what to do. Searched alone, it is a usage error saying the
// same, as index gives.
func TestSearchMissingVaultFolder(t *testing.T) {
	example, _ := filepath.Abs("../../examples/vault")
	gone := filepath.Join(t.TempDir(), "gone")
	db := filepath.Join(t.TempDir(), "j.db")
	want := `the folder of vault "gone" (` + gone + `) does not exist`
	out := searchJSON(t, "--vault", gone, "--vault", example, "--db", db, "--mode", "keyword", "pour over")
	if !slices.Contains(topPaths(out, 3), "Methods/Pour over.md") {
		t.Errorf("results %v; want the other vault's", topPaths(out, 3))
	}
	if !slices.ContainsFunc(out.Notes, func(n string) bool {
		return strings.Contains(n, want) && strings.Contains(n, "correct the vault's path")
	}) {
		t.Errorf("notes %q; want one saying %q and what to do", out.Notes, want)
	}
	code, _, stderr := jarvis(t, nil, "search", "--json", "--vault", gone, "--db", db, "pour over")
	if code != 2 || !strings.Contains(stderr, gone+" does not exist") {
		t.Errorf("the missing vault alone: exit %d, %q", code, stderr)
	}
}

// TestSearchFirstIndexUnfinished: over an index whose first run has not
// finished (another jarvis is building it, or it was cut off), --no-refresh
// says how far it got and how to finish it rather than that nothing
// matches.
func TestSearchFirstIndexUnfinished(t *testing.T) {
	example, _ := filepath.Abs("../../examples/vault")
	db := filepath.Join(t.TempDir(), "j.db")
	if code, _, stderr := jarvis(t, nil, "index", "--vault", example, "--db", db); code != 0 {
		t.Fatalf("index: exit %d: %s", code, stderr)
	}
	// What a first run that has not finished leaves: notes, and no time
	// of a finished run.
	conn, err := store.Open(context.Background(), db, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := conn.Exec(`UPDATE vaults SET last_indexed_ms = NULL`); err != nil {
		t.Fatal(err)
	}
	conn.Close()
	for _, mode := range []search.Mode{search.ModeKeyword, search.ModeSemantic, search.ModeCombined} {
		out := searchJSON(t, "--vault", example, "--db", db, "--no-refresh", "--mode", string(mode), "kubernetes autoscaling")
		if len(out.Results) != 0 || !strings.Contains(out.Empty, `The first index of vault "vault" is not finished (`) ||
			!strings.Contains(out.Empty, "`jarvis index --vault "+example+" --db "+db+"`") {
			t.Errorf("%s: results %v, empty %q", mode, topPaths(out, 3), out.Empty)
		}
	}
}

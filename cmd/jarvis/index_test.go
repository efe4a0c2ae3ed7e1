package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jarvis-mcp/jarvis/internal/index"
	"github.com/jarvis-mcp/jarvis/internal/search/vectors"
	"github.com/jarvis-mcp/jarvis/internal/sharedtest"
)

// TestIndexSaysADamagedPage damages, in a sound index, the first page of
// a table that jarvis index reads as it runs (not one that opening the
// database reads), and runs it: it exits 1, in the words the database's
// trouble is said in everywhere (damaged, and the --rebuild that fixes
// it), never with SQLite's own message or result code. Both an index run
// and --forget, which reads the rows of the vault it drops, are tried.
func TestIndexSaysADamagedPage(t *testing.T) {
	example, _ := filepath.Abs("../../examples/vault")
	sound := filepath.Join(t.TempDir(), "sound.db")
	if code, _, stderr := jarvis(t, nil, "index", "--vault", example, "--db", sound, "--no-embed"); code != 0 {
		t.Fatalf("index: exit %d: %s", code, stderr)
	}
	checkpoint(t, sound)
	for _, tc := range []struct {
		name, table string
		args        []string
	}{
		{"an index run reading the files", "files", []string{"--vault", example, "--no-embed"}},
		{"--forget deleting the vault's links", "links", []string{"--forget", "vault"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			db := filepath.Join(t.TempDir(), "j.db")
			copyFile(t, sound, db)
			var root int
			raw := openRaw(t, db)
			err := raw.QueryRow(`SELECT rootpage FROM sqlite_master WHERE type = 'table' AND name = ?`, tc.table).Scan(&root)
			raw.Close()
			if err != nil {
				t.Fatal(err)
			}
			sharedtest.DamagePage(t, db, root, 7)
			code, _, stderr := jarvis(t, nil, append([]string{"index", "--db", db}, tc.args...)...)
			if code != 1 {
				t.Fatalf("exit %d; want 1 for a damaged database: %s", code, stderr)
			}
			if !strings.Contains(stderr, db+" is damaged") || !strings.Contains(stderr, "--rebuild`") {
				t.Errorf("stderr does not say the database is damaged and how to fix it:\n%s", stderr)
			}
			for _, raw := range []string{"malformed", "(11)"} {
				if strings.Contains(stderr, raw) {
					t.Errorf("stderr says SQLite's %q:\n%s", raw, stderr)
				}
			}
		})
	}
}

// TestIndexSummarySaysVectorsCoverEveryVault: vectors are made for the
// whole database, so when it holds vaults the run did not index, the
// vectors line says its count is of all of them.
func TestIndexSummarySaysVectorsCoverEveryVault(t *testing.T) {
	em := vectors.SyncResult{Embedder: "lexical", Embedded: 0, Vectors: 3001, Chunks: 3001}
	for _, tc := range []struct {
		passages int
		want     string
	}{
		{1572, "vectors (all vaults in this database): 3001 of 3001 passages"},
		{3001, "\nvectors: 3001 of 3001 passages"},
	} {
		var b strings.Builder
		printIndexSummary(&b, indexOutput{Vaults: []index.Result{{Name: "notes", Path: "/n", Passages: tc.passages}}, Embeddings: em}, "j.db", nil)
		if !strings.Contains(b.String(), tc.want) {
			t.Errorf("vault of %d passages in a database of 3001: %q; want %q in it", tc.passages, b.String(), tc.want)
		}
	}
}

// TestIndexSummarySaysWhyFewerWereEmbedded: a run that embedded fewer
// texts than it has vectors says where the others came from, rather than
// leaving "9992 of 9992 passages (9990 embedded now)" unexplained.
func TestIndexSummarySaysWhyFewerWereEmbedded(t *testing.T) {
	for _, tc := range []struct {
		embedded, vectors, shared int
		want, not                 string
	}{
		{9990, 9992, 0, "(9990 embedded now; the other 2 already had a vector)", "share"},
		{9991, 9992, 0, "(9991 embedded now; the other one already had a vector)", "share"},
		// A first run: nothing had a vector, the others are repeats.
		{9990, 9992, 2, "(9990 embedded now; the other 2 share the text of a passage embedded now)", "already"},
		{9991, 9992, 1, "(9991 embedded now; the other one shares the text of a passage embedded now)", "already"},
		{9980, 9992, 5, "(9980 embedded now; 7 already had a vector, 5 share the text of a passage embedded now)", ""},
		{9992, 9992, 0, "(9992 embedded now)", "already had"},
		{0, 9992, 0, "(0 embedded now)", "already had"},
	} {
		var b strings.Builder
		printIndexSummary(&b, indexOutput{Embeddings: vectors.SyncResult{Embedder: "lexical", Embedded: tc.embedded, Vectors: tc.vectors, Chunks: 9992, Shared: tc.shared}}, "j.db", nil)
		if !strings.Contains(b.String(), tc.want) || tc.not != "" && strings.Contains(b.String(), tc.not) {
			t.Errorf("%d of %d embedded, %d shared: %q; want %q in it", tc.embedded, tc.vectors, tc.shared, b.String(), tc.want)
		}
	}
}

// TestIndexSaysAFolderHeldUnderTwoNames: a run that indexes a folder the
// database already holds under another name (reached through a link) says
// so once, with the --forget that drops the other, which works as pasted.
func TestIndexSaysAFolderHeldUnderTwoNames(t *testing.T) {
	dir := t.TempDir()
	cook := filepath.Join(dir, "cook")
	sharedtest.WriteFile(t, cook, "Soup.md", "# Soup\nA big pot.\n")
	link := filepath.Join(dir, "cooklink")
	if err := os.Symlink(cook, link); err != nil {
		t.Fatal(err)
	}
	db := filepath.Join(dir, "j.db")
	mustIndex(t, nil, "--vault", link, "--db", db, "--no-embed")
	r := readCLI(t, nil, "index", "--vault", cook, "--db", db, "--no-embed")
	want := `vault "cooklink" (1 note), not configured here, from ` + link + `, which is the same folder as vault "cook"`
	if r.code != 0 || strings.Count(r.stderr, want) != 1 {
		t.Fatalf("exit %d; want %q said once:\n%s%s", r.code, want, r.stdout, r.stderr)
	}
	_, fix, ok := strings.Cut(r.stderr, "if no other configuration uses \"cooklink\", `")
	fix, _, _ = strings.Cut(fix, "`")
	if !ok || !strings.HasPrefix(fix, "jarvis index ") {
		t.Fatalf("no --forget command to paste:\n%s", r.stderr)
	}
	args := strings.Fields(strings.TrimPrefix(fix, "jarvis "))
	if p := readCLI(t, nil, args...); p.code != 0 {
		t.Fatalf("%s: exit %d\n%s%s", fix, p.code, p.stdout, p.stderr)
	}
	if r := readCLI(t, nil, "index", "--vault", cook, "--db", db, "--no-embed"); strings.Contains(r.stderr, "cooklink") {
		t.Errorf("after the fix the duplicate is still said:\n%s", r.stderr)
	}
}

// TestIndexSummarySaysWhyEveryPassageWasEmbeddedAgain: a run that took the
// lexical word statistics again says so beside the count.
func TestIndexSummarySaysWhyEveryPassageWasEmbeddedAgain(t *testing.T) {
	for _, refit := range []bool{false, true} {
		var b strings.Builder
		printIndexSummary(&b, indexOutput{Embeddings: vectors.SyncResult{Embedder: "lexical", Embedded: 1450, Vectors: 1450, Chunks: 1450, Refitted: refit}}, "j.db", nil)
		if says := strings.Contains(b.String(), "its word statistics were taken again"); says != refit {
			t.Errorf("refitted %v: %s", refit, b.String())
		}
	}
}

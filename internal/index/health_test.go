package index

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jarvis-mcp/jarvis/internal/config"
	"github.com/jarvis-mcp/jarvis/internal/graph"
	"github.com/jarvis-mcp/jarvis/internal/health"
	"github.com/jarvis-mcp/jarvis/internal/sharedtest"
	"github.com/jarvis-mcp/jarvis/internal/store"
	"github.com/jarvis-mcp/jarvis/internal/vault"
)

// TestUnreadableNotesGetAPermissionFix: a note whose last read failed is
// read again by every index run, so running jarvis index cannot make the
// freshness check pass; doctor names the file and the access it needs
// instead. (The failed read is recorded as the indexer records it: the
// tests run as root, who reads any file.)
func TestUnreadableNotesGetAPermissionFix(t *testing.T) {
	ctx := context.Background()
	root := t.TempDir()
	sharedtest.WriteFile(t, root, "A.md", "# A\n")
	sharedtest.WriteFile(t, root, "Water.md", "# Water\n")
	dbPath := filepath.Join(t.TempDir(), "j.db")
	ix, _ := testIndexer(t, dbPath)
	mustIndex(t, ix, "v", root)
	if _, err := ix.db.ExecContext(ctx, `UPDATE files SET mtime_ns = -1 WHERE path = 'Water.md'`); err != nil {
		t.Fatal(err)
	}
	if _, err := ix.db.ExecContext(ctx, `INSERT INTO warnings (vault_id, file_id, path, message)
		SELECT vault_id, id, path, ? FROM files WHERE path = 'Water.md'`, vault.CannotRead+"permission denied"); err != nil {
		t.Fatal(err)
	}
	h := store.NewHandle(dbPath, store.Options{ReadOnly: true})
	defer h.Close()
	rep := health.Run(ctx, Checks(h, config.Config{Vaults: []config.Vault{{Name: "v", Path: root}}}), time.Minute)
	var fresh, warned health.Result
	for _, r := range rep.Checks {
		switch r.Name {
		case "index freshness v":
			fresh = r
		case "index warnings v":
			warned = r
		}
	}
	if fresh.Status != health.OK {
		t.Errorf("freshness counts the unreadable note as changed: %+v", fresh)
	}
	if warned.Status != health.Warn || !strings.Contains(warned.Detail, "Water.md") || !strings.Contains(warned.Fix, "chmod u+r "+filepath.Join(root, "Water.md")) {
		t.Errorf("warnings: %+v", warned)
	}
}

// TestUnreadableFolderGetsAFolderFix: a folder the scan could not read
// needs read and execute to be listed and entered, not read alone; a file
// needs read. (The warning is recorded as the indexer records it: the
// tests run as root, who reads any folder.)
func TestUnreadableFolderGetsAFolderFix(t *testing.T) {
	ctx := context.Background()
	root := t.TempDir()
	sharedtest.WriteFile(t, root, "Private/a.md", "# A\n")
	dbPath := filepath.Join(t.TempDir(), "j.db")
	ix, _ := testIndexer(t, dbPath)
	mustIndex(t, ix, "v", root)
	if _, err := ix.db.ExecContext(ctx, `INSERT INTO warnings (vault_id, path, message) SELECT id, 'Private', ? FROM vaults`,
		vault.CannotRead+"permission denied"+vault.KeptAsRead); err != nil {
		t.Fatal(err)
	}
	h := store.NewHandle(dbPath, store.Options{ReadOnly: true})
	defer h.Close()
	rep := health.Run(ctx, Checks(h, config.Config{Vaults: []config.Vault{{Name: "v", Path: root}}}), time.Minute)
	for _, r := range rep.Checks {
		if r.Name != "index warnings v" {
			continue
		}
		if want := "`chmod u+rx " + filepath.Join(root, "Private") + "`"; r.Status != health.Warn || !strings.Contains(r.Fix, want) {
			t.Errorf("fix %q, want %s", r.Fix, want)
		}
		return
	}
	t.Fatal("no index warnings check")
}

func TestReadFix(t *testing.T) {
	root := t.TempDir()
	sharedtest.WriteFile(t, root, "Folder/note.md", "x")
	for _, tt := range []struct{ path, want string }{
		{"Folder", "`chmod u+rx " + filepath.Join(root, "Folder") + "`"},
		{"Folder/note.md", "`chmod u+r " + filepath.Join(root, "Folder", "note.md") + "`"},
		{"Folder/gone.md", "`chmod u+r " + filepath.Join(root, "Folder", "gone.md") + "`"},
	} {
		if got := ReadFix(filepath.Join(root, tt.path)); got != tt.want {
			t.Errorf("ReadFix(%s) = %s, want %s", tt.path, got, tt.want)
		}
	}
}

// TestHealthCountsOne: doctor's index checks count a vault of one note,
// and one unreadable folder, in the singular.
func TestHealthCountsOne(t *testing.T) {
	ctx := context.Background()
	root := t.TempDir()
	sharedtest.WriteFile(t, root, "A.md", "# A\n")
	dbPath := filepath.Join(t.TempDir(), "j.db")
	ix, _ := testIndexer(t, dbPath)
	mustIndex(t, ix, "v", root)
	mustIndex(t, ix, "other", root)
	if _, err := ix.db.ExecContext(ctx, `INSERT INTO warnings (vault_id, path, message) SELECT id, 'Private', ? FROM vaults WHERE name = 'v'`,
		vault.CannotRead+"permission denied"+vault.KeptAsRead); err != nil {
		t.Fatal(err)
	}
	h := store.NewHandle(dbPath, store.Options{ReadOnly: true})
	defer h.Close()
	rep := health.Run(ctx, Checks(h, config.Config{Vaults: []config.Vault{{Name: "v", Path: root}}}), time.Minute)
	want := map[string]string{
		"index freshness v": "1 note, 1 passage indexed, unchanged since the last complete index run (",
		"index warnings v":  "1 file or folder not read: 1 cannot be read: Private (permission denied)",
		"other vault other": `the database also holds vault "other" (1 note), not configured here`,
	}
	for _, r := range rep.Checks {
		if w, ok := want[r.Name]; ok {
			if !strings.HasPrefix(r.Detail, w) {
				t.Errorf("%s: %q; want it to start %q", r.Name, r.Detail, w)
			}
			delete(want, r.Name)
		}
	}
	for name := range want {
		t.Errorf("no result %q in %+v", name, rep.Checks)
	}
}

// TestChecksOfAFirstIndexUnderWaySkip: while no index run of a vault has
// finished, what is stored so far says nothing of its links or its files,
// so the checks of them are skipped rather than passed.
func TestChecksOfAFirstIndexUnderWaySkip(t *testing.T) {
	ctx := context.Background()
	root := t.TempDir()
	sharedtest.WriteFile(t, root, "A.md", "# A\n\n[[B]]\n")
	dbPath := filepath.Join(t.TempDir(), "j.db")
	ix, _ := testIndexer(t, dbPath)
	mustIndex(t, ix, "v", root)
	// As a first run leaves it part way: the vault's row, no end yet.
	if _, err := ix.db.ExecContext(ctx, `UPDATE vaults SET last_indexed_ms = NULL`); err != nil {
		t.Fatal(err)
	}
	h := store.NewHandle(dbPath, store.Options{ReadOnly: true})
	defer h.Close()
	vaults := []config.Vault{{Name: "v", Path: root}}
	checks := append(Checks(h, config.Config{Vaults: vaults}), graph.Checks(h, vaults)...)
	rep := health.Run(ctx, checks, time.Minute)
	want := map[string]bool{"index warnings v": true, "unresolved links v": true, "heading links v": true}
	for _, r := range rep.Checks {
		if !want[r.Name] {
			continue
		}
		delete(want, r.Name)
		if r.Status != health.Skip || r.Detail != "not checked: "+store.FirstIndexUnfinished {
			t.Errorf("%s during the first index: %s %q", r.Name, r.Status, r.Detail)
		}
	}
	for name := range want {
		t.Errorf("no result %q in %+v", name, rep.Checks)
	}
}

// TestChecksThatMeetDamageMarkIt: the index and graph checks that cannot
// read a damaged table say so in words and mark the damage, so that the
// database line, whose own check may prove nothing, says the database is
// damaged (store.Unreadable is the one place that decides it).
func TestChecksThatMeetDamageMarkIt(t *testing.T) {
	ctx := context.Background()
	root := t.TempDir()
	sharedtest.WriteFile(t, root, "A.md", "# A\n\n[[B]] and [[A#Nowhere]]\n")
	sharedtest.WriteFile(t, root, "Bad.md", "---\ntags: [open\n---\n# Bad\n")
	dbPath := filepath.Join(t.TempDir(), "j.db")
	ix, _ := testIndexer(t, dbPath)
	mustIndex(t, ix, "v", root)
	if _, err := ix.db.ExecContext(ctx, `PRAGMA wal_checkpoint(TRUNCATE)`); err != nil {
		t.Fatal(err)
	}
	for _, table := range []string{"warnings", "links"} {
		var page int
		if err := ix.db.QueryRowContext(ctx, `SELECT rootpage FROM sqlite_master WHERE type = 'table' AND name = ?`, table).Scan(&page); err != nil {
			t.Fatal(err)
		}
		sharedtest.DamagePage(t, dbPath, page, 3)
	}
	h := store.NewHandle(dbPath, store.Options{ReadOnly: true})
	defer h.Close()
	vaults := []config.Vault{{Name: "v", Path: root}}
	checks := append(Checks(h, config.Config{Vaults: vaults}), graph.Checks(h, vaults)...)
	rep := health.Run(ctx, checks, time.Minute)
	want := map[string]bool{"index warnings v": true, "unresolved links v": true, "heading links v": true}
	for _, r := range rep.Checks {
		if !want[r.Name] {
			continue
		}
		delete(want, r.Name)
		if r.Status != health.Warn || !r.Damaged || r.Fix != "see the database check above" {
			t.Errorf("%s on a damaged table: %s %q (damage marked: %v)", r.Name, r.Status, r.Detail, r.Damaged)
		}
		if strings.Contains(r.Detail, "malformed") || strings.Contains(r.Detail, "(11)") {
			t.Errorf("%s says SQLite's own words: %q", r.Name, r.Detail)
		}
	}
	for name := range want {
		t.Errorf("no result %q in %+v", name, rep.Checks)
	}
}

// TestHeadingLinksSayHowManyMore: the heading-links line names the first
// links that miss their heading and says how many more there are, as the
// index warnings line does, rather than leaving them unsaid.
func TestHeadingLinksSayHowManyMore(t *testing.T) {
	root := t.TempDir()
	sharedtest.WriteFile(t, root, "A.md", "# A\n\n[[A#One]]\n[[A#Two]]\n[[A#Three]]\n[[A#Four]]\n[[A#Five]]\n")
	r := graphCheck(t, config.Vault{Name: "v", Path: root}, "heading links v")
	if !strings.HasPrefix(r.Detail, "5 links name a heading") || !strings.HasSuffix(r.Detail, "; and 2 more") {
		t.Errorf("heading links: %q", r.Detail)
	}
}

// graphCheck indexes vault v and gives the result of the link graph's
// checks named name.
func graphCheck(t *testing.T, v config.Vault, name string) health.Result {
	t.Helper()
	ctx := context.Background()
	dbPath := filepath.Join(t.TempDir(), "j.db")
	ix, _ := testIndexer(t, dbPath)
	if _, err := ix.Index(ctx, v, nil); err != nil {
		t.Fatal(err)
	}
	h := store.NewHandle(dbPath, store.Options{ReadOnly: true})
	defer h.Close()
	rep := health.Run(ctx, graph.Checks(h, []config.Vault{v}), time.Minute)
	for _, r := range rep.Checks {
		if r.Name == name {
			return r
		}
	}
	t.Fatalf("no result %q in %+v", name, rep.Checks)
	return health.Result{}
}

// TestFreshnessNamesTheRunThatFinished: after a run that failed (a full
// disk) the freshness line said "none changed since the last index (2s
// ago)" beside the failure, as if the failed run were that index. The
// time is the last run's that finished, and the line says so.
func TestFreshnessNamesTheRunThatFinished(t *testing.T) {
	root := t.TempDir()
	sharedtest.WriteFile(t, root, "A.md", "# A\n")
	dbPath := filepath.Join(t.TempDir(), "j.db")
	ix, _ := testIndexer(t, dbPath)
	mustIndex(t, ix, "v", root)
	failed, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := ix.Index(failed, config.Vault{Name: "v", Path: root}, nil); err == nil {
		t.Fatal("a run whose context ended succeeded")
	}
	h := store.NewHandle(dbPath, store.Options{ReadOnly: true})
	defer h.Close()
	r := freshness(context.Background(), h, config.Vault{Name: "v", Path: root}, health.Invocation{})
	if r.Status != health.OK || !strings.HasPrefix(r.Detail, "1 note, 1 passage indexed, unchanged since the last complete index run (") {
		t.Errorf("freshness after a failed run: %+v", r)
	}
}

// TestUnresolvedLinksDoNotCallExcludedNotesMissing: a link to a note the
// vault's exclude leaves out is not a link to a missing note; the line
// says what such a target is without claiming the note does not exist.
func TestUnresolvedLinksDoNotCallExcludedNotesMissing(t *testing.T) {
	root := t.TempDir()
	sharedtest.WriteFile(t, root, "A.md", "# A\n\n[[Old Project]] and [[Not Yet]]\n")
	sharedtest.WriteFile(t, root, "Archive/Old Project.md", "# Old\n")
	r := graphCheck(t, config.Vault{Name: "v", Path: root, Exclude: []string{"Archive/"}}, "unresolved links v")
	if strings.Contains(r.Detail, "missing") || !strings.Contains(r.Detail, "2 links to 2 names no indexed note has (notes not written yet, or left out)") {
		t.Errorf("unresolved links: %q", r.Detail)
	}
}

// TestFreshnessFixUnblocksTheDatabaseFirst: with the database's folder
// closed to new files, doctor's and health-status's freshness fix was
// "run `jarvis index …`", which fails as pasted for that cause. The line
// says the index cannot be updated and why, and the fix gives the
// database access check's fix before the index run.
func TestFreshnessFixUnblocksTheDatabaseFirst(t *testing.T) {
	root := t.TempDir()
	sharedtest.WriteFile(t, root, "A.md", "# A\n")
	dir := t.TempDir()
	dbPath := filepath.Join(dir, "j.db")
	ix, _ := testIndexer(t, dbPath)
	mustIndex(t, ix, "v", root)
	sharedtest.WriteFile(t, root, "B.md", "# B\n")
	folderClosed := func(p string) (store.FileAccess, error) {
		fa, err := store.ProbeFile(p)
		if p == dir {
			fa.Write = false
		}
		return fa, err
	}
	inv := health.Invocation{"--db", dbPath}
	for _, probe := range []store.Probe{nil, folderClosed} {
		h := store.NewHandle(dbPath, store.Options{ReadOnly: true, Probe: probe})
		r := freshness(context.Background(), h, config.Vault{Name: "v", Path: root}, inv)
		h.Close()
		index := "run " + inv.Command("index")
		if probe == nil {
			if r.Fix != index {
				t.Errorf("freshness fix where the database takes updates: %q; want %q", r.Fix, index)
			}
			continue
		}
		why := "the index cannot be updated: " + dir + " is a folder you cannot create files in"
		fix := "run `chmod u+rwx " + dir + "`, or choose another database with --db; then " + index
		if r.Status != health.Warn || !strings.HasSuffix(r.Detail, why) || r.Fix != fix {
			t.Errorf("freshness with the database's folder closed: %+v; want the detail to end %q and the fix %q", r, why, fix)
		}
	}
}

// TestWarningsFixAgreesWithTheNotes: the fix of one note's bad
// frontmatter said "the next index run reads them again"; one note is
// "it", several are "them".
func TestWarningsFixAgreesWithTheNotes(t *testing.T) {
	for _, n := range []int{1, 2} {
		root := t.TempDir()
		for i := range n {
			sharedtest.WriteFile(t, root, fmt.Sprintf("Broken %d.md", i), "---\ntags: [a, b\n---\n# Broken\n")
		}
		dbPath := filepath.Join(t.TempDir(), "j.db")
		ix, _ := testIndexer(t, dbPath)
		mustIndex(t, ix, "v", root)
		h := store.NewHandle(dbPath, store.Options{ReadOnly: true})
		r := warningsResult(context.Background(), h, config.Vault{Name: "v", Path: root})
		h.Close()
		want := map[int]string{1: "open the note named and correct its frontmatter; the next index run reads it again",
			2: "open the notes named and correct their frontmatter; the next index run reads them again"}[n]
		if r.Fix != want {
			t.Errorf("%d notes: fix %q; want %q", n, r.Fix, want)
		}
	}
}

// TestOtherVaultsNameADuplicate: a vault the database holds under another
// name, from a link to a configured vault's folder or a folder inside it,
// is said to duplicate it, with the command that drops it; an unrelated
// vault is not.
func TestOtherVaultsNameADuplicate(t *testing.T) {
	ctx := context.Background()
	base := t.TempDir()
	cook, elsewhere := filepath.Join(base, "cook"), filepath.Join(base, "garden")
	sharedtest.WriteFile(t, filepath.Join(cook, "sub"), "A.md", "# A\n")
	sharedtest.WriteFile(t, elsewhere, "B.md", "# B\n")
	link := filepath.Join(base, "cooklink")
	if err := os.Symlink(cook, link); err != nil {
		t.Fatal(err)
	}
	dbPath := filepath.Join(t.TempDir(), "j.db")
	ix, _ := testIndexer(t, dbPath)
	mustIndex(t, ix, "cook", cook)
	mustIndex(t, ix, "cooklink", link)
	mustIndex(t, ix, "sub", filepath.Join(cook, "sub"))
	mustIndex(t, ix, "garden", elsewhere)
	h := store.NewHandle(dbPath, store.Options{ReadOnly: true})
	defer h.Close()
	rep := health.Run(ctx, Checks(h, config.Config{Vaults: []config.Vault{{Name: "cook", Path: cook}}, Flags: config.Flags{Vaults: []string{cook}, DB: dbPath}}), time.Minute)
	want := map[string]struct {
		status      health.Status
		detail, fix string
	}{
		"other vault cooklink": {health.Warn, fmt.Sprintf("which is the same folder as vault \"cook\" (%s): their notes are indexed twice", cook), "--forget cooklink` drops the duplicate"},
		"other vault sub":      {health.Warn, fmt.Sprintf("which lies inside vault \"cook\" (%s)", cook), "--forget sub` drops the duplicate"},
		"other vault garden":   {health.OK, "not configured here: searches leave it out", "--forget garden"},
	}
	for _, r := range rep.Checks {
		if w, ok := want[r.Name]; ok {
			if r.Status != w.status || !strings.Contains(r.Detail, w.detail) || !strings.Contains(r.Fix, w.fix) {
				t.Errorf("%s: %v %q, fix %q; want %v with %q, fix with %q", r.Name, r.Status, r.Detail, r.Fix, w.status, w.detail, w.fix)
			}
			delete(want, r.Name)
		}
	}
	for name := range want {
		t.Errorf("no result %q in %+v", name, rep.Checks)
	}
}

// TestCutFirstRunSaysWhatIsLeftAsASentence: after a first run cut short,
// freshness lists the notes and attachments still to index with "and",
// each clause apart, not as a run of commas.
func TestCutFirstRunSaysWhatIsLeftAsASentence(t *testing.T) {
	f := fresh{interrupted: true, neverFinished: true, left: Counts{Notes: 173, Attachments: 134}}
	r := freshnessResult(health.Result{Name: "index freshness"}, f, vault.ParserVersion, health.Invocation{"--vault", "help/en"})
	const want = "the first index run has not finished: the index holds no notes so far; 173 notes and 134 attachments are still to index; links are still to resolve"
	if r.Detail != want {
		t.Errorf("freshness after a cut first run:\n got %q\nwant %q", r.Detail, want)
	}
}

// TestStillAnsweringOnlyForIndexedVaults: the vault check of a vault whose
// folder is gone says search still answers for it only when the index
// holds it; one never indexed answers nothing.
func TestStillAnsweringOnlyForIndexedVaults(t *testing.T) {
	ctx := context.Background()
	root := filepath.Join(t.TempDir(), "v")
	sharedtest.WriteFile(t, root, "A.md", "# A\n")
	dbPath := filepath.Join(t.TempDir(), "j.db")
	ix, _ := testIndexer(t, dbPath)
	mustIndex(t, ix, "v", root)
	if err := os.Rename(root, root+"-moved"); err != nil {
		t.Fatal(err)
	}
	h := store.NewHandle(dbPath, store.Options{ReadOnly: true})
	defer h.Close()
	vaults := []config.Vault{{Name: "v", Path: root}, {Name: "never", Path: filepath.Join(t.TempDir(), "gone")}}
	var checks []health.Check
	for _, c := range config.Checks(config.Config{Vaults: vaults, VaultSource: "flag"}, ReadFix) {
		if c.Name == "vault" {
			checks = append(checks, StillAnswering(h, vaults, c))
		}
	}
	rep := health.Run(ctx, checks, time.Minute)
	answers := map[string]string{}
	for _, r := range rep.Checks {
		answers[r.Name] = r.Answers
	}
	if answers["vault v"] == "" || answers["vault never"] != "" {
		t.Errorf("answers %q; want them for vault v only", answers)
	}
	if h := rep.Headline(); h != "jarvis is broken." {
		t.Errorf("headline %q with a vault that answers nothing", h)
	}
}

// TestOtherVaultsListedInTheConfigFileAreNotDropped: a vault the config
// file lists, left out of this run by --vault, is not offered to be
// dropped, as a duplicate or as another configuration's: the check says
// --vault leaves it out (config.Config.Lists is the one rule).
func TestOtherVaultsListedInTheConfigFileAreNotDropped(t *testing.T) {
	ctx := context.Background()
	base := t.TempDir()
	cook := filepath.Join(base, "cook")
	sharedtest.WriteFile(t, filepath.Join(cook, "sub"), "A.md", "# A\n")
	dbPath := filepath.Join(t.TempDir(), "j.db")
	ix, _ := testIndexer(t, dbPath)
	mustIndex(t, ix, "cook", cook)
	mustIndex(t, ix, "sub", filepath.Join(cook, "sub"))
	h := store.NewHandle(dbPath, store.Options{ReadOnly: true})
	defer h.Close()
	cfg := config.Config{Vaults: []config.Vault{{Name: "cook", Path: cook}}, VaultSource: "flag", File: "/home/u/.config/jarvis/config.yaml",
		FileVaults: []string{"cook", "sub"}, Flags: config.Flags{Vaults: []string{"cook"}, DB: dbPath}}
	rep := health.Run(ctx, Checks(h, cfg), time.Minute)
	found := false
	for _, r := range rep.Checks {
		if r.Name != "other vault sub" {
			continue
		}
		found = true
		if r.Status != health.OK || r.Fix != "" || !strings.Contains(r.Detail, "which the config file /home/u/.config/jarvis/config.yaml lists; --vault leaves it out of this run") {
			t.Errorf("vault sub, listed in the config file: %+v", r)
		}
	}
	if !found {
		t.Errorf("no result for vault sub in %+v", rep.Checks)
	}
	if dups, err := Duplicates(ctx, ix.db, cfg); err != nil || len(dups) != 0 {
		t.Errorf("Duplicates = %v, %v; want none", dups, err)
	}
}

package index

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jarvis-mcp/jarvis/internal/config"
	"github.com/jarvis-mcp/jarvis/internal/health"
	"github.com/jarvis-mcp/jarvis/internal/sharedtest"
	"github.com/jarvis-mcp/jarvis/internal/store"
	"github.com/jarvis-mcp/jarvis/internal/vault"
)

// problemVault makes a vault with a problem of every kind: a note that
// cannot be read (made so through the indexer's read seam, since the
// tests run as root), four notes with invalid frontmatter, one not valid
// UTF-8 and a symbolic link out of the vault, which is skipped.
func problemVault(t *testing.T, ix *Indexer) string {
	t.Helper()
	root := t.TempDir()
	sharedtest.WriteFile(t, root, "A.md", "# A\n")
	sharedtest.WriteFile(t, root, "Secret.md", "# Secret\n")
	for _, n := range []string{"T1.md", "T2.md", "T3.md", "T4.md"} {
		sharedtest.WriteFile(t, root, n, "---\ncreated: {{date}}\ntitle: [x\n---\nbody\n")
	}
	sharedtest.WriteFile(t, root, "Latin.md", "caf\xe9\n")
	outside := filepath.Join(t.TempDir(), "outside.md")
	if err := os.WriteFile(outside, []byte("# Out\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(root, "outside-link.md")); err != nil {
		t.Fatal(err)
	}
	real := ix.readNote
	ix.readNote = func(r *vault.Root, rel string) ([]byte, fs.FileInfo, string, error) {
		if rel == "Secret.md" {
			return nil, nil, "", &fs.PathError{Op: "open", Path: rel, Err: fs.ErrPermission}
		}
		return real(r, rel)
	}
	return root
}

// TestProblemsCountedByKindAlike: the index summary and doctor's warnings
// check count the files with a problem from one source, tell a file
// skipped from one indexed with a problem, say each kind apart and name
// every file or how many more there are.
func TestProblemsCountedByKindAlike(t *testing.T) {
	ctx := context.Background()
	dbPath := filepath.Join(t.TempDir(), "j.db")
	ix, _ := testIndexer(t, dbPath)
	root := problemVault(t, ix)
	res := mustIndex(t, ix, "v", root)
	if want := (ProblemCounts{Indexed: 6, Skipped: 1}); res.Problems != want {
		t.Fatalf("index counts %+v, want %+v", res.Problems, want)
	}
	if got, want := res.Problems.Words(), "6 files indexed with a problem, 1 skipped"; got != want {
		t.Errorf("summary says %q, want %q", got, want)
	}

	h := store.NewHandle(dbPath, store.Options{ReadOnly: true})
	defer h.Close()
	warned := warningsResult(ctx, h, config.Vault{Name: "v", Path: root})
	if warned.Status != health.Warn || !strings.HasPrefix(warned.Detail, res.Problems.Words()+": ") {
		t.Fatalf("doctor does not count as the summary does: %+v", warned)
	}
	for _, want := range []string{
		"1 cannot be read: Secret.md (permission denied",
		"4 have invalid frontmatter: T1.md (",
		"T3.md (", "and 1 more",
		"1 is not UTF-8: Latin.md",
		"1 was skipped: outside-link.md (symbolic link to outside the vault)",
	} {
		if !strings.Contains(warned.Detail, want) {
			t.Errorf("detail lacks %q: %s", want, warned.Detail)
		}
	}
	if strings.Contains(warned.Detail, "T4.md") || strings.Contains(warned.Detail, "or folder") {
		t.Errorf("detail: %s", warned.Detail)
	}
	if !strings.Contains(warned.Fix, "chmod u+r "+filepath.Join(root, "Secret.md")) || !strings.Contains(warned.Fix, "open the notes named and correct their frontmatter") || !strings.Contains(warned.Fix, "as UTF-8") {
		t.Errorf("fix: %s", warned.Fix)
	}
}

// TestUnreadableNoteRetriedAsProgressSays: a note that still cannot be
// read is read again by every run; the progress counts it as a note to
// index, and the summary says it was tried again rather than unchanged.
func TestUnreadableNoteRetriedAsProgressSays(t *testing.T) {
	ctx := context.Background()
	ix, _ := testIndexer(t, filepath.Join(t.TempDir(), "j.db"))
	root := problemVault(t, ix)
	mustIndex(t, ix, "v", root)
	var total Counts
	res, err := ix.Index(ctx, config.Vault{Name: "v", Path: root}, func(phase Phase, done, tot Counts) {
		if phase == PhaseWrite {
			total = tot
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	if total.Notes != res.Retried || res.Retried != 1 {
		t.Errorf("progress had %d notes to index, the summary %d retried (want 1)", total.Notes, res.Retried)
	}
	if res.Unchanged != 6 || res.Added+res.Updated != 0 {
		t.Errorf("result %+v", res)
	}
}

// TestNowExcludedIsNotDeleted: after a pattern is added to the vault's
// exclude, the files it leaves out are still on disk: doctor's freshness
// check and the index run say them as now excluded, not deleted, and the
// check names no empty list of examples.
func TestNowExcludedIsNotDeleted(t *testing.T) {
	ctx := context.Background()
	root := t.TempDir()
	sharedtest.WriteFile(t, root, "A.md", "# A\n")
	sharedtest.WriteFile(t, root, "Templates/Daily.md", "# Daily\n")
	sharedtest.WriteFile(t, root, "Templates/Weekly.md", "# Weekly\n")
	dbPath := filepath.Join(t.TempDir(), "j.db")
	ix, _ := testIndexer(t, dbPath)
	mustIndex(t, ix, "v", root)

	v := config.Vault{Name: "v", Path: root, Exclude: []string{"Templates/"}}
	h := store.NewHandle(dbPath, store.Options{ReadOnly: true})
	fresh := freshness(ctx, h, v, health.Invocation{})
	h.Close()
	if !strings.Contains(fresh.Detail, ": 2 files now excluded (Templates/Daily.md, Templates/Weekly.md)") || strings.Contains(fresh.Detail, "deleted") || strings.Contains(fresh.Detail, "()") {
		t.Errorf("freshness: %s", fresh.Detail)
	}

	res, err := ix.Index(ctx, v, nil)
	if err != nil {
		t.Fatal(err)
	}
	if res.Excluded != 2 || res.Deleted != 0 || res.Unchanged != 1 {
		t.Errorf("index run: %d now excluded, %d deleted, %d unchanged; want 2, 0, 1", res.Excluded, res.Deleted, res.Unchanged)
	}
}

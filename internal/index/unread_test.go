package index

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/jarvis-mcp/jarvis/internal/config"
	"github.com/jarvis-mcp/jarvis/internal/sharedtest"
	"github.com/jarvis-mcp/jarvis/internal/store"
	"github.com/jarvis-mcp/jarvis/internal/vault"
)

// warningsOf lists the warnings the index holds, as "path: message".
func warningsOf(t *testing.T, ix *Indexer) []string {
	t.Helper()
	rows, err := ix.db.QueryContext(context.Background(), `SELECT path, message FROM warnings ORDER BY path, message`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var p, m string
		if err := rows.Scan(&p, &m); err != nil {
			t.Fatal(err)
		}
		out = append(out, p+": "+m)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// indexedPaths lists the files the index holds.
func indexedPaths(t *testing.T, ix *Indexer) string {
	t.Helper()
	return rowsText(t, ix.db.(*store.DB).DB, `SELECT path FROM files ORDER BY path`)
}

// TestUnreadFolderKeepsItsNotes: a folder the scan could not read (too
// many open files, an I/O error on a network folder, no permission) keeps
// every file indexed beneath it, with the scan's warning, until a scan
// reads it again; a folder that is truly gone deletes them.
func TestUnreadFolderKeepsItsNotes(t *testing.T) {
	root := t.TempDir()
	sharedtest.WriteFile(t, root, "Top.md", "# Top\n\n[[a]] and [[b]]\n")
	sharedtest.WriteFile(t, root, "Sub/a.md", "# A\n\nabout water\n")
	sharedtest.WriteFile(t, root, "Sub/Deeper/b.md", "# B\n")
	sharedtest.WriteFile(t, root, "Sub/pic.png", "png")
	ix, _ := testIndexer(t, filepath.Join(t.TempDir(), "j.db"))
	mustIndex(t, ix, "v", root)
	all := indexedPaths(t, ix)

	real := ix.scan
	ix.scan = func(r *vault.Root, ctx context.Context) ([]vault.File, []vault.Warning, error) {
		files, warnings, err := real(r, ctx)
		var kept []vault.File
		for _, f := range files {
			if !strings.HasPrefix(f.Path, "Sub/") {
				kept = append(kept, f)
			}
		}
		return kept, append(warnings, vault.Warning{Path: "Sub", Message: vault.CannotRead + "too many open files" + vault.KeptAsRead, Unread: true}), err
	}
	res := mustIndex(t, ix, "v", root)
	if res.Deleted != 0 || res.AttachmentChanges.Deleted != 0 || res.Notes != 3 || res.Attachments != 1 {
		t.Fatalf("a folder that could not be read lost its notes: %+v", res)
	}
	if got := indexedPaths(t, ix); got != all {
		t.Fatalf("index holds\n%s\nwant\n%s", got, all)
	}
	if w := warningsOf(t, ix); len(w) != 1 || !strings.HasPrefix(w[0], "Sub: "+vault.CannotRead) {
		t.Fatalf("warnings %q, want the folder's", w)
	}
	if n := rowsText(t, ix.db.(*store.DB).DB, `SELECT count(*) FROM links WHERE target_id IS NULL`); n != "0\n" {
		t.Errorf("links into the unread folder came unresolved: %s", n)
	}

	ix.scan = real
	mustIndex(t, ix, "v", root)
	if w := warningsOf(t, ix); len(w) != 0 {
		t.Errorf("warnings %q after the folder was read again", w)
	}
	if err := os.RemoveAll(filepath.Join(root, "Sub")); err != nil {
		t.Fatal(err)
	}
	if res := mustIndex(t, ix, "v", root); res.Deleted != 2 || res.Notes != 1 {
		t.Errorf("a folder that is gone kept its notes: %+v", res)
	}
}

// TestVaultFolderThatCannotBeOpenedKeepsTheIndex: a pass that cannot open
// the vault folder (renamed away, unmounted) fails and changes nothing.
func TestVaultFolderThatCannotBeOpenedKeepsTheIndex(t *testing.T) {
	parent := t.TempDir()
	root := filepath.Join(parent, "v")
	sharedtest.WriteFile(t, root, "a.md", "# A\n")
	sharedtest.WriteFile(t, root, "Sub/b.md", "# B\n")
	ix, _ := testIndexer(t, filepath.Join(t.TempDir(), "j.db"))
	mustIndex(t, ix, "v", root)
	before := indexedPaths(t, ix)
	if err := os.Rename(root, root+"-away"); err != nil {
		t.Fatal(err)
	}
	if _, err := ix.Index(context.Background(), config.Vault{Name: "v", Path: root}, nil); err == nil {
		t.Fatal("indexing a missing vault folder succeeded")
	}
	if got := indexedPaths(t, ix); got != before {
		t.Errorf("index holds\n%s\nafter a failed pass, want\n%s", got, before)
	}
}

// TestFailedReadWarningGoesOnceRead: a note whose read failed (an I/O
// error, or a change racing the run) is kept as last read with a warning;
// the next run that reads it drops the warning, whether the note changed
// or not, and a note gone since takes its warning with it.
func TestFailedReadWarningGoesOnceRead(t *testing.T) {
	for _, tc := range []struct {
		name   string
		after  func(t *testing.T, path string) // between the failed run and the next
		hasRow bool
	}{
		{"unchanged", func(*testing.T, string) {}, true},
		{"touched", func(t *testing.T, p string) {
			later := time.Now().Add(time.Hour)
			if err := os.Chtimes(p, later, later); err != nil {
				t.Fatal(err)
			}
		}, true},
		{"gone", func(t *testing.T, p string) {
			if err := os.Remove(p); err != nil {
				t.Fatal(err)
			}
		}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root := t.TempDir()
			sharedtest.WriteFile(t, root, "a.md", "# A\n\nabout water\n")
			sharedtest.WriteFile(t, root, "b.md", "# B\n")
			ix, _ := testIndexer(t, filepath.Join(t.TempDir(), "j.db"))
			mustIndex(t, ix, "v", root)
			p := filepath.Join(root, "a.md")
			// Changed on disk (the time only), so the next run reads it.
			changed := time.Now().Add(-time.Hour)
			if err := os.Chtimes(p, changed, changed); err != nil {
				t.Fatal(err)
			}
			real := ix.readNote
			ix.readNote = func(r *vault.Root, rel string) ([]byte, fs.FileInfo, string, error) {
				if rel == "a.md" {
					return nil, nil, "", &fs.PathError{Op: "read", Path: rel, Err: syscall.EIO}
				}
				return real(r, rel)
			}
			mustIndex(t, ix, "v", root)
			if w := warningsOf(t, ix); len(w) != 1 || !strings.Contains(w[0], "input/output error") {
				t.Fatalf("warnings %q after a failed read", w)
			}
			if got := rowsText(t, ix.db.(*store.DB).DB, `SELECT count(*) FROM chunks c JOIN files f ON f.id = c.file_id WHERE f.path = 'a.md'`); got == "0\n" {
				t.Fatal("the note's text was dropped on a failed read")
			}
			ix.readNote = real
			tc.after(t, p)
			res := mustIndex(t, ix, "v", root)
			if w := warningsOf(t, ix); len(w) != 0 {
				t.Errorf("warnings %q once the note was read again", w)
			}
			if rows := rowsText(t, ix.db.(*store.DB).DB, `SELECT count(*) FROM files WHERE path = 'a.md'`); (rows == "1\n") != tc.hasRow {
				t.Errorf("a.md rows %s, result %+v", rows, res)
			}
		})
	}
}

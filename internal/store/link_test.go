package store

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jarvis-mcp/jarvis/internal/sharedtest"
)

// linkedDatabase makes a database d3/real.db reached through the link
// dblink.db in another folder, and returns the link, the real file and
// its folder.
func linkedDatabase(t *testing.T) (link, real, dir string) {
	t.Helper()
	top, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	dir = filepath.Join(top, "d3")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	link, real = filepath.Join(top, "dblink.db"), filepath.Join(dir, "real.db")
	if err := os.Symlink(real, link); err != nil {
		t.Fatal(err)
	}
	db, err := Open(context.Background(), link, Options{})
	if err != nil {
		t.Fatal(err)
	}
	db.Close()
	return link, real, dir
}

// TestAccessThroughALinkLooksAtTheRealFolder: SQLite makes the -wal and
// -shm beside the real file, so a database reached through a link in a
// folder this user may write, whose real folder it may not, is named a
// problem, with that folder and its fix.
func TestAccessThroughALinkLooksAtTheRealFolder(t *testing.T) {
	link, _, dir := linkedDatabase(t)
	for _, suffix := range []string{"-wal", "-shm"} {
		os.Remove(filepath.Join(dir, "real.db"+suffix))
	}
	if err := os.Chmod(dir, 0o555); err != nil {
		t.Fatal(err)
	}
	defer os.Chmod(dir, 0o755)
	ps := AccessProblems(link, modeProbe)
	if len(ps) != 1 || ps[0].Path != dir || ps[0].String() != dir+" is a folder you cannot create files in" {
		t.Fatalf("problems = %v; want only %s, a folder you cannot create files in", ps, dir)
	}
	if fix := AccessFix(ps); !strings.Contains(fix, "`chmod u+rwx "+dir+"`") {
		t.Errorf("fix %q does not give `chmod u+rwx %s`", fix, dir)
	}
}

// TestOneLockForTwoPathsToADatabase: the writer lock lies beside the real
// file, so a writer that came by the link sees one that came by the real
// path, and no lock file is made beside the link.
func TestOneLockForTwoPathsToADatabase(t *testing.T) {
	ctx := context.Background()
	link, real, _ := linkedDatabase(t)
	db, err := Open(ctx, real, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	unlock, err := db.LockWriters(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer unlock()
	if !WriterAlive(ctx, link) {
		t.Error("a writer holding the lock by the real path is not seen by the link's path")
	}
	if _, err := os.Lstat(link + ".lock"); err == nil {
		t.Errorf("a lock file was made beside the link, %s.lock", link)
	}
}

// TestRebuildThroughALinkReplacesTheRealFile: a rebuild of a database
// reached through a link builds beside the real file and renames the
// fresh index over it, and keeps a damaged one aside there: the link
// stays a link, and no second index is left behind where the link points.
func TestRebuildThroughALinkReplacesTheRealFile(t *testing.T) {
	for _, tc := range []struct {
		name   string
		damage bool
	}{
		{"sound", false},
		{"damaged", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			link, real, dir := linkedDatabase(t)
			if tc.damage {
				for _, suffix := range []string{"-wal", "-shm"} {
					os.Remove(real + suffix)
				}
				sharedtest.ZeroPage(t, real, 1)
			}
			rb, err := BeginRebuild(ctx, link, Options{}, nil)
			if err != nil {
				t.Fatal(err)
			}
			defer rb.Close()
			if got := filepath.Dir(rb.Fresh); got != dir {
				t.Errorf("the fresh index is built in %s; want beside the real file, in %s", got, dir)
			}
			fresh, err := Open(ctx, rb.Fresh, Options{})
			if err != nil {
				t.Fatal(err)
			}
			fresh.Close()
			backup, err := rb.Commit(time.Now())
			if err != nil {
				t.Fatal(err)
			}
			if st, err := os.Lstat(link); err != nil || st.Mode()&os.ModeSymlink == 0 {
				t.Fatalf("after the rebuild %s is no longer a link (%v)", link, err)
			}
			if got, err := os.Readlink(link); err != nil || got != real {
				t.Fatalf("the link points to %q (%v); want %s", got, err, real)
			}
			if Inspect(ctx, real, Options{}, false).Damaged() {
				t.Fatal("after the rebuild the real file is damaged: the fresh index did not take its place")
			}
			if (backup != "") != tc.damage {
				t.Fatalf("backup = %q; want one only for the damaged database", backup)
			}
			if backup != "" {
				if filepath.Dir(backup) != dir {
					t.Errorf("the damaged file is kept as %s; want it beside the real file, in %s", backup, dir)
				}
				if _, err := os.Stat(backup); err != nil {
					t.Errorf("the damaged file is not kept: %v", err)
				}
			}
			for _, e := range listDir(t, filepath.Dir(link)) {
				if e != filepath.Base(link) && e != filepath.Base(dir) {
					t.Errorf("the rebuild left %s beside the link", e)
				}
			}
		})
	}
}

package query_test

import (
	"context"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/jarvis-mcp/jarvis/internal/config"
	"github.com/jarvis-mcp/jarvis/internal/index"
	"github.com/jarvis-mcp/jarvis/internal/query"
	"github.com/jarvis-mcp/jarvis/internal/store"
	"github.com/jarvis-mcp/jarvis/internal/vault"
)

// TestCtimeOfNotesJustMade runs "notes made in the last day" over notes
// written now and given modification times of years ago, from the files
// through the scan and the index: on a file system that keeps birth times
// every note is found; on one that keeps none (tmpfs before Linux 5.17)
// file.ctime is the modification time and none is, which the test output
// says.
func TestCtimeOfNotesJustMade(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	root := filepath.Join(dir, "vault")
	old := time.Date(2001, 2, 3, 4, 5, 6, 0, time.UTC)
	made := []string{"A.md", "B.md", "Folder/C.md"}
	for _, rel := range made {
		p := filepath.Join(root, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		for _, body := range []string{"first", "second"} {
			if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		if err := os.Chtimes(p, old, old); err != nil {
			t.Fatal(err)
		}
	}
	db, err := store.Open(ctx, filepath.Join(dir, "jarvis.db"), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	ix := index.New(db, vault.NewParser(), slog.New(slog.NewTextHandler(io.Discard, nil)))
	if _, err := ix.Index(ctx, config.Vault{Name: "work", Path: root}, nil); err != nil {
		t.Fatal(err)
	}
	v, err := query.Load(ctx, db, "work", nil)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"A.md", "B.md", "C.md"}
	var sx unix.Statx_t
	if err := unix.Statx(unix.AT_FDCWD, filepath.Join(root, "A.md"), 0, unix.STATX_BTIME, &sx); err != nil {
		t.Fatal(err)
	}
	if sx.Mask&unix.STATX_BTIME == 0 {
		t.Logf("%s keeps no birth times: checked that file.ctime falls back to the modification time", dir)
		want = nil
	}
	if got := names(t, v, `file.ctime > now() - "1d"`, time.Now()); !slices.Equal(got, want) {
		t.Errorf("notes made in the last day: %q, want %q", got, want)
	}
	if got := names(t, v, `file.mtime > now() - "1d"`, time.Now()); len(got) != 0 {
		t.Errorf("notes modified in the last day: %q, want none", got)
	}
}

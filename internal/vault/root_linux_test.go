package vault

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/jarvis-mcp/jarvis/internal/sharedtest"
)

// TestScanReadsBirthTime: a note written twice and then given an old
// modification time is listed with the time it was made as Created, and
// a symbolic link to it with the same; where the file system keeps no
// birth time (tmpfs before Linux 5.17, some FUSE folders), Created is 0,
// never the modification time passed off as one.
func TestScanReadsBirthTime(t *testing.T) {
	root := t.TempDir()
	before := time.Now().Add(-time.Second) // the file system's clock is coarser than time.Now
	sharedtest.WriteFile(t, root, "Made.md", "first")
	sharedtest.WriteFile(t, root, "Made.md", "second")
	after := time.Now().Add(time.Second)
	old := time.Date(2001, 2, 3, 4, 5, 6, 0, time.UTC)
	if err := os.Chtimes(filepath.Join(root, "Made.md"), old, old); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("Made.md", filepath.Join(root, "Link.md")); err != nil {
		sharedtest.NoSymlinks(t, err)
	}
	files, _, err := Scan(context.Background(), root, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(files) != 2 {
		t.Fatalf("listed %+v, want Link.md and Made.md", files)
	}
	kept := keepsBirthTime(t, root)
	for _, f := range files {
		if f.ModTime != old.UnixNano() {
			t.Errorf("%s: modification time %v, want %v", f.Path, time.Unix(0, f.ModTime), old)
		}
		if !kept {
			if f.Created != 0 {
				t.Errorf("%s: created %v on a file system that keeps no birth time, want 0 (unknown)", f.Path, time.Unix(0, f.Created))
			}
			continue
		}
		if c := time.Unix(0, f.Created); c.Before(before) || c.After(after) {
			t.Errorf("%s: created %v, want the time it was made, between %v and %v", f.Path, c, before, after)
		}
	}
}

// TestScanWithoutStatx: where statx cannot be called (kernels before 4.11,
// sandboxes that forbid it) the scan describes each name with fstatat, as
// before, and knows no birth time.
func TestScanWithoutStatx(t *testing.T) {
	was := noStatx.Load()
	noStatx.Store(true)
	t.Cleanup(func() { noStatx.Store(was) })
	root := t.TempDir()
	sharedtest.WriteFile(t, root, "Folder/Note.md", "x")
	old := time.Date(2001, 2, 3, 4, 5, 6, 0, time.UTC)
	if err := os.Chtimes(filepath.Join(root, "Folder/Note.md"), old, old); err != nil {
		t.Fatal(err)
	}
	files, _, err := Scan(context.Background(), root, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := []File{{Path: "Folder/Note.md", Size: 1, ModTime: old.UnixNano(), Note: true}}
	if len(files) != 1 || files[0] != want[0] {
		t.Errorf("listed %+v, want %+v", files, want)
	}
}

// keepsBirthTime reports whether the file system of dir keeps birth
// times, as statx says, and logs which file system it is, so that a run
// on one that keeps none says what it could not check.
func keepsBirthTime(t *testing.T, dir string) bool {
	t.Helper()
	var sx unix.Statx_t
	if err := unix.Statx(unix.AT_FDCWD, dir, 0, unix.STATX_BTIME, &sx); err != nil {
		t.Fatalf("statx %s: %v", dir, err)
	}
	var fs unix.Statfs_t
	if err := unix.Statfs(dir, &fs); err != nil {
		t.Fatalf("statfs %s: %v", dir, err)
	}
	name := map[int64]string{unix.EXT4_SUPER_MAGIC: "ext4", unix.TMPFS_MAGIC: "tmpfs", unix.XFS_SUPER_MAGIC: "XFS",
		unix.BTRFS_SUPER_MAGIC: "Btrfs", unix.OVERLAYFS_SUPER_MAGIC: "overlayfs", unix.FUSE_SUPER_MAGIC: "FUSE"}[int64(fs.Type)]
	if name == "" {
		name = "file system 0x" + strconv.FormatInt(int64(fs.Type), 16)
	}
	if sx.Mask&unix.STATX_BTIME == 0 {
		t.Logf("%s (%s) keeps no birth time: checked that Created is 0, not that it is the time the file was made", dir, name)
		return false
	}
	t.Logf("%s (%s) keeps birth times", dir, name)
	return true
}

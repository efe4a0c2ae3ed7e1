//go:build unix

package write

import (
	"context"
	"errors"
	"io/fs"
	"path/filepath"
	"testing"
)

// TestApplyWithoutRenameNoReplace runs creates, moves and their refusals
// the way of systems without an exclusive rename (a hard link, then an
// unlink), as macOS and file systems without renameat2's flag do.
func TestApplyWithoutRenameNoReplace(t *testing.T) {
	noReplace = func(int, string, int, string) error { return errNoReplaceUnsupported }
	t.Cleanup(func() { noReplace = renameNoReplace })
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{"a.md": "a", "b.md": "b"})
	v := openTest(t, dir)
	ctx := context.Background()
	if _, err := v.Apply(ctx, Change{Files: []FileChange{{Path: "n/new.md", After: []byte("new")}}}); err != nil {
		t.Fatal(err)
	}
	if _, err := v.Apply(ctx, Change{Files: []FileChange{{Path: "a.md", Before: ETag([]byte("a")), MoveTo: "m/a.md"}}}); err != nil {
		t.Fatal(err)
	}
	for p, want := range map[string]string{"n/new.md": "new", "m/a.md": "a"} {
		if got := readFile(t, filepath.Join(dir, p)); string(got) != want {
			t.Errorf("%s holds %q, want %q", p, got, want)
		}
	}
	// Another program makes the note between the check and the rename:
	// it is not replaced.
	v.beforeCommit = func(int) error {
		writeTree(t, dir, map[string]string{"c.md": "c from Obsidian"})
		return nil
	}
	if _, err := v.Apply(ctx, Change{Files: []FileChange{{Path: "c.md", After: []byte("c")}}}); !errors.Is(err, ErrExists) {
		t.Fatalf("Apply = %v, want ErrExists", err)
	}
	if got := readFile(t, filepath.Join(dir, "c.md")); string(got) != "c from Obsidian" {
		t.Errorf("c.md holds %q: the other program's note was replaced", got)
	}
	assertNoTemp(t, dir)

	// The rename itself refuses a file that is there.
	top, err := openTop(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer top.close()
	tmp, err := top.writeTemp([]byte("d"), nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := renameNew(top, tmp, top, "c.md"); !errors.Is(err, fs.ErrExist) {
		t.Errorf("renameNew over a file = %v, want fs.ErrExist", err)
	}
	if got := readFile(t, filepath.Join(dir, "c.md")); string(got) != "c from Obsidian" {
		t.Errorf("c.md holds %q after a refused rename", got)
	}
	if got := readFile(t, filepath.Join(dir, tmp)); string(got) != "d" {
		t.Errorf("the renamed file holds %q after a refused rename", got)
	}
}

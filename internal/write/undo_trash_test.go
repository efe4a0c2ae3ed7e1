package write

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/jarvis-mcp/jarvis/internal/sharedtest"
)

// realWrite applies ch to v and records it in j, as the write tools do.
func realWrite(t *testing.T, j Journal, v *Vault, ch Change) int64 {
	t.Helper()
	applied, err := v.Apply(context.Background(), ch)
	if err != nil {
		t.Fatalf("apply %s: %v", Describe(ch), err)
	}
	id, err := j.Record(context.Background(), "notes", ch, applied)
	if err != nil {
		t.Fatal(err)
	}
	return id
}

// realUndo reverts write id through v, as jarvis undo does, and records
// the undo.
func realUndo(t *testing.T, j Journal, v *Vault, id int64) int64 {
	t.Helper()
	ctx := context.Background()
	ch, err := j.UndoChange(ctx, id, func(p string) (string, bool, error) {
		_, etag, err := v.Read(ctx, p)
		if errors.Is(err, fs.ErrNotExist) {
			return "", false, nil
		}
		return etag, err == nil, err
	})
	if err != nil {
		t.Fatalf("undo write %d: %v", id, err)
	}
	return realWrite(t, j, v, ch)
}

// TestUndoOfADeleteTakesTheNoteBackFromTheTrash: undoing a delete moves
// the note back out of the trash, leaving the vault, trash and folders
// included, as it was before the delete; undoing that undo deletes it
// again, and so on.
func TestUndoOfADeleteTakesTheNoteBackFromTheTrash(t *testing.T) {
	for name, tree := range map[string]map[string]string{
		"no trash yet":       {"Projects/Old.md": "keep me\n", "B.md": "b"},
		"a trash with notes": {"Projects/Old.md": "keep me\n", ".trash/Projects/Old.md": "an older Old\n", ".trash/Gone.md": "gone"},
	} {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			writeTree(t, dir, tree)
			v := openTest(t, dir)
			j := Journal{DB: openJournalDB(t)}
			before := sharedtest.TreeHash(t, dir)

			del := realWrite(t, j, v, Change{Tool: ToolDelete, Files: []FileChange{{Path: "Projects/Old.md", Before: ETag([]byte("keep me\n")), Delete: true}}})
			deleted := sharedtest.TreeHash(t, dir)
			undo := realUndo(t, j, v, del)
			if got := sharedtest.TreeHash(t, dir); got != before {
				t.Fatalf("after the undo of the delete the vault is\n%s\nwant as before the delete\n%s", got, before)
			}
			redo := realUndo(t, j, v, undo)
			if got := sharedtest.TreeHash(t, dir); got != deleted {
				t.Fatalf("after the redo of the delete the vault is\n%s\nwant as after the delete\n%s", got, deleted)
			}
			realUndo(t, j, v, redo)
			if got := sharedtest.TreeHash(t, dir); got != before {
				t.Fatalf("after the undo of the redo the vault is\n%s\nwant as before the delete\n%s", got, before)
			}
			assertNoTemp(t, dir)
		})
	}
}

// TestUndoOfADeleteWithoutItsTrashCopy: when the copy in the trash is
// gone or changed since the delete, the note is written back from the
// journal, and a changed copy is left where it is.
func TestUndoOfADeleteWithoutItsTrashCopy(t *testing.T) {
	for name, meddle := range map[string]func(trashed string) error{
		"emptied": os.Remove,
		"changed": func(p string) error { return os.WriteFile(p, []byte("changed in the trash\n"), 0o644) },
	} {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			writeTree(t, dir, map[string]string{"Old.md": "keep me\n"})
			v := openTest(t, dir)
			j := Journal{DB: openJournalDB(t)}
			del := realWrite(t, j, v, Change{Tool: ToolDelete, Files: []FileChange{{Path: "Old.md", Before: ETag([]byte("keep me\n")), Delete: true}}})
			trashed := filepath.Join(dir, ".trash", "Old.md")
			if err := meddle(trashed); err != nil {
				t.Fatal(err)
			}
			realUndo(t, j, v, del)
			if got := readFile(t, filepath.Join(dir, "Old.md")); string(got) != "keep me\n" {
				t.Errorf("Old.md holds %q after the undo", got)
			}
			b, err := os.ReadFile(trashed)
			switch {
			case name == "changed" && string(b) != "changed in the trash\n":
				t.Errorf("the changed copy in the trash holds %q (%v), want it left as it was", b, err)
			case name == "emptied" && !errors.Is(err, fs.ErrNotExist):
				t.Errorf("a copy is in the trash after the undo: %q %v", b, err)
			}
			assertNoTemp(t, dir)
		})
	}
}

package write

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
)

// TestUndoRemovesTheFoldersTheWriteMade: undoing a write removes the
// folders it made, deepest first, when they are empty; never a folder
// that was there before the write (even empty), nor one that holds a
// file since. Undoing the undo makes them again, and undoing that
// removes them again.
func TestUndoRemovesTheFoldersTheWriteMade(t *testing.T) {
	ctx := context.Background()
	f := newJournalFixture(t, map[string]string{"Old/a.md": "a\n"})
	if err := os.Mkdir(filepath.Join(f.dir, "Empty"), 0o755); err != nil {
		t.Fatal(err)
	}
	v, err := OpenVault(f.dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	current := func(rel string) (string, bool, error) {
		_, etag, err := v.Read(ctx, rel)
		if errors.Is(err, fs.ErrNotExist) {
			return "", false, nil
		}
		return etag, err == nil, err
	}
	apply := func(ch Change) int64 {
		t.Helper()
		_, id, err := ApplyJournalled(ctx, f.db, v, "v", ch)
		if err != nil {
			t.Fatalf("apply %+v: %v", ch, err)
		}
		return id
	}
	undo := func(id int64) int64 {
		t.Helper()
		ch, err := UndoChange(ctx, f.db, id, current)
		if err != nil {
			t.Fatalf("undo write %d: %v", id, err)
		}
		return apply(ch)
	}
	exists := func(rel string) bool {
		_, err := os.Stat(filepath.Join(f.dir, filepath.FromSlash(rel)))
		return err == nil
	}
	create := func(rel string) int64 {
		return apply(Change{Tool: ToolCreate, Files: []FileChange{{Path: rel, After: []byte("x\n")}}})
	}

	deep := create("New Deep/Inner Dir/x.md")
	if !exists("New Deep/Inner Dir/x.md") {
		t.Fatal("create-note did not write New Deep/Inner Dir/x.md")
	}
	undone := undo(deep)
	if exists("New Deep") {
		t.Error("the undo of create-note New Deep/Inner Dir/x.md left the folder New Deep")
	}
	redone := undo(undone)
	if !exists("New Deep/Inner Dir/x.md") {
		t.Fatal("undoing the undo did not bring New Deep/Inner Dir/x.md back")
	}
	undo(redone)
	if exists("New Deep") {
		t.Error("undoing the redo of create-note New Deep/Inner Dir/x.md left the folder New Deep")
	}

	undo(create("Empty/Sub/y.md"))
	if exists("Empty/Sub") || !exists("Empty") {
		t.Errorf("after the undo of create-note Empty/Sub/y.md: Empty/Sub there %v, Empty there %v; want only Empty, there before", exists("Empty/Sub"), exists("Empty"))
	}

	undo(create("Old/Sub/z.md"))
	if exists("Old/Sub") || !exists("Old/a.md") {
		t.Errorf("after the undo of create-note Old/Sub/z.md: Old/Sub there %v, Old/a.md there %v", exists("Old/Sub"), exists("Old/a.md"))
	}

	kept := create("Kept/Inner/k.md")
	if err := os.WriteFile(filepath.Join(f.dir, "Kept", "other.md"), []byte("o\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	undo(kept)
	if exists("Kept/Inner") || !exists("Kept/other.md") {
		t.Errorf("after the undo of create-note Kept/Inner/k.md: Kept/Inner there %v, Kept/other.md there %v; want the empty folder gone, the one holding a file kept", exists("Kept/Inner"), exists("Kept/other.md"))
	}
}

// TestUndoOfAMoveRemovesTheFoldersTheMoveMade: a note moved into folders
// the move made goes back, and the folders go with it.
func TestUndoOfAMoveRemovesTheFoldersTheMoveMade(t *testing.T) {
	ctx := context.Background()
	f := newJournalFixture(t, map[string]string{"a.md": "a\n"})
	v, err := OpenVault(f.dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	_, id, err := ApplyJournalled(ctx, f.db, v, "v", Change{Tool: ToolMove, Files: []FileChange{{Path: "a.md", Before: ETag([]byte("a\n")), MoveTo: "To/Here/a.md"}}})
	if err != nil {
		t.Fatal(err)
	}
	ch, err := UndoChange(ctx, f.db, id, func(rel string) (string, bool, error) {
		_, etag, err := v.Read(ctx, rel)
		return etag, err == nil, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := ApplyJournalled(ctx, f.db, v, "v", ch); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(f.dir, "To")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("after the undo of the move to To/Here/a.md the folder To is there (%v)", err)
	}
	if f.read(t, "a.md") != "a\n" {
		t.Error("the undo did not move a.md back")
	}
}

package write

import (
	"context"
	"errors"
	"os"
	"slices"
	"testing"

	"github.com/jarvis-mcp/jarvis/internal/sharedtest"
)

// TestNamesThatDifferOnlyInCase: a note or folder whose name differs from
// one in the vault only in case (or Unicode form) is refused, naming the
// one there, whether created or moved to, in a dry run's check as in the
// write; the note itself renamed to its own name in other capitals is a
// rename, and undoing it renames it back.
func TestNamesThatDifferOnlyInCase(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{"Water.md": "w\n", "Other.md": "o\n", "Projects/Plan.md": "p\n", "Café.md": "c\n"})
	v := openTest(t, dir)
	before := sharedtest.TreeHash(t, dir)

	refusals := []struct {
		name       string
		ch         Change
		twin       string
		from       string
		folder     bool
		checkNewTo string
	}{
		{"create beside a note", Change{Files: []FileChange{{Path: "water.md", After: []byte("x")}}}, "Water.md", "", false, "water.md"},
		{"create in a folder's twin", Change{Files: []FileChange{{Path: "projects/New.md", After: []byte("x")}}}, "Projects", "", true, "projects/New.md"},
		{"create in another Unicode form", Change{Files: []FileChange{{Path: "CAFE\u0301.md", After: []byte("x")}}}, "Café.md", "", false, "CAFE\u0301.md"},
		{"move onto a note's twin", Change{Files: []FileChange{{Path: "Other.md", Before: ETag([]byte("o\n")), MoveTo: "WATER.md"}}}, "Water.md", "Other.md", false, "WATER.md"},
	}
	for _, c := range refusals {
		t.Run(c.name, func(t *testing.T) {
			_, err := v.Apply(ctx, c.ch)
			var twin *TwinError
			if !errors.As(err, &twin) || twin.Twin != c.twin || twin.Folder != c.folder || !errors.Is(err, ErrExists) {
				t.Fatalf("Apply: %v; want it refused as the twin of %q", err, c.twin)
			}
			sharedtest.CheckWords(t, c.name, err.Error())
			if err := v.CheckNew(ctx, c.checkNewTo, c.from); !errors.As(err, &twin) || twin.Twin != c.twin {
				t.Errorf("CheckNew(%q, %q) = %v; want the twin %q", c.checkNewTo, c.from, err, c.twin)
			}
			if sharedtest.TreeHash(t, dir) != before {
				t.Fatal("a refused write changed the vault")
			}
		})
	}

	// The note renamed to its own name in other capitals, with new bytes
	// as a move that relinks writes them, and back.
	j := Journal{DB: openJournalDB(t)}
	if err := v.CheckNew(ctx, "water.md", "Water.md"); err != nil {
		t.Fatalf("CheckNew of a rename that changes only the case: %v", err)
	}
	id := realWrite(t, j, v, Change{Tool: ToolMove, Files: []FileChange{{Path: "Water.md", Before: ETag([]byte("w\n")), MoveTo: "water.md", After: []byte("w2\n")}}})
	if names := dirNames(t, dir); !slices.Contains(names, "water.md") || slices.Contains(names, "Water.md") {
		t.Fatalf("after renaming Water.md to water.md the vault holds %q", names)
	}
	if got := readFile(t, dir+"/water.md"); string(got) != "w2\n" {
		t.Errorf("water.md holds %q", got)
	}
	realUndo(t, j, v, id)
	if sharedtest.TreeHash(t, dir) != before {
		t.Fatal("undoing the rename did not give Water.md back as it was")
	}
	assertNoTemp(t, dir)

	// Where the disk holds both names as two notes, neither is renamed
	// over the other.
	writeTree(t, dir, map[string]string{"other.md": "another\n"})
	_, err := v.Apply(ctx, Change{Files: []FileChange{{Path: "Other.md", Before: ETag([]byte("o\n")), MoveTo: "other.md"}}})
	var twin *TwinError
	if !errors.Is(err, ErrExists) || errors.As(err, &twin) {
		t.Errorf("moving Other.md onto another note other.md: %v; want it refused as existing", err)
	}
}

func dirNames(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	return names
}

package index

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/jarvis-mcp/jarvis/internal/store"
)

// TestOutlineCollapsesFolderChains: a folder whose notes all lie in one
// subfolder (it holds nothing else) names the same notes as that
// subfolder, so the outline gives the deepest folder of such a chain
// alone, not one line for each level; a folder holding notes of its own,
// or more than one subfolder of notes, stays.
func TestOutlineCollapsesFolderChains(t *testing.T) {
	root := t.TempDir()
	for _, p := range []string{
		"L1/L2/L3/L4/L5/L6/L7/L8/deep.md",
		"Projects/a.md",
		"Projects/Old/b.md",
		"Projects/Old/c.md",
		"Areas/Health/Sleep/x.md",
		"Areas/Money/y.md",
		"top.md",
	} {
		full := filepath.Join(root, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte("# note\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	ix, _ := testIndexer(t, filepath.Join(t.TempDir(), "j.db"))
	mustIndex(t, ix, "v", root)
	o, err := NewCatalog(ix.db.(*store.DB), []string{"v"}).Outline(context.Background(), "v", 40, 10)
	if err != nil {
		t.Fatal(err)
	}
	want := []FolderCount{
		{"Projects/", 3},
		{"Areas/", 2},
		{"Projects/Old/", 2},
		{"Areas/Health/Sleep/", 1},
		{"Areas/Money/", 1},
		{"L1/L2/L3/L4/L5/L6/L7/L8/", 1},
	}
	if !reflect.DeepEqual(o.Folders, want) || o.MoreFolders != 0 {
		t.Errorf("folders %v (%d more); want %v", o.Folders, o.MoreFolders, want)
	}
	// The bound counts the folders given, not the levels left out.
	o, err = NewCatalog(ix.db.(*store.DB), []string{"v"}).Outline(context.Background(), "v", 2, 10)
	if err != nil {
		t.Fatal(err)
	}
	if len(o.Folders) != 2 || o.MoreFolders != 4 {
		t.Errorf("two folders asked for: %v and %d more; want 2 and 4 more", o.Folders, o.MoreFolders)
	}
}

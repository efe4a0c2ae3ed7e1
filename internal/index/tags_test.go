package index

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/jarvis-mcp/jarvis/internal/store"
	"github.com/jarvis-mcp/jarvis/internal/vault"
)

// TestTagKeysOnUpgrade opens a database indexed before tags had keys
// (schema version 9): the first index run after the upgrade stores every
// tag's key, vault.TagKey, Unicode ones too, without reading a note.
func TestTagKeysOnUpgrade(t *testing.T) {
	root := exampleVault(t)
	if err := os.WriteFile(filepath.Join(root, "Summer.md"), []byte("#Été and #e\u0301te\u0301/soir\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "old.db")
	ix, _ := testIndexer(t, path)
	mustIndex(t, ix, "coffee", root)
	old := ix.db.(*store.DB)
	for _, q := range slices.Concat(undoWriteFolders, undoFileCreated, undoWriteJournal, undoVaultGeneration, undoVaultRules, undoBacklinkCounts, undoTagFold, []string{`DELETE FROM schema_migrations WHERE version >= 10`}) {
		if _, err := old.Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	old.Close()

	upgraded, parsed := testIndexer(t, path)
	mustIndex(t, upgraded, "coffee", root)
	if n := parsed.Load(); n != 0 {
		t.Errorf("the first run after the upgrade parsed %d notes; want none", n)
	}
	rows, err := upgraded.db.(*store.DB).Query(`SELECT tag, fold FROM tags`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	n := 0
	for rows.Next() {
		var tag, fold string
		if err := rows.Scan(&tag, &fold); err != nil {
			t.Fatal(err)
		}
		if fold != vault.TagKey(tag) {
			t.Errorf("tag %q has key %q; want %q", tag, fold, vault.TagKey(tag))
		}
		n++
	}
	if err := rows.Err(); err != nil || n == 0 {
		t.Fatalf("%d tags, %v", n, err)
	}
}

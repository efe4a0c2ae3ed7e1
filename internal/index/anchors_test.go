package index

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/jarvis-mcp/jarvis/internal/store"
)

// TestAnchorText follows a note's anchor text, the words other notes link
// to it with, through edits of the note linking to it, its deletion and
// its return. After every step the anchors found by a search are those of
// the links on disk, and FTS5's and SQLite's integrity checks pass.
func TestAnchorText(t *testing.T) {
	root := exampleVault(t)
	ix, _ := testIndexer(t, filepath.Join(t.TempDir(), "j.db"))
	db := ix.db.(*store.DB).DB
	mustIndex(t, ix, "coffee", root)
	linking := filepath.Join(root, "Methods", "French press.md")
	original, err := os.ReadFile(linking)
	if err != nil {
		t.Fatal(err)
	}
	check := func(t *testing.T) {
		t.Helper()
		checkSearchTables(t, db)
		var res string
		if err := db.QueryRow(`PRAGMA integrity_check`).Scan(&res); err != nil || res != "ok" {
			t.Fatalf("integrity_check: %s %v", res, err)
		}
	}
	const target = "Methods/Pour over.md"
	anchors := func(t *testing.T) string {
		t.Helper()
		var a string
		if err := db.QueryRow(`SELECT n.anchors FROM search_notes n JOIN files f ON f.id = n.file_id WHERE f.path = ?`, target).Scan(&a); err != nil {
			t.Fatal(err)
		}
		return a
	}

	t.Run("first index", func(t *testing.T) {
		// Kettle: "... possible for the [[Pour over]]"; the Japanese café
		// note: "[[Pour over|ハンドドリップ]]".
		if !matches(t, db, "note_fts", `{anchors} : ("pour over" AND "ハンドドリップ")`, target) {
			t.Errorf("the links' text does not find the note; anchors %q", anchors(t))
		}
		// The words of the links only, not the lines around them.
		if matches(t, db, "note_fts", "{anchors} : spout", target) {
			t.Errorf("the line around a link finds the note; anchors %q", anchors(t))
		}
		check(t)
	})

	t.Run("linking note edited", func(t *testing.T) {
		edited := strings.Replace(string(original), "[[Pour over#^bloom|pour over]]", "[[Pour over#^bloom|patient drip cone]]", 1)
		if edited == string(original) {
			t.Fatal("the linking sentence is not in the note")
		}
		if err := os.WriteFile(linking, []byte(edited), 0o644); err != nil {
			t.Fatal(err)
		}
		mustIndex(t, ix, "coffee", root)
		if !matches(t, db, "note_fts", `"patient drip cone"`, target) {
			t.Errorf("the new link does not find the note; anchors %q", anchors(t))
		}
		// The old display text was lower-case; the other links' are not.
		if a := anchors(t); strings.Contains(a, "pour over") {
			t.Errorf("anchors %q after the edit still hold the old link's text", a)
		}
		check(t)
	})

	t.Run("linking note deleted", func(t *testing.T) {
		if err := os.Remove(linking); err != nil {
			t.Fatal(err)
		}
		mustIndex(t, ix, "coffee", root)
		if matches(t, db, "note_fts", "patient OR cone", target) {
			t.Errorf("the deleted note's link still finds the note; anchors %q", anchors(t))
		}
		check(t)
	})

	t.Run("linking note back, target edited in the same run", func(t *testing.T) {
		if err := os.WriteFile(linking, original, 0o644); err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(root, filepath.FromSlash(target))
		data, _ := os.ReadFile(p)
		if err := os.WriteFile(p, append(data, "\nOne more line.\n"...), 0o644); err != nil {
			t.Fatal(err)
		}
		mustIndex(t, ix, "coffee", root)
		if !matches(t, db, "note_fts", `{anchors} : "pour over"`, target) || count(t, db, `SELECT count(*) FROM note_fts
			WHERE note_fts MATCH '{anchors} : "pour over"'`) != 1 {
			t.Errorf("the restored link does not find the note; anchors %q", anchors(t))
		}
		check(t)
	})
}

// TestUpgradeToAnchors opens a database indexed before anchor text existed
// (schema version 5): the migration rebuilds note_fts with the new field
// from the rows already stored, so search keeps working, and the next
// index run fills in the anchors without parsing a note, leaving what a
// fresh index would.
func TestUpgradeToAnchors(t *testing.T) {
	root := exampleVault(t)
	path := filepath.Join(t.TempDir(), "old.db")
	ix, _ := testIndexer(t, path)
	mustIndex(t, ix, "coffee", root)
	for _, q := range slices.Concat(undoWriteFolders, undoFileCreated, undoWriteJournal, undoVaultGeneration, undoVaultRules, undoBacklinkCounts, undoTagFold, undoCounts, []string{
		`DROP TRIGGER search_notes_insert`, `DROP TRIGGER search_notes_delete`,
		`DROP TRIGGER search_notes_anchors_before`, `DROP TRIGGER search_notes_anchors_after`,
		`DROP TABLE note_fts`, `DROP VIEW note_text`, `ALTER TABLE search_notes DROP COLUMN anchors`,
		`CREATE VIEW note_text (id, title, aliases, headings, body, path, tags) AS
			SELECT n.file_id, n.title, n.aliases, n.headings,
				coalesce((SELECT group_concat(c.text, char(10) ORDER BY c.ord) FROM chunks c WHERE c.file_id = n.file_id), ''),
				n.path, n.tags
			FROM search_notes n`,
		`CREATE VIRTUAL TABLE note_fts USING fts5 (title, aliases, headings, body, path, tags,
			content = 'note_text', content_rowid = 'id', tokenize = 'porter unicode61 remove_diacritics 2')`,
		`INSERT INTO note_fts (note_fts) VALUES ('rebuild')`,
		`CREATE TRIGGER search_notes_insert AFTER INSERT ON search_notes BEGIN
			INSERT INTO note_fts (rowid, title, aliases, headings, body, path, tags)
				SELECT id, title, aliases, headings, body, path, tags FROM note_text WHERE id = new.file_id;
			INSERT INTO name_fts (rowid, title, aliases, path, cjk) VALUES (new.file_id, new.title, new.aliases, new.path, new.cjk);
		END`,
		`CREATE TRIGGER search_notes_delete BEFORE DELETE ON search_notes BEGIN
			INSERT INTO note_fts (note_fts, rowid, title, aliases, headings, body, path, tags)
				SELECT 'delete', id, title, aliases, headings, body, path, tags FROM note_text WHERE id = old.file_id;
			INSERT INTO name_fts (name_fts, rowid, title, aliases, path, cjk)
				VALUES ('delete', old.file_id, old.title, old.aliases, old.path, old.cjk);
			DELETE FROM note_cjk WHERE rowid = old.file_id;
		END`,
		`DROP TABLE anchors_pending`, `DROP TRIGGER links_anchors_insert`, `DROP TRIGGER links_anchors_delete`,
		`DROP TRIGGER links_anchors_update`,
		`DROP TABLE embedding_progress`, // 0007
		`DROP TRIGGER chunks_inserted`, `DROP TRIGGER chunks_updated`, `DROP TRIGGER chunks_deleted`,
		`DROP TABLE chunk_changes`, `ALTER TABLE embedders DROP COLUMN synced_changes`, // 0008
		`DELETE FROM schema_migrations WHERE version >= 6`,
	}) {
		if _, err := ix.db.(*store.DB).Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	ix.db.(*store.DB).Close()

	upgraded, parsed := testIndexer(t, path)
	db := upgraded.db.(*store.DB).DB
	checkSearchTables(t, db)
	if !matches(t, db, "note_fts", "{body} : bloom", "Methods/Pour over.md") {
		t.Error("after the migration, the note's own words do not find it")
	}
	if n := count(t, db, `SELECT count(*) FROM vaults WHERE resolve_pending = 0`); n != 0 {
		t.Errorf("%d vaults not marked for the anchor pass", n)
	}
	mustIndex(t, upgraded, "coffee", root)
	if n := parsed.Load(); n != 0 {
		t.Errorf("the first run after the upgrade parsed %d notes; want none", n)
	}
	if !matches(t, db, "note_fts", `{anchors} : "ハンドドリップ"`, "Methods/Pour over.md") {
		t.Error("the run after the upgrade did not index anchor text")
	}
	fresh, _ := testIndexer(t, filepath.Join(t.TempDir(), "fresh.db"))
	mustIndex(t, fresh, "coffee", root)
	if a, b := dump(t, db), dump(t, fresh.db.(*store.DB).DB); a != b {
		t.Fatalf("upgraded database differs from a fresh index:\n%s", firstDiff(a, b))
	}
}

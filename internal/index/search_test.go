package index

import (
	"context"
	"database/sql"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/jarvis-mcp/jarvis/internal/store"
	"github.com/jarvis-mcp/jarvis/internal/vault"
)

// exampleVault copies examples/vault into a temporary folder that a test
// may change.
func exampleVault(t *testing.T) string {
	t.Helper()
	root := t.TempDir()
	copyTree(t, filepath.Join("..", "..", "examples", "vault"), root)
	return root
}

// count runs a query returning one number.
func count(t *testing.T, db *sql.DB, query string, args ...any) int {
	t.Helper()
	var n int
	if err := db.QueryRow(query, args...).Scan(&n); err != nil {
		t.Fatalf("%s: %v", query, err)
	}
	return n
}

// matches reports whether the full-text row of the note at path matches
// an FTS5 expression; every table is keyed by file id.
func matches(t *testing.T, db *sql.DB, table, expr, path string) bool {
	t.Helper()
	return count(t, db, `SELECT count(*) FROM `+table+` WHERE `+table+` MATCH ?
		AND rowid = (SELECT id FROM files WHERE path = ?)`, expr, path) > 0
}

// TestSearchRows follows a note's chunks and full-text rows through what
// happens to notes: first index, edit, empty note, text added, deletion,
// clearing. After every step FTS5's integrity check passes, which also
// finds rows left behind.
func TestSearchRows(t *testing.T) {
	root := exampleVault(t)
	ix, _ := testIndexer(t, filepath.Join(t.TempDir(), "j.db"))
	db := ix.db.(*store.DB).DB
	mustIndex(t, ix, "coffee", root)

	t.Run("first index", func(t *testing.T) {
		p := vault.NewParser()
		want := 0
		err := filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
			if err != nil || d.IsDir() || !strings.HasSuffix(path, ".md") {
				return err
			}
			src, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			n, err := p.Parse(context.Background(), filepath.Base(path), src)
			want += len(n.Chunks)
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		if got := count(t, db, `SELECT count(*) FROM chunks`); got != want || want == 0 {
			t.Errorf("%d chunks stored; the notes parse into %d", got, want)
		}
		for _, table := range []string{"search_notes", "note_fts_docsize", "name_fts_docsize"} {
			if got := count(t, db, `SELECT count(*) FROM `+table); got != 17 {
				t.Errorf("%d rows in %s for 17 notes", got, table)
			}
		}
		// The Japanese note, and the journal linking to it.
		if got := count(t, db, `SELECT count(*) FROM note_cjk_docsize`); got != 2 {
			t.Errorf("%d note_cjk rows; 2 notes hold Japanese", got)
		}
		var title, heading, text, hash string
		err = db.QueryRow(`SELECT f.title, c.heading, c.text, c.hash FROM chunks c JOIN files f ON f.id = c.file_id
			WHERE f.path = 'Methods/Pour over.md' AND c.ord = 1`).Scan(&title, &heading, &text, &hash)
		if err != nil {
			t.Fatal(err)
		}
		if hash != vault.TextHash(vault.EmbedText(title, heading, text)) {
			t.Errorf("chunk hash %s is not the hash of its embed text", hash)
		}
		if !matches(t, db, "note_fts", "bloom", "Methods/Pour over.md") ||
			!matches(t, db, "note_fts", `{aliases} : "hand drip"`, "Methods/Pour over.md") ||
			!matches(t, db, "note_fts", `{tags} : percolation`, "Methods/Pour over.md") ||
			!matches(t, db, "note_fts", `{headings} : troubleshooting`, "Methods/Pour over.md") ||
			!matches(t, db, "name_fts", `"hand drip"`, "Methods/Pour over.md") ||
			!matches(t, db, "note_cjk", `"神保"`, "喫茶店めぐり.md") {
			t.Error("indexed words are not found")
		}
		checkSearchTables(t, db)
	})

	t.Run("edit", func(t *testing.T) {
		p := filepath.Join(root, "Methods", "Pour over.md")
		data, _ := os.ReadFile(p)
		edited := strings.ReplaceAll(strings.ReplaceAll(string(data), "Bloom", "Prewet"), "bloom", "prewet")
		if err := os.WriteFile(p, []byte(edited), 0o644); err != nil {
			t.Fatal(err)
		}
		mustIndex(t, ix, "coffee", root)
		// Its own text only: French press still links to it as "the
		// bloom in the pour over" (see TestAnchorText).
		if matches(t, db, "note_fts", "{body} : bloom", "Methods/Pour over.md") {
			t.Error("the old word still finds the edited note")
		}
		if !matches(t, db, "note_fts", "prewet", "Methods/Pour over.md") {
			t.Error("the new word does not find the edited note")
		}
		checkSearchTables(t, db)
	})

	t.Run("empty note is found by name", func(t *testing.T) {
		if err := os.WriteFile(filepath.Join(root, "Gear", "Thermometer.md"), nil, 0o644); err != nil {
			t.Fatal(err)
		}
		mustIndex(t, ix, "coffee", root)
		if n := count(t, db, `SELECT count(*) FROM chunks c JOIN files f ON f.id = c.file_id WHERE f.path = 'Gear/Thermometer.md'`); n != 0 {
			t.Errorf("empty note has %d chunks", n)
		}
		if !matches(t, db, "note_fts", "thermometer", "Gear/Thermometer.md") ||
			!matches(t, db, "name_fts", "thermometer", "Gear/Thermometer.md") {
			t.Error("the empty note is not found by its name")
		}
		checkSearchTables(t, db)
	})

	t.Run("text added to the empty note", func(t *testing.T) {
		if err := os.WriteFile(filepath.Join(root, "Gear", "Thermometer.md"), []byte("A probe for the kettle.\n\n# Calibration\n\nIce water reads 0 °C.\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		mustIndex(t, ix, "coffee", root)
		if !matches(t, db, "note_fts", "calibration", "Gear/Thermometer.md") {
			t.Error("the new text is not found")
		}
		checkSearchTables(t, db)
	})

	t.Run("deleted notes take their rows", func(t *testing.T) {
		for _, p := range []string{filepath.Join("Gear", "Thermometer.md"), "喫茶店めぐり.md"} {
			if err := os.Remove(filepath.Join(root, p)); err != nil {
				t.Fatal(err)
			}
		}
		mustIndex(t, ix, "coffee", root)
		for _, table := range []string{"note_fts", "name_fts"} {
			if n := count(t, db, `SELECT count(*) FROM `+table+` WHERE `+table+` MATCH 'thermometer OR calibration'`); n != 0 {
				t.Errorf("%d rows of the deleted note still match in %s", n, table)
			}
		}
		if n := count(t, db, `SELECT count(*) FROM note_cjk WHERE note_cjk MATCH '"神保"'`); n != 0 {
			t.Errorf("%d CJK rows of the deleted note still match", n)
		}
		notes := count(t, db, `SELECT count(*) FROM files WHERE kind = 'note'`)
		for _, table := range []string{"search_notes", "note_fts_docsize", "name_fts_docsize"} {
			if got := count(t, db, `SELECT count(*) FROM `+table); got != notes {
				t.Errorf("%d rows in %s for %d notes", got, table, notes)
			}
		}
		checkSearchTables(t, db)
	})

	t.Run("clear", func(t *testing.T) {
		if err := ix.Clear(context.Background()); err != nil {
			t.Fatal(err)
		}
		for _, table := range []string{"chunks", "search_notes", "note_fts_docsize", "name_fts_docsize", "note_cjk_docsize"} {
			if n := count(t, db, `SELECT count(*) FROM `+table); n != 0 {
				t.Errorf("%d rows left in %s", n, table)
			}
		}
		checkSearchTables(t, db)
	})
}

// TestUpgradeFromVersion2 opens a database written before the full-text
// tables existed: the migration marks every note to be read again, and
// the next index run fills in chunks and search rows as a fresh index
// would.
func TestUpgradeFromVersion2(t *testing.T) {
	root := exampleVault(t)
	path := filepath.Join(t.TempDir(), "old.db")
	ix, _ := testIndexer(t, path)
	mustIndex(t, ix, "coffee", root)
	// Back to version 2: what 0003 made goes, chunks were never written,
	// vectors are the WITHOUT ROWID table 0004 replaces, and vaults have no
	// parser version (0005); what 0006 to 0009 added goes too.
	for _, q := range slices.Concat(undoWriteFolders, undoFileCreated, undoWriteJournal, undoVaultGeneration, undoVaultRules, undoBacklinkCounts, undoTagFold, undoCounts, []string{
		`ALTER TABLE vaults DROP COLUMN parser`,
		`DROP TABLE vectors`,
		`CREATE TABLE vectors (embedder_id INTEGER NOT NULL REFERENCES embedders(id) ON DELETE CASCADE,
			hash TEXT NOT NULL, vector BLOB NOT NULL, PRIMARY KEY (embedder_id, hash)) WITHOUT ROWID`,
		`DROP TRIGGER search_notes_insert`, `DROP TRIGGER search_notes_delete`, `DROP TRIGGER files_search_delete`,
		`DROP TABLE note_fts`, `DROP TABLE name_fts`, `DROP TABLE note_cjk`,
		`DROP VIEW note_text`, `DROP TABLE search_notes`,
		`DROP TABLE anchors_pending`, `DROP TRIGGER links_anchors_insert`, `DROP TRIGGER links_anchors_delete`,
		`DROP TRIGGER links_anchors_update`,
		`DROP TABLE embedding_progress`, // 0007
		`DROP TRIGGER chunks_inserted`, `DROP TRIGGER chunks_updated`, `DROP TRIGGER chunks_deleted`,
		`DROP TABLE chunk_changes`, `ALTER TABLE embedders DROP COLUMN synced_changes`, // 0008
		`DELETE FROM chunks`, `DELETE FROM schema_migrations WHERE version >= 3`,
	}) {
		if _, err := ix.db.(*store.DB).Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	ix.db.(*store.DB).Close()

	db, err := store.Open(context.Background(), path, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	upgraded := New(db, vault.NewParser(), ix.log)
	res := mustIndex(t, upgraded, "coffee", root)
	if res.Updated != 17 {
		t.Errorf("%+v; want all 17 notes read again", res)
	}
	fresh, _ := testIndexer(t, filepath.Join(t.TempDir(), "fresh.db"))
	mustIndex(t, fresh, "coffee", root)
	if a, b := dump(t, db.DB), dump(t, fresh.db.(*store.DB).DB); a != b {
		t.Fatalf("upgraded database differs from a fresh index:\n%s", firstDiff(a, b))
	}
}

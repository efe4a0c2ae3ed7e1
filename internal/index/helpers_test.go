package index

import (
	"context"
	"database/sql"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/jarvis-mcp/jarvis/internal/config"
	"github.com/jarvis-mcp/jarvis/internal/sharedtest"
	"github.com/jarvis-mcp/jarvis/internal/store"
	"github.com/jarvis-mcp/jarvis/internal/vault"
)

// testIndexer opens a fresh database at path and returns an Indexer over it
// whose parses are counted in parsed.
func testIndexer(t testing.TB, path string) (*Indexer, *atomic.Int64) {
	t.Helper()
	db, err := store.Open(context.Background(), path, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	ix := New(db, vault.NewParser(), slog.New(slog.NewTextHandler(io.Discard, nil)))
	var parsed atomic.Int64
	inner := ix.parse
	ix.parse = func(ctx context.Context, p string, src []byte) (vault.Note, error) {
		parsed.Add(1)
		return inner(ctx, p, src)
	}
	return ix, &parsed
}

func mustIndex(t testing.TB, ix *Indexer, name, root string) Result {
	t.Helper()
	res, err := ix.Index(context.Background(), config.Vault{Name: name, Path: root}, nil)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// copyTree copies a folder, so tests can change a vault from ../shared.
func copyTree(t testing.TB, src, dst string) { sharedtest.CopyTree(t, src, dst) }

// dump renders everything the index holds about the vaults, keyed by paths
// rather than row ids, so two databases built differently compare equal when
// they describe the same vault.
func dump(t testing.TB, db *sql.DB) string {
	t.Helper()
	queries := []string{
		`SELECT v.name, f.path, f.kind, f.size, f.mtime_ns, f.hash, f.title, f.word_count, coalesce(f.frontmatter, '')
			FROM files f JOIN vaults v ON v.id = f.vault_id ORDER BY v.name, f.path`,
		`SELECT f.path, a.alias FROM aliases a JOIN files f ON f.id = a.file_id ORDER BY f.path, a.alias`,
		`SELECT f.path, t.tag, t.fold, t.line, t.inline FROM tags t JOIN files f ON f.id = t.file_id ORDER BY f.path, t.line, t.tag, t.inline`,
		`SELECT f.path, h.ord, h.level, h.text, h.line FROM headings h JOIN files f ON f.id = h.file_id ORDER BY f.path, h.ord`,
		`SELECT f.path, b.block_id, b.line FROM blocks b JOIN files f ON f.id = b.file_id ORDER BY f.path, b.line, b.block_id`,
		`SELECT s.path, l.ord, l.kind, l.target, l.subpath, l.display, l.line, l.context, coalesce(t.path, '<unresolved>')
			FROM links l JOIN files s ON s.id = l.source_id LEFT JOIN files t ON t.id = l.target_id ORDER BY s.path, l.ord`,
		`SELECT f.path, e.url, e.text, e.line FROM external_links e JOIN files f ON f.id = e.source_id ORDER BY f.path, e.line, e.url, e.text`,
		`SELECT w.path, w.message FROM warnings w ORDER BY w.path, w.message`,
		`SELECT name, resolve_pending, notes, attachments, links, unresolved_links, chunks FROM vaults ORDER BY name`,
		`SELECT f.path, c.ord, c.heading, c.start_line, c.end_line, c.hash
			FROM chunks c JOIN files f ON f.id = c.file_id ORDER BY f.path, c.ord`,
		`SELECT f.path, n.title, n.aliases, n.headings, n.path, n.tags, n.cjk, n.anchors
			FROM search_notes n JOIN files f ON f.id = n.file_id ORDER BY f.path`,
		`SELECT (SELECT count(*) FROM note_fts_docsize), (SELECT count(*) FROM name_fts_docsize),
			(SELECT count(*) FROM note_cjk_docsize), (SELECT count(*) FROM search_notes)`,
	}
	checkSearchTables(t, db)
	checkCounts(t, db)
	var b strings.Builder
	for _, q := range queries {
		b.WriteString(rowsText(t, db, q))
		b.WriteString("--\n")
	}
	return b.String()
}

// linkTarget returns where the link of the given kind, target and subpath on
// a line of source resolves ("" when unresolved), failing when there is no
// such link.
func linkTarget(t *testing.T, db *sql.DB, source string, line int, kind, target, subpath string) string {
	t.Helper()
	var got sql.NullString
	err := db.QueryRow(`SELECT t.path FROM links l JOIN files s ON s.id = l.source_id LEFT JOIN files t ON t.id = l.target_id
		WHERE s.path = ? AND l.line = ? AND l.kind = ? AND l.target = ? AND l.subpath = ? LIMIT 1`,
		source, line, kind, target, subpath).Scan(&got)
	if err != nil {
		t.Fatalf("no %s link to %q#%q on line %d of %s: %v", kind, target, subpath, line, source, err)
	}
	return got.String
}

// checkSearchTables runs FTS5's integrity check on every full-text table;
// for the external-content tables it also compares the index with the
// text the rows were made from, so a row left behind by a deletion fails.
func checkSearchTables(t testing.TB, db *sql.DB) {
	t.Helper()
	for _, table := range []string{"note_fts", "name_fts", "note_cjk"} {
		if _, err := db.Exec(`INSERT INTO ` + table + ` (` + table + `, rank) VALUES ('integrity-check', 1)`); err != nil {
			t.Fatalf("%s: %v", table, err)
		}
	}
}

// recount counts what each vault holds from the rows themselves, in the
// columns and order of the counts the vaults table keeps.
const recount = `SELECT v.name,
	(SELECT count(*) FROM files f WHERE f.vault_id = v.id AND f.kind = 'note'),
	(SELECT count(*) FROM files f WHERE f.vault_id = v.id AND f.kind = 'attachment'),
	(SELECT count(*) FROM links l JOIN files f ON f.id = l.source_id WHERE f.vault_id = v.id),
	(SELECT count(*) FROM links l JOIN files f ON f.id = l.source_id WHERE f.vault_id = v.id AND l.target_id IS NULL),
	(SELECT count(*) FROM chunks c JOIN files f ON f.id = c.file_id WHERE f.vault_id = v.id)
	FROM vaults v ORDER BY v.name`

// checkCounts fails when the counts the vaults table keeps, or the
// backlinks of each file that backlink_counts keeps, differ from a recount
// of the rows.
func checkCounts(t testing.TB, db *sql.DB) {
	t.Helper()
	kept := rowsText(t, db, `SELECT name, notes, attachments, links, unresolved_links, chunks FROM vaults ORDER BY name`)
	if counted := rowsText(t, db, recount); kept != counted {
		t.Fatalf("kept counts (name, notes, attachments, links, unresolved, chunks):\n%s\ndiffer from a recount:\n%s", kept, counted)
	}
	// A file whose last backlink went keeps a row of 0.
	kept = rowsText(t, db, `SELECT f.path, c.n FROM backlink_counts c JOIN files f ON f.id = c.file_id WHERE c.n <> 0 ORDER BY f.id`)
	counted := rowsText(t, db, `SELECT f.path, count(*) FROM links l JOIN files f ON f.id = l.target_id
		WHERE l.source_id <> l.target_id GROUP BY f.id ORDER BY f.id`)
	if kept != counted {
		t.Fatalf("kept backlink counts (path, links from other notes):\n%s\ndiffer from a recount:\n%s", kept, counted)
	}
}

// rowsText renders the rows of a query, a line each.
func rowsText(t testing.TB, db *sql.DB, q string) string {
	t.Helper()
	rows, err := db.Query(q)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	cols, _ := rows.Columns()
	vals := make([]any, len(cols))
	ptrs := make([]any, len(cols))
	for i := range vals {
		ptrs[i] = &vals[i]
	}
	var b strings.Builder
	for rows.Next() {
		if err := rows.Scan(ptrs...); err != nil {
			t.Fatal(err)
		}
		for i, v := range vals {
			if i > 0 {
				b.WriteByte('\t')
			}
			fmt.Fprint(&b, v)
		}
		b.WriteByte('\n')
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// undoWriteFolders takes a database back from version 16
// (0016_write_folders.sql) to 15, for tests of upgrades from earlier
// versions.
var undoWriteFolders = []string{`DROP TABLE write_folders`}

// undoFileCreated takes a database back from version 15
// (0015_file_created.sql) to 14, for tests of upgrades from earlier
// versions; undoWriteFolders comes first.
var undoFileCreated = []string{`ALTER TABLE files DROP COLUMN created_ns`}

// undoWriteJournal takes a database back from version 14
// (0014_write_journal.sql) to 13, for tests of upgrades from earlier
// versions; undoFileCreated comes first.
var undoWriteJournal = []string{`DROP TABLE write_files`, `DROP TABLE writes`}

// undoVaultGeneration takes a database back from version 13
// (0013_vault_generation.sql) to 12, for tests of upgrades from earlier
// versions; undoWriteJournal comes first.
var undoVaultGeneration = []string{
	`DROP TRIGGER vaults_generation_insert`, `DROP TRIGGER files_generation_insert`, `DROP TRIGGER files_generation_update`,
	`DROP TRIGGER files_generation_delete`, `DROP TRIGGER links_generation_resolve`,
	`ALTER TABLE vaults DROP COLUMN generation`,
}

// undoVaultRules takes a database back from version 12
// (0012_vault_rules.sql) to 11, for tests of upgrades from earlier
// versions; undoVaultGeneration comes first.
var undoVaultRules = []string{`ALTER TABLE vaults DROP COLUMN exclude`}

// undoBacklinkCounts takes a database back from version 11
// (0011_backlink_counts.sql) to 10, for tests of upgrades from earlier
// versions; undoVaultRules comes first.
var undoBacklinkCounts = []string{
	`DROP TRIGGER links_backlinks_insert`, `DROP TRIGGER links_backlinks_delete`, `DROP TRIGGER links_backlinks_retarget`,
	`DROP TABLE backlink_counts`,
}

// undoTagFold takes a database back from version 10 (0010_tag_fold.sql)
// to 9, for tests of upgrades from earlier versions; undoBacklinkCounts
// comes first.
var undoTagFold = []string{
	`DROP INDEX tags_fold`, `ALTER TABLE tags DROP COLUMN fold`,
	`CREATE INDEX tags_tag ON tags(tag COLLATE NOCASE)`,
}

// undoCounts takes a database back from version 9 (0009_counts.sql) to 8,
// for tests of upgrades from earlier versions; undoTagFold comes first.
var undoCounts = []string{
	`DROP TRIGGER files_count_insert`, `DROP TRIGGER files_count_kind`, `DROP TRIGGER files_count_delete`,
	`DROP TRIGGER links_count_insert`, `DROP TRIGGER links_count_delete`, `DROP TRIGGER links_count_resolve`,
	`DROP TRIGGER chunks_count_insert`, `DROP TRIGGER chunks_count_delete`,
	`ALTER TABLE vaults DROP COLUMN notes`, `ALTER TABLE vaults DROP COLUMN attachments`,
	`ALTER TABLE vaults DROP COLUMN links`, `ALTER TABLE vaults DROP COLUMN unresolved_links`,
	`ALTER TABLE vaults DROP COLUMN chunks`,
}

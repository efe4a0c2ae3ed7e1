package index

import (
	"context"
	"database/sql"
	"path/filepath"
	"testing"

	"github.com/jarvis-mcp/jarvis/internal/sharedtest"
	"github.com/jarvis-mcp/jarvis/internal/vault"
)

// TestIndexRecordsCreationTimes: each file's birth time, as the scan
// found it, is stored with its row (NULL when unknown); rows that hold
// none, as after migration 0015, get it on the next run without a note
// read again, which changes the vault's generation once; a run that
// finds every birth time as stored writes nothing.
func TestIndexRecordsCreationTimes(t *testing.T) {
	root := t.TempDir()
	sharedtest.WriteFile(t, root, "Note.md", "# Note\n")
	sharedtest.WriteFile(t, root, "Other.md", "# Other\n")
	sharedtest.WriteFile(t, root, "photo.png", "png")
	ix, parsed := testIndexer(t, filepath.Join(t.TempDir(), "j.db"))
	// The scan's birth times, set here so that the test holds on a file
	// system that keeps none; Other.md's is unknown.
	born := map[string]int64{"Note.md": 1_000_000_000_123, "photo.png": 2_000_000_000_456}
	real := ix.scan
	ix.scan = func(r *vault.Root, ctx context.Context) ([]vault.File, []vault.Warning, error) {
		files, warnings, err := real(r, ctx)
		for i := range files {
			files[i].Created = born[files[i].Path]
		}
		return files, warnings, err
	}
	stored := func() map[string]sql.NullInt64 {
		t.Helper()
		rows, err := ix.db.QueryContext(context.Background(), `SELECT path, created_ns FROM files`)
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		got := map[string]sql.NullInt64{}
		for rows.Next() {
			var p string
			var c sql.NullInt64
			if err := rows.Scan(&p, &c); err != nil {
				t.Fatal(err)
			}
			got[p] = c
		}
		return got
	}
	want := map[string]sql.NullInt64{"Note.md": {Int64: born["Note.md"], Valid: true},
		"photo.png": {Int64: born["photo.png"], Valid: true}, "Other.md": {}}
	check := func(when string) {
		t.Helper()
		got := stored()
		for p, w := range want {
			if got[p] != w {
				t.Errorf("%s: %s has created_ns %v, want %v", when, p, got[p], w)
			}
		}
	}
	generation := func() int64 {
		t.Helper()
		var g int64
		if err := ix.db.QueryRowContext(context.Background(), `SELECT generation FROM vaults WHERE name = 'v'`).Scan(&g); err != nil {
			t.Fatal(err)
		}
		return g
	}

	mustIndex(t, ix, "v", root)
	check("first run")

	// Rows from before the column: NULL everywhere.
	if _, err := ix.db.ExecContext(context.Background(), `UPDATE files SET created_ns = NULL`); err != nil {
		t.Fatal(err)
	}
	before := generation()
	parsed.Store(0)
	res := mustIndex(t, ix, "v", root)
	check("run after the migration")
	if res.Added+res.Updated+res.Deleted != 0 || parsed.Load() != 0 {
		t.Errorf("filling in birth times read or changed notes: %+v, %d parsed", res, parsed.Load())
	}
	after := generation()
	if after == before {
		t.Error("birth times filled in, yet the vault's generation is the same: readers keep the old file.ctime")
	}

	mustIndex(t, ix, "v", root)
	if generation() != after {
		t.Error("a run that changed nothing changed the vault's generation")
	}

	// A file saved by replacing it is born again with the same content:
	// its new birth time is stored, the note not parsed again.
	born["Note.md"] = 3_000_000_000_789
	want["Note.md"] = sql.NullInt64{Int64: born["Note.md"], Valid: true}
	parsed.Store(0)
	mustIndex(t, ix, "v", root)
	check("run after a replace")
	if parsed.Load() != 0 {
		t.Errorf("a new birth time alone parsed %d notes", parsed.Load())
	}
}

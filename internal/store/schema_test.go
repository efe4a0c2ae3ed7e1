package store

import (
	"context"
	"database/sql"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/jarvis-mcp/jarvis/internal/health"
)

// migratedTo is a real database whose migrations stopped after the first
// n, as a run killed between two of them leaves it; with a vault recorded
// when vault is set, as an older jarvis that indexed one leaves it.
func migratedTo(t *testing.T, n int, vault bool) *DB {
	t.Helper()
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "j.db")
	raw, err := sql.Open("sqlite", dsn(path))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { raw.Close() })
	db := &DB{DB: raw, Path: path}
	ms, err := loadMigrations()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.ExecContext(ctx, createMigrationTable); err != nil {
		t.Fatal(err)
	}
	for _, m := range ms[:n] {
		if err := db.apply(ctx, m); err != nil {
			t.Fatal(err)
		}
	}
	if vault {
		if _, err := db.ExecContext(ctx, `INSERT INTO vaults (name, path) VALUES ('help', '/v/help')`); err != nil {
			t.Fatal(err)
		}
	}
	return db
}

// TestSchemaTellsCutShortFromOlder: a database whose first migrations were
// cut short (version 0, or part way with no vault ever recorded) is not
// set up yet, and the schema check says so once, not that it is older; one
// that recorded a vault at an older version was made by an older jarvis.
// The checks of what the index holds say "not set up" by the same rule.
func TestSchemaTellsCutShortFromOlder(t *testing.T) {
	ctx := context.Background()
	latest := LatestVersion()
	inv := health.Invocation{"--vault", "help/en", "--db", "kk/j.db"}
	for _, c := range []struct {
		name       string
		n          int
		vault      bool
		want       Schema
		detail     string
		fix, setUp string
	}{
		{"version 0", 0, false, SchemaUnfinished, "the index is not set up yet: the first index run was cut short (or has not run)",
			"run `jarvis index --vault help/en --db kk/j.db` to set it up and index the vaults", NotSetUp},
		{"part way", 5, false, SchemaUnfinished, "the index is not set up yet: the first index run was cut short (or has not run)",
			"run `jarvis index --vault help/en --db kk/j.db` to set it up and index the vaults", NotSetUp},
		{"older", 5, true, SchemaOlder, "the database was made by an older jarvis (version 5; this jarvis uses " + strconv.Itoa(latest) + ")",
			"run `jarvis index --vault help/en --db kk/j.db` to bring it up to date", ""},
		{"current", latest, false, SchemaCurrent, "version " + strconv.Itoa(latest) + ", current", "", ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			db := migratedTo(t, c.n, c.vault)
			if s, _, _, err := db.Schema(ctx); err != nil || s != c.want {
				t.Errorf("Schema = %v, %v; want %v", s, err, c.want)
			}
			r := schemaResult(ctx, db, inv, nil)
			if r.Detail != c.detail || r.Fix != c.fix || strings.Contains(r.Detail, "version 0") {
				t.Errorf("schema check = %+v\nwant detail %q, fix %q", r, c.detail, c.fix)
			}
			if got := db.SetUp(ctx); got != c.setUp {
				t.Errorf("SetUp = %q, want %q", got, c.setUp)
			}
		})
	}
}

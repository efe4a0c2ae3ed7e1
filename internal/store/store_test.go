package store

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestOpenCreatesAndMigrates(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "sub", "jarvis.db")
	db, err := Open(ctx, path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	current, latest, err := db.Version(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if current != latest || latest < 1 {
		t.Fatalf("version = %d, latest %d; want equal and >= 1", current, latest)
	}
	var mode string
	if err := db.QueryRowContext(ctx, `PRAGMA journal_mode`).Scan(&mode); err != nil || mode != "wal" {
		t.Fatalf("journal_mode = %q, %v; want wal", mode, err)
	}
	var fk int
	if err := db.QueryRowContext(ctx, `PRAGMA foreign_keys`).Scan(&fk); err != nil || fk != 1 {
		t.Fatalf("foreign_keys = %d, %v; want 1", fk, err)
	}
	if problems, err := db.IntegrityCheck(ctx); err != nil || problems != nil {
		t.Fatalf("integrity = %v, %v", problems, err)
	}
	db.Close()

	// Opening again applies nothing twice.
	db, err = Open(ctx, path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var n int
	if err := db.QueryRowContext(ctx, `SELECT count(*) FROM schema_migrations`).Scan(&n); err != nil || n != latest {
		t.Fatalf("schema_migrations rows = %d, %v; want %d", n, err, latest)
	}
}

func TestOpenRefusesNewerSchema(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "jarvis.db")
	db, err := Open(ctx, path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.ExecContext(ctx, `INSERT INTO schema_migrations VALUES (999, 'future', 'x')`); err != nil {
		t.Fatal(err)
	}
	db.Close()
	_, err = Open(ctx, path, Options{})
	if !errors.Is(err, ErrNewerSchema) {
		t.Fatalf("err = %v; want ErrNewerSchema", err)
	}
	if !strings.Contains(err.Error(), "999") {
		t.Errorf("message %q should name the version", err)
	}
}

func TestOpenNeverTouchesAFileThatIsNotADatabase(t *testing.T) {
	ctx := context.Background()
	cases := map[string]struct {
		content []byte
		// want is ErrNotJarvis for a file jarvis did not make,
		// ErrNotDatabase for a damaged index.
		want error
	}{
		"text":            {[]byte("these are my notes, not a database\n"), ErrNotJarvis},
		"truncated magic": {[]byte("SQLite format"), ErrNotJarvis},
		"zeroed header":   {make([]byte, 8192), ErrNotDatabase},
		"damaged header":  {append([]byte("SQLite format 3\x00"), bytes.Repeat([]byte{0xff}, 4096)...), ErrNotDatabase},
	}
	for name, tc := range cases {
		content := tc.content
		t.Run(name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "jarvis.db")
			if err := os.WriteFile(path, content, 0o644); err != nil {
				t.Fatal(err)
			}
			for _, opts := range []Options{{}, {ReadOnly: true}} {
				db, err := Open(ctx, path, opts)
				if err == nil {
					db.Close()
					t.Fatalf("Open(%+v) succeeded on a non-database", opts)
				}
				if !errors.Is(err, tc.want) {
					t.Fatalf("err = %v; want %v", err, tc.want)
				}
			}
			got, err := os.ReadFile(path)
			if err != nil || !bytes.Equal(got, content) {
				t.Fatalf("file changed or gone: %v", err)
			}
		})
	}
}

func TestOpenReadOnlyDoesNotCreate(t *testing.T) {
	path := filepath.Join(t.TempDir(), "missing.db")
	if _, err := Open(context.Background(), path, Options{ReadOnly: true}); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("err = %v; want not exist", err)
	}
	if _, err := os.Stat(path); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("ReadOnly created the file: %v", err)
	}
}

func TestOpenRefusesSomeoneElsesDatabase(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "other.db")
	raw, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := raw.ExecContext(ctx, `CREATE TABLE accounts (id INTEGER PRIMARY KEY, balance INTEGER)`); err != nil {
		t.Fatal(err)
	}
	raw.Close()
	before, _ := os.ReadFile(path)
	if _, err := Open(ctx, path, Options{}); !errors.Is(err, ErrNotJarvis) || errors.Is(err, ErrNotDatabase) {
		t.Fatalf("err = %v; want ErrNotJarvis, and not damage, for tables without a migration record", err)
	}
	var n int
	raw, _ = sql.Open("sqlite", path)
	defer raw.Close()
	if err := raw.QueryRowContext(ctx, `SELECT count(*) FROM sqlite_master WHERE name = 'schema_migrations'`).Scan(&n); err != nil || n != 0 {
		t.Fatalf("jarvis wrote into someone else's database (n=%d, %v)", n, err)
	}
	if after, _ := os.ReadFile(path); !bytes.Equal(before, after) {
		t.Fatal("file content changed")
	}
}

// TestOpenFinishesARunStoppedBeforeItsFirstMigration: a process killed
// after creating the migration table and before committing the first
// migration leaves that table alone, empty; it is jarvis's own, and the
// next run migrates the file.
func TestOpenFinishesARunStoppedBeforeItsFirstMigration(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "killed.db")
	raw, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := raw.ExecContext(ctx, createMigrationTable); err != nil {
		t.Fatal(err)
	}
	raw.Close()
	db, err := Open(ctx, path, Options{})
	if err != nil {
		t.Fatalf("Open after a stopped first run: %v", err)
	}
	defer db.Close()
	if current, latest, err := db.Version(ctx); err != nil || current != latest {
		t.Fatalf("version %d of %d, %v", current, latest, err)
	}
}

func TestMigrationsAreNumberedInOrder(t *testing.T) {
	ms, err := loadMigrations()
	if err != nil {
		t.Fatal(err)
	}
	for i, m := range ms {
		if m.version != i+1 || strings.TrimSpace(m.sql) == "" {
			t.Fatalf("migration %d = %+v", i, m.name)
		}
	}
}

// TestMigrationKeepsStoredVectors opens a database left at schema version
// 3, where vectors were a WITHOUT ROWID table, and checks that upgrading
// keeps every stored vector and its key.
func TestMigrationKeepsStoredVectors(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "v3.db")
	raw, err := sql.Open("sqlite", dsn(path))
	if err != nil {
		t.Fatal(err)
	}
	old := &DB{DB: raw, Path: path}
	ms, err := loadMigrations()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := old.ExecContext(ctx, createMigrationTable); err != nil {
		t.Fatal(err)
	}
	for _, m := range ms[:3] {
		if err := old.apply(ctx, m); err != nil {
			t.Fatal(err)
		}
	}
	blob := bytes.Repeat([]byte{1, 2, 3, 4}, 768)
	if _, err := old.ExecContext(ctx, `INSERT INTO embedders (id, fingerprint, provider, model, dimension, created_ms)
		VALUES (7, 'lexical/x/768', 'lexical', 'x', 768, 0)`); err != nil {
		t.Fatal(err)
	}
	for _, h := range []string{"aa", "bb"} {
		if _, err := old.ExecContext(ctx, `INSERT INTO vectors VALUES (7, ?, ?)`, h, blob); err != nil {
			t.Fatal(err)
		}
	}
	old.Close()

	db, err := Open(ctx, path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if current, latest, err := db.Version(ctx); err != nil || current != latest {
		t.Fatalf("version %d of %d, %v", current, latest, err)
	}
	var got []byte
	if err := db.QueryRowContext(ctx, `SELECT vector FROM vectors WHERE embedder_id = 7 AND hash = 'bb'`).Scan(&got); err != nil || !bytes.Equal(got, blob) {
		t.Fatalf("vector after upgrade: %d bytes, %v", len(got), err)
	}
	// The key stays unique: storing a vector again replaces it.
	if _, err := db.ExecContext(ctx, `INSERT OR REPLACE INTO vectors (embedder_id, hash, vector) VALUES (7, 'aa', x'00')`); err != nil {
		t.Fatal(err)
	}
	var n int
	if err := db.QueryRowContext(ctx, `SELECT count(*) FROM vectors`).Scan(&n); err != nil || n != 2 {
		t.Fatalf("%d vectors, %v; want 2", n, err)
	}
	// Dropping the embedder still drops its vectors.
	if _, err := db.ExecContext(ctx, `DELETE FROM embedders WHERE id = 7`); err != nil {
		t.Fatal(err)
	}
	if err := db.QueryRowContext(ctx, `SELECT count(*) FROM vectors`).Scan(&n); err != nil || n != 0 {
		t.Fatalf("%d vectors after dropping their embedder, %v; want 0", n, err)
	}
}

// TestLockWritersKeepsWritersApart takes the writer lock through two
// handles on one database, as two processes would: the second waits for
// the first, and gives up when its context ends.
func TestLockWritersKeepsWritersApart(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "j.db")
	a, err := Open(ctx, path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	b, err := Open(ctx, path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()

	unlockA, err := a.LockWriters(ctx)
	if err != nil {
		t.Fatal(err)
	}
	short, cancel := context.WithTimeout(ctx, 100*time.Millisecond)
	defer cancel()
	waits := 0
	b.OnWait = func() { waits++ }
	if _, err := b.LockWriters(short); !errors.Is(err, context.DeadlineExceeded) || waits != 1 {
		t.Fatalf("second writer while the first holds the lock: %v, told of waiting %d times; want it to wait, saying so once, until its context ends", err, waits)
	}
	b.OnWait = nil
	got := make(chan func(), 1)
	go func() {
		unlockB, err := b.LockWriters(ctx)
		if err != nil {
			t.Error(err)
			unlockB = func() {}
		}
		got <- unlockB
	}()
	select {
	case <-got:
		t.Fatal("the second writer took the lock while the first held it")
	case <-time.After(100 * time.Millisecond):
	}
	unlockA()
	select {
	case unlockB := <-got:
		unlockB()
	case <-time.After(10 * time.Second):
		t.Fatal("the second writer never got the lock after the first gave it back")
	}
}

func TestInVaults(t *testing.T) {
	for _, c := range []struct {
		names []string
		cond  string
		args  int
	}{
		{nil, "", 0},
		{[]string{"a"}, "f.vault_id = (SELECT id FROM vaults WHERE name = ?)", 1},
		{[]string{"a", "b", "c"}, "f.vault_id IN (SELECT id FROM vaults WHERE name IN (?, ?, ?))", 3},
	} {
		cond, args := InVaults("f.vault_id", c.names)
		if cond != c.cond || len(args) != c.args {
			t.Errorf("InVaults(%v) = %q, %v", c.names, cond, args)
		}
	}
}

// TestOpenPathsWithURICharacters: a database whose path holds '#', '?' or
// '%' opens at that path, read-write and read-only, and nothing is made
// beside it.
func TestOpenPathsWithURICharacters(t *testing.T) {
	ctx := context.Background()
	dir := filepath.Join(t.TempDir(), "my#notes?x%41")
	path := filepath.Join(dir, "j#1.db")
	db, err := Open(ctx, path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	db.Close()
	entries, _ := os.ReadDir(filepath.Dir(dir))
	if len(entries) != 1 || entries[0].Name() != filepath.Base(dir) {
		t.Fatalf("files beside the folder: %v", entries)
	}
	if _, err := os.Stat(path); err != nil {
		t.Fatalf("the database is not where it was asked for: %v", err)
	}
	ro, err := Open(ctx, path, Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer ro.Close()
	if current, latest, err := ro.Version(ctx); err != nil || current != latest {
		t.Fatalf("read-only open sees version %d of %d, %v", current, latest, err)
	}
}

// TestDatabaseCheckTimeGrowsWithTheFile: the integrity check of a large
// index gets more than the minute-or-less every check is given, the time
// reading it at checkRate takes.
func TestDatabaseCheckTimeGrowsWithTheFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "j.db")
	h := NewHandle(path, Options{})
	defer h.Close()
	limit := Checks(h, nil, CheckOptions{})[0].Limit
	if got := limit(); got != 0 {
		t.Fatalf("no file yet: %s", got)
	}
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := f.Truncate(2 << 30); err != nil { // sparse: no disk used
		t.Fatal(err)
	}
	if got := limit(); got != 2<<30*time.Second/checkRate || got < time.Minute {
		t.Fatalf("a 2 GB file: %s", got)
	}
}

// TestMigrationKeysTags opens a database left at schema version 9, before
// tags had keys: a tag of ASCII characters gets its key at once; the
// others are left for the next index run (index.keyTags).
func TestMigrationKeysTags(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "v9.db")
	raw, err := sql.Open("sqlite", dsn(path))
	if err != nil {
		t.Fatal(err)
	}
	old := &DB{DB: raw, Path: path}
	ms, err := loadMigrations()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := old.ExecContext(ctx, createMigrationTable); err != nil {
		t.Fatal(err)
	}
	for _, m := range ms[:9] {
		if err := old.apply(ctx, m); err != nil {
			t.Fatal(err)
		}
	}
	for _, q := range []string{
		`INSERT INTO vaults (id, name, path, parser) VALUES (1, 'v', '/v', '2')`,
		`INSERT INTO files (id, vault_id, path, kind, size, mtime_ns) VALUES (1, 1, 'a.md', 'note', 1, 1)`,
		`INSERT INTO tags (file_id, tag, line, inline) VALUES (1, 'Project/Alpha', 1, 1), (1, 'Été', 2, 1)`,
	} {
		if _, err := old.ExecContext(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	old.Close()

	db, err := Open(ctx, path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	rows, err := db.QueryContext(ctx, `SELECT tag, fold FROM tags ORDER BY rowid`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var got []string
	for rows.Next() {
		var tag, fold string
		if err := rows.Scan(&tag, &fold); err != nil {
			t.Fatal(err)
		}
		got = append(got, tag+"="+fold)
	}
	if want := []string{"Project/Alpha=project/alpha", "Été="}; !slices.Equal(got, want) {
		t.Fatalf("tags after the upgrade %q; want %q", got, want)
	}
}

package store

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
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
	cases := map[string][]byte{
		"text":            []byte("these are my notes, not a database\n"),
		"truncated magic": []byte("SQLite format"),
		"damaged header":  append([]byte("SQLite format 3\x00"), bytes.Repeat([]byte{0xff}, 4096)...),
	}
	for name, content := range cases {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "jarvis.db")
			if err := os.WriteFile(path, content, 0o644); err != nil {
				t.Fatal(err)
			}
			for _, opts := range []Options{{}, {NoMigrate: true}} {
				db, err := Open(ctx, path, opts)
				if err == nil {
					db.Close()
					t.Fatalf("Open(%+v) succeeded on a non-database", opts)
				}
				if !errors.Is(err, ErrNotDatabase) {
					t.Fatalf("err = %v; want ErrNotDatabase", err)
				}
			}
			got, err := os.ReadFile(path)
			if err != nil || !bytes.Equal(got, content) {
				t.Fatalf("file changed or gone: %v", err)
			}
		})
	}
}

func TestOpenNoMigrateDoesNotCreate(t *testing.T) {
	path := filepath.Join(t.TempDir(), "missing.db")
	if _, err := Open(context.Background(), path, Options{NoMigrate: true}); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("err = %v; want not exist", err)
	}
	if _, err := os.Stat(path); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("NoMigrate created the file: %v", err)
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
	if _, err := Open(ctx, path, Options{}); !errors.Is(err, ErrNotDatabase) {
		t.Fatalf("err = %v; want ErrNotDatabase for tables without a migration record", err)
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

func TestMoveAside(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "jarvis.db")
	for _, suffix := range []string{"", "-wal"} {
		if err := os.WriteFile(path+suffix, []byte("x"+suffix), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	now := time.Date(2026, 11, 22, 5, 0, 0, 0, time.UTC)
	backup, err := MoveAside(path, now)
	if err != nil {
		t.Fatal(err)
	}
	if want := path + ".broken-20261122T050000Z"; backup != want {
		t.Fatalf("backup = %s; want %s", backup, want)
	}
	if _, err := os.Stat(path); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("original still there: %v", err)
	}
	for _, suffix := range []string{"", "-wal"} {
		got, err := os.ReadFile(backup + suffix)
		if err != nil || string(got) != "x"+suffix {
			t.Fatalf("backup%s = %q, %v", suffix, got, err)
		}
	}
	if _, err := MoveAside(path, now); err == nil {
		t.Fatal("moving a missing file aside should fail")
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

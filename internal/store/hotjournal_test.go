package store

import (
	"context"
	"database/sql"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestOpenAfterAKillDuringAJournalledWrite: a process killed inside a
// write made in rollback-journal mode (as switching a new file to WAL is)
// leaves a hot journal beside the database. The next open rolls it back,
// as SQLite does for any writer, rather than calling the database one
// this user may not write.
func TestOpenAfterAKillDuringAJournalledWrite(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	live := filepath.Join(dir, "live.db")
	// A jarvis database, in rollback-journal mode for the write below.
	db, err := Open(ctx, live, Options{})
	if err != nil {
		t.Fatal(err)
	}
	db.Close()
	conn, err := sql.Open("sqlite", fileURI(live)+"?_pragma=journal_mode(DELETE)&_pragma=cache_size(2)")
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	conn.SetMaxOpenConns(1)
	if _, err := conn.Exec(`CREATE TABLE filler (x BLOB)`); err != nil {
		t.Fatal(err)
	}
	tx, err := conn.Begin()
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	// More pages than the cache holds: SQLite writes the journal and
	// then changed pages into the database file before the commit.
	for range 200 {
		if _, err := tx.Exec(`INSERT INTO filler VALUES (randomblob(4000))`); err != nil {
			t.Fatal(err)
		}
	}
	// The files as a kill now would leave them.
	crashed := filepath.Join(dir, "crashed.db")
	for _, suffix := range []string{"", "-journal"} {
		data, err := os.ReadFile(live + suffix)
		if err != nil {
			t.Fatalf("no %s to copy: %v", live+suffix, err)
		}
		if err := os.WriteFile(crashed+suffix, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}

	// Read-only first, as doctor opens it, on a copy of its own.
	inspected := filepath.Join(dir, "inspected.db")
	for _, suffix := range []string{"", "-journal"} {
		data, err := os.ReadFile(crashed + suffix)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(inspected+suffix, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if in := Inspect(ctx, inspected, Options{}, false); in.OpenErr != nil || in.Err != nil || len(in.Problems) > 0 {
		t.Fatalf("inspect after the kill: open %v, check %v, %v", in.OpenErr, in.Err, in.Problems)
	}

	got, err := Open(ctx, crashed, Options{})
	if err != nil {
		t.Fatalf("open after the kill: %v", err)
	}
	defer got.Close()
	problems, err := got.IntegrityCheck(ctx)
	if err != nil || problems != nil {
		t.Fatalf("integrity after the kill: %v, %v", problems, err)
	}
	var n int
	if err := got.QueryRow(`SELECT count(*) FROM filler`).Scan(&n); err != nil || n != 0 {
		t.Fatalf("filler holds %d rows (%v); the write the kill cut must be rolled back", n, err)
	}
	if _, err := os.Stat(crashed + "-journal"); err == nil {
		if data, _ := os.ReadFile(crashed + "-journal"); len(data) > 0 && !strings.HasPrefix(string(data), "\x00") {
			t.Error("the hot journal is still there after the open")
		}
	}
}

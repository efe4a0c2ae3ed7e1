package store

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jarvis-mcp/jarvis/internal/health"
)

// vaultNamed makes a database at path holding one vault of that name.
func vaultNamed(t *testing.T, path, name string) {
	t.Helper()
	db, err := Open(context.Background(), path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.ExecContext(context.Background(), `INSERT INTO vaults (name, path) VALUES (?, '/v')`, name); err != nil {
		t.Fatal(err)
	}
}

func vaultName(t *testing.T, db *DB) string {
	t.Helper()
	var name string
	if err := db.QueryRowContext(context.Background(), `SELECT name FROM vaults`).Scan(&name); err != nil {
		t.Fatal(err)
	}
	return name
}

// TestServerReadsTheFileARebuildPutInPlace opens a database as a server
// does, then puts another file in its place as a rebuild in another
// process does (its -wal and -shm removed, the fresh file renamed over
// it): within seconds the same *DB reads the new file.
func TestServerReadsTheFileARebuildPutInPlace(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "j.db")
	vaultNamed(t, path, "old")
	server, err := Open(context.Background(), path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer server.Close()
	if got := vaultName(t, server); got != "old" {
		t.Fatalf("vault %q", got)
	}
	fresh := filepath.Join(dir, "fresh.db")
	vaultNamed(t, fresh, "new")
	os.Remove(fresh + "-wal")
	os.Remove(fresh + "-shm")
	os.Remove(path + "-wal")
	os.Remove(path + "-shm")
	if err := os.Rename(fresh, path); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(5 * time.Second)
	for vaultName(t, server) != "new" {
		if time.Now().After(deadline) {
			t.Fatal("the server still reads the replaced file")
		}
		time.Sleep(50 * time.Millisecond)
	}
	// The old file's connections, closed, took nothing of the new one's.
	time.Sleep(100 * time.Millisecond)
	if in := Inspect(context.Background(), path, Options{}, false); in.Damaged() || in.OpenErr != nil {
		t.Fatalf("the new file after the switch: %+v", in)
	}
}

// TestDeletedDatabaseIsToldAndMadeAgain deletes the database file under a
// server: health-status says so (a warning, with the reason), the server
// tells its services, and the next writer makes a new, sound file there,
// which the server then reads.
func TestDeletedDatabaseIsToldAndMadeAgain(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "j.db")
	vaultNamed(t, path, "old")
	h := NewHandle(path, Options{})
	defer h.Close()
	changes := make(chan bool, 4)
	h.OnFileChange(func(reopened bool) { changes <- reopened })
	db, err := h.DB(ctx)
	if err != nil {
		t.Fatal(err)
	}
	vaultName(t, db)
	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
	r := databaseCheck(t, h, true)
	if r.Status != health.Warn || !strings.Contains(r.Detail, "was deleted") {
		t.Fatalf("health-status after the file was deleted: %+v", r)
	}
	if reopened := <-changes; reopened {
		t.Fatal("told of a reopened file; want a deleted one")
	}
	if got := vaultName(t, db); got != "old" {
		t.Fatalf("before a new file is made, reads %q", got)
	}
	unlock, err := db.LockWriters(ctx)
	if err != nil {
		t.Fatal(err)
	}
	unlock()
	if reopened := <-changes; !reopened {
		t.Fatal("not told of the new file")
	}
	var n int
	if err := db.QueryRowContext(ctx, `SELECT count(*) FROM vaults`).Scan(&n); err != nil || n != 0 {
		t.Fatalf("the new file holds %d vaults, %v", n, err)
	}
	if r := databaseCheck(t, h, true); r.Status != health.OK {
		t.Fatalf("health-status after the new file was made: %+v", r)
	}
}

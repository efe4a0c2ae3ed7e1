package sharedtest

import (
	"context"
	"database/sql"
	"testing"
)

// HoldWriteLock holds the SQLite database at path in a write transaction,
// as another program does (python3's sqlite3 after BEGIN EXCLUSIVE), until
// the test ends or the caller rolls back on the connection returned.
func HoldWriteLock(tb testing.TB, path string) *sql.Conn {
	tb.Helper()
	ctx := context.Background()
	db, err := sql.Open("sqlite", "file:"+path)
	if err != nil {
		tb.Fatal(err)
	}
	conn, err := db.Conn(ctx)
	if err != nil {
		db.Close()
		tb.Fatal(err)
	}
	tb.Cleanup(func() {
		conn.ExecContext(ctx, "ROLLBACK") // an error: rolled back already
		conn.Close()
		db.Close()
	})
	if _, err := conn.ExecContext(ctx, "BEGIN EXCLUSIVE"); err != nil {
		tb.Fatal(err)
	}
	return conn
}

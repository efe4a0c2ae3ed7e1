package store

import (
	"context"
	"database/sql"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jarvis-mcp/jarvis/internal/health"
)

// TestKnownDamageOverridesACheckThatProvesNothing: when the file changed
// while its quick check ran, the database line proves nothing by itself;
// once another check met damage, it says the database is damaged and
// gives the rebuild, and its wording has no dangling "then".
func TestKnownDamageOverridesACheckThatProvesNothing(t *testing.T) {
	path := "/data/dmg.db"
	inv := health.Invocation{"--vault", "help", "--db", path}
	rebuild, _ := Explain(path, ErrNotDatabase, inv, nil)
	changed := integrityResult(Inspection{Changed: true, Check: "quick check"}, path, rebuild.Fix, inv)
	if strings.HasSuffix(changed.Fix, " then") {
		t.Errorf("fix ends in a dangling then: %q", changed.Fix)
	}
	database := health.Check{Name: "database", Run: func(context.Context) []health.Result { return []health.Result{changed} }}
	for _, tc := range []struct {
		name    string
		err     error
		damaged bool
	}{
		{"damage met", fmt.Errorf("count vectors: %w", ErrNotDatabase), true},
		{"other trouble", fmt.Errorf("count vectors: %w", ErrBusy), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			embedder := health.Check{Name: "embedder", Run: func(context.Context) []health.Result {
				return []health.Result{Unreadable("embedder", "lexical: cannot count vectors", tc.err)}
			}}
			rep := health.Run(context.Background(), []health.Check{database, embedder}, time.Minute)
			db := rep.Checks[0]
			said := db.Status == health.Fail && strings.Contains(db.Detail, path+" is damaged") && strings.Contains(db.Fix, "--rebuild")
			if said != tc.damaged {
				t.Errorf("database line %s: %s; fix %s", db.Status, db.Detail, db.Fix)
			}
		})
	}
}

// TestDatabaseCheckSaysALockHeldNow: with another program holding the
// database in a write transaction, doctor was all ok ("you may read and
// write the database") while index runs and search could not write. The
// database access line says the lock while it is held, and only then.
func TestDatabaseCheckSaysALockHeldNow(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "j.db")
	db, err := Open(ctx, path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	db.Close()
	h := NewHandle(path, Options{})
	defer h.Close()
	access := func() health.Result {
		t.Helper()
		for _, r := range Checks(h, health.Invocation{"--db", path}, CheckOptions{Quick: true})[0].Run(ctx) {
			if r.Name == "database access" {
				return r
			}
		}
		t.Fatal("no database access line")
		return health.Result{}
	}
	if r := access(); r.Status != health.OK {
		t.Fatalf("nothing holds it: %+v", r)
	}

	// What another program does: python3's sqlite3, BEGIN EXCLUSIVE.
	other, err := sql.Open("sqlite", "file:"+path)
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	conn, err := other.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, "BEGIN EXCLUSIVE"); err != nil {
		t.Fatal(err)
	}
	r := access()
	if r.Status != health.Warn || !strings.Contains(r.Detail, "locked by another program right now") || !strings.Contains(r.Fix, "wait for it to finish") {
		t.Errorf("locked: %+v", r)
	}
	if _, err := conn.ExecContext(ctx, "ROLLBACK"); err != nil {
		t.Fatal(err)
	}
	if r := access(); r.Status != health.OK {
		t.Errorf("given back: %+v", r)
	}
}

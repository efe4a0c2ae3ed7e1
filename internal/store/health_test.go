package store

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jarvis-mcp/jarvis/internal/health"
	"github.com/jarvis-mcp/jarvis/internal/sharedtest"
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

	// What another program does (python3's sqlite3, BEGIN EXCLUSIVE), in
	// another process: SQLite's locks are the process's.
	hold := exec.Command(os.Args[0], "-test.run=^TestHoldWriteLock$")
	hold.Env = append(os.Environ(), "JARVIS_TEST_HOLD_DB="+path)
	stdin, _ := hold.StdinPipe()
	stdout, _ := hold.StdoutPipe()
	if err := hold.Start(); err != nil {
		t.Fatal(err)
	}
	if line, err := bufio.NewReader(stdout).ReadString('\n'); line != "locked\n" {
		t.Fatalf("the other process: %q, %v", line, err)
	}
	r := access()
	if r.Status != health.Warn || !strings.Contains(r.Detail, "locked by another program right now") || !strings.Contains(r.Fix, "wait for it to finish") {
		t.Errorf("locked: %+v", r)
	}
	stdin.Close()
	if err := hold.Wait(); err != nil {
		t.Fatal(err)
	}
	if r := access(); r.Status != health.OK {
		t.Errorf("given back: %+v", r)
	}
}

// TestHoldWriteLock is the other process of TestDatabaseCheckSaysALockHeldNow:
// it holds the database it is given in a write transaction until its
// standard input closes.
func TestHoldWriteLock(t *testing.T) {
	path := os.Getenv("JARVIS_TEST_HOLD_DB")
	if path == "" {
		return // run as a test of its own: nothing to hold
	}
	sharedtest.HoldWriteLock(t, path)
	fmt.Println("locked")
	io.Copy(io.Discard, os.Stdin) // the lock is let go as the test ends
}

// TestPassedCheckDefersToDamage: on a damaged database doctor said "ok
// embedder: … all 4 passages have vectors" while list-vaults said the
// stored vectors could not be read. Once the database check finds damage,
// a check that passed without reading what it vouches for defers to it.
func TestPassedCheckDefersToDamage(t *testing.T) {
	path := "/data/dmg.db"
	inv := health.Invocation{"--db", path}
	rebuild, _ := Explain(path, ErrNotDatabase, inv, nil)
	for _, in := range []Inspection{
		{Check: "integrity check", Problems: []string{"Tree 5 page 5: btreeInitPage() returns error code 11"}},
		{Check: "integrity check", Err: fmt.Errorf("check: %w", codeError(11))},
	} {
		database := health.Check{Name: "database", Run: func(context.Context) []health.Result {
			return []health.Result{integrityResult(in, path, rebuild.Fix, inv)}
		}}
		embedder := health.Check{Name: "embedder", Run: func(context.Context) []health.Result {
			return []health.Result{{Name: "embedder", Status: health.OK, Detail: "lexical: all 4 passages have vectors",
				IfDamaged: IfDamaged("embedder", "lexical: cannot read stored vectors")}}
		}}
		rep := health.Run(context.Background(), []health.Check{database, embedder}, time.Minute)
		if r := rep.Checks[1]; r.Status != health.Warn || r.Detail != "lexical: cannot read stored vectors: the database is damaged" || r.Fix != "see the database check above" {
			t.Errorf("embedder beside %+v: %+v", rep.Checks[0], r)
		}
	}
}

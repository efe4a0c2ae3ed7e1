package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jarvis-mcp/jarvis/internal/health"
	"github.com/jarvis-mcp/jarvis/internal/sharedtest"
)

// filledDB makes a database of a few hundred pages at path, its WAL folded
// into the main file, so that damage to the file is damage to the index.
func filledDB(t *testing.T, path string) {
	t.Helper()
	filled.once.Do(func() {
		dir, err := os.MkdirTemp("", "jarvis-filled-")
		if err != nil {
			filled.err = err
			return
		}
		defer os.RemoveAll(dir)
		src := filepath.Join(dir, "j.db")
		if filled.err = fillDB(src); filled.err == nil {
			filled.data, filled.err = os.ReadFile(src)
		}
	})
	if filled.err != nil {
		t.Fatal(filled.err)
	}
	if err := os.WriteFile(path, filled.data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// filled is the file fillDB makes, made once and copied for each test:
// 3,000 notes take seconds to insert under the race detector.
var filled struct {
	once sync.Once
	data []byte
	err  error
}

// fillDB makes a database at path holding one vault of 3,000 notes, all
// of it in the main file.
func fillDB(path string) error {
	ctx := context.Background()
	db, err := Open(ctx, path, Options{})
	if err != nil {
		return err
	}
	defer db.Close()
	if _, err := db.ExecContext(ctx, `INSERT INTO vaults (name, path) VALUES ('v', '/v')`); err != nil {
		return err
	}
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	for i := range 3000 {
		if _, err := tx.ExecContext(ctx, `INSERT INTO files (vault_id, path, kind, size, mtime_ns, hash, title)
			VALUES (1, ?, 'note', 1, 1, ?, ?)`, fmt.Sprintf("notes/%04d %s.md", i, strings.Repeat("x", 80)), fmt.Sprint(i), fmt.Sprint("title ", i)); err != nil {
			tx.Rollback()
			return err
		}
	}
	if err := tx.Commit(); err != nil {
		return err
	}
	_, err = db.ExecContext(ctx, `PRAGMA wal_checkpoint(TRUNCATE)`)
	return err
}

// warm reads every row of files through h, so that its connection holds
// their pages in its cache.
func warm(t *testing.T, h *Handle) {
	t.Helper()
	var n int
	var total int
	if err := h.QueryRowContext(context.Background(), `SELECT count(*), sum(length(path) + length(title)) FROM files`).Scan(&n, &total); err != nil || n != 3000 {
		t.Fatalf("files: %d, %v", n, err)
	}
}

// databaseCheck runs the database check of h and returns its first
// result, the one that says whether the file is usable.
func databaseCheck(t *testing.T, h *Handle, quick bool) health.Result {
	t.Helper()
	checks := Checks(h, nil, CheckOptions{Quick: quick})
	return checks[0].Run(context.Background())[0]
}

// TestHealthStatusSeesDamageOnDisk damages the database under a server
// whose connection has read every page already: the quick check of
// health-status reports the damage with the --rebuild fix, as doctor's
// does, rather than passing on the pages the connection keeps in memory.
func TestHealthStatusSeesDamageOnDisk(t *testing.T) {
	for _, tc := range []struct {
		name   string
		damage func(t *testing.T, path string)
	}{
		{"page 1 zeroed", func(t *testing.T, path string) { sharedtest.ZeroPage(t, path, 1) }},
		{"a page in the middle overwritten", func(t *testing.T, path string) {
			sharedtest.DamagePage(t, path, sharedtest.Pages(t, path)/2, 1)
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "j.db")
			filledDB(t, path)
			h := NewHandle(path, Options{})
			defer h.Close()
			warm(t, h)
			if r := databaseCheck(t, h, true); r.Status != health.OK {
				t.Fatalf("before the damage: %+v", r)
			}
			tc.damage(t, path)
			r := databaseCheck(t, h, true)
			if r.Status != health.Fail || !strings.Contains(r.Fix, "--rebuild") {
				t.Fatalf("health-status after the damage: %+v", r)
			}
		})
	}
}

// TestDamageHasOneAnswer puts files in every state a database may be in
// before doctor (a fresh read-only look), health-status (the quick check
// of a server that opened the file before) and `jarvis index --rebuild`:
// all three call a file damaged exactly when Inspect does, doctor and
// health-status then offer --rebuild, and the rebuild keeps that file, and
// only that file, aside. A file jarvis did not make (foreign) is not
// damage: nobody offers --rebuild for it, and the rebuild refuses it.
func TestDamageHasOneAnswer(t *testing.T) {
	for _, tc := range []struct {
		name    string
		make    func(t *testing.T, path string)
		broken  bool
		foreign bool
	}{
		{"sound", filledDB, false, false},
		{"page 1 zeroed", func(t *testing.T, path string) { filledDB(t, path); sharedtest.ZeroPage(t, path, 1) }, true, false},
		{"page 2 overwritten", func(t *testing.T, path string) { filledDB(t, path); sharedtest.DamagePage(t, path, 2, 2) }, true, false},
		{"a middle page overwritten", func(t *testing.T, path string) {
			filledDB(t, path)
			sharedtest.DamagePage(t, path, sharedtest.Pages(t, path)/2, 3)
		}, true, false},
		{"the last page overwritten", func(t *testing.T, path string) {
			filledDB(t, path)
			sharedtest.DamagePage(t, path, sharedtest.Pages(t, path), 4)
		}, true, false},
		{"not a database", func(t *testing.T, path string) { os.WriteFile(path, []byte("some notes\n"), 0o644) }, false, true},
		{"a folder", func(t *testing.T, path string) { os.Mkdir(path, 0o755) }, false, true},
		{"another program's database", func(t *testing.T, path string) {
			raw, err := sql.Open("sqlite", path)
			if err != nil {
				t.Fatal(err)
			}
			defer raw.Close()
			if _, err := raw.Exec(`CREATE TABLE accounts (id INTEGER)`); err != nil {
				t.Fatal(err)
			}
		}, false, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			path := filepath.Join(t.TempDir(), "j.db")
			server := NewHandle(path, Options{})
			defer server.Close()
			if !tc.foreign {
				filledDB(t, path)
				warm(t, server)
				os.Remove(path)
			}
			tc.make(t, path)
			if got := Inspect(ctx, path, Options{}, false).Damaged(); got != tc.broken {
				t.Fatalf("Inspect: damaged = %v; want %v", got, tc.broken)
			}
			doctor := NewHandle(path, Options{ReadOnly: true})
			for who, r := range map[string]health.Result{
				"doctor":        databaseCheck(t, doctor, false),
				"health-status": databaseCheck(t, server, true),
			} {
				offers := r.Status == health.Fail && strings.Contains(r.Fix, "--rebuild")
				if offers != tc.broken {
					t.Errorf("%s offers --rebuild: %v; want %v (%+v)", who, offers, tc.broken, r)
				}
				if tc.foreign && (r.Status != health.Fail || !strings.Contains(r.Detail, "is not a jarvis index") || !strings.Contains(r.Fix, "--db")) {
					t.Errorf("%s on a file jarvis did not make: %+v", who, r)
				}
			}
			doctor.Close()
			server.Close()

			before := listDir(t, filepath.Dir(path))
			rb, err := BeginRebuild(ctx, path, Options{}, nil)
			if tc.foreign {
				if !errors.Is(err, ErrNotJarvis) {
					t.Fatalf("--rebuild of a file jarvis did not make: %v; want it refused", err)
				}
				if after := listDir(t, filepath.Dir(path)); !slices.Equal(before, after) {
					t.Fatalf("the refused --rebuild left %v; there was %v", after, before)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			defer rb.Close()
			fresh, err := Open(ctx, rb.Fresh, Options{})
			if err != nil {
				t.Fatal(err)
			}
			fresh.Close()
			backup, err := rb.Commit(time.Now())
			if err != nil {
				t.Fatal(err)
			}
			if kept := backup != ""; kept != tc.broken {
				t.Fatalf("--rebuild kept the old file aside: %v (%q); want %v", kept, backup, tc.broken)
			}
			if Inspect(ctx, path, Options{}, false).Damaged() {
				t.Fatal("after the rebuild the database is damaged")
			}
		})
	}
}

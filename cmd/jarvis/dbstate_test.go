package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/jarvis-mcp/jarvis/internal/health"
	"github.com/jarvis-mcp/jarvis/internal/sharedtest"
	"github.com/jarvis-mcp/jarvis/internal/store"
)

// probeAs answers as the system would for a user who is not root and owns
// every file but those in others: access follows the permission bits, and
// the files of others belong to another user, who lets this one read them
// (and look into them, for a folder) but not write. Root, whom the system
// lets do anything, needs it to see what a user would.
func probeAs(others ...string) store.Probe {
	return func(path string) (store.FileAccess, error) {
		st, err := os.Stat(path)
		if errors.Is(err, fs.ErrNotExist) {
			return store.FileAccess{Owner: -1}, nil
		}
		if err != nil {
			return store.FileAccess{Owner: -1}, err
		}
		me := os.Geteuid()
		fa := store.FileAccess{Exists: true, IsDir: st.IsDir(), Owner: me}
		perm := st.Mode().Perm()
		fa.Read = perm&0o400 != 0
		fa.Write = perm&0o200 != 0 && (!fa.IsDir || perm&0o100 != 0)
		if slices.Contains(others, path) {
			fa.Owner, fa.Write = me+4242, false
		}
		return fa, nil
	}
}

// sqliteCode is an SQLite result code as it would show in a message.
var sqliteCode = regexp.MustCompile(`\(\d+\)`)

// indexedVault is a vault of a few dozen notes and its index, checkpointed
// so that the database file holds everything.
func indexedVault(t *testing.T) (vault, db string) {
	t.Helper()
	dir := t.TempDir()
	vault = filepath.Join(dir, "vault")
	for i := range 40 {
		sharedtest.WriteFile(t, vault, fmt.Sprintf("Note %02d.md", i),
			fmt.Sprintf("# Note %d\n\nThe zephyr blows over note %d. [[Note %02d]]\n\n%s\n", i, i, (i+1)%40, strings.Repeat("Filler words for a page or two. ", 60)))
	}
	// In a folder of its own, as the default database is: the one folder
	// whose owner a fix may change.
	db = filepath.Join(dir, "data", "index.db")
	if code, _, stderr := jarvis(t, nil, "index", "--vault", vault, "--db", db, "--no-embed"); code != 0 {
		t.Fatalf("index: %s", stderr)
	}
	checkpoint(t, db)
	return vault, db
}

// TestDatabaseStates puts the database in each state a user met (another
// user's file, a read-only file, a folder of another user, damage) and
// checks what index, search and doctor say of it: the same explanation and
// fix, in plain words, with commands that repeat the user's flags; index
// fails, search answers.
func TestDatabaseStates(t *testing.T) {
	tests := []struct {
		name string
		// prepare puts the database in the state and gives the probe
		// that sees it as its user would.
		prepare func(t *testing.T, db string) store.Probe
		// want is in what index and search say; notWant in neither.
		want, notWant []string
		// fromFiles: search scans the note files, not the index.
		fromFiles bool
		// writable: the run may make files beside the database.
		writable bool
	}{
		{
			name: "file of another user",
			prepare: func(t *testing.T, db string) store.Probe {
				return probeAs(db)
			},
			want:    []string{"is read-only for you", "not to you", "`sudo chown $USER "},
			notWant: []string{"--rebuild", "not a usable", "damaged"},
		},
		{
			name: "read-only file",
			prepare: func(t *testing.T, db string) store.Probe {
				os.Chmod(db, 0o444)
				return probeAs()
			},
			want:    []string{"is read-only for you", "`chmod u+rw "},
			notWant: []string{"--rebuild", "not a usable", "damaged", "sudo"},
		},
		{
			name: "folder of another user",
			prepare: func(t *testing.T, db string) store.Probe {
				return probeAs(filepath.Dir(db))
			},
			want:    []string{"is a folder you cannot create files in", "`sudo chown $USER "},
			notWant: []string{"--rebuild", "not a usable", "damaged"},
		},
		{
			name: "damaged in the middle",
			prepare: func(t *testing.T, db string) store.Probe {
				n := sharedtest.Pages(t, db)
				for p := n / 3; p < 2*n/3; p++ {
					sharedtest.DamagePage(t, db, p, 1)
				}
				return probeAs()
			},
			want:      []string{"damaged", "--rebuild`"},
			notWant:   []string{"chmod", "chown"},
			fromFiles: true,
			writable:  true,
		},
		{
			name: "damaged throughout",
			prepare: func(t *testing.T, db string) store.Probe {
				for p := 2; p <= sharedtest.Pages(t, db); p++ {
					sharedtest.DamagePage(t, db, p, 2)
				}
				return probeAs()
			},
			want:      []string{"damaged", "--rebuild`"},
			notWant:   []string{"chmod", "chown"},
			fromFiles: true,
			writable:  true,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			vault, db := indexedVault(t)
			dir := filepath.Dir(db)
			probe := tt.prepare(t, db)
			t.Cleanup(func() { os.Chmod(db, 0o644) })
			flags := []string{"--vault", vault, "--db", db}
			inv := health.Invocation(flags)
			as := func(e *env) { e.dbProbe = probe }
			before := names(t, dir)
			check := func(t *testing.T, what, text string) {
				t.Helper()
				for _, w := range tt.want {
					if !strings.Contains(text, w) {
						t.Errorf("%s lacks %q:\n%s", what, w, text)
					}
				}
				for _, w := range append(tt.notWant, "attempt to write", "malformed (", "*store.", "*sqlite.") {
					if strings.Contains(text, w) {
						t.Errorf("%s says %q:\n%s", what, w, text)
					}
				}
				if m := sqliteCode.FindString(text); m != "" {
					t.Errorf("%s shows the SQLite code %s:\n%s", what, m, text)
				}
				sharedtest.CheckWords(t, what, text)
				if strings.Contains(text, "jarvis index") && !strings.Contains(text, inv.Command("index", "--rebuild")) {
					t.Errorf("%s names jarvis index without the flags given (%s):\n%s", what, inv.Command("index", "--rebuild"), text)
				}
			}

			code, _, indexed := jarvisIn(t, nil, as, append([]string{"index", "--no-embed"}, flags...)...)
			if code != 1 {
				t.Errorf("index: exit %d, want 1: %s", code, indexed)
			}
			check(t, "index", indexed)

			code, stdout, stderr := jarvisIn(t, nil, as, append([]string{"search", "--json", "zephyr blows"}, flags...)...)
			if code != 0 {
				t.Fatalf("search: exit %d, want 0: %s", code, stderr)
			}
			var out searchOutput
			if err := json.Unmarshal([]byte(stdout), &out); err != nil {
				t.Fatalf("search: %v: %s", err, stdout)
			}
			if len(out.Notes) == 0 {
				t.Fatalf("search says nothing of the database: %+v", out)
			}
			check(t, "search's note", out.Notes[0])
			if len(out.Results) == 0 {
				t.Errorf("search found nothing: %+v", out)
			}
			if files := strings.Contains(out.Degraded, "note files"); files != tt.fromFiles {
				t.Errorf("search scanned the note files: %v, want %v (%q)", files, tt.fromFiles, out.Degraded)
			}

			// The same state, the same words: doctor's fix is the one
			// index gave.
			_, stdout, _ = jarvisIn(t, nil, as, append([]string{"doctor"}, flags...)...)
			if fix := regexp.MustCompile("`[^`]*`").FindString(indexed); fix == "" || !strings.Contains(stdout, fix) {
				t.Errorf("doctor does not give index's fix %s:\n%s", fix, stdout)
			}
			if after := names(t, dir); !tt.writable && !slices.Equal(before, after) {
				t.Errorf("the folder held %v; now %v", before, after)
			}
		})
	}
}

// TestReadOnlyFixCoversTheWAL gives a read-only database the -wal and
// -shm files a failed write leaves (made with the database's mode): the
// one fix index prints covers all three, and index works after it.
func TestReadOnlyFixCoversTheWAL(t *testing.T) {
	vault, db := indexedVault(t)
	for _, f := range []string{db + "-wal", db + "-shm"} {
		if err := os.WriteFile(f, nil, 0o444); err != nil {
			t.Fatal(err)
		}
	}
	os.Chmod(db, 0o444)
	as := func(e *env) { e.dbProbe = probeAs() }
	flags := []string{"index", "--no-embed", "--vault", vault, "--db", db}
	code, _, stderr := jarvisIn(t, nil, as, flags...)
	fix := regexp.MustCompile("`([^`]*)`").FindStringSubmatch(stderr)
	if code != 1 || fix == nil {
		t.Fatalf("exit %d, want 1 with a fix: %s", code, stderr)
	}
	for _, f := range []string{db, db + "-wal", db + "-shm"} {
		if !strings.Contains(fix[1], health.Quote(f)) {
			t.Errorf("fix %q does not cover %s", fix[1], f)
		}
	}
	if out, err := exec.Command("sh", "-c", fix[1]).CombinedOutput(); err != nil {
		t.Fatalf("%s: %v: %s", fix[1], err, out)
	}
	if code, _, stderr := jarvisIn(t, nil, as, flags...); code != 0 {
		t.Fatalf("after the fix: exit %d: %s", code, stderr)
	}
}

// TestDatabasePathJarvisCannotUse gives --db paths jarvis did not make, or
// cannot make: a folder, a text file, another program's SQLite database,
// a file under a missing folder below one this user may not write. index
// and index --rebuild refuse each with the same words, suggest no
// --rebuild and change no folder jarvis did not make, and leave
// everything as it was; search says once that it cannot read the index.
func TestDatabasePathJarvisCannotUse(t *testing.T) {
	tests := []struct {
		name string
		// prepare makes the path in dir and gives it, with the probe
		// that sees it as its user would.
		prepare func(t *testing.T, dir string) (db string, probe store.Probe)
		want    []string
	}{
		// A folder is refused with the settings, before the database is
		// opened, naming --db, JARVIS_DB or the config file's key:
		// TestBadSettingsAreUsageErrors.
		{"a text file", func(t *testing.T, dir string) (string, store.Probe) {
			db := filepath.Join(dir, "notes.txt")
			os.WriteFile(db, []byte("my notes\n"), 0o644)
			return db, probeAs()
		}, []string{"is not a jarvis index: it is not an SQLite file at all", "choose another --db", "`jarvis help config`"}},
		{"another program's database", func(t *testing.T, dir string) (string, store.Probe) {
			db := filepath.Join(dir, "places.sqlite")
			raw := openRaw(t, db)
			if _, err := raw.Exec(`CREATE TABLE moz_places (id INTEGER PRIMARY KEY, url TEXT)`); err != nil {
				t.Fatal(err)
			}
			raw.Close()
			return db, probeAs()
		}, []string{"is not a jarvis index: it is another program's SQLite database (it holds 1 table that jarvis did not create)", "choose another --db"}},
		{"under a missing folder in another user's folder", func(t *testing.T, dir string) (string, store.Probe) {
			return filepath.Join(dir, "rootonly", "j.db"), probeAs(dir)
		}, []string{"the folder " + filepath.Join("DIR", "rootonly") + " does not exist, and DIR is a folder you cannot create files in", "choose another --db", "`jarvis help config`"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			vault := filepath.Join(t.TempDir(), "vault")
			sharedtest.WriteFile(t, vault, "Grinder.md", "# Grinder\n\nThe zephyr blows.\n")
			dir := t.TempDir()
			db, probe := tt.prepare(t, dir)
			as := func(e *env) { e.dbProbe = probe }
			flags := []string{"--vault", vault, "--db", db}
			before := names(t, dir)
			var said string
			for _, args := range [][]string{{"index"}, {"index", "--rebuild"}} {
				code, _, stderr := jarvisIn(t, nil, as, append(append(args, "--no-embed"), flags...)...)
				if code != 1 {
					t.Errorf("%v: exit %d, want 1: %s", args, code, stderr)
				}
				for _, w := range tt.want {
					if w = strings.ReplaceAll(w, "DIR", dir); !strings.Contains(stderr, w) {
						t.Errorf("%v lacks %q:\n%s", args, w, stderr)
					}
				}
				for _, w := range []string{"--rebuild`", "damaged", "chown", "chmod", "user id 0"} {
					if strings.Contains(stderr, w) {
						t.Errorf("%v says %q:\n%s", args, w, stderr)
					}
				}
				sharedtest.CheckWords(t, strings.Join(args, " "), stderr)
				// --rebuild refuses in the words index uses.
				if said == "" {
					said = strings.TrimPrefix(stderr, "jarvis: ")
				} else if !strings.Contains(stderr, strings.TrimSpace(said)) {
					t.Errorf("index said %q; index --rebuild says %q", said, stderr)
				}
				if after := names(t, dir); !slices.Equal(before, after) {
					t.Fatalf("%v: the folder held %v; now %v", args, before, after)
				}
			}

			code, stdout, stderr := jarvisIn(t, nil, as, append([]string{"search", "--json", "zephyr"}, flags...)...)
			if code != 0 {
				t.Fatalf("search: exit %d: %s", code, stderr)
			}
			var out searchOutput
			if err := json.Unmarshal([]byte(stdout), &out); err != nil {
				t.Fatalf("search: %v: %s", err, stdout)
			}
			all := strings.Join(append([]string{out.Degraded}, out.Notes...), "\n")
			want := "cannot be read"
			if noDatabase(db) {
				// Never made: there is nothing to read.
				want = "the index does not exist yet, and it cannot be made there"
				if strings.Contains(all, "cannot be read") {
					t.Errorf("search says the index cannot be read, though it was never made:\n%s", all)
				}
			}
			if n := strings.Count(all, want); n != 1 {
				t.Errorf("search says %d times %q:\n%s", n, want, all)
			}
			if !strings.Contains(all, tt.want[0][:20]) && !strings.Contains(all, "does not exist") {
				t.Errorf("search does not say why:\n%s", all)
			}
		})
	}
}

// TestReadingAReadOnlyDatabase: search and related with --no-refresh read
// a database this user may only read, and say nothing of an update not
// asked for; related --no-refresh without a database answers as search
// does, and makes none.
func TestReadingAReadOnlyDatabase(t *testing.T) {
	vault, db := indexedVault(t)
	os.Chmod(db, 0o444)
	t.Cleanup(func() { os.Chmod(db, 0o644) })
	as := func(e *env) { e.dbProbe = probeAs() }
	flags := []string{"--vault", vault, "--db", db, "--no-refresh"}

	code, stdout, stderr := jarvisIn(t, nil, as, append([]string{"search", "--json", "zephyr blows"}, flags...)...)
	if code != 0 {
		t.Fatalf("search: exit %d: %s", code, stderr)
	}
	var out searchOutput
	if err := json.Unmarshal([]byte(stdout), &out); err != nil {
		t.Fatal(err)
	}
	if len(out.Results) == 0 {
		t.Errorf("search found nothing: %+v", out)
	}
	for _, n := range out.Notes {
		if strings.Contains(n, "brought up to date") || strings.Contains(n, "searched as it is") {
			t.Errorf("search --no-refresh speaks of an update not asked for: %s", n)
		}
	}

	code, stdout, stderr = jarvisIn(t, nil, as, append([]string{"related", "Note 03"}, flags...)...)
	if code != 0 || !strings.Contains(stdout, "Related to Note 03") {
		t.Fatalf("related --no-refresh on a read-only database: exit %d: %s%s", code, stdout, stderr)
	}
	if strings.Contains(stdout, "brought up to date") {
		t.Errorf("related --no-refresh speaks of an update not asked for:\n%s", stdout)
	}

	// No database at all: related answers as search does, and makes none.
	dir := t.TempDir()
	none := filepath.Join(dir, "j.db")
	flags = []string{"--vault", vault, "--db", none, "--no-refresh"}
	_, stdout, _ = jarvisIn(t, nil, as, append([]string{"search", "--json", "zephyr blows"}, flags...)...)
	if err := json.Unmarshal([]byte(stdout), &out); err != nil || out.Empty == "" {
		t.Fatalf("search: %v: %s", err, stdout)
	}
	code, _, stderr = jarvisIn(t, nil, as, append([]string{"related", "Note 03"}, flags...)...)
	if code != 1 || !strings.Contains(stderr, out.Empty) {
		t.Errorf("related: exit %d, want 1 with %q: %s", code, out.Empty, stderr)
	}
	if got := names(t, dir); len(got) != 0 {
		t.Errorf("related --no-refresh made %v", got)
	}
}

// stopAt is stderr that cancels a run once it prints the line that says
// it waits for another writer.
type stopAt struct {
	bytes.Buffer
	cancel func()
}

func (w *stopAt) Write(p []byte) (int, error) {
	n, err := w.Buffer.Write(p)
	if strings.Contains(w.String(), "waiting for it to finish") {
		w.cancel()
	}
	return n, err
}

// TestSearchWaitingSaysHowNotTo holds the writer lock, as a stuck indexer
// does: the line that says search waits also says how not to wait.
func TestSearchWaitingSaysHowNotTo(t *testing.T) {
	vault, db := indexedVault(t)
	held, err := store.Open(context.Background(), db, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer held.Close()
	unlock, err := held.LockWriters(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer unlock()

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	stderr := &stopAt{cancel: cancel}
	e := &env{stdout: io.Discard, stderr: stderr, getenv: func(string) string { return "" }}
	run(ctx, e, []string{"search", "zephyr", "--vault", vault, "--db", db})
	line, _, _ := strings.Cut(stderr.String()[strings.Index(stderr.String(), "another jarvis"):], "\n")
	for _, w := range []string{"waiting for it to finish", "--no-refresh", "as it is now", "Ctrl-C"} {
		if !strings.Contains(line, w) {
			t.Errorf("%q lacks %q", line, w)
		}
	}
}

package main

import (
	"bufio"
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jarvis-mcp/jarvis/internal/sharedtest"
	"github.com/jarvis-mcp/jarvis/internal/store"
)

// TestRebuildRecoversFromAnyDamagedPage damages one page of an indexed
// database at a time, at twenty places from just after the header to the
// end of the file, and runs `jarvis index --rebuild` on each copy: it
// exits 0, the database it leaves passes its integrity check and holds
// every note of the vault, and a file that was damaged is kept aside, byte
// for byte, under the name the command prints.
func TestRebuildRecoversFromAnyDamagedPage(t *testing.T) {
	vault := sharedtest.Path(t, "vaults/obsidian-help/en")
	dir := t.TempDir()
	sound := filepath.Join(dir, "sound.db")
	code, stdout, stderr := jarvis(t, nil, "index", "--vault", vault, "--db", sound, "--no-embed", "--json")
	if code != 0 {
		t.Fatalf("index: exit %d: %s", code, stderr)
	}
	var first indexOutput
	if err := json.Unmarshal([]byte(stdout), &first); err != nil || len(first.Vaults) != 1 {
		t.Fatalf("index --json: %v: %s", err, stdout)
	}
	notes := first.Vaults[0].Notes
	checkpoint(t, sound)
	pages := sharedtest.Pages(t, sound)
	if pages < 40 {
		t.Fatalf("the index is %d pages: too small to damage at twenty places", pages)
	}

	places := 20
	if raceEnabled {
		places = 5
	}
	for i := range places {
		page := 2 + i*(pages-2)/(places-1)
		if page > pages {
			page = pages
		}
		t.Run(fmt.Sprintf("page %d of %d", page, pages), func(t *testing.T) {
			db := filepath.Join(t.TempDir(), "j.db")
			copyFile(t, sound, db)
			sharedtest.DamagePage(t, db, page, uint64(i))
			damaged, _ := os.ReadFile(db)
			wasDamaged := len(integrity(t, db)) > 0

			code, _, stderr := jarvis(t, nil, "index", "--vault", vault, "--db", db, "--no-embed", "--rebuild")
			if code != 0 {
				t.Fatalf("index --rebuild: exit %d: %s", code, stderr)
			}
			if problems := integrity(t, db); len(problems) > 0 {
				t.Fatalf("after --rebuild the database fails its integrity check: %v", problems)
			}
			if got := countNotes(t, db); got != notes {
				t.Fatalf("after --rebuild the database holds %d notes; the vault has %d", got, notes)
			}
			backups, _ := filepath.Glob(db + ".broken-*Z")
			if !wasDamaged {
				return // a page nothing reads: nothing to keep
			}
			if len(backups) != 1 {
				t.Fatalf("the damaged file was not kept aside: %v (stderr %q)", backups, stderr)
			}
			if kept, _ := os.ReadFile(backups[0]); !bytes.Equal(kept, damaged) {
				t.Fatalf("%s does not hold the damaged file as it was", backups[0])
			}
			if !strings.Contains(stderr, backups[0]) {
				t.Fatalf("the user is not told where the damaged file went: %q", stderr)
			}
		})
	}
}

// checkpoint folds the database's WAL into its main file, so that the
// file alone is the whole database.
func checkpoint(t *testing.T, path string) {
	t.Helper()
	raw := openRaw(t, path)
	defer raw.Close()
	if _, err := raw.Exec(`PRAGMA wal_checkpoint(TRUNCATE)`); err != nil {
		t.Fatal(err)
	}
}

// integrity runs PRAGMA integrity_check on a connection of its own and
// returns what it found wrong, an error to open or read the file counting
// as a problem.
func integrity(t *testing.T, path string) []string {
	t.Helper()
	raw, err := sql.Open("sqlite", "file:"+path+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	rows, err := raw.Query(`PRAGMA integrity_check`)
	if err != nil {
		return []string{err.Error()}
	}
	defer rows.Close()
	var problems []string
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			return []string{err.Error()}
		}
		if s != "ok" {
			problems = append(problems, s)
		}
	}
	if err := rows.Err(); err != nil {
		problems = append(problems, err.Error())
	}
	return problems
}

func countNotes(t *testing.T, path string) int {
	t.Helper()
	raw := openRaw(t, path)
	defer raw.Close()
	var n int
	if err := raw.QueryRow(`SELECT count(*) FROM files WHERE kind = 'note'`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

func copyFile(t *testing.T, src, dst string) {
	t.Helper()
	b, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(dst, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestRebuildKeepsStoredVectors rebuilds a sound index: the vectors its
// notes had are used again, none is made anew.
func TestRebuildKeepsStoredVectors(t *testing.T) {
	example, _ := filepath.Abs("../../examples/vault")
	db := filepath.Join(t.TempDir(), "j.db")
	if code, stdout, stderr := jarvis(t, nil, "index", "--vault", example, "--db", db); code != 0 || strings.Contains(stdout, "(0 embedded now)") {
		t.Fatalf("index: exit %d: %s%s", code, stdout, stderr)
	}
	code, stdout, stderr := jarvis(t, nil, "index", "--vault", example, "--db", db, "--rebuild")
	if code != 0 || !strings.Contains(stdout, "(0 embedded now)") {
		t.Fatalf("index --rebuild: exit %d: %s%s", code, stdout, stderr)
	}
	if backups, _ := filepath.Glob(db + ".*-*Z"); len(backups) > 0 {
		t.Fatalf("a sound database was kept aside: %v", backups)
	}
	if _, err := os.Stat(db + ".rebuild"); err == nil {
		t.Fatal("the rebuild left its file behind")
	}
}

// TestRebuildIsInvisibleToReaders reads the database as a server does,
// again and again, while `jarvis index --rebuild` runs on it: every answer
// counts every note of the vault, the old index's or the new one's, never
// a half-cleared index's.
func TestRebuildIsInvisibleToReaders(t *testing.T) {
	vault := sharedtest.Path(t, "vaults/obsidian-help/en")
	db := filepath.Join(t.TempDir(), "j.db")
	if code, _, stderr := jarvis(t, nil, "index", "--vault", vault, "--db", db, "--no-embed"); code != 0 {
		t.Fatalf("index: %s", stderr)
	}
	notes := countNotes(t, db)
	reader, err := store.Open(context.Background(), db, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer reader.Close()
	done := make(chan string, 1)
	go func() {
		code, _, stderr := jarvis(t, nil, "index", "--vault", vault, "--db", db, "--no-embed", "--rebuild")
		if code != 0 {
			stderr = fmt.Sprintf("exit %d: %s", code, stderr)
		} else {
			stderr = ""
		}
		done <- stderr
	}()
	reads := 0
	for {
		var n int
		err := reader.QueryRowContext(context.Background(), `SELECT count(*) FROM files WHERE kind = 'note'`).Scan(&n)
		if err != nil {
			t.Fatalf("read %d: %v", reads, err)
		}
		if n != notes {
			t.Fatalf("read %d during the rebuild counts %d notes; the vault has %d", reads, n, notes)
		}
		reads++
		select {
		case msg := <-done:
			if msg != "" {
				t.Fatalf("index --rebuild: %s", msg)
			}
			if reads < 5 {
				t.Fatalf("only %d reads while the rebuild ran", reads)
			}
			return
		case <-time.After(5 * time.Millisecond):
		}
	}
}

// TestRebuildKilledLeavesTheIndex kills `jarvis index --rebuild` (kill -9)
// while it reads the vault's notes: the database is the whole old index,
// sound, and the next rebuild finishes.
func TestRebuildKilledLeavesTheIndex(t *testing.T) {
	vault := sharedtest.Path(t, "vaults/obsidian-help/en")
	db := filepath.Join(t.TempDir(), "j.db")
	if code, _, stderr := jarvis(t, nil, "index", "--vault", vault, "--db", db, "--no-embed"); code != 0 {
		t.Fatalf("index: %s", stderr)
	}
	notes := countNotes(t, db)
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "HOME="+t.TempDir(), "JARVIS_TEST_ARGS="+strings.Join([]string{"index", "--vault", vault, "--db", db, "--no-embed", "--rebuild"}, "\x1f"))
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// Killed once the scan is done, while the notes are read and written.
	line, err := bufio.NewReader(stderr).ReadString('\n')
	if err != nil || !strings.Contains(line, "scanning files") {
		cmd.Process.Kill()
		t.Fatalf("first line %q, %v", line, err)
	}
	cmd.Process.Kill()
	cmd.Wait()
	if problems := integrity(t, db); len(problems) > 0 {
		t.Fatalf("after kill -9 the database fails its integrity check: %v", problems)
	}
	if got := countNotes(t, db); got != notes {
		t.Fatalf("after kill -9 the database holds %d notes; it held %d", got, notes)
	}
	if code, _, stderr := jarvis(t, nil, "index", "--vault", vault, "--db", db, "--no-embed", "--rebuild"); code != 0 {
		t.Fatalf("the next rebuild: exit %d: %s", code, stderr)
	}
	if got := countNotes(t, db); got != notes {
		t.Fatalf("after the next rebuild the database holds %d notes; want %d", got, notes)
	}
}

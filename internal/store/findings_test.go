package store

import (
	"bytes"
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/jarvis-mcp/jarvis/internal/health"
	"github.com/jarvis-mcp/jarvis/internal/sharedtest"
)

// rawFinding are words of SQLite's own that name where a check found
// damage; none of them reaches a reader.
var rawFinding = []string{"Tree ", "page ", "cell ", "btreeInitPage", "***", "missing from index", "wrong #",
	"NULL value", "sqlite_", "Freelist", "never used", "Offset", "vaults.", "files_"}

func checkPlain(t *testing.T, what, got string) {
	t.Helper()
	for _, raw := range rawFinding {
		if strings.Contains(got, raw) {
			t.Errorf("%s = %q: SQLite's words %q", what, got, raw)
		}
	}
	sharedtest.CheckWords(t, what, got)
}

// TestFindingsInWords: what PRAGMA integrity_check lists (many lines in
// one row, under a heading) is said as how many places are damaged, in
// which parts of the index, in the reader's words.
func TestFindingsInWords(t *testing.T) {
	trees := map[int]string{1: "sqlite_schema", 3: "vaults", 5: "files", 6: "sqlite_autoindex_files_1", 25: "note_fts_data"}
	tables := map[string]string{"sqlite_autoindex_files_1": "files"}
	row := "*** in database main ***\n"
	for p := 298; p > 210; p-- {
		row += "Tree 25 page " + strconv.Itoa(p) + ": btreeInitPage() returns error code 11\n"
	}
	for _, tc := range []struct {
		name     string
		problems []string
		want     string
	}{
		{"many pages of the search index, and the notes", []string{row, "Tree 5 page 238 cell 3: Offset 30465 out of range 128..4092",
			"row 12 missing from index sqlite_autoindex_files_1", "wrong # of entries in index sqlite_autoindex_files_1"},
			"it is damaged in 91 places: 88 in the keyword search index and 3 in the list of notes and attachments"},
		{"as many as the check lists", append(strings.Split(strings.Repeat("Page 236: never used\n", 96), "\n")[:96],
			"row 1 missing from index sqlite_autoindex_vaults_1", "row 2 missing from index sqlite_autoindex_vaults_1",
			"row 3 missing from index sqlite_autoindex_vaults_1", "row 4 missing from index sqlite_autoindex_vaults_1"),
			"it is damaged in at least 100 places: 4 in the list of vaults and 96 in pages the index does not use"},
		{"one cell of the vaults", []string{"*** in database main ***\nTree 3 page 3 cell 0: Offset 65299 out of range 4067..4092",
			"NULL value in vaults.name", "NULL value in vaults.path", "row 1 missing from index sqlite_autoindex_vaults_1", "database disk image is malformed"},
			"it is damaged in 4 places, all in the list of vaults"},
		{"the free list only", []string{"*** in database main ***\nFreelist: freelist leaf count too big on page 237\nFreelist: invalid page number 743359940\nPage 236: never used"},
			"it is damaged in 3 places, all in pages the index does not use (nothing indexed is lost, but the file is not sound)"},
		{"free pages last", []string{"Page 236: never used", "Page 237: never used", "row 1 missing from index sqlite_autoindex_vaults_1"},
			"it is damaged in 3 places: 1 in the list of vaults and 2 in pages the index does not use"},
		{"a tree whose name could not be read", []string{"Tree 77 page 9: btreeInitPage() returns error code 11", "Tree 77 page 10: btreeInitPage() returns error code 11"},
			"it is damaged in 2 places, both in other parts of the file"},
		{"one place", []string{"Tree 6 page 145 cell 1: Offset 30465 out of range 526..4092"},
			"it is damaged in 1 place, in the list of notes and attachments"},
		{"an FTS5 table", []string{"malformed inverted index for FTS5 table main.note_fts"},
			"it is damaged in 1 place, in the keyword search index"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := Findings(tc.problems, trees, tables)
			if got != tc.want {
				t.Errorf("Findings =\n %q\nwant\n %q", got, tc.want)
			}
			checkPlain(t, "Findings", got)
		})
	}
}

// TestDamageSaidInWords damages the database in chosen places and runs the
// checks of doctor (integrity) and health-status (quick): each says what
// is damaged in the reader's words, with the --rebuild fix, and the raw
// findings go only to the debug log.
func TestDamageSaidInWords(t *testing.T) {
	poke := func(t *testing.T, path string, page int) {
		f, err := os.OpenFile(path, os.O_RDWR, 0)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		// Cell pointers overwritten: the page reads, its cells do not.
		if _, err := f.WriteAt([]byte{0xff, 0x13, 0x77, 0x01}, int64(page-1)*sharedtest.PageSize+8); err != nil {
			t.Fatal(err)
		}
	}
	for _, tc := range []struct {
		table, want string
	}{
		{"vaults", "the list of vaults"},
		{"sqlite_autoindex_files", "the list of notes and attachments"},
	} {
		for _, quick := range []bool{false, true} {
			t.Run(tc.table+" quick "+strconv.FormatBool(quick), func(t *testing.T) {
				path := filepath.Join(t.TempDir(), "j.db")
				filledDB(t, path)
				pages := sharedtest.TablePages(t, path, tc.table)
				poke(t, path, pages[len(pages)/2])
				var log bytes.Buffer
				h := NewHandle(path, Options{ReadOnly: true})
				defer h.Close()
				checks := Checks(h, nil, CheckOptions{Quick: quick, Log: slog.New(slog.NewTextHandler(&log, &slog.HandlerOptions{Level: slog.LevelDebug}))})
				r := checks[0].Run(context.Background())[0]
				if r.Status != health.Fail || !strings.Contains(r.Fix, "--rebuild") || !strings.Contains(r.Detail, "it is damaged in") || !strings.Contains(r.Detail, tc.want) {
					t.Fatalf("%+v; want damage in %s", r, tc.want)
				}
				checkPlain(t, "detail", strings.ReplaceAll(r.Detail, path, "j.db"))
				if !strings.Contains(log.String(), "Offset") {
					t.Errorf("the debug log lacks the check's own lines: %s", log.String())
				}
			})
		}
	}
}

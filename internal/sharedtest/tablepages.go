package sharedtest

import (
	"database/sql"
	"strings"
	"testing"

	_ "modernc.org/sqlite" // the driver jarvis uses
)

// TablePages are the pages (1-based) of the SQLite file at path that hold
// the tables and indexes whose names start with prefix, as SQLite's dbstat
// table lists them: damaging those alone leaves the rest of the file
// readable, as a disk that fails in one place does.
func TablePages(tb testing.TB, path, prefix string) []int {
	tb.Helper()
	db, err := sql.Open("sqlite", "file:"+path+"?mode=ro")
	if err != nil {
		tb.Fatal(err)
	}
	defer db.Close()
	rows, err := db.Query(`SELECT name, pageno FROM dbstat ORDER BY pageno`)
	if err != nil {
		tb.Fatal(err)
	}
	defer rows.Close()
	var pages []int
	for rows.Next() {
		var name string
		var page int
		if err := rows.Scan(&name, &page); err != nil {
			tb.Fatal(err)
		}
		if strings.HasPrefix(name, prefix) {
			pages = append(pages, page)
		}
	}
	if err := rows.Err(); err != nil {
		tb.Fatal(err)
	}
	if len(pages) == 0 {
		tb.Fatalf("no page of %s holds a table named %s…", path, prefix)
	}
	return pages
}

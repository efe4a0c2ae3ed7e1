package query_test

import (
	"context"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/jarvis-mcp/jarvis/internal/query"
	"github.com/jarvis-mcp/jarvis/internal/query/querytest"
)

// TestCtimeIsBirthTimeElseModified: file.ctime is the birth time the
// index holds of a file, and its modification time for a file whose birth
// time is unknown (NULL), so that "made in the last day" finds the note
// made an hour ago whatever its modification time says, and nothing of
// the files whose birth is not known and which were last changed long ago.
func TestCtimeIsBirthTimeElseModified(t *testing.T) {
	db, _, _ := indexed(t)
	ctx := context.Background()
	old := time.Date(2001, 2, 3, 4, 5, 6, 0, time.UTC)
	born := querytest.Now.Add(-time.Hour)
	for _, q := range []struct {
		sql  string
		args []any
	}{
		{`UPDATE files SET mtime_ns = ?, created_ns = NULL`, []any{old.UnixNano()}},
		{`UPDATE files SET created_ns = ? WHERE path = 'Projects/Apollo.md'`, []any{born.UnixNano()}},
	} {
		if _, err := db.ExecContext(ctx, q.sql, q.args...); err != nil {
			t.Fatal(err)
		}
	}
	v, err := query.Load(ctx, db, "work", nil)
	if err != nil {
		t.Fatal(err)
	}
	for p, want := range map[string]time.Time{"Projects/Apollo.md": born, "Projects/Borealis.md": old} {
		f, ok := v.File(p)
		if !ok {
			t.Fatalf("%s not loaded", p)
		}
		if !f.Created().Equal(want) {
			t.Errorf("%s: file.ctime %v, want %v", p, f.Created(), want)
		}
		if !f.Modified().Equal(old) {
			t.Errorf("%s: file.mtime %v, want %v", p, f.Modified(), old)
		}
	}
	for filter, want := range map[string][]string{
		`file.ctime > now() - "1d"`: {"Apollo.md"},
		`file.mtime > now() - "1d"`: nil,
	} {
		if got := names(t, v, filter, querytest.Now); !slices.Equal(got, want) {
			t.Errorf("%s: rows %q, want %q", filter, got, want)
		}
	}
}

// names are the file names of the rows of an ad hoc query with filter.
func names(t *testing.T, v *query.Vault, filter string, now time.Time) []string {
	t.Helper()
	b, err := query.AdHoc{Filter: []byte(strconv.Quote(filter)), Properties: []string{"file.name"}}.Base()
	if err != nil {
		t.Fatal(err)
	}
	res, err := query.Run(context.Background(), v, query.Request{Base: b, Now: now})
	if err != nil {
		t.Fatal(err)
	}
	return table(res.Rows)
}

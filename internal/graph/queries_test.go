package graph_test

import (
	"context"
	"database/sql"
	"regexp"
	"strings"
	"testing"

	"github.com/jarvis-mcp/jarvis/internal/graph"
)

// recorder is a graph.Querier that keeps every statement run through it.
type recorder struct {
	db      *sql.DB
	queries []string
	args    [][]any
}

func (r *recorder) QueryContext(ctx context.Context, q string, args ...any) (*sql.Rows, error) {
	r.queries, r.args = append(r.queries, q), append(r.args, args)
	return r.db.QueryContext(ctx, q, args...)
}

func (r *recorder) QueryRowContext(ctx context.Context, q string, args ...any) *sql.Row {
	r.queries, r.args = append(r.queries, q), append(r.args, args)
	return r.db.QueryRowContext(ctx, q, args...)
}

// TestTraverseQueries checks that a traversal costs a fixed number of
// statements per level, whatever the number of notes in it, and that none of
// them scans a table: links are found through links_source and
// links_target, files by id.
func TestTraverseQueries(t *testing.T) {
	db := indexedDB(t, nil)
	ctx := context.Background()
	fullScan := regexp.MustCompile(`^SCAN (l|f|files|links|tags|t)\b`)
	for _, tt := range []struct {
		q       graph.Query
		queries int
		uses    []string
	}{
		// Find by path, two per level, the links among the last level, the
		// details of the links returned, tags.
		{graph.Query{Start: "Current setup.md", Depth: 2, Direction: graph.Both}, 1 + 2*2 + 3, []string{"links_source", "links_target"}},
		{graph.Query{Start: "Current setup.md", Depth: 3, Direction: graph.Out}, 1 + 2*3 + 3, []string{"links_source"}},
		{graph.Query{Start: "Water.md", Depth: 2, Direction: graph.In}, 1 + 2*2 + 3, []string{"links_target", "links_source"}},
	} {
		r := &recorder{db: db.DB}
		if _, err := graph.New(r).Traverse(ctx, tt.q); err != nil {
			t.Fatal(err)
		}
		if len(r.queries) != tt.queries {
			t.Errorf("%+v: %d statements; want %d", tt.q, len(r.queries), tt.queries)
		}
		var plans []string
		for i, q := range r.queries {
			rows, err := db.QueryContext(ctx, "EXPLAIN QUERY PLAN "+q, r.args[i]...)
			if err != nil {
				t.Fatal(err)
			}
			for rows.Next() {
				var id, parent, unused int
				var detail string
				if err := rows.Scan(&id, &parent, &unused, &detail); err != nil {
					t.Fatal(err)
				}
				plans = append(plans, detail)
				if fullScan.MatchString(detail) {
					t.Errorf("%+v: a full scan (%s) in\n%s", tt.q, detail, q)
				}
			}
			rows.Close()
		}
		all := strings.Join(plans, "\n")
		for _, idx := range tt.uses {
			if !strings.Contains(all, "INDEX "+idx) {
				t.Errorf("%+v: no use of %s in the plans:\n%s", tt.q, idx, all)
			}
		}
	}
}

// TestBacklinksUpToQueries checks that a page of backlinks reads
// links_target in its own order and that their count is the one row the
// index keeps, so that their cost does not grow with the links to a note
// beyond the page: no scan, no sort of every link to it, no count of them.
func TestBacklinksUpToQueries(t *testing.T) {
	db := indexedDB(t, nil)
	ctx := context.Background()
	r := &recorder{db: db.DB}
	if _, err := graph.New(r).BacklinksUpTo(ctx, "coffee", "Methods/Pour over.md", 2); err != nil {
		t.Fatal(err)
	}
	if len(r.queries) != 3 {
		t.Fatalf("%d statements; want the note's id, the page, the count", len(r.queries))
	}
	var plans []string
	for i, q := range r.queries[1:] {
		rows, err := db.QueryContext(ctx, "EXPLAIN QUERY PLAN "+q, r.args[i+1]...)
		if err != nil {
			t.Fatal(err)
		}
		for rows.Next() {
			var id, parent, unused int
			var detail string
			if err := rows.Scan(&id, &parent, &unused, &detail); err != nil {
				t.Fatal(err)
			}
			plans = append(plans, detail)
		}
		rows.Close()
	}
	all := strings.Join(plans, "\n")
	for _, want := range []string{
		"SEARCH links USING INDEX links_target (target_id=?)",
		"SEARCH backlink_counts USING INTEGER PRIMARY KEY (rowid=?)",
	} {
		if !strings.Contains(all, want) {
			t.Errorf("no %q in the plans:\n%s", want, all)
		}
	}
	if strings.Contains(all, "COVERING INDEX links_target") {
		t.Errorf("the links to the note are counted:\n%s", all)
	}
	// The page is sorted by path once cut; only that sort is allowed.
	if strings.Count(all, "TEMP B-TREE") > 1 || strings.Contains(all, "SCAN links") {
		t.Errorf("a scan or a sort of every link in the plans:\n%s", all)
	}
}

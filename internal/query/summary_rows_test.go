package query_test

import (
	"context"
	"testing"

	"github.com/jarvis-mcp/jarvis/internal/bases"
	"github.com/jarvis-mcp/jarvis/internal/query"
	"github.com/jarvis-mcp/jarvis/internal/query/querytest"
)

// TestSummariesOverShownRows: a view's summaries are computed over the rows
// it shows, after its limit, not over every file that passed its filters.
// The Help vault's Bases/Layouts/Table view page: "You can add summaries to
// a table column to quickly calculate values like totals, averages, or
// counts for the rows currently visible in the view."
func TestSummariesOverShownRows(t *testing.T) {
	_, v, _ := indexed(t)
	b, err := bases.ParseBase([]byte(`filters: file.inFolder("Daily")
views:
  - type: table
    name: Latest two
    order: [file.name, mood]
    sort:
      - property: file.name
        direction: DESC
    limit: 2
    summaries:
      mood: Sum
`))
	if err != nil {
		t.Fatal(err)
	}
	res, err := query.Run(context.Background(), v, query.Request{Base: b, Now: querytest.Now})
	if err != nil {
		t.Fatal(err)
	}
	// The moods are 3, 5 and 4 on November 26th, 27th and 28th; the two
	// latest days show 5 and 4.
	if res.Total != 3 || len(res.Rows) != 2 {
		t.Fatalf("total %d and %d rows, want 3 and 2", res.Total, len(res.Rows))
	}
	if len(res.Summaries) != 1 || bases.Display(res.Summaries[0].Value) != "9" {
		t.Errorf("summaries %+v, want the sum of the shown moods, 9 (not 12, every day's)", res.Summaries)
	}
}

// TestSummaryOfAPropertyNotShown: a summary of a property the view does not
// show as a column is computed over the rows all the same, not dropped.
func TestSummaryOfAPropertyNotShown(t *testing.T) {
	_, v, _ := indexed(t)
	b, err := bases.ParseBase([]byte(`filters: file.inFolder("Daily")
views:
  - type: table
    name: Days
    order: [file.name]
    summaries:
      mood: Sum
`))
	if err != nil {
		t.Fatal(err)
	}
	res, err := query.Run(context.Background(), v, query.Request{Base: b, Now: querytest.Now})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Summaries) != 1 || res.Summaries[0].Column != "mood" || bases.Display(res.Summaries[0].Value) != "12" {
		t.Errorf("summaries %+v, want the sum of every day's mood, 12", res.Summaries)
	}
}

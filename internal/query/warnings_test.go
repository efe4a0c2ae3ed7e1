package query_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/jarvis-mcp/jarvis/internal/query"
	"github.com/jarvis-mcp/jarvis/internal/query/querytest"
)

// TestColumnWarningsSayHowManyMore: a column that fails on many rows gives
// a few examples, then how many more failed, so that the few do not pass
// for all. (The formula fails on each file's own name: a mistake the
// expression makes whatever the file, such as toFixed() on file.name, is
// refused when it is read.)
func TestColumnWarningsSayHowManyMore(t *testing.T) {
	_, v, _ := indexed(t)
	b, err := query.AdHoc{Formulas: map[string]string{"x": "date(file.name)"}, Properties: []string{"formula.x"}}.Base()
	if err != nil {
		t.Fatal(err)
	}
	res, err := query.Run(context.Background(), v, query.Request{Base: b, Now: querytest.Now})
	if err != nil {
		t.Fatal(err)
	}
	if res.Total <= 5 || len(res.Warnings) != 6 {
		t.Fatalf("%d rows, warnings %q", res.Total, res.Warnings)
	}
	want := fmt.Sprintf("%d more values could not be computed as well, and are left empty", res.Total-5)
	if res.Warnings[5] != want || !strings.Contains(res.Warnings[0], "date() cannot read") {
		t.Errorf("warnings %q, want the last to say %q", res.Warnings, want)
	}
}

// TestSortByAPropertyNoFileHas: a sort key no file has, as a misspelt one
// is, sorts nothing; the answer says so, with the closest property some
// file has.
func TestSortByAPropertyNoFileHas(t *testing.T) {
	_, v, _ := indexed(t)
	for key, want := range map[string]string{
		"priorty":  "sort by priorty: no file has a property priorty; did you mean priority?",
		"note.zzz": "sort by note.zzz: no file has a property zzz",
		"priority": "",
	} {
		b, err := query.AdHoc{Sort: []query.SortKey{{Property: key}}}.Base()
		if err != nil {
			t.Fatal(err)
		}
		res, err := query.Run(context.Background(), v, query.Request{Base: b, Now: querytest.Now})
		if err != nil {
			t.Fatal(err)
		}
		got := strings.Join(res.Warnings, "\n")
		if got != want {
			t.Errorf("sort by %s: warnings %q, want %q", key, got, want)
		}
	}
}

// TestFilterOnAPropertyNoFileHas: a filter that reads a property no file
// has warns of it, as a column does; when notes hold it as a Dataview
// inline field, the warning says that queries read only frontmatter.
func TestFilterOnAPropertyNoFileHas(t *testing.T) {
	_, v, _ := indexedWith(t, map[string]string{
		"Inline/One.md": "# One\n\nlead:: [[Ana]]\n",
		"Inline/Two.md": "# Two\n\nSome text.\nlead:: [[Ana]]\n",
	})
	for filter, want := range map[string]string{
		`lead == link("Ana Souza")`: "filter: no file has a property lead; 2 notes hold it as a Dataview inline field (lead::), but queries read only the properties in a note's frontmatter",
		`priorty > 1`:               "filter: no file has a property priorty; did you mean priority?",
		`priority > 1 && file.name.contains(link("x").toString())`: "",
		`[1, 2].filter(value > 1).length > 0`:                      "",
	} {
		b, err := query.AdHoc{Filter: json.RawMessage(strconv.Quote(filter))}.Base()
		if err != nil {
			t.Fatal(err)
		}
		res, err := query.Run(context.Background(), v, query.Request{Base: b, Now: querytest.Now})
		if err != nil {
			t.Fatalf("%s: %v", filter, err)
		}
		if got := strings.Join(res.Warnings, "\n"); got != want {
			t.Errorf("filter %s: warnings %q, want %q", filter, got, want)
		}
	}
}

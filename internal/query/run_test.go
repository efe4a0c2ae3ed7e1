package query_test

import (
	"context"
	"database/sql"
	"errors"
	"io"
	"log/slog"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/jarvis-mcp/jarvis/internal/bases"
	"github.com/jarvis-mcp/jarvis/internal/config"
	"github.com/jarvis-mcp/jarvis/internal/index"
	"github.com/jarvis-mcp/jarvis/internal/query"
	"github.com/jarvis-mcp/jarvis/internal/query/querytest"
	"github.com/jarvis-mcp/jarvis/internal/sharedtest"
	"github.com/jarvis-mcp/jarvis/internal/store"
	"github.com/jarvis-mcp/jarvis/internal/vault"
)

// indexed writes the test vault, indexes it into a new database and
// returns the database, the vault as the index holds it and its root.
func indexed(t *testing.T) (*store.DB, *query.Vault, *vault.Root) {
	t.Helper()
	return indexedWith(t, nil)
}

// indexedWith is indexed with more files in the vault, by path.
func indexedWith(t *testing.T, more map[string]string) (*store.DB, *query.Vault, *vault.Root) {
	t.Helper()
	ctx := context.Background()
	dir := t.TempDir()
	root := filepath.Join(dir, "vault")
	querytest.Write(t, root)
	for rel, text := range more {
		sharedtest.WriteFile(t, root, rel, text)
	}
	db, err := store.Open(ctx, filepath.Join(dir, "jarvis.db"), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	ix := index.New(db, vault.NewParser(), slog.New(slog.NewTextHandler(io.Discard, nil)))
	if _, err := ix.Index(ctx, config.Vault{Name: "work", Path: root}, nil); err != nil {
		t.Fatal(err)
	}
	v, err := query.Load(ctx, db, "work", nil)
	if err != nil {
		t.Fatal(err)
	}
	r, err := vault.OpenRoot(root, nil)
	if err != nil {
		t.Fatal(err)
	}
	return db, v, r
}

// table is a result as lines of its rows' displayed values, joined by
// " | ".
func table(rows []query.Row) []string {
	var out []string
	for _, r := range rows {
		var cells []string
		for _, v := range r.Values {
			cells = append(cells, bases.Display(v))
		}
		out = append(out, strings.Join(cells, " | "))
	}
	return out
}

func TestViewsOfBaseFiles(t *testing.T) {
	_, v, root := indexed(t)
	cases := []struct {
		name, base, view string
		block            int
		want             []string
		total            int
	}{
		{"filter of base and view, sorted by a date, with a formula", "Bases/Projects.base", "",
			0, []string{"Draco.md | 2026-11-30 | 1 | 2", "Apollo.md | 2026-12-02 | 2 | 4", "Borealis.md | 2026-12-10 | 1 | 12"}, 3},
		{"two sort keys in their directions, then the limit", "Bases/Projects.base", "Top priority",
			0, []string{"Borealis.md | 1 | 2026-12-10", "Draco.md | 1 | 2026-11-30"}, 4},
		{"descending file names", "Bases/Daily.base", "Moods",
			0, []string{"2026-11-28.md | 4", "2026-11-27.md | 5", "2026-11-26.md | 3"}, 3},
		{"an attachment and a tagged note", "Bases/Files.base", "",
			0, []string{"Attachments/diagram.png | png", "Daily/2026-11-27.md | md"}, 2},
		{"a block in a note, this being the note", "Dashboard.md", "",
			0, []string{"Borealis.md | active", "Draco.md | active", "Apollo.md | active"}, 3},
		{"the second block, by backlinks", "Dashboard.md", "Owners",
			2, []string{"Ada.md | engineer", "Grace.md | admiral"}, 2},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			src, err := query.ReadBase(root, v, c.base, c.block)
			if err != nil {
				t.Fatal(err)
			}
			res, err := query.Run(context.Background(), v, query.Request{Base: src.Base, View: c.view, This: src.This, Now: querytest.Now})
			if err != nil {
				t.Fatal(err)
			}
			if got := table(res.Rows); !slices.Equal(got, c.want) {
				t.Errorf("rows:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(c.want, "\n"))
			}
			if res.Total != c.total {
				t.Errorf("total %d, want %d", res.Total, c.total)
			}
			if len(res.Warnings) > 0 {
				t.Errorf("warnings: %q", res.Warnings)
			}
		})
	}
}

func TestColumnsAreNamedByDisplayName(t *testing.T) {
	_, v, root := indexed(t)
	src, err := query.ReadBase(root, v, "Bases/Projects.base", 0)
	if err != nil {
		t.Fatal(err)
	}
	res, err := query.Run(context.Background(), v, query.Request{Base: src.Base, Now: querytest.Now})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, c := range res.Columns {
		names = append(names, c.Name)
	}
	if want := []string{"file.name", "Due", "priority", "Days left"}; !slices.Equal(names, want) {
		t.Errorf("columns %q, want %q", names, want)
	}
}

func TestGroupsAndSummaries(t *testing.T) {
	_, v, root := indexed(t)
	src, err := query.ReadBase(root, v, "Bases/Projects.base", 0)
	if err != nil {
		t.Fatal(err)
	}
	res, err := query.Run(context.Background(), v, query.Request{Base: src.Base, View: "By status", Now: querytest.Now})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, g := range res.Groups {
		line := bases.Display(g.Key) + ": " + strings.Join(table(g.Rows), ", ")
		for _, s := range g.Summaries {
			line += " (" + s.Summary + " " + s.Column + " " + bases.Display(s.Value) + ")"
		}
		got = append(got, line)
	}
	want := []string{
		"active: Apollo.md | 2, Borealis.md | 1, Draco.md | 1 (Average priority 1.3333333333333333)",
		"done: Cygnus.md | 3 (Average priority 3)",
	}
	if !slices.Equal(got, want) {
		t.Errorf("groups:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if len(res.Summaries) != 1 || bases.Display(res.Summaries[0].Value) != "1.75" {
		t.Errorf("summaries %+v, want the average priority 1.75", res.Summaries)
	}
}

func TestAdHocQuery(t *testing.T) {
	_, v, _ := indexed(t)
	q := query.AdHoc{
		Filter:     []byte(`{"and": ["file.inFolder(\"Projects\")", "status == \"active\" && due <= today() + \"7d\""]}`),
		Formulas:   map[string]string{"soon": `if(due < today() + "3d", "yes", "no")`},
		Sort:       []query.SortKey{{Property: "due", Direction: "DESC"}},
		Properties: []string{"file.name", "formula.soon"},
	}
	b, err := q.Base()
	if err != nil {
		t.Fatal(err)
	}
	res, err := query.Run(context.Background(), v, query.Request{Base: b, Now: querytest.Now})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := table(res.Rows), []string{"Apollo.md | no", "Draco.md | yes"}; !slices.Equal(got, want) {
		t.Errorf("rows %q, want %q", got, want)
	}
}

func TestBrokenQueriesSayWhatIsWrong(t *testing.T) {
	_, v, root := indexed(t)
	for _, c := range []struct {
		name string
		q    query.AdHoc
		want []string
	}{
		{"expression", query.AdHoc{Filter: []byte(`"status == "`)}, []string{"filter", "`status == `", "column 11", "expected"}},
		{"group", query.AdHoc{Filter: []byte(`{"and": ["a", "b +"]}`)}, []string{"filter.and[1]", "`b +`"}},
		{"group not a list", query.AdHoc{Filter: []byte(`{"and": "x"}`)}, []string{"filter.and: expected a list of filters"}},
		{"group as text", query.AdHoc{Filter: []byte(`"{\"and\": [\"file.name == 'a.md'\"]}"`)}, []string{"filter is text that holds JSON", "as a JSON object"}},
		{"list as text", query.AdHoc{Filter: []byte(`"[1]"`)}, []string{"filter is text that holds JSON"}},
		{"direction", query.AdHoc{Sort: []query.SortKey{{Property: "due", Direction: "UP"}}}, []string{"sort key 1", "ASC or DESC"}},
		{"formula", query.AdHoc{Formulas: map[string]string{"x": "formula.y"}}, []string{`formula "x"`, `no formula named "y"`}},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := c.q.Base()
			if err == nil {
				t.Fatal("no error")
			}
			for _, w := range c.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not say %q", err, w)
				}
			}
			if strings.Contains(err.Error(), "views[0]") {
				t.Errorf("error %q names the view the query is read as", err)
			}
		})
	}
	src, err := query.ReadBase(root, v, "Bases/Projects.base", 0)
	if err != nil {
		t.Fatal(err)
	}
	_, err = query.Run(context.Background(), v, query.Request{Base: src.Base, View: "Nope"})
	if !errors.Is(err, query.ErrNoView) || !strings.Contains(err.Error(), `"Active by due date", "Top priority", "By status"`) {
		t.Errorf("unknown view: %v", err)
	}
	if _, err := query.ReadBase(root, v, "Dashboard.md", 3); !errors.Is(err, query.ErrNoBlock) || !strings.Contains(err.Error(), "has 2 base blocks") {
		t.Errorf("third block: %v", err)
	}
	if _, err := query.ReadBase(root, v, "Attachments/diagram.png", 0); !errors.Is(err, query.ErrNotBase) {
		t.Errorf("a picture: %v", err)
	}
	if _, err := query.ReadBase(root, v, "../outside.base", 0); !errors.Is(err, vault.ErrOutside) {
		t.Errorf("outside the vault: %v", err)
	}
}

// TestFilterFailingOnSomeFiles: a filter that cannot be evaluated for a
// file leaves that file out and says so; when it fails on every file, the
// error is the answer.
func TestFilterFailingOnSomeFiles(t *testing.T) {
	_, v, _ := indexed(t)
	run := func(filter string) (*query.Result, error) {
		b, err := query.AdHoc{Filter: []byte(filter)}.Base()
		if err != nil {
			t.Fatal(err)
		}
		return query.Run(context.Background(), v, query.Request{Base: b, Now: querytest.Now})
	}
	res, err := run(`"file.inFolder(\"Daily\") || date(file.name) > now()"`)
	if err != nil {
		t.Fatal(err)
	}
	if res.Total != 3 || len(res.Warnings) != 1 || !strings.Contains(res.Warnings[0], "files were left out because the filter failed") {
		t.Errorf("total %d, warnings %q", res.Total, res.Warnings)
	}
	if _, err := run(`"date(file.name) > now()"`); err == nil || !strings.Contains(err.Error(), `date() cannot read`) || !strings.Contains(err.Error(), "(for ") {
		t.Errorf("a filter failing on every file: %v", err)
	}
}

// TestLoadReadsInFewStatements: loading a vault costs the same number of
// statements whatever its size, not one per note or property.
func TestLoadReadsInFewStatements(t *testing.T) {
	db, _, _ := indexed(t)
	counter := &countingDB{db: db}
	v, err := query.Load(context.Background(), counter, "work", nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(v.Files) < 10 {
		t.Fatalf("%d files loaded", len(v.Files))
	}
	if counter.n > 4 {
		t.Errorf("%d statements to load %d files", counter.n, len(v.Files))
	}
	f, _ := v.File("Projects/Apollo.md")
	if got := f.Backlinks(); !slices.Equal(got, []string{"Daily/2026-11-26.md", "Daily/2026-11-27.md"}) {
		t.Errorf("backlinks %q", got)
	}
	if got := f.Links(); !slices.Contains(got, "Ada") || !slices.Contains(got, "Grace") {
		t.Errorf("links %q, want the frontmatter link and the body link", got)
	}
	if _, ok := v.File("Daily/2026-11-26.md"); !ok {
		t.Error("a daily note is missing")
	}
	kept, err := query.Load(context.Background(), db, "work", []string{"Daily/**"})
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := kept.File("Daily/2026-11-26.md"); ok {
		t.Error("a file the exclude patterns keep out was loaded")
	}
	d, _ := v.File("Projects/Draco.md")
	if got := d.Embeds(); !slices.Equal(got, []string{"diagram.png"}) {
		t.Errorf("embeds %q", got)
	}
}

type countingDB struct {
	db *store.DB
	n  int
}

func (c *countingDB) QueryContext(ctx context.Context, q string, args ...any) (*sql.Rows, error) {
	c.n++
	return c.db.QueryContext(ctx, q, args...)
}

// TestWhereAndViewFilterAgree: a search's where and a query's filter are
// one rule: the same expression keeps the same notes.
func TestWhereAndViewFilterAgree(t *testing.T) {
	db, v, _ := indexed(t)
	for _, expr := range []string{`status == "active"`, `file.hasTag("work") || mood > 3`, `file.backlinks.length > 1`, `due < today()`} {
		ids, err := query.Where(context.Background(), db, []string{"work"}, nil, expr, querytest.Now)
		if err != nil {
			t.Fatal(err)
		}
		b, err := query.AdHoc{Filter: []byte(strconv.Quote(expr))}.Base()
		if err != nil {
			t.Fatal(err)
		}
		res, err := query.Run(context.Background(), v, query.Request{Base: b, Now: querytest.Now})
		if err != nil {
			t.Fatal(err)
		}
		var viewed []int64
		for _, r := range res.Rows {
			if r.File.Note {
				viewed = append(viewed, r.File.ID)
			}
		}
		if len(viewed) == 0 || len(viewed) != len(ids) {
			t.Errorf("%s: the view keeps %d notes, where %d", expr, len(viewed), len(ids))
		}
		for _, id := range viewed {
			if !ids[id] {
				t.Errorf("%s: note %d passes the view, not where", expr, id)
			}
		}
	}
	if _, err := query.Where(context.Background(), db, []string{"work"}, nil, "status ==", querytest.Now); !errors.Is(err, query.ErrWhere) {
		t.Errorf("a broken where: %v", err)
	}
}

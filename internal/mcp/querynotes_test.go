package mcp_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/jarvis-mcp/jarvis/internal/config"
	"github.com/jarvis-mcp/jarvis/internal/mcp"
	"github.com/jarvis-mcp/jarvis/internal/query"
	"github.com/jarvis-mcp/jarvis/internal/query/querytest"
)

// queryVault is the query test vault, indexed by the real server.
func queryVault(t *testing.T) (config.Vault, backend) {
	t.Helper()
	v := config.Vault{Name: "work", Path: filepath.Join(t.TempDir(), "work")}
	querytest.Write(t, v.Path)
	return v, realBackend(t, filepath.Join(t.TempDir(), "j.db"), true, v)
}

// paths are the rows' paths, with their group when they have one.
func paths(out mcp.QueryNotesOutput) []string {
	var ps []string
	for _, r := range out.Rows {
		p := r.Path
		if r.Group != "" {
			p = r.Group + ": " + p
		}
		ps = append(ps, p)
	}
	return ps
}

func TestQueryNotesViewsOverMCP(t *testing.T) {
	_, b := queryVault(t)
	cs := connect(t, b)
	cases := []struct {
		name  string
		args  map[string]any
		want  []string
		total int
	}{
		{"two sort keys and a limit", map[string]any{"base": "Bases/Projects.base", "view": "Top priority"},
			[]string{"Projects/Borealis.md", "Projects/Draco.md"}, 4},
		{"limit lowering the view's", map[string]any{"base": "Bases/Projects.base", "view": "Top priority", "limit": 1},
			[]string{"Projects/Borealis.md"}, 4},
		{"groups", map[string]any{"base": "Bases/Projects.base", "view": "By status"},
			[]string{"active: Projects/Apollo.md", "active: Projects/Borealis.md", "active: Projects/Draco.md", "done: Projects/Cygnus.md"}, 4},
		{"daily notes, newest first", map[string]any{"base": "Bases/Daily.base"},
			[]string{"Daily/2026-11-28.md", "Daily/2026-11-27.md", "Daily/2026-11-26.md"}, 3},
		{"an attachment", map[string]any{"base": "Bases/Files.base"},
			[]string{"Attachments/diagram.png", "Daily/2026-11-27.md"}, 2},
		{"a base block, this being its note", map[string]any{"base": "Dashboard.md"},
			[]string{"Projects/Borealis.md", "Projects/Draco.md", "Projects/Apollo.md"}, 3},
		{"the second block", map[string]any{"base": "Dashboard.md", "block": 2},
			[]string{"People/Ada.md", "People/Grace.md"}, 2},
		{"an ad-hoc query", map[string]any{"filter": map[string]any{"and": []any{`file.inFolder("Projects")`, `priority >= 2`}},
			"sort": []any{map[string]any{"property": "priority", "direction": "DESC"}}, "properties": []any{"file.name", "owner"}},
			[]string{"Projects/Cygnus.md", "Projects/Apollo.md"}, 2},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var out mcp.QueryNotesOutput
			text, isErr := call(t, cs, mcp.ToolQueryNotes, c.args, &out)
			if isErr {
				t.Fatal(text)
			}
			if got := paths(out); !slices.Equal(got, c.want) {
				t.Errorf("rows %q, want %q\n%s", got, c.want, text)
			}
			if out.Total != c.total || out.Vault != "work" {
				t.Errorf("total %d in vault %q, want %d in work", out.Total, out.Vault, c.total)
			}
			for i, r := range out.Rows {
				if !strings.Contains(text, "| "+r.Path+" |") {
					t.Errorf("row %d is not in the table:\n%s", i, text)
				}
			}
		})
	}
	var out mcp.QueryNotesOutput
	call(t, cs, mcp.ToolQueryNotes, map[string]any{"base": "Bases/Projects.base", "view": "By status"}, &out)
	if len(out.Summaries) != 1 || out.Summaries[0].Value != 1.75 || len(out.Groups) != 2 || out.Groups[1].Summaries[0].Value != 3.0 {
		t.Errorf("summaries %+v, groups %+v", out.Summaries, out.Groups)
	}
	out = mcp.QueryNotesOutput{}
	call(t, cs, mcp.ToolQueryNotes, map[string]any{"filter": `file.name == "Cygnus.md"`,
		"formulas": []any{map[string]any{"name": "double", "expression": "priority * 2"}}, "properties": []any{"formula.double"}}, &out)
	if len(out.Rows) != 1 || out.Rows[0].Values["formula.double"] != 6.0 {
		t.Errorf("formula values %+v", out.Rows)
	}
	out = mcp.QueryNotesOutput{}
	call(t, cs, mcp.ToolQueryNotes, map[string]any{"filter": `file.name == "Apollo.md"`, "properties": []any{"owner", "due", "tags"}}, &out)
	if len(out.Rows) != 1 || fmt.Sprint(out.Rows[0].Values) != "map[due:2026-12-02 owner:[[Ada]] tags:[project work]]" {
		t.Errorf("values %+v", out.Rows)
	}
}

// TestQueryNotesToday: today() is the server's clock; "which active
// projects are due this week?" as the README asks it.
func TestQueryNotesToday(t *testing.T) {
	v, b := queryVault(t)
	db := b.(real).deps.DB
	cs := connect(t, &fake{Vaults: []config.Vault{v}, Now: func() time.Time { return querytest.Now },
		Files: func(ctx context.Context, name string, exclude []string) (*query.Vault, error) {
			return query.Load(ctx, db, name, exclude)
		}})
	var out mcp.QueryNotesOutput
	text, isErr := call(t, cs, mcp.ToolQueryNotes, map[string]any{"filter": `status == "active" && due <= today() + "7d"`,
		"sort": []any{map[string]any{"property": "due"}}, "properties": []any{"file.name", "due"}}, &out)
	if isErr || !slices.Equal(paths(out), []string{"Projects/Draco.md", "Projects/Apollo.md"}) {
		t.Errorf("due this week: %q\n%s", paths(out), text)
	}
	text, isErr = call(t, cs, mcp.ToolQueryNotes, map[string]any{"base": "Bases/Projects.base"}, &out)
	if isErr || !strings.Contains(text, "| Projects/Draco.md | Draco.md | 2026-11-30 | 1 | 2 |") ||
		!strings.Contains(text, "| Path | file.name | Due | priority | Days left |") {
		t.Errorf("the first view:\n%s", text)
	}
}

func TestQueryNotesErrors(t *testing.T) {
	_, b := queryVault(t)
	cs := connect(t, b)
	for _, c := range []struct {
		name string
		args map[string]any
		want []string
	}{
		{"broken expression", map[string]any{"filter": `status == `}, []string{"`status == `", "column 11", "expected"}},
		{"unknown view", map[string]any{"base": "Bases/Projects.base", "view": "Later"}, []string{`no view "Later"`, `"Active by due date", "Top priority", "By status"`}},
		{"no base block", map[string]any{"base": "People/Ada.md"}, []string{"has no ```base block"}},
		{"missing base", map[string]any{"base": "Bases/Nope.base"}, []string{`no file "Bases/Nope.base" in vault "work"`}},
		{"outside", map[string]any{"base": "../x.base"}, []string{"outside the vault"}},
		{"both", map[string]any{"base": "Bases/Daily.base", "filter": "true"}, []string{"without base"}},
		{"neither", map[string]any{}, []string{"pass base"}},
		{"unknown vault", map[string]any{"vault": "home", "filter": "true"}, []string{`no vault named "home"`, `"work"`}},
	} {
		t.Run(c.name, func(t *testing.T) {
			text, isErr := call(t, cs, mcp.ToolQueryNotes, c.args, nil)
			if !isErr {
				t.Fatalf("no error:\n%s", text)
			}
			for _, w := range c.want {
				if !strings.Contains(text, w) {
					t.Errorf("%q does not say %q", text, w)
				}
			}
		})
	}
}

// TestQueryNotesAnswerIsBounded: many rows are cut to the rows cap, and
// to the answer ceiling when that is lower, saying so; total counts all.
func TestQueryNotesAnswerIsBounded(t *testing.T) {
	v := config.Vault{Name: "big", Path: filepath.Join(t.TempDir(), "big")}
	if err := os.MkdirAll(v.Path, 0o755); err != nil {
		t.Fatal(err)
	}
	for i := range 300 {
		body := fmt.Sprintf("---\nn: %d\nsummary: %s\n---\nNote %d.\n", i, strings.Repeat("words ", 40), i)
		if err := os.WriteFile(filepath.Join(v.Path, fmt.Sprintf("n%03d.md", i)), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	b := realBackend(t, filepath.Join(t.TempDir(), "j.db"), true, v)
	args := map[string]any{"filter": "n >= 0", "properties": []any{"file.name", "summary"}, "sort": []any{map[string]any{"property": "n"}}}
	var out mcp.QueryNotesOutput
	text, isErr := call(t, connect(t, b), mcp.ToolQueryNotes, args, &out)
	if isErr || out.Total != 300 || !out.Truncated || len(out.Rows) == 0 || len(out.Rows) > 200 || out.Rows[0].Path != "n000.md" {
		t.Fatalf("total %d, %d rows, truncated %v\n%.300s", out.Total, len(out.Rows), out.Truncated, text)
	}
	small := connectWith(t, b, mcp.Options{Version: "test", Logger: quiet(), AnswerTokens: 2000})
	out = mcp.QueryNotesOutput{}
	text, isErr = call(t, small, mcp.ToolQueryNotes, args, &out)
	if isErr || !out.Truncated || len(out.Rows) >= 200 || !strings.Contains(text, "to keep the answer small") || mcp.Tokens(text) > 2000 {
		t.Errorf("%d rows, truncated %v, %d tokens of text", len(out.Rows), out.Truncated, mcp.Tokens(text))
	}
}

// TestWhereOnEverySearchMode: where keeps the candidates a Bases filter
// lets through, in each mode, by the rule of query-notes; a broken
// expression is an error naming it.
func TestWhereOnEverySearchMode(t *testing.T) {
	_, b := queryVault(t)
	cs := connect(t, b)
	for _, tool := range []string{mcp.ToolSearchVault, mcp.ToolSearchSemantic, mcp.ToolSearchCombined} {
		t.Run(tool, func(t *testing.T) {
			var out mcp.SearchOutput
			args := map[string]any{"query": "Draco Apollo", "where": `status == "active" && priority < 2`}
			if tool == mcp.ToolSearchVault {
				args["search_content"] = true
			}
			text, isErr := call(t, cs, tool, args, &out)
			if isErr {
				t.Fatal(text)
			}
			var got []string
			for _, r := range out.Results {
				got = append(got, r.Path)
			}
			// Apollo (priority 2) and the daily notes naming both are
			// left out; Draco, active with priority 1, stays.
			if !slices.Equal(got, []string{"Projects/Draco.md"}) {
				t.Errorf("results %q\n%s", got, text)
			}
			text, isErr = call(t, cs, tool, map[string]any{"query": "Apollo", "where": "status =="}, nil)
			if !isErr || !strings.Contains(text, "where: expression `status ==`, column 10: expected") {
				t.Errorf("a broken where: %s", text)
			}
		})
	}
}

// TestQueryNotesArgumentWords: what the tool says of arguments a newcomer
// gets wrong names the field at fault and shows what to send instead.
func TestQueryNotesArgumentWords(t *testing.T) {
	_, b := queryVault(t)
	cs := connect(t, b)
	for _, c := range []struct {
		name string
		args map[string]any
		want string
	}{
		{"formulas as an object", map[string]any{"filter": "true", "formulas": map[string]any{"left": "due - today()"}},
			`formulas must be an array of objects, such as [{"name": "...", "expression": "..."}], not an object`},
		{"sort direction", map[string]any{"filter": "true", "sort": []any{map[string]any{"property": "due", "direction": "down"}}},
			`sort[0].direction must be "ASC" or "DESC"; got "down"`},
		{"unknown view", map[string]any{"base": "Bases/Projects.base", "view": "Later"},
			`the base has no view "Later"; its views are "Active by due date", "Top priority", "By status"`},
	} {
		t.Run(c.name, func(t *testing.T) {
			text, isErr := call(t, cs, mcp.ToolQueryNotes, c.args, nil)
			if !isErr || !strings.Contains(text, c.want) {
				t.Errorf("error %v:\n%s\nwant it to say %q", isErr, text, c.want)
			}
		})
	}
	text, isErr := call(t, cs, mcp.ToolQueryNotes, map[string]any{"base": "Bases/Projects.base", "view": "By status"}, nil)
	if isErr || !strings.Contains(text, "4 files of vault work pass the filter.") || !strings.Contains(text, "Average of priority in group done: 3") {
		t.Errorf("answer:\n%s", text)
	}
}

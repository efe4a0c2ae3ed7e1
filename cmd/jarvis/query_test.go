package main

import (
	"encoding/json"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/jarvis-mcp/jarvis/internal/mcp"
	"github.com/jarvis-mcp/jarvis/internal/query/querytest"
)

// TestQueryCommand runs jarvis query over the query test vault: views of
// .base files and of a base block in their order, an ad-hoc query, the
// Markdown table, and its usage and query errors.
func TestQueryCommand(t *testing.T) {
	vault := filepath.Join(t.TempDir(), "work")
	querytest.Write(t, vault)
	db := filepath.Join(t.TempDir(), "j.db")
	run := func(args ...string) mcp.QueryNotesOutput {
		t.Helper()
		code, stdout, stderr := jarvis(t, nil, append([]string{"query", "--vault", vault, "--db", db, "--json"}, args...)...)
		if code != 0 {
			t.Fatalf("%q: exit %d: %s", args, code, stderr)
		}
		var out mcp.QueryNotesOutput
		if err := json.Unmarshal([]byte(stdout), &out); err != nil {
			t.Fatalf("stdout is not the query JSON: %v\n%s", err, stdout)
		}
		return out
	}
	for _, c := range []struct {
		args  []string
		want  []string
		total int
	}{
		{[]string{"--base", "Bases/Projects.base", "--view", "Top priority"}, []string{"Projects/Borealis.md", "Projects/Draco.md"}, 4},
		{[]string{"--base", "Bases/Daily.base"}, []string{"Daily/2026-11-28.md", "Daily/2026-11-27.md", "Daily/2026-11-26.md"}, 3},
		{[]string{"--base", "Dashboard.md", "--block", "2"}, []string{"People/Ada.md", "People/Grace.md"}, 2},
		{[]string{"--filter", `{"and": ["file.inFolder(\"Projects\")", "priority >= 2"]}`, "--sort", "priority:desc", "--property", "file.name"},
			[]string{"Projects/Cygnus.md", "Projects/Apollo.md"}, 2},
		{[]string{"--filter", `file.ext == "png" || file.hasTag("win")`, "--sort", "file.path", "--limit", "1"}, []string{"Attachments/diagram.png"}, 2},
	} {
		out := run(c.args...)
		var got []string
		for _, r := range out.Rows {
			got = append(got, r.Path)
		}
		if !slices.Equal(got, c.want) || out.Total != c.total {
			t.Errorf("%q: rows %q of %d, want %q of %d", c.args, got, out.Total, c.want, c.total)
		}
	}

	code, stdout, stderr := jarvis(t, nil, "query", "--vault", vault, "--db", db, "--no-refresh", "--base", "Bases/Projects.base", "--view", "By status")
	if code != 0 || !strings.Contains(stdout, "| Group | Path | file.name | priority |") || !strings.Contains(stdout, "| done | Projects/Cygnus.md | Cygnus.md | 3 |") ||
		!strings.Contains(stdout, "Average of priority: 1.75") {
		t.Errorf("exit %d (%s):\n%s", code, stderr, stdout)
	}

	for _, tc := range []struct {
		name string
		args []string
		code int
		want string
	}{
		{"neither", nil, 1, "pass base"},
		{"broken", []string{"--filter", "status == "}, 1, "column 10: expected a value"},
		{"unknown view", []string{"--base", "Bases/Daily.base", "--view", "Later"}, 1, `the base's views are "Moods"`},
		{"bad formula", []string{"--filter", "true", "--formula", "x"}, 2, "name=expression"},
		{"argument", []string{"status"}, 2, "unexpected argument"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, _, stderr := jarvis(t, nil, append([]string{"query", "--vault", vault, "--db", db, "--no-refresh"}, tc.args...)...)
			if code != tc.code || !strings.Contains(stderr, tc.want) {
				t.Errorf("exit %d, want %d; stderr does not say %q:\n%s", code, tc.code, tc.want, stderr)
			}
		})
	}
}

// TestSearchWhere: jarvis search --where keeps the notes a Bases filter
// lets through, as query-notes and the search tools read it.
func TestSearchWhere(t *testing.T) {
	vault := filepath.Join(t.TempDir(), "work")
	querytest.Write(t, vault)
	db := filepath.Join(t.TempDir(), "j.db")
	code, stdout, stderr := jarvis(t, nil, "search", "--vault", vault, "--db", db, "--json", "--mode", "keyword",
		"--where", `status == "active" && priority < 2`, "Draco Apollo")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var out struct {
		Results []struct{ Path string } `json:"results"`
	}
	if err := json.Unmarshal([]byte(stdout), &out); err != nil || len(out.Results) != 1 || out.Results[0].Path != "Projects/Draco.md" {
		t.Errorf("results %+v (%v)\n%s", out.Results, err, stdout)
	}
	code, _, stderr = jarvis(t, nil, "search", "--vault", vault, "--db", db, "--no-refresh", "--where", "status ==", "Draco")
	if code != 1 || !strings.Contains(stderr, "expression `status ==`, column 10") {
		t.Errorf("exit %d: %s", code, stderr)
	}
}

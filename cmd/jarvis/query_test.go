package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/jarvis-mcp/jarvis/internal/mcp"
	"github.com/jarvis-mcp/jarvis/internal/query/querytest"
	"github.com/jarvis-mcp/jarvis/internal/sharedtest"
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
		// "-priority" is descending, as many tools write it.
		{[]string{"--filter", `{"and": ["file.inFolder(\"Projects\")", "priority >= 2"]}`, "--sort", "-priority", "--property", "file.name"},
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
	// No match reads as a sentence, not an empty table and "0 of 0 shown".
	code, stdout, stderr = jarvis(t, nil, "query", "--vault", vault, "--db", db, "--no-refresh", "--filter", `file.name == "nothing by this name"`)
	if code != 0 || strings.TrimSpace(stdout) != "No note or file matches the query." {
		t.Errorf("no match: exit %d (%s):\n%s", code, stderr, stdout)
	}

	for _, tc := range []struct {
		name string
		args []string
		code int
		want string
	}{
		{"neither", nil, 2, "give --base FILE or --filter EXPRESSION"},
		{"broken", []string{"--filter", "status == "}, 2, "jarvis: --filter `status ==`, column 10: expected a value"},
		{"mistyped field", []string{"--filter", `file.nmae == "x"`}, 2, `did you mean "name"`},
		{"unknown view", []string{"--base", "Bases/Daily.base", "--view", "Later"}, 1, `its views are "Moods"`},
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
	if code != 2 || !strings.Contains(stderr, "--where `status ==`, column 10") {
		t.Errorf("exit %d: %s", code, stderr)
	}
}

// TestQueryMessagesANewUserMeets: the words of jarvis query (and of a bad
// --where of jarvis search) for the mistakes a newcomer makes, read as
// printed, with the exit status a script can branch on.
func TestQueryMessagesANewUserMeets(t *testing.T) {
	vault := filepath.Join(t.TempDir(), "work")
	querytest.Write(t, vault)
	sharedtest.WriteFile(t, vault, "Bases/Broken.base", "views:\n  - type: table\n    name: Table\n    limit: ten\n")
	db := filepath.Join(t.TempDir(), "j.db")
	flags := []string{"--vault", vault, "--db", db}
	mustIndex(t, nil, flags...)
	for _, c := range []struct {
		name   string
		args   []string
		code   int
		stdout []string
		stderr []string
	}{
		{"neither base nor filter", []string{"query"}, 2, nil, []string{"give --base FILE or --filter EXPRESSION"}},
		{"sort direction", []string{"query", "--filter", "true", "--sort", "due:down"}, 2, nil, []string{"--sort due:down: write PROPERTY or PROPERTY:desc"}},
		{"base without .base", []string{"query", "--base", "Bases/Projects"}, 0, []string{"| Projects/Draco.md |"}, nil},
		{"note without .md", []string{"query", "--base", "Dashboard"}, 0, []string{"| Projects/Borealis.md |"}, nil},
		{"bad limit in a base", []string{"query", "--base", "Bases/Broken.base"}, 1, nil,
			[]string{`Bases/Broken.base, line 4: limit of view "Table" must be a whole number, got "ten"`}},
		{"unknown view", []string{"query", "--base", "Bases/Daily.base", "--view", "Later"}, 1, nil,
			[]string{`the base has no view "Later"; its views are "Moods"`}},
		{"unknown function", []string{"query", "--filter", "true", "--formula", "x=nosuch(status)", "--property", "formula.x"}, 2, nil,
			[]string{"formula \"x\": expression `nosuch(status)`, column 1: unknown function \"nosuch\""}},
		{"group summaries", []string{"query", "--base", "Bases/Projects.base", "--view", "By status"}, 0,
			[]string{"Average of priority: 1.75", "Average of priority in group done: 3"}, nil},
		{"bad where", []string{"search", "--where", "status ==", "coffee"}, 2, nil, []string{"jarvis: --where `status ==`, column 10: expected a value"}},
		// A mistake of the expression itself, whatever the note: found
		// when it is read, not blamed on the first note it runs on.
		{"misspelt field", []string{"query", "--filter", "file.name.lenght > 3"}, 2, nil,
			[]string{"--filter `file.name.lenght > 3`, column 11: a string has no field \"lenght\"; did you mean \"length\"?"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := readCLI(t, nil, append(append([]string{c.args[0]}, flags...), append([]string{"--no-refresh"}, c.args[1:]...)...)...)
			if r.code != c.code {
				t.Errorf("exit %d, want %d\n%s%s", r.code, c.code, r.stdout, r.stderr)
			}
			for _, w := range c.stdout {
				if !strings.Contains(r.stdout, w) {
					t.Errorf("stdout does not say %q:\n%s", w, r.stdout)
				}
			}
			for _, w := range c.stderr {
				if !strings.Contains(r.stderr, w) {
					t.Errorf("stderr does not say %q:\n%s", w, r.stderr)
				}
			}
			if strings.Contains(r.stderr, "(for ") {
				t.Errorf("an error of the expression blames a note:\n%s", r.stderr)
			}
		})
	}

	// Expressions with calls in them, whose echo the word checks would
	// read as an empty quotation, so they are checked without it: a
	// duration the expression writes is read with it (a usage error, exit
	// 2), and a mistake that depends on a note's values still names the
	// note (exit 1).
	for _, c := range []struct {
		expr string
		want []string
		note bool
		code int
	}{
		{`file.mtime > now() - "1 fortnight"`, []string{`column 20: "1 fortnight" is not a duration; write a number and a unit`,
			"the units are y, M, w, d, h, m, s, ms, or the words year, month,"}, false, 2},
		{`status * 2 > now().year`, []string{`column 8: cannot use "*" with a string and a number (for Projects/`}, true, 1},
	} {
		code, _, stderr := jarvis(t, nil, append(append([]string{"query"}, flags...), "--no-refresh", "--filter", c.expr)...)
		sharedtest.CheckWords(t, c.expr, strings.ReplaceAll(stderr, c.expr, "EXPR"))
		if code != c.code || strings.Contains(stderr, "(for ") != c.note {
			t.Errorf("%s: exit %d, want %d, naming a note %v:\n%s", c.expr, code, c.code, c.note, stderr)
		}
		for _, w := range c.want {
			if !strings.Contains(stderr, w) {
				t.Errorf("%s: stderr does not say %q:\n%s", c.expr, w, stderr)
			}
		}
	}
}

// TestQuerySummaryRounded: a summary line rounds its number for reading;
// --json keeps it whole.
func TestQuerySummaryRounded(t *testing.T) {
	vault := t.TempDir()
	for i, p := range []int{1, 2, 4} {
		os.WriteFile(filepath.Join(vault, fmt.Sprintf("N%d.md", i)), fmt.Appendf(nil, "---\npriority: %d\n---\n# N\n", p), 0o644)
	}
	os.WriteFile(filepath.Join(vault, "P.base"), []byte("views:\n  - type: table\n    name: All\n    order: [file.name]\n    summaries:\n      priority: Average\n"), 0o644)
	db := filepath.Join(t.TempDir(), "j.db")
	code, stdout, stderr := jarvis(t, nil, "query", "--vault", vault, "--db", db, "--base", "P.base")
	if code != 0 || !strings.Contains(stdout, "Average of priority: 2.33\n") {
		t.Errorf("exit %d (%s):\n%s", code, stderr, stdout)
	}
	code, stdout, stderr = jarvis(t, nil, "query", "--vault", vault, "--db", db, "--base", "P.base", "--json")
	if code != 0 || !strings.Contains(stdout, "2.3333333333333335") {
		t.Errorf("--json: exit %d (%s):\n%s", code, stderr, stdout)
	}
}

// TestQueryInNamesAVaultOrIsAUsageError: with several vaults, a query
// without --in, and one whose --in names no vault, are mistakes in the
// command (exit 2), said alike, with the names to choose "or" between
// (trial 23: the unknown name exited 1 and listed them with "and" in one
// message, "or" in the other).
func TestQueryInNamesAVaultOrIsAUsageError(t *testing.T) {
	a, b := filepath.Join(t.TempDir(), "work"), filepath.Join(t.TempDir(), "home")
	querytest.Write(t, a)
	querytest.Write(t, b)
	db := filepath.Join(t.TempDir(), "j.db")
	for _, c := range []struct {
		args []string
		want string
	}{
		{nil, `choose the one to query with --in, one of "work" or "home"`},
		{[]string{"--in", "help-en"}, `--in: there is no vault named "help-en"; use one of "work" or "home"`},
	} {
		code, _, stderr := jarvis(t, nil, append([]string{"query", "--vault", a, "--vault", b, "--db", db, "--filter", "priority >= 2"}, c.args...)...)
		if code != 2 || !strings.Contains(stderr, c.want) {
			t.Errorf("%q: exit %d, %q; want exit 2 with %q", c.args, code, stderr, c.want)
		}
	}
	if code, _, stderr := jarvis(t, nil, "query", "--vault", a, "--vault", b, "--db", db, "--filter", "priority >= 2", "--in", "home"); code != 0 {
		t.Errorf("--in home: exit %d: %s", code, stderr)
	}
}

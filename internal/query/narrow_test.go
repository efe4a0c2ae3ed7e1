package query_test

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/jarvis-mcp/jarvis/internal/bases"
	"github.com/jarvis-mcp/jarvis/internal/config"
	"github.com/jarvis-mcp/jarvis/internal/index"
	"github.com/jarvis-mcp/jarvis/internal/query"
	"github.com/jarvis-mcp/jarvis/internal/query/querytest"
	"github.com/jarvis-mcp/jarvis/internal/store"
	"github.com/jarvis-mcp/jarvis/internal/vault"
)

// mixedNotes are added to the querytest vault for the narrowing tests:
// the same properties holding text, numbers, booleans, dates with and
// without a time, links, lists, objects and null; tags and folders that
// differ by case or nesting.
var mixedNotes = map[string]string{
	"Projects/Sub/Eridanus.md": "---\nstatus: Active\ndue: \"2026-12-02\"\npriority: \"2\"\nowner: \"[[Grace]]\"\ntags: [Project/sub, WORK]\n---\n# Eridanus\n",
	"projects/lower.md":        "---\nstatus: [active, done]\ndue: 2026-12-02T10:00:00\npriority: [1, 2]\nowner: [\"[[Ada]]\", \"[[Grace]]\"]\ntags: [\"#project\"]\n---\n# lower\n",
	"Projects/Fornax.md":       "---\nstatus:\ndue: someday\npriority: 0\nowner: Ada\npublish: false\n---\n# Fornax #work/deep\n",
	"Projects/Gemini.md":       "---\nstatus: \"\"\ndue: 2026-11-30\npriority: -1.5\nowner:\n  name: Ada\npublish: true\n\"due date\": 2026-12-01\n---\n# Gemini\n",
	"Hydra.md":                 "---\nstatus: 1\npriority: \"1\"\ndue: 1764633600000\npublish: \"false\"\nmood: \"3\"\n---\n# Hydra\n",
	"Daily/Indus.md":           "---\nstatus: \"[[Apollo]]\"\nmood: 3.0\nrole: Engineer\n---\n# Indus #Win\n",
}

// narrowVault indexes the querytest vault with mixedNotes added.
func narrowVault(t *testing.T) *query.Vault {
	t.Helper()
	ctx := context.Background()
	dir := t.TempDir()
	root := filepath.Join(dir, "vault")
	querytest.Write(t, root)
	for rel, body := range mixedNotes {
		p := filepath.Join(root, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
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
	return v
}

// filterGen writes random filters from the pieces a filter is made of:
// properties read and compared with values of every type, on either side,
// file.hasTag, file.inFolder and file.hasProperty, statements that
// narrow nothing or fail on some files, joined by &&, || and !, and
// and/or/not groups.
type filterGen struct{ r *rand.Rand }

var (
	genProps  = []string{"status", "due", "priority", "owner", "publish", "mood", "role", "tags", "nothing"}
	genValues = []string{`"active"`, `"Active"`, `"done"`, `""`, `1`, `"1"`, `2`, `"2"`, `0`, `-1.5`, `3`, `"3"`, `true`, `false`,
		`"false"`, `null`, `"2026-12-02"`, `"2026-12-02 10:00"`, `date("2026-12-01")`, `date("2026-12-02")`, `today()`, `now()`,
		`today() + "2d"`, `"[[Ada]]"`, `"[[Grace]]"`, `"Ada"`, `"Apollo"`, `[1, 2]`, `["active", "done"]`, `duration("1d")`,
		`number("2")`, `max(1, 2)`, `list("project")`, `1764633600000`, `"someday"`, `"engineer"`, `"Engineer"`}
	genTags    = []string{`"project"`, `"Project"`, `"#project"`, `"project/sub"`, `"work"`, `"WORK"`, `"win"`, `""`, `"nope"`, `"work/deep"`}
	genFolders = []string{`"Projects"`, `"projects"`, `"Projects/"`, `"/"`, `""`, `"Daily"`, `"Projects/Sub"`, `"Proj"`, `"People"`}
	genOps     = []string{"==", "!=", "<", ">", "<=", ">="}
	// Statements no index answers, some failing on some files.
	genOpaque = []string{`file.name.contains("a")`, `status.contains("act")`, `number(priority) > 1`, `priority + 1 > 2`,
		`file.links.length > 0`, `owner.asFile().name == "Ada.md"`, `due.year == 2026`, `this.status == status`,
		`tags.contains("work")`, `!status`, `file.hasLink("Apollo")`, `date(due) < today()`, `status == this.focus`}
)

func (g filterGen) pick(list []string) string { return list[g.r.IntN(len(list))] }

func (g filterGen) property() string {
	p := g.pick(genProps)
	switch g.r.IntN(3) {
	case 0:
		return "note." + p
	case 1:
		return fmt.Sprintf("note[%q]", p)
	}
	if p == "due" && g.r.IntN(2) == 0 {
		return `note["due date"]`
	}
	return p
}

func (g filterGen) statement() string {
	switch g.r.IntN(8) {
	case 0:
		return g.property()
	case 1, 2:
		if g.r.IntN(2) == 0 {
			return g.pick(genValues) + " " + g.pick(genOps) + " " + g.property()
		}
		return g.property() + " " + g.pick(genOps) + " " + g.pick(genValues)
	case 3:
		tags := []string{g.pick(genTags)}
		for g.r.IntN(3) == 0 {
			tags = append(tags, g.pick(genTags))
		}
		return "file.hasTag(" + strings.Join(tags, ", ") + ")"
	case 4:
		return "file.inFolder(" + g.pick(genFolders) + ")"
	case 5:
		return fmt.Sprintf("file.hasProperty(%q)", g.pick(genProps))
	case 6:
		return g.pick(genOpaque)
	}
	return g.property() + " " + g.pick(genOps) + " " + g.property()
}

func (g filterGen) expr(depth int) string {
	if depth == 0 || g.r.IntN(3) == 0 {
		return g.statement()
	}
	switch g.r.IntN(4) {
	case 0:
		return "(" + g.expr(depth-1) + ") && (" + g.expr(depth-1) + ")"
	case 1:
		return "(" + g.expr(depth-1) + ") || (" + g.expr(depth-1) + ")"
	case 2:
		return "!(" + g.expr(depth-1) + ")"
	}
	return g.expr(depth-1) + " && " + g.expr(depth-1)
}

func (g filterGen) filter(depth int) *bases.Filter {
	if depth == 0 || g.r.IntN(2) == 0 {
		return &bases.Filter{Expr: bases.MustParse(g.expr(2))}
	}
	subs := make([]*bases.Filter, 1+g.r.IntN(3))
	for i := range subs {
		subs[i] = g.filter(depth - 1)
	}
	switch g.r.IntN(3) {
	case 0:
		return &bases.Filter{And: subs}
	case 1:
		return &bases.Filter{Or: subs}
	}
	return &bases.Filter{Not: subs}
}

func describeFilter(f *bases.Filter) string {
	var group []*bases.Filter
	var op string
	switch {
	case f.Expr != nil:
		return f.Expr.String()
	case f.And != nil:
		group, op = f.And, "and"
	case f.Or != nil:
		group, op = f.Or, "or"
	default:
		group, op = f.Not, "not"
	}
	parts := make([]string, len(group))
	for i, g := range group {
		parts[i] = describeFilter(g)
	}
	return op + "[" + strings.Join(parts, "; ") + "]"
}

// TestCandidatesHoldEveryFileAFilterPassesOrFailsOn: over generated
// filters, every file the filter lets through or fails on, evaluated
// on its own, is among Vault.Candidates, which are in path order; so a
// view or a where evaluated on the candidates alone gives the same files
// and the same errors.
func TestCandidatesHoldEveryFileAFilterPassesOrFailsOn(t *testing.T) {
	v := narrowVault(t)
	this, _ := v.File("Dashboard.md")
	g := filterGen{rand.New(rand.NewPCG(1, 22))}
	var narrowed, failing int
	for i := range 3000 {
		f := g.filter(2)
		env := &bases.Env{Now: querytest.Now, Resolve: v.Resolve}
		if i%2 == 0 {
			env.This = this
		}
		cands := v.Candidates(env, f)
		in := map[string]bool{}
		for _, c := range cands {
			in[c.Path()] = true
		}
		if !slices.IsSortedFunc(cands, func(a, b *query.File) int { return strings.Compare(a.Path(), b.Path()) }) {
			t.Fatalf("filter %s: candidates out of path order", describeFilter(f))
		}
		for _, file := range v.Files {
			ok, err := query.Match(env, f, file)
			if (ok || err != nil) && !in[file.Path()] {
				t.Fatalf("filter %s: %s passes (%v) or fails (%v) but is not a candidate", describeFilter(f), file.Path(), ok, err)
			}
			if err != nil {
				failing++
			}
		}
		if len(cands) < len(v.Files) {
			narrowed++
		}
	}
	// The test means something only if many filters are narrowed and
	// some fail on some files.
	if narrowed < 1000 || failing == 0 {
		t.Fatalf("%d of 3000 filters narrowed, %d failures: the generator no longer tries what it should", narrowed, failing)
	}
}

// TestCandidatesOfSimpleStatements: a comparison with a value, a tag and
// a folder keep to the files that can pass; values that are not plain
// (a list, a link) stay candidates.
func TestCandidatesOfSimpleStatements(t *testing.T) {
	v := narrowVault(t)
	env := &bases.Env{Now: querytest.Now, Resolve: v.Resolve}
	cases := []struct {
		filter string
		want   []string
	}{
		{`status == "active"`, []string{"Projects/Apollo.md", "Projects/Borealis.md", "Projects/Draco.md", "Daily/Indus.md", "projects/lower.md"}},
		{`priority < 2 && file.hasTag("project")`, []string{"Projects/Borealis.md", "Projects/Draco.md", "projects/lower.md"}},
		{`file.inFolder("Projects/Sub") || file.hasTag("win")`, []string{"Daily/2026-11-27.md", "Daily/Indus.md", "Projects/Sub/Eridanus.md"}},
		{`due < date("2026-12-01")`, []string{"Projects/Cygnus.md", "Projects/Draco.md", "Projects/Gemini.md"}},
		{`publish`, []string{"Hydra.md", "Projects/Gemini.md"}},
	}
	for _, c := range cases {
		var got []string
		for _, f := range v.Candidates(env, &bases.Filter{Expr: bases.MustParse(c.filter)}) {
			got = append(got, f.Path())
		}
		slices.Sort(got)
		slices.Sort(c.want)
		if !slices.Equal(got, c.want) {
			t.Errorf("%s: candidates %q, want %q", c.filter, got, c.want)
		}
	}
}

// TestCandidatesSharedBetweenCalls: calls at the same time on one vault
// (query-notes and where share its snapshot) build its postings once and
// get the answers a lone call gets. Run under -race.
func TestCandidatesSharedBetweenCalls(t *testing.T) {
	filters := []string{`status == "active"`, `file.hasTag("project")`, `file.inFolder("Projects")`, `priority > 1 || file.hasTag("win")`}
	paths := func(v *query.Vault, filter string) []string {
		env := &bases.Env{Now: querytest.Now, Resolve: v.Resolve}
		var out []string
		for _, f := range v.Candidates(env, &bases.Filter{Expr: bases.MustParse(filter)}) {
			out = append(out, f.Path())
		}
		return out
	}
	alone := narrowVault(t)
	want := map[string][]string{}
	for _, f := range filters {
		want[f] = paths(alone, f)
	}
	shared := narrowVault(t)
	got := make([][]string, 4*len(filters))
	done := make(chan int)
	for i := range got {
		go func() {
			got[i] = paths(shared, filters[i%len(filters)])
			done <- i
		}()
	}
	for range got {
		<-done
	}
	for i, g := range got {
		if f := filters[i%len(filters)]; !slices.Equal(g, want[f]) {
			t.Errorf("%s: %q at the same time as other calls, %q alone", f, g, want[f])
		}
	}
}

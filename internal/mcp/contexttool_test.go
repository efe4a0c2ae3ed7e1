package mcp_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	mcpsdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/jarvis-mcp/jarvis/internal/config"
	"github.com/jarvis-mcp/jarvis/internal/contextpack"
	"github.com/jarvis-mcp/jarvis/internal/mcp"
	"github.com/jarvis-mcp/jarvis/internal/sharedtest"
	"github.com/jarvis-mcp/jarvis/internal/words"
)

// buildContext calls build-context and fails the test on a tool error.
func buildContext(t *testing.T, cs *mcpsdk.ClientSession, args map[string]any) (mcp.BuildContextOutput, string) {
	t.Helper()
	var out mcp.BuildContextOutput
	text, isErr := call(t, cs, mcp.ToolBuildContext, args, &out)
	if isErr {
		t.Fatalf("build-context %v: %s", args, text)
	}
	return out, text
}

// checkPack checks what every pack must hold: the passages cost what the
// README says (their citation line, a line break and their text, 4
// characters a token, rounded up), together at most the budget; each is
// whole lines of its note that begin and end a paragraph; the text shows
// each passage as counted; and read-note, given the passage's vault, path
// and heading, returns a section holding it.
func checkPack(t *testing.T, cs *mcpsdk.ClientSession, root string, out mcp.BuildContextOutput, text string, budget int) {
	t.Helper()
	sum := 0
	for _, p := range out.Passages {
		want := (utf8.RuneCountInString(p.Citation+"\n"+p.Text) + 3) / 4
		if p.Tokens != want {
			t.Errorf("%s costs %d tokens; its citation and text make %d", p.Citation, p.Tokens, want)
		}
		sum += p.Tokens
		if !strings.Contains(text, p.Citation+"\n"+p.Text+"\n") {
			t.Errorf("the text does not show %s as counted", p.Citation)
		}
		data, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(p.Path)))
		if err != nil {
			t.Fatal(err)
		}
		lines := strings.Split(string(data), "\n")
		if p.StartLine < 1 || p.EndLine > len(lines) || p.StartLine > p.EndLine {
			t.Fatalf("%s: lines %d-%d of a note of %d lines", p.Citation, p.StartLine, p.EndLine, len(lines))
		}
		if got := strings.Join(lines[p.StartLine-1:p.EndLine], "\n"); got != p.Text {
			t.Errorf("%s: the passage is not lines %d-%d of the note:\n%q\nwant\n%q", p.Citation, p.StartLine, p.EndLine, p.Text, got)
		}
		// Whole: a blank line, a heading or the frontmatter's end comes
		// before it, and a blank line, a heading or the note's end after.
		if p.StartLine > 1 {
			if before := lines[p.StartLine-2]; strings.TrimSpace(before) != "" && before != "---" && !strings.HasPrefix(before, "#") {
				t.Errorf("%s starts mid-paragraph, after %q", p.Citation, before)
			}
		}
		if p.EndLine < len(lines) {
			if after := lines[p.EndLine]; strings.TrimSpace(after) != "" && !strings.HasPrefix(after, "#") {
				t.Errorf("%s ends mid-paragraph, before %q", p.Citation, after)
			}
		}
		var note mcp.ReadNoteOutput
		args := map[string]any{"path": p.Path, "vault": p.Vault, "max_chars": 100000}
		if p.Heading != "" {
			args["heading"] = p.Heading
		}
		if text, isErr := call(t, cs, mcp.ToolReadNote, args, &note); isErr || !strings.Contains(note.Content, p.Text) {
			t.Errorf("read-note %v does not hold %s: %s", args, p.Citation, text)
		}
	}
	// A budget larger than half the answer ceiling is lowered to fit it,
	// and the answer says so.
	if budget > contextBudgetFit {
		budget = contextBudgetFit
		if !strings.Contains(text, "budget_tokens was lowered") {
			t.Errorf("the budget was lowered without a word: %s", text)
		}
	}
	if sum != out.TokensUsed || out.TokensUsed > budget || out.BudgetTokens != budget {
		t.Errorf("passages cost %d, tokens_used %d, budget %d of %d asked", sum, out.TokensUsed, out.BudgetTokens, budget)
	}
	if len(out.LeftOut) > contextpack.MaxLeftOut {
		t.Errorf("%d left out listed; at most %d", len(out.LeftOut), contextpack.MaxLeftOut)
	}
	// Grouped by note, in document order within each.
	seen := map[string]bool{}
	for i, p := range out.Passages {
		if i > 0 && out.Passages[i-1].Path == p.Path {
			if out.Passages[i-1].EndLine >= p.StartLine {
				t.Errorf("%s comes after %s", p.Citation, out.Passages[i-1].Citation)
			}
			continue
		}
		if seen[p.Vault+"/"+p.Path] {
			t.Errorf("the passages of %s are not together", p.Path)
		}
		seen[p.Vault+"/"+p.Path] = true
	}
}

func TestBuildContext(t *testing.T) {
	v := exampleVault(t)
	// A note repeating a section of another, to be dropped as a duplicate.
	pour, err := os.ReadFile(filepath.Join(v.Path, "Methods", "Pour over.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, tips, _ := strings.Cut(string(pour), "## Troubleshooting\n")
	sharedtest.WriteFile(t, v.Path, "Copied tips.md", "# Copied tips\n\nFrom the pour over note:\n\n"+tips)
	cs := connect(t, realBackend(t, filepath.Join(t.TempDir(), "j.db"), true, v))

	t.Run("budget", func(t *testing.T) {
		for _, budget := range []int{200, 333, 1000, 4000} {
			out, text := buildContext(t, cs, map[string]any{"query": "how fine should I grind for pour over", "budget_tokens": budget})
			if len(out.Passages) == 0 || out.Degraded {
				t.Fatalf("budget %d: %s", budget, text)
			}
			checkPack(t, cs, v.Path, out, text, budget)
			reasons := map[string]int{}
			for _, l := range out.LeftOut {
				reasons[l.Reason]++
			}
			if budget == 200 && reasons[contextpack.OverBudget] == 0 {
				t.Errorf("budget 200 left nothing out as over budget: %+v", out.LeftOut)
			}
		}
	})
	t.Run("default budget", func(t *testing.T) {
		out, text := buildContext(t, cs, map[string]any{"query": "water temperature for brewing"})
		checkPack(t, cs, v.Path, out, text, contextpack.DefaultBudget)
	})
	t.Run("duplicates and weak matches", func(t *testing.T) {
		out, text := buildContext(t, cs, map[string]any{"query": "sour bitter grind finer or coarser, stalls", "budget_tokens": 4000})
		checkPack(t, cs, v.Path, out, text, 4000)
		var from []string
		for _, p := range out.Passages {
			if strings.Contains(p.Text, "Stalls and drains slowly") {
				from = append(from, p.Path)
			}
		}
		if len(from) != 1 {
			t.Fatalf("the troubleshooting list is given %d times (%v); want once:\n%s", len(from), from, text)
		}
		dup := slices.IndexFunc(out.LeftOut, func(l mcp.ContextLeftOut) bool { return l.Reason == contextpack.Duplicate })
		if dup < 0 {
			t.Fatalf("no duplicate left out:\n%s", text)
		}
		if l := out.LeftOut[dup]; l.Path == from[0] || !slices.Contains([]string{"Copied tips.md", "Methods/Pour over.md"}, l.Path) {
			t.Fatalf("left out as a duplicate: %+v; given from %s", l, from[0])
		}
		weak := slices.IndexFunc(out.LeftOut, func(l mcp.ContextLeftOut) bool { return l.Reason == contextpack.WeakMatch })
		if weak < 0 || !strings.Contains(text, ": weak match\n") || !strings.Contains(text, ": duplicate\n") {
			t.Fatalf("no weak match left out, or the text does not say so:\n%s", text)
		}
	})
	t.Run("paths", func(t *testing.T) {
		out, text := buildContext(t, cs, map[string]any{"query": "descaling", "paths": []string{"Scale"}, "budget_tokens": 1000})
		checkPack(t, cs, v.Path, out, text, 1000)
		if !slices.ContainsFunc(out.Passages, func(p mcp.ContextPassage) bool { return p.Path == "Gear/Scale.md" }) {
			t.Fatalf("the note given in paths gave no passage:\n%s", text)
		}
	})
	t.Run("nothing matches", func(t *testing.T) {
		out, text := buildContext(t, cs, map[string]any{"query": "florbizzle quantamax zorptic"})
		if len(out.Passages) != 0 || out.TokensUsed != 0 || !strings.Contains(out.Empty, "No passage") || !strings.Contains(text, out.Empty) {
			t.Fatalf("invented words: %+v\n%s", out, text)
		}
	})
	t.Run("bad arguments", func(t *testing.T) {
		for _, tc := range []struct {
			args map[string]any
			want string
		}{
			{map[string]any{"query": "grind", "budget_tokens": 100}, "budget_tokens must be at least 200; got 100"},
			{map[string]any{"query": "grind", "budget_tokens": 50000}, "budget_tokens must be at most 20000"},
			{map[string]any{"query": "grind", "paths": []string{"No such note at all"}}, "paths takes the vault-relative paths"},
			{map[string]any{"query": "  "}, "query is empty"},
			{map[string]any{"query": "grind", "vault": "nope"}, `did you mean "coffee"?`},
			{map[string]any{"query": "grind", "paths": make([]string, 21)}, "paths"},
			{map[string]any{"query": "grind", "paths": []string{"../../etc/passwd"}}, "no note matches"},
			{map[string]any{"query": "grind", "budget_tokens": 1e9}, "budget_tokens must be at most 20000"},
		} {
			text, isErr := call(t, cs, mcp.ToolBuildContext, tc.args, nil)
			if !isErr || !strings.Contains(text, tc.want) {
				t.Errorf("%v: error %v, %q; want an error saying %q", tc.args, isErr, text, tc.want)
			}
		}
	})
}

// TestBuildContextFollowsLinks: a note the best notes link to gives its
// passages even when search ranks it below the notes it reads. Twenty-five
// notes about kettle temperatures outrank Kettle for the query; Kettle is
// read only when a note linking to it is among those the pack starts from.
func TestBuildContextFollowsLinks(t *testing.T) {
	v := exampleVault(t)
	for i := range 25 {
		sharedtest.WriteFile(t, v.Path, fmt.Sprintf("Log/Kettle temperature %02d.md", i),
			fmt.Sprintf("# Kettle temperature %02d\n\nKettle temperature log %d: the kettle at %d °C, water temperature checked twice.\n", i, i, 80+i))
	}
	cs := connect(t, realBackend(t, filepath.Join(t.TempDir(), "j.db"), true, v))
	query := "kettle water temperature"
	var found mcp.SearchOutput
	call(t, cs, mcp.ToolSearchCombined, map[string]any{"query": query, "limit": 20}, &found)
	for _, r := range found.Results {
		if r.Path == "Gear/Kettle.md" {
			t.Fatalf("search ranks Kettle among the best 20; the test needs it below them")
		}
	}
	kettle := func(out mcp.BuildContextOutput) []mcp.ContextPassage {
		var ps []mcp.ContextPassage
		for _, p := range out.Passages {
			if p.Path == "Gear/Kettle.md" {
				ps = append(ps, p)
			}
		}
		return ps
	}
	out, text := buildContext(t, cs, map[string]any{"query": query, "budget_tokens": 20000})
	if len(kettle(out)) != 0 {
		t.Fatalf("Kettle is given though no note read links to it:\n%s", text)
	}
	out, text = buildContext(t, cs, map[string]any{"query": query, "budget_tokens": 20000, "paths": []string{"Methods/Pour over.md"}})
	checkPack(t, cs, v.Path, out, text, 20000)
	ps := kettle(out)
	if len(ps) == 0 || ps[0].Via != "Methods/Pour over.md" {
		t.Fatalf("Kettle, linked from Pour over, is not given by the link:\n%s", text)
	}
}

// TestBuildContextDegrades: without vectors the pack is chosen by
// keywords, and without the index from the note files; each says so.
func TestBuildContextDegrades(t *testing.T) {
	v := exampleVault(t)
	cfg := config.Config{DBPath: filepath.Join(t.TempDir(), "j.db"), Vaults: []config.Vault{v},
		Embedder: config.Embedder{Provider: config.ProviderOllama, URL: "http://127.0.0.1:1"}}
	deps := startServer(t, cfg)
	deps.Live.All(context.Background()) // the notes are indexed; their vectors cannot be made
	cs := connect(t, real{deps})
	out, text := buildContext(t, cs, map[string]any{"query": "how fine should I grind for pour over", "budget_tokens": 1000})
	if !out.Degraded || !strings.Contains(text, "> Degraded:") || len(out.Passages) == 0 {
		t.Fatalf("without vectors: degraded %v (%s):\n%s", out.Degraded, out.DegradedReason, text)
	}
	checkPack(t, cs, v.Path, out, text, 1000)

	cs = connect(t, realBackend(t, t.TempDir(), false, v)) // the database is a folder
	out, text = buildContext(t, cs, map[string]any{"query": "french press", "budget_tokens": 1000})
	if !out.Degraded || !strings.Contains(out.DegradedReason, "index cannot be read") || len(out.Passages) == 0 {
		t.Fatalf("without the index: degraded %v (%s):\n%s", out.Degraded, out.DegradedReason, text)
	}
	checkPack(t, cs, v.Path, out, text, 1000)
}

// TestBuildContextWithoutItsBackend: a server without the capability
// still lists the tool, and a call says what still works.
func TestBuildContextWithoutItsBackend(t *testing.T) {
	cs := connect(t, &fake{Vaults: []config.Vault{exampleVault(t)}})
	text, isErr := call(t, cs, mcp.ToolBuildContext, map[string]any{"query": "grind"}, nil)
	if !isErr || !strings.Contains(text, "not available") || !strings.Contains(text, "read-note") {
		t.Fatalf("error %v, %q", isErr, text)
	}
}

// contextBudgetFit is the largest budget an answer under the default
// ceiling holds: half of it, less the overhead besides the passages.
const contextBudgetFit = 7500

// TestBuildContextNeverGivesAndLeavesOutTheSameLines: a question the
// Obsidian Help vault does not answer, under a small budget, packs parts of
// sections too large for it; the lines given are never also said to be
// left out, in the structured content or in the text.
func TestBuildContextNeverGivesAndLeavesOutTheSameLines(t *testing.T) {
	help := config.Vault{Name: "help", Path: sharedtest.Path(t, "vaults/obsidian-help/en")}
	cs := connect(t, realBackend(t, filepath.Join(t.TempDir(), "j.db"), true, help, exampleVault(t)))
	out, text := buildContext(t, cs, map[string]any{"query": "Where is the third shard of the crown and who wants it?", "budget_tokens": 600})
	checkPack(t, cs, help.Path, out, text, 600)
	parts := 0
	for _, p := range out.Passages {
		if p.Part {
			parts++
		}
		for _, l := range out.LeftOut {
			if l.Vault == p.Vault && l.Path == p.Path && l.StartLine <= p.EndLine && p.StartLine <= l.EndLine {
				t.Errorf("%s is given, and lines %d-%d of %s are left out: %s", p.Citation, l.StartLine, l.EndLine, l.Path, l.Reason)
			}
		}
	}
	if parts == 0 {
		t.Fatalf("no part of a section was given; the test needs one:\n%s", text)
	}
	// The text lists each left-out passage as the structured content
	// does, and says of the rest of a section given in part that the
	// other lines are given.
	rest := 0
	// (The sections it names are those of the passage's citation; the
	// structured content has the heading to read them from.)
	for _, l := range out.LeftOut {
		where := "- `" + l.Path + "`"
		line := fmt.Sprintf(", %s (%s): %s", words.LineRange(l.StartLine, l.EndLine), words.Count(l.Tokens, "token"), l.Reason)
		if l.Part {
			rest++
			line += "; other lines of this section are given above"
		}
		if !slices.ContainsFunc(strings.Split(text, "\n"), func(s string) bool {
			return strings.HasPrefix(s, where) && strings.HasSuffix(s, line)
		}) {
			t.Errorf("the text does not list %s…%s:\n%s", where, line, text)
		}
	}
	if rest == 0 {
		t.Errorf("the rest of no section given in part is left out:\n%s", text)
	}
}

// A passage that runs from one section into the next is cited by both, as
// search labels it, in its citation and in the left-out list, while its
// heading stays a section read-note reads it from.
func TestBuildContextCitesEverySectionAPassageCovers(t *testing.T) {
	root := t.TempDir()
	incident := func(title string) string {
		return "---\ndate: 2026-11-22\ntags: [incident]\n---\n# " + title + "\n\n## Timeline\n\n" +
			"- 09:12 the ingest lag alarm fired: queue shard three stalled behind a poisoned batch, the consumers " +
			"retried it without end, the backlog grew past two million events, and the dashboards showed data an hour " +
			"old until the batch was moved aside by hand and the shard drained on its own within forty minutes.\n\n" +
			"## Follow-up\n\nWrite the runbook for draining a stalled shard.\n"
	}
	sharedtest.WriteFile(t, root, "Incidents/2026-11-22 Ingest lag.md", incident("2026-11-22 Ingest lag"))
	// The same text under another title, left out as a duplicate.
	sharedtest.WriteFile(t, root, "Incidents/Ingest lag copy.md", incident("Ingest lag copy"))
	v := config.Vault{Name: "ops", Path: root}
	cs := connect(t, realBackend(t, filepath.Join(t.TempDir(), "j.db"), true, v))
	out, text := buildContext(t, cs, map[string]any{"query": "ingest lag alarm poisoned batch shard", "budget_tokens": 1000})
	checkPack(t, cs, root, out, text, 1000)
	labels := map[string]string{
		"Incidents/2026-11-22 Ingest lag.md": "2026-11-22 Ingest lag, then Timeline",
		"Incidents/Ingest lag copy.md":       "Ingest lag copy, then Timeline",
	}
	given, left := 0, 0
	for _, p := range out.Passages {
		if p.StartLine != 5 {
			continue
		}
		given++
		if want := fmt.Sprintf("[ops] %s § %s, lines 5-9", p.Path, labels[p.Path]); p.Citation != want {
			t.Errorf("citation %q; want %q", p.Citation, want)
		}
		if want := strings.TrimSuffix(labels[p.Path], ", then Timeline"); p.Heading != want {
			t.Errorf("%s: heading %q; want %q, the section read-note reads it from", p.Citation, p.Heading, want)
		}
	}
	for _, l := range out.LeftOut {
		if l.StartLine != 5 {
			continue
		}
		left++
		if line := fmt.Sprintf("- `%s` § %s, lines 5-9 (", l.Path, labels[l.Path]); !strings.Contains(text, line) {
			t.Errorf("the text does not list %q:\n%s", line, text)
		}
	}
	if given != 1 || left != 1 {
		t.Fatalf("%d passages of lines 5-9 given and %d left out; the test needs one of each:\n%s", given, left, text)
	}
}

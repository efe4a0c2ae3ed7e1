package mcp_test

import (
	"bufio"
	"context"
	"database/sql"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	mcpsdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/jarvis-mcp/jarvis/internal/config"
	"github.com/jarvis-mcp/jarvis/internal/container"
	"github.com/jarvis-mcp/jarvis/internal/mcp"
	"github.com/jarvis-mcp/jarvis/internal/metrics"
	"github.com/jarvis-mcp/jarvis/internal/search"
	"github.com/jarvis-mcp/jarvis/internal/search/notes"
	"github.com/jarvis-mcp/jarvis/internal/sharedtest"
)

var update = flag.Bool("update", false, "rewrite the golden tool list in testdata")

func quiet() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

// exampleVault copies examples/vault into a temp folder, so tests may
// change it.
func exampleVault(t *testing.T) config.Vault {
	t.Helper()
	src, err := filepath.Abs("../../examples/vault")
	if err != nil {
		t.Fatal(err)
	}
	dst := filepath.Join(t.TempDir(), "vault")
	sharedtest.CopyTree(t, src, dst)
	return config.Vault{Name: "coffee", Path: dst}
}

// realBackend wires the server exactly as `jarvis mcp` does, over the
// given vaults and database, and indexes them once when index is true.
func realBackend(t testing.TB, dbPath string, index bool, vaults ...config.Vault) backend {
	t.Helper()
	cfg := config.Config{DBPath: dbPath, Vaults: vaults, Embedder: config.Embedder{Provider: config.ProviderLexical}}
	deps := startServer(t, cfg)
	if index {
		if err := deps.Live.All(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
	return real{deps}
}

// startServer starts the services of `jarvis mcp` for cfg, stopped when
// the test ends.
func startServer(t testing.TB, cfg config.Config) container.MCPDeps {
	t.Helper()
	var deps container.MCPDeps
	app := container.NewMCPApp(cfg, quiet(), &deps)
	if err := container.Err(app); err != nil {
		t.Fatal(err)
	}
	if err := app.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { app.Stop(context.Background()) })
	return deps
}

// connect runs the server over b on in-memory transports and returns a
// connected client session.
func connect(t *testing.T, b backend) *mcpsdk.ClientSession {
	t.Helper()
	return connectWith(t, b, mcp.Options{Version: "test", Logger: quiet()})
}

// connectWith is connect with the server's options given.
func connectWith(t *testing.T, b backend, opts mcp.Options) *mcpsdk.ClientSession {
	t.Helper()
	ctx := context.Background()
	server := b.server(opts)
	st, ct := mcpsdk.NewInMemoryTransports()
	ss, err := server.Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ss.Close() })
	client := mcpsdk.NewClient(&mcpsdk.Implementation{Name: "test", Version: "1"}, nil)
	cs, err := client.Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

// call calls a tool and decodes its structured content into out (when not
// nil). It returns the text content and whether the result is an error.
func call(t *testing.T, cs *mcpsdk.ClientSession, name string, args map[string]any, out any) (string, bool) {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcpsdk.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("%s: protocol error %v", name, err)
	}
	var text strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*mcpsdk.TextContent); ok {
			text.WriteString(tc.Text)
		}
	}
	if !res.IsError && out != nil {
		data, err := json.Marshal(res.StructuredContent)
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(data, out); err != nil {
			t.Fatalf("%s: structured content %s: %v", name, data, err)
		}
	}
	return text.String(), res.IsError
}

func TestToolListGolden(t *testing.T) {
	cs := connect(t, &fake{})
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	got, err := json.MarshalIndent(res.Tools, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	checkGolden(t, "tools.golden.json", "the tool list changed", got)
}

func TestEveryToolStatesItsAnnotations(t *testing.T) {
	cs := connect(t, &fake{})
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{mcp.ToolBuildContext, mcp.ToolHealthStatus, mcp.ToolListVaults, mcp.ToolPeriodicNote, mcp.ToolQueryNotes, mcp.ToolReadNote, mcp.ToolRelatedNotes, mcp.ToolSearchCombined, mcp.ToolSearchGraph, mcp.ToolSearchSemantic, mcp.ToolSearchVault}
	if len(res.Tools) != len(want) {
		t.Fatalf("%d tools; want %v", len(res.Tools), want)
	}
	for i, tool := range res.Tools {
		if tool.Name != want[i] {
			t.Errorf("tool %d is %q; want %q", i, tool.Name, want[i])
		}
		a := tool.Annotations
		if a == nil || !a.ReadOnlyHint || a.OpenWorldHint == nil || *a.OpenWorldHint || a.Title == "" {
			t.Errorf("%s: annotations %+v; want read-only, closed-world, titled", tool.Name, a)
		}
		if tool.OutputSchema == nil {
			t.Errorf("%s has no output schema", tool.Name)
		}
		if len(tool.Description) < 80 {
			t.Errorf("%s: description %q is too short to tell a model when to use it", tool.Name, tool.Description)
		}
	}
}

func TestToolsOnTheExampleVault(t *testing.T) {
	v := exampleVault(t)
	cs := connect(t, realBackend(t, filepath.Join(t.TempDir(), "j.db"), true, v))

	t.Run("search-vault", func(t *testing.T) {
		var out mcp.SearchOutput
		text, isErr := call(t, cs, mcp.ToolSearchVault, map[string]any{"query": "french press"}, &out)
		if isErr || len(out.Results) == 0 || out.Results[0].Path != "Methods/French press.md" {
			t.Fatalf("results %+v (error %v): %s", out.Results, isErr, text)
		}
		if out.Degraded || out.Results[0].Vault != "coffee" || !strings.Contains(text, "Methods/French press.md") {
			t.Fatalf("degraded %v, vault %q, text %q", out.Degraded, out.Results[0].Vault, text)
		}
	})
	t.Run("search-vault names only", func(t *testing.T) {
		var out mcp.SearchOutput
		call(t, cs, mcp.ToolSearchVault, map[string]any{"query": "grinder", "search_content": false}, &out)
		if len(out.Results) != 1 || out.Results[0].Path != "Gear/Grinder.md" {
			t.Fatalf("names-only results %+v", out.Results)
		}
	})
	t.Run("search-semantic", func(t *testing.T) {
		var out mcp.SearchOutput
		text, isErr := call(t, cs, mcp.ToolSearchSemantic, map[string]any{"query": "steeping coffee grounds in cold water overnight", "limit": 3}, &out)
		if isErr || out.Degraded || len(out.Results) == 0 || len(out.Results) > 3 {
			t.Fatalf("results %+v degraded %v: %s", out.Results, out.Degraded, text)
		}
		if out.Results[0].Path != "Methods/Cold brew.md" || !strings.HasPrefix(out.Embedder, "lexical/") {
			t.Fatalf("first %s, embedder %q", out.Results[0].Path, out.Embedder)
		}
		if !strings.Contains(text, "lexical (shared words and word pieces), not meaning") {
			t.Fatalf("the text does not say the similarity is lexical:\n%s", text)
		}
	})
	t.Run("search-combined", func(t *testing.T) {
		var out mcp.SearchOutput
		call(t, cs, mcp.ToolSearchCombined, map[string]any{"query": "water temperature for brewing"}, &out)
		if len(out.Results) == 0 || len(out.Results[0].Retrievers) == 0 {
			t.Fatalf("combined results %+v", out.Results)
		}
	})
	t.Run("search-graph", func(t *testing.T) {
		var out mcp.GraphOutput
		text, isErr := call(t, cs, mcp.ToolSearchGraph, map[string]any{"query_note_path": "Methods/Index.md", "depth": 1, "direction": "out"}, &out)
		if isErr || out.Start.Path != "Methods/Index.md" || len(out.Nodes) < 2 || len(out.Edges) == 0 {
			t.Fatalf("graph %+v: %s", out, text)
		}
		for _, n := range out.Nodes[1:] {
			if n.Depth != 1 {
				t.Fatalf("node %+v at depth %d", n, n.Depth)
			}
		}
	})
	t.Run("read-note", func(t *testing.T) {
		var out mcp.ReadNoteOutput
		text, isErr := call(t, cs, mcp.ToolReadNote, map[string]any{"path": "Methods/Pour over.md"}, &out)
		if isErr || out.Title != "Pour over" || !strings.Contains(out.Content, "## Troubleshooting") || len(out.Headings) == 0 {
			t.Fatalf("read-note %+v: %s", out, text)
		}
		if len(out.Backlinks) == 0 || out.Degraded {
			t.Fatalf("backlinks %v degraded %v (%s)", out.Backlinks, out.Degraded, out.DegradedReason)
		}
		// Pour over is linked once from each of 7 other notes; its own
		// [[#Troubleshooting]] is not a backlink.
		if !strings.Contains(text, "7 links linking here (from 7 notes):\n- `Beans/Ethiopia Guji.md` line 15\n") {
			t.Fatalf("read-note's backlinks:\n%s", text)
		}
		for _, bl := range out.Backlinks {
			if bl.Source == "Methods/Pour over.md" {
				t.Fatalf("the note's own link is listed as a backlink: %+v", bl)
			}
		}
		resolved := false
		for _, l := range out.Links {
			if l.Resolved != "" {
				resolved = true
			}
		}
		if !resolved {
			t.Fatalf("no link resolved: %+v", out.Links)
		}
	})
	t.Run("read-note section and pages", func(t *testing.T) {
		var out mcp.ReadNoteOutput
		text, _ := call(t, cs, mcp.ToolReadNote, map[string]any{"path": "Methods/Pour over.md", "heading": "troubleshooting"}, &out)
		if !strings.HasPrefix(out.Content, "## Troubleshooting") {
			t.Fatalf("section = %q", out.Content)
		}
		if !strings.Contains(text, "7 links linking here (from 7 notes); read the note without heading") || strings.Contains(text, "- `Beans/Ethiopia Guji.md` line") {
			t.Fatalf("a section read lists the whole note's backlinks:\n%s", text)
		}
		// A heading path as search results give it, and code marks, name
		// the same section.
		for _, heading := range []string{"Pour over > Troubleshooting", "`Troubleshooting`", "## troubleshooting"} {
			var again mcp.ReadNoteOutput
			if text, isErr := call(t, cs, mcp.ToolReadNote, map[string]any{"path": "Methods/Pour over.md", "heading": heading}, &again); isErr || again.Content != out.Content {
				t.Fatalf("heading %q: %s", heading, text)
			}
		}
		var page mcp.ReadNoteOutput
		call(t, cs, mcp.ToolReadNote, map[string]any{"path": "Coffee journal.md", "max_chars": 1000}, &page)
		n := len([]rune(page.Content))
		if page.TotalChars <= 1000 || page.NextOffset != n || n > 1000 || n < 500 || !strings.HasSuffix(page.Content, "\n") {
			t.Fatalf("first page: total %d next %d len %d, ends %q; want a page of 500 to 1000 characters ending at a line break",
				page.TotalChars, page.NextOffset, n, page.Content[max(0, len(page.Content)-20):])
		}
		var rest mcp.ReadNoteOutput
		call(t, cs, mcp.ToolReadNote, map[string]any{"path": "Coffee journal.md", "offset": page.NextOffset, "max_chars": 100000}, &rest)
		if rest.NextOffset != 0 || len([]rune(page.Content+rest.Content)) != page.TotalChars {
			t.Fatalf("second page: next %d, %d+%d of %d", rest.NextOffset, len([]rune(page.Content)), len([]rune(rest.Content)), page.TotalChars)
		}
	})
	t.Run("read-note by title", func(t *testing.T) {
		var out mcp.ReadNoteOutput
		if text, isErr := call(t, cs, mcp.ToolReadNote, map[string]any{"path": "French press"}, &out); isErr || out.Path != "Methods/French press.md" {
			t.Fatalf("by title: %+v %s", out.Path, text)
		}
	})
	t.Run("list-vaults", func(t *testing.T) {
		var out mcp.ListVaultsOutput
		call(t, cs, mcp.ToolListVaults, nil, &out)
		if len(out.Vaults) != 1 {
			t.Fatalf("vaults %+v", out.Vaults)
		}
		got := out.Vaults[0]
		if got.Name != "coffee" || got.Notes != 17 || got.Attachments != 1 || got.Links == 0 || got.Passages == 0 || got.IndexState != "ready" || got.LastIndexed == "" {
			t.Fatalf("vault %+v", got)
		}
	})
	t.Run("health-status", func(t *testing.T) {
		var out mcp.HealthOutput
		call(t, cs, mcp.ToolHealthStatus, nil, &out)
		if out.Status == "" || len(out.Checks) < 5 {
			t.Fatalf("health %+v", out)
		}
	})
}

func TestBadArgumentsGetInstructions(t *testing.T) {
	v := exampleVault(t)
	cs := connect(t, realBackend(t, filepath.Join(t.TempDir(), "j.db"), true, v))
	for _, tc := range []struct {
		tool string
		args map[string]any
		want string
	}{
		{mcp.ToolReadNote, map[string]any{"path": "Methods/Pour ovr.md"}, "Methods/Pour over.md"},
		{mcp.ToolReadNote, map[string]any{"path": "../../../etc/passwd"}, "outside the vault"},
		{mcp.ToolReadNote, map[string]any{"path": "Methods/Pour over.md", "heading": "No such heading"}, `its headings are "Pour over"`},
		{mcp.ToolSearchGraph, map[string]any{"query_note_path": "Methods/Index.md", "depth": 9}, "depth must be at most 5; got 9"},
		{mcp.ToolSearchGraph, map[string]any{"query_note_path": "Methods/Index.md", "direction": "sideways"}, `direction must be "out", "in" or "both"; got "sideways"`},
		{mcp.ToolBuildContext, map[string]any{"query": "grind", "paths": slices.Repeat([]any{"Methods/Index.md"}, 21)}, "paths takes at most 20 notes; got 21."},
		{mcp.ToolSearchVault, map[string]any{"query": "coffee", "limit": 1e6}, "limit must be at most 100; got 1000000."},
		{mcp.ToolSearchVault, map[string]any{"query": "   "}, "Invalid arguments: the query is empty. Give the words"},
		{mcp.ToolSearchGraph, map[string]any{"query_note_path": "Nonexistent thing"}, "no note matches"},
		{mcp.ToolSearchVault, map[string]any{"query": "coffee", "vault": "nope"}, `did you mean "coffee"?`},
		{mcp.ToolSearchVault, map[string]any{"query": "   "}, "query is empty"},
		{mcp.ToolSearchVault, map[string]any{}, "missing required argument query"},
		{mcp.ToolSearchSemantic, map[string]any{"query": "x", "similarity_threshold": 2}, "similarity_threshold must be at most 1"},
		{mcp.ToolSearchSemantic, map[string]any{"query": "x", "similarity_threshold": 1.5}, "similarity_threshold must be at most 1; got 1.5"},
		{mcp.ToolSearchSemantic, map[string]any{"query": "x", "similarity_threshold": -0.25}, "got -0.25"},
		{mcp.ToolSearchSemantic, map[string]any{"query": strings.Repeat("long ", 2001)}, "query must be at most 10000 characters long; it has 10005"},
		{mcp.ToolSearchVault, map[string]any{"query": ""}, "query must be at least 1 character long"},
	} {
		t.Run(tc.tool+" "+tc.want, func(t *testing.T) {
			text, isErr := call(t, cs, tc.tool, tc.args, nil)
			if !isErr || !strings.Contains(text, tc.want) {
				t.Fatalf("error %v, text %q; want an error saying %q", isErr, text, tc.want)
			}
		})
	}
	// Arguments that are not an object at all.
	res, err := cs.CallTool(context.Background(), &mcpsdk.CallToolParams{Name: mcp.ToolSearchVault, Arguments: json.RawMessage(`"notobj"`)})
	if err != nil {
		t.Fatal(err)
	}
	text := res.Content[0].(*mcpsdk.TextContent).Text
	if !res.IsError || !strings.Contains(text, "the arguments must be a JSON object") || strings.Contains(text, "Go value") {
		t.Fatalf("arguments not an object: %q", text)
	}
}

// TestFallbacksWithoutTheDatabase serves a vault whose database path is a
// folder: nothing can be indexed, and every tool must still answer from
// the files, saying it is degraded.
func TestFallbacksWithoutTheDatabase(t *testing.T) {
	v := exampleVault(t)
	dbDir := t.TempDir() // a folder where the database file should be
	b := realBackend(t, dbDir, false, v)
	cs := connect(t, b)

	var kw mcp.SearchOutput
	call(t, cs, mcp.ToolSearchVault, map[string]any{"query": "french press"}, &kw)
	if !kw.Degraded || len(kw.Results) == 0 || kw.Results[0].Path != "Methods/French press.md" {
		t.Fatalf("search-vault without the index: %+v", kw)
	}
	var sem mcp.SearchOutput
	call(t, cs, mcp.ToolSearchSemantic, map[string]any{"query": "cold brew"}, &sem)
	if !sem.Degraded || len(sem.Results) == 0 {
		t.Fatalf("search-semantic without the index: %+v", sem)
	}
	var cmb mcp.SearchOutput
	call(t, cs, mcp.ToolSearchCombined, map[string]any{"query": "cold brew"}, &cmb)
	if !cmb.Degraded || len(cmb.Results) == 0 {
		t.Fatalf("search-combined without the index: %+v", cmb)
	}
	var g mcp.GraphOutput
	text, isErr := call(t, cs, mcp.ToolSearchGraph, map[string]any{"query_note_path": "Methods/Index.md"}, &g)
	if isErr || !g.Degraded || g.Start.Path != "Methods/Index.md" || len(g.Edges) == 0 {
		t.Fatalf("search-graph without the index: %+v %s", g, text)
	}
	// Its links are resolved against the files, as the index would.
	var reached []string
	for _, e := range g.Edges {
		if e.From != 0 || e.To <= 0 || e.To >= len(g.Nodes) {
			t.Fatalf("search-graph without the index: link %+v of %d nodes", e, len(g.Nodes))
		}
		reached = append(reached, g.Nodes[e.To].Path)
	}
	want := []string{"Methods/Pour over.md", "Methods/French press.md", "Methods/AeroPress.md", "Methods/Cold brew.md", "Brewing ratios.md", "Beans/Index.md"}
	if !reflect.DeepEqual(reached, want) || len(g.Nodes) != 7 || len(g.Unresolved) != 0 {
		t.Fatalf("search-graph without the index reaches %q (%d nodes, %d unresolved); want %q", reached, len(g.Nodes), len(g.Unresolved), want)
	}
	var note mcp.ReadNoteOutput
	call(t, cs, mcp.ToolReadNote, map[string]any{"path": "Methods/Pour over.md"}, &note)
	if !note.Degraded || !strings.Contains(note.Content, "Troubleshooting") {
		t.Fatalf("read-note without the index: %+v", note)
	}
	var vs mcp.ListVaultsOutput
	call(t, cs, mcp.ToolListVaults, nil, &vs)
	if !vs.Degraded || len(vs.Vaults) != 1 || vs.Vaults[0].Notes != 17 {
		t.Fatalf("list-vaults without the index: %+v", vs)
	}
	var h mcp.HealthOutput
	call(t, cs, mcp.ToolHealthStatus, nil, &h)
	if h.Status != "broken" {
		t.Fatalf("health with no database = %q; want broken", h.Status)
	}
}

func TestSemanticFallsBackWithoutVectors(t *testing.T) {
	// Nothing is indexed yet, and the server's first index pass has not
	// run: the vectors are not missing but not loaded yet, and the answer
	// says so.
	b := realBackend(t, filepath.Join(t.TempDir(), "j.db"), false, exampleVault(t))
	var out mcp.SearchOutput
	for _, tool := range []string{mcp.ToolSearchSemantic, mcp.ToolSearchCombined} {
		text, _ := call(t, connect(t, b), tool, map[string]any{"query": "minerals"}, &out)
		if !out.Degraded || !strings.Contains(out.DegradedReason, "making their vectors now") || !strings.Contains(text, "Degraded") {
			t.Fatalf("%s before the first index pass: %+v\n%s", tool, out, text)
		}
	}
}

func TestPanicsBecomeToolErrors(t *testing.T) {
	calls := 0
	b := &fake{
		Vaults: []config.Vault{exampleVault(t)},
		Search: searchFunc(func(context.Context, search.Query) (search.Answer, error) {
			calls++
			if calls == 1 {
				panic("boom")
			}
			return search.Answer{Results: []notes.Result{{Vault: "coffee", Path: "Water.md", Title: "Water"}}}, nil
		}),
	}
	cs := connect(t, b)
	text, isErr := call(t, cs, mcp.ToolSearchVault, map[string]any{"query": "coffee"}, nil)
	if !isErr || !strings.Contains(text, "internal error") {
		t.Fatalf("panic gave error=%v %q", isErr, text)
	}
	// The server keeps serving.
	var out mcp.SearchOutput
	if _, isErr := call(t, cs, mcp.ToolSearchVault, map[string]any{"query": "coffee"}, &out); isErr || len(out.Results) != 1 {
		t.Fatalf("after the panic: error %v, %+v", isErr, out)
	}
}

func TestResources(t *testing.T) {
	v := exampleVault(t)
	cs := connect(t, realBackend(t, filepath.Join(t.TempDir(), "j.db"), true, v))
	ctx := context.Background()
	var uris []string
	for r, err := range cs.Resources(ctx, nil) {
		if err != nil {
			t.Fatal(err)
		}
		uris = append(uris, r.URI)
	}
	if len(uris) != 18 || uris[0] != "jarvis://vaults" {
		t.Fatalf("%d resources %v; want the vault list and 17 notes", len(uris), uris)
	}
	uri := mcp.NoteURI("coffee", "Methods/Pour over.md")
	if uri != "jarvis://coffee/Methods/Pour%20over.md" {
		t.Fatalf("uri %s", uri)
	}
	res, err := cs.ReadResource(ctx, &mcpsdk.ReadResourceParams{URI: uri})
	if err != nil || len(res.Contents) != 1 || !strings.Contains(res.Contents[0].Text, "Troubleshooting") {
		t.Fatalf("read %s: %v %+v", uri, err, res)
	}
	if _, err := cs.ReadResource(ctx, &mcpsdk.ReadResourceParams{URI: "jarvis://coffee/..%2F..%2Fetc%2Fpasswd"}); err == nil {
		t.Fatal("a path out of the vault was read")
	}
	tmpl, err := cs.ListResourceTemplates(ctx, nil)
	if err != nil || len(tmpl.ResourceTemplates) != 1 {
		t.Fatalf("templates %v %v", tmpl, err)
	}
}

// TestReadNoteResolvesEachLinkOnALine reads a note whose lines hold several
// links: each must carry its own target, and an unresolved one none.
func TestReadNoteResolvesEachLinkOnALine(t *testing.T) {
	v := exampleVault(t)
	note := "See [[Pour over]], [[French press|the press]] and [[No such note]].\n![[Pour over#Troubleshooting]] then [[Coffee journal]]\n"
	if err := os.WriteFile(filepath.Join(v.Path, "Several.md"), []byte(note), 0o644); err != nil {
		t.Fatal(err)
	}
	cs := connect(t, realBackend(t, filepath.Join(t.TempDir(), "j.db"), true, v))
	var out mcp.ReadNoteOutput
	if text, isErr := call(t, cs, mcp.ToolReadNote, map[string]any{"path": "Several.md"}, &out); isErr {
		t.Fatal(text)
	}
	want := []struct{ target, resolved string }{
		{"Pour over", "Methods/Pour over.md"},
		{"French press", "Methods/French press.md"},
		{"No such note", ""},
		{"Pour over", "Methods/Pour over.md"},
		{"Coffee journal", "Coffee journal.md"},
	}
	if len(out.Links) != len(want) {
		t.Fatalf("%d links; want %d: %+v", len(out.Links), len(want), out.Links)
	}
	for i, w := range want {
		if l := out.Links[i]; l.Target != w.target || l.Resolved != w.resolved {
			t.Errorf("link %d: %q resolved to %q; want %q to %q", i, l.Target, l.Resolved, w.target, w.resolved)
		}
	}
}

// TestSearchesStayInTheServedVaults shares a database between two
// configurations: a server for one vault must not answer with notes of
// the other, which the database also holds.
func TestSearchesStayInTheServedVaults(t *testing.T) {
	db := filepath.Join(t.TempDir(), "j.db")
	other := config.Vault{Name: "other", Path: t.TempDir()}
	if err := os.WriteFile(filepath.Join(other.Path, "Elsewhere.md"), []byte("# Elsewhere\n\nPour over grind notes kept in another vault. [[Pour over]]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	realBackend(t, db, true, other)
	cs := connect(t, realBackend(t, db, true, exampleVault(t)))
	for _, tool := range []string{mcp.ToolSearchVault, mcp.ToolSearchSemantic, mcp.ToolSearchCombined} {
		var out mcp.SearchOutput
		if text, isErr := call(t, cs, tool, map[string]any{"query": "pour over grind elsewhere"}, &out); isErr || len(out.Results) == 0 {
			t.Fatalf("%s: %s", tool, text)
		}
		for _, r := range out.Results {
			if r.Vault != "coffee" {
				t.Errorf("%s found %s in vault %q, which this server does not serve", tool, r.Path, r.Vault)
			}
		}
	}
	if text, isErr := call(t, cs, mcp.ToolSearchGraph, map[string]any{"query_note_path": "Elsewhere"}, nil); !isErr {
		t.Errorf("search-graph started from a note of a vault not served: %s", text)
	}
	// The resource list, every page of it, holds the served vault's notes
	// and no other's; list-vaults counts only the served vault.
	var cursor string
	listed := 0
	for {
		res, err := cs.ListResources(context.Background(), &mcpsdk.ListResourcesParams{Cursor: cursor})
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range res.Resources {
			if strings.HasPrefix(r.URI, "jarvis://other/") {
				t.Errorf("resources/list lists %s, of a vault this server does not serve", r.URI)
			}
			if strings.HasPrefix(r.URI, "jarvis://coffee/") {
				listed++
			}
		}
		if cursor = res.NextCursor; cursor == "" {
			break
		}
	}
	if listed == 0 {
		t.Error("resources/list listed none of the served vault's notes")
	}
	var vaults mcp.ListVaultsOutput
	call(t, cs, mcp.ToolListVaults, nil, &vaults)
	if len(vaults.Vaults) != 1 || vaults.Vaults[0].Name != "coffee" {
		t.Errorf("list-vaults: %+v", vaults.Vaults)
	}
}

// TestSearchGraphWhileTheFirstIndexRuns: a note on disk that the index
// does not hold yet is answered from the file by search-graph, as by
// read-note and related-notes, degraded and saying why, not refused.
func TestSearchGraphWhileTheFirstIndexRuns(t *testing.T) {
	v := exampleVault(t)
	b := realBackend(t, filepath.Join(t.TempDir(), "j.db"), false, v)
	cs := connect(t, b)
	for _, ref := range []string{"Water.md", "Water"} {
		var out mcp.GraphOutput
		text, isErr := call(t, cs, mcp.ToolSearchGraph, map[string]any{"query_note_path": ref, "depth": 1}, &out)
		if isErr || !out.Degraded || !strings.Contains(out.DegradedReason, "not indexed yet") || out.Start.Path != "Water.md" || len(out.Nodes) < 2 {
			t.Errorf("search-graph %q before the index: error %v, %+v: %s", ref, isErr, out, text)
		}
		var note mcp.ReadNoteOutput
		text, isErr = call(t, cs, mcp.ToolReadNote, map[string]any{"path": ref}, &note)
		if isErr || !note.Degraded || !strings.Contains(note.DegradedReason, "not indexed yet") || note.Path != "Water.md" {
			t.Errorf("read-note %q before the index: error %v, %+v: %s", ref, isErr, note.Degradation, text)
		}
	}
	// A note that is nowhere is still an error the model can act on.
	if text, isErr := call(t, cs, mcp.ToolSearchGraph, map[string]any{"query_note_path": "No such note"}, nil); !isErr || !strings.Contains(text, "No such note") {
		t.Errorf("search-graph of a missing note: error %v: %s", isErr, text)
	}
}

// TestHealthStatusTimesEachTool: after a few calls, health-status reports
// per tool how many calls and errors it had, and their latency.
func TestHealthStatusTimesEachTool(t *testing.T) {
	cs := connect(t, realBackend(t, filepath.Join(t.TempDir(), "j.db"), true, exampleVault(t)))
	for range 3 {
		call(t, cs, mcp.ToolSearchVault, map[string]any{"query": "grind"}, nil)
	}
	call(t, cs, mcp.ToolReadNote, map[string]any{"path": "No such note.md"}, nil)
	var out mcp.HealthOutput
	text, _ := call(t, cs, mcp.ToolHealthStatus, nil, &out)
	got := map[string]metrics.Tool{}
	for _, m := range out.Tools {
		got[m.Name] = m
	}
	if m := got[mcp.ToolSearchVault]; m.Calls != 3 || m.Errors != 0 || m.P50Ms <= 0 || m.P95Ms < m.P50Ms {
		t.Errorf("search-vault: %+v", m)
	}
	if m := got[mcp.ToolReadNote]; m.Calls != 1 || m.Errors != 1 {
		t.Errorf("read-note: %+v", m)
	}
	if !strings.Contains(text, "- search-vault: 3 calls, 0 errors") {
		t.Errorf("health-status text: %s", text)
	}
	// The example vault is small: chromem-go holds its vectors, and both
	// list-vaults and health-status say so, their text in a reader's
	// words, not the store's name.
	if len(out.VectorStores) != 1 || out.VectorStores[0] != (mcp.VaultStore{Vault: "coffee", Store: "chromem-go"}) ||
		!strings.Contains(text, "Vectors for semantic search are in memory for coffee.") || strings.Contains(text, "chromem") {
		t.Errorf("health-status vector stores %+v: %s", out.VectorStores, text)
	}
	var vaults mcp.ListVaultsOutput
	vtext, _ := call(t, cs, mcp.ToolListVaults, nil, &vaults)
	if len(vaults.Vaults) != 1 || vaults.Vaults[0].VectorStore != "chromem-go" || !strings.Contains(vtext, "vectors in memory") || strings.Contains(vtext, "chromem") {
		t.Errorf("list-vaults: %+v: %s", vaults.Vaults, vtext)
	}
}

// TestReadNoteRefusesExcludedFiles: what the vault's exclude patterns or a
// hidden folder keep out of the index stays out of read-note and resources,
// with or without the index.
func TestReadNoteRefusesExcludedFiles(t *testing.T) {
	v := exampleVault(t)
	v.Exclude = []string{"Private/**", "Secret"}
	for _, p := range []string{"Private/Diary.md", ".hidden/Secret.md", "Deep/Secret/Plans.md"} {
		sharedtest.WriteFile(t, v.Path, p, "# Kept out\n")
	}
	for _, indexed := range []bool{true, false} {
		cs := connect(t, realBackend(t, filepath.Join(t.TempDir(), "j.db"), indexed, v))
		for _, p := range []string{"Private/Diary.md", "Private/Diary", ".hidden/Secret.md", "Private/../Private/Diary.md", "Deep/Secret/Plans.md"} {
			text, isErr := call(t, cs, mcp.ToolReadNote, map[string]any{"path": p}, nil)
			if !isErr || !strings.Contains(text, "is left out of jarvis because of ") {
				t.Errorf("indexed %v: read-note %q = %q; want an error saying why it is left out", indexed, p, text)
			}
		}
		if _, err := cs.ReadResource(context.Background(), &mcpsdk.ReadResourceParams{URI: "jarvis://coffee/Private/Diary.md"}); err == nil {
			t.Errorf("indexed %v: the excluded note was read as a resource", indexed)
		}
	}
}

// TestGraphAnswersStaySmallAndUnambiguous walks from a hub note of the
// Obsidian Help vault, whose depth-2 neighbourhood holds about a thousand
// links, and starts from a note that two served vaults both hold.
func TestGraphAnswersStaySmallAndUnambiguous(t *testing.T) {
	help := config.Vault{Name: "help", Path: sharedtest.Path(t, "vaults/obsidian-help/en")}
	cs := connect(t, realBackend(t, filepath.Join(t.TempDir(), "j.db"), true, help))
	var out mcp.GraphOutput
	text, isErr := call(t, cs, mcp.ToolSearchGraph, map[string]any{"query_note_path": "Backlinks"}, &out)
	if isErr || !out.Truncated || len(out.Nodes) > 100 || len(out.Edges) > 100 || len(out.Unresolved) > 100 {
		t.Fatalf("hub walk: error %v, truncated %v, %d nodes, %d links, %d unresolved", isErr, out.Truncated, len(out.Nodes), len(out.Edges), len(out.Unresolved))
	}
	if len(text) > 30000 {
		t.Fatalf("hub walk text is %d bytes; a model's context should not take that", len(text))
	}
	// The answer says how much it left out, and its text lists every
	// link the structured content holds.
	if out.LinksFound <= len(out.Edges) && out.NodesReached <= len(out.Nodes) {
		t.Fatalf("a cut answer says it holds all: %d of %d nodes, %d of %d links", len(out.Nodes), out.NodesReached, len(out.Edges), out.LinksFound)
	}
	for _, e := range out.Edges {
		if e.From < 0 || e.From >= len(out.Nodes) || e.To < 0 || e.To >= len(out.Nodes) {
			t.Fatalf("a link %+v names no node of %d", e, len(out.Nodes))
		}
		// Links alike on one line are listed once, with their count.
		line := fmt.Sprintf("- `%s` line %d → `%s` (", out.Nodes[e.From].Path, e.Line, out.Nodes[e.To].Path)
		if !strings.Contains(text, line) {
			t.Fatalf("the text does not list the link %q", line)
		}
	}
	if out.Nodes[0].Path != out.Start.Path || out.Nodes[0].Depth != 0 {
		t.Fatalf("the first node is %+v; want the start note %s", out.Nodes[0], out.Start.Path)
	}
	// The cut keeps every link of the start note itself.
	own := func(out mcp.GraphOutput) int {
		n := 0
		for _, e := range out.Edges {
			if e.From == 0 || e.To == 0 {
				n++
			}
		}
		return n
	}
	var near mcp.GraphOutput
	call(t, cs, mcp.ToolSearchGraph, map[string]any{"query_note_path": "Backlinks", "depth": 1}, &near)
	if own(near) == 0 || own(out) != own(near) {
		t.Fatalf("the cut depth-2 answer keeps %d of the start note's %d links", own(out), own(near))
	}

	a, b := exampleVault(t), exampleVault(t)
	b.Name = "coffee2"
	cs = connect(t, realBackend(t, filepath.Join(t.TempDir(), "j.db"), true, a, b))
	text, isErr = call(t, cs, mcp.ToolSearchGraph, map[string]any{"query_note_path": "Pour over", "depth": 1}, nil)
	if !isErr || !strings.Contains(text, "pass vault") || !strings.Contains(text, `"coffee2"`) {
		t.Fatalf("a note in two vaults, no vault given: %q; want an error naming both vaults", text)
	}
	if text, isErr := call(t, cs, mcp.ToolSearchGraph, map[string]any{"query_note_path": "Pour over", "depth": 1, "vault": "coffee2"}, &out); isErr || out.Start.Vault != "coffee2" {
		t.Fatalf("with vault coffee2: %v %s", out.Start, text)
	}
}

// TestStdioAnswersALineThatIsNotJSON writes stray lines before a ping: text,
// JSON that is no JSON-RPC message, a wrong version. The server answers
// each with an error and keeps serving.
func TestStdioAnswersALineThatIsNotJSON(t *testing.T) {
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	server := (&fake{Vaults: []config.Vault{exampleVault(t)}}).server(mcp.Options{Version: "test", Logger: quiet()})
	done := make(chan error, 1)
	go func() { done <- server.Run(ctx, mcp.StdioTransport(inR, outW)) }()
	stray := []struct {
		line string
		code float64
		id   any
	}{
		{"hello, is this thing on?", -32700, nil},
		{"{}", -32600, nil},
		{"[]", -32600, nil},
		{"42", -32600, nil},
		{`{"jsonrpc":"2.0"}`, -32600, nil},
		{`{"jsonrpc":"1.0","id":7,"method":"ping"}`, -32600, 7.0},
	}
	go func() {
		for _, s := range stray {
			io.WriteString(inW, s.line+"\n\n")
		}
		io.WriteString(inW, `{"jsonrpc":"2.0","id":1,"method":"ping"}`+"\n")
	}()
	lines := bufio.NewScanner(outR)
	var got []map[string]any
	for len(got) < len(stray)+1 && lines.Scan() {
		var msg map[string]any
		if err := json.Unmarshal(lines.Bytes(), &msg); err != nil {
			t.Fatalf("stdout line is not JSON: %q", lines.Text())
		}
		got = append(got, msg)
	}
	if len(got) != len(stray)+1 {
		t.Fatalf("answers: %v (%v)", got, lines.Err())
	}
	for i, s := range stray {
		e, ok := got[i]["error"].(map[string]any)
		if !ok || e["code"] != s.code || got[i]["id"] != s.id {
			t.Errorf("answer to %q: %v; want error %v with id %v", s.line, got[i], s.code, s.id)
		}
	}
	if last := got[len(stray)]; last["id"] != 1.0 || last["error"] != nil {
		t.Fatalf("ping after the stray lines: %v", last)
	}
	inW.Close()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("the server did not stop when stdin closed")
	}
}

// TestReadNoteWarnsOfBrokenFrontmatter: invalid YAML shows as no
// frontmatter, and read-note says why.
func TestReadNoteWarnsOfBrokenFrontmatter(t *testing.T) {
	v := exampleVault(t)
	if err := os.WriteFile(filepath.Join(v.Path, "Broken.md"), []byte("---\ntags: [a, b\n---\nThe body.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cs := connect(t, realBackend(t, filepath.Join(t.TempDir(), "j.db"), true, v))
	var out mcp.ReadNoteOutput
	text, isErr := call(t, cs, mcp.ToolReadNote, map[string]any{"path": "Broken.md"}, &out)
	if isErr || len(out.Warnings) != 1 || !strings.Contains(out.Warnings[0], "YAML") || !strings.Contains(text, "> Warning:") {
		t.Fatalf("warnings %q, text:\n%s", out.Warnings, text)
	}
	var sound mcp.ReadNoteOutput
	call(t, cs, mcp.ToolReadNote, map[string]any{"path": "Methods/Pour over.md"}, &sound)
	if len(sound.Warnings) != 0 {
		t.Fatalf("a sound note has warnings %q", sound.Warnings)
	}
	// The note's text is fenced so that its own --- and ``` cannot end it.
	if !strings.Contains(text, "```markdown\n---\ntags: [a, b\n---\nThe body.\n```\n") {
		t.Fatalf("the note's text is not fenced:\n%s", text)
	}
}

// TestReadNoteSaysWhenANameIsAmbiguous: a title two notes share reads the
// one a wikilink leads to and names the other; a note two vaults hold
// needs the vault.
func TestReadNoteSaysWhenANameIsAmbiguous(t *testing.T) {
	v := exampleVault(t)
	for _, p := range []string{"Gear/Setup.md", "Methods/Setup.md"} {
		if err := os.WriteFile(filepath.Join(v.Path, p), []byte("# Setup\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	other := exampleVault(t)
	other.Name = "coffee2"
	cs := connect(t, realBackend(t, filepath.Join(t.TempDir(), "j.db"), true, v, other))
	var out mcp.ReadNoteOutput
	text, isErr := call(t, cs, mcp.ToolReadNote, map[string]any{"path": "Setup", "vault": "coffee"}, &out)
	if isErr || out.Path != "Gear/Setup.md" || len(out.AlsoMatches) != 1 || out.AlsoMatches[0] != "Methods/Setup.md" || !strings.Contains(text, "Also matching that name") {
		t.Fatalf("read-note Setup: %+v\n%s", out.AlsoMatches, text)
	}
	if text, isErr := call(t, cs, mcp.ToolReadNote, map[string]any{"path": "French press"}, nil); !isErr || !strings.Contains(text, "pass vault") {
		t.Fatalf("a title in two vaults, no vault given: %q", text)
	}
}

// TestNothingMatchesSaysSo asks every search tool for invented words, an
// emoji in no note and a topic the vault lacks: each answers with no
// results and a sentence saying so, not with the least bad notes.
func TestNothingMatchesSaysSo(t *testing.T) {
	b := realBackend(t, filepath.Join(t.TempDir(), "j.db"), true, exampleVault(t))
	cs := connect(t, b)
	for _, q := range []string{
		"florbizzle quantamax zorptic",
		"🦄",
		"parliamentary election results",
	} {
		for _, tool := range []string{mcp.ToolSearchVault, mcp.ToolSearchSemantic, mcp.ToolSearchCombined} {
			var out mcp.SearchOutput
			text, isErr := call(t, cs, tool, map[string]any{"query": q}, &out)
			if isErr || len(out.Results) != 0 || out.Degraded || !strings.Contains(out.Empty, "Nothing in the notes matches") || !strings.Contains(text, out.Empty) {
				var got []string
				for _, r := range out.Results {
					got = append(got, fmt.Sprintf("%s %.3f", r.Path, r.Score))
				}
				t.Errorf("%s %q: error %v, results %v, empty %q", tool, q, isErr, got, out.Empty)
			}
		}
	}
}

// largestHub is the note with the most incoming links, as BenchmarkScale
// chooses it.
func largestHub(b testing.TB, dbPath string) string {
	b.Helper()
	db, err := sql.Open("sqlite", dbPath)
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	var path string
	err = db.QueryRow(`SELECT f.path FROM links l JOIN files f ON f.id = l.target_id
		GROUP BY l.target_id ORDER BY count(*) DESC, f.path LIMIT 1`).Scan(&path)
	if err != nil {
		b.Fatal(err)
	}
	return path
}

// TestSearchToolsTruncateAtTheirMost: with 150 notes matching, each search
// tool at its most (search.Limits) returns that many notes and says more
// matched; the schema and the service apply the same rule.
func TestSearchToolsTruncateAtTheirMost(t *testing.T) {
	root := t.TempDir()
	for i := range 150 {
		sharedtest.WriteFile(t, root, fmt.Sprintf("Note %03d.md", i), fmt.Sprintf("# Note %03d\n\nThe heron stood in the reeds, note %d.\n", i, i))
	}
	// Notes without the words, so that they are rare enough for the
	// lexical embedder to weigh.
	for i := range 600 {
		sharedtest.WriteFile(t, root, fmt.Sprintf("Other/%03d.md", i), fmt.Sprintf("# Other %03d\n\nCopper kettles, slate roofs and winter apples, entry %d.\n", i, i))
	}
	cs := connect(t, realBackend(t, filepath.Join(t.TempDir(), "j.db"), true, config.Vault{Name: "birds", Path: root}))
	for tool, mode := range map[string]search.Mode{mcp.ToolSearchVault: search.ModeKeyword, mcp.ToolSearchSemantic: search.ModeSemantic, mcp.ToolSearchCombined: search.ModeCombined} {
		_, most := search.Limits(mode)
		for _, limit := range []int{most - 1, most} {
			var out mcp.SearchOutput
			text, isErr := call(t, cs, tool, map[string]any{"query": "heron reeds", "limit": limit}, &out)
			if isErr || len(out.Results) != limit || !out.Truncated {
				t.Errorf("%s limit %d: error %v, %d results, truncated %v: %.200s", tool, limit, isErr, len(out.Results), out.Truncated, text)
			}
		}
		if text, isErr := call(t, cs, tool, map[string]any{"query": "heron", "limit": most + 1}, nil); !isErr || !strings.Contains(text, fmt.Sprint(most)) {
			t.Errorf("%s limit %d: error %v: %s", tool, most+1, isErr, text)
		}
	}
}

// checkGolden compares got with testdata/name, or writes it there with
// -update; what names the thing that changed when they differ.
func checkGolden(t *testing.T, name, what string, got []byte) {
	t.Helper()
	got = append(got, '\n')
	golden := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(golden, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (run go test ./internal/mcp -update to write it)", err)
	}
	if string(got) != string(want) {
		t.Errorf("%s; review the difference and run go test ./internal/mcp -update\n got: %s", what, got)
	}
}

// TestEveryToolHasAnIcon: each tool listed carries an icon of its kind,
// as the server does, and no tool is left without one.
func TestEveryToolHasAnIcon(t *testing.T) {
	v := exampleVault(t)
	v.Write = true
	cs := connect(t, realBackend(t, filepath.Join(t.TempDir(), "j.db"), false, v))
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tool := range res.Tools {
		if len(tool.Icons) != 1 || !strings.HasPrefix(tool.Icons[0].Source, "data:image/svg+xml;base64,") {
			t.Errorf("%s has icons %+v; want one SVG", tool.Name, tool.Icons)
		}
	}
	init := cs.InitializeResult()
	if init == nil || init.ServerInfo == nil || len(init.ServerInfo.Icons) != 1 {
		t.Errorf("the server has no icon: %+v", init)
	}
}

package mcp_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	mcpsdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/jarvis-mcp/jarvis/internal/config"
	"github.com/jarvis-mcp/jarvis/internal/graph"
	"github.com/jarvis-mcp/jarvis/internal/mcp"
	"github.com/jarvis-mcp/jarvis/internal/search"
	"github.com/jarvis-mcp/jarvis/internal/search/notes"
)

// TestSchemaErrorsUseTheRightArticle: "an integer", not "a integer".
func TestSchemaErrorsUseTheRightArticle(t *testing.T) {
	cs := connect(t, &fake{Vaults: []config.Vault{exampleVault(t)}})
	for _, tc := range []struct {
		tool string
		args map[string]any
		want string
	}{
		{mcp.ToolSearchVault, map[string]any{"query": "coffee", "limit": "ten"}, "limit must be an integer, not a string"},
		{mcp.ToolSearchVault, map[string]any{"query": []string{"coffee"}}, "query must be a string, not an array"},
		{mcp.ToolSearchGraph, map[string]any{"query_note_path": "x", "depth": map[string]any{}}, "depth must be an integer, not an object"},
		// An optional array's schema allows null too; the message names
		// the array and what it holds, not null.
		{mcp.ToolBuildContext, map[string]any{"query": "grind", "paths": "Water.md"}, `paths must be an array of strings, such as ["a", "b"], not a string`},
		{mcp.ToolBuildContext, map[string]any{"query": "grind", "paths": []any{1}}, "each item of paths must be a string, not an integer"},
	} {
		text, isErr := call(t, cs, tc.tool, tc.args, nil)
		if !isErr || !strings.Contains(text, tc.want) {
			t.Errorf("%s %v: error %v, %q; want %q", tc.tool, tc.args, isErr, text, tc.want)
		}
	}
}

// TestEveryArgumentIsBounded walks every tool's input schema: each string
// has a maxLength, each array a maxItems (and bounded items), each number
// a minimum and a maximum, so that the SDK refuses an oversized argument
// before a handler sees it.
func TestEveryArgumentIsBounded(t *testing.T) {
	// A writable vault, so that the write tools (and periodic-note's
	// append) are listed too.
	v := exampleVault(t)
	v.Write = true
	cs := connect(t, realBackend(t, filepath.Join(t.TempDir(), "j.db"), false, v))
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.ContainsFunc(res.Tools, func(tool *mcpsdk.Tool) bool { return tool.Name == mcp.ToolEditNote }) {
		t.Fatal("the write tools are not listed over a writable vault")
	}
	for _, tool := range res.Tools {
		data, err := json.Marshal(tool.InputSchema)
		if err != nil {
			t.Fatal(err)
		}
		var s map[string]any
		if err := json.Unmarshal(data, &s); err != nil {
			t.Fatal(err)
		}
		for _, problem := range unbounded(tool.Name, s) {
			t.Error(problem)
		}
	}
}

// unbounded lists the parts of schema s, at path, that accept a value of
// any size.
func unbounded(path string, s map[string]any) []string {
	var types []string
	switch ty := s["type"].(type) {
	case string:
		types = []string{ty}
	case []any:
		for _, x := range ty {
			types = append(types, fmt.Sprint(x))
		}
	}
	var out []string
	for _, ty := range types {
		switch ty {
		case "string":
			if _, ok := s["maxLength"]; !ok {
				out = append(out, path+": a string without maxLength")
			}
		case "integer", "number":
			_, lo := s["minimum"]
			_, hi := s["maximum"]
			if !lo || !hi {
				out = append(out, path+": a number without minimum and maximum")
			}
		case "array":
			if _, ok := s["maxItems"]; !ok {
				out = append(out, path+": an array without maxItems")
			}
			items, _ := s["items"].(map[string]any)
			if items == nil {
				out = append(out, path+": an array without an items schema")
			} else {
				out = append(out, unbounded(path+"[]", items)...)
			}
		case "object":
			props, _ := s["properties"].(map[string]any)
			for name, p := range props {
				if ps, ok := p.(map[string]any); ok {
					out = append(out, unbounded(path+"."+name, ps)...)
				}
			}
			// Properties of any name (set_properties' map) are bounded
			// by their number; their values, free-form frontmatter, by
			// the request's size and the write service's MaxEditText.
			if _, counted := s["maxProperties"]; counted {
				continue
			}
			if ap, ok := s["additionalProperties"]; ok && ap != false {
				if m, ok := ap.(map[string]any); !ok || len(m) != 1 || m["not"] == nil {
					out = append(out, path+": an object that takes properties of any name")
				}
			}
		}
	}
	return out
}

// TestHugeArgumentsAreNotEchoed: whatever size an argument has, an error
// quotes at most a short prefix of it.
func TestHugeArgumentsAreNotEchoed(t *testing.T) {
	v := exampleVault(t)
	cs := connect(t, &fake{Vaults: []config.Vault{v}})
	long := func(n int) string { return strings.Repeat("é", n) }
	for _, tc := range []struct {
		name string
		tool string
		args map[string]any
		want string
	}{
		{"1 MB heading", mcp.ToolReadNote, map[string]any{"path": "Methods/Pour over.md", "heading": strings.Repeat("x", 1<<20)}, "takes at most 65536 bytes of arguments"},
		{"heading over its maxLength", mcp.ToolReadNote, map[string]any{"path": "Methods/Pour over.md", "heading": long(20000)}, "heading must be at most"},
		{"long heading that no note has", mcp.ToolReadNote, map[string]any{"path": "Methods/Pour over.md", "heading": long(900)}, "has no heading"},
		{"long path", mcp.ToolReadNote, map[string]any{"path": long(900)}, "no note"},
		{"long vault", mcp.ToolSearchVault, map[string]any{"query": "coffee", "vault": long(150)}, "no vault named"},
		{"long start note", mcp.ToolSearchGraph, map[string]any{"query_note_path": long(900)}, "no note"},
		{"long unknown argument", mcp.ToolSearchVault, map[string]any{"query": "coffee", long(5000): 1}, "there is no argument"},
		{"long value of the wrong type", mcp.ToolSearchVault, map[string]any{"query": "coffee", "limit": long(5000)}, "limit must be an integer"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			text, isErr := call(t, cs, tc.tool, tc.args, nil)
			if !isErr || !strings.Contains(text, tc.want) {
				t.Fatalf("error %v, %.300q; want an error saying %q", isErr, text, tc.want)
			}
			if len(text) > 600 || strings.Contains(text, long(81)) || strings.Contains(text, strings.Repeat("x", 81)) {
				t.Fatalf("the error is %d bytes and quotes the argument at length: %.300q", len(text), text)
			}
		})
	}
	// A graph lookup that fails in the index quotes the start note short
	// too.
	b := &fake{Vaults: []config.Vault{v}, Traverse: func(_ context.Context, q graph.Query) (*graph.Subgraph, error) {
		return nil, &graph.NotFoundError{Ref: q.Start, Suggestions: []graph.Ref{{Vault: "coffee", Path: "Water.md"}}}
	}}
	text, isErr := call(t, connect(t, b), mcp.ToolSearchGraph, map[string]any{"query_note_path": long(900)}, nil)
	if !isErr || !strings.Contains(text, `"Water.md"`) || len(text) > 600 {
		t.Fatalf("graph not found: error %v, %d bytes: %.300q", isErr, len(text), text)
	}
}

// TestInFlightRequestsAreBounded fires many tool calls at once on one
// session whose searches block, over each transport: no more than the
// session's share run at once, the calls beyond its queue are refused at
// once with an error that says what to do, and the rest all finish once
// the searches go on. Over stdio nothing is refused: the transport stops
// reading while its own bound of requests is unanswered, so the rest wait
// in the pipe rather than in the server.
func TestInFlightRequestsAreBounded(t *testing.T) {
	t.Run("in memory", func(t *testing.T) { checkInFlight(t, connect, true) })
	t.Run("stdio", func(t *testing.T) { checkInFlight(t, connectStdio, false) })
	t.Run("streamable HTTP", func(t *testing.T) { checkInFlight(t, connectHTTP, true) })
}

// connectStdio serves b over pipes as `jarvis mcp` serves stdin and
// stdout.
func connectStdio(t *testing.T, b backend) *mcpsdk.ClientSession {
	t.Helper()
	server := b.server(mcp.Options{Version: "test", Logger: quiet()})
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	ss, err := server.Connect(context.Background(), mcp.StdioTransport(inR, outW), nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ss.Close() })
	cs, err := mcpsdk.NewClient(&mcpsdk.Implementation{Name: "test", Version: "1"}, nil).
		Connect(context.Background(), &mcpsdk.IOTransport{Reader: outR, Writer: inW}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

// connectHTTP serves b over Streamable HTTP on a loopback port.
func connectHTTP(t *testing.T, b backend) *mcpsdk.ClientSession {
	t.Helper()
	server := b.server(mcp.Options{Version: "test", Logger: quiet()})
	srv := httptest.NewServer(mcpsdk.NewStreamableHTTPHandler(func(*http.Request) *mcpsdk.Server { return server }, nil))
	t.Cleanup(srv.Close)
	cs, err := mcpsdk.NewClient(&mcpsdk.Implementation{Name: "test", Version: "1"}, nil).
		Connect(context.Background(), &mcpsdk.StreamableClientTransport{Endpoint: srv.URL, DisableStandaloneSSE: true}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

func checkInFlight(t *testing.T, connect func(*testing.T, backend) *mcpsdk.ClientSession, refuses bool) {
	lim := mcp.DefaultLimits()
	release := make(chan struct{})
	var running, most atomic.Int32
	b := &fake{Search: searchFunc(func(ctx context.Context, q search.Query) (search.Answer, error) {
		n := running.Add(1)
		defer running.Add(-1)
		for m := most.Load(); n > m && !most.CompareAndSwap(m, n); m = most.Load() {
		}
		select {
		case <-release:
		case <-ctx.Done():
			return search.Answer{}, ctx.Err()
		}
		return search.Answer{Results: []notes.Result{{Vault: "v", Path: "A.md", Title: "A"}}}, nil
	})}
	cs := connect(t, b)
	const calls = 200
	type answer struct {
		text  string
		isErr bool
	}
	answers := make(chan answer, calls)
	for range calls {
		go func() {
			res, err := cs.CallTool(context.Background(), &mcpsdk.CallToolParams{Name: mcp.ToolSearchVault, Arguments: map[string]any{"query": "a"}})
			if err != nil {
				answers <- answer{"protocol error: " + err.Error(), true}
				return
			}
			answers <- answer{res.Content[0].(*mcpsdk.TextContent).Text, res.IsError}
		}()
	}
	accepted := lim.SessionRunning + lim.SessionWaiting
	if !refuses {
		accepted = calls
	}
	want := fmt.Sprintf("too many requests in flight for this session (%d running, %d waiting); wait for answers before sending more", lim.SessionRunning, lim.SessionWaiting)
	timeout := time.After(20 * time.Second)
	for i := 0; i < calls-accepted; i++ {
		select {
		case a := <-answers:
			if !a.isErr || !strings.Contains(a.text, want) {
				close(release)
				t.Fatalf("answer %d of the overflow: error %v, %q; want %q", i, a.isErr, a.text, want)
			}
		case <-timeout:
			close(release)
			t.Fatalf("only %d of the %d calls beyond the queue were refused; %d searches run at once", i, calls-accepted, running.Load())
		}
	}
	for running.Load() < int32(lim.SessionRunning) {
		select {
		case <-timeout:
			close(release)
			t.Fatalf("%d searches run; want %d", running.Load(), lim.SessionRunning)
		case <-time.After(time.Millisecond):
		}
	}
	// A ping is no work and is answered while the session is full (over
	// stdio it waits in the pipe behind the calls sent before it).
	if refuses {
		if err := cs.Ping(context.Background(), nil); err != nil {
			close(release)
			t.Fatalf("ping while the session is full: %v", err)
		}
	}
	close(release)
	for i := 0; i < accepted; i++ {
		select {
		case a := <-answers:
			if a.isErr {
				t.Fatalf("a queued call failed: %q", a.text)
			}
		case <-timeout:
			t.Fatalf("%d of %d queued calls finished", i, accepted)
		}
	}
	if m := most.Load(); m > int32(lim.SessionRunning) {
		t.Fatalf("%d searches ran at once; want at most %d", m, lim.SessionRunning)
	}
}

// hostileNote is a note made to be large in every part read-note lists:
// many headings, many links, many tags and a huge frontmatter.
func hostileNote() string {
	var b strings.Builder
	b.WriteString("---\ntitle: " + strings.Repeat("T", 100000) + "\nlist:\n")
	for i := range 20000 {
		fmt.Fprintf(&b, "  - item %d %s\n", i, strings.Repeat("v", 20))
	}
	b.WriteString("big: " + strings.Repeat("b", 300000) + "\n---\n")
	for i := range 50000 {
		fmt.Fprintf(&b, "## Heading %d #tag%d\n", i, i)
	}
	for i := range 100000 {
		fmt.Fprintf(&b, "[[Note %d|%s]]\n", i, strings.Repeat("d", 10))
	}
	return b.String()
}

// answerBytes is the size of a tool answer: its structured content and its
// text.
func answerBytes(t *testing.T, res *mcpsdk.CallToolResult) int {
	t.Helper()
	data, err := json.Marshal(res.StructuredContent)
	if err != nil {
		t.Fatal(err)
	}
	n := len(data)
	for _, c := range res.Content {
		if tc, ok := c.(*mcpsdk.TextContent); ok {
			n += len(tc.Text)
		}
	}
	return n
}

// structured decodes a tool answer's structured content into out and
// returns its text.
func structured(t *testing.T, res *mcpsdk.CallToolResult, out any) string {
	t.Helper()
	data, err := json.Marshal(res.StructuredContent)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, out); err != nil {
		t.Fatal(err)
	}
	return res.Content[0].(*mcpsdk.TextContent).Text
}

// maxAnswer is the bound on a tool answer (structured content and text)
// over a hostile note, read with the default max_chars.
const maxAnswer = 256 << 10

// TestHostileNotesGiveSmallAnswers reads, walks and finds a note with
// 50,000 headings, 100,000 links and a frontmatter of half a megabyte:
// every answer stays under maxAnswer and says what it left out.
func TestHostileNotesGiveSmallAnswers(t *testing.T) {
	v := config.Vault{Name: "hostile", Path: t.TempDir()}
	if err := os.WriteFile(filepath.Join(v.Path, "Hub.md"), []byte(hostileNote()), 0o644); err != nil {
		t.Fatal(err)
	}
	huge := strings.Repeat("h", 100000)
	b := &fake{
		Vaults: []config.Vault{v},
		Backlinks: func(_ context.Context, _, _ string, limit int) (graph.BacklinkPage, error) {
			var out []graph.Edge
			for i := range min(limit, 5000) {
				out = append(out, graph.Edge{Source: fmt.Sprintf("Other %d.md", i), Line: i, Kind: "link", Context: huge})
			}
			return graph.BacklinkPage{Edges: out, Total: 5000}, nil
		},
		Search: searchFunc(func(_ context.Context, q search.Query) (search.Answer, error) {
			var out []notes.Result
			for i := range q.Limit {
				out = append(out, notes.Result{Vault: "hostile", Path: fmt.Sprintf("N%d.md", i), Title: huge, Heading: huge, Snippet: huge, Line: 1})
			}
			return search.Answer{Results: out, Truncated: true}, nil
		}),
	}
	cs := connect(t, b)
	ctx := context.Background()
	answers := map[string]*mcpsdk.CallToolResult{}
	for _, tc := range []struct {
		tool string
		args map[string]any
	}{
		{mcp.ToolReadNote, map[string]any{"path": "Hub.md"}},
		{mcp.ToolSearchGraph, map[string]any{"query_note_path": "Hub.md"}},
		{mcp.ToolSearchVault, map[string]any{"query": "hub", "limit": 100}},
	} {
		res, err := cs.CallTool(ctx, &mcpsdk.CallToolParams{Name: tc.tool, Arguments: tc.args})
		if err != nil || res.IsError {
			t.Fatalf("%s: %v %+v", tc.tool, err, res)
		}
		n := answerBytes(t, res)
		t.Logf("%s: %d bytes", tc.tool, n)
		if n > maxAnswer {
			t.Errorf("%s answers with %d bytes; want at most %d", tc.tool, n, maxAnswer)
		}
		answers[tc.tool] = res
	}
	var note mcp.ReadNoteOutput
	text := structured(t, answers[mcp.ToolReadNote], &note)
	if len(note.Headings) == 0 || len(note.Links) == 0 || len(note.Backlinks) == 0 || len(note.Shortened) == 0 {
		t.Fatalf("read-note lists %d headings, %d links, %d backlinks; shortened %q", len(note.Headings), len(note.Links), len(note.Backlinks), note.Shortened)
	}
	if note.BacklinkCount != 5000 || !strings.Contains(text, "5000 links linking here") {
		t.Fatalf("read-note counts %d backlinks; want 5000, said in the text:\n%.2000s", note.BacklinkCount, text)
	}
	if !strings.Contains(text, "100000 links") || !strings.Contains(text, "50000 headings") || !strings.Contains(text, "of 5000 backlinks") {
		t.Fatalf("read-note's text does not say how much was left out:\n%.2000s", text)
	}
	var g mcp.GraphOutput
	structured(t, answers[mcp.ToolSearchGraph], &g)
	if !g.Truncated {
		t.Fatalf("the graph of 100000 links is not marked truncated")
	}
	// A resource read returns a note whole or not at all: this one is
	// over the bound, and the error says how to read it instead.
	_, err := cs.ReadResource(ctx, &mcpsdk.ReadResourceParams{URI: mcp.NoteURI("hostile", "Hub.md")})
	if err == nil || !strings.Contains(err.Error(), "read-note") || len(err.Error()) > 600 {
		t.Fatalf("reading the hostile note as a resource: %v", err)
	}
	if _, err := cs.ReadResource(ctx, &mcpsdk.ReadResourceParams{URI: "jarvis://hostile/" + strings.Repeat("x", 100000) + ".md"}); err == nil || len(err.Error()) > 600 {
		t.Fatalf("reading a resource of a 100000-character URI: %.300v", err)
	}
}

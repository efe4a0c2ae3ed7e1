package mcp_test

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jarvis-mcp/jarvis/internal/mcp"
	mcpsdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestAnswersStayUnderTheCeiling: with a small ceiling, a long note comes
// in pages no larger than a quarter of it, and a search asked for many
// results is cut to the ceiling and says so.
func TestAnswersStayUnderTheCeiling(t *testing.T) {
	b := realBackend(t, filepath.Join(t.TempDir(), "j.db"), true, exampleVault(t))
	const ceiling = 1000
	cs := connectWith(t, b, mcp.Options{Version: "test", Logger: quiet(), AnswerTokens: ceiling})
	for _, c := range []struct {
		tool string
		args map[string]any
	}{
		{mcp.ToolReadNote, map[string]any{"path": "Coffee journal.md", "max_chars": 100000}},
		{mcp.ToolSearchVault, map[string]any{"query": "coffee", "limit": 50}},
		{mcp.ToolSearchCombined, map[string]any{"query": "coffee water grind", "limit": 50}},
		{mcp.ToolSearchGraph, map[string]any{"query_note_path": "Coffee journal", "depth": 3}},
	} {
		res, err := cs.CallTool(context.Background(), &mcpsdk.CallToolParams{Name: c.tool, Arguments: c.args})
		if err != nil || res.IsError {
			t.Fatalf("%s: %v %+v", c.tool, err, res)
		}
		used := 0
		var text strings.Builder
		for _, item := range res.Content {
			if tc, ok := item.(*mcpsdk.TextContent); ok {
				used += mcp.Tokens(tc.Text)
				text.WriteString(tc.Text)
			}
		}
		data, _ := json.Marshal(res.StructuredContent)
		used += mcp.Tokens(string(data))
		if used > ceiling {
			t.Errorf("%s: the answer takes %d tokens, over the ceiling of %d", c.tool, used, ceiling)
		}
		if c.tool == mcp.ToolReadNote {
			var page mcp.ReadNoteOutput
			if err := json.Unmarshal(data, &page); err != nil {
				t.Fatal(err)
			}
			if page.NextOffset == 0 || len([]rune(page.Content)) > ceiling {
				t.Errorf("read-note: %d characters, next offset %d; want a page of at most %d and the rest offered", len([]rune(page.Content)), page.NextOffset, ceiling)
			}
		}
		if c.tool == mcp.ToolSearchVault && !strings.Contains(text.String(), "over the 1000-token ceiling") {
			t.Errorf("search-vault: the cut answer does not say so: %q", text.String())
		}
	}
}

// TestSearchResultsLinkTheirNotes: each note of a search answer comes as a
// resource link too, which resources/read serves.
func TestSearchResultsLinkTheirNotes(t *testing.T) {
	b := realBackend(t, filepath.Join(t.TempDir(), "j.db"), true, exampleVault(t))
	cs := connect(t, b)
	ctx := context.Background()
	for _, tool := range []string{mcp.ToolSearchVault, mcp.ToolSearchSemantic, mcp.ToolSearchCombined} {
		res, err := cs.CallTool(ctx, &mcpsdk.CallToolParams{Name: tool, Arguments: map[string]any{"query": "how fine to grind for pour over"}})
		if err != nil || res.IsError {
			t.Fatalf("%s: %v %+v", tool, err, res)
		}
		var out mcp.SearchOutput
		data, _ := json.Marshal(res.StructuredContent)
		if err := json.Unmarshal(data, &out); err != nil {
			t.Fatal(err)
		}
		var links []*mcpsdk.ResourceLink
		for _, c := range res.Content {
			if l, ok := c.(*mcpsdk.ResourceLink); ok {
				links = append(links, l)
			}
		}
		if len(out.Results) == 0 || len(links) != len(out.Results) {
			t.Fatalf("%s: %d results, %d resource links", tool, len(out.Results), len(links))
		}
		for i, l := range links {
			if l.URI != mcp.NoteURI(out.Results[i].Vault, out.Results[i].Path) || l.MIMEType != "text/markdown" {
				t.Errorf("%s: link %d is %+v for %s", tool, i, l, out.Results[i].Path)
			}
		}
		read, err := cs.ReadResource(ctx, &mcpsdk.ReadResourceParams{URI: links[0].URI})
		if err != nil || len(read.Contents) != 1 || read.Contents[0].Text == "" {
			t.Fatalf("%s: reading %s: %v", tool, links[0].URI, err)
		}
	}
}

// TestContextPassagesLinkTheirNotes: build-context links each note its
// passages come from, once.
func TestContextPassagesLinkTheirNotes(t *testing.T) {
	b := realBackend(t, filepath.Join(t.TempDir(), "j.db"), true, exampleVault(t))
	cs := connect(t, b)
	res, err := cs.CallTool(context.Background(), &mcpsdk.CallToolParams{Name: mcp.ToolBuildContext,
		Arguments: map[string]any{"query": "why does my pour over taste sour", "budget_tokens": 1000}})
	if err != nil || res.IsError {
		t.Fatalf("%v %+v", err, res)
	}
	var out mcp.BuildContextOutput
	data, _ := json.Marshal(res.StructuredContent)
	if err := json.Unmarshal(data, &out); err != nil {
		t.Fatal(err)
	}
	want := map[string]bool{}
	for _, p := range out.Passages {
		want[mcp.NoteURI(p.Vault, p.Path)] = true
	}
	got := map[string]bool{}
	for _, c := range res.Content {
		if l, ok := c.(*mcpsdk.ResourceLink); ok {
			if got[l.URI] {
				t.Errorf("%s linked twice", l.URI)
			}
			got[l.URI] = true
		}
	}
	if len(want) < 2 || len(got) != len(want) {
		t.Fatalf("passages from %d notes, %d links: %v", len(want), len(got), got)
	}
	for uri := range want {
		if !got[uri] {
			t.Errorf("no link to %s", uri)
		}
	}
}

// TestBudgetDescriptionNamesTheBudgetKept: the schema of build-context
// names the budget the server lowers a larger one to, from the same
// function, whatever the ceiling; a call over it is lowered at least
// that far.
func TestBudgetDescriptionNamesTheBudgetKept(t *testing.T) {
	b := realBackend(t, filepath.Join(t.TempDir(), "j.db"), true, exampleVault(t))
	cs := connectWith(t, b, mcp.Options{Version: "test", Logger: quiet(), AnswerTokens: 10000})
	tools, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var desc string
	for _, tool := range tools.Tools {
		if tool.Name == mcp.ToolBuildContext {
			data, _ := json.Marshal(tool.InputSchema)
			var s struct {
				Properties map[string]struct{ Description string } `json:"properties"`
			}
			if err := json.Unmarshal(data, &s); err != nil {
				t.Fatal(err)
			}
			desc = s.Properties["budget_tokens"].Description
		}
	}
	var out mcp.BuildContextOutput
	call(t, cs, mcp.ToolBuildContext, map[string]any{"query": "coffee", "budget_tokens": 20000}, &out)
	// (10000 - 5000 overhead) / 2 with this ceiling.
	if !strings.Contains(desc, "at most 2500 ") || out.BudgetTokens > 2500 {
		t.Fatalf("description %q; a budget of 20000 became %d", desc, out.BudgetTokens)
	}
}

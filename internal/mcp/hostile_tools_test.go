//go:build !race

// Indexing the hostile note under the race detector takes minutes; the
// test runs in every plain `go test ./...`.

package mcp_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	mcpsdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/jarvis-mcp/jarvis/internal/config"
	"github.com/jarvis-mcp/jarvis/internal/mcp"
)

// TestHostileNoteThroughTheNewTools: the searches finding, build-context
// starting from, and related-notes on, a note of 100,000 links, 50,000
// headings and 500 KB of frontmatter, in a real index, answer under the
// ceiling without the last guard cutting them. Before the snippet window
// and the embedded title were bounded, indexing such a note took minutes
// and a search finding it two more.
func TestHostileNoteThroughTheNewTools(t *testing.T) {
	v := config.Vault{Name: "hostile", Path: t.TempDir()}
	if err := os.WriteFile(filepath.Join(v.Path, "Hub.md"), []byte(hostileNote()), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, n := range []string{"Note 1", "Note 2", "Other"} {
		body := "# " + n + "\n\nA note about the hub and its headings, linking [[Hub]].\n"
		if err := os.WriteFile(filepath.Join(v.Path, n+".md"), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cs := connect(t, realBackend(t, filepath.Join(t.TempDir(), "j.db"), true, v))
	for _, c := range []struct {
		tool string
		args map[string]any
	}{
		{mcp.ToolSearchVault, map[string]any{"query": "heading hub", "limit": 100}},
		{mcp.ToolSearchCombined, map[string]any{"query": "heading hub", "limit": 50}},
		{mcp.ToolBuildContext, map[string]any{"query": "heading hub", "paths": []string{"Hub.md"}, "budget_tokens": 20000}},
		{mcp.ToolRelatedNotes, map[string]any{"path": "Hub.md", "limit": 50}},
		{mcp.ToolRelatedNotes, map[string]any{"path": "Other.md", "limit": 50}},
	} {
		start := time.Now()
		res, err := cs.CallTool(context.Background(), &mcpsdk.CallToolParams{Name: c.tool, Arguments: c.args})
		took := time.Since(start)
		if err != nil || res.IsError {
			t.Fatalf("%s: %v %+v", c.tool, err, res)
		}
		used := 0
		for _, item := range res.Content {
			if tc, ok := item.(*mcpsdk.TextContent); ok {
				used += mcp.Tokens(tc.Text)
				if strings.Contains(tc.Text, "ceiling for one answer") {
					t.Errorf("%s: the answer had to be cut to the ceiling", c.tool)
				}
			}
		}
		data, _ := json.Marshal(res.StructuredContent)
		used += mcp.Tokens(string(data))
		t.Logf("%s %v: %d tokens in %v", c.tool, c.args, used, took)
		if used > mcp.DefaultAnswerTokens {
			t.Errorf("%s: %d tokens", c.tool, used)
		}
	}
}

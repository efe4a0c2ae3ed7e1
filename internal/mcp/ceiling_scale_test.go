//go:build !race

// The race detector makes indexing 10,000 notes take minutes; the test
// runs in every plain `go test ./...`.

package mcp_test

import (
	"context"
	"database/sql"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	mcpsdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/jarvis-mcp/jarvis/internal/config"
	"github.com/jarvis-mcp/jarvis/internal/mcp"
	"github.com/jarvis-mcp/jarvis/internal/vaultgen"
)

// TestEveryAnswerUnderTheCeilingAt10k calls every tool, asking for as
// much as its arguments allow, on the largest hub and the longest note of
// a generated 10,000-note vault, and holds each answer (text, structured
// content and resource links) under the default ceiling without the last
// guard having to cut it.
func TestEveryAnswerUnderTheCeilingAt10k(t *testing.T) {
	if testing.Short() {
		t.Skip("indexes 10,000 notes")
	}
	root := filepath.Join(t.TempDir(), "vault")
	if _, err := vaultgen.Generate(root, vaultgen.Options{Notes: 10000, Seed: 1}); err != nil {
		t.Fatal(err)
	}
	dbPath := filepath.Join(t.TempDir(), "j.db")
	b := realBackend(t, dbPath, true, config.Vault{Name: "gen", Path: root})
	hub := largestHub(t, dbPath)
	longest := longestNote(t, dbPath)
	cs := connect(t, b)
	calls := []struct {
		tool string
		args map[string]any
	}{
		{mcp.ToolReadNote, map[string]any{"path": hub, "max_chars": 100000}},
		{mcp.ToolReadNote, map[string]any{"path": longest, "max_chars": 100000}},
		{mcp.ToolSearchGraph, map[string]any{"query_note_path": hub, "depth": 5, "direction": "both"}},
		{mcp.ToolSearchGraph, map[string]any{"query_note_path": longest, "depth": 5, "direction": "both"}},
		{mcp.ToolSearchVault, map[string]any{"query": "the notes and the project", "limit": 100}},
		{mcp.ToolSearchSemantic, map[string]any{"query": "meeting notes about the budget and the project roadmap", "limit": 50}},
		{mcp.ToolSearchCombined, map[string]any{"query": "meeting notes about the budget and the project roadmap", "limit": 50}},
		{mcp.ToolBuildContext, map[string]any{"query": "meeting notes about the budget and the project roadmap", "budget_tokens": 20000}},
		{mcp.ToolBuildContext, map[string]any{"query": "project", "budget_tokens": 20000, "paths": []string{hub, longest}}},
		{mcp.ToolRelatedNotes, map[string]any{"path": hub, "limit": 50}},
		{mcp.ToolRelatedNotes, map[string]any{"path": longest, "limit": 50}},
		{mcp.ToolListVaults, map[string]any{}},
		{mcp.ToolHealthStatus, map[string]any{}},
	}
	for _, c := range calls {
		res, err := cs.CallTool(context.Background(), &mcpsdk.CallToolParams{Name: c.tool, Arguments: c.args})
		if err != nil {
			t.Fatalf("%s: %v", c.tool, err)
		}
		if res.IsError {
			t.Fatalf("%s %v: tool error %v", c.tool, c.args, res.Content)
		}
		used := 0
		for _, item := range res.Content {
			if tc, ok := item.(*mcpsdk.TextContent); ok {
				used += mcp.Tokens(tc.Text)
				// Each tool sizes its own answer; the last guard cutting
				// one means that tool's bounds are wrong.
				if strings.Contains(tc.Text, "ceiling for one answer") {
					t.Errorf("%s %v: the answer had to be cut to the ceiling", c.tool, c.args)
				}
			} else {
				data, _ := json.Marshal(item)
				used += mcp.Tokens(string(data))
			}
		}
		data, _ := json.Marshal(res.StructuredContent)
		used += mcp.Tokens(string(data))
		t.Logf("%s %v: %d tokens", c.tool, c.args, used)
		if used > mcp.DefaultAnswerTokens {
			t.Errorf("%s %v: %d tokens, over the ceiling of %d", c.tool, c.args, used, mcp.DefaultAnswerTokens)
		}
	}
}

// longestNote is the path of the largest note in the database at dbPath.
func longestNote(t testing.TB, dbPath string) string {
	t.Helper()
	db, err := sql.Open("sqlite", dbPath)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var path string
	if err := db.QueryRow(`SELECT path FROM files WHERE path LIKE '%.md' ORDER BY size DESC, path LIMIT 1`).Scan(&path); err != nil {
		t.Fatal(err)
	}
	return path
}

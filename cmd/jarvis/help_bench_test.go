//go:build linux

package main

import (
	"context"
	"path/filepath"
	"testing"

	mcpsdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/jarvis-mcp/jarvis/internal/mcp"
	"github.com/jarvis-mcp/jarvis/internal/sharedtest"
)

// BenchmarkMCPHelpVault measures search-semantic over stdio on the English
// Obsidian Help vault, as `jarvis mcp` serves it to a client once its
// index and vectors are made, and reports the vector store list-vaults
// names for it:
//
//	go test -run '^$' -bench MCPHelpVault -benchtime 300x ./cmd/jarvis/
func BenchmarkMCPHelpVault(b *testing.B) {
	root := filepath.Join(b.TempDir(), "en")
	sharedtest.CopyTree(b, sharedtest.Path(b, "vaults/obsidian-help/en"), root)
	cs, _, _ := startServer(b, root, filepath.Join(b.TempDir(), "j.db"))
	defer cs.Close()
	waitReady(b, cs)
	res, err := cs.CallTool(context.Background(), &mcpsdk.CallToolParams{Name: mcp.ToolListVaults})
	if err != nil || res.IsError {
		b.Fatalf("list-vaults: %v %+v", err, res)
	}
	for _, v := range res.StructuredContent.(map[string]any)["vaults"].([]any) {
		v := v.(map[string]any)
		b.Logf("vault %v: %v notes, vector store %q", v["name"], v["notes"], v["vector_store"])
	}
	queries := []string{
		"how do I link to a heading in another note",
		"sync my notes between phone and computer",
		"change the font size of the editor",
		"embed an image in a note",
		"what happens to links when I rename a file",
	}
	var calls []toolCall
	for _, q := range queries {
		calls = append(calls, toolCall{mcp.ToolSearchSemantic, map[string]any{"query": q}})
	}
	reportLatencies(b, timeRounds(b, cs, calls))
}

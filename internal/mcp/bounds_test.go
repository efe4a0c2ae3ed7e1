package mcp_test

import (
	"strings"
	"testing"

	"github.com/jarvis-mcp/jarvis/internal/config"
	"github.com/jarvis-mcp/jarvis/internal/mcp"
)

// TestSchemaErrorsUseTheRightArticle: "an integer", not "a integer".
func TestSchemaErrorsUseTheRightArticle(t *testing.T) {
	cs := connect(t, &mcp.Backend{Vaults: []config.Vault{exampleVault(t)}})
	for _, tc := range []struct {
		tool string
		args map[string]any
		want string
	}{
		{mcp.ToolSearchVault, map[string]any{"query": "coffee", "limit": "ten"}, "limit must be an integer, not a string"},
		{mcp.ToolSearchVault, map[string]any{"query": []string{"coffee"}}, "query must be a string, not an array"},
		{mcp.ToolSearchGraph, map[string]any{"query_note_path": "x", "depth": map[string]any{}}, "depth must be an integer, not an object"},
	} {
		text, isErr := call(t, cs, tc.tool, tc.args, nil)
		if !isErr || !strings.Contains(text, tc.want) {
			t.Errorf("%s %v: error %v, %q; want %q", tc.tool, tc.args, isErr, text, tc.want)
		}
	}
}

package mcp_test

import (
	"context"
	"strings"
	"testing"

	mcpsdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/jarvis-mcp/jarvis/internal/config"
	"github.com/jarvis-mcp/jarvis/internal/mcp"
	"github.com/jarvis-mcp/jarvis/internal/metrics"
)

// TestUnknownToolsLeaveTheServerAnswering: a call of a tool the server
// does not have (a wrong name, one in the wrong case, none at all) is
// refused with an error, the server goes on answering, and health-status
// counts only the tools that exist. The server times its calls, as
// jarvis mcp's does: the timing once read a failed call's nil result and
// took the whole server down.
func TestUnknownToolsLeaveTheServerAnswering(t *testing.T) {
	m := metrics.New()
	cs := connectWith(t, &fake{Vaults: []config.Vault{exampleVault(t)}}, mcp.Options{Version: "test", Logger: quiet(), Metrics: m})
	for _, name := range []string{"nope", "", "Search-Vault", strings.Repeat("x", 5000)} {
		res, err := cs.CallTool(context.Background(), &mcpsdk.CallToolParams{Name: name, Arguments: map[string]any{}})
		if err == nil && (res == nil || !res.IsError) {
			t.Errorf("a call of tool %.20q is not refused: %+v", name, res)
		}
	}
	if _, isErr := call(t, cs, mcp.ToolListVaults, map[string]any{}, nil); isErr {
		t.Fatal("list-vaults fails after the unknown tools")
	}
	for _, tool := range m.Tools() {
		if tool.Name != mcp.ToolListVaults {
			t.Errorf("health-status would list a tool the server does not have: %.20q", tool.Name)
		}
	}
}

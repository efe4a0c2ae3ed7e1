package mcp_test

import (
	"context"
	"encoding/json"
	"log/slog"
	"path/filepath"
	"strings"
	"testing"

	mcpsdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/jarvis-mcp/jarvis/internal/config"
	"github.com/jarvis-mcp/jarvis/internal/mcp"
	"github.com/jarvis-mcp/jarvis/internal/search"
	"github.com/jarvis-mcp/jarvis/internal/sharedtest"
)

// TestNullArgumentsAreNoArguments calls every tool with "arguments": null
// over a real client and server: each answers as it does with {} (a tool
// that needs an argument says which, in the same words), never with an
// internal error, and nothing panics.
func TestNullArgumentsAreNoArguments(t *testing.T) {
	var logs sharedtest.SyncBuffer
	b := realBackend(t, filepath.Join(t.TempDir(), "j.db"), true, exampleVault(t))
	cs := connectWith(t, b, mcp.Options{Version: "test", Logger: slog.New(slog.NewTextHandler(&logs, nil))})
	list, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(list.Tools) != 11 {
		t.Fatalf("%d tools listed, want 11", len(list.Tools))
	}
	for _, tool := range list.Tools {
		t.Run(tool.Name, func(t *testing.T) {
			res, err := cs.CallTool(context.Background(), &mcpsdk.CallToolParams{Name: tool.Name, Arguments: json.RawMessage("null")})
			if err != nil {
				t.Fatalf("protocol error %v", err)
			}
			empty, err := cs.CallTool(context.Background(), &mcpsdk.CallToolParams{Name: tool.Name, Arguments: map[string]any{}})
			if err != nil {
				t.Fatalf("protocol error %v", err)
			}
			got, want := toolText(res), toolText(empty)
			// An error is worded the same; an answer (health-status's
			// ages, for one) may differ from one call to the next.
			if strings.Contains(got, "internal error") || res.IsError != empty.IsError || (empty.IsError && got != want) {
				t.Fatalf("with null arguments: error=%v %q\nwith {}: error=%v %q", res.IsError, got, empty.IsError, want)
			}
		})
	}
	if strings.Contains(logs.String(), "panicked") {
		t.Fatalf("a handler panicked:\n%s", clipLog(logs.String()))
	}
}

// TestRepeatedPanicsLogOnce has one kind of panic happen many times: its
// stack is logged once, and the repeats only as a count, at powers of two.
func TestRepeatedPanicsLogOnce(t *testing.T) {
	var logs sharedtest.SyncBuffer
	b := &fake{
		Vaults: []config.Vault{exampleVault(t)},
		Search: searchFunc(func(context.Context, search.Query) (search.Answer, error) {
			panic("assignment to entry in nil map") // as null arguments once made seven tools do
		}),
	}
	cs := connectWith(t, b, mcp.Options{Version: "test", Logger: slog.New(slog.NewTextHandler(&logs, nil))})
	const calls = 100
	for range calls {
		text, isErr := call(t, cs, mcp.ToolSearchVault, map[string]any{"query": "coffee"}, nil)
		if !isErr || !strings.Contains(text, "internal error") {
			t.Fatalf("panic gave error=%v %q", isErr, text)
		}
	}
	out := logs.String()
	if n := strings.Count(out, "runtime/debug.Stack()"); n != 1 {
		t.Fatalf("%d stacks logged for %d panics of one kind, want 1:\n%s", n, calls, clipLog(out))
	}
	// 2, 4, 8, 16, 32 and 64 times.
	if n := strings.Count(out, "handler panicked again"); n != 6 || !strings.Contains(out, "times=64") {
		t.Fatalf("%d lines with a count, want 6 (up to times=64):\n%s", n, clipLog(out))
	}
	if len(out) > 16<<10 {
		t.Fatalf("%d bytes logged for %d panics of one kind", len(out), calls)
	}
}

func toolText(res *mcpsdk.CallToolResult) string {
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*mcpsdk.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}

func clipLog(s string) string {
	if len(s) > 4000 {
		return s[:4000] + "…"
	}
	return s
}

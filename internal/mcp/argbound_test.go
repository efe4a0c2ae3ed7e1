package mcp_test

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jarvis-mcp/jarvis/internal/mcp"
)

// TestSchemasGiveTheArgumentBound: no argument of any tool, writable
// vault or not, is promised a maxLength longer than a call's arguments
// may be in all, and an argument at that bound is refused with words
// that say how to send a long text.
func TestSchemasGiveTheArgumentBound(t *testing.T) {
	v := exampleVault(t)
	v.Write = true
	cs := connect(t, realBackend(t, filepath.Join(t.TempDir(), "j.db"), false, v))
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var walk func(tool, at string, node any)
	walk = func(tool, at string, node any) {
		switch n := node.(type) {
		case map[string]any:
			if m, ok := n["maxLength"].(float64); ok && m > mcp.MaxArgumentBytes {
				t.Errorf("%s: %s has maxLength %v, over the %d bytes a call's arguments may take", tool, at, m, mcp.MaxArgumentBytes)
			}
			for k, sub := range n {
				walk(tool, at+"."+k, sub)
			}
		case []any:
			for _, sub := range n {
				walk(tool, at+"[]", sub)
			}
		}
	}
	for _, tool := range res.Tools {
		data, err := json.Marshal(tool.InputSchema)
		if err != nil {
			t.Fatal(err)
		}
		var schema any
		if err := json.Unmarshal(data, &schema); err != nil {
			t.Fatal(err)
		}
		walk(tool.Name, "input", schema)
	}
	text, isErr := call(t, cs, mcp.ToolCreateNote, map[string]any{"path": "Long.md", "content": strings.Repeat("x", mcp.MaxArgumentBytes)}, nil)
	if !isErr || !strings.Contains(text, "edit-note's append") || strings.Contains(text, "schema gives the longest") {
		t.Errorf("create-note with content at its bound: %v %.300s", isErr, text)
	}
}

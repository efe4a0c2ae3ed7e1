package mcp_test

import (
	"context"
	"encoding/json"
	"path/filepath"
	"testing"

	"github.com/jarvis-mcp/jarvis/internal/mcp"
)

func TestRequestWrites(t *testing.T) {
	for _, tc := range []struct {
		name, body string
		want       bool
	}{
		{"initialize", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}`, false},
		{"tools/list", `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`, false},
		{"a reading tool", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"search-vault","arguments":{"query":"x"}}}`, false},
		{"a response", `{"jsonrpc":"2.0","id":1,"result":{}}`, false},
		{"edit-note", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"edit-note","arguments":{}}}`, true},
		{"create-note", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"create-note"}}`, true},
		{"periodic-note read", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"periodic-note","arguments":{"period":"daily"}}}`, false},
		{"periodic-note empty append", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"periodic-note","arguments":{"append":""}}}`, false},
		{"periodic-note append", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"periodic-note","arguments":{"period":"daily","append":"- milk"}}}`, true},
		{"escaped method", `{"jsonrpc":"2.0","id":1,"method":"tools\/call","params":{"name":"delete-note"}}`, true},
		// A second reading of the same body must not turn a write into a
		// read: anything given twice counts as writing.
		{"name twice", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"delete-note","name":"search-vault"}}`, true},
		{"params twice", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"delete-note"},"params":{"name":"search-vault"}}`, true},
		{"append twice", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"periodic-note","arguments":{"append":"x","append":""}}}`, true},
		{"not JSON", `{"method":"tools/call"`, true},
		{"a batch", `[{"jsonrpc":"2.0","id":1,"method":"tools/list"}]`, true},
	} {
		if got := mcp.RequestWrites([]byte(tc.body)); got != tc.want {
			t.Errorf("%s: got %v, want %v", tc.name, got, tc.want)
		}
	}
}

// TestCallWritesMatchesAnnotations holds the declaration the HTTP
// server's scopes follow (CallWrites) to what each tool tells clients: a
// tool that may write, given the arguments that make it write, is the one
// not marked read-only.
func TestCallWritesMatchesAnnotations(t *testing.T) {
	v := exampleVault(t)
	v.Write = true
	cs := connect(t, realBackend(t, filepath.Join(t.TempDir(), "j.db"), false, v))
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	writing := json.RawMessage(`{"append":"- milk"}`)
	n := 0
	for _, tool := range res.Tools {
		writes := mcp.CallWrites(tool.Name, writing)
		if tool.Annotations == nil || tool.Annotations.ReadOnlyHint == writes {
			t.Errorf("%s: CallWrites says %v, annotations %+v", tool.Name, writes, tool.Annotations)
		}
		if writes {
			n++
		}
	}
	if n != 5 {
		t.Errorf("%d tools may write; want the four write tools and periodic-note", n)
	}
}

package mcp

import (
	"bytes"
	"strings"
	"testing"
)

// TestStdioAndHTTPRefuseAlike: what CheckBody refuses, the reply an HTTP
// body gets, is what a stdio line gets, batches included: one check
// serves both transports, so that no message is refused by one door and
// let in by the other.
func TestStdioAndHTTPRefuseAlike(t *testing.T) {
	for _, tt := range []struct{ name, msg string }{
		{"a batch", `[{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","id":2,"method":"ping"}]`},
		{"a batch with a fraction id", `[{"jsonrpc":"2.0","id":1.5,"method":"ping"}]`},
		{"a batch with a 30-digit id", `[{"jsonrpc":"2.0","id":123456789012345678901234567890,"method":"ping"}]`},
		{"a batch repeating an id", `[{"jsonrpc":"2.0","id":7,"method":"ping"},{"jsonrpc":"2.0","id":7,"method":"ping"}]`},
		{"an empty batch", `[]`},
		{"a batch after spaces", " \t[{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}]"},
		{"a fraction id", `{"jsonrpc":"2.0","id":1.5,"method":"ping"}`},
		{"a 30-digit id", `{"jsonrpc":"2.0","id":123456789012345678901234567890,"method":"ping"}`},
		{"a null id", `{"jsonrpc":"2.0","id":null,"method":"ping"}`},
		{"JSON 2,000 levels deep", `{"jsonrpc":"2.0","id":1,"method":"ping","params":` + strings.Repeat(`[`, 2000) + strings.Repeat(`]`, 2000) + `}`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			http := CheckBody([]byte(tt.msg))
			if http == nil {
				t.Fatal("CheckBody let it in")
			}
			_, stdio := checkLine(bytes.TrimSpace([]byte(tt.msg)))
			if !bytes.Equal(http, stdio) {
				t.Fatalf("over HTTP %s\nover stdio %s", http, stdio)
			}
		})
	}
}

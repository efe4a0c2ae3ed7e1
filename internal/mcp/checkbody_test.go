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

// TestWithoutSession: of the messages sent without a session, only
// initialize is let through; a request is answered with its own id, a
// notification or a response with id null, and a body that is not a JSON
// object is left to the SDK.
func TestWithoutSession(t *testing.T) {
	for _, tt := range []struct{ name, msg, want string }{
		{"initialize", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}`, ""},
		{"tools/list", `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`, `"id":2,"error":{"code":-32600`},
		{"a ping", `{"jsonrpc":"2.0","id":"p","method":"ping"}`, `"id":"p","error":{"code":-32600`},
		{"a notification", `{"jsonrpc":"2.0","method":"notifications/initialized"}`, `"id":null,"error":{"code":-32600`},
		{"a response", `{"jsonrpc":"2.0","id":5,"result":{}}`, `"id":null,"error":{"code":-32600`},
		{"not JSON", `initialize`, ""},
		{"not an object", `null`, ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got := string(WithoutSession([]byte(tt.msg)))
			if tt.want == "" && got != "" || !strings.Contains(got, tt.want) {
				t.Fatalf("got %q, want %q", got, tt.want)
			}
		})
	}
}

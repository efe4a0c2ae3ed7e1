package mcp

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestParseErrorSaysWhy: a message that is not valid JSON is told where
// it goes wrong (cut short, or which character is out of place), naming
// the HTTP body or the stdio line; only several messages at once are told
// to send one message each. A cut-short body was told to send one
// message, as if it had been several.
func TestParseErrorSaysWhy(t *testing.T) {
	for _, tt := range []struct {
		name, msg, body, line string
	}{
		{"cut short", `{"jsonrpc":`,
			"the body is not valid JSON: it ends after 11 bytes, before the JSON is complete",
			"the line is not valid JSON: it ends after 11 bytes, before the JSON is complete"},
		{"a misspelt value", `{"jsonrpc": nope}`,
			"the body is not valid JSON: the character 'o' at byte 14 is out of place",
			"the line is not valid JSON: the character 'o' at byte 14 is out of place"},
		{"a trailing comma", `{"jsonrpc":"2.0",}`,
			"the body is not valid JSON: the character '}' at byte 18 is out of place",
			"the line is not valid JSON: the character '}' at byte 18 is out of place"},
		{"two messages", `{"jsonrpc":"2.0","id":1,"method":"ping"} {"jsonrpc":"2.0","id":2,"method":"ping"}`,
			"each request must be one JSON-RPC message", "each request must be one JSON-RPC message"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, stdio := checkLine([]byte(tt.msg))
			for _, c := range []struct {
				door, want string
				reply      []byte
			}{
				{"HTTP", tt.body, CheckBody([]byte(tt.msg))},
				{"stdio", tt.line, stdio},
			} {
				var m struct {
					Error struct {
						Code    int    `json:"code"`
						Message string `json:"message"`
					} `json:"error"`
				}
				if err := json.Unmarshal(c.reply, &m); err != nil {
					t.Fatalf("%s: reply %q: %v", c.door, c.reply, err)
				}
				if m.Error.Code != codeParseError || !strings.HasPrefix(m.Error.Message, "Parse error: "+c.want) {
					t.Errorf("%s: %d %q; want %d and %q", c.door, m.Error.Code, m.Error.Message, codeParseError, c.want)
				}
			}
		})
	}
}

package words

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

func TestJSONSyntax(t *testing.T) {
	for _, tc := range []struct{ name, data, want string }{
		{"trailing comma in an object", "{\n  \"mcpServers\": {\n    \"a\": {\"command\": \"x\"},\n  }\n}\n",
			"line 4, column 3: a comma before '}'"},
		{"trailing comma in a list", `{"userIgnoreFilters": ["Templates/",]}`,
			"line 1, column 37: a comma before ']'"},
		{"line comment", "{\n  // mine\n  \"mcpServers\": {}\n}\n",
			"line 2, column 3: a comment (// or /*), which JSON does not allow; remove it"},
		{"block comment", "{\n  /* mine */\n  \"mcpServers\": {}\n}\n",
			"line 2, column 3: a comment (// or /*), which JSON does not allow; remove it"},
		{"comment after a value", "{\"a\": 1 // one\n}",
			"line 1, column 9: a comment (// or /*), which JSON does not allow; remove it"},
		{"single quotes", "{'a': 1}", "line 1, column 2: a single quote, where JSON takes double quotes"},
		{"bare key", "{\n\tmcpServers: {}\n}", "line 2, column 2: a key without double quotes, which JSON puts around every key"},
		{"missing comma", "{\"a\": 1\n \"b\": 2}", `line 2, column 2: a comma is missing before the character '"'`},
		{"cut short", "{\"mcpServers\": {\n", "line 1, column 17: the text ends before the JSON is complete"},
		{"two values", `{} {}`, "line 1, column 4: more text after the end of the JSON"},
		{"columns count characters, not bytes", `{"é": x}`, "line 1, column 7: the character 'x' is out of place"},
		{"line break in a string", "{\"a\": \"one\ntwo\"}", "line 1, column 11: a line break, tab or other control character inside quotes; JSON writes a line break as \\n and a tab as \\t"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var v any
			err := json.Unmarshal([]byte(tc.data), &v)
			if err == nil {
				t.Fatalf("%q is valid JSON", tc.data)
			}
			got, ok := JSONSyntax([]byte(tc.data), err)
			if !ok || got != tc.want {
				t.Fatalf("JSONSyntax = %q, %v; want %q", got, ok, tc.want)
			}
		})
	}
	if got, ok := JSONSyntax([]byte("[1]"), errors.New("not syntax")); ok {
		t.Fatalf("another error is worded as a syntax error: %q", got)
	}
}

// FuzzJSONSyntax: whatever a hand-edited file holds, the words name a
// line and a column and never the decoder's own phrases.
func FuzzJSONSyntax(f *testing.F) {
	for _, s := range []string{"{,}", "{\n//x\n}", "[1,]", "{'a':1}", "\"\x01\"", "{\"a\":1", "é", "\xff"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var v any
		err := json.Unmarshal(data, &v)
		got, ok := JSONSyntax(data, err)
		var syn *json.SyntaxError
		if ok != errors.As(err, &syn) {
			t.Fatalf("ok = %v for %v", ok, err)
		}
		if ok && (!strings.HasPrefix(got, "line ") || strings.Contains(got, "invalid character") || strings.Contains(got, "looking for")) {
			t.Fatalf("JSONSyntax(%q) = %q", data, got)
		}
	})
}

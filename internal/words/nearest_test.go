package words

import "testing"

func TestNearest(t *testing.T) {
	cmds := []string{"index", "search", "related", "query", "doctor", "mcp", "model", "setup", "version", "history", "undo"}
	for _, tc := range []struct{ typed, want string }{
		{"serch", "search"}, {"idnex", "index"}, {"Doctr", "doctor"}, {"mdoel", "model"},
		{"xyz", ""}, {"undoo", "undo"}, {"", ""},
	} {
		if got := Nearest(tc.typed, cmds, 2); got != tc.want {
			t.Errorf("Nearest(%q) = %q; want %q", tc.typed, got, tc.want)
		}
	}
	if got := Nearest("ab", []string{"ax", "ay"}, 2); got != "" {
		t.Errorf("two as near: %q; want none", got)
	}
	if d := EditDistance("hoem", "home"); d != 1 {
		t.Errorf("a swap counts %d edits; want 1", d)
	}
}

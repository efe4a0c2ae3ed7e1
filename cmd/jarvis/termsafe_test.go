package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/jarvis-mcp/jarvis/internal/sharedtest"
)

// TestSafeWriter: control characters a note holds reach the terminal as
// symbols, while text, newlines, tabs and search's own bold pass as they
// are.
func TestSafeWriter(t *testing.T) {
	for in, want := range map[string]string{
		"plain text\tand a tab\n":                "plain text\tand a tab\n",
		"bell \a esc \x1b[31m red\n":             "bell ␇ esc ␛[31m red\n",
		"nul \x00 del \x7f cr \r":                "nul ␀ del ␡ cr ␍",
		"c1 \u009b2J and é ü 🚀":                  "c1 \ufffd2J and é ü 🚀",
		"a " + boldOn + "match" + boldOff + " b": "a " + boldOn + "match" + boldOff + " b",
	} {
		var b strings.Builder
		n, err := safeWriter{&b}.Write([]byte(in))
		if err != nil || n != len(in) || b.String() != want {
			t.Errorf("Write(%q) = %d, %v, wrote %q; want %q", in, n, err, b.String(), want)
		}
	}
}

// TestSearchShowsNoControlCharacters: a note holding an escape sequence
// and a bell is found by jarvis search, whose output shows them as
// symbols rather than passing them to the terminal.
func TestSearchShowsNoControlCharacters(t *testing.T) {
	vault := filepath.Join(t.TempDir(), "v")
	sharedtest.WriteFile(t, vault, "Ctl.md", "# Ctl\n\nbellwether \a esc \x1b[31m red\n")
	db := filepath.Join(t.TempDir(), "j.db")
	code, stdout, stderr := jarvis(t, nil, "search", "--vault", vault, "--db", db, "bellwether")
	if code != 0 || !strings.Contains(stdout, "Ctl.md") {
		t.Fatalf("exit %d: %s%s", code, stdout, stderr)
	}
	if strings.ContainsAny(stdout, "\a\x1b") || !strings.Contains(stdout, "␛[31m") {
		t.Errorf("control characters reach the terminal: %q", stdout)
	}
}

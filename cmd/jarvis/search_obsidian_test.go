package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jarvis-mcp/jarvis/internal/sharedtest"
)

// TestSearchSaysItWasNotRunWhenObsidianSettingsAreUnknown: when the index
// cannot be brought up to date because Obsidian's excluded files cannot
// be taken, search says that the search itself was not run, and why, and
// gives a command that searches the index as it is, which works pasted.
func TestSearchSaysItWasNotRunWhenObsidianSettingsAreUnknown(t *testing.T) {
	v := filepath.Join(t.TempDir(), "garden")
	sharedtest.WriteFile(t, v, "Tomato.md", "# Tomato\n\nRipe tomato.\n")
	sharedtest.WriteFile(t, v, "Templates/Day.md", "# Day\n")
	sharedtest.WriteFile(t, v, ".obsidian/app.json", `{"userIgnoreFilters": ["Templates/"]}`)
	flags := []string{"--vault", v, "--db", filepath.Join(t.TempDir(), "sl.db")}
	if code, _, stderr := jarvis(t, nil, append([]string{"index", "--no-embed"}, flags...)...); code != 0 {
		t.Fatalf("index: exit %d: %s", code, stderr)
	}
	if err := os.WriteFile(filepath.Join(v, ".obsidian", "app.json"), []byte(`{"userIgnoreFilters": ["Templates/",`), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, stderr := jarvis(t, nil, append([]string{"search", "--mode", "keyword"}, append(flags, "tomato")...)...)
	if code != 1 || !strings.HasPrefix(stderr, "jarvis: the search was not run: ") || !strings.Contains(stderr, "app.json is not valid now") {
		t.Fatalf("search with app.json broken: exit %d: %s", code, stderr)
	}
	sharedtest.CheckWords(t, "search", stderr)
	_, cmd, ok := strings.Cut(stderr, "to search the index as it is meanwhile, run `")
	cmd, _, _ = strings.Cut(cmd, "`")
	args := strings.Fields(cmd)
	if !ok || len(args) < 2 || args[0] != "jarvis" || !strings.Contains(cmd, "--no-refresh") || !strings.Contains(cmd, "--mode keyword") {
		t.Fatalf("no command that searches the index as it is, with the flags given: %s", stderr)
	}
	if code, stdout, stderr := jarvis(t, nil, args[1:]...); code != 0 || !strings.Contains(stdout, "Tomato.md") {
		t.Errorf("%s: exit %d: %s%s", cmd, code, stdout, stderr)
	}
}

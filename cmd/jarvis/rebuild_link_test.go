package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jarvis-mcp/jarvis/internal/sharedtest"
)

// TestRebuildKeepsTheLinkAndSaysNotesAreIndexedAfresh: `jarvis index
// --rebuild --db s2.db`, where s2.db is a link to other/real.db, puts the
// fresh index in other/real.db and leaves the link as it is; its summary
// says the notes were indexed afresh, not added as new ones.
func TestRebuildKeepsTheLinkAndSaysNotesAreIndexedAfresh(t *testing.T) {
	vault := filepath.Join(t.TempDir(), "garden")
	sharedtest.WriteFile(t, vault, "Tomato.md", "# Tomato\n\nSee [[Basil]].\n")
	sharedtest.WriteFile(t, vault, "Basil.md", "# Basil\n")
	dir := t.TempDir()
	if err := os.Mkdir(filepath.Join(dir, "other"), 0o755); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "s2.db")
	if err := os.Symlink(filepath.Join("other", "real.db"), link); err != nil {
		t.Fatal(err)
	}
	flags := []string{"--vault", vault, "--db", link, "--no-embed"}
	if code, _, stderr := jarvis(t, nil, append([]string{"index"}, flags...)...); code != 0 {
		t.Fatalf("index: exit %d: %s", code, stderr)
	}
	code, stdout, stderr := jarvis(t, nil, append([]string{"index", "--rebuild"}, flags...)...)
	if code != 0 {
		t.Fatalf("index --rebuild: exit %d: %s", code, stderr)
	}
	if st, err := os.Lstat(link); err != nil || st.Mode()&os.ModeSymlink == 0 {
		t.Errorf("after the rebuild %s is no longer a link (%v)", link, err)
	}
	if !strings.Contains(stdout, "notes: 2 indexed afresh\n") || strings.Contains(stdout, "added") {
		t.Errorf("the rebuild's summary does not say the notes were indexed afresh:\n%s", stdout)
	}
	sharedtest.CheckWords(t, "index --rebuild", stdout)

	// The server's path, the real file, names the fresh index.
	code, stdout, stderr = jarvis(t, nil, "search", "--json", "--no-refresh", "--vault", vault, "--db", filepath.Join(dir, "other", "real.db"), "tomato")
	if code != 0 || !strings.Contains(stdout, "Tomato.md") {
		t.Errorf("search through the real path: exit %d: %s%s", code, stdout, stderr)
	}
}

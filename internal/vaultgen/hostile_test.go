package vaultgen_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	jvault "github.com/jarvis-mcp/jarvis/internal/vault"
	"github.com/jarvis-mcp/jarvis/internal/vaultgen"
)

// TestHostileNotesAreParsed checks that every note Hostile writes is under
// the note size limit, so the indexer parses it rather than skipping it,
// and that Home links to each.
func TestHostileNotesAreParsed(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "v")
	notes, err := vaultgen.Hostile(dir, vaultgen.HostileOptions{LinkDenseCopies: 2})
	if err != nil {
		t.Fatal(err)
	}
	home, err := os.ReadFile(filepath.Join(dir, "Home.md"))
	if err != nil {
		t.Fatal(err)
	}
	if len(notes) != 9 || notes[len(notes)-1].Path != "Home.md" {
		t.Fatalf("notes %+v", notes)
	}
	for _, n := range notes {
		st, err := os.Stat(filepath.Join(dir, n.Path))
		if err != nil || st.Size() != int64(n.Size) || st.Size() > jvault.MaxNoteSize {
			t.Errorf("%s: %v, %d bytes; want %d, at most %d", n.Path, err, st.Size(), n.Size, jvault.MaxNoteSize)
		}
		if n.Path != "Home.md" && !strings.Contains(string(home), "[["+strings.TrimSuffix(n.Path, ".md")+"]]") {
			t.Errorf("Home does not link to %s", n.Path)
		}
	}
}

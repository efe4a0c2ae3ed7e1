package search

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jarvis-mcp/jarvis/internal/config"
	"github.com/jarvis-mcp/jarvis/internal/search/notes"
)

// TestLatin1NoteIsFoundByItsWords: a note saved as Windows-1252 is found
// by its accented words, with its title and snippet in the characters
// written, by the index and by the file scan alike.
func TestLatin1NoteIsFoundByItsWords(t *testing.T) {
	root := t.TempDir()
	// "Crème brûlée" in Windows-1252: è is 0xE8, û 0xFB, é 0xE9.
	src := "---\ntitle: Caf\xe9 cr\xe8me\n---\n# Cr\xe8me br\xfbl\xe9e\n\nLa cr\xe8me br\xfbl\xe9e est un dessert fran\xe7ais.\n"
	if err := os.WriteFile(filepath.Join(root, "202402021200.md"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	v := config.Vault{Name: "v", Path: root}
	svc, _ := indexedService(t, v)
	ans, err := svc.Search(context.Background(), Query{Mode: ModeKeyword, Text: "crème brûlée", Limit: 5})
	if err != nil || len(ans.Results) != 1 {
		t.Fatalf("indexed search: %+v, %v; want the note", ans.Results, err)
	}
	if r := ans.Results[0]; r.Title != "Café crème" || !strings.Contains(r.Snippet, "brûlée") {
		t.Errorf("indexed result: title %q, snippet %q", r.Title, r.Snippet)
	}
	scan, err := scanFiles(context.Background(), []config.Vault{v}, "crème brûlée", notes.Filter{}, 5, true)
	if err != nil || len(scan) != 1 || !strings.Contains(scan[0].Snippet, "brûlée") {
		t.Fatalf("file scan: %+v, %v; want the note with its words", scan, err)
	}
}

package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestWriteThenUndo is the path of a user who lets Claude write: jarvis
// mcp --write offers the write tools, an edit made through them is listed
// by jarvis history, and jarvis undo puts the note back byte for byte;
// without --write no write tool is offered.
func TestWriteThenUndo(t *testing.T) {
	vault := messageVault(t)
	db := filepath.Join(t.TempDir(), "j.db")
	flags := []string{"--vault", vault, "--db", db}
	mustIndex(t, nil, flags...)
	const note = "Coffee.md"
	before, err := os.ReadFile(filepath.Join(vault, note))
	if err != nil {
		t.Fatal(err)
	}

	plain, _ := serve(t, []string{"HOME=" + t.TempDir()}, flags...)
	list, err := plain.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tool := range list.Tools {
		if strings.HasSuffix(tool.Name, "-note") && tool.Name != "read-note" && tool.Name != "periodic-note" {
			t.Errorf("%s is offered without --write", tool.Name)
		}
	}
	plain.Close()

	cs, _ := serve(t, []string{"HOME=" + t.TempDir()}, append(flags, "--write")...)
	_, read := readTool(t, cs, "read-note", map[string]any{"path": note})
	etag, _ := read["etag"].(string)
	res, out := readTool(t, cs, "edit-note", map[string]any{"path": note, "etag": etag,
		"edits": []any{map[string]any{"op": "set_properties", "properties": map[string]any{"status": "tried"}}}})
	if res.IsError || !strings.Contains(mustJSON(out), "jarvis undo --vault "+vault+" --db "+db+" 1") {
		t.Fatalf("edit-note: %s %s", toolText(res), mustJSON(out))
	}
	cs.Close()
	if after, _ := os.ReadFile(filepath.Join(vault, note)); !strings.HasPrefix(string(after), "---\nstatus: tried\n---\n") {
		t.Fatalf("the note after the edit:\n%s", after)
	}

	// A rebuild of a sound database keeps the journal.
	mustIndex(t, nil, append(flags, "--rebuild")...)
	h := readCLI(t, nil, append([]string{"history"}, flags...)...)
	if h.code != 0 || !strings.Contains(h.stdout, "edit-note") || !strings.Contains(h.stdout, note) {
		t.Fatalf("history (exit %d):\n%s%s", h.code, h.stdout, h.stderr)
	}
	u := readCLI(t, nil, append([]string{"undo"}, flags...)...)
	if u.code != 0 {
		t.Fatalf("undo (exit %d):\n%s%s", u.code, u.stdout, u.stderr)
	}
	if after, _ := os.ReadFile(filepath.Join(vault, note)); string(after) != string(before) {
		t.Fatalf("after undo the note is not as it was:\n%s", after)
	}
}

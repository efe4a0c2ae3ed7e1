package mcp

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jarvis-mcp/jarvis/internal/sharedtest"
	"github.com/jarvis-mcp/jarvis/internal/write"
)

// TestStaleWriteSaysEachPartOnce: a note that changed between its etag
// check and the write is refused by the vault and worded by writeError,
// which together say once that nothing was written and how to go on.
func TestStaleWriteSaysEachPartOnce(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "Linker.md"), []byte("now\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	v, err := write.OpenVault(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	_, err = v.Apply(context.Background(), write.Change{Tool: ToolEditNote, Files: []write.FileChange{{Path: "Linker.md", Before: write.ETag([]byte("then\n")), After: []byte("new\n")}}})
	if !errors.Is(err, write.ErrStale) {
		t.Fatalf("a write on a changed note: %v; want it stale", err)
	}
	text := writeError(err, ToolReadNote).Error()
	for _, part := range []string{"changed since it was read", "nothing was written", "read it again"} {
		if n := strings.Count(text, part); n != 1 {
			t.Errorf("%q says %q %d times; want once", text, part, n)
		}
	}
	sharedtest.CheckWords(t, ToolEditNote, text)
}

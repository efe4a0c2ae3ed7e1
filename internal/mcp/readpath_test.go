package mcp_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/jarvis-mcp/jarvis/internal/mcp"
)

// TestReadNoteByFolderOrFullPath: a full path into the vault's folder
// reads that note; one outside every vault, or a folder of the vault, is
// refused saying what to pass instead.
func TestReadNoteByFolderOrFullPath(t *testing.T) {
	v := exampleVault(t)
	cs := connect(t, realBackend(t, filepath.Join(t.TempDir(), "j.db"), true, v))
	var out mcp.ReadNoteOutput
	if text, isErr := call(t, cs, mcp.ToolReadNote, map[string]any{"path": filepath.Join(v.Path, "Methods", "Pour over.md")}, &out); isErr || out.Path != "Methods/Pour over.md" {
		t.Fatalf("a full path into the vault: %s", text)
	}
	for _, tc := range []struct{ path, want string }{
		{"Methods", `is a folder of vault "coffee", not a note`},
		{"Methods/", `with path_prefix "Methods/"`},
		{"/etc/passwd", "is a full path outside the vaults' folders"},
	} {
		if text, isErr := call(t, cs, mcp.ToolReadNote, map[string]any{"path": tc.path}, nil); !isErr || !strings.Contains(text, tc.want) {
			t.Errorf("read-note %q: %v %s; want %q", tc.path, isErr, text, tc.want)
		}
	}
}

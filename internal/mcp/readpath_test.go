package mcp_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/jarvis-mcp/jarvis/internal/mcp"
	"github.com/jarvis-mcp/jarvis/internal/sharedtest"
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

// TestReadNoteLeadingSpace: a note whose name begins with a space is read
// by its path, and the path offered for a near miss reads it too.
func TestReadNoteLeadingSpace(t *testing.T) {
	v := exampleVault(t)
	sharedtest.WriteFile(t, v.Path, " Leading space.md", "# Leading\n")
	cs := connect(t, realBackend(t, filepath.Join(t.TempDir(), "j.db"), true, v))
	text, isErr := call(t, cs, mcp.ToolReadNote, map[string]any{"path": "Leading spac"}, nil)
	if !isErr || !strings.Contains(text, `" Leading space.md"`) {
		t.Fatalf("read-note of a near miss: %s; want the path suggested", text)
	}
	for _, tool := range []string{mcp.ToolReadNote, mcp.ToolRelatedNotes} {
		if text, isErr := call(t, cs, tool, map[string]any{"path": " Leading space.md"}, nil); isErr {
			t.Errorf("%s of the suggested path: %s", tool, text)
		}
	}
}

package mcp_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jarvis-mcp/jarvis/internal/mcp"
	"github.com/jarvis-mcp/jarvis/internal/vault"
)

// TestPathLengthIsOneRule: a note whose path is longer than read-note
// takes is not served by search either; one just within it is found by
// search and read by read-note.
func TestPathLengthIsOneRule(t *testing.T) {
	v := exampleVault(t)
	place := func(total int) string {
		// Folders of 200 characters, then a name making up the rest.
		var parts []string
		n := 0
		for total-n > 250 {
			parts = append(parts, strings.Repeat("d", 199))
			n += 200
		}
		parts = append(parts, strings.Repeat("n", total-n-len(".md"))+".md")
		rel := strings.Join(parts, "/")
		p := filepath.Join(v.Path, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("# Deep\n\nThe quokkaroastery note.\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		return rel
	}
	within, beyond := place(vault.MaxPathChars), place(vault.MaxPathChars+1)
	cs := connect(t, realBackend(t, filepath.Join(t.TempDir(), "j.db"), true, v))
	var out mcp.SearchOutput
	call(t, cs, mcp.ToolSearchVault, map[string]any{"query": "quokkaroastery"}, &out)
	var found []string
	for _, r := range out.Results {
		found = append(found, r.Path)
		if text, isErr := call(t, cs, mcp.ToolReadNote, map[string]any{"vault": r.Vault, "path": r.Path}, nil); isErr {
			t.Errorf("search returns a %d-character path that read-note refuses: %s", len(r.Path), clipLog(text))
		}
	}
	if len(found) != 1 || found[0] != within {
		t.Fatalf("search found %d notes, want only the one at a path of %d characters", len(found), len(within))
	}
	if text, isErr := call(t, cs, mcp.ToolReadNote, map[string]any{"vault": "coffee", "path": beyond}, nil); !isErr || !strings.Contains(text, "at most 1000 characters") {
		t.Fatalf("read-note of a %d-character path: %s", len(beyond), clipLog(text))
	}
}

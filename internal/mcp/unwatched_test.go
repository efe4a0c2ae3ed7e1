package mcp_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jarvis-mcp/jarvis/internal/config"
	"github.com/jarvis-mcp/jarvis/internal/mcp"
)

// TestAnswersFromTheIndexSayWhenAVaultIsNotWatched: while the watcher
// cannot see a vault's changes (its folder is gone), every tool that
// answers from the index says it is degraded and why, through the one rule
// that reads the index state; once the vault is watched again, none does.
func TestAnswersFromTheIndexSayWhenAVaultIsNotWatched(t *testing.T) {
	v := exampleVault(t)
	cfg := config.Config{DBPath: filepath.Join(t.TempDir(), "j.db"), Vaults: []config.Vault{v}, Embedder: config.Embedder{Provider: config.ProviderLexical}}
	deps := startServer(t, cfg)
	if err := deps.Live.All(context.Background()); err != nil {
		t.Fatal(err)
	}
	cs := connect(t, real{deps})
	calls := []struct {
		tool string
		args map[string]any
	}{
		{mcp.ToolSearchVault, map[string]any{"query": "water"}},
		{mcp.ToolSearchSemantic, map[string]any{"query": "water"}},
		{mcp.ToolSearchCombined, map[string]any{"query": "water"}},
		{mcp.ToolSearchGraph, map[string]any{"query_note_path": "Water.md"}},
		{mcp.ToolReadNote, map[string]any{"path": "Water.md"}},
		{mcp.ToolRelatedNotes, map[string]any{"path": "Water.md"}},
		{mcp.ToolBuildContext, map[string]any{"query": "water"}},
		{mcp.ToolListVaults, nil},
	}
	const why = "the vault folder /x is gone (deleted, renamed or unmounted)"
	deps.Live.Watching(v.Name, why)
	for _, c := range calls {
		var out mcp.Degradation
		text, isErr := call(t, cs, c.tool, c.args, &out)
		if isErr || !out.Degraded || !strings.Contains(out.DegradedReason, why) || !strings.Contains(text, why) {
			t.Errorf("%s with the vault unwatched: error %v, %+v: %s", c.tool, isErr, out, text)
		}
	}
	deps.Live.Watching(v.Name, "")
	for _, c := range calls {
		var out mcp.Degradation
		text, isErr := call(t, cs, c.tool, c.args, &out)
		if isErr || strings.Contains(out.DegradedReason, "is gone") || strings.Contains(text, "is gone") {
			t.Errorf("%s with the vault watched again: error %v, %+v: %s", c.tool, isErr, out, text)
		}
	}
}

// TestSearchSaysAGoneVaultFolderOnce: a search over a vault whose folder
// was deleted said it twice, as the watcher's degradation and as the
// search's own note with its fix; it says it once, in the note.
func TestSearchSaysAGoneVaultFolderOnce(t *testing.T) {
	v := exampleVault(t)
	cfg := config.Config{DBPath: filepath.Join(t.TempDir(), "j.db"), Vaults: []config.Vault{v}, Embedder: config.Embedder{Provider: config.ProviderLexical}}
	deps := startServer(t, cfg)
	if err := deps.Live.All(context.Background()); err != nil {
		t.Fatal(err)
	}
	cs := connect(t, real{deps})
	if err := os.RemoveAll(v.Path); err != nil {
		t.Fatal(err)
	}
	deps.Live.Watching(v.Name, "the vault folder "+v.Path+" is gone (deleted, renamed or unmounted)")
	for _, tool := range []string{mcp.ToolSearchVault, mcp.ToolSearchCombined} {
		text, isErr := call(t, cs, tool, map[string]any{"query": "water"}, nil)
		if isErr || strings.Count(text, v.Path) != 1 || !strings.Contains(text, "folder of vault \"coffee\"") {
			t.Errorf("%s with the vault folder deleted says it other than once:\n%s", tool, text)
		}
	}
}

package mcp_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/jarvis-mcp/jarvis/internal/mcp"
)

// TestFilterKeepingNothingNamesTools: a search whose path_prefix keeps no
// note says so in the words of a model: the argument to check and the
// tool that lists the vaults, not a command-line flag.
func TestFilterKeepingNothingNamesTools(t *testing.T) {
	cs := connect(t, realBackend(t, filepath.Join(t.TempDir(), "j.db"), true, exampleVault(t)))
	var out mcp.SearchOutput
	text, isErr := call(t, cs, mcp.ToolSearchVault, map[string]any{"query": "grind", "path_prefix": "Nope/", "vault": "coffee"}, &out)
	want := `There are no notes whose path starts with "Nope/", in vault "coffee", so nothing was searched. Check path_prefix:`
	if isErr || len(out.Results) != 0 || !strings.HasPrefix(out.Empty, want) || !strings.Contains(out.Empty, "list-vaults") ||
		strings.Contains(out.Empty, "--") || !strings.Contains(text, out.Empty) {
		t.Fatalf("error %v, empty %q; want it to start %q and name list-vaults", isErr, out.Empty, want)
	}
}

// TestTagNoNoteCanCarryIsRefused: tag "#" kept every note, silently; it is
// refused in every search tool with what to give instead.
func TestTagNoNoteCanCarryIsRefused(t *testing.T) {
	cs := connect(t, realBackend(t, filepath.Join(t.TempDir(), "j.db"), true, exampleVault(t)))
	for _, tool := range []string{mcp.ToolSearchVault, mcp.ToolSearchSemantic, mcp.ToolSearchCombined} {
		text, isErr := call(t, cs, tool, map[string]any{"query": "grind", "tag": "#"}, nil)
		if want := `tag "#" is only "#": give the tag's name`; !isErr || !strings.Contains(text, want) {
			t.Errorf("%s with tag #: %v %q; want %q", tool, isErr, text, want)
		}
	}
}

// TestUnknownArgumentNamesTheArguments: an argument the tool does not take
// is answered with the nearest it does, if one is near, and the arguments
// it takes, the required first.
func TestUnknownArgumentNamesTheArguments(t *testing.T) {
	cs := connect(t, realBackend(t, filepath.Join(t.TempDir(), "j.db"), true, exampleVault(t)))
	text, isErr := call(t, cs, mcp.ToolSearchGraph, map[string]any{"note": "Kettle"}, nil)
	if !isErr || !strings.Contains(text, `there is no argument "note"; the tool takes query_note_path (required), `) {
		t.Errorf("search-graph note: %v %q", isErr, text)
	}
	text, isErr = call(t, cs, mcp.ToolReadNote, map[string]any{"paht": "Water.md"}, nil)
	if !isErr || !strings.Contains(text, "did you mean path?") {
		t.Errorf("read-note paht: %v %q", isErr, text)
	}
}

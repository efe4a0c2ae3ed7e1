package mcp_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/jarvis-mcp/jarvis/internal/mcp"
)

// TestSearchAlternatives calls each search tool with alternatives over a
// real index: the notes the alternative finds join the answer, which says
// what it found; an empty list of alternatives, or one that repeats the
// query, gives the query's answer to the byte; too many are refused with
// what to do.
func TestSearchAlternatives(t *testing.T) {
	cs := connect(t, realBackend(t, filepath.Join(t.TempDir(), "j.db"), true, exampleVault(t)))
	for _, tool := range []string{mcp.ToolSearchVault, mcp.ToolSearchSemantic, mcp.ToolSearchCombined} {
		plain := callJSON(t, cs, tool, map[string]any{"query": "espresso"})
		for _, alts := range [][]string{{}, {" Espresso "}} {
			if got := callJSON(t, cs, tool, map[string]any{"query": "espresso", "alternatives": alts}); got != plain {
				t.Errorf("%s with alternatives %q:\n%s\nwant the query's own answer:\n%s", tool, alts, got, plain)
			}
		}

		var alone, with mcp.SearchOutput
		call(t, cs, tool, map[string]any{"query": "espresso", "limit": 20}, &alone)
		text, isErr := call(t, cs, tool, map[string]any{"query": "espresso", "limit": 20, "alternatives": []string{"kettle"}}, &with)
		if isErr || len(with.Alternatives) != 1 {
			t.Fatalf("%s: %s", tool, text)
		}
		h := with.Alternatives[0]
		if h.Text != "kettle" || h.Found == 0 || h.Added == 0 || len(with.Results) <= len(alone.Results) {
			t.Errorf("%s: %d results with the alternative, %d without, %+v; want notes about kettles added", tool, len(with.Results), len(alone.Results), h)
		}
		if !strings.Contains(text, `> Alternative "kettle": found `) {
			t.Errorf("%s: text does not say what the alternative found:\n%s", tool, text)
		}

		text, isErr = call(t, cs, tool, map[string]any{"query": "espresso", "alternatives": []string{"a", "b", "c", "d", "e", "f"}}, nil)
		if !isErr || !strings.Contains(text, "alternatives takes at most 5 alternatives; got 6") {
			t.Errorf("%s with 6 alternatives: %s; want a tool error saying 5 is the most", tool, text)
		}
	}
}

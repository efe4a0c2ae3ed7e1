package mcp_test

import (
	"strings"
	"testing"

	"github.com/jarvis-mcp/jarvis/internal/index"
	"github.com/jarvis-mcp/jarvis/internal/mcp"
)

// TestFreshnessSaysTheStageAsSearchDoes: list-vaults' line about a run
// under way words its progress as search answers do (index.State.Progress),
// naming the stage after reading rather than a finished count.
func TestFreshnessSaysTheStageAsSearchDoes(t *testing.T) {
	st := index.State{State: index.StateIndexing, Vault: "help", Phase: index.PhaseLinks, Done: index.Counts{Notes: 1402}, Total: index.Counts{Notes: 1402}}
	line := mcp.Freshness(st)
	if !strings.Contains(line, st.Progress()) || strings.Contains(line, "1402 of") {
		t.Fatalf("freshness %q; want it to say %q", line, st.Progress())
	}
}

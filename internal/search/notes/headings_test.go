package notes

import (
	"testing"

	"github.com/jarvis-mcp/jarvis/internal/vault"
)

func TestPathAt(t *testing.T) {
	hs := []vault.Heading{{Level: 1, Text: "A", Line: 1}, {Level: 3, Text: "C", Line: 4}, {Level: 2, Text: "B", Line: 8}, {Level: 2, Text: "", Line: 12}, {Level: 1, Text: "Z", Line: 20}}
	for line, want := range map[int]string{0: "", 1: "A", 5: "A > C", 9: "A > B", 13: "A", 25: "Z"} {
		if got := pathAt(hs, line); got != want {
			t.Errorf("pathAt(%d) = %q; want %q", line, got, want)
		}
	}
}

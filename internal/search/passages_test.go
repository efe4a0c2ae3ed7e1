package search

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/jarvis-mcp/jarvis/internal/config"
	"github.com/jarvis-mcp/jarvis/internal/search/notes"
)

// TestPassagesScoredOneByOne: the passages of the notes found are scored
// each on its own, so the section that answers the query comes before the
// other sections of its note, and a section sharing nothing with the
// query is weak.
func TestPassagesScoredOneByOne(t *testing.T) {
	root, err := filepath.Abs("../../examples/vault")
	if err != nil {
		t.Fatal(err)
	}
	svc, _ := indexedService(t, config.Vault{Name: "coffee", Path: root})
	ans, err := svc.Passages(context.Background(), PassageQuery{Text: "burr alignment wobbling stall", Filter: notes.Filter{Vaults: []string{"coffee"}}})
	if err != nil {
		t.Fatal(err)
	}
	if ans.Degraded || len(ans.Notes) == 0 || ans.Notes[0].Path != "Gear/Grinder.md" {
		t.Fatalf("degraded %v (%s), notes %d", ans.Degraded, ans.Reason, len(ans.Notes))
	}
	byHeading := map[string]Passage{}
	best := 0.0
	for _, np := range ans.Notes {
		for _, p := range np.Passages {
			best = max(best, p.Score)
			if np.Path == "Gear/Grinder.md" {
				byHeading[p.Heading] = p
			}
		}
	}
	burr, cleaning := byHeading["Grinder > Burr alignment"], byHeading["Grinder > Cleaning"]
	if burr.Score != best || burr.Keyword == 0 || burr.Similarity == 0 || burr.Weak {
		t.Fatalf("the burr alignment section scores %+v; the best is %.3f", burr, best)
	}
	if cleaning.Score >= burr.Score || !cleaning.Weak {
		t.Fatalf("the cleaning section scores %+v, not weak and below %.3f", cleaning, burr.Score)
	}
	if settings := byHeading["Grinder > Grind settings"]; len(settings.Parts) < 2 {
		t.Fatalf("the grind settings section has parts %+v; want its paragraphs", settings.Parts)
	}
}

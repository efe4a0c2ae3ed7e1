package search

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jarvis-mcp/jarvis/internal/config"
)

// TestLimitAndTruncation holds every mode, and the file scan every mode
// falls back to, to one rule of limits (limits.go): 150 notes match, and
// whatever the limit, the answer returns at most MaxLimit of them and
// says it was truncated; a limit over the most is lowered to it, and the
// answer says so.
func TestLimitAndTruncation(t *testing.T) {
	dir := t.TempDir()
	const matching = 150
	for i := range matching {
		name := filepath.Join(dir, fmt.Sprintf("Sunflowers %03d.md", i))
		if err := os.WriteFile(name, []byte("Sunflowers, tall sunflowers.\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	svc, db := indexedService(t, config.Vault{Name: "v", Path: dir})
	ctx := context.Background()
	check := func(how string) {
		t.Helper()
		for _, mode := range allModes {
			def, most := Limits(mode)
			for _, tc := range []struct {
				limit, want int
				lowered     bool
			}{
				{0, def, false},
				{most - 1, most - 1, false},
				{most, most, false},
				{matching, most, true},
			} {
				a, err := svc.Search(ctx, Query{Mode: mode, Text: "sunflowers", Limit: tc.limit})
				if err != nil {
					t.Fatalf("%s, %s, limit %d: %v", how, mode, tc.limit, err)
				}
				said := strings.Contains(strings.Join(a.Notes, "\n"), fmt.Sprintf("at most %d", most))
				if len(a.Results) != tc.want || !a.Truncated || said != tc.lowered {
					t.Errorf("%s, %s, limit %d: %d results, truncated %v, notes %q; want %d, truncated, the limit lowered said %v",
						how, mode, tc.limit, len(a.Results), a.Truncated, a.Notes, tc.want, tc.lowered)
				}
			}
		}
	}
	check("index")
	db.Close()
	check("file scan")
}

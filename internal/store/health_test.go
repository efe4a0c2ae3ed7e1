package store

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/jarvis-mcp/jarvis/internal/health"
)

// TestKnownDamageOverridesACheckThatProvesNothing: when the file changed
// while its quick check ran, the database line proves nothing by itself;
// once another check met damage, it says the database is damaged and
// gives the rebuild, and its wording has no dangling "then".
func TestKnownDamageOverridesACheckThatProvesNothing(t *testing.T) {
	path := "/data/dmg.db"
	inv := health.Invocation{"--vault", "help", "--db", path}
	rebuild, _ := Explain(path, ErrNotDatabase, inv, nil)
	changed := integrityResult(Inspection{Changed: true, Check: "quick check"}, path, rebuild.Fix, inv)
	if strings.HasSuffix(changed.Fix, " then") {
		t.Errorf("fix ends in a dangling then: %q", changed.Fix)
	}
	database := health.Check{Name: "database", Run: func(context.Context) []health.Result { return []health.Result{changed} }}
	for _, tc := range []struct {
		name    string
		err     error
		damaged bool
	}{
		{"damage met", fmt.Errorf("count vectors: %w", ErrNotDatabase), true},
		{"other trouble", fmt.Errorf("count vectors: %w", ErrBusy), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			embedder := health.Check{Name: "embedder", Run: func(context.Context) []health.Result {
				return []health.Result{Unreadable("embedder", "lexical: cannot count vectors", tc.err)}
			}}
			rep := health.Run(context.Background(), []health.Check{database, embedder}, time.Minute)
			db := rep.Checks[0]
			said := db.Status == health.Fail && strings.Contains(db.Detail, path+" is damaged") && strings.Contains(db.Fix, "--rebuild")
			if said != tc.damaged {
				t.Errorf("database line %s: %s; fix %s", db.Status, db.Detail, db.Fix)
			}
		})
	}
}

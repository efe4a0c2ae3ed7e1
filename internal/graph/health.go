package graph

import (
	"context"
	"fmt"
	"strings"

	"github.com/jarvis-mcp/jarvis/internal/health"
	"github.com/jarvis-mcp/jarvis/internal/store"
)

// Checks are the graph's contribution to doctor: how many links in each
// vault lead nowhere, and the most linked of those targets. Unresolved links
// are normal in Obsidian (links to notes not written yet), so they inform
// rather than warn.
func Checks(h *store.Handle, vaults []string) []health.Check {
	return []health.Check{{Name: "unresolved links", Order: 50, Run: func(ctx context.Context) []health.Result {
		var out []health.Result
		for _, name := range vaults {
			r := health.Result{Name: "unresolved links " + name}
			db, err := h.DB(ctx)
			if err != nil {
				r.Status, r.Detail, r.Fix = health.Warn, "cannot tell: the database is not available", "see the database check above"
				out = append(out, r)
				continue
			}
			targets, err := New(db).UnresolvedTargets(ctx, name, 0)
			if err != nil {
				r.Status, r.Detail, r.Fix = health.Warn, "cannot tell: "+err.Error(), "see the database check above"
				out = append(out, r)
				continue
			}
			total := 0
			var top []string
			for i, t := range targets {
				total += t.Count
				if i < 5 {
					top = append(top, fmt.Sprintf("%q (%d)", t.Target, t.Count))
				}
			}
			r.Status = health.OK
			if total == 0 {
				r.Detail = "every link resolves"
			} else {
				r.Detail = fmt.Sprintf("%d links to %d missing targets, most linked: %s", total, len(targets), strings.Join(top, ", "))
			}
			out = append(out, r)
		}
		return out
	}}}
}

package graph

import (
	"context"
	"fmt"
	"strings"

	"github.com/jarvis-mcp/jarvis/internal/config"
	"github.com/jarvis-mcp/jarvis/internal/health"
	"github.com/jarvis-mcp/jarvis/internal/store"
	"github.com/jarvis-mcp/jarvis/internal/words"
)

// Checks are the graph's contribution to doctor: how many links in each
// vault lead nowhere, and the most linked of those targets. Unresolved links
// are normal in Obsidian (links to notes not written yet), so they inform
// rather than warn.
func Checks(h *store.Handle, vaults []config.Vault) []health.Check {
	return []health.Check{{Name: "unresolved links", Order: 50, Run: func(ctx context.Context) []health.Result {
		var out []health.Result
		for _, v := range vaults {
			name := v.Name
			r := health.Result{Name: "unresolved links " + name}
			why, db, err := store.VaultIndexed(ctx, h, v)
			if err != nil {
				out = append(out, store.Unreadable(r.Name, "cannot tell", err), store.Unreadable("heading links "+name, "cannot tell", err))
				continue
			}
			if why != "" {
				out = append(out, health.NotChecked(r.Name, why), health.NotChecked("heading links "+name, why))
				continue
			}
			targets, err := New(db).UnresolvedTargets(ctx, name, 0)
			if err != nil {
				// The heading links are a check of their own, whatever this one met.
				out = append(out, store.Unreadable(r.Name, "cannot tell", err), anchorsResult(ctx, New(db), name))
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
				// A target may be a note the vault's rules leave out, which
				// is not missing from the vault, only from the index.
				r.Detail = fmt.Sprintf("%s to %s no indexed note has (notes not written yet, or left out), most linked: %s",
					words.Count(total, "link"), words.Count(len(targets), "name"), strings.Join(top, ", "))
			}
			out = append(out, r, anchorsResult(ctx, New(db), name))
		}
		return out
	}}}
}

// anchorsResult reports the links of a vault that reach their note but not
// the heading or block they name: often a heading renamed after the links
// to it were written.
func anchorsResult(ctx context.Context, g *Graph, vaultName string) health.Result {
	r := health.Result{Name: "heading links " + vaultName, Status: health.OK}
	broken, err := g.BrokenAnchors(ctx, vaultName)
	switch {
	case err != nil:
		r = store.Unreadable(r.Name, "cannot tell", err)
	case len(broken) == 0:
		r.Detail = "every link to a heading or block finds it"
	default:
		var first []string
		for _, b := range broken[:min(3, len(broken))] {
			first = append(first, fmt.Sprintf("%s line %d → %s#%s", b.Source, b.Line, strings.TrimSuffix(b.Target, ".md"), b.Subpath))
		}
		r.Status = health.Warn
		r.Detail = fmt.Sprintf("%s: %s", words.CountAs(len(broken), "link names a heading or block its note does not have",
			"links name a heading or block their note does not have"), strings.Join(first, "; "))
		if more := len(broken) - len(first); more > 0 {
			r.Detail += fmt.Sprintf("; and %d more", more)
		}
		r.Fix = words.Agree(len(broken), "open the note at the line named and change the link to a heading or block its target has (the heading may have been renamed)",
			"open each note at the line named and change the link to a heading or block its target has (a heading may have been renamed)")
	}
	return r
}

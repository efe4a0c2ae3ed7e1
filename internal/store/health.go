package store

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"strings"

	"github.com/jarvis-mcp/jarvis/internal/health"
)

// Checks are the database's contributions to doctor: the file opens, passes
// PRAGMA integrity_check, and has the schema this jarvis writes.
func Checks(h *Handle) []health.Check {
	return []health.Check{{Name: "database", Order: 30, Run: func(ctx context.Context) []health.Result {
		db, err := h.DB(ctx)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			return []health.Result{{Status: health.Warn,
				Detail: fmt.Sprintf("%s does not exist yet: nothing is indexed", h.Path()),
				Fix:    "run `jarvis index` to build the index"}}
		case errors.Is(err, ErrNotDatabase):
			return []health.Result{{Status: health.Fail, Detail: err.Error(),
				Fix: "run `jarvis index --rebuild`: it moves the file aside to a timestamped backup and starts a fresh index"}}
		case err != nil:
			return []health.Result{{Status: health.Fail, Detail: err.Error(),
				Fix: "check the permissions of the database file and its folder, or choose another with --db"}}
		}
		out := []health.Result{}
		problems, err := db.IntegrityCheck(ctx)
		switch {
		case err != nil:
			out = append(out, health.Result{Status: health.Fail, Detail: fmt.Sprintf("%s: %v", h.Path(), err),
				Fix: "run `jarvis index --rebuild`: it moves the file aside to a timestamped backup and starts a fresh index"})
		case len(problems) > 0:
			if len(problems) > 3 {
				problems = append(problems[:3], fmt.Sprintf("and %d more", len(problems)-3))
			}
			out = append(out, health.Result{Status: health.Fail,
				Detail: fmt.Sprintf("%s fails its integrity check: %s", h.Path(), strings.Join(problems, "; ")),
				Fix:    "run `jarvis index --rebuild`: it moves the file aside to a timestamped backup and starts a fresh index"})
		default:
			out = append(out, health.Result{Status: health.OK, Detail: fmt.Sprintf("%s opens and passes its integrity check", h.Path())})
		}
		out = append(out, schemaResult(ctx, db))
		return out
	}}}
}

func schemaResult(ctx context.Context, db *DB) health.Result {
	r := health.Result{Name: "schema version"}
	current, latest, err := db.Version(ctx)
	switch {
	case err != nil:
		r.Status, r.Detail, r.Fix = health.Fail, err.Error(), "run `jarvis index --rebuild`"
	case current > latest:
		r.Status = health.Fail
		r.Detail = fmt.Sprintf("database is at version %d, written by a newer jarvis (this one knows %d)", current, latest)
		r.Fix = "upgrade jarvis, or point --db at another file"
	case current < latest:
		r.Status = health.Warn
		r.Detail = fmt.Sprintf("database is at version %d; this jarvis uses %d", current, latest)
		r.Fix = "run `jarvis index` to migrate it"
	default:
		r.Status, r.Detail = health.OK, fmt.Sprintf("version %d, current", current)
	}
	return r
}

package store

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"strings"
	"time"

	"github.com/jarvis-mcp/jarvis/internal/health"
)

// CheckOptions say how the database check looks.
type CheckOptions struct {
	// Log, when set, gets at debug level what the check listed, in
	// SQLite's own words, which the results say in the reader's.
	Log *slog.Logger
	// Quick runs PRAGMA quick_check instead of the full integrity_check:
	// it skips comparing every index with its table, which takes seconds
	// and much memory on a large vault. The server's health-status uses
	// it; doctor does the full check.
	Quick bool
}

// Checks are the database's contributions to doctor: this user may read
// and write the file and its folder, the file opens and passes its
// integrity check, and has the schema this jarvis writes. Fixes name jarvis
// commands through inv.
func Checks(h *Handle, inv health.Invocation, opts CheckOptions) []health.Check {
	return []health.Check{{Name: "database", Order: 30, Run: func(ctx context.Context) []health.Result {
		return databaseResults(ctx, h, inv, opts)
	}, Limit: func() time.Duration { return checkTime(h.Path()) }}}
}

// checkRate is the pace, in bytes a second, at which the integrity and
// quick checks are given time to read the database: a few times slower
// than measured on two busy cores (the checks of a 2.3 GB index, 100,000
// notes, took 15 to 60 s), so that only a disk that stalls runs out of it.
const checkRate = 20 << 20

// checkTime is how long the checks of the database at path may take.
func checkTime(path string) time.Duration {
	st, err := os.Stat(path)
	if err != nil {
		return 0
	}
	return time.Duration(st.Size()) * time.Second / checkRate
}

func databaseResults(ctx context.Context, h *Handle, inv health.Invocation, opts CheckOptions) []health.Result {
	problems := AccessProblems(h.Path(), h.opts.Probe)
	fail := func(detail, fix string) []health.Result {
		return []health.Result{{Status: health.Fail, Detail: detail, Fix: fix}}
	}
	// What an error means, and its fix, as every command says it.
	explain := func(err error) Explanation {
		x, ok := Explain(h.Path(), err, inv, h.opts.Probe)
		if !ok {
			x = Explanation{Why: Plain(err), Fix: "check the permissions of the database file and its folder, or choose another with --db"}
		}
		if x.Kind == KindDamaged && len(problems) > 0 {
			// --rebuild cannot make a fresh index where this user may
			// not write.
			x.Fix = AccessFix(problems) + "; then " + x.Fix
		}
		return x
	}
	rebuild := explain(ErrNotDatabase).Fix
	// A server's database looks whether its file was replaced (and opens
	// the new one) or deleted, and away says so.
	away := h.Recheck(ctx)
	awayResult := []health.Result{{Status: health.Warn, Detail: away,
		Fix: "run " + inv.Command("index") + " to build a new index (the server also does, within a minute)"}}
	// The file is looked at through a connection of its own, not the
	// handle's: a page damaged on disk must not pass because the handle
	// holds it in its cache.
	in := Inspect(ctx, h.Path(), h.opts, opts.Quick)
	switch err := in.OpenErr; {
	case errors.Is(err, fs.ErrNotExist) && away != "":
		return awayResult
	case errors.Is(err, fs.ErrNotExist) && len(problems) > 0:
		return fail(fmt.Sprintf("%s does not exist yet, and it cannot be created: %s", h.Path(), describe(problems)), AccessFix(problems))
	case errors.Is(err, fs.ErrNotExist):
		return []health.Result{{Status: health.Warn,
			Detail: fmt.Sprintf("%s does not exist yet: nothing is indexed", h.Path()),
			Fix:    "run " + inv.Command("index") + " to build the index"}}
	case err != nil:
		x := explain(err)
		return fail(x.Why, x.Fix)
	case away != "":
		return awayResult
	}
	db, err := h.DB(ctx)
	if err != nil {
		x := explain(err)
		return fail(x.Why, x.Fix)
	}

	if len(in.Problems) > 0 && opts.Log != nil {
		opts.Log.Debug("database check findings", "path", h.Path(), "check", in.Check, "findings", strings.Join(findingLines(in.Problems), "\n"))
	}
	out := []health.Result{integrityResult(in, h.Path(), rebuild, inv)}
	if len(problems) > 0 {
		out = append(out, health.Result{Name: "database access", Status: health.Fail,
			Detail:  fmt.Sprintf("the index can be read but not updated (`jarvis index` and the server's updates fail): %s", describe(problems)),
			Fix:     AccessFix(problems),
			Answers: "search answers from the index as it is; the index cannot be updated: " + describe(problems)})
	} else if LockedNow(h.Path()) && !WriterAlive(ctx, h.Path()) {
		// Reads go on while another program holds the write lock, so
		// every other check passes: this line alone says it. A jarvis
		// writing (it holds the writer lock too) is no problem.
		out = append(out, health.Result{Name: "database access", Status: health.Warn,
			Detail: fmt.Sprintf("%s is locked by another program right now (another jarvis?): the index can be read, but indexing and the server's updates wait for it, and fail if it stays locked", h.Path()),
			Fix:    explain(ErrBusy).Fix})
	} else {
		out = append(out, health.Result{Name: "database access", Status: health.OK,
			Detail: "you may read and write the database and create files in its folder"})
	}
	return append(out, schemaResult(ctx, db, inv, h.opts.Probe))
}

// Unreadable is the warning of a check that could not read what it
// checks (what) because of err: the database check above says why, and
// a damaged database is marked so that check says it is damaged even
// when its own inspection proved nothing.
func Unreadable(name, what string, err error) health.Result {
	return health.Result{Name: name, Status: health.Warn, Detail: what + ": " + Said(err),
		Fix: "see the database check above", Damaged: Classify(err) == KindDamaged}
}

// IfDamaged is what a check that passed (what) becomes once the database
// is known to be damaged: what it read proves nothing, and it defers to
// the database check, as Unreadable does.
func IfDamaged(name, what string) health.Verdict {
	r := Unreadable(name, what, ErrNotDatabase)
	return health.Verdict{Status: r.Status, Detail: r.Detail, Fix: r.Fix}
}

// integrityResult reports what the inspection of the file at path found.
func integrityResult(in Inspection, path, rebuild string, inv health.Invocation) health.Result {
	switch {
	case in.Changed:
		return health.Result{Status: health.Warn,
			Detail: fmt.Sprintf("%s changed while its %s ran (an index run was writing to it, of a server or of another jarvis), so the check proves nothing", path, in.Check),
			Fix:    "ask again, or run " + inv.Command("doctor") + ", once indexing is done",
			// Another check that met the damage proves what this one
			// could not.
			IfDamaged: health.Verdict{Fix: rebuild,
				Detail: fmt.Sprintf("%s is damaged: a check below could not read it (its own %s proves nothing, as an index run was writing to it)", path, in.Check)}}
	case in.Stopped:
		// Stopped, not failed: it says nothing of the file.
		return health.Result{Status: health.Skip, Detail: fmt.Sprintf("not checked: the %s of %s did not finish (%v)", in.Check, path, in.Err)}
	case in.Err != nil && Classify(in.Err) == KindDamaged:
		// In the words every command uses for damage.
		return health.Result{Status: health.Fail, Detail: damaged(path, in.Err), Fix: rebuild, Damaged: true}
	case in.Err != nil:
		return health.Result{Status: health.Fail, Detail: fmt.Sprintf("%s: %s", path, Plain(in.Err)), Fix: rebuild, Damaged: true}
	case len(in.Problems) > 0:
		return health.Result{Status: health.Fail,
			Detail: fmt.Sprintf("%s fails its %s: %s", path, in.Check, in.Findings()),
			Fix:    rebuild, Damaged: true}
	}
	return health.Result{Status: health.OK, Detail: fmt.Sprintf("%s opens and passes its %s", path, in.Check)}
}

func schemaResult(ctx context.Context, db *DB, inv health.Invocation, probe Probe) health.Result {
	r := health.Result{Name: "schema version"}
	state, current, latest, err := db.Schema(ctx)
	switch {
	case err != nil:
		x, ok := Explain(db.Path, err, inv, probe)
		if !ok {
			x, _ = Explain(db.Path, ErrNotDatabase, inv, probe)
			x.Why = Plain(err)
		}
		r.Status, r.Detail, r.Fix = health.Fail, x.Why, x.Fix
	case state == SchemaNewer:
		x, _ := Explain(db.Path, ErrNewerSchema, inv, probe)
		r.Status = health.Fail
		r.Detail = fmt.Sprintf("%s (version %d; this one knows %d)", x.Why, current, latest)
		r.Fix = x.Fix
	case state == SchemaUnfinished:
		r.Status = health.Warn
		r.Detail = "the index is not set up yet: the first index run was cut short (or has not run)"
		r.Fix = "run " + inv.Command("index") + " to set it up and index the vaults"
	case state == SchemaOlder:
		r.Status = health.Warn
		r.Detail = fmt.Sprintf("the database was made by an older jarvis (version %d; this jarvis uses %d)", current, latest)
		r.Fix = "run " + inv.Command("index") + " to bring it up to date"
	default:
		r.Status, r.Detail = health.OK, fmt.Sprintf("version %d, current", current)
	}
	return r
}

package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"time"

	"github.com/jarvis-mcp/jarvis/internal/config"
	"github.com/jarvis-mcp/jarvis/internal/container"
	"github.com/jarvis-mcp/jarvis/internal/health"
)

// perCheckTimeout bounds one health check, so a hung network disk shows up
// as a failed check rather than a hung doctor.
const perCheckTimeout = 30 * time.Second

func runDoctor(ctx context.Context, e *env, args []string) error {
	fs := newFlagSet("doctor", "jarvis doctor",
		`Run every health check and print each as ok, warn or fail, with a one-line
fix for each problem, or as skip when it could not be made (the check that
found why says so). Fixes that name a jarvis command repeat the --vault,
--db, --config and --embedder flags given here. Doctor only looks: it opens
the database read-only, creates no file beside it, and never changes the
database or the vaults.

Exit status: 0 when healthy, 1 when degraded (warnings), 2 when broken, 130
when interrupted.`, e)
	var c common
	c.register(fs)
	asJSON := fs.Bool("json", false, `print {"status":...,"checks":[...]} to stdout`)
	if err := parse(fs, args); err != nil {
		return err
	}

	var rep health.Report
	cfg, err := c.load(e)
	if err != nil {
		// A configuration that does not load is itself the finding.
		rep = health.Report{Status: health.Broken, Checks: []health.Result{{
			Name: "configuration", Status: health.Fail,
			Detail: err.Error(),
			Fix:    config.LoadFix(err),
		}}}
	} else {
		var deps container.DoctorDeps
		app := container.NewDoctorApp(cfg, c.logger(e), &deps, container.WithProbe(e.dbProbe))
		if err := container.Err(app); err != nil {
			return fmt.Errorf("doctor: %w", err)
		}
		if err := app.Start(ctx); err != nil {
			return fmt.Errorf("doctor: %w", err)
		}
		rep = health.Run(ctx, deps.Checks, perCheckTimeout)
		if err := app.Stop(context.Background()); err != nil {
			return fmt.Errorf("doctor: %w", err)
		}
	}

	if *asJSON {
		if err := json.NewEncoder(e.stdout).Encode(rep); err != nil {
			return err
		}
	} else {
		printReport(e.stdout, rep)
	}
	if code := rep.ExitCode(); code != 0 {
		return &exitError{code: code}
	}
	return nil
}

func printReport(w io.Writer, rep health.Report) {
	for _, r := range rep.Checks {
		fmt.Fprintln(w, r.Line())
		if fix := r.FixLine(); fix != "" {
			fmt.Fprintln(w, "      "+fix)
		}
	}
	fmt.Fprintf(w, "\n%s\n", rep.Status)
}

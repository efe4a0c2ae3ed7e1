// Package health runs the checks behind `jarvis doctor` and the MCP
// health-status tool. Each service contributes its own checks; this package
// only runs them and sums up.
package health

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"
)

// Status of one check or of the whole report.
type Status string

// Check statuses. Skip means the check could not be made, because
// something it needs is missing (a vault folder, the database); the check
// that found the cause reports it, so a skip leaves the overall status as
// it is. Then OK, Warn and Fail, worst last.
const (
	Skip Status = "skip"
	OK   Status = "ok"
	Warn Status = "warn"
	Fail Status = "fail"
)

// Result is the outcome of one check. Its JSON shape is part of
// `jarvis doctor --json` and stays stable.
type Result struct {
	Name   string `json:"name"`
	Status Status `json:"status"`
	Detail string `json:"detail"`
	// Fix says in one line what to do; empty when the check passed.
	Fix string `json:"fix,omitempty"`
	// Checked is set on a result handed back from an earlier run of its
	// check (health-status reuses its slow checks): how long ago that run
	// was, "checked 3s ago", and whether it runs again now. Empty when
	// the check ran for this report. It is kept apart from Detail, whose
	// words are the check's own.
	Checked string `json:"checked,omitempty"`
	// SparesRebuild is set on a failure of a gating check that does not
	// stop `jarvis index --rebuild` (no vault configured: the rebuild
	// indexes the vaults the database holds), so a fix naming it stands.
	SparesRebuild bool `json:"-"`
	// Damaged is set on a result whose check met an error that says the
	// database is damaged (store.Classify's KindDamaged).
	Damaged bool `json:"-"`
	// IfDamaged, when its Detail is set, stands in for a result that
	// proves nothing (a database that changed while it was checked) once
	// another result of the same report is Damaged: the damage is known.
	IfDamaged Verdict `json:"-"`
	// Answers is set on a failure that leaves search answering (a
	// database that can be read but not updated): what is true of jarvis
	// then, for Report.Headline to say rather than "broken".
	Answers string `json:"-"`
}

// Verdict is the failure a result becomes when damage is known
// (Result.IfDamaged).
type Verdict struct {
	Detail, Fix string
	// Status is Fail when not set.
	Status Status
}

// Line is r as one line of a report, the same in doctor and
// health-status: its status, its name, how long ago it was checked when
// that was before this report, and its detail.
func (r Result) Line() string {
	name := r.Name
	if r.Checked != "" {
		name += " (" + r.Checked + ")"
	}
	return fmt.Sprintf("%-4s  %s: %s", r.Status, name, r.Detail)
}

// FixLine is the line under Line that says what to do, "" when there is
// nothing to do (the check passed, or has no fix); the caller indents it
// under Line.
func (r Result) FixLine() string {
	if r.Fix == "" || r.Status == OK {
		return ""
	}
	return "fix: " + r.Fix
}

// Check is one named health check. Run may report several results, such as
// one per vault.
type Check struct {
	Name string
	// Order places the check in the report, lowest first, so that causes
	// come before their effects: configuration 10, vaults 20, database 30,
	// index 40, graph 50, search 60, server 70, disk 90.
	Order int
	Run   func(ctx context.Context) []Result
	// Limit, when set, is how long the check may take where that is more
	// than the limit its caller gives every check: a check whose work
	// grows with the data (reading every page of the database) gets the
	// time its size needs, and is not reported as a disk that hangs.
	Limit func() time.Duration
	// Gates is set on a check whose failure makes `jarvis index` refuse
	// to run (the configuration, a vault folder): while it fails, no
	// other fix names the index command, and each says to fix it first.
	Gates bool
	// Starves is set on a check whose failure leaves no room to write
	// (the disk space check): while it fails, each other fix that runs
	// jarvis index, which writes, says to free space first.
	Starves bool
}

// Sort orders checks by Order, keeping the given order among equals.
func Sort(checks []Check) {
	sort.SliceStable(checks, func(i, j int) bool { return checks[i].Order < checks[j].Order })
}

// Overall is the status of a whole report.
type Overall string

// Overall statuses, in the order of the exit codes of `jarvis doctor`.
const (
	Healthy  Overall = "healthy"
	Degraded Overall = "degraded"
	Broken   Overall = "broken"
)

// Report is every result and the overall status.
type Report struct {
	Status Overall  `json:"status"`
	Checks []Result `json:"checks"`
}

// Headline is the report's first line in words: "jarvis is degraded.";
// when every failure leaves search answering (Result.Answers), what those
// say instead of "broken", which would tell the reader nothing answers.
func (r Report) Headline() string {
	if r.Status == Broken {
		var said []string
		for _, c := range r.Checks {
			if c.Status != Fail {
				continue
			}
			if c.Answers == "" {
				said = nil
				break
			}
			if !slices.Contains(said, c.Answers) {
				said = append(said, c.Answers)
			}
		}
		if len(said) > 0 {
			line := strings.Join(said, "; ")
			return strings.ToUpper(line[:1]) + line[1:] + "."
		}
	}
	return "jarvis is " + string(r.Status) + "."
}

// ExitCode is 0 when healthy, 1 when degraded and 2 when broken.
func (r Report) ExitCode() int {
	switch r.Status {
	case Healthy:
		return 0
	case Degraded:
		return 1
	default:
		return 2
	}
}

// Run runs every check, all at once, each with its own deadline, and sums
// up in the checks' order: any fail makes the report broken, any warn
// degraded; ok and skip change nothing. A check that panics or overruns is
// a fail of its own, not the end of the report. Run itself keeps nothing
// between calls; a check wrapped by a Reuser may hand back recent results,
// saying how old they are.
func Run(ctx context.Context, checks []Check, perCheck time.Duration) Report {
	results := make([][]Result, len(checks))
	var wg sync.WaitGroup
	for i, c := range checks {
		wg.Go(func() { results[i] = runOne(ctx, c, perCheck) })
	}
	wg.Wait()
	rep := Report{Status: Healthy, Checks: []Result{}}
	damaged := slices.ContainsFunc(results, func(rs []Result) bool {
		return slices.ContainsFunc(rs, func(r Result) bool { return r.Damaged })
	})
	for _, rs := range results {
		for j, r := range rs {
			if damaged && r.IfDamaged.Detail != "" {
				rs[j].Status, rs[j].Detail, rs[j].Fix = cmp.Or(r.IfDamaged.Status, Fail), r.IfDamaged.Detail, r.IfDamaged.Fix
			}
		}
	}
	// The failed checks that make index refuse to run, and those of them
	// that make index --rebuild refuse too.
	var gated, gatedRebuild []string
	for i, c := range checks {
		for _, r := range results[i] {
			if c.Gates && r.Status == Fail {
				gated = append(gated, c.Name)
				if !r.SparesRebuild {
					gatedRebuild = append(gatedRebuild, c.Name)
				}
				break
			}
		}
	}
	// The failed checks that leave no room for an index run to write.
	var starved []string
	for i, c := range checks {
		if c.Starves && slices.ContainsFunc(results[i], func(r Result) bool { return r.Status == Fail }) {
			starved = append(starved, c.Name)
		}
	}
	for i, c := range checks {
		for _, r := range results[i] {
			if r.Name == "" {
				r.Name = c.Name
			}
			g := gated
			if namesRebuild(r.Fix) {
				g = gatedRebuild
			}
			switch {
			case len(g) > 0 && !c.Gates && namesIndex(r.Fix, false):
				r.Fix = "first fix the " + strings.Join(g, " and ") + " problem above: indexing refuses to run until then"
			case len(starved) > 0 && !c.Starves && namesIndex(r.Fix, false):
				r.Fix = "first free some disk space (see the " + strings.Join(starved, " and ") + " check): indexing cannot write until then; then " + r.Fix
			}
			rep.Checks = append(rep.Checks, r)
			switch r.Status {
			case Fail:
				rep.Status = Broken
			case Warn:
				if rep.Status == Healthy {
					rep.Status = Degraded
				}
			}
		}
	}
	return rep
}

func runOne(ctx context.Context, c Check, timeout time.Duration) []Result {
	if c.Limit != nil {
		timeout = max(timeout, c.Limit())
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	done := make(chan []Result, 1)
	go func() {
		defer func() {
			if p := recover(); p != nil {
				done <- []Result{{Name: c.Name, Status: Fail, Detail: fmt.Sprintf("check crashed: %v", p),
					Fix: "report this as a bug in jarvis"}}
			}
		}()
		done <- c.Run(ctx)
	}()
	select {
	case rs := <-done:
		return rs
	case <-ctx.Done():
		if !errors.Is(ctx.Err(), context.DeadlineExceeded) {
			return []Result{{Name: c.Name, Status: Skip, Detail: "not checked: stopped before it finished"}}
		}
		return []Result{{Name: c.Name, Status: Fail, Detail: fmt.Sprintf("check did not finish within %s", timeout),
			Fix: "check that the disk holding the vault and database responds"}}
	}
}

// namesIndex reports whether fix tells the reader to run jarvis index:
// any index command, or with plain set only one that brings the index up
// to date (not --rebuild, --forget or --reembed, which the server never
// runs on its own).
func namesIndex(fix string, plain bool) bool {
	return slices.ContainsFunc(indexCommands(fix), func(words []string) bool {
		return !plain || !slices.ContainsFunc(words[2:], func(w string) bool {
			return w == "--rebuild" || w == "--forget" || w == "--reembed"
		})
	})
}

// namesRebuild reports whether fix tells the reader to run jarvis index
// --rebuild.
func namesRebuild(fix string) bool {
	return slices.ContainsFunc(indexCommands(fix), func(words []string) bool {
		return slices.Contains(words[2:], "--rebuild")
	})
}

// indexCommands are the words of the backquoted jarvis index commands of
// fix.
func indexCommands(fix string) [][]string {
	var out [][]string
	parts := strings.Split(fix, "`")
	for i := 1; i < len(parts); i += 2 { // the backquoted commands
		words := strings.Fields(parts[i])
		if len(words) >= 2 && words[0] == "jarvis" && words[1] == "index" {
			out = append(out, words)
		}
	}
	return out
}

// onlyIndex reports whether every command fix names is jarvis index: a
// fix that first asks for another (a chmod that lets the database be
// written) is not the server's to do.
func onlyIndex(fix string) bool {
	return len(indexCommands(fix)) == strings.Count(fix, "`")/2
}

// Underway rewords the fixes of rep that say to run jarvis index, and no
// other command, while the server itself is doing that work (doing says what, such as "the server
// is indexing vault "work" now (312 of 1402 notes, 134 attachments indexed)"): running a
// second indexer beside it would only wait for it. Fixes naming
// --rebuild or --forget, or another command besides, stand.
func (rep *Report) Underway(doing string) {
	for i, r := range rep.Checks {
		if r.Status != OK && namesIndex(r.Fix, true) && onlyIndex(r.Fix) {
			rep.Checks[i].Fix = "nothing to run: " + doing + ", and this check passes once that is done; ask again in a little while"
		}
	}
}

// NotChecked is the result of a check that could not be made, saying why;
// the check that found the cause reports it.
func NotChecked(name, why string) Result {
	return NotCheckedOf(name, "", why)
}

// NotCheckedOf is NotChecked for a check of subject (such as the embedder
// a vectors check is about), named first: "lexical hashed-ngrams-v1 not
// checked: the database is not available", as NotChecked words it and
// without a chain of colons.
func NotCheckedOf(name, subject, why string) Result {
	if subject == "" {
		return Result{Name: name, Status: Skip, Detail: "not checked: " + why}
	}
	return Result{Name: name, Status: Skip, Detail: subject + " not checked: " + why}
}

// Runner runs one list of checks, each bounded by its own deadline: the
// health service of the server.
type Runner struct {
	checks   []Check
	perCheck time.Duration
}

// NewRunner returns a Runner of checks, each given at most perCheck.
func NewRunner(checks []Check, perCheck time.Duration) *Runner {
	return &Runner{checks: checks, perCheck: perCheck}
}

// Report runs every check.
func (r *Runner) Report(ctx context.Context) Report {
	return Run(ctx, r.checks, r.perCheck)
}

package health

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

func check(name string, order int, rs ...Result) Check {
	return Check{Name: name, Order: order, Run: func(context.Context) []Result { return rs }}
}

func TestRunSumsUp(t *testing.T) {
	tests := []struct {
		name   string
		checks []Check
		want   Overall
		code   int
	}{
		{"all ok", []Check{check("a", 0, Result{Status: OK}), check("b", 0, Result{Status: OK})}, Healthy, 0},
		{"a warning", []Check{check("a", 0, Result{Status: OK}), check("b", 0, Result{Status: Warn})}, Degraded, 1},
		{"a failure beats warnings", []Check{check("a", 0, Result{Status: Warn}), check("b", 0, Result{Status: Fail}), check("c", 0, Result{Status: Warn})}, Broken, 2},
		{"no checks", nil, Healthy, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rep := Run(context.Background(), tt.checks, time.Second)
			if rep.Status != tt.want || rep.ExitCode() != tt.code {
				t.Fatalf("status %s, exit %d; want %s, %d", rep.Status, rep.ExitCode(), tt.want, tt.code)
			}
		})
	}
}

func TestRunNamesAndSurvives(t *testing.T) {
	checks := []Check{
		check("named by the check", 0, Result{Status: OK}),
		check("several", 0, Result{Name: "several one", Status: OK}, Result{Name: "several two", Status: OK}),
		{Name: "panics", Run: func(context.Context) []Result { panic("boom") }},
		{Name: "hangs", Run: func(ctx context.Context) []Result { <-make(chan struct{}); return nil }},
		check("after", 0, Result{Status: OK}),
	}
	rep := Run(context.Background(), checks, 50*time.Millisecond)
	var names []string
	for _, r := range rep.Checks {
		names = append(names, r.Name+"="+string(r.Status))
	}
	want := "named by the check=ok several one=ok several two=ok panics=fail hangs=fail after=ok"
	if got := strings.Join(names, " "); got != want {
		t.Fatalf("results = %s\nwant      %s", got, want)
	}
	if !strings.Contains(rep.Checks[3].Detail, "boom") || rep.Checks[3].Fix == "" {
		t.Fatalf("panic result = %+v", rep.Checks[3])
	}
	if rep.Status != Broken {
		t.Fatalf("status = %s", rep.Status)
	}
}

func TestSortKeepsOrderAmongEquals(t *testing.T) {
	cs := []Check{check("disk", 90), check("b", 40), check("config", 10), check("c", 40)}
	Sort(cs)
	var got []string
	for _, c := range cs {
		got = append(got, c.Name)
	}
	if strings.Join(got, ",") != "config,b,c,disk" {
		t.Fatalf("order = %v", got)
	}
}

func TestDiskSpace(t *testing.T) {
	rs := DiskSpace(t.TempDir() + "/not/yet/created/j.db").Run(context.Background())
	if len(rs) != 1 || rs[0].Status == Fail || !strings.Contains(rs[0].Detail, "free") {
		t.Fatalf("disk space = %+v", rs)
	}
}

func TestSkipLeavesTheStatusAlone(t *testing.T) {
	rep := Run(context.Background(), []Check{
		check("a", 0, Result{Status: OK}),
		check("b", 0, NotChecked("b one", "the vault folder is missing")),
	}, time.Second)
	if rep.Status != Healthy || rep.Checks[1].Status != Skip || !strings.HasPrefix(rep.Checks[1].Detail, "not checked: ") {
		t.Fatalf("report = %+v", rep)
	}
}

// TestForgetLeavesOutMissingVaults: a --forget command never repeats a
// --vault whose folder is missing, at which index would stop.
func TestForgetLeavesOutMissingVaults(t *testing.T) {
	here, missing := t.TempDir(), filepath.Join(t.TempDir(), "nonexistent")
	inv := Invocation{"--vault", missing, "--db", "/tmp/j.db", "--vault", here}
	if got, want := inv.Forget("garden"), (Invocation{"--db", "/tmp/j.db", "--vault", here}).Command("index", "--no-embed", "--forget", "garden"); got != want {
		t.Errorf("Forget = %s, want %s", got, want)
	}
}

func TestCommandQuotesForTheShell(t *testing.T) {
	inv := Invocation{"--vault", "/home/me/My Notes", "--db", "/tmp/it's.db", "--vault", "work"}
	got := inv.Command("index", "--rebuild")
	want := "`jarvis index --vault '/home/me/My Notes' --db '/tmp/it'\\''s.db' --vault work --rebuild`"
	if got != want {
		t.Fatalf("Command = %s\nwant      %s", got, want)
	}
	if got := Invocation(nil).Command("index"); got != "`jarvis index`" {
		t.Fatalf("no flags: %s", got)
	}
	if got := Quote(""); got != "''" {
		t.Fatalf("Quote(\"\") = %s", got)
	}
}

// clock is a settable time for a Reuser.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) now() time.Time      { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *clock) add(d time.Duration) { c.mu.Lock(); c.t = c.t.Add(d); c.mu.Unlock() }

// testReuser is a Reuser on clk that waits long for a check, so that a
// fast check is always waited for.
func testReuser(t *testing.T, clk *clock) *Reuser {
	u := NewReuser(Invocation{"--vault", "my notes", "--db", "/tmp/j.db"})
	u.Wait = 10 * time.Second
	if clk != nil {
		u.Now = clk.now
	}
	t.Cleanup(u.Close)
	return u
}

// settle calls c until the run it started has ended and its results
// come back, and returns them.
func settle(t *testing.T, c Check) []Result {
	t.Helper()
	for {
		rs := c.Run(context.Background())
		if len(rs) == 0 || !strings.Contains(rs[0].Checked, "a new check is under way") {
			return rs
		}
		time.Sleep(time.Millisecond)
	}
}

func TestReuserKeepsPassesLongerThanProblems(t *testing.T) {
	ctx := context.Background()
	clk := &clock{t: time.Unix(1000, 0)}
	var runs atomic.Int32
	var status atomic.Value
	status.Store(OK)
	c := testReuser(t, clk).Wrap(Check{Name: "slow", Run: func(context.Context) []Result {
		runs.Add(1)
		return []Result{{Status: status.Load().(Status), Detail: "quick check passed"}}
	}})

	if rs := c.Run(ctx); rs[0].Detail != "quick check passed" || runs.Load() != 1 {
		t.Fatalf("first call: %+v, %d runs", rs, runs.Load())
	}
	clk.add(90 * time.Second)
	if rs := c.Run(ctx); rs[0].Detail != "quick check passed" || rs[0].Checked != "checked 1m30s ago" || runs.Load() != 1 {
		t.Fatalf("within the time: %+v, %d runs", rs, runs.Load())
	}
	clk.add(31 * time.Second)
	status.Store(Fail)
	// Past the time, the caller gets the pass it had at once, and the
	// check runs again for the next.
	if rs := c.Run(ctx); rs[0].Status != OK || rs[0].Detail != "quick check passed" || rs[0].Checked != "as checked 2m1s ago; a new check is under way" {
		t.Fatalf("after the time: %+v", rs)
	}
	if rs := settle(t, c); rs[0].Status != Fail || rs[0].Detail != "quick check passed" || rs[0].Checked != "checked 0s ago" || runs.Load() != 2 {
		t.Fatalf("the run after the time: %+v, %d runs", rs, runs.Load())
	}
	// A failure is handed back for seconds, not minutes, saying how old.
	clk.add(2 * time.Second)
	if rs := c.Run(ctx); rs[0].Status != Fail || rs[0].Detail != "quick check passed" || rs[0].Checked != "checked 2s ago" || runs.Load() != 2 {
		t.Fatalf("just after a failure: %+v, %d runs", rs, runs.Load())
	}
	clk.add(4 * time.Second)
	status.Store(OK)
	if rs := c.Run(ctx); rs[0].Status != Fail || rs[0].Checked != "as checked 6s ago; a new check is under way" {
		t.Fatalf("a failure past its time: %+v", rs)
	}
	if rs := settle(t, c); rs[0].Status != OK || runs.Load() != 3 {
		t.Fatalf("fixed: %+v, %d runs", rs, runs.Load())
	}
}

// TestReuserKeepsSlowChecksLonger: results are kept at least ten times as
// long as the check took, so a check that reads the whole database is not
// run back to back while it reports a problem.
func TestReuserKeepsSlowChecksLonger(t *testing.T) {
	clk := &clock{t: time.Unix(1000, 0)}
	var runs atomic.Int32
	c := testReuser(t, clk).Wrap(Check{Name: "slow", Run: func(context.Context) []Result {
		runs.Add(1)
		clk.add(30 * time.Second)
		return []Result{{Status: Warn, Detail: "a problem"}}
	}})
	if rs := c.Run(context.Background()); rs[0].Status != Warn || runs.Load() != 1 {
		t.Fatalf("first call: %+v, %d runs", rs, runs.Load())
	}
	clk.add(4 * time.Minute)
	if rs := c.Run(context.Background()); rs[0].Detail != "a problem" || rs[0].Checked != "checked 4m30s ago" || runs.Load() != 1 {
		t.Fatalf("within ten times its run: %+v, %d runs", rs, runs.Load())
	}
	clk.add(time.Minute)
	if rs := c.Run(context.Background()); !strings.HasSuffix(rs[0].Checked, "; a new check is under way") {
		t.Fatalf("past ten times its run: %+v", rs)
	}
	if settle(t, c); runs.Load() != 2 {
		t.Fatalf("%d runs; want 2", runs.Load())
	}
}

// TestReuserHandsBackEarlierResultsAtOnce: a caller that has had results
// gets them while the check runs again, however long that takes; the
// check here does not end until the caller has its answer.
func TestReuserHandsBackEarlierResultsAtOnce(t *testing.T) {
	clk := &clock{t: time.Unix(1000, 0)}
	u := testReuser(t, clk)
	u.Wait = time.Hour
	gate := make(chan struct{})
	var runs atomic.Int32
	c := u.Wrap(Check{Name: "slow", Run: func(context.Context) []Result {
		if runs.Add(1) > 1 {
			<-gate
		}
		return []Result{{Status: OK, Detail: "passed"}}
	}})
	c.Run(context.Background())
	clk.add(3 * time.Minute)
	for range 3 {
		if rs := c.Run(context.Background()); rs[0].Detail != "passed" || rs[0].Checked != "as checked 3m0s ago; a new check is under way" {
			t.Fatalf("while checking again: %+v", rs)
		}
	}
	close(gate)
	if rs := settle(t, c); rs[0].Detail != "passed" || rs[0].Checked != "checked 0s ago" || runs.Load() != 2 {
		t.Fatalf("after the run: %+v, %d runs; want one run again for all three callers", rs, runs.Load())
	}
}

// TestReuserNothingToReportPasses: a check with no results (no other
// vaults in the database) is a pass, kept as long as one, not a check
// that never ran.
func TestReuserNothingToReportPasses(t *testing.T) {
	clk := &clock{t: time.Unix(1000, 0)}
	var runs atomic.Int32
	c := testReuser(t, clk).Wrap(Check{Name: "other vaults", Run: func(context.Context) []Result {
		runs.Add(1)
		return nil
	}})
	if !passes(nil) {
		t.Fatal("no results is not a pass")
	}
	for range 3 {
		if rs := c.Run(context.Background()); len(rs) != 0 || runs.Load() != 1 {
			t.Fatalf("%+v, %d runs; want nothing, from one run", rs, runs.Load())
		}
		clk.add(time.Minute)
	}
}

func TestReuserRunsOnceAtATime(t *testing.T) {
	release := make(chan struct{})
	var runs, running, most atomic.Int32
	c := testReuser(t, nil).Wrap(Check{Name: "slow", Run: func(context.Context) []Result {
		runs.Add(1)
		n := running.Add(1)
		if n > most.Load() {
			most.Store(n)
		}
		<-release
		running.Add(-1)
		return []Result{{Status: Warn, Detail: "stale"}}
	}})
	var wg sync.WaitGroup
	results := make([][]Result, 16)
	for i := range results {
		wg.Go(func() { results[i] = c.Run(context.Background()) })
	}
	for runs.Load() == 0 {
		time.Sleep(time.Millisecond)
	}
	time.Sleep(20 * time.Millisecond) // let the others arrive and wait
	close(release)
	wg.Wait()
	if most.Load() != 1 || runs.Load() != 1 {
		t.Fatalf("%d runs, %d at once; want 1", runs.Load(), most.Load())
	}
	for _, rs := range results {
		if len(rs) != 1 || rs[0].Status != Warn {
			t.Fatalf("a caller got %+v", rs)
		}
	}
}

// TestReuserAnswersWithinWait: a caller with no results yet waits no
// longer than Wait for a slow check, then hears "not checked yet"; later
// callers get the last results saying how old they are.
func TestReuserAnswersWithinWait(t *testing.T) {
	ctx := context.Background()
	clk := &clock{t: time.Unix(1000, 0)}
	u := testReuser(t, clk)
	u.Wait = 20 * time.Millisecond
	gate := make(chan struct{})
	var runs atomic.Int32
	c := u.Wrap(Check{Name: "slow", Run: func(ctx context.Context) []Result {
		runs.Add(1)
		select {
		case <-gate:
		case <-ctx.Done():
		}
		return []Result{{Status: OK, Detail: "passed"}}
	}})
	if rs := c.Run(ctx); rs[0].Status != Warn || !strings.Contains(rs[0].Detail, "not checked yet") {
		t.Fatalf("before any result: %+v", rs)
	} else if want := "`jarvis doctor --vault 'my notes' --db /tmp/j.db`"; !strings.Contains(rs[0].Fix, want) {
		// A bare jarvis doctor, pasted, checks another database.
		t.Fatalf("fix %q does not suggest %s", rs[0].Fix, want)
	}
	gate <- struct{}{}
	for runs.Load() == 1 {
		if rs := c.Run(ctx); rs[0].Status == OK {
			break
		}
	}
	clk.add(3 * time.Minute)
	if rs := c.Run(ctx); rs[0].Status != OK || rs[0].Detail != "passed" || rs[0].Checked != "as checked 3m0s ago; a new check is under way" {
		t.Fatalf("while checking again: %+v", rs)
	}
	for runs.Load() != 2 {
		time.Sleep(time.Millisecond)
	}
	// Close ends the check under way and waits for it.
	u.Close()
	if n := runs.Load(); n != 2 {
		t.Fatalf("%d runs", n)
	}
	// and starts none after it: the last results come back as they are.
	clk.add(3 * time.Minute)
	if rs := c.Run(ctx); rs[0].Detail != "passed" || rs[0].Checked != "checked 6m0s ago" || runs.Load() != 2 {
		t.Fatalf("after close: %+v, %d runs", rs, runs.Load())
	}
	// A check that never ran says why it was not made.
	never := u.Wrap(Check{Name: "never", Run: func(context.Context) []Result { return nil }})
	if rs := never.Run(ctx); rs[0].Status != Skip {
		t.Fatalf("a check first asked for after close: %+v", rs)
	}
}

// TestLimitGivesACheckMoreTime: a check whose Limit is longer than the
// limit Run gives every check runs with that longer deadline.
func TestLimitGivesACheckMoreTime(t *testing.T) {
	left := func(ctx context.Context) []Result {
		d, _ := ctx.Deadline()
		return []Result{{Status: OK, Detail: time.Until(d).Round(time.Hour).String()}}
	}
	rep := Run(context.Background(), []Check{
		{Name: "large", Run: left, Limit: func() time.Duration { return 2 * time.Hour }},
		{Name: "small", Run: left, Limit: func() time.Duration { return time.Millisecond }},
	}, time.Hour)
	if got := rep.Checks[0].Detail + " " + rep.Checks[1].Detail; got != "2h0m0s 1h0m0s" {
		t.Fatalf("deadlines %s; want 2h0m0s 1h0m0s", got)
	}
}

// TestReuserWaitsOnlyForAYoungCheck: before the first results, a caller
// waits only until the check has been under way for Wait; one who comes
// later hears "not checked yet" at once (the check here ends only when
// the test says, so a caller that waited would not answer).
func TestReuserWaitsOnlyForAYoungCheck(t *testing.T) {
	clk := &clock{t: time.Unix(1000, 0)}
	u := testReuser(t, clk)
	u.Wait = time.Hour
	gate := make(chan struct{})
	c := u.Wrap(Check{Name: "slow", Run: func(context.Context) []Result {
		<-gate
		return []Result{{Status: OK, Detail: "passed"}}
	}})
	ctx, cancel := context.WithCancel(context.Background())
	cancel() // the first caller gives up at once, the check goes on
	if rs := c.Run(ctx); rs[0].Status != Warn {
		t.Fatalf("first caller: %+v", rs)
	}
	clk.add(time.Hour)
	if rs := c.Run(context.Background()); rs[0].Status != Warn || !strings.Contains(rs[0].Detail, "not checked yet") {
		t.Fatalf("a caller once the check has run for Wait: %+v", rs)
	}
	close(gate)
}

// TestReuserRunsChecksInItsSlots: with one slot, a second check waits
// for the first to end, so that a server on two processors keeps one for
// the tools while a check reads the whole database.
func TestReuserRunsChecksInItsSlots(t *testing.T) {
	u := testReuser(t, nil)
	u.Wait = 0
	u.slots = make(chan struct{}, 1)
	started, gate := make(chan struct{}), make(chan struct{})
	var second atomic.Int32
	first := u.Wrap(Check{Name: "first", Run: func(context.Context) []Result {
		close(started)
		<-gate
		return []Result{{Status: OK, Detail: "first"}}
	}})
	next := u.Wrap(Check{Name: "second", Run: func(context.Context) []Result {
		second.Add(1)
		return []Result{{Status: OK, Detail: "second"}}
	}})
	first.Run(context.Background())
	<-started
	if rs := next.Run(context.Background()); rs[0].Status != Warn || second.Load() != 0 {
		t.Fatalf("while the first runs: %+v, %d runs of the second", rs, second.Load())
	}
	close(gate)
	for {
		if rs := next.Run(context.Background()); rs[0].Status == OK {
			break
		}
		time.Sleep(time.Millisecond)
	}
	if second.Load() != 1 {
		t.Fatalf("%d runs of the second", second.Load())
	}
}

// TestReuserAgeStandsApart: how long ago a result was checked has a
// place of its own in the line, after the check's name, whatever its
// detail ends with; the detail keeps the check's own words, its
// parentheses untouched.
func TestReuserAgeStandsApart(t *testing.T) {
	clk := &clock{t: time.Unix(1000, 0)}
	for _, detail := range []string{
		"not checked: the folder is missing (see the vault check above)",
		"12 notes indexed (3 attachments)",
		"every link resolves",
	} {
		c := testReuser(t, clk).Wrap(Check{Name: "links", Run: func(context.Context) []Result {
			return []Result{{Name: "links", Status: Warn, Detail: detail, Fix: "do this"}}
		}})
		c.Run(context.Background())
		clk.add(2 * time.Second)
		r := c.Run(context.Background())[0]
		if r.Detail != detail {
			t.Errorf("detail %q; want the check's own %q", r.Detail, detail)
		}
		if want := "warn  links (checked 2s ago): " + detail; r.Line() != want {
			t.Errorf("line %q; want %q", r.Line(), want)
		}
		if r.FixLine() != "fix: do this" {
			t.Errorf("fix line %q", r.FixLine())
		}
	}
	// A skipped check was not checked at all: reused, it has no age.
	c := testReuser(t, clk).Wrap(Check{Name: "index freshness", Run: func(context.Context) []Result {
		return []Result{NotChecked("index freshness dv", "the database is not available")}
	}})
	c.Run(context.Background())
	clk.add(3 * time.Second)
	if r := c.Run(context.Background())[0]; r.Line() != "skip  index freshness dv: not checked: the database is not available" {
		t.Errorf("reused skip: %q; want no age", r.Line())
	}
	// Checked for this report: no age at all.
	fresh := Result{Name: "links", Status: OK, Detail: "every link resolves (2 of them)", Fix: "nothing"}
	if fresh.Line() != "ok    links: every link resolves (2 of them)" || fresh.FixLine() != "" {
		t.Errorf("fresh: %q, %q", fresh.Line(), fresh.FixLine())
	}
}

// TestUnderwayRewordsOnlyPlainIndexFixes: while the server indexes, a fix
// saying to run jarvis index (with the user's flags) becomes "nothing to
// run"; fixes that need a rebuild, a forget or another command, and
// passed checks, stand.
func TestUnderwayRewordsOnlyPlainIndexFixes(t *testing.T) {
	inv := Invocation{"--config", "/tmp/my conf.yaml"}
	rep := Report{Checks: []Result{
		{Name: "index freshness work", Status: Warn, Detail: "the first index run has not finished", Fix: "run " + inv.Command("index") + ": it finishes the work"},
		{Name: "semantic vectors work", Status: Warn, Detail: "no note has a vector yet", Fix: "run " + inv.Command("index")},
		{Name: "database", Status: Fail, Detail: "damaged", Fix: "run " + inv.Command("index", "--rebuild")},
		{Name: "other vault old", Status: Warn, Detail: "not configured", Fix: inv.Command("index", "--forget", "old") + " drops it"},
		{Name: "embedder", Status: Warn, Detail: "model missing", Fix: "run " + inv.Command("model", "pull")},
		{Name: "ok", Status: OK, Detail: "fine", Fix: "run " + inv.Command("index")},
		{Name: "index freshness blocked", Status: Warn, Detail: "the index cannot be updated", Fix: "run `chmod u+rwx /data`, or choose another database with --db; then run " + inv.Command("index")},
	}}
	rep.Underway(`the server is indexing vault "work" now (3 of 9 files done)`)
	for i, want := range []bool{true, true, false, false, false, false, false} {
		got := strings.HasPrefix(rep.Checks[i].Fix, "nothing to run: the server is indexing vault \"work\" now (3 of 9 files done)")
		if got != want {
			t.Errorf("%s: fix %q, reworded %v, want %v", rep.Checks[i].Name, rep.Checks[i].Fix, got, want)
		}
	}
}

// TestReuserStaleRunsAgain: once the server says what the checks look at
// has changed, no result from before is handed back, however young: the
// next caller waits for a new run, and a run under way since before the
// change does not count either.
func TestReuserStaleRunsAgain(t *testing.T) {
	clk := &clock{t: time.Unix(1000, 0)}
	u := testReuser(t, clk)
	u.Wait = time.Hour
	var runs atomic.Int32
	gate := make(chan struct{}, 1)
	c := u.Wrap(Check{Name: "index freshness", Run: func(context.Context) []Result {
		n := runs.Add(1)
		if n == 2 {
			<-gate // the run under way when the state changes again
		}
		return []Result{{Status: Warn, Detail: fmt.Sprintf("run %d", n)}}
	}})
	if rs := c.Run(context.Background()); rs[0].Detail != "run 1" {
		t.Fatalf("first: %+v", rs)
	}
	u.Stale()
	done := make(chan []Result)
	go func() { done <- c.Run(context.Background()) }()
	for runs.Load() < 2 {
		time.Sleep(time.Millisecond)
	}
	u.Stale() // run 2 began before this
	gate <- struct{}{}
	if rs := <-done; rs[0].Detail == "run 1" {
		t.Fatalf("after Stale, a result from before: %+v", rs)
	}
	if rs := c.Run(context.Background()); !strings.HasPrefix(rs[0].Detail, "run 3") {
		t.Fatalf("after a second Stale during run 2: %+v; want run 3's result", rs)
	}
}

// TestReuserStaleKeepsAPass: after a change a pass is handed back at once,
// saying it is being checked again, rather than "not checked yet".
func TestReuserStaleKeepsAPass(t *testing.T) {
	clk := &clock{t: time.Unix(1000, 0)}
	u := testReuser(t, clk)
	u.Wait = time.Hour
	gate := make(chan struct{})
	var runs atomic.Int32
	c := u.Wrap(Check{Name: "database", Run: func(context.Context) []Result {
		if runs.Add(1) > 1 {
			<-gate
		}
		return []Result{{Status: OK, Detail: "passes"}}
	}})
	c.Run(context.Background())
	u.Stale()
	if rs := c.Run(context.Background()); rs[0].Status != OK || !strings.Contains(rs[0].Checked, "a new check is under way") {
		t.Fatalf("a pass after a change: %+v", rs)
	}
	close(gate)
}

// TestFullDiskPutsFreeingSpaceFirst: on a full disk doctor offered "run
// `jarvis index …`: it finishes the work" beside "fail disk space: 0 KB
// free"; every fix that runs an index, which writes, says to free space
// first while the disk space check fails, and stands as it was otherwise.
func TestFullDiskPutsFreeingSpaceFirst(t *testing.T) {
	const resume = "run `jarvis index --db /d/j.db`: it finishes the work"
	index := Check{Name: "index", Order: 40, Run: func(context.Context) []Result {
		return []Result{{Status: Warn, Detail: "a run stopped mid-way", Fix: resume}}
	}}
	for _, tc := range []struct {
		name  string
		disk  Status
		first bool
	}{{"disk full", Fail, true}, {"disk low", Warn, false}} {
		t.Run(tc.name, func(t *testing.T) {
			disk := DiskSpace("/d/j.db")
			disk.Run = func(context.Context) []Result {
				return []Result{{Status: tc.disk, Detail: "0 KB free on the disk holding /d", Fix: "free some disk space or move the database with --db"}}
			}
			rep := Run(context.Background(), []Check{index, disk}, time.Minute)
			fix := rep.Checks[0].Fix
			if got := strings.HasPrefix(fix, "first free some disk space (see the disk space check)"); got != tc.first || !strings.HasSuffix(fix, resume) {
				t.Errorf("index fix: %q", fix)
			}
			if rep.Checks[1].Fix != "free some disk space or move the database with --db" {
				t.Errorf("disk fix: %q", rep.Checks[1].Fix)
			}
		})
	}
}

// TestHeadlineSaysWhatStillAnswers: a report whose only failures leave
// search answering says what is true in its first line; any other failure
// keeps it broken.
func TestHeadlineSaysWhatStillAnswers(t *testing.T) {
	readOnly := Result{Name: "database access", Status: Fail, Answers: "search answers from the index as it is; the index cannot be updated: /d is read-only"}
	for _, c := range []struct {
		name string
		rep  Report
		want string
	}{
		{"healthy", Report{Status: Healthy}, "jarvis is healthy."},
		{"read-only", Report{Status: Broken, Checks: []Result{{Name: "database", Status: OK}, readOnly}},
			"Search answers from the index as it is; the index cannot be updated: /d is read-only."},
		{"read-only and more", Report{Status: Broken, Checks: []Result{readOnly, {Name: "vault x", Status: Fail}}}, "jarvis is broken."},
	} {
		if got := c.rep.Headline(); got != c.want {
			t.Errorf("%s: %q, want %q", c.name, got, c.want)
		}
	}
}

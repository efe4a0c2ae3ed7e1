package health

import (
	"context"
	"fmt"
	"runtime"
	"sync"
	"time"
)

// Reuser runs the slow checks of a busy server (an integrity check, a
// scan of every file, a call to the embedder), which health-status may be
// asked for by many clients at once. Each check runs at most once at a
// time, in the background. Once it has results, every caller gets them at
// once, each saying how old it is; when they are too old, the caller
// still gets them ("a new check is under way") and the check runs again for the
// next. Only before the first results does a caller wait, until the check
// has been under way for Wait at most, then hear "not checked yet". A
// pass is handed back for Pass; a warning or failure only for Problem, so
// that a problem is looked at again within seconds and a fix shows as
// soon. Either is kept at least ten times as long as the check took, so
// that checks whose cost grows with the vault (reading every page of the
// database) take a tenth of the server's time at most. The full,
// uncached checks are `jarvis doctor`'s.
type Reuser struct {
	// Pass is how long a pass (every result ok) is handed back.
	Pass time.Duration
	// Problem is how long other results are handed back.
	Problem time.Duration
	// Wait is how long a check that has no results yet is waited for
	// after it starts.
	Wait time.Duration
	// Timeout bounds one run of a check (unless its Limit allows more).
	Timeout time.Duration
	// Now is the clock; nil means time.Now.
	Now func() time.Time
	// Inv is the user's command line, for the doctor command a result
	// not checked yet suggests.
	Inv Invocation

	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup
	mu     sync.Mutex // orders wg.Add before Close's Wait
	closed bool
	// slots bounds the checks that run at once, nil for no bound.
	slots chan struct{}
	// gen counts calls of Stale: results from a run begun before the
	// latest are not handed back.
	gen uint64
}

// Stale says that what the checks look at has changed (the server's own
// index pass or vector sync has ended): no problem found before is handed
// back (the next caller waits for a new run, as before the first), and a
// pass is handed back saying it is being checked again. A check that
// said the first index had not finished must not say so after it has.
func (u *Reuser) Stale() {
	u.mu.Lock()
	u.gen++
	u.mu.Unlock()
}

func (u *Reuser) generation() uint64 {
	u.mu.Lock()
	defer u.mu.Unlock()
	return u.gen
}

// NewReuser returns a Reuser with the server's settings: a pass is kept
// two minutes, a problem five seconds, and a caller with no results yet
// waits at most 300 ms, so that health-status answers well within a
// second whatever the checks cost at the vault's size. The checks run on
// one processor fewer than Go uses (one at a time on two), so that the
// tools keep one while the checks of a large vault read the whole
// database for seconds. inv is the user's command line, for the doctor
// command it suggests.
func NewReuser(inv Invocation) *Reuser {
	ctx, cancel := context.WithCancel(context.Background())
	return &Reuser{Pass: 2 * time.Minute, Problem: 5 * time.Second, Wait: 300 * time.Millisecond, Timeout: time.Minute, Inv: inv,
		ctx: ctx, cancel: cancel, slots: make(chan struct{}, max(1, runtime.GOMAXPROCS(0)-1))}
}

// Close stops the checks under way and waits for them, so that none
// outlives the database it reads.
func (u *Reuser) Close() {
	u.mu.Lock()
	u.closed = true
	u.cancel()
	u.mu.Unlock()
	u.wg.Wait()
}

// begin counts a check about to start, or says false once u is closed.
func (u *Reuser) begin() bool {
	u.mu.Lock()
	defer u.mu.Unlock()
	if u.closed {
		return false
	}
	u.wg.Add(1)
	return true
}

// take waits for a slot to run a check in, or says false once u is
// closed.
func (u *Reuser) take() bool {
	if u.slots == nil {
		return u.ctx.Err() == nil
	}
	select {
	case u.slots <- struct{}{}:
		if u.ctx.Err() != nil {
			<-u.slots
			return false
		}
		return true
	case <-u.ctx.Done():
		return false
	}
}

// give hands back the slot take took.
func (u *Reuser) give() {
	if u.slots != nil {
		<-u.slots
	}
}

// Wrap returns c run through u.
func (u *Reuser) Wrap(c Check) Check {
	r := &reused{u: u, check: c}
	c.Run = r.run
	return c
}

func (u *Reuser) now() time.Time {
	if u.Now != nil {
		return u.Now()
	}
	return time.Now()
}

// reused is one check's last results and its run under way.
type reused struct {
	u     *Reuser
	check Check

	mu     sync.Mutex
	ran    bool     // a run has ended: last holds its results
	gen    uint64   // the Reuser's generation when that run began
	last   []Result // may be empty: a check with nothing to report
	at     time.Time
	took   time.Duration
	flight *flight
}

// flight is one run of the check, shared by everyone who waits for it.
type flight struct {
	gen     uint64 // the Reuser's generation when it began
	began   time.Time
	done    chan struct{}
	results []Result
}

// keepFor is the multiple of a check's own run time its results are kept
// for at least.
const keepFor = 10

func (r *reused) run(ctx context.Context) []Result {
	gen := r.u.generation()
	r.mu.Lock()
	// A pass from before a change is still handed back while the check
	// runs again (what passed seldom fails from indexing); a problem from
	// before is not, as it may be the very thing that has changed.
	if r.ran && (r.gen == gen || passes(r.last)) {
		last, age := r.last, r.u.now().Sub(r.at)
		keep := r.u.Problem
		if passes(last) {
			keep = r.u.Pass
		}
		if r.gen == gen && age < max(keep, keepFor*r.took) {
			r.mu.Unlock()
			return aged(last, age, false)
		}
		// Too old: the next caller gets what this run finds; this one
		// does not wait for it.
		again := true
		if r.flight == nil && !r.start() {
			again = false
		}
		r.mu.Unlock()
		return aged(last, age, again)
	}
	if r.flight != nil && r.flight.gen != gen {
		// Under way since before the change: its results are old too.
		r.flight = nil
	}
	if r.flight == nil && !r.start() {
		r.mu.Unlock()
		return []Result{{Name: r.check.Name, Status: Skip, Detail: "not checked: the server is stopping"}}
	}
	f := r.flight
	// Waiting is for a check that answers quickly, on a small vault: one
	// that is still under way after Wait is slow, and a caller who comes
	// later need not wait for it at all.
	left := r.u.Wait - r.u.now().Sub(f.began)
	r.mu.Unlock()

	if left > 0 {
		wait := time.NewTimer(left)
		defer wait.Stop()
		select {
		case <-f.done:
			return f.results
		case <-wait.C:
		case <-ctx.Done():
		}
	}
	// A warning, not a skip: nothing was checked, and "healthy" would say
	// otherwise.
	return []Result{{Name: r.check.Name, Status: Warn,
		Detail: "not checked yet: the check is under way",
		Fix:    "ask again in a few seconds, or run " + r.u.Inv.Command("doctor") + ", which runs every check in full"}}
}

// start runs the check in the background, or says false once the Reuser
// is closed (the database may be gone); r.mu is held.
func (r *reused) start() bool {
	if !r.u.begin() {
		return false
	}
	f := &flight{gen: r.u.generation(), began: r.u.now(), done: make(chan struct{})}
	r.flight = f
	go func() {
		defer r.u.wg.Done()
		results := []Result{NotChecked(r.check.Name, "the server is stopping")}
		// Results are as old as the look they took.
		var began time.Time
		if r.u.take() {
			began = r.u.now()
			results = runOne(r.u.ctx, r.check, r.u.Timeout)
			r.u.give()
		}
		r.mu.Lock()
		if r.u.ctx.Err() == nil && (!r.ran || f.gen >= r.gen) { // a run stopped by Close says nothing
			r.ran, r.gen, r.last, r.at, r.took = true, f.gen, results, began, r.u.now().Sub(began)
		}
		if r.flight == f {
			r.flight = nil
		}
		r.mu.Unlock()
		f.results = results
		close(f.done)
	}()
	return true
}

// passes reports whether every result is ok; a check with nothing to
// report (no other vaults in the database) passes.
func passes(rs []Result) bool {
	for _, r := range rs {
		if r.Status != OK {
			return false
		}
	}
	return true
}

// aged copies rs, each saying how long ago it was checked, and, again,
// that a new check is under way meanwhile. A
// skipped result was not checked at all, and has no age.
func aged(rs []Result, age time.Duration, again bool) []Result {
	checked := fmt.Sprintf("checked %s ago", age.Round(time.Second))
	if again {
		// The old result is shown while it is redone: said as such, not
		// as if this line were the new check.
		checked = "as " + checked + "; a new check is under way"
	}
	out := make([]Result, len(rs))
	for i, r := range rs {
		if r.Status != Skip {
			r.Checked = checked
		}
		out[i] = r
	}
	return out
}

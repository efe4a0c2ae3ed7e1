package health

import (
	"context"
	"fmt"
	"sync"
	"time"
)

// Reuser runs the slow checks of a busy server (an integrity check, a
// scan of every file, a call to the embedder), which health-status may be
// asked for by many clients at once. Each check runs at most once at a
// time, in the background, and a caller waits for it only briefly: past
// Wait it gets the last results, each saying how old it is, or "not
// checked yet". A pass is handed back for Pass before the check runs
// again; a warning or failure only for Problem, so that a problem is
// looked at again within seconds and a fix shows as soon. The full,
// uncached checks are `jarvis doctor`'s.
type Reuser struct {
	// Pass is how long a pass (every result ok) is handed back.
	Pass time.Duration
	// Problem is how long other results are handed back.
	Problem time.Duration
	// Wait is how long a caller waits for a check under way.
	Wait time.Duration
	// Timeout bounds one run of a check.
	Timeout time.Duration
	// Now is the clock; nil means time.Now.
	Now func() time.Time

	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup
	mu     sync.Mutex // orders wg.Add before Close's Wait
	closed bool
}

// NewReuser returns a Reuser with the server's settings: a pass is kept
// two minutes, a problem five seconds, and a caller waits at most 300 ms,
// so that health-status answers well within a second whatever the checks
// cost at the vault's size.
func NewReuser() *Reuser {
	ctx, cancel := context.WithCancel(context.Background())
	return &Reuser{Pass: 2 * time.Minute, Problem: 5 * time.Second, Wait: 300 * time.Millisecond, Timeout: time.Minute,
		ctx: ctx, cancel: cancel}
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
	last   []Result // nil before the first run ends
	at     time.Time
	flight *flight
}

// flight is one run of the check, shared by everyone who waits for it.
type flight struct {
	done    chan struct{}
	results []Result
}

func (r *reused) run(ctx context.Context) []Result {
	r.mu.Lock()
	if r.last != nil {
		keep := r.u.Problem
		if passes(r.last) {
			keep = r.u.Pass
		}
		if age := r.u.now().Sub(r.at); age < keep {
			last := r.last
			r.mu.Unlock()
			return aged(last, age, "")
		}
	}
	if r.flight == nil {
		if !r.u.begin() { // closed: the database may be gone
			r.mu.Unlock()
			return []Result{{Name: r.check.Name, Status: Skip, Detail: "not checked: the server is stopping"}}
		}
		r.start()
	}
	f := r.flight
	r.mu.Unlock()

	wait := time.NewTimer(r.u.Wait)
	defer wait.Stop()
	select {
	case <-f.done:
		return f.results
	case <-wait.C:
	case <-ctx.Done():
	}
	r.mu.Lock()
	last, at := r.last, r.at
	r.mu.Unlock()
	if last == nil {
		// A warning, not a skip: nothing was checked, and "healthy" would
		// say otherwise.
		return []Result{{Name: r.check.Name, Status: Warn,
			Detail: "not checked yet: the check is under way",
			Fix:    "ask again in a few seconds, or run jarvis doctor, which runs every check in full"}}
	}
	return aged(last, r.u.now().Sub(at), "; checking again")
}

// start runs the check in the background; r.mu is held and the run is
// counted in r.u.wg.
func (r *reused) start() {
	f := &flight{done: make(chan struct{})}
	r.flight = f
	go func() {
		defer r.u.wg.Done()
		ctx, cancel := context.WithTimeout(r.u.ctx, r.u.Timeout)
		defer cancel()
		began := r.u.now() // results are as old as the look they took
		results := runOne(ctx, r.check, r.u.Timeout)
		r.mu.Lock()
		if r.u.ctx.Err() == nil { // a run stopped by Close says nothing
			r.last, r.at = results, began
		}
		r.flight = nil
		r.mu.Unlock()
		f.results = results
		close(f.done)
	}()
}

func passes(rs []Result) bool {
	if len(rs) == 0 {
		return false
	}
	for _, r := range rs {
		if r.Status != OK {
			return false
		}
	}
	return true
}

// aged copies rs, each detail ending with how long ago it was checked,
// and more.
func aged(rs []Result, age time.Duration, more string) []Result {
	out := make([]Result, len(rs))
	for i, r := range rs {
		r.Detail = fmt.Sprintf("%s (checked %s ago%s)", r.Detail, age.Round(time.Second), more)
		out[i] = r
	}
	return out
}

package health

import (
	"context"
	"fmt"
	"sync"
	"time"
)

// Reuse wraps a check that is too slow to run on every call of a busy
// server (an integrity check, a scan of every file). It runs at most once
// at a time. A pass (every result ok) is handed back for up to ttl, each
// result saying how old it is; anything else is kept by no one, so the
// next call checks again and a problem shows at once. Once a pass is older
// than ttl the next caller checks again and waits for it; callers that
// come while that check runs get the old pass, with its age, rather than
// queue behind it; callers with no pass to get wait and share the new
// results. now is the clock; nil means time.Now.
func Reuse(c Check, ttl time.Duration, now func() time.Time) Check {
	if now == nil {
		now = time.Now
	}
	r := &reuse{check: c, ttl: ttl, now: now}
	c.Run = r.run
	return c
}

type reuse struct {
	check Check
	ttl   time.Duration
	now   func() time.Time

	mu     sync.Mutex
	flight *flight
	passed []Result // the last pass, nil when there is none to reuse
	at     time.Time
}

// flight is one run of the check, shared by everyone who waits for it.
type flight struct {
	done    chan struct{}
	results []Result
}

func (r *reuse) run(ctx context.Context) []Result {
	r.mu.Lock()
	if r.passed != nil {
		if age := r.now().Sub(r.at); age < r.ttl || r.flight != nil {
			r.mu.Unlock()
			return aged(r.passed, age)
		}
	}
	f, leader := r.flight, false
	if f == nil {
		f, leader = &flight{done: make(chan struct{})}, true
		r.flight = f
	}
	r.mu.Unlock()

	if leader {
		// A panic must not leave the waiters waiting; runOne reports it.
		defer func() {
			r.mu.Lock()
			r.flight = nil
			r.passed = nil
			if passes(f.results) {
				r.passed, r.at = f.results, r.now()
			}
			r.mu.Unlock()
			close(f.done)
		}()
		f.results = r.check.Run(ctx)
		return f.results
	}
	select {
	case <-f.done:
		if f.results == nil {
			return []Result{{Name: r.check.Name, Status: Fail, Detail: "check crashed", Fix: "report this as a bug in jarvis"}}
		}
		return f.results
	case <-ctx.Done():
		return []Result{{Name: r.check.Name, Status: Fail, Detail: "check did not finish: " + ctx.Err().Error(),
			Fix: "check that the disk holding the vault and database responds"}}
	}
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

// aged copies rs, each detail ending with how long ago it was checked.
func aged(rs []Result, age time.Duration) []Result {
	out := make([]Result, len(rs))
	for i, r := range rs {
		r.Detail = fmt.Sprintf("%s (checked %s ago)", r.Detail, age.Round(time.Second))
		out[i] = r
	}
	return out
}

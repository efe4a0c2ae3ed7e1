package mcp

import (
	"context"
	"strings"
	"testing"
	"time"
)

// TestInFlightBoundsEachSessionAndAll holds turns of two sessions: each
// session gets its share, every session together no more than the global
// bound, the waiting beyond the bounds are refused, a cancelled wait gives
// its place back, and a session with nothing in flight leaves nothing
// behind.
func TestInFlightBoundsEachSessionAndAll(t *testing.T) {
	f := newInFlight(Limits{SessionRunning: 2, SessionWaiting: 2, Running: 3, Waiting: 3})
	ctx := context.Background()
	type turn struct {
		done func()
		err  error
	}
	start := func(ctx context.Context, session string) chan turn {
		c := make(chan turn, 1)
		go func() {
			done, err := f.acquire(ctx, session)
			c <- turn{done, err}
		}()
		return c
	}
	got := func(c chan turn) turn {
		t.Helper()
		select {
		case tr := <-c:
			return tr
		case <-time.After(5 * time.Second):
			t.Fatal("no turn")
			return turn{}
		}
	}
	waiting := func(c chan turn) {
		t.Helper()
		select {
		case tr := <-c:
			t.Fatalf("got a turn (%v) that should wait", tr.err)
		case <-time.After(20 * time.Millisecond):
		}
	}
	settle := func(running, waiting int) {
		t.Helper()
		for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(time.Millisecond) {
			f.mu.Lock()
			r, w := 0, f.waiting
			for _, s := range f.sessions {
				r += s.running
			}
			f.mu.Unlock()
			if r == running && w == waiting {
				return
			}
			if time.Now().After(deadline) {
				t.Fatalf("%d running and %d waiting; want %d and %d", r, w, running, waiting)
			}
		}
	}

	a1, a2 := got(start(ctx, "a")), got(start(ctx, "a"))
	if a1.err != nil || a2.err != nil {
		t.Fatal(a1.err, a2.err)
	}
	aWait := start(ctx, "a")
	waiting(aWait)
	cctx, cancel := context.WithCancel(ctx)
	aCancelled := start(cctx, "a")
	settle(2, 2)
	if tr := got(start(ctx, "a")); tr.err == nil || !strings.Contains(tr.err.Error(), "too many requests in flight for this session (2 running, 2 waiting)") {
		t.Fatalf("a's fifth request: %v", tr.err)
	}
	// Session b gets the last global turn, then waits for one.
	b1 := got(start(ctx, "b"))
	if b1.err != nil {
		t.Fatal(b1.err)
	}
	bWait := start(ctx, "b")
	waiting(bWait)
	settle(3, 3)
	if tr := got(start(ctx, "c")); tr.err == nil || !strings.Contains(tr.err.Error(), "jarvis is busy: 3 requests") {
		t.Fatalf("c's request while 3 wait: %v", tr.err)
	}
	// A cancelled wait leaves and makes room.
	cancel()
	if tr := got(aCancelled); tr.err != context.Canceled {
		t.Fatalf("cancelled wait: %v", tr.err)
	}
	settle(3, 2)
	// Ending a's turn lets a waiting request run: a's own or b's.
	a1.done()
	settle(3, 1)
	a2.done()
	b1.done()
	for _, c := range []chan turn{aWait, bWait} {
		if tr := got(c); tr.err != nil {
			t.Fatal(tr.err)
		} else {
			tr.done()
		}
	}
	settle(0, 0)
	if len(f.sessions) != 0 {
		t.Fatalf("sessions left behind: %v", f.sessions)
	}
}

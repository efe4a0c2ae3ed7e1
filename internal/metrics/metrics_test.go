package metrics

import (
	"fmt"
	"sync"
	"testing"
	"time"
)

func TestRecorder(t *testing.T) {
	r := New()
	for i := 1; i <= 100; i++ {
		r.Observe("search", time.Duration(i)*time.Millisecond, i%10 == 0)
	}
	r.Observe("read", 3*time.Millisecond, false)
	got := r.Tools()
	if len(got) != 2 || got[0].Name != "read" || got[1].Name != "search" {
		t.Fatalf("tools %+v; want read, then search", got)
	}
	s := got[1]
	if s.Calls != 100 || s.Errors != 10 || s.P50Ms != 50 || s.P95Ms != 95 {
		t.Errorf("search: %+v; want 100 calls, 10 errors, p50 50 ms, p95 95 ms", s)
	}
	if got[0].P50Ms != 3 || got[0].P95Ms != 3 {
		t.Errorf("read: %+v", got[0])
	}
}

// TestRecorderWindow: the percentiles follow the most recent calls, while
// the counts cover every call.
func TestRecorderWindow(t *testing.T) {
	r := New()
	for range window {
		r.Observe("t", time.Second, false)
	}
	for range window {
		r.Observe("t", time.Millisecond, false)
	}
	got := r.Tools()[0]
	if got.Calls != 2*window || got.P95Ms != 1 {
		t.Errorf("%+v; want %d calls and p95 1 ms", got, 2*window)
	}
}

// TestRecorderBoundsNames: names past maxTools are not recorded, so a
// client calling made-up names cannot grow it.
func TestRecorderBoundsNames(t *testing.T) {
	r := New()
	var wg sync.WaitGroup
	for i := range 10 * maxTools {
		wg.Go(func() { r.Observe(fmt.Sprint("tool-", i), time.Millisecond, true) })
	}
	wg.Wait()
	if n := len(r.Tools()); n != maxTools {
		t.Errorf("%d names recorded; want %d", n, maxTools)
	}
}

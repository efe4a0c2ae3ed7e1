// Package metrics times the calls a server answers: how many each tool
// had, how many failed, and their median and 95th-percentile latency since
// the server started. It keeps a bounded window of recent latencies per
// tool, so its memory does not grow with the number of calls.
package metrics

import (
	"slices"
	"strings"
	"sync"
	"time"
)

// window is how many recent latencies of one tool the percentiles are
// taken over: enough for a steady p95, few enough to sort on every read.
const window = 1024

// maxTools bounds the number of names recorded: names come from the
// server's own tool list, but a client may call a name that does not
// exist, and each one would otherwise take a slot.
const maxTools = 64

// Tool is what is known of one tool's calls.
type Tool struct {
	Name   string `json:"name"`
	Calls  int64  `json:"calls"`
	Errors int64  `json:"errors" jsonschema:"calls that ended in a tool error or a protocol error"`
	// P50 and P95 are over the most recent calls (up to 1,024 of them).
	P50Ms float64 `json:"p50_ms"`
	P95Ms float64 `json:"p95_ms"`
}

// Recorder counts and times tool calls; safe from any goroutine. The zero
// value is not usable: use New.
type Recorder struct {
	mu    sync.Mutex
	tools map[string]*series
}

type series struct {
	calls, errors int64
	recent        []time.Duration // ring of the last window latencies
	next          int
}

// New returns an empty Recorder.
func New() *Recorder {
	return &Recorder{tools: map[string]*series{}}
}

// Observe records one call of tool that took took; failed says it ended in
// an error.
func (r *Recorder) Observe(tool string, took time.Duration, failed bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	s := r.tools[tool]
	if s == nil {
		if len(r.tools) >= maxTools {
			return
		}
		s = &series{}
		r.tools[tool] = s
	}
	s.calls++
	if failed {
		s.errors++
	}
	if len(s.recent) < window {
		s.recent = append(s.recent, took)
	} else {
		s.recent[s.next] = took
	}
	s.next = (s.next + 1) % window
}

// Tools returns what is known of every tool called so far, by name.
func (r *Recorder) Tools() []Tool {
	r.mu.Lock()
	out := make([]Tool, 0, len(r.tools))
	lat := make([][]time.Duration, 0, len(r.tools))
	for name, s := range r.tools {
		out = append(out, Tool{Name: name, Calls: s.calls, Errors: s.errors})
		lat = append(lat, slices.Clone(s.recent))
	}
	r.mu.Unlock()
	for i := range out {
		out[i].P50Ms, out[i].P95Ms = ms(quantile(lat[i], 0.50)), ms(quantile(lat[i], 0.95))
	}
	slices.SortFunc(out, func(a, b Tool) int { return strings.Compare(a.Name, b.Name) })
	return out
}

// quantile is the nearest-rank q-quantile of d, which it sorts; 0 when d
// is empty.
func quantile(d []time.Duration, q float64) time.Duration {
	if len(d) == 0 {
		return 0
	}
	slices.Sort(d)
	i := int(q*float64(len(d))+0.999999) - 1
	return d[max(0, min(len(d)-1, i))]
}

// ms is d in milliseconds, rounded to a hundredth.
func ms(d time.Duration) float64 {
	return float64(d.Round(10*time.Microsecond)) / float64(time.Millisecond)
}

package main

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jarvis-mcp/jarvis/internal/index"
)

// frames records each write on its own, as a terminal would show them.
type frames []string

func (f *frames) Write(p []byte) (int, error) { *f = append(*f, string(p)); return len(p), nil }

// fakeClock is a clock a test moves by hand.
type fakeClock struct{ t time.Time }

func (c *fakeClock) now() time.Time      { return c.t }
func (c *fakeClock) add(d time.Duration) { c.t = c.t.Add(d) }
func newFakeClock() *fakeClock           { return &fakeClock{t: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)} }
func lastFrame(f frames) string          { return f[len(f)-1] }

// noteCount and passages are counts of one kind, for a progress report.
func noteCount(n int) index.Counts { return index.Counts{Notes: n} }
func passages(n int) index.Counts  { return index.Counts{Passages: n} }
func viewOn(f *frames, c *fakeClock, terminal bool) *progressView {
	return &progressView{w: f, now: c.now, terminal: terminal}
}

func TestProgressTimeLeft(t *testing.T) {
	tests := []struct {
		name        string
		setup       time.Duration // before the total is known
		elapsed     time.Duration // since it is known
		done, total int
		want        string // "" for no estimate
	}{
		{"a quarter in ten seconds", 0, 10 * time.Second, 50, 200, "  30s left"},
		{"setup does not count", time.Minute, 10 * time.Second, 50, 200, "  30s left"},
		{"minutes", 0, 30 * time.Second, 100, 1000, "  4m30s left"},
		{"hours", 0, time.Minute, 10, 1000, "  1h39m left"},
		{"under a second of work is no measure", 0, 500 * time.Millisecond, 50, 200, ""},
		{"nothing done yet", 0, 5 * time.Second, 0, 200, ""},
		{"all done", 0, 5 * time.Second, 200, 200, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var f frames
			c := newFakeClock()
			v := viewOn(&f, c, true)
			v.Report("making vectors", passages(0), passages(0))
			c.add(tt.setup)
			v.Report("making vectors", passages(0), passages(tt.total))
			c.add(tt.elapsed)
			v.Report("making vectors", passages(tt.done), passages(tt.total))
			got := lastFrame(f)
			if tt.want == "" {
				if strings.Contains(got, "left") {
					t.Errorf("frame %q gives a time left; want none", got)
				}
				return
			}
			if !strings.Contains(got, tt.want) {
				t.Errorf("frame %q; want it to hold %q", got, tt.want)
			}
		})
	}
}

// TestProgressPhasesShareOneLine: each phase replaces the last in place,
// in one write that carries text, and the line is erased only at the end.
func TestProgressPhasesShareOneLine(t *testing.T) {
	var f frames
	c := newFakeClock()
	v := viewOn(&f, c, true)
	p := v.Index("en")
	files := index.Counts{Notes: 173, Attachments: 134}
	p(index.PhaseScan, index.Counts{}, index.Counts{})
	c.add(20 * time.Millisecond)
	p(index.PhaseScan, files, files)
	p(index.PhaseWrite, index.Counts{Attachments: 134}, files)
	c.add(10 * time.Millisecond)
	p(index.PhaseWrite, index.Counts{Notes: 100, Attachments: 134}, files) // within the redraw interval: not drawn
	c.add(2 * time.Second)
	p(index.PhaseWrite, files, files)
	p(index.PhaseLinks, index.Counts{}, index.Counts{})
	embed := v.Vectors()
	embed(0, 1429)
	c.add(time.Second)
	embed(1429, 1429)
	beforeFinish := len(f)
	v.Finish()

	wantPhases := []string{"en: scanning files…", "en: scanning files  173 notes, 134 attachments  100%",
		"en: indexing files  0 of 173 notes, 134 attachments  43%", "en: indexing files  173 notes, 134 attachments  100%",
		"en: resolving links…", "checking vectors…", "making vectors  0 of 1429 passages  0%", "making vectors  1429 passages  100%"}
	if beforeFinish != len(wantPhases) {
		t.Fatalf("%d frames before the end; want %d:\n%q", beforeFinish, len(wantPhases), f)
	}
	for i, frame := range f[:beforeFinish] {
		if !strings.HasPrefix(frame, "\r") || !strings.HasSuffix(frame, "\x1b[K") || strings.Contains(frame, "\n") {
			t.Errorf("frame %d %q: want a carriage return, the text, then erase to the end of the line", i, frame)
		}
		if text := strings.TrimSuffix(strings.TrimPrefix(frame, "\r"), "\x1b[K"); !strings.HasPrefix(text, wantPhases[i]) {
			t.Errorf("frame %d shows %q; want %q", i, text, wantPhases[i])
		}
	}
	if got := strings.Join(f[beforeFinish:], ""); got != "\r\x1b[K" {
		t.Errorf("the end writes %q; want the line erased", got)
	}
	v.Finish()
	if len(f) != beforeFinish+1 {
		t.Errorf("a second Finish wrote %q", f[beforeFinish+1:])
	}
}

// TestProgressPlainLines: without a terminal each phase gets one line as
// it ends, and a long phase one every so often, without escapes.
func TestProgressPlainLines(t *testing.T) {
	var f frames
	c := newFakeClock()
	v := viewOn(&f, c, false)
	p := v.Index("en")
	p(index.PhaseScan, noteCount(0), noteCount(0))
	c.add(20 * time.Millisecond)
	p(index.PhaseScan, index.Counts{Notes: 1000, Attachments: 7}, index.Counts{Notes: 1000, Attachments: 7})
	p(index.PhaseWrite, noteCount(0), noteCount(1000))
	c.add(5 * time.Second)
	p(index.PhaseWrite, noteCount(50), noteCount(1000)) // too soon for a line
	c.add(5 * time.Second)
	p(index.PhaseWrite, noteCount(100), noteCount(1000)) // ten seconds in: 10 files a second
	c.add(5 * time.Second)
	p(index.PhaseWrite, noteCount(250), noteCount(1000)) // five seconds after the last line
	c.add(5 * time.Second)
	p(index.PhaseWrite, noteCount(400), noteCount(1000))
	p(index.PhaseLinks, noteCount(0), noteCount(0))
	c.add(1500 * time.Millisecond)
	v.Finish()
	got := strings.Join(f, "")
	want := "jarvis: en: scanning files: 1000 notes, 7 attachments in 20ms\n" +
		"jarvis: en: indexing files: 100 of 1000 notes, 1m30s left\n" +
		"jarvis: en: indexing files: 400 of 1000 notes, 30s left\n" +
		"jarvis: en: indexing files: 400 of 1000 notes in 20s\n" +
		"jarvis: en: resolving links: 2s\n"
	if got != want {
		t.Errorf("plain output:\n%s\nwant:\n%s", got, want)
	}
}

// TestProgressCountsOne: a vault of one note is counted in the singular,
// on a terminal and off it.
func TestProgressCountsOne(t *testing.T) {
	var plain, term frames
	c := newFakeClock()
	for _, v := range []*progressView{viewOn(&plain, c, false), viewOn(&term, c, true)} {
		p := v.Index("en")
		p(index.PhaseScan, noteCount(0), noteCount(0))
		p(index.PhaseScan, noteCount(1), noteCount(1))
		p(index.PhaseWrite, noteCount(0), noteCount(1))
		c.add(20 * time.Second)
		p(index.PhaseWrite, noteCount(0), noteCount(1))
		p(index.PhaseLinks, noteCount(0), noteCount(0))
		v.Finish()
	}
	want := "jarvis: en: scanning files: 1 note in 0s\n" +
		"jarvis: en: indexing files: 0 of 1 note\n" +
		"jarvis: en: indexing files: 0 of 1 note in 20s\n" +
		"jarvis: en: resolving links: 0s\n"
	if got := strings.Join(plain, ""); got != want {
		t.Errorf("plain output:\n%s\nwant:\n%s", got, want)
	}
	if got := strings.Join(term, ""); !strings.Contains(got, "en: scanning files  1 note  100%") {
		t.Errorf("terminal frames %q; want one showing 1 note", term)
	}
}

func TestProgressNilShowsNothing(t *testing.T) {
	var v *progressView
	v.Report("x", noteCount(1), noteCount(2))
	v.Clear()
	v.Finish()
	if v.Index("en") != nil || v.Vectors() != nil {
		t.Fatal("a nil view hands out progress functions")
	}
}

// TestIndexProgressOnStderr: jarvis index draws its progress line on a
// terminal and erases it before the summary; elsewhere it logs a line a
// phase; --json shows none. stdout holds only the summary either way.
func TestIndexProgressOnStderr(t *testing.T) {
	example, _ := filepath.Abs("../../examples/vault")
	db := filepath.Join(t.TempDir(), "j.db")
	tty := func(e *env) { e.stderrIsTerminal = true }

	code, stdout, stderr := jarvisIn(t, nil, tty, "index", "--vault", example, "--db", db)
	if code != 0 || !strings.HasPrefix(stdout, "vault (") {
		t.Fatalf("exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	for _, want := range []string{"\rvault: scanning files", "\rvault: indexing files", "\rmaking vectors"} {
		if !strings.Contains(stderr, want) {
			t.Errorf("terminal progress lacks %q: %q", want, stderr)
		}
	}
	if strings.Contains(stderr, "\n") || !strings.HasSuffix(stderr, "\r\x1b[K") {
		t.Errorf("terminal progress should stay on one line and be erased at the end: %q", stderr)
	}

	code, _, stderr = jarvis(t, nil, "index", "--vault", example, "--db", db, "--reembed")
	if code != 0 || strings.Contains(stderr, "\x1b") || strings.Contains(stderr, "\r") {
		t.Fatalf("exit %d, plain stderr %q", code, stderr)
	}
	for _, want := range []string{"jarvis: vault: scanning files: 17 notes, 1 attachment in ", "jarvis: vault: resolving links: ", "jarvis: making vectors: 31 passages in "} {
		if !strings.Contains(stderr, want) {
			t.Errorf("plain progress lacks %q:\n%s", want, stderr)
		}
	}

	if code, _, stderr = jarvisIn(t, nil, tty, "index", "--vault", example, "--db", db, "--json"); code != 0 || stderr != "" {
		t.Errorf("--json: exit %d, stderr %q; want nothing on stderr", code, stderr)
	}
}

// TestProgressSaysTheWaitForALockedDatabase: the time a run waited for
// another program's lock on the database was said as the scan's ("v4:
// scanning files: 7 notes in 4s"); it is said as the wait, the scan
// timed alone.
func TestProgressSaysTheWaitForALockedDatabase(t *testing.T) {
	var f frames
	c := newFakeClock()
	v := viewOn(&f, c, false)
	p := v.Index("v4")
	p(index.PhaseScan, noteCount(0), noteCount(0))
	c.add(20 * time.Millisecond)
	p(index.PhaseScan, noteCount(7), noteCount(7))
	p(index.PhaseLocked, noteCount(0), noteCount(0))
	c.add(4 * time.Second)
	p(index.PhaseWrite, noteCount(0), noteCount(1))
	p(index.PhaseWrite, noteCount(1), noteCount(1))
	v.Finish()
	got := strings.Join(f, "")
	want := "jarvis: v4: scanning files: 7 notes in 20ms\n" +
		"jarvis: v4: waited 4s for the database, locked by another program\n" +
		"jarvis: v4: indexing files: 1 note in 0s\n"
	if got != want {
		t.Errorf("plain output:\n%s\nwant:\n%s", got, want)
	}
}

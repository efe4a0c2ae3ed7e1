package main

import (
	"fmt"
	"io"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/jarvis-mcp/jarvis/internal/index"
)

// progressView shows how far a run has got, across all its phases (the
// files of each vault, their links, then the vectors), on stderr. On a
// terminal it is one line, redrawn in place: a new phase replaces the
// line's text at once, so the display never goes blank between phases.
// Elsewhere (a log file, a pipe) it writes a plain line as each phase
// ends. A nil view shows nothing.
type progressView struct {
	w        io.Writer
	now      func() time.Time // the clock, set by tests
	terminal bool

	phase       string
	done, total index.Counts
	started     time.Time // the phase's start
	// rateFrom and rateDone are when the phase's total became known and
	// what was done then: throughput is measured from there, so that a
	// phase's setup (loading a model) does not count as slow work.
	rateFrom time.Time
	rateDone int
	drawn    time.Time // the last redraw; zero when no line is shown
	logged   time.Time // the last plain line
}

// Redraws are at most this often, so a fast phase costs no time drawing.
const redrawEvery = 100 * time.Millisecond

// Plain output says how a long phase goes this often.
const logEvery = 10 * time.Second

// lineWidth bounds the drawn line: a line that wraps can no longer be
// redrawn in place.
const lineWidth = 79

// newProgressView makes the view for a run: a redrawn line when stderr is
// a terminal, plain lines otherwise when plain is true, and nothing when
// quiet (--json) or neither applies.
func newProgressView(e *env, quiet, plain bool) *progressView {
	switch {
	case quiet:
		return nil
	case e.stderrIsTerminal:
		return &progressView{w: e.stderr, now: time.Now, terminal: true}
	case plain:
		return &progressView{w: e.stderr, now: time.Now}
	}
	return nil
}

// Report tells the view the phase under way, in words ("en: scanning
// files"), and how much of total is done, in the counts every message
// says (index.Counts); total is zero while it is not known.
func (p *progressView) Report(phase string, done, total index.Counts) {
	if p == nil {
		return
	}
	now := p.now()
	if phase != p.phase {
		p.endPhase(now)
		p.phase, p.started = phase, now
		p.rateFrom, p.rateDone = time.Time{}, 0
		p.done, p.total = done, total
		p.markRate(now)
		p.show(now, true)
		return
	}
	p.done, p.total = done, total
	p.markRate(now)
	p.show(now, done.Sum() >= total.Sum() && total.Sum() > 0)
}

// markRate starts measuring throughput once the total is known.
func (p *progressView) markRate(now time.Time) {
	if p.rateFrom.IsZero() && p.total.Sum() > 0 {
		p.rateFrom, p.rateDone = now, p.done.Sum()
	}
}

// show redraws the line (terminal), or writes a plain line for a long
// phase now and then; force redraws whatever the time since the last.
func (p *progressView) show(now time.Time, force bool) {
	if !p.terminal {
		if p.total.Sum() > 0 && now.Sub(p.logged) >= logEvery && now.Sub(p.started) >= logEvery {
			fmt.Fprintf(p.w, "jarvis: %s: %s%s\n", p.phase, p.done.Of(p.total), p.left(now, ", "))
			p.logged = now
		}
		return
	}
	if !force && !p.drawn.IsZero() && now.Sub(p.drawn) < redrawEvery {
		return
	}
	// Carriage return, the new text, then erase what is left of a longer
	// old line: one write, so the line is never seen empty.
	fmt.Fprintf(p.w, "\r%s\x1b[K", truncateRunes(p.line(now), lineWidth))
	p.drawn = now
}

// line is the text of the terminal line: the phase, the counts in the
// words of index.Counts.Of, the share done and the time left. The counts
// take the room a bar would: "412 of 1402 notes, 134 attachments" has
// to fit beside a vault's name.
func (p *progressView) line(now time.Time) string {
	if p.total.Sum() <= 0 {
		s := p.phase + "…"
		if d := now.Sub(p.started); d >= time.Second {
			s += "  " + formatDuration(d)
		}
		return s
	}
	return fmt.Sprintf("%s  %s  %d%%%s", p.phase, p.done.Of(p.total), 100*p.done.Sum()/p.total.Sum(), p.left(now, "  "))
}

// left is the time the phase still needs at the throughput measured so
// far, after sep, as "  12s left"; "" until a second's work gives a
// measure worth showing.
func (p *progressView) left(now time.Time, sep string) string {
	elapsed := now.Sub(p.rateFrom)
	done, total := p.done.Sum(), p.total.Sum()
	did := done - p.rateDone
	if p.rateFrom.IsZero() || elapsed < time.Second || did <= 0 || done >= total {
		return ""
	}
	remaining := time.Duration(float64(elapsed) * float64(total-done) / float64(did))
	return sep + formatDuration(remaining) + " left"
}

// endPhase writes the plain line of the phase that ends.
func (p *progressView) endPhase(now time.Time) {
	if p.terminal || p.phase == "" {
		return
	}
	took := formatDuration(now.Sub(p.started))
	if wait, ok := strings.CutSuffix(p.phase, lockedPhase); ok {
		// "v4: waited 4s for the database, locked by another program".
		fmt.Fprintf(p.w, "jarvis: %swaited %s for the database, locked by another program\n", wait, took)
		return
	}
	switch {
	case p.total.Sum() > 0:
		// Of says a kind done whole as its count: "173 notes, 134
		// attachments in 211ms".
		fmt.Fprintf(p.w, "jarvis: %s: %s in %s\n", p.phase, p.done.Of(p.total), took)
	default:
		fmt.Fprintf(p.w, "jarvis: %s: %s\n", p.phase, took)
	}
}

// Finish ends the display: the line is erased, so that what follows
// starts on a clean line, or the last phase gets its plain line. It may
// be called more than once.
func (p *progressView) Finish() {
	if p == nil || p.phase == "" {
		return
	}
	if p.terminal {
		if !p.drawn.IsZero() {
			fmt.Fprint(p.w, "\r\x1b[K")
		}
	} else {
		p.endPhase(p.now())
	}
	p.phase, p.drawn = "", time.Time{}
}

// Clear erases the line, if one is drawn, for a message to take its
// place; the next report draws it again.
func (p *progressView) Clear() {
	if p == nil || !p.terminal || p.drawn.IsZero() {
		return
	}
	fmt.Fprint(p.w, "\r\x1b[K")
	p.drawn = time.Time{}
}

// indexPhases words the phases of index.Indexer.Index.
var indexPhases = map[index.Phase]string{
	index.PhaseScan:  "scanning files",
	index.PhaseWrite: "indexing files",
	index.PhaseLinks: "resolving links",
	// Said as it ends, for its time: "waited 4s for the database, ...".
	index.PhaseLocked: lockedPhase,
}

// lockedPhase is the words of index.PhaseLocked under way.
const lockedPhase = "waiting for the database, locked by another program"

// Index is the progress of indexing the vault named vault.
func (p *progressView) Index(vault string) index.Progress {
	if p == nil {
		return nil
	}
	return func(phase index.Phase, done, total index.Counts) {
		w, ok := indexPhases[phase]
		if !ok {
			w = string(phase)
		}
		p.Report(vault+": "+w, done, total)
	}
}

// Vectors is the progress of making vectors. Its phase begins at once,
// while the embedder is readied and the work planned, so that nothing
// blank shows before the first count.
func (p *progressView) Vectors() func(done, total int) {
	if p == nil {
		return nil
	}
	p.Report("checking vectors", index.Counts{}, index.Counts{})
	return func(done, total int) {
		p.Report("making vectors", index.Counts{Passages: done}, index.Counts{Passages: total})
	}
}

// formatDuration is d as a person reads a time left: 12s, 3m05s, 1h20m.
func formatDuration(d time.Duration) string {
	if d < time.Second {
		return d.Round(time.Millisecond).String()
	}
	d = d.Round(time.Second)
	switch {
	case d < time.Minute:
		return fmt.Sprintf("%ds", int(d/time.Second))
	case d < time.Hour:
		return fmt.Sprintf("%dm%02ds", int(d/time.Minute), int(d%time.Minute/time.Second))
	}
	d = d.Round(time.Minute)
	return fmt.Sprintf("%dh%02dm", int(d/time.Hour), int(d%time.Hour/time.Minute))
}

// truncateRunes cuts s to at most n characters.
func truncateRunes(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	i := 0
	for j := range s {
		if i == n-1 {
			return s[:j] + "…"
		}
		i++
	}
	return s
}

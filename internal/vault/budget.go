package vault

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/text"
	"github.com/yuin/goldmark/util"
)

// Some Markdown makes goldmark's time grow with the square of the note or
// worse: a line of "[](" repeated, lists nested by tabs, lines that open
// link titles and never close them. limitContainerDepth and
// hideUnclosedDestinations rewrite the first two before goldmark sees
// them; the budget here stops any other shape. goldmark cannot be interrupted from outside, so the
// parse carries a budget that goldmark itself consults: the reader it is
// given checks it on every line of the block phase, and budgetChecker, the
// first inline parser asked at every byte that has one, checks it before
// any inline parser runs; every budgetCheckEvery checks, the clock and the
// context are read. When the deadline has passed or the caller's context
// has ended, the check panics with budgetStop, which parseTree recovers.

// ErrTooComplex is returned, wrapped, by Parse and Prose when a note's
// Markdown takes longer to parse than its budget allows.
var ErrTooComplex = errors.New("markdown too complex to parse in time")

// Parse budgets: a note gets parseBaseBudget plus parsePerMBBudget for each
// MB of its body. An 8 MB note dense with links parses in about two
// seconds on an idle core and in eight on a machine running five times as
// much as it has cores; the budget of ten seconds leaves room for that
// and still stops a pathological note in seconds rather than hours.
const (
	parseBaseBudget  = 2 * time.Second
	parsePerMBBudget = time.Second
)

// ParseBudget is how long Parse and Prose may spend on a body of size
// bytes before they give up with ErrTooComplex.
func ParseBudget(size int) time.Duration {
	return parseBaseBudget + time.Duration(size)*parsePerMBBudget/(1<<20)
}

// tooComplexWarning is the warning of a note whose parse ran out of budget:
// like a note over MaxNoteSize, it is then known by name only.
func tooComplexWarning(budget time.Duration) string {
	return fmt.Sprintf("%s %v: search finds it by its name only, not by its text, links, tags or headings", tooComplexPrefix, budget.Round(10*time.Millisecond))
}

const tooComplexPrefix = "Markdown too complex to parse within"

// IsTooComplexWarning reports whether a note's warning is the one Parse
// gives a note whose Markdown ran out of its budget.
func IsTooComplexWarning(w string) bool { return strings.HasPrefix(w, tooComplexPrefix) }

// errParserPanic is returned, wrapped, by parseTree when goldmark or this
// package panics on some input.
var errParserPanic = errors.New(internalErrorWarning)

// budgetCheckEvery is how many checks pass between two looks at the clock
// and the context. Work between two checks is at most a few scans of one
// line, so a parse stops well within a second of its deadline.
const budgetCheckEvery = 16

// parseBudget is the budget of one parse.
type parseBudget struct {
	ctx      context.Context
	deadline time.Time
	budget   time.Duration
	calls    int
}

// budgetStop is the panic value that ends a parse; err says why.
type budgetStop struct{ err error }

// check panics with budgetStop once the deadline has passed or the
// context has ended.
func (b *parseBudget) check() {
	b.calls++
	if b.calls%budgetCheckEvery != 0 {
		return
	}
	b.stopIfDone()
}

// stopIfDone is check without the sampling.
func (b *parseBudget) stopIfDone() {
	select {
	case <-b.ctx.Done():
		panic(budgetStop{b.ctx.Err()})
	default:
	}
	if time.Now().After(b.deadline) {
		panic(budgetStop{fmt.Errorf("%w (%v)", ErrTooComplex, b.budget.Round(10*time.Millisecond))})
	}
}

// budgetKey holds the *parseBudget of a parse in its goldmark context.
var budgetKey = parser.NewContextKey()

// budgetReader is the reader goldmark's block phase reads lines from; it
// checks the budget on every line.
type budgetReader struct {
	text.Reader
	b *parseBudget
}

// PeekLine implements text.Reader.
func (r budgetReader) PeekLine() ([]byte, text.Segment) {
	r.b.check()
	return r.Reader.PeekLine()
}

// AdvanceLine implements text.Reader.
func (r budgetReader) AdvanceLine() {
	r.b.check()
	r.Reader.AdvanceLine()
}

// budgetCheckerPriority puts budgetChecker ahead of every other inline
// parser, so that the budget is checked before each of them runs.
const budgetCheckerPriority = 0

// budgetChecker is an inline parser that never parses anything: it checks
// the parse's budget at every byte where goldmark would call an inline
// parser. Its triggers are those of all the inline parsers NewParser
// registers.
type budgetChecker struct{ triggers []byte }

// Trigger implements parser.InlineParser.
func (c budgetChecker) Trigger() []byte { return c.triggers }

// Parse implements parser.InlineParser.
func (budgetChecker) Parse(_ ast.Node, _ text.Reader, pc parser.Context) ast.Node {
	if b, ok := pc.Get(budgetKey).(*parseBudget); ok {
		b.check()
	}
	return nil
}

// newBudgetChecker builds the checker for the triggers of parsers.
func newBudgetChecker(parsers []parser.InlineParser) budgetChecker {
	var seen [256]bool
	var triggers []byte
	for _, p := range parsers {
		for _, c := range p.Trigger() {
			if !seen[c] {
				seen[c] = true
				triggers = append(triggers, c)
			}
		}
	}
	return budgetChecker{triggers: triggers}
}

// parseTree runs goldmark over body within the budget for its size, after
// rewriting the shapes known to be slow. It returns the document and the
// bytes its offsets point into (body, or a rewritten copy of the same
// length), or an error wrapping ErrTooComplex or the context's error; any
// other panic inside goldmark is returned as an error wrapping
// errParserPanic. Parse and Prose both read notes through it.
func (p *Parser) parseTree(ctx context.Context, body []byte) (doc ast.Node, src []byte, err error) {
	src = hideUnclosedDestinations(limitContainerDepth(body))
	b := &parseBudget{ctx: ctx, budget: p.budget(len(body))}
	b.deadline = time.Now().Add(b.budget)
	defer func() {
		if r := recover(); r != nil {
			doc, src = nil, nil
			if stop, ok := r.(budgetStop); ok {
				err = stop.err
				return
			}
			err = fmt.Errorf("%w: %v", errParserPanic, r)
		}
	}()
	b.stopIfDone()
	pc := parser.NewContext()
	pc.Set(budgetKey, b)
	return p.md.Parse(budgetReader{Reader: text.NewReader(src), b: b}, parser.WithContext(pc)), src, nil
}

// maxOverlappingDestination is how long a link destination may run while
// another "](" starts inside it. goldmark looks for the end of the
// destination after every "](" up to the next space or unmatched ')', so a
// line of "[](" or "[a](" repeated is read again from each of them to its
// end: 400 KB take minutes. A destination is one word; one that holds the
// start of another over such a length is never a link a reader wrote.
const maxOverlappingDestination = 1024

// maxLinkLabel is the longest link text CommonMark allows, in bytes;
// goldmark looks no further for a destination after a longer one.
const maxLinkLabel = 999

// hideUnclosedDestinations hides behind U+001F the link text opener '['
// of every "](" whose destination, as goldmark would scan it, runs longer
// than maxOverlappingDestination and holds another "](": goldmark then
// reads the brackets as text, without opening a link there or scanning
// on. Where that '[' is not found on the line within maxLinkLabel bytes,
// the '(' is hidden instead. One pass finds the scans, as a stack of the
// destinations still open; a destination already that long when another
// starts is settled then, so the stack stays short. Bytes are replaced one
// for one, and body is copied only when something is hidden.
func hideUnclosedDestinations(body []byte) []byte {
	type scan struct {
		open     int  // offset of the '('
		depth    int  // the parenthesis depth just after it
		overlaps bool // another "](" starts inside it
	}
	var open []scan
	out := body
	copied := false
	hide := func(paren int) {
		if !copied {
			out, copied = bytes.Clone(body), true
		}
		at := labelOpener(body, paren-1)
		if at < 0 {
			at = paren
		}
		out[at] = 0x1f
	}
	depth := 0
	// end closes, at offset at, the scans on the stack that a depth of
	// to ends (all of them for math.MinInt).
	end := func(at, to int) {
		for len(open) > 0 && open[len(open)-1].depth > to {
			s := open[len(open)-1]
			open = open[:len(open)-1]
			if len(open) > 0 {
				// The scan below was open when this one started.
				open[len(open)-1].overlaps = true
			}
			if s.overlaps && at-s.open > maxOverlappingDestination {
				hide(s.open)
			}
		}
	}
	for i := 0; i < len(body); i++ {
		switch c := body[i]; {
		case c == '\\' && i+1 < len(body) && util.IsPunct(body[i+1]):
			i++
		case c == '(':
			depth++
			if i > 0 && body[i-1] == ']' {
				// Every scan still open holds this one; those already
				// too long are hidden now and leave the stack.
				settled := 0
				for settled < len(open) && i-open[settled].open > maxOverlappingDestination {
					hide(open[settled].open)
					settled++
				}
				open = open[settled:]
				if len(open) > 0 {
					open[len(open)-1].overlaps = true
				}
				open = append(open, scan{open: i, depth: depth})
			}
		case c == ')':
			depth--
			end(i, depth)
		case util.IsSpace(c):
			end(i, math.MinInt)
			depth = 0
		}
	}
	end(len(body), math.MinInt)
	return out
}

// labelOpener is the offset of the '[' that the ']' at close ends, looked
// for back along its line within maxLinkLabel bytes, or -1.
func labelOpener(body []byte, close int) int {
	depth := 0
	for i := close - 1; i >= 0 && i >= close-maxLinkLabel-1 && body[i] != '\n'; i-- {
		switch body[i] {
		case ']':
			depth++
		case '[':
			if depth == 0 {
				return i
			}
			depth--
		}
	}
	return -1
}

package main

import (
	"strings"

	"github.com/jarvis-mcp/jarvis/internal/search/notes"
)

// Terminal escapes for bold text; 22 ends bold (and faint) without
// resetting colours the terminal may be showing.
const (
	boldOn  = "\x1b[1m"
	boldOff = "\x1b[22m"
)

// matchMarker is what search puts around each matched word of a snippet;
// the note's own bold markers are taken out first, so it marks only
// matches.
const matchMarker = "**"

// showSnippet turns a snippet's match markers into terminal bold when bold
// is true, and drops them otherwise. Inside a [[wikilink]] (or ![[embed]])
// the text is shown as written, markers dropped, without bold: bold there
// would read as part of the link target. Inside `code` or fenced code a
// "**" is the note's own (matches are not marked in code) and is kept.
func showSnippet(s string, bold bool) string {
	literal := literalSpans(s)
	var b strings.Builder
	on := false
	next := 0 // index into literal
	for i := 0; i < len(s); {
		for next < len(literal) && literal[next].end <= i {
			next++
		}
		inLiteral := next < len(literal) && literal[next].start <= i
		if inLiteral && on {
			// A marker pair never spans a link or code boundary; this
			// keeps bold from leaking if one ever did.
			b.WriteString(boldOff)
			on = false
		}
		if inLiteral && literal[next].code {
			// Code is written as it is, up to its end.
			b.WriteString(s[i:literal[next].end])
			i = literal[next].end
			continue
		}
		if strings.HasPrefix(s[i:], matchMarker) {
			if bold && !inLiteral {
				if on {
					b.WriteString(boldOff)
				} else {
					b.WriteString(boldOn)
				}
				on = !on
			}
			i += len(matchMarker)
			continue
		}
		b.WriteByte(s[i])
		i++
	}
	if on {
		b.WriteString(boldOff)
	}
	return b.String()
}

// textSpan is a byte range of a snippet: code when code is set, else a
// link.
type textSpan struct {
	start, end int
	code       bool
}

// excerptCode finds the code of a snippet: Markdown's code spans
// (notes.CodeSpans, the rule the snippet was made by), which covers fenced
// code collapsed onto one line, and a fence of three or more backticks
// with no partner, taken to open code that runs to the end of the
// excerpt, since a snippet starts shortly before its first match and runs
// on after it.
func excerptCode(s string) []notes.Span {
	code := notes.CodeSpans(s)
	from := 0
	for k := 0; k <= len(code); k++ {
		to := len(s)
		if k < len(code) {
			to = code[k].Start
		}
		if i := strings.Index(s[from:to], "```"); i >= 0 {
			return append(code[:k:k], notes.Span{Start: from + i, End: len(s)})
		}
		if k < len(code) {
			from = code[k].End
		}
	}
	return code
}

// literalSpans finds the code (excerptCode) and wikilinks of a snippet, in
// order and not overlapping; links are looked for outside code. A snippet
// is a one-line excerpt, so it may begin inside a link ("…Note|shown]] and
// more") or end inside one; those count as links too.
func literalSpans(s string) []textSpan {
	var spans []textSpan
	sawLink := false
	from := 0
	links := func(to int) {
		for i := from; i < to; {
			switch {
			case strings.HasPrefix(s[i:to], "[["):
				sawLink = true
				end := strings.Index(s[i+2:to], "]]")
				if end < 0 {
					spans = append(spans, textSpan{start: i, end: to})
					return
				}
				spans = append(spans, textSpan{start: i, end: i + 2 + end + 2})
				i += 2 + end + 2
			case !sawLink && strings.HasPrefix(s[i:to], "]]"):
				// A link whose opening the excerpt cut off: from the
				// start, or from the end of code before it.
				sawLink = true
				start := 0
				if len(spans) > 0 {
					start = spans[len(spans)-1].end
				}
				spans = append(spans, textSpan{start: start, end: i + 2})
				i += 2
			default:
				i++
			}
		}
	}
	for _, c := range excerptCode(s) {
		links(c.Start)
		spans = append(spans, textSpan{start: c.Start, end: c.End, code: true})
		from = c.End
	}
	links(len(s))
	return spans
}

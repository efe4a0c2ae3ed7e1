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
// and inside `code` or fenced code the text is shown as written, without
// bold: bold there would read as part of the link target or the code.
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

// textSpan is a byte range of a snippet.
type textSpan struct{ start, end int }

// literalSpans finds the wikilinks and code of a snippet, in order and not
// overlapping. A snippet is a one-line excerpt, so it may begin inside a
// link ("…Note|shown]] and more") or end inside one; those count as links
// too. Code is a run of backticks up to the next run of the same length,
// as in Markdown, which covers fenced code collapsed onto one line; a
// fence of three or more backticks with no partner is taken to open code
// that runs to the end of the excerpt, since a snippet starts shortly
// before its first match and runs on after it.
func literalSpans(s string) []textSpan {
	var spans []textSpan
	code := notes.CodeSpans(s) // Markdown's rule, as the snippet was made by
	sawLink := false
	for i := 0; i < len(s); {
		for len(code) > 0 && code[0].Start < i {
			code = code[1:]
		}
		switch {
		case len(code) > 0 && code[0].Start == i:
			spans = append(spans, textSpan{i, code[0].End})
			i = code[0].End
		case strings.HasPrefix(s[i:], "```"):
			// A fence with no partner opens code the excerpt cut off.
			spans = append(spans, textSpan{i, len(s)})
			i = len(s)
		case s[i] == '`':
			i += len(s[i:]) - len(strings.TrimLeft(s[i:], "`")) // a lone run of backticks is text
		case strings.HasPrefix(s[i:], "[["):
			sawLink = true
			end := strings.Index(s[i+2:], "]]")
			if end < 0 {
				spans = append(spans, textSpan{i, len(s)})
				return spans
			}
			spans = append(spans, textSpan{i, i + 2 + end + 2})
			i += 2 + end + 2
		case !sawLink && strings.HasPrefix(s[i:], "]]"):
			// A link whose opening the excerpt cut off: from the start,
			// or from the end of code before it.
			sawLink = true
			from := 0
			if len(spans) > 0 {
				from = spans[len(spans)-1].end
			}
			spans = append(spans, textSpan{from, i + 2})
			i += 2
		default:
			i++
		}
	}
	return spans
}

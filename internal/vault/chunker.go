package vault

import (
	"bytes"
	"cmp"
	"slices"
)

// Chunk sizes, in words as countWords counts them. A chunk of about
// chunkTargetWords is long enough to carry a topic for embedding and short
// enough that a keyword snippet points somewhere useful; chunkMaxWords caps
// a chunk unless a single line or code block is longer on its own.
const (
	chunkTargetWords = 250
	chunkMaxWords    = 400
	// chunkTinyWords: a section with fewer words under its heading (a
	// heading with a line or two) joins the subsection that follows it,
	// rather than standing alone as a chunk too small to say anything.
	chunkTinyWords = 40
	// chunkTailWords: a section's last piece shorter than this joins the
	// piece before it when both fit under chunkMaxWords.
	chunkTailWords = 60
)

// chunkBody splits the body of a note into chunks. The body starts at
// file offset bodyStart; headings are those the goldmark walk found, so
// the Markdown is not parsed a second time. Chunks never straddle a
// heading, except that a tiny section joins the deeper one after it and
// takes that section's heading path, which still names the tiny section's
// heading. Long sections are cut at blank lines outside fenced code.
//
// A chunk's Text is exactly the file lines StartLine..EndLine, heading
// line included, so a caller can show or re-read it from the file.
func chunkBody(lines *lineIndex, bodyStart int, headings []Heading) []Chunk {
	if bodyStart >= len(lines.src) {
		return nil
	}
	c := chunker{lines: lines, first: lines.line(bodyStart), last: lines.count()}
	if !slices.IsSortedFunc(headings, func(a, b Heading) int { return cmp.Compare(a.Line, b.Line) }) {
		// Footnote definitions can put a heading out of file order.
		headings = slices.SortedStableFunc(slices.Values(headings), func(a, b Heading) int { return cmp.Compare(a.Line, b.Line) })
	}
	c.sections(headings)
	return c.chunks
}

// chunker holds the state of one chunkBody call.
type chunker struct {
	lines       *lineIndex
	first, last int // the body's line range in the file
	chunks      []Chunk
	// carry holds the units of tiny sections waiting to join the next one.
	carry []unit
}

// section is the lines under one heading, up to the next heading of any
// level; level 0 is the text before the first heading.
type section struct {
	level      int
	start, end int // file lines, inclusive
	path       []string
}

// unit is a run of lines that stays in one chunk: a paragraph, list or
// table up to a blank line, or a fenced code block with its blank lines.
type unit struct {
	start, end int // file lines, inclusive
	words      int
}

// sections walks the body heading by heading and chunks each section.
func (c *chunker) sections(headings []Heading) {
	var stack []Heading // open headings, outermost first
	cur := section{start: c.first}
	for i, h := range headings {
		if h.Line < c.first || h.Line > c.last || (i > 0 && h.Line == headings[i-1].Line) {
			continue
		}
		cur.end = h.Line - 1
		next := section{level: h.Level, start: h.Line}
		c.section(cur, next.level)
		for len(stack) > 0 && stack[len(stack)-1].Level >= h.Level {
			stack = stack[:len(stack)-1]
		}
		stack = append(stack, h)
		for _, open := range stack {
			if open.Text != "" {
				next.path = append(next.path, open.Text)
			}
		}
		cur = next
	}
	cur.end = c.last
	c.section(cur, 0)
}

// section chunks one section. nextLevel is the level of the heading that
// ends it, or 0 at the end of the note.
func (c *chunker) section(s section, nextLevel int) {
	units := c.units(s.start, s.end)
	if len(units) == 0 {
		return
	}
	if s.level > 0 && nextLevel > s.level {
		words := 0
		for _, u := range units {
			words += u.words
		}
		words -= countWords(c.lines.text(s.start)) // the heading itself
		if words < chunkTinyWords {
			c.carry = append(c.carry, units...)
			return
		}
	}
	if len(c.carry) > 0 {
		units = append(c.carry, units...)
		c.carry = nil
	}
	c.pack(units, s.path)
}

// units splits lines start..end into units, dropping blank lines between
// them. A fence is recognised after any indentation and block quote
// markers, so code in lists and callouts stays whole too.
func (c *chunker) units(start, end int) []unit {
	var out []unit
	var fence []byte // the opening fence while inside a code block
	open := false
	for n := start; n <= end; n++ {
		line := c.lines.text(n)
		if fence == nil && isBlank(line) {
			open = false
			continue
		}
		if f, rest := fenceMarker(line); f != nil {
			switch {
			case fence == nil:
				fence = f
			case f[0] == fence[0] && len(f) >= len(fence) && isBlank(rest):
				fence = nil
			}
		}
		if !open {
			out = append(out, unit{start: n, end: n})
			open = true
		}
		u := &out[len(out)-1]
		u.end = n
		u.words += countWords(line)
	}
	return out
}

// pack groups units into chunks of about chunkTargetWords. A unit over
// chunkMaxWords is cut at its lines.
func (c *chunker) pack(units []unit, path []string) {
	var pieces []unit // one per chunk
	var cur unit      // the piece being filled; end 0 while empty
	add := func(u unit) {
		if cur.words > 0 && (cur.words >= chunkTargetWords || cur.words+u.words > chunkMaxWords) {
			pieces = append(pieces, cur)
			cur = unit{}
		}
		if cur.end == 0 {
			cur.start = u.start
		}
		cur.end = u.end
		cur.words += u.words
	}
	for _, u := range units {
		if u.words <= chunkMaxWords {
			add(u)
			continue
		}
		for n := u.start; n <= u.end; n++ {
			add(unit{start: n, end: n, words: countWords(c.lines.text(n))})
		}
	}
	if cur.end > 0 {
		pieces = append(pieces, cur)
	}
	if k := len(pieces); k > 1 && pieces[k-1].words < chunkTailWords && pieces[k-2].words+pieces[k-1].words <= chunkMaxWords {
		pieces[k-2].end = pieces[k-1].end
		pieces[k-2].words += pieces[k-1].words
		pieces = pieces[:k-1]
	}
	for _, p := range pieces {
		// Trailing blank lines of a cut code block are not worth keeping.
		for p.end > p.start && isBlank(c.lines.text(p.end)) {
			p.end--
		}
		for p.start < p.end && isBlank(c.lines.text(p.start)) {
			p.start++
		}
		c.chunks = append(c.chunks, Chunk{
			Headings:  path,
			StartLine: p.start,
			EndLine:   p.end,
			Text:      string(c.lines.span(p.start, p.end)),
		})
	}
}

// fenceMarker returns the ``` or ~~~ run that starts line (after
// indentation and '>' markers) and what follows it, or nil when the line
// is no code fence.
func fenceMarker(line []byte) (marker, rest []byte) {
	s := bytes.TrimLeft(line, " \t>")
	if len(s) < 3 || (s[0] != '`' && s[0] != '~') {
		return nil, nil
	}
	n := 0
	for n < len(s) && s[n] == s[0] {
		n++
	}
	if n < 3 {
		return nil, nil
	}
	return s[:n], s[n:]
}

func isBlank(b []byte) bool { return len(bytes.TrimSpace(b)) == 0 }

// text returns a 1-based line without its line end.
func (x *lineIndex) text(line int) []byte {
	return x.span(line, line)
}

// span returns the 1-based lines first..last, without the final line end.
func (x *lineIndex) span(first, last int) []byte {
	end := len(x.src)
	if last < len(x.starts) {
		end = x.starts[last] - 1
	}
	return x.src[x.start(first):end]
}

// Paragraph is a run of lines that reads on its own: a paragraph, list or
// table up to a blank line, or a fenced code block whole.
type Paragraph struct {
	StartLine, EndLine int // 1-based, inclusive
	Text               string
}

// Paragraphs splits text, lines of a note whose first is line first (such
// as a chunk's Text from its StartLine), into the units chunks are packed
// from, by the same rules: blank lines part them, except inside fenced
// code. A heading line goes with the unit after it, as a heading alone
// says nothing. Callers that need less than a chunk cut it here, so that
// a part never ends mid-sentence or splits a code block.
func Paragraphs(text string, first int) []Paragraph {
	src := []byte(text)
	lines := newLineIndex(src)
	c := chunker{lines: &lines}
	units := c.units(1, lines.count())
	var out []Paragraph
	held := 0 // the first line of a heading waiting for the unit after it
	for i, u := range units {
		if held == 0 {
			held = u.start
		}
		if u.start == u.end && isHeadingLine(lines.text(u.start)) && i < len(units)-1 {
			continue
		}
		out = append(out, Paragraph{StartLine: first + held - 1, EndLine: first + u.end - 1, Text: string(lines.span(held, u.end))})
		held = 0
	}
	return out
}

// isHeadingLine reports whether a line is an ATX heading ("## Steps").
func isHeadingLine(line []byte) bool {
	s := bytes.TrimLeft(line, " ")
	n := 0
	for n < len(s) && s[n] == '#' {
		n++
	}
	return n >= 1 && n <= 6 && (n == len(s) || s[n] == ' ' || s[n] == '\t')
}

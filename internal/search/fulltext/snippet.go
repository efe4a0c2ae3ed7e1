package fulltext

import (
	"cmp"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/jarvis-mcp/jarvis/internal/search/notes"
	"github.com/jarvis-mcp/jarvis/internal/vault"
)

// Snippets are made in Go from the chunks of the notes returned, not by
// FTS5's snippet(), which tokenises a note's whole text again inside
// SQLite for every note: that took about 40% of a search whose words occur
// in thousands of notes. The passage chosen is the one snippet() would
// choose: the window of snippetTokens words holding the most distinct
// query terms, then the most matches, centred on them.

// wordSpan is a word of a text: its byte range.
type wordSpan struct{ start, end int }

// textWords splits text into words as unicode61 does: runs of letters,
// digits, marks and private-use characters (isTokenRune).
func textWords(text string) []wordSpan {
	var out []wordSpan
	start := -1
	for i := 0; i < len(text); {
		c := text[i]
		var word bool
		size := 1
		if c < utf8.RuneSelf {
			word = 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9'
		} else {
			var r rune
			r, size = utf8.DecodeRuneInString(text[i:])
			word = isTokenRune(r)
		}
		switch {
		case word && start < 0:
			start = i
		case !word && start >= 0:
			out = append(out, wordSpan{start, i})
			start = -1
		}
		i += size
	}
	if start >= 0 {
		out = append(out, wordSpan{start, len(text)})
	}
	return out
}

// markWord is a word of a query as the index holds it: folded and stemmed.
type markWord struct {
	stem   string
	prefix bool // the query matches it as a prefix too
}

// marker finds a query's words in text, as FTS5 matched them: each term
// is a word, or a phrase whose words must follow one another.
type marker struct {
	terms [][]markWord
	// units holds, for each term, the term of the query it came from: a
	// prefix term and its word are one, and so are the words of a run
	// joined by punctuation.
	units []int
	// firsts holds the first byte of every stem: a word starting with
	// another cannot match, and is not stemmed.
	firsts [256]bool
}

// newMarker returns the marker for the terms a loose match of pq holds
// (parsedQuery.units): each quoted phrase as a phrase, words joined by
// punctuation each on its own. CJK terms are not marked here.
func newMarker(pq parsedQuery) *marker {
	m := &marker{}
	unit := 0
	add := func(words []string, prefix bool) {
		var term []markWord
		for _, w := range words {
			s := porterStem(foldToken(w))
			if s == "" {
				return
			}
			term = append(term, markWord{stem: s, prefix: prefix})
			m.firsts[s[0]] = true
		}
		m.terms = append(m.terms, term)
		m.units = append(m.units, unit)
	}
	for u, t := range pq.terms {
		unit = u
		switch {
		case t.cjk:
		case t.phrase && !t.quoted:
			n := len(m.terms)
			for _, w := range t.words {
				if !stopWords[w] {
					add([]string{w}, false)
				}
			}
			if len(m.terms) == n {
				add(t.words, false)
			}
		case t.prefix:
			// FTS5 reads the word and its prefix as two phrases, so the
			// word itself counts twice when a passage is chosen.
			add(t.words, false)
			add(t.words, true)
		default:
			add(t.words, false)
		}
	}
	return m
}

// match is where a term occurs in a text: words [first, last] of it.
type match struct {
	term        int
	first, last int
}

// find returns the matches of the marker's terms among words of text, in
// the order of their first word.
func (m *marker) find(text string, words []wordSpan) []match {
	if len(m.terms) == 0 {
		return nil
	}
	stems := make([]string, len(words)) // "" until needed; "\x00" when it cannot match
	stemAt := func(i int) string {
		if stems[i] == "" {
			w := text[words[i].start:words[i].end]
			first := w[0]
			if first >= utf8.RuneSelf {
				w = foldToken(w)
				first = w[0]
			} else if 'A' <= first && first <= 'Z' {
				first += 'a' - 'A'
			}
			if !m.firsts[first] {
				stems[i] = "\x00"
			} else {
				stems[i] = porterStem(foldToken(w))
			}
		}
		return stems[i]
	}
	var out []match
	for i := range words {
		n := len(out)
		for t, term := range m.terms {
			if i+len(term) > len(words) {
				continue
			}
			ok := true
			for j, w := range term {
				s := stemAt(i + j)
				if s != w.stem && !(w.prefix && strings.HasPrefix(s, w.stem)) {
					ok = false
					break
				}
			}
			if ok {
				out = append(out, match{term: t, first: i, last: i + len(term) - 1})
			}
		}
		// The longest match at a word first, so that a phrase is marked
		// whole rather than its first word alone.
		slices.SortStableFunc(out[n:], func(a, b match) int { return b.last - a.last })
	}
	return out
}

// window picks the snippet's words, as FTS5's snippet() does: for each
// match, the size words from it, moved so that the matches they hold sit
// in the middle, and the size words from the start of its sentence; scored 1000 for each distinct term
// they hold and 1 for each further match, 100 more for starting a
// sentence (120 the text). The best wins, the earliest on a tie. It
// returns the span, the matches inside it and its score (0 without
// matches).
func window(text string, words []wordSpan, matches []match, size int) (start, end int, in []match, best int) {
	n := len(words)
	if len(matches) == 0 {
		return 0, min(n, size), nil, 0
	}
	seen := make(map[int]int) // term -> the scoring it was last seen in
	scoring := 0
	// score counts the matches in words [pos, pos+size), and where the
	// first and last of them lie.
	// Matches come in the order of their first word, so those of a
	// window are a run found by binary search: a note of 50,000 matches
	// costs a few per window, not all of them per window.
	score := func(pos int) (score, lo, hi int) {
		scoring++
		lo = -1
		from, _ := slices.BinarySearchFunc(matches, pos, func(mt match, pos int) int { return cmp.Compare(mt.first, pos) })
		for _, mt := range matches[from:] {
			if mt.first >= pos+size {
				break
			}
			if seen[mt.term] != scoring {
				seen[mt.term] = scoring
				score += 1000
			} else {
				score++
			}
			if lo < 0 {
				lo = mt.first
			}
			hi = mt.last + 1
		}
		return score, lo, hi
	}
	best = -1
	sentence := 0 // the start of the sentence of the match at hand
	scanned := 0  // the words up to here have been looked at for sentence starts
	for _, mt := range matches {
		sc, lo, hi := score(mt.first)
		if sc > best {
			best = sc
			start = max(0, min(lo-(size-(hi-lo))/2, n-size))
		}
		if n <= size {
			continue
		}
		for s := scanned + 1; s <= mt.first; s++ {
			if startsSentence(text, words, s) {
				sentence = s
			}
		}
		scanned = max(scanned, mt.first)
		if sentence < mt.first {
			sc, _, _ := score(sentence)
			if sentence == 0 {
				sc += 120
			} else {
				sc += 100
			}
			if sc > best {
				best, start = sc, sentence
			}
		}
	}
	end = min(n, start+size)
	for _, mt := range matches {
		if mt.first >= start && mt.last < end {
			in = append(in, mt)
		}
	}
	return start, end, nonOverlapping(in), best
}

// startsSentence reports whether word i begins a sentence as FTS5 sees
// it: the first word, or one after a full stop or colon and white space.
func startsSentence(text string, words []wordSpan, i int) bool {
	if i == 0 {
		return true
	}
	j := words[i].start - 1
	for j >= 0 && strings.IndexByte(" \t\n\r", text[j]) >= 0 {
		j--
	}
	return j >= 0 && j != words[i].start-1 && (text[j] == '.' || text[j] == ':')
}

// render writes words [start, end) of text with the matches in marked by
// notes.MarkOpen and notes.MarkClose, "…" where the text goes on either
// side.
func render(text string, words []wordSpan, start, end int, in []match) string {
	if start >= end {
		return ""
	}
	var b strings.Builder
	at := 0
	if start > 0 {
		at = words[start].start
		b.WriteString("…")
	}
	for _, mt := range in {
		b.WriteString(text[at:words[mt.first].start])
		b.WriteString(notes.MarkOpen)
		b.WriteString(text[words[mt.first].start:words[mt.last].end])
		b.WriteString(notes.MarkClose)
		at = words[mt.last].end
	}
	if end < len(words) {
		b.WriteString(text[at:words[end-1].end])
		b.WriteString("…")
	} else {
		b.WriteString(text[at:])
	}
	return b.String()
}

// snippetText turns a rendered passage into a snippet, one line, its
// marked matches bold outside code (oneLine, notes.Plain).
func snippetText(s string) string {
	return oneLine(s)
}

// passage is the snippet of a note's text and the line of its first match.
type passage struct {
	snippet string
	line    int
	found   bool // the text holds a query word
}

// passageOf picks the passage of a note from its chunks, kept within one
// section, given the note's headings in line order (nil when not known):
// the snippet never crosses a heading line, so that the section a result
// is labelled by (that of its line) is the one its snippet shows. The
// section shown is the one whose own best window scores best by the rules
// that choose a window (window: the most distinct query words first), the
// earliest on a tie; not merely the section where the note's best window
// starts, which may hold fewer of the query's words than another. A short
// section gives a shorter snippet.
func (m *marker) passageOf(chunks []storedChunk, headings []vault.Heading) passage {
	p := m.bodyPassage(chunks)
	if len(headings) == 0 {
		return p
	}
	first, next := sectionLines(headings, p.line)
	if _, cut := linesWithin(chunks, first, next); !cut {
		return p // one section only
	}
	// Each chunk is split into lines once, not once for each section.
	split := make([][]string, len(chunks))
	for i, c := range chunks {
		split[i] = strings.Split(c.text, "\n")
	}
	var best []storedChunk
	bestScore := -1
	for i := 0; i <= len(headings); i++ {
		from, to := 0, 0 // the section's lines, to 0: to the end
		if i > 0 {
			from = headings[i-1].Line
		}
		if i < len(headings) {
			to = headings[i].Line
		}
		if i > 0 && i < len(headings) && to <= from {
			continue // a heading on the line of the one before
		}
		within := splitWithin(chunks, split, from, to)
		if len(within) == 0 {
			continue
		}
		if sc := m.bodyScore(within); sc > bestScore {
			best, bestScore = within, sc
		}
	}
	if best == nil {
		return p
	}
	return m.bodyPassage(best)
}

// splitWithin is linesWithin of chunks already split into lines.
func splitWithin(chunks []storedChunk, split [][]string, first, next int) []storedChunk {
	var out []storedChunk
	for i, c := range chunks {
		lines := split[i]
		from, to := max(first-c.line, 0), len(lines)
		if next > 0 {
			to = min(to, max(next-c.line, 0))
		}
		if from >= to {
			continue
		}
		text := c.text
		if from > 0 || to < len(lines) {
			text = strings.Join(lines[from:to], "\n")
		}
		out = append(out, storedChunk{heading: c.heading, line: c.line + from, text: text})
	}
	return out
}

// bodyScore is the score of the window bodyPassage would choose in chunks.
func (m *marker) bodyScore(chunks []storedChunk) int {
	body := joinChunks(chunks)
	words := textWords(body)
	_, _, _, score := window(body, words, m.find(body, words), snippetTokens)
	return score
}

// joinChunks is the text of chunks as note_fts reads a body: joined by
// line breaks.
func joinChunks(chunks []storedChunk) string {
	var b strings.Builder
	for i, c := range chunks {
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(c.text)
	}
	return b.String()
}

// sectionLines is the section holding line: from the line of the last
// heading at or above it (0 before the first heading) to the line of the
// next heading after it (0 when none follows).
func sectionLines(headings []vault.Heading, line int) (first, next int) {
	for _, h := range headings {
		if h.Line > line {
			return first, h.Line
		}
		first = h.Line
	}
	return first, 0
}

// linesWithin is the chunks cut to their lines from first up to, not
// including, next (0: to the end), and whether any line was cut.
func linesWithin(chunks []storedChunk, first, next int) ([]storedChunk, bool) {
	var out []storedChunk
	cut := false
	for _, c := range chunks {
		lines := strings.Split(c.text, "\n")
		from, to := max(first-c.line, 0), len(lines)
		if next > 0 {
			to = min(to, max(next-c.line, 0))
		}
		if from >= to {
			cut = true
			continue
		}
		if from > 0 || to < len(lines) {
			cut = true
		}
		out = append(out, storedChunk{heading: c.heading, line: c.line + from, text: strings.Join(lines[from:to], "\n")})
	}
	return out, cut
}

// bodyPassage picks the passage of a note from its chunks, read as note_fts
// reads its body: the chunks joined by line breaks. The passage is chosen
// on the Markdown, as FTS5 would choose it, but cut on the text its lines
// show (notes.Lines, oneLine): a link is shown as Obsidian shows it, whole
// or not at all, never cut inside its raw form.
func (m *marker) bodyPassage(chunks []storedChunk) passage {
	if len(chunks) == 0 {
		return passage{}
	}
	offsets := make([]int, len(chunks))
	var b strings.Builder
	for i, c := range chunks {
		if i > 0 {
			b.WriteByte('\n')
		}
		offsets[i] = b.Len()
		b.WriteString(c.text)
	}
	body := b.String()
	words := textWords(body)
	matches := m.find(body, words)
	start, end, in, _ := window(body, words, matches, snippetTokens)
	p := passage{line: chunks[0].line}
	if start >= end {
		return p
	}
	lines, from, to := notes.Lines(body, words[start].start, words[end-1].end)
	if strings.Contains(lines, "----") {
		lines = rulerRun.ReplaceAllString(lines, "---")
	}
	shown, linked := notes.PlainLinks(lines)
	sw := textWords(shown)
	sm := m.find(shown, sw)
	ss, se, sin, _ := window(shown, sw, sm, snippetTokens)
	if ss, se = wholeLinks(sw, ss, se, linked); len(sw) > 0 {
		sin = nil
		for _, mt := range sm {
			if mt.first >= ss && mt.last < se {
				sin = append(sin, mt)
			}
		}
		sin = nonOverlapping(sin)
	}
	p.snippet = renderShown(shown, sw, ss, se, sin, from > 0, to < len(body))
	if len(in) == 0 {
		return p
	}
	p.found = true
	// The line of the passage's first match: the match of the same term,
	// as many times over, among those of the lines shown.
	first := in[0]
	if len(sin) > 0 {
		nth := 0
		for _, mt := range sm {
			if mt == sin[0] {
				break
			}
			if mt.term == sin[0].term {
				nth++
			}
		}
		for _, mt := range matches {
			if words[mt.first].start < from || mt.term != sin[0].term {
				continue
			}
			if words[mt.first].start >= to {
				break
			}
			if nth == 0 {
				first = mt
				break
			}
			nth--
		}
	}
	off := words[first.first].start
	i := len(offsets) - 1
	for offsets[i] > off {
		i--
	}
	p.line = chunks[i].line + strings.Count(body[offsets[i]:off], "\n")
	return p
}

// wholeLinks widens words [start, end) of a text to hold whole the text
// of each link (linked) they begin or end inside.
func wholeLinks(words []wordSpan, start, end int, linked []notes.Span) (int, int) {
	if start >= end {
		return start, end
	}
	for _, l := range linked {
		if at := words[start].start; at > l.Start && at < l.End {
			for start > 0 && words[start-1].start >= l.Start {
				start--
			}
		}
		if at := words[end-1].end; at > l.Start && at < l.End {
			for end < len(words) && words[end].end <= l.End {
				end++
			}
		}
	}
	return start, end
}

// renderShown writes words [start, end) of shown, text as its reader sees
// it (oneLine), with the matches in bold outside code, "…" where the text
// goes on either side: before when more precedes it, after when more
// follows it.
func renderShown(shown string, words []wordSpan, start, end int, in []match, before, after bool) string {
	if start >= end {
		return ""
	}
	from, to := 0, len(shown)
	if start > 0 {
		from = words[start].start
	}
	if end < len(words) {
		to = words[end-1].end
	}
	code := notes.CodeSpans(shown)
	var b strings.Builder
	at := 0
	for _, mt := range in {
		s, e := words[mt.first].start, words[mt.last].end
		if slices.ContainsFunc(code, func(c notes.Span) bool { return s < c.End && e > c.Start }) {
			continue // code is shown as written
		}
		b.WriteString(shown[at:s])
		b.WriteString(notes.MarkOpen)
		b.WriteString(shown[s:e])
		b.WriteString(notes.MarkClose)
		at = e
	}
	b.WriteString(shown[at:])
	marked := b.String()
	// The marks all lie inside the window, after from.
	out := notes.MarkBold(notes.Cut(marked, from, to+len(marked)-len(shown)))
	if before || start > 0 {
		out = "…" + out
	}
	if after || end < len(words) {
		out += "…"
	}
	return out
}

// marked is text with every match marked by **, on one line: a note's
// title as a snippet.
func (m *marker) marked(text string) (string, bool) {
	words := textWords(text)
	matches := m.find(text, words)
	if len(words) == 0 {
		return oneLine(text), false
	}
	return snippetText(render(text, words, 0, len(words), nonOverlapping(matches))), len(matches) > 0
}

// nonOverlapping drops each match that starts inside the one before.
func nonOverlapping(matches []match) []match {
	var out []match
	for _, mt := range matches {
		if len(out) > 0 && mt.first <= out[len(out)-1].last {
			continue
		}
		out = append(out, mt)
	}
	return out
}

// Terms are the words of a query as keyword search marks them in text, for
// callers that score passages against a query by the same rules.
type Terms struct {
	m  *marker
	pq parsedQuery
}

// QueryTerms returns the terms of query text.
func QueryTerms(text string) Terms {
	pq := parseQuery(text)
	return Terms{newMarker(pq), pq}
}

// Len is how many terms there are.
func (t Terms) Len() int { return len(t.m.terms) }

// In reports which of the terms occur in text.
func (t Terms) In(text string) []bool {
	in := make([]bool, len(t.m.terms))
	for _, mt := range t.m.find(text, textWords(text)) {
		in[mt.term] = true
	}
	return in
}

// Units is how many words, phrases and runs of Chinese or Japanese the
// query looks for: the length of what Occurrences returns. A query of
// symbols alone is one unit, matched by any of its symbols, as keyword
// search matches it.
func (t Terms) Units() int {
	if len(t.pq.symbols) > 0 {
		return 1
	}
	return len(t.pq.terms)
}

// Occurrences counts each word, phrase or Chinese or Japanese run of the
// query in text, found as keyword search finds them: whole words, folded
// and stemmed as the index holds them ("Index" does not hold "x"; "synced"
// holds "syncing"), the last word of a short query also as a prefix, and
// Chinese or Japanese runs as written. A query without words counts its
// symbols (emoji, ★), all as one unit, as keyword search looks for any of
// them. It is how the notes are searched when the index cannot be read.
func (t Terms) Occurrences(text string) []int {
	if len(t.pq.symbols) > 0 {
		return []int{len(findNeedles(text, t.pq.symbols))}
	}
	out := make([]int, len(t.pq.terms))
	last := make([]int, len(t.pq.terms)) // the word each unit was last counted at, +1
	for _, mt := range t.m.find(text, textWords(text)) {
		u := t.m.units[mt.term]
		if last[u] == mt.first+1 {
			continue // its word and its prefix matched the same word
		}
		last[u] = mt.first + 1
		out[u]++
	}
	for u, term := range t.pq.terms {
		if term.cjk {
			out[u] = strings.Count(text, term.words[0])
		}
	}
	return out
}

// Passage is the snippet keyword search shows of text, a note's body
// whose first line is line: the passage holding the most of the query's
// words, made plain (notes.Plain), with the line of its first match; found
// is false when text holds none of them.
func (t Terms) Passage(text string, line int) (snippet string, at int, found bool) {
	if needles := t.pq.symbols; len(needles) > 0 {
		return excerptPassage(text, needles, line)
	}
	if t.pq.cjk {
		return excerptPassage(text, t.pq.needles(), line)
	}
	p := t.m.passageOf([]storedChunk{{line: line, text: text}}, nil)
	return p.snippet, p.line, p.found
}

// excerptPassage is Passage for needles found as written (symbols,
// Chinese or Japanese runs): the excerpt around the first, and its line.
func excerptPassage(text string, needles []string, line int) (snippet string, at int, found bool) {
	hits := findNeedles(text, needles)
	if len(hits) == 0 {
		return markedExcerpt(text, needles, snippetRunes), line, false
	}
	return markedExcerpt(text, needles, snippetRunes), line + strings.Count(text[:hits[0].start], "\n"), true
}

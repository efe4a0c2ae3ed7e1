package notes

import (
	"path"
	"regexp"
	"strings"

	"github.com/jarvis-mcp/jarvis/internal/vault"
)

// MarkOpen and MarkClose are put around the words a search matched, in
// a passage of a note's Markdown, before Plain: control characters never
// typed in a note, so that they can be told from the note's own **.
const (
	MarkOpen  = "\x02"
	MarkClose = "\x03"
)

// Plain is a passage of a note's Markdown as its reader sees it, on one
// line: the text of a snippet, whichever search made it. Heading marks,
// quote and callout markers, list bullets, block ids ("^intro" at the end
// of a line), code fences and the rows of dashes under a table's head go;
// a table row shows its cells, and a heading the text after it, set apart
// by partSeparator (" · "); a link shows its text
// ("[[Page|shown]]" shows "shown", "[[Page#Part]]" shows "Page > Part",
// "[text](url)" shows "text"); an embedded attachment (an image, a PDF)
// shows nothing, as it holds no text; lines are joined by spaces. Code is
// shown as written, and stays code: a fenced block becomes one code span
// (`...`), so that whoever shows the snippet can tell it from the text.
// The words a search marked (MarkOpen, MarkClose) are bold (**) outside
// code and plain inside it; the note's own bold markers go outside code,
// so that ** marks only matches. A passage cut out of the middle of a
// note may begin or end inside a link: its stray brackets go too.
func Plain(s string) string {
	return MarkBold(PlainMarked(s))
}

// PlainMarked is Plain with the marks of matched words (MarkOpen,
// MarkClose) kept as they are outside code, for a caller that cuts the
// text before it shows it; those inside code go.
func PlainMarked(s string) string { return plain(s, "", "") }

// Link marks are put around the text a link shows, by PlainLinks, so that
// its caller can find it: control characters never typed in a note.
const (
	linkOpen  = "\x0e"
	linkClose = "\x0f"
)

// PlainLinks is Plain without the marks of matched words, and where the
// text each link shows lies in it: a caller that cuts the text keeps
// those parts whole.
func PlainLinks(s string) (string, []Span) {
	marked := dropMarks.Replace(plain(s, linkOpen, linkClose))
	var b strings.Builder
	b.Grow(len(marked))
	var spans []Span
	for i := 0; i < len(marked); i++ {
		switch marked[i] {
		case linkOpen[0]:
			spans = append(spans, Span{Start: b.Len()})
		case linkClose[0]:
			if len(spans) > 0 {
				spans[len(spans)-1].End = b.Len()
			}
		default:
			b.WriteByte(marked[i])
		}
	}
	return b.String(), spans
}

// plain is PlainMarked, with the text of each link between open and
// close.
func plain(s, open, close string) string {
	var b strings.Builder
	b.Grow(len(s))
	// fence is the marks that opened the code block the line is in ("```"
	// or "~~~"), "" outside one; depth is how many quote markers its
	// lines begin with, the code block being inside a quote or callout;
	// code holds the block's lines until it closes.
	fence, depth := "", 0
	var code []string
	// afterHeading: the text added last was a heading, set apart from
	// what follows it.
	afterHeading := false
	add := func(t string) {
		if t == "" {
			return
		}
		switch {
		case afterHeading:
			b.WriteString(partSeparator)
		case b.Len() > 0:
			b.WriteByte(' ')
		}
		b.WriteString(t)
		afterHeading = false
	}
	for line := range strings.SplitSeq(s, "\n") {
		t := strings.TrimSpace(line)
		switch {
		case fence != "":
			// Code: only the quote markers of the quote it is in go.
			for i := 0; i < depth && strings.HasPrefix(t, ">"); i++ {
				t = strings.TrimSpace(t[1:])
			}
			if strings.HasPrefix(t, fence) {
				fence = ""
				add(codeSpan(code))
				code = nil
				continue // the closing fence
			}
			if t != "" {
				code = append(code, t)
			}
		default:
			if f, d, ok := opensCode(t); ok {
				fence, depth = f, d
				continue // the fence; the code inside stays
			}
			// A passage cut from the middle of a note begins "…", and one
			// cut before the end of its line ends "…".
			cut := strings.HasPrefix(t, "…")
			t = strings.TrimSpace(strings.TrimPrefix(t, "…"))
			cutEnd := strings.HasSuffix(t, "…")
			if cutEnd {
				t = strings.TrimSpace(strings.TrimSuffix(t, "…"))
				if strings.HasPrefix(t, "|") && !strings.HasSuffix(t, "|") {
					t += " |" // a table row the cut went through: a row still
				}
			}
			if cut && !strings.HasPrefix(t, "|") && strings.HasSuffix(t, " |") {
				t = "| " + t // a row cut at its start: only a table row ends " |"
			}
			t, isHeading := plainLine(t)
			if cut {
				t = "…" + t
			}
			if cutEnd {
				t += "…"
			}
			add(t)
			afterHeading = afterHeading || (isHeading && t != "")
		}
	}
	add(codeSpan(code)) // a passage may end inside a code block
	prose := func(s string) string { return prose(s, open, close) }
	out := eachPart(b.String(), prose, func(code string) string { return dropMarks.Replace(code) })
	return strings.Join(strings.Fields(out), " ")
}

// codeSpan is the lines of a fenced code block as one code span: between
// runs of backticks longer than any inside, as Markdown writes a span
// holding backticks; "" for a block with no text.
func codeSpan(lines []string) string {
	text := strings.Join(lines, " ")
	if strings.TrimSpace(dropMarks.Replace(text)) == "" {
		return ""
	}
	longest := 0
	for i := 0; i < len(text); {
		if n := runLength(text, i, '`'); n > 0 {
			longest = max(longest, n)
			i += n
			continue
		}
		i++
	}
	if strings.HasPrefix(text, "`") || strings.HasSuffix(text, "`") {
		text = " " + text + " "
	}
	ticks := strings.Repeat("`", longest+1)
	return ticks + text + ticks
}

// prose is the text outside code as its reader sees it: links show their
// text (between linkOpen and linkClose), the note's own bold markers go, and the marks of matched words
// pair up.
func prose(s, linkOpen, linkClose string) string {
	if strings.ContainsAny(s, "[]|") {
		s = links(s, linkOpen, linkClose)
	}
	s = strings.ReplaceAll(s, "**", "")
	if !strings.ContainsAny(s, MarkOpen+MarkClose) {
		return s
	}
	// A match that ran into code or a cut is closed where it stops.
	var b strings.Builder
	open := false
	for _, r := range s {
		switch string(r) {
		case MarkOpen:
			if !open {
				b.WriteString(MarkOpen)
			}
			open = true
		case MarkClose:
			if open {
				b.WriteString(MarkClose)
			}
			open = false
		default:
			b.WriteRune(r)
		}
	}
	if open {
		b.WriteString(MarkClose)
	}
	return b.String()
}

var (
	dropMarks = strings.NewReplacer(MarkOpen, "", MarkClose, "")
	boldMarks = strings.NewReplacer(MarkOpen, "**", MarkClose, "**")
)

// MarkBold turns the marks of matched words left by PlainMarked into **.
func MarkBold(s string) string { return boldMarks.Replace(s) }

// Span is a byte range of a text.
type Span struct{ Start, End int }

// CodeSpans finds the code spans of a line of Markdown, as Markdown finds
// them: a run of backticks up to the next run of the same length; a run
// with no partner is text. Each span includes its backticks. A snippet's
// code is found here, by everything that marks or shows one.
func CodeSpans(s string) []Span {
	var spans []Span
	for i := 0; i < len(s); {
		if s[i] != '`' {
			i++
			continue
		}
		n := runLength(s, i, '`')
		if end := closingRun(s, i+n, n); end >= 0 {
			spans = append(spans, Span{i, end + n})
			i = end + n
			continue
		}
		i += n
	}
	return spans
}

// runLength is how many c start s at i.
func runLength(s string, i int, c byte) int {
	n := 0
	for i+n < len(s) && s[i+n] == c {
		n++
	}
	return n
}

// closingRun finds the next run of exactly n backticks in s from i, or -1.
func closingRun(s string, i, n int) int {
	for i < len(s) {
		j := strings.IndexByte(s[i:], '`')
		if j < 0 {
			return -1
		}
		j += i
		m := runLength(s, j, '`')
		if m == n {
			return j
		}
		i = j + m
	}
	return -1
}

// eachPart applies text to the parts of s outside code spans and code to
// the spans, backticks included.
func eachPart(s string, text, code func(string) string) string {
	var b strings.Builder
	at := 0
	for _, sp := range CodeSpans(s) {
		b.WriteString(text(s[at:sp.Start]))
		b.WriteString(code(s[sp.Start:sp.End]))
		at = sp.End
	}
	b.WriteString(text(s[at:]))
	return b.String()
}

// opensCode reports whether the line t (trimmed, outside code) opens a
// fenced code block, inside any quotes, callouts and list items: "```go",
// "> ```", "- ```sh", "> - ~~~". It gives the fence's marks, which close
// the block, and how many quote markers the block's lines begin with.
func opensCode(t string) (fence string, depth int, ok bool) {
	for strings.HasPrefix(t, ">") {
		t = strings.TrimSpace(t[1:])
		depth++
	}
	for {
		m := bullet.FindStringIndex(t)
		if m == nil {
			break
		}
		t = strings.TrimSpace(t[m[1]:])
	}
	for _, f := range []string{"```", "~~~"} {
		if strings.HasPrefix(t, f) {
			return f, depth, true
		}
	}
	return "", 0, false
}

// fenceAt is the fence of the code block the line of text beginning at
// byte from is in, "" outside one, and how many quote markers its lines
// begin with.
func fenceAt(text string, from int) (fence string, depth int) {
	for line := range strings.SplitSeq(text[:from], "\n") {
		t := strings.TrimSpace(line)
		if fence == "" {
			if f, d, ok := opensCode(t); ok {
				fence, depth = f, d
			}
			continue
		}
		for i := 0; i < depth && strings.HasPrefix(t, ">"); i++ {
			t = strings.TrimSpace(t[1:])
		}
		if strings.HasPrefix(t, fence) {
			fence = ""
		}
	}
	return fence, depth
}

// Lines is the Markdown of the whole lines of text that hold bytes from
// to to, for Plain to show: a passage is made plain line by line, whole,
// and cut only then, so that no cut falls inside a link's or a heading's
// marks. Lines that begin inside a fenced code block are opened by its
// fence, so that they are still read as code. The lines begin at byte
// start of text and end at byte end.
func Lines(text string, from, to int) (lines string, start, end int) {
	start = strings.LastIndexByte(text[:from], '\n') + 1
	end = len(text)
	if i := strings.IndexByte(text[to:], '\n'); i >= 0 {
		end = to + i
	}
	lines = text[start:end]
	if fence, depth := fenceAt(text, start); fence != "" {
		lines = strings.Repeat("> ", depth) + fence + "\n" + lines
	}
	return lines, start, end
}

// partSeparator sets apart the parts of a snippet a reader would
// otherwise read as one run of words: a table's cells, and a heading
// from the text after it.
const partSeparator = " · "

// plainLine drops the block markers at the start of one line of Markdown
// outside a code block, and reports whether the line is a heading.
func plainLine(t string) (string, bool) {
	// Quotes and callouts, nested: "> > [!tip] Title".
	for strings.HasPrefix(t, ">") {
		t = strings.TrimSpace(t[1:])
	}
	if m := callout.FindStringIndex(t); m != nil {
		t = strings.TrimSpace(t[m[1]:])
	}
	if m := heading.FindStringIndex(t); m != nil {
		return strings.TrimSpace(t[m[1]:]), true
	}
	if tableRule.MatchString(t) {
		return "", false
	}
	if m := bullet.FindStringIndex(t); m != nil {
		t = strings.TrimSpace(t[m[1]:])
	}
	if m := blockID.FindStringIndex(t); m != nil {
		t = strings.TrimSpace(t[:m[0]])
	}
	if strings.HasPrefix(t, "|") && strings.HasSuffix(t, "|") && len(t) > 1 {
		return strings.Join(cells(strings.TrimSpace(t[1:len(t)-1])), partSeparator), false
	}
	return t, false
}

// cells splits a table row, its outer pipes gone, at the pipes between
// its cells: not one escaped ("\|", as a link's display text in a table
// is written), nor one in code or in a wikilink. Empty cells go.
func cells(row string) []string {
	var out []string
	code := CodeSpans(row)
	from, depth := 0, 0
	for i := 0; i < len(row); i++ {
		switch {
		case len(code) > 0 && i >= code[0].End:
			code = code[1:]
			i--
			continue
		case len(code) > 0 && i >= code[0].Start:
			continue
		case strings.HasPrefix(row[i:], "[["):
			depth++
		case strings.HasPrefix(row[i:], "]]") && depth > 0:
			depth--
		case row[i] == '|' && depth == 0 && (i == 0 || row[i-1] != '\\'):
			if c := strings.TrimSpace(row[from:i]); c != "" {
				out = append(out, c)
			}
			from = i + 1
		}
	}
	if c := strings.TrimSpace(row[from:]); c != "" {
		out = append(out, c)
	}
	return out
}

var (
	heading = regexp.MustCompile(`^#{1,6}(\s+|$)`)
	callout = regexp.MustCompile(`^\[![^\]]*\][+-]?`)
	bullet  = regexp.MustCompile(`^([-*+]|\d{1,9}[.)])\s+(\[[ xX]\]\s+)?`)
	// blockID is a block id at the end of a line, "^intro", or alone on
	// its line; the marks of a match may be around its name.
	blockID   = regexp.MustCompile(`(^|\s)\^\x02?[A-Za-z0-9-]+\x03?$`)
	tableRule = regexp.MustCompile(`^\|?\s*:?-+:?\s*(\|\s*:?-+:?\s*)*\|?$`)
	wikilink  = regexp.MustCompile(`(!?)\[\[([^\[\]|]*)(?:\|([^\[\]]*))?\]\]`)
	mdLink    = regexp.MustCompile(`(!?)\[([^\[\]]*)\]\([^()\s]*\)`)
)

// links replaces wikilinks and Markdown links by the text they show, and
// drops embedded attachments and the brackets of links cut in half. The
// text of a whole link is put between open and close.
func links(s, open, close string) string {
	wrap := func(t string) string {
		if t = strings.TrimSpace(t); t == "" || open == "" {
			return t
		}
		return open + t + close
	}
	s = wikilink.ReplaceAllStringFunc(s, func(m string) string {
		g := wikilink.FindStringSubmatch(m)
		embed, target, shown := g[1] == "!", g[2], g[3]
		if embed && attachment(target) {
			// An image shows as a picture, whose name would be noise in
			// the text around it; any other file embedded (a PDF, an
			// audio note) is named, as what the passage holds there.
			page, _, _ := strings.Cut(target, "#")
			if vault.IsImage(strings.TrimSpace(page)) {
				return ""
			}
			return wrap(page)
		}
		if shown != "" {
			return wrap(shown)
		}
		return wrap(targetShown(strings.TrimSpace(target)))
	})
	s = mdLink.ReplaceAllStringFunc(s, func(m string) string {
		g := mdLink.FindStringSubmatch(m)
		if g[1] == "!" {
			return ""
		}
		return wrap(g[2])
	})
	return strayBrackets.Replace(s)
}

// strayBrackets are the halves of links a cut leaves.
var strayBrackets = strings.NewReplacer("![[", "", "[[", "", "]]", "")

// targetShown is what a link with no display text shows of its target, as
// Obsidian shows it: the page, and a heading or block after " > "
// ("Pour over > Bloom", "Pour over > ^bloom"); the heading or block alone
// for a link into its own note.
func targetShown(target string) string {
	page, part, found := strings.Cut(target, "#")
	switch {
	case !found || part == "":
		return page
	case page == "":
		return part
	}
	return page + " > " + part
}

// attachment reports whether an embed's target names a file that is not a
// note: one with an extension other than .md.
func attachment(target string) bool {
	page, _, _ := strings.Cut(target, "#")
	ext := strings.ToLower(path.Ext(strings.TrimSpace(page)))
	return ext != "" && ext != ".md"
}

// Cut is s[start:end] for an excerpt of a line Plain made: a code span
// the cut goes through is closed at the cut, so that what is left of it
// is still code, and the rest of the excerpt still text.
func Cut(s string, start, end int) string {
	var pre, post string
	for _, sp := range CodeSpans(s) {
		n := runLength(s, sp.Start, '`')
		if start > sp.Start && start < sp.End {
			start = max(start, sp.Start+n)
			pre = s[sp.Start : sp.Start+n]
		}
		if end > sp.Start && end < sp.End {
			end = min(end, sp.End-n)
			post = s[sp.Start : sp.Start+n]
		}
	}
	if start >= end {
		return ""
	}
	return pre + s[start:end] + post
}

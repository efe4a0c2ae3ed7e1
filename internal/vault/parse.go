package vault

import (
	"bytes"
	"cmp"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"net/url"
	pathpkg "path"
	"regexp"
	"slices"
	"strings"
	"time"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	extast "github.com/yuin/goldmark/extension/ast"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/text"
	"github.com/yuin/goldmark/util"
	"golang.org/x/text/encoding/charmap"
)

// Parser turns the bytes of one Markdown file into a Note. It is built once
// and is safe for concurrent use: every call gets its own goldmark context.
type Parser struct {
	md parser.Parser
	// budget is how long a body of size bytes may take to parse:
	// ParseBudget, or another in tests.
	budget func(size int) time.Duration
}

// NewParser builds the goldmark parser with the syntax Obsidian notes use:
// CommonMark, GFM tables, footnotes, and the Obsidian extension for
// wikilinks, embeds, tags, block ids and bare URLs.
func NewParser() *Parser {
	// The budget checker triggers wherever any inline parser does: those
	// of goldmark's defaults and of obsidianSyntax (the table extension
	// has none).
	var inline []parser.InlineParser
	for _, v := range append(parser.DefaultInlineParsers(), obsidianInlineParsers()...) {
		inline = append(inline, v.Value.(parser.InlineParser))
	}
	md := goldmark.New(
		goldmark.WithExtensions(extension.Table, obsidianSyntax{}),
		goldmark.WithParserOptions(
			parser.WithInlineParsers(util.Prioritized(newBudgetChecker(inline), budgetCheckerPriority)),
			// Only the block parser of the footnote extension: it keeps
			// "[^1]: https://..." from being read as a link reference
			// definition and parses the footnote text in place. Its AST
			// transformer is left out because it drops footnotes nobody
			// refers to, and the links in them with it.
			parser.WithBlockParsers(util.Prioritized(footnoteDefinitions{extension.NewFootnoteBlockParser()}, 999)),
		),
	)
	return &Parser{md: md.Parser(), budget: ParseBudget}
}

// footnoteDefinitions is goldmark's footnote block parser, kept from
// nesting. goldmark moves each definition into one shared list as it
// closes; a definition inside another would carry that list, and every
// link in it, out of the document. Nested, "[^b]: ..." is plain text.
type footnoteDefinitions struct{ parser.BlockParser }

// Open implements parser.BlockParser.
func (f footnoteDefinitions) Open(parent ast.Node, reader text.Reader, pc parser.Context) (ast.Node, parser.State) {
	for p := parent; p != nil; p = p.Parent() {
		if p.Kind() == extast.KindFootnote {
			return nil, parser.NoChildren
		}
	}
	return f.BlockParser.Open(parent, reader, pc)
}

// unclosedFrontmatter reports whether src opens frontmatter that no fence
// closes: a first line of --- followed by a line that reads as a property
// ("title: x"). A --- before prose is a thematic break, not a mistake.
func unclosedFrontmatter(src []byte) bool {
	first, rest, found := bytes.Cut(src, []byte{'\n'})
	if !found || !isFence(first, "---") {
		return false
	}
	second, _, _ := bytes.Cut(rest, []byte{'\n'})
	return propertyLine.Match(bytes.TrimRight(second, "\r"))
}

// propertyLine is a line of YAML that sets a property: a name without
// spaces, a colon, then a space or the end of the line.
var propertyLine = regexp.MustCompile(`^[A-Za-z_][\w-]*:(\s|$)`)

// ParserVersion names how Parse reads notes. It changes whenever the same
// file would be stored differently (a new link form, a fix in what counts
// as a block id), so that the indexer reads every note again after an
// upgrade rather than only those edited since.
const ParserVersion = "5"

// Parse reads one note. path is the note's vault-relative slash path, used
// for the title when the frontmatter has none. Problems such as invalid
// YAML or invalid UTF-8 are reported in Note.Warnings and the rest of the
// note is still read.
//
// Parse fails only when it has to stop: when ctx ends, with ctx's error,
// and when the Markdown takes longer than ParseBudget to parse, with an
// error wrapping ErrTooComplex. The note it then returns is known by name
// only, like a note over MaxNoteSize, with a warning saying why.
func (p *Parser) Parse(ctx context.Context, path string, src []byte) (Note, error) {
	var note Note
	var offsets *sourceOffsets
	var enc Encoding
	src, enc, offsets = normalizeSource(src)
	if w := EncodingWarning(enc, path); w != "" {
		note.Warnings = append(note.Warnings, w)
	}
	lines := newLineIndex(src)
	lines.offsets = offsets

	bodyStart := 0
	if fm, ok := splitFrontmatter(src); ok {
		bodyStart = fm.bodyStart
		decodeFrontmatter(fm, &lines, &note)
	} else if unclosedFrontmatter(src) {
		// Opened, never closed: Obsidian reads no properties either.
		note.Warnings = append(note.Warnings, WarnFrontmatter+": line 1 opens the frontmatter with --- and no later --- line closes it, so it is read as text; close it with a line of ---")
	}
	body := src[bodyStart:]
	var d dropped
	if err := p.parseBody(ctx, body, bodyStart, &lines, &note, &d); err != nil {
		if !errors.Is(err, ErrTooComplex) {
			return Note{Title: TitleFromPath(path)}, fmt.Errorf("parse %s: %w", path, err)
		}
		return Note{Title: TitleFromPath(path), Warnings: []string{tooComplexWarning(p.budget(len(body)))}},
			fmt.Errorf("parse %s: %w", path, err)
	}
	capLists(&note, &d)
	note.WordCount = countWords(body)
	note.Chunks = chunkBody(&lines, bodyStart, note.Headings)
	if note.Title == "" {
		note.Title = TitleFromPath(path)
	}

	// goldmark gathers footnote definitions into one list where the first
	// of them stands, so the walk can meet a later line first. A stable
	// sort by line restores file order and keeps the order within a line.
	slices.SortStableFunc(note.Links, func(a, b Link) int { return cmp.Compare(a.Line, b.Line) })
	slices.SortStableFunc(note.External, func(a, b ExternalLink) int { return cmp.Compare(a.Line, b.Line) })
	slices.SortStableFunc(note.Tags, func(a, b Tag) int { return cmp.Compare(a.Line, b.Line) })
	slices.SortStableFunc(note.Blocks, func(a, b Block) int { return cmp.Compare(a.Line, b.Line) })
	return note, nil
}

// internalErrorWarning starts the warning added when goldmark or this
// package panics on some input. A test fails on it; a running index only
// loses the body of that one note.
const internalErrorWarning = "internal parser error"

// parseBody runs goldmark over the Markdown after the frontmatter, which
// starts at file offset base, and collects from the tree. It returns the
// error of parseTree when the parse had to stop; a panic inside goldmark
// or this package costs the body only, with a warning.
func (p *Parser) parseBody(ctx context.Context, body []byte, base int, lines *lineIndex, note *Note, d *dropped) (err error) {
	defer func() {
		if r := recover(); r != nil {
			note.Warnings = append(note.Warnings, fmt.Sprintf("%s: %v", internalErrorWarning, r))
		}
	}()
	doc, src, err := p.parseTree(ctx, body)
	if err != nil {
		if errors.Is(err, errParserPanic) {
			note.Warnings = append(note.Warnings, err.Error())
			return nil
		}
		return err
	}
	c := collector{body: src, base: base, lines: lines, note: note, dropped: d}
	_ = ast.Walk(doc, c.visit)
	return nil
}

// maxListItems caps each list of a note (links, external links, tags,
// block ids, headings): what a note holds past it is left out, with a
// warning, so that the memory a parsed note takes, and the rows it
// writes, do not follow a note of a hundred thousand links. Notes written
// by hand stay far below it.
const maxListItems = 20_000

// dropped counts, for each list of a note, the items left out past
// maxListItems.
type dropped struct{ links, external, tags, blocks, headings int }

// keep appends item to list unless the list is full, counting it in *n
// then.
func keep[T any](list []T, n *int, item T) []T {
	if len(list) >= maxListItems {
		*n++
		return list
	}
	return append(list, item)
}

// capLists cuts the lists that frontmatter filled past maxListItems, and
// warns of every list that lost items, with how many were kept of how
// many.
func capLists(note *Note, d *dropped) {
	if n := len(note.Links); n > maxListItems {
		d.links += n - maxListItems
		note.Links = slices.Clone(note.Links[:maxListItems])
	}
	if n := len(note.Tags); n > maxListItems {
		d.tags += n - maxListItems
		note.Tags = slices.Clone(note.Tags[:maxListItems])
	}
	for _, l := range []struct {
		n    int
		kept int
		what string
	}{
		{d.links, len(note.Links), "links"},
		{d.external, len(note.External), "external links"},
		{d.tags, len(note.Tags), "tags"},
		{d.blocks, len(note.Blocks), "block ids"},
		{d.headings, len(note.Headings), "headings"},
	} {
		if l.n > 0 {
			note.Warnings = append(note.Warnings, fmt.Sprintf("note has %d %s; only the first %d are kept", l.kept+l.n, l.what, l.kept))
		}
	}
}

// maxContainerDepth caps how many container blocks (block quotes, list
// items, footnotes) one line may open. goldmark's time grows with the
// square of that depth: a single 1 MB line of "> > > ..." or "1. 1. 1. ..."
// takes minutes. Real notes stay far below the cap.
const maxContainerDepth = 32

// maxIndentColumns caps how far into a line its container markers and
// indentation may reach: list items nest by indentation too, one level a
// tab, and goldmark measures every open level's indentation on every line,
// so a list nested a thousand tabs deep costs the square of that on each
// line. 128 columns hold maxContainerDepth levels of tabs.
const maxIndentColumns = 4 * maxContainerDepth

// limitContainerDepth hides the container markers past maxContainerDepth,
// and the run of indentation that reaches past maxIndentColumns with the
// markers after it, on each line behind U+001F, so goldmark reads the rest
// of the line as text of the deepest allowed container. Bytes are replaced one for one: offsets, and
// so line numbers, do not move. body is copied only when a line is that
// deep.
func limitContainerDepth(body []byte) []byte {
	out := body
	copied := false
	for off := 0; off < len(body); {
		end := len(body)
		if i := bytes.IndexByte(body[off:], '\n'); i >= 0 {
			end = off + i
		}
		if cut, prefixEnd := containerPrefix(body[off:end]); cut >= 0 {
			if !copied {
				out, copied = bytes.Clone(body), true
			}
			for i := off + cut; i < off+prefixEnd; i++ {
				out[i] = 0x1f
			}
		}
		off = end + 1
	}
	return out
}

// containerPrefix reads the indentation and container markers at the start
// of line. It returns where the marker past maxContainerDepth or the run of
// blanks reaching past maxIndentColumns starts (or -1 when the line is not
// that deep), and
// where the markers, or the indentation hidden with them, end. Trailing
// whitespace is never hidden: a line of blanks stays blank.
func containerPrefix(line []byte) (cut, end int) {
	cut = -1
	depth, col := 0, 0
	for end < len(line) {
		i := end
		for i < len(line) && (line[i] == ' ' || line[i] == '\t') {
			if col >= maxIndentColumns && cut < 0 {
				// The whole run goes: what follows is then text, not
				// code indented past the deepest container.
				cut = end
			}
			if line[i] == '\t' {
				col += 4 - col%4
			} else {
				col++
			}
			i++
		}
		if i == len(line) {
			// Only blanks follow: nothing of them is hidden.
			if cut >= end {
				cut = -1
			}
			break
		}
		if cut >= 0 {
			end = i
		}
		n := containerMarkerLength(line[i:])
		if n == 0 {
			break
		}
		if depth++; depth == maxContainerDepth+1 && cut < 0 {
			cut = i
		}
		if col += n; col > maxIndentColumns && cut < 0 {
			cut = i
		}
		end = i + n
	}
	return cut, end
}

// containerMarkerLength is the length of the block quote, list item or
// footnote marker at the start of s, or 0.
func containerMarkerLength(s []byte) int {
	if len(s) == 0 {
		return 0
	}
	spaceAt := func(i int) bool { return i < len(s) && (s[i] == ' ' || s[i] == '\t') }
	switch c := s[0]; {
	case c == '>':
		return 1
	case c == '-' || c == '*' || c == '+':
		if spaceAt(1) {
			return 1
		}
	case c >= '0' && c <= '9':
		i := 1
		for i < len(s) && i < 10 && s[i] >= '0' && s[i] <= '9' {
			i++
		}
		if i < len(s) && (s[i] == '.' || s[i] == ')') && spaceAt(i+1) {
			return i + 1
		}
	case c == '[':
		if len(s) > 1 && s[1] == '^' {
			if i := bytes.Index(s, []byte("]:")); i > 2 && i < 1000 {
				return i + 2
			}
		}
	}
	return 0
}

// collector gathers what jarvis keeps from the goldmark AST of a body.
type collector struct {
	body  []byte // the Markdown after the frontmatter; AST offsets are into it
	base  int    // offset of body in the file, to turn offsets into file lines
	lines *lineIndex
	note  *Note
	// The context of the last link, shared by the next links on its line.
	contextLine int
	context     string
	dropped     *dropped
}

// lineAt turns an offset into the body into a file line.
func (c *collector) lineAt(pos int) int {
	if pos < 0 {
		pos = 0
	}
	return c.lines.line(c.base + pos)
}

// visit is the ast.Walker that fills the note. Code and raw HTML are
// skipped whole; everything else is entered, since links and tags nest in
// headings, emphasis, lists, quotes and tables.
func (c *collector) visit(n ast.Node, entering bool) (ast.WalkStatus, error) {
	if !entering {
		return ast.WalkContinue, nil
	}
	switch n := n.(type) {
	case *ast.CodeBlock, *ast.FencedCodeBlock, *ast.HTMLBlock, *ast.CodeSpan, *ast.RawHTML:
		return ast.WalkSkipChildren, nil
	case *ast.Heading:
		c.note.Headings = keep(c.note.Headings, &c.dropped.headings, Heading{
			Level: n.Level,
			Text:  plainText(n, c.body),
			Line:  c.lineAt(blockPos(n)),
		})
	case *wikilinkNode:
		kind := KindLink
		if n.Embed {
			kind = KindEmbed
		}
		c.addLink(kind, string(n.Target), string(n.Subpath), string(n.Display), n.Pos(), n.end)
	case *tagNode:
		c.note.Tags = keep(c.note.Tags, &c.dropped.tags, Tag{Name: string(n.Name), Line: c.lineAt(n.Pos()), Inline: true})
	case *blockIDNode:
		c.note.Blocks = keep(c.note.Blocks, &c.dropped.blocks, Block{ID: string(n.ID), Line: c.lineAt(n.Pos())})
	case *ast.Link:
		c.addMarkdownLink(KindMarkdown, n.Destination, plainText(n, c.body), n.Pos(), c.inlineLinkEnd(n.Pos(), n.Destination, n.Reference != nil))
	case *ast.Image:
		c.addMarkdownLink(KindEmbed, n.Destination, plainText(n, c.body), n.Pos(), c.inlineLinkEnd(n.Pos(), n.Destination, n.Reference != nil))
	case *ast.AutoLink:
		c.addAutoLink(n)
	}
	return ast.WalkContinue, nil
}

// addLink records a link into the vault written from body offset pos to
// end (0 when unknown).
func (c *collector) addLink(kind LinkKind, target, subpath, display string, pos, end int) {
	if len(c.note.Links) >= maxListItems {
		c.dropped.links++
		return
	}
	line := c.lineAt(pos)
	if line != c.contextLine {
		c.contextLine, c.context = line, c.lines.context(line)
	}
	c.note.Links = append(c.note.Links, Link{
		Kind:    kind,
		Target:  target,
		Subpath: subpath,
		Display: display,
		Line:    line,
		Context: c.context,
		Start:   c.lines.offsets.original(c.base + pos),
		End:     c.fileOffset(end),
	})
}

// fileOffset turns an end offset into the body into one in the file, 0
// staying unknown.
func (c *collector) fileOffset(end int) int {
	if end <= 0 {
		return 0
	}
	return c.lines.offsets.original(c.base + end)
}

// addMarkdownLink records [text](dest) or ![alt](dest): an external link
// when dest has a URL scheme, otherwise a link into the vault with the path
// percent-decoded and the fragment as the subpath.
func (c *collector) addMarkdownLink(kind LinkKind, rawDest []byte, label string, pos, end int) {
	dest := string(unescapeMarkdown(rawDest))
	if strings.TrimSpace(dest) == "" {
		return
	}
	if hasURLScheme(dest) {
		c.note.External = keep(c.note.External, &c.dropped.external, ExternalLink{URL: dest, Text: label, Line: c.lineAt(pos)})
		return
	}
	ref, fragment, _ := strings.Cut(dest, "#")
	target := strings.TrimSpace(pathUnescape(ref))
	subpath := strings.TrimSpace(pathUnescape(fragment))
	if target == "" && subpath == "" {
		return
	}
	c.addLink(kind, target, subpath, label, pos, end)
}

// inlineLinkEnd is the body offset just past the ')' of an inline
// Markdown link or image, "[text](dest "title")", or 0 for a reference
// link, whose destination is written elsewhere. goldmark records where a
// link starts and gives its destination as a slice of the body; the rest
// is read from there.
func (c *collector) inlineLinkEnd(pos int, dest []byte, reference bool) int {
	if reference || len(dest) == 0 {
		return 0
	}
	at := c.destinationAt(pos, dest)
	if at < 0 {
		return 0
	}
	body, i := c.body, at+len(dest)
	if at > 0 && body[at-1] == '<' {
		if i >= len(body) || body[i] != '>' {
			return 0
		}
		i++
	}
	i = skipBlanks(body, i)
	if i < len(body) && (body[i] == '"' || body[i] == '\'' || body[i] == '(') {
		closer := body[i]
		if closer == '(' {
			closer = ')'
		}
		for i++; i < len(body) && body[i] != closer; i++ {
			if body[i] == '\\' {
				i++
			}
		}
		i = skipBlanks(body, i+1)
	}
	if i >= len(body) || body[i] != ')' {
		return 0
	}
	return i + 1
}

// destinationAt is the body offset of dest, the destination of the link
// starting at pos, or -1. dest is most often a slice of the body itself;
// when goldmark copied it (a line indented by a tab), it is looked for
// after the link's "](".
func (c *collector) destinationAt(pos int, dest []byte) int {
	if off := cap(c.body) - cap(dest); off >= 0 && off+len(dest) <= len(c.body) && &c.body[off] == &dest[0] {
		return off
	}
	for from := max(pos, 0); from < len(c.body); {
		i := bytes.Index(c.body[from:], []byte("]("))
		if i < 0 {
			return -1
		}
		at := skipBlanks(c.body, from+i+2)
		if at < len(c.body) && c.body[at] == '<' {
			at++
		}
		if bytes.HasPrefix(c.body[at:], dest) {
			return at
		}
		from += i + 2
	}
	return -1
}

// skipBlanks is the offset of the first byte at or after i that is not a
// space, a tab or a line end.
func skipBlanks(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n') {
		i++
	}
	return i
}

// addAutoLink records <https://...>, <me@example.com> and bare URLs.
func (c *collector) addAutoLink(n *ast.AutoLink) {
	label := string(n.Label(c.body))
	url := string(n.URL(c.body))
	if n.AutoLinkType == ast.AutoLinkEmail && !strings.HasPrefix(strings.ToLower(url), "mailto:") {
		url = "mailto:" + url
	}
	c.note.External = keep(c.note.External, &c.dropped.external, ExternalLink{URL: url, Text: label, Line: c.lineAt(n.Pos())})
}

// blockPos is the offset where a block node starts, falling back to its
// first line when goldmark recorded no position.
func blockPos(n ast.Node) int {
	if p := n.Pos(); p >= 0 {
		return p
	}
	if l := n.Lines(); l.Len() > 0 {
		return l.At(0).Start
	}
	return 0
}

// plainText is the text a reader sees in n's inline content: no emphasis
// markers, code spans without backticks, links by their text, escapes and
// entities resolved, line breaks as spaces.
func plainText(n ast.Node, src []byte) string {
	return string(bytes.TrimSpace(appendPlainText(nil, n, src)))
}

// appendPlainText appends the plain text of n's children to dst.
func appendPlainText(dst []byte, n ast.Node, src []byte) []byte {
	for c := n.FirstChild(); c != nil; c = c.NextSibling() {
		dst = appendNodeText(dst, c, src)
	}
	return dst
}

// appendNodeText appends the plain text of the inline node c.
func appendNodeText(dst []byte, c ast.Node, src []byte) []byte {
	switch c := c.(type) {
	case *ast.Text:
		dst = append(dst, unescapeMarkdown(c.Segment.Value(src))...)
		if c.SoftLineBreak() || c.HardLineBreak() {
			dst = append(dst, ' ')
		}
	case *ast.String:
		dst = append(dst, c.Value...)
	case *ast.CodeSpan:
		for t := c.FirstChild(); t != nil; t = t.NextSibling() {
			if t, ok := t.(*ast.Text); ok {
				dst = append(dst, t.Segment.Value(src)...)
			}
		}
	case *ast.AutoLink:
		dst = append(dst, c.Label(src)...)
	case *ast.RawHTML, *blockIDNode:
		// markup, not text
	case *wikilinkNode:
		switch {
		case len(c.Display) > 0:
			dst = append(dst, c.Display...)
		case len(c.Subpath) > 0:
			dst = append(append(append(dst, c.Target...), '#'), c.Subpath...)
		default:
			dst = append(dst, c.Target...)
		}
	case *tagNode:
		dst = append(append(dst, '#'), c.Name...)
	default:
		dst = appendPlainText(dst, c, src)
	}
	return dst
}

// unescapeMarkdown resolves backslash escapes and character references,
// copying only when there is something to resolve.
func unescapeMarkdown(b []byte) []byte {
	if bytes.IndexByte(b, '\\') >= 0 {
		b = util.UnescapePunctuations(b)
	}
	if bytes.IndexByte(b, '&') >= 0 {
		b = util.ResolveEntityNames(util.ResolveNumericReferences(b))
	}
	return b
}

// hasURLScheme reports whether s starts with a URL scheme ("https:",
// "mailto:", "obsidian:"). One-letter schemes are not counted so that a
// Windows drive ("C:/notes/x.md") stays a path.
func hasURLScheme(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z':
		case i > 0 && (c >= '0' && c <= '9' || c == '+' || c == '-' || c == '.'):
		case c == ':':
			return i >= 2
		default:
			return false
		}
	}
	return false
}

// pathUnescape percent-decodes a link path, keeping it as written when it
// is not valid percent-encoding ("100%.md").
func pathUnescape(s string) string {
	if strings.IndexByte(s, '%') < 0 {
		return s
	}
	u, err := url.PathUnescape(s)
	if err != nil || !utf8.ValidString(u) {
		return s
	}
	return u
}

var utf8BOM = []byte{0xEF, 0xBB, 0xBF}

// Encoding is how the bytes of a note were read as text.
type Encoding int

const (
	// UTF8 is valid UTF-8, the encoding Obsidian writes.
	UTF8 Encoding = iota
	// Windows1252 is UTF-8 with bytes that are not valid UTF-8, each read
	// as a character of Windows-1252 (a superset of Latin-1): a note
	// saved by an older Windows editor.
	Windows1252
	// UTF16 is UTF-16 after a byte order mark, as some Windows editors
	// save "Unicode" text.
	UTF16
)

// EncodingWarning is the warning of a note read as enc, saying how to
// convert the file at path (vault-relative) to UTF-8; empty for UTF8.
func EncodingWarning(enc Encoding, path string) string {
	from := ""
	switch enc {
	case Windows1252:
		from = "windows-1252"
	case UTF16:
		from = "utf-16"
	default:
		return ""
	}
	name := pathpkg.Base(path)
	q := "'" + strings.ReplaceAll(name, "'", `'\''`) + "'"
	tmp := "'" + strings.ReplaceAll(name+".utf8", "'", `'\''`) + "'"
	read := "read as Windows-1252 (Latin-1)"
	if enc == UTF16 {
		read = "read as UTF-16"
	}
	return fmt.Sprintf("%s; %s. To save it as UTF-8, run `iconv -f %s -t utf-8 %s > %s && mv %s %s` in its folder",
		WarnNotUTF8, read, from, q, tmp, tmp, q)
}

// The warnings of a note that was indexed with a problem begin with one
// of these, by which doctor and the index summary tell their kinds apart.
const (
	// WarnNotUTF8 begins the warning of a note read in another encoding.
	WarnNotUTF8 = "file is not UTF-8"
	// WarnFrontmatter begins the warning of frontmatter that is not
	// valid YAML.
	WarnFrontmatter = "invalid frontmatter YAML"
)

// NoteText is a note's bytes as text, decoded as Parse decodes them
// (UTF-16 after a byte order mark; bytes that are not valid UTF-8 read as
// Windows-1252), with its line ends and any UTF-8 byte order mark kept.
// Whatever shows a note's text calls it, so that what is shown holds the
// words the index found.
func NoteText(src []byte) (string, Encoding) {
	out, enc, _ := decodeSource(src, false)
	return string(out), enc
}

// normalizeSource decodes src (NoteText), strips a UTF-8 BOM and turns
// CRLF and lone CR line ends into LF, so offsets, line numbers and every
// string taken from the note are clean. A lone CR ends a line, as it does
// in Obsidian's editor. src is never modified; it is copied only when
// something changes. The offsets returned turn offsets of the clean text
// back into offsets of src (nil when nothing changed).
func normalizeSource(src []byte) ([]byte, Encoding, *sourceOffsets) {
	return decodeSource(src, true)
}

// decodeSource is NoteText and, when clean, normalizeSource: one pass that
// decodes src and, clean, drops a UTF-8 BOM and turns line ends into LF.
func decodeSource(src []byte, clean bool) ([]byte, Encoding, *sourceOffsets) {
	enc := UTF8
	var order binary.ByteOrder
	switch {
	case bytes.HasPrefix(src, []byte{0xFF, 0xFE}):
		enc, order = UTF16, binary.LittleEndian
	case bytes.HasPrefix(src, []byte{0xFE, 0xFF}):
		enc, order = UTF16, binary.BigEndian
	}
	hasBOM := enc == UTF8 && bytes.HasPrefix(src, utf8BOM)
	if enc == UTF8 && utf8.Valid(src) && (!clean || !hasBOM && bytes.IndexByte(src, '\r') < 0) {
		return src, UTF8, nil
	}
	m := &sourceOffsets{}
	in := 0
	switch {
	case enc == UTF16:
		in = 2
		m.mark(0, in)
	case hasBOM && clean:
		in = len(utf8BOM)
		m.mark(0, in)
	}
	out := make([]byte, 0, len(src)+len(src)/8)
	for in < len(src) {
		var r rune
		size := 1
		switch c := src[in]; {
		case enc == UTF16:
			r, size = decodeUTF16(src[in:], order)
		case c < utf8.RuneSelf:
			r = rune(c)
		default:
			r, size = utf8.DecodeRune(src[in:])
			if size == 1 {
				r, enc = charmap.Windows1252.DecodeByte(c), Windows1252
			}
		}
		in += size
		switch {
		case r == '\r' && clean:
			out = append(out, '\n')
			if n, next := peekLF(src[in:], enc, order); n {
				in += next
			}
		default:
			out = utf8.AppendRune(out, r)
		}
		if in-len(out) != m.shift() {
			m.mark(len(out), in-len(out))
		}
	}
	return out, enc, m
}

// decodeUTF16 reads one character of UTF-16 from the start of b; an odd
// last byte or a lone surrogate is U+FFFD.
func decodeUTF16(b []byte, order binary.ByteOrder) (rune, int) {
	if len(b) < 2 {
		return utf8.RuneError, len(b)
	}
	r := rune(order.Uint16(b))
	if utf16.IsSurrogate(r) {
		if len(b) >= 4 {
			if pair := utf16.DecodeRune(r, rune(order.Uint16(b[2:]))); pair != utf8.RuneError {
				return pair, 4
			}
		}
		return utf8.RuneError, 2
	}
	return r, 2
}

// peekLF reports whether b starts with a LF in the encoding of the
// source, and its size.
func peekLF(b []byte, enc Encoding, order binary.ByteOrder) (bool, int) {
	if enc == UTF16 {
		return len(b) >= 2 && order.Uint16(b) == '\n', 2
	}
	return len(b) > 0 && b[0] == '\n', 1
}

// sourceOffsets turns offsets of a note's clean text (normalizeSource)
// back into offsets of the bytes read from its file, so that a link's
// place can be given in the file as it is. The shift between the two
// changes at a BOM, a CRLF and a run of invalid bytes: from clean offset
// at[i] on, the file's offset is by[i] away.
type sourceOffsets struct {
	at, by []int
}

// mark records that from clean offset at on, the shift is by.
func (m *sourceOffsets) mark(at, by int) {
	if n := len(m.at); n > 0 && m.at[n-1] == at {
		m.by[n-1] = by
		return
	}
	m.at, m.by = append(m.at, at), append(m.by, by)
}

// shift is the shift recorded last.
func (m *sourceOffsets) shift() int {
	if len(m.by) == 0 {
		return 0
	}
	return m.by[len(m.by)-1]
}

// original is the offset in the file of clean offset off; a nil m is no
// change.
func (m *sourceOffsets) original(off int) int {
	if m == nil {
		return off
	}
	i, found := slices.BinarySearch(m.at, off)
	if !found {
		i--
	}
	if i < 0 {
		return off
	}
	return off + m.by[i]
}

// lineIndex turns byte offsets of the normalised file into 1-based line
// numbers and gives back the text of a line.
type lineIndex struct {
	src    []byte
	starts []int // starts[i] is the offset of line i+1
	// offsets turn offsets of src into offsets of the file's bytes.
	offsets *sourceOffsets
}

// newLineIndex records where each line of src starts, in one pass.
func newLineIndex(src []byte) lineIndex {
	starts := make([]int, 1, bytes.Count(src, []byte{'\n'})+1)
	for off := 0; ; {
		i := bytes.IndexByte(src[off:], '\n')
		if i < 0 {
			break
		}
		off += i + 1
		starts = append(starts, off)
	}
	return lineIndex{src: src, starts: starts}
}

// count is the number of lines; a final newline starts an empty last line.
func (x *lineIndex) count() int { return len(x.starts) }

// line returns the 1-based line holding offset off.
func (x *lineIndex) line(off int) int {
	i, found := slices.BinarySearch(x.starts, off)
	if found {
		return i + 1
	}
	return max(i, 1)
}

// start returns the offset of a 1-based line, clamped to the file.
func (x *lineIndex) start(line int) int {
	switch {
	case line < 1:
		return 0
	case line > len(x.starts):
		return len(x.src)
	}
	return x.starts[line-1]
}

// maxContext caps Link.Context; a long paragraph is one line in Markdown.
const maxContext = 300

// context returns the text of a 1-based line, trimmed and cut to
// maxContext bytes on a UTF-8 boundary.
func (x *lineIndex) context(line int) string {
	if line < 1 || line > len(x.starts) {
		return ""
	}
	end := len(x.src)
	if line < len(x.starts) {
		end = x.starts[line]
	}
	s := bytes.TrimSpace(x.src[x.starts[line-1]:end])
	if len(s) > maxContext {
		cut := maxContext
		for cut > 0 && !utf8.RuneStart(s[cut]) {
			cut--
		}
		s = bytes.TrimRightFunc(s[:cut], unicode.IsSpace)
	}
	return string(s)
}

// countWords counts words the way a reader would: runs of letters and
// digits (an apostrophe inside, as in "don't", does not split), and every
// character of scripts written without spaces (Chinese, Japanese kana,
// Thai, Lao, Khmer, Myanmar) as one word each. Combining marks belong to
// the character before them.
func countWords(b []byte) int {
	words := 0
	var inWord uint8 // 1 inside a word
	for i := 0; i < len(b); {
		if c := b[i]; c < utf8.RuneSelf {
			// Branch-free for ASCII, where word boundaries are too
			// frequent for the branch predictor.
			class := asciiWordClass[c]
			isWord := class & wordByte
			words += int(isWord &^ inWord)
			inWord = isWord | (class>>1)&inWord
			i++
			continue
		}
		r, size := utf8.DecodeRune(b[i:])
		i += size
		switch {
		case unicode.IsMark(r), r == '\u2019':
		case isWordPerCharacter(r):
			words++
			inWord = 0
		case unicode.IsLetter(r) || unicode.IsDigit(r):
			if inWord == 0 {
				words++
				inWord = 1
			}
		default:
			inWord = 0
		}
	}
	return words
}

// Classes of ASCII bytes for countWords; bits, so it can mix them.
const (
	breakByte = 0 // ends a word
	wordByte  = 1 // letter or digit
	keepByte  = 2 // apostrophe: neither starts nor ends a word
)

var asciiWordClass = func() (t [utf8.RuneSelf]uint8) {
	for c := range utf8.RuneSelf {
		switch {
		case c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9':
			t[c] = wordByte
		case c == '\'':
			t[c] = keepByte
		}
	}
	return t
}()

// wordPerCharacter holds the scripts written without spaces between words.
var wordPerCharacter = []*unicode.RangeTable{
	unicode.Han, unicode.Hiragana, unicode.Katakana,
	unicode.Thai, unicode.Lao, unicode.Khmer, unicode.Myanmar,
}

// isWordPerCharacter reports whether r counts as a word on its own. The
// range check keeps Latin, Cyrillic, Greek and Arabic off the table lookup.
func isWordPerCharacter(r rune) bool {
	return r >= 0x0E00 && (r == 'ー' || unicode.IsOneOf(wordPerCharacter, r))
}

package vault

import (
	"bytes"
	"unicode"
	"unicode/utf8"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/text"
	"github.com/yuin/goldmark/util"
)

// This file teaches goldmark the parts of Obsidian Flavored Markdown that
// carry links and metadata: wikilinks and embeds, inline tags, block ids,
// and bare URLs. Each is an inline parser (the first three with their own
// node kind), so goldmark's block and code-span parsing decides where they
// may appear: nothing inside fenced or indented code, code spans, HTML
// blocks or autolinks is ever seen by them.

// Priorities of the inline parsers. goldmark consults the parsers registered
// for a trigger byte in ascending priority order and keeps the first result.
// Code spans need no priority games: inline parsing runs left to right, so a
// backtick before "[[" or "#" opens the code span first and swallows them.
const (
	// wikilinkPriority puts "[[" and "![[" ahead of goldmark's link parser
	// (200), which would otherwise open two link labels at "[[" and leave
	// the wikilink as text. The footnote reference parser (101) goes first
	// but only claims "[^", which can never start a wikilink.
	wikilinkPriority = 199
	// tagPriority is late on purpose: no built-in parser triggers on '#',
	// and an extension added later that gives '#' a more specific meaning
	// (a heading anchor, say) should be asked before a plain hashtag.
	tagPriority = 1000
	// blockIDPriority is late for the same reason: nothing built in
	// triggers on '^', and footnote syntax ("[^1]", "^[inline]") is
	// claimed by its own parsers at '[' before '^' is ever reached.
	blockIDPriority = 1000
	// bareURLPriority is goldmark's own for Linkify, whose parser it
	// wraps. Of its triggers, '*' and '_' are also emphasis (500), which
	// goes first, as it does with goldmark's Linkify extension.
	bareURLPriority = 999
)

var (
	// kindWikilink is the ast.NodeKind of wikilinkNode.
	kindWikilink = ast.NewNodeKind("ObsidianWikilink")
	// kindTag is the ast.NodeKind of tagNode.
	kindTag = ast.NewNodeKind("ObsidianTag")
	// kindBlockID is the ast.NodeKind of blockIDNode.
	kindBlockID = ast.NewNodeKind("ObsidianBlockID")
)

// wikilinkNode is "[[Target#Subpath|Display]]", or an embed when written
// "![[...]]". It has no children: the parts are slices of the source, kept
// raw (no percent-decoding, as Obsidian does not decode wikilinks).
type wikilinkNode struct {
	ast.BaseInline
	Target  []byte
	Subpath []byte
	Display []byte
	Embed   bool
	// end is the source offset just past the closing "]]".
	end int
}

// Kind implements ast.Node.
func (n *wikilinkNode) Kind() ast.NodeKind { return kindWikilink }

// Dump implements ast.Node.
func (n *wikilinkNode) Dump(source []byte, level int) {
	ast.DumpHelper(n, source, level, map[string]string{
		"Target":  string(n.Target),
		"Subpath": string(n.Subpath),
		"Display": string(n.Display),
		"Embed":   boolString(n.Embed),
	}, nil)
}

// tagNode is an inline "#tag" or "#nested/tag". Name excludes the '#'.
type tagNode struct {
	ast.BaseInline
	Name []byte
	// end is the source offset just past the tag, so a tag written
	// directly after another ("#one#two") can tell it follows a tag.
	end int
}

// Kind implements ast.Node.
func (n *tagNode) Kind() ast.NodeKind { return kindTag }

// Dump implements ast.Node.
func (n *tagNode) Dump(source []byte, level int) {
	ast.DumpHelper(n, source, level, map[string]string{"Name": string(n.Name)}, nil)
}

// blockIDNode is a "^block-id" that names the paragraph or list item it
// ends. ID excludes the caret.
type blockIDNode struct {
	ast.BaseInline
	ID []byte
}

// Kind implements ast.Node.
func (n *blockIDNode) Kind() ast.NodeKind { return kindBlockID }

// Dump implements ast.Node.
func (n *blockIDNode) Dump(source []byte, level int) {
	ast.DumpHelper(n, source, level, map[string]string{"ID": string(n.ID)}, nil)
}

// boolString spells b for Dump.
func boolString(b bool) string {
	if b {
		return "true"
	}
	return "false"
}

// obsidianSyntax is the goldmark extension that adds the Obsidian inline
// parsers. It registers no renderer: jarvis parses and never renders.
type obsidianSyntax struct{}

// Extend implements goldmark.Extender.
func (obsidianSyntax) Extend(m goldmark.Markdown) {
	m.Parser().AddOptions(parser.WithInlineParsers(obsidianInlineParsers()...))
}

// obsidianInlineParsers are the inline parsers obsidianSyntax registers.
func obsidianInlineParsers() []util.PrioritizedValue {
	return []util.PrioritizedValue{
		util.Prioritized(wikilinkParser{}, wikilinkPriority),
		util.Prioritized(tagParser{}, tagPriority),
		util.Prioritized(blockIDParser{}, blockIDPriority),
		util.Prioritized(bareURLParser{linkify: extension.NewLinkifyParser()}, bareURLPriority),
	}
}

// bareURLParser turns "https://..." written in text into an autolink, as
// Obsidian shows it. It wraps goldmark's Linkify parser, which triggers at
// every space and line start, and lets it run only where "http://",
// "https://" or "ftp://" follows: a bare "www.example.com" or e-mail
// address is not a link in Obsidian, and skipping Linkify's look at every
// word saves a sixth of the parse time of a typical note.
type bareURLParser struct {
	linkify parser.InlineParser
}

// Trigger implements parser.InlineParser.
func (p bareURLParser) Trigger() []byte { return p.linkify.Trigger() }

// Parse implements parser.InlineParser.
func (p bareURLParser) Parse(parent ast.Node, block text.Reader, pc parser.Context) ast.Node {
	line, _ := block.PeekLine()
	if len(line) > 0 {
		switch line[0] {
		case ' ', '*', '_', '~', '(': // Linkify steps over one of these
			line = line[1:]
		}
	}
	if len(line) < 7 || line[0] != 'h' && line[0] != 'f' ||
		!bytes.HasPrefix(line, []byte("http://")) && !bytes.HasPrefix(line, []byte("https://")) &&
			!bytes.HasPrefix(line, []byte("ftp://")) {
		return nil
	}
	return p.linkify.Parse(parent, block, pc)
}

// wikilinkParser parses "[[...]]" and "![[...]]".
type wikilinkParser struct{}

// Trigger implements parser.InlineParser.
func (wikilinkParser) Trigger() []byte { return []byte{'!', '['} }

// Parse implements parser.InlineParser.
func (wikilinkParser) Parse(_ ast.Node, block text.Reader, _ parser.Context) ast.Node {
	line, seg := block.PeekLine()
	start := 0
	if len(line) > 0 && line[0] == '!' {
		start = 1
	}
	inner, n := scanWikilink(line[start:])
	if n == 0 {
		return nil
	}
	target, subpath, display, ok := splitWikilink(inner)
	if !ok {
		return nil
	}
	node := &wikilinkNode{Target: target, Subpath: subpath, Display: display, Embed: start == 1, end: seg.Start + start + n}
	node.SetPos(seg.Start)
	block.Advance(start + n)
	return node
}

// scanWikilink reads a wikilink at the start of s, which must begin with
// "[[". It returns the text between the brackets and the length consumed,
// or n == 0 when s does not start a wikilink. Like Obsidian, a wikilink
// stays on one line and cannot contain another "[["; text that starts with
// a third '[' is left to the next '[' so "[[[x]]]" links to "x". Stopping
// at the next "[[" also keeps a long run of unclosed brackets linear.
func scanWikilink(s []byte) (inner []byte, n int) {
	if len(s) < 5 || s[0] != '[' || s[1] != '[' || s[2] == '[' {
		return nil, 0
	}
	for i := 2; i+1 < len(s); i++ {
		switch s[i] {
		case '\n', '\r':
			return nil, 0
		case '[':
			if s[i+1] == '[' {
				return nil, 0
			}
		case ']':
			if s[i+1] == ']' {
				if i == 2 {
					return nil, 0
				}
				return s[2:i], i + 2
			}
		}
	}
	return nil, 0
}

// splitWikilink splits the inside of a wikilink into target, subpath and
// display text, each trimmed. The first '|' starts the display text; a
// backslash before it is dropped, because inside a table the pipe must be
// written "\|" ([[Note\|alias]]). The first '#' starts the subpath, which
// keeps any further '#' ("H1#H2") and a leading '^' for block links. ok is
// false when both target and subpath are empty ("[[ ]]", "[[#]]").
func splitWikilink(inner []byte) (target, subpath, display []byte, ok bool) {
	ref := inner
	if i := bytes.IndexByte(inner, '|'); i >= 0 {
		ref, display = inner[:i], inner[i+1:]
		if i > 0 && inner[i-1] == '\\' {
			ref = inner[:i-1]
		}
	}
	target = ref
	if i := bytes.IndexByte(ref, '#'); i >= 0 {
		target, subpath = ref[:i], ref[i+1:]
	}
	target = bytes.TrimSpace(target)
	subpath = bytes.TrimSpace(subpath)
	display = bytes.TrimSpace(display)
	return target, subpath, display, len(target) > 0 || len(subpath) > 0
}

// tagParser parses inline tags. Obsidian's rules: the '#' follows
// whitespace, the start of a line, or another tag ("#one#two"); the name
// runs until whitespace, ASCII punctuation other than '-', '_' and '/', or
// Unicode general or supplemental punctuation (U+2000-U+206F,
// U+2E00-U+2E7F); and a name of only digits ("#1984") is not a tag. So
// "foo#bar", "(#tag)", "**#tag**" and URL fragments are not tags, while
// "#日本語", "#тег" and emoji tags are. Headings never reach this parser:
// their "# " marker is consumed by the block parser.
type tagParser struct{}

// Trigger implements parser.InlineParser.
func (tagParser) Trigger() []byte { return []byte{'#'} }

// Parse implements parser.InlineParser.
func (tagParser) Parse(parent ast.Node, block text.Reader, _ parser.Context) ast.Node {
	line, seg := block.PeekLine()
	if len(line) < 2 || line[0] != '#' {
		return nil
	}
	if !tagMayStart(parent, block) {
		return nil
	}
	n := tagNameLength(line[1:])
	if n == 0 || isASCIIDigits(line[1:1+n]) {
		return nil
	}
	node := &tagNode{Name: line[1 : 1+n], end: seg.Start + 1 + n}
	node.SetPos(seg.Start)
	block.Advance(1 + n)
	return node
}

// tagMayStart reports whether the '#' at the reader's position may open a
// tag: after whitespace, at the start of a line of the block (inside a
// blockquote or a table cell the byte before is markup, not text), or
// right after another tag.
func tagMayStart(parent ast.Node, block text.Reader) bool {
	if unicode.IsSpace(block.PrecendingCharacter()) || atLineStart(parent, block) {
		return true
	}
	_, pos := block.Position()
	prev, ok := parent.LastChild().(*tagNode)
	return ok && prev.end == pos.Start
}

// atLineStart reports whether the reader is at the first byte of one of
// the block's lines, after any container markers ("> ", "- ", "| ").
func atLineStart(parent ast.Node, block text.Reader) bool {
	l, pos := block.Position()
	lines := parent.Lines()
	return l >= 0 && l < lines.Len() && pos.Start <= lines.At(l).Start
}

// tagASCII marks the ASCII bytes allowed in a tag name.
var tagASCII = func() (t [utf8.RuneSelf]bool) {
	for c := range utf8.RuneSelf {
		t[c] = c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' ||
			c == '-' || c == '_' || c == '/'
	}
	return t
}()

// tagNameLength returns how many bytes at the start of s form a tag name.
func tagNameLength(s []byte) int {
	n := 0
	for n < len(s) {
		if c := s[n]; c < utf8.RuneSelf {
			if !tagASCII[c] {
				break
			}
			n++
			continue
		}
		r, size := utf8.DecodeRune(s[n:])
		if unicode.IsSpace(r) || (r >= 0x2000 && r <= 0x206F) || (r >= 0x2E00 && r <= 0x2E7F) {
			break
		}
		n += size
	}
	return n
}

// isASCIIDigits reports whether s is all 0-9, the names Obsidian refuses
// as tags ("#123"); other scripts' digits make a valid tag, as in Obsidian.
func isASCIIDigits(s []byte) bool {
	for _, c := range s {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// blockIDParser parses "^block-id": Latin letters, digits and dashes after
// a caret that follows whitespace or starts a line, with nothing but
// whitespace after it on the line. Such an id names the paragraph or list
// item it ends; alone on a line after a blank line it names the block
// before (a quote, table or callout). Headings have no block ids in
// Obsidian, so none are read there.
type blockIDParser struct{}

// Trigger implements parser.InlineParser.
func (blockIDParser) Trigger() []byte { return []byte{'^'} }

// Parse implements parser.InlineParser.
func (blockIDParser) Parse(parent ast.Node, block text.Reader, _ parser.Context) ast.Node {
	if parent.Kind() == ast.KindHeading {
		return nil
	}
	line, seg := block.PeekLine()
	if len(line) < 2 || line[0] != '^' {
		return nil
	}
	// After white space, or right after a link or embed's "]]", which
	// Obsidian's own help vault does to name an embedded image.
	if prev := block.PrecendingCharacter(); prev != ' ' && prev != '\t' && prev != '\n' && prev != ']' && !atLineStart(parent, block) {
		return nil
	}
	n := 1
	for n < len(line) && isBlockIDByte(line[n]) {
		n++
	}
	if n == 1 {
		return nil
	}
	for _, c := range line[n:] {
		if c != ' ' && c != '\t' && c != '\n' && c != '\r' {
			return nil
		}
	}
	node := &blockIDNode{ID: line[1:n]}
	node.SetPos(seg.Start)
	block.Advance(n)
	return node
}

// isBlockIDByte reports whether c may be part of a block id: Obsidian
// allows only Latin letters, digits and dashes.
func isBlockIDByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-'
}

package vault

import (
	"context"
	"errors"
	"fmt"

	"github.com/yuin/goldmark/ast"
	extast "github.com/yuin/goldmark/extension/ast"
)

// Prose is one block of a note (a paragraph, heading, list item's text or
// table cell) as a reader sees it, with the parts of it that were written
// as plain words marked. Unlinked mentions are looked for in those parts
// only: a name inside a link, a code span, a tag or an embed is already a
// link or not prose at all.
type Prose struct {
	// Text is the block's plain text: links by their text, code spans
	// without backticks, line breaks as spaces.
	Text string
	// Free are the ranges of Text written as plain words, in order.
	Free []FreeText
	// Heading is the level of a heading, 0 for any other block.
	Heading int
}

// FreeText is a range of Prose.Text that was written as plain words.
type FreeText struct {
	Start, End int // byte offsets into Prose.Text
	Line       int // the 1-based file line the range starts on
}

// Prose reads the blocks of a note's body (frontmatter excluded) in file
// order, each with its plain words marked. Code blocks and HTML are left
// out whole. It parses within the same budget as Parse and fails as Parse
// does: with ctx's error, or an error wrapping ErrTooComplex. A panic
// inside the parser loses the prose of this note only.
func (p *Parser) Prose(ctx context.Context, src []byte) (out []Prose, err error) {
	defer func() {
		if recover() != nil {
			out = nil
		}
	}()
	src, _, _ = normalizeSource(src)
	lines := newLineIndex(src)
	bodyStart := 0
	if fm, ok := splitFrontmatter(src); ok {
		bodyStart = fm.bodyStart
	}
	doc, body, err := p.parseTree(ctx, src[bodyStart:])
	if err != nil {
		if errors.Is(err, errParserPanic) {
			return nil, nil
		}
		return nil, fmt.Errorf("read prose: %w", err)
	}
	_ = ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		switch n.(type) {
		case *ast.CodeBlock, *ast.FencedCodeBlock, *ast.HTMLBlock:
			return ast.WalkSkipChildren, nil
		case *ast.Paragraph, *ast.TextBlock, *ast.Heading, *extast.TableCell:
			b := proseBuilder{body: body, base: bodyStart, lines: &lines}
			b.add(n)
			if len(b.text) > 0 {
				p := Prose{Text: string(b.text), Free: b.free}
				if h, ok := n.(*ast.Heading); ok {
					p.Heading = h.Level
				}
				out = append(out, p)
			}
			return ast.WalkSkipChildren, nil
		}
		return ast.WalkContinue, nil
	})
	return out, nil
}

// proseBuilder gathers one block's plain text and its free ranges.
type proseBuilder struct {
	body  []byte
	base  int
	lines *lineIndex
	text  []byte
	free  []FreeText
}

// add appends the inline content of n, as appendPlainText reads it, and
// marks the text nodes outside links and code as free.
func (b *proseBuilder) add(n ast.Node) {
	for c := n.FirstChild(); c != nil; c = c.NextSibling() {
		switch c := c.(type) {
		case *ast.Text:
			start := len(b.text)
			b.text = append(b.text, unescapeMarkdown(c.Segment.Value(b.body))...)
			b.markFree(start, c.Segment.Start)
			if c.SoftLineBreak() || c.HardLineBreak() {
				b.text = append(b.text, ' ')
			}
		case *ast.String:
			b.text = append(b.text, c.Value...)
		case *ast.Link, *ast.Image, *ast.CodeSpan, *ast.AutoLink, *ast.RawHTML, *blockIDNode, *wikilinkNode, *tagNode:
			// Shown, but not plain words.
			b.text = appendNodeText(b.text, c, b.body)
		default:
			b.add(c)
		}
	}
}

// markFree records text[start:] as free, joining it to the range before
// when the two touch (goldmark splits a run of words at characters that
// might have started markup).
func (b *proseBuilder) markFree(start, pos int) {
	if start == len(b.text) {
		return
	}
	if k := len(b.free); k > 0 && b.free[k-1].End == start {
		b.free[k-1].End = len(b.text)
		return
	}
	b.free = append(b.free, FreeText{Start: start, End: len(b.text), Line: b.lines.line(b.base + pos)})
}

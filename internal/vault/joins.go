package vault

import (
	"context"
	"fmt"

	"github.com/yuin/goldmark/ast"
	extast "github.com/yuin/goldmark/extension/ast"
)

// NeedsBlankLine reports whether text, put on the line after body (a
// note's Markdown after its frontmatter, ending with a line end), needs a
// blank line before it to stand as blocks of its own: after a quote (and
// so a callout), a list or a table, whose lines a reader (and Obsidian's
// editor) takes the next line to go on, but for items of the same list
// added to a list, which go on with it; and wherever it would be read
// into body's last block: the lazy
// continuation of a paragraph or a quote (and so a callout), a list going
// on, a row added to a table, a paragraph underlined into a heading. It
// compares the top-level blocks goldmark finds in body and text apart with
// those it finds in them together, so whatever Obsidian reads as one block
// counts, with no list of cases kept here. It fails as Parse does.
func (p *Parser) NeedsBlankLine(ctx context.Context, body, text []byte) (bool, error) {
	var first, last ast.Node
	count := func(src []byte) (int, error) {
		src, _, _ = normalizeSource(src)
		doc, _, err := p.parseTree(ctx, src)
		if err != nil {
			return 0, fmt.Errorf("parse: %w", err)
		}
		first, last = doc.FirstChild(), doc.LastChild()
		return doc.ChildCount(), nil
	}
	apart, err := count(body)
	if err != nil {
		return false, err
	}
	ends := last
	more, err := count(text)
	if err != nil {
		return false, err
	}
	if ends != nil {
		switch ends.Kind() {
		case ast.KindList:
			// Items of the same list added to it go on with it, as a
			// reader adding to a list means them to; anything else
			// stands apart.
			return !sameList(ends, first), nil
		case ast.KindBlockquote, extast.KindTable:
			return true, nil
		}
	}
	together, err := count(append(append([]byte(nil), body...), text...))
	if err != nil {
		return false, err
	}
	return together < apart+more, nil
}

// sameList reports whether next, the first block of text added after a
// list, is a list of the same kind: bullets with the same marker, or
// numbers closed the same way. Markdown makes the two one list.
func sameList(list, next ast.Node) bool {
	a, ok1 := list.(*ast.List)
	b, ok2 := next.(*ast.List)
	return ok1 && ok2 && a.IsOrdered() == b.IsOrdered() && a.Marker == b.Marker
}

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
// editor) takes the next line to go on, and wherever it would be read
// into body's last block: the lazy
// continuation of a paragraph or a quote (and so a callout), a list going
// on, a row added to a table, a paragraph underlined into a heading. It
// compares the top-level blocks goldmark finds in body and text apart with
// those it finds in them together, so whatever Obsidian reads as one block
// counts, with no list of cases kept here. It fails as Parse does.
func (p *Parser) NeedsBlankLine(ctx context.Context, body, text []byte) (bool, error) {
	var last ast.Node
	count := func(src []byte) (int, error) {
		src, _, _ = normalizeSource(src)
		doc, _, err := p.parseTree(ctx, src)
		if err != nil {
			return 0, fmt.Errorf("parse: %w", err)
		}
		last = doc.LastChild()
		return doc.ChildCount(), nil
	}
	apart, err := count(body)
	if err != nil {
		return false, err
	}
	if last != nil {
		switch last.Kind() {
		case ast.KindBlockquote, ast.KindList, extast.KindTable:
			return true, nil
		}
	}
	more, err := count(text)
	if err != nil {
		return false, err
	}
	together, err := count(append(append([]byte(nil), body...), text...))
	if err != nil {
		return false, err
	}
	return together < apart+more, nil
}

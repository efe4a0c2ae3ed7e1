package bases

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Error is a problem with an expression: which expression, where in it
// (Column counts characters from 1; 0 when the problem is not at one place)
// and what was wrong or expected.
type Error struct {
	Expr   string
	Column int
	Msg    string
	// evaluating is set for a problem met while evaluating against a
	// file, unset for an expression refused when read (RefusedWhenRead).
	evaluating bool
}

// RefusedWhenRead reports whether err holds an expression refused when it
// was read, before any file was looked at: the expression as written is
// wrong (a syntax error, an unknown field or function), so whoever gave
// it must change it. An error met while evaluating is not one.
func RefusedWhenRead(err error) bool {
	var e *Error
	return errors.As(err, &e) && !e.evaluating
}

func (e *Error) Error() string {
	// Expressions are full of double quotes, so they read best between
	// backquotes; one that holds a backquote or a line break is quoted.
	expr := "`" + e.Expr + "`"
	if strings.ContainsAny(e.Expr, "`\n\r") {
		expr = strconv.Quote(e.Expr)
	}
	if e.Column > 0 {
		return fmt.Sprintf("expression %s, column %d: %s", expr, e.Column, e.Msg)
	}
	return fmt.Sprintf("expression %s: %s", expr, e.Msg)
}

func errAt(src string, pos int, msg string) *Error {
	if pos > len(src) {
		pos = len(src)
	}
	return &Error{Expr: src, Column: utf8.RuneCountInString(src[:pos]) + 1, Msg: msg}
}

// node is an expression tree node; pos is the byte offset it starts at.
type node interface{ position() int }

type (
	litNode struct {
		pos int
		v   Value
	}
	identNode struct {
		pos  int
		name string
	}
	memberNode struct {
		pos  int // of the name after the dot
		x    node
		name string
	}
	indexNode struct {
		pos   int
		x     node
		index node
	}
	callNode struct {
		pos  int
		fn   node // identNode for a global function, memberNode for a method
		args []node
	}
	unaryNode struct {
		pos int
		op  string
		x   node
	}
	binaryNode struct {
		pos  int // of the operator
		op   string
		l, r node
	}
	listNode struct {
		pos   int
		elems []node
	}
	objectNode struct {
		pos  int
		keys []string
		vals []node
	}
	regexpNode struct {
		pos int
		re  *Regexp
	}
)

func (n *litNode) position() int    { return n.pos }
func (n *identNode) position() int  { return n.pos }
func (n *memberNode) position() int { return n.pos }
func (n *indexNode) position() int  { return n.pos }
func (n *callNode) position() int   { return n.pos }
func (n *unaryNode) position() int  { return n.pos }
func (n *binaryNode) position() int { return n.pos }
func (n *listNode) position() int   { return n.pos }
func (n *objectNode) position() int { return n.pos }
func (n *regexpNode) position() int { return n.pos }

// Expr is a parsed expression, ready to evaluate any number of times.
type Expr struct {
	src  string
	root node
}

// String returns the expression's source text.
func (e *Expr) String() string { return e.src }

// maxNesting bounds how deeply parentheses, lists, calls and operators may
// nest, so that neither parsing nor evaluation can exhaust the stack.
const maxNesting = 100

// maxSource bounds the length of an expression.
const maxSource = 64 << 10

// Parse parses an expression such as `file.hasTag("book") && price > 2`.
func Parse(src string) (*Expr, error) {
	if len(src) > maxSource {
		return nil, &Error{Expr: src[:40] + "...", Msg: fmt.Sprintf("expression is longer than %d characters", maxSource)}
	}
	toks, err := lex(src)
	if err != nil {
		return nil, err
	}
	p := &parser{src: src, toks: toks}
	if p.peek().kind == tEOF {
		return nil, errAt(src, 0, "expected an expression, found nothing")
	}
	root, err := p.expr(0)
	if err != nil {
		return nil, err
	}
	if t := p.peek(); t.kind != tEOF {
		return nil, errAt(src, t.pos, fmt.Sprintf("expected an operator or the end of the expression, found %s", describe(t)))
	}
	if err := checkCalls(src, root); err != nil {
		return nil, err
	}
	if err := checkTypes(src, root); err != nil {
		return nil, err
	}
	return &Expr{src: src, root: root}, nil
}

// MustParse is Parse for expressions written in Go source; it panics on a
// malformed expression.
func MustParse(src string) *Expr {
	e, err := Parse(src)
	if err != nil {
		panic(err)
	}
	return e
}

type parser struct {
	src   string
	toks  []token
	i     int
	depth int
}

func (p *parser) peek() token { return p.toks[p.i] }
func (p *parser) next() token {
	t := p.toks[p.i]
	if t.kind != tEOF {
		p.i++
	}
	return t
}

func (p *parser) isPunct(s string) bool {
	t := p.peek()
	return t.kind == tPunct && t.text == s
}

func (p *parser) expect(s, what string) error {
	if !p.isPunct(s) {
		t := p.peek()
		return errAt(p.src, t.pos, fmt.Sprintf("expected %q %s, found %s", s, what, describe(t)))
	}
	p.next()
	return nil
}

func describe(t token) string {
	switch t.kind {
	case tEOF:
		return "the end of the expression"
	case tNumber:
		return "the number " + t.text
	case tString:
		return fmt.Sprintf("the text %q", t.text)
	case tIdent:
		return fmt.Sprintf("the name %q", t.text)
	case tRegexp:
		return "a regular expression"
	}
	return fmt.Sprintf("%q", t.text)
}

// precedence of binary operators, as in JavaScript: higher binds tighter.
var precedence = map[string]int{
	"||": 1,
	"&&": 2,
	"==": 3, "!=": 3,
	"<": 4, ">": 4, "<=": 4, ">=": 4,
	"+": 5, "-": 5,
	"*": 6, "/": 6, "%": 6,
}

func (p *parser) enter(pos int) error {
	p.depth++
	if p.depth > maxNesting {
		return errAt(p.src, pos, fmt.Sprintf("expression nests more than %d levels deep", maxNesting))
	}
	return nil
}

// expr parses operators of at least the given precedence (precedence
// climbing); every binary operator is left-associative.
func (p *parser) expr(min int) (node, error) {
	if err := p.enter(p.peek().pos); err != nil {
		return nil, err
	}
	defer func() { p.depth-- }()
	left, err := p.unary()
	if err != nil {
		return nil, err
	}
	for {
		t := p.peek()
		prec, ok := precedence[t.text]
		if t.kind != tPunct || !ok || prec < min {
			return left, nil
		}
		p.next()
		if p.peek().kind == tEOF {
			return nil, errAt(p.src, p.peek().pos, fmt.Sprintf("expected a value after %q", t.text))
		}
		right, err := p.expr(prec + 1)
		if err != nil {
			return nil, err
		}
		left = &binaryNode{pos: t.pos, op: t.text, l: left, r: right}
	}
}

func (p *parser) unary() (node, error) {
	t := p.peek()
	if t.kind == tPunct && (t.text == "!" || t.text == "-" || t.text == "+") {
		p.next()
		if err := p.enter(t.pos); err != nil {
			return nil, err
		}
		defer func() { p.depth-- }()
		x, err := p.unary()
		if err != nil {
			return nil, err
		}
		return &unaryNode{pos: t.pos, op: t.text, x: x}, nil
	}
	return p.postfix()
}

func (p *parser) postfix() (node, error) {
	x, err := p.primary()
	if err != nil {
		return nil, err
	}
	for n := 0; ; n++ {
		if n > maxNesting {
			return nil, errAt(p.src, p.peek().pos, fmt.Sprintf("more than %d calls and fields in a chain", maxNesting))
		}
		t := p.peek()
		switch {
		case p.isPunct("."):
			p.next()
			name := p.next()
			if name.kind != tIdent {
				return nil, errAt(p.src, name.pos, fmt.Sprintf("expected a field or function name after \".\", found %s", describe(name)))
			}
			x = &memberNode{pos: name.pos, x: x, name: name.text}
		case p.isPunct("["):
			p.next()
			if err := p.enter(t.pos); err != nil {
				return nil, err
			}
			idx, err := p.expr(0)
			p.depth--
			if err != nil {
				return nil, err
			}
			if err := p.expect("]", "to close the index"); err != nil {
				return nil, err
			}
			x = &indexNode{pos: t.pos, x: x, index: idx}
		case p.isPunct("("):
			switch x.(type) {
			case *identNode, *memberNode:
			default:
				return nil, errAt(p.src, t.pos, "only a function name can be called with (...)")
			}
			p.next()
			args, err := p.list(")", t.pos, "to close the arguments")
			if err != nil {
				return nil, err
			}
			x = &callNode{pos: x.position(), fn: x, args: args}
		default:
			return x, nil
		}
	}
}

// list parses comma-separated expressions up to the closing punctuation;
// a trailing comma is allowed, as in JavaScript.
func (p *parser) list(closing string, pos int, what string) ([]node, error) {
	if err := p.enter(pos); err != nil {
		return nil, err
	}
	defer func() { p.depth-- }()
	var out []node
	for !p.isPunct(closing) {
		if p.peek().kind == tEOF {
			return nil, errAt(p.src, p.peek().pos, fmt.Sprintf("expected %q %s, found the end of the expression", closing, what))
		}
		e, err := p.expr(0)
		if err != nil {
			return nil, err
		}
		out = append(out, e)
		if p.isPunct(",") {
			p.next()
			continue
		}
		if !p.isPunct(closing) {
			t := p.peek()
			return nil, errAt(p.src, t.pos, fmt.Sprintf("expected \",\" or %q %s, found %s", closing, what, describe(t)))
		}
	}
	p.next()
	return out, nil
}

func (p *parser) primary() (node, error) {
	t := p.next()
	switch t.kind {
	case tNumber:
		return &litNode{pos: t.pos, v: Number(t.num)}, nil
	case tString:
		return &litNode{pos: t.pos, v: String(t.text)}, nil
	case tRegexp:
		re, err := compileRegexp(t.re[0], t.re[1])
		if err != nil {
			return nil, regexpErrAt(p.src, t.pos, err)
		}
		return &regexpNode{pos: t.pos, re: re}, nil
	case tIdent:
		switch t.text {
		case "true":
			return &litNode{pos: t.pos, v: Bool(true)}, nil
		case "false":
			return &litNode{pos: t.pos, v: Bool(false)}, nil
		case "null":
			return &litNode{pos: t.pos, v: Null{}}, nil
		}
		return &identNode{pos: t.pos, name: t.text}, nil
	case tPunct:
		switch t.text {
		case "(":
			if err := p.enter(t.pos); err != nil {
				return nil, err
			}
			defer func() { p.depth-- }()
			if p.isPunct(")") {
				return nil, errAt(p.src, p.peek().pos, "expected an expression inside the parentheses")
			}
			x, err := p.expr(0)
			if err != nil {
				return nil, err
			}
			if err := p.expect(")", "to close the parenthesis opened at column "+fmt.Sprint(utf8.RuneCountInString(p.src[:t.pos])+1)); err != nil {
				return nil, err
			}
			return x, nil
		case "[":
			elems, err := p.list("]", t.pos, "to close the list")
			if err != nil {
				return nil, err
			}
			return &listNode{pos: t.pos, elems: elems}, nil
		case "{":
			return p.object(t)
		}
	}
	if t.kind == tEOF {
		return nil, errAt(p.src, t.pos, "expected a value, found the end of the expression")
	}
	return nil, errAt(p.src, t.pos, fmt.Sprintf("expected a value, found %s", describe(t)))
}

// object parses {"key": value, name: value}.
func (p *parser) object(open token) (node, error) {
	if err := p.enter(open.pos); err != nil {
		return nil, err
	}
	defer func() { p.depth-- }()
	o := &objectNode{pos: open.pos}
	for !p.isPunct("}") {
		k := p.next()
		if k.kind != tString && k.kind != tIdent {
			return nil, errAt(p.src, k.pos, fmt.Sprintf("expected a key (a name or quoted text) in the object, found %s", describe(k)))
		}
		if err := p.expect(":", "after the key "+fmt.Sprintf("%q", k.text)); err != nil {
			return nil, err
		}
		v, err := p.expr(0)
		if err != nil {
			return nil, err
		}
		o.keys = append(o.keys, k.text)
		o.vals = append(o.vals, v)
		if p.isPunct(",") {
			p.next()
			continue
		}
		if !p.isPunct("}") {
			t := p.peek()
			return nil, errAt(p.src, t.pos, fmt.Sprintf("expected \",\" or \"}\" to close the object, found %s", describe(t)))
		}
	}
	p.next()
	return o, nil
}

// checkCalls reports a call of a function that does not exist, or with a
// number of arguments the function takes on no kind of value: an error of
// the expression itself, whatever the file it is evaluated for, so it is
// found when the expression is read rather than once per file (and not
// passed over on the files where the value it is called on is missing).
func checkCalls(src string, n node) error {
	var err error
	walk(n, func(n node) {
		c, ok := n.(*callNode)
		if !ok || err != nil {
			return
		}
		switch fn := c.fn.(type) {
		case *identNode:
			if s, ok := globals[fn.name]; ok || fn.name == "if" {
				if fn.name == "if" {
					s = ifSpec
				}
				if msg := arityProblem(fn.name, s, len(c.args)); msg != "" {
					err = errAt(src, c.pos, msg)
				}
				return
			}
			if isMethodName(fn.name) {
				err = errAt(src, c.pos, fmt.Sprintf("%q is called on a value, as in x.%s(...)", fn.name, fn.name))
				return
			}
			err = errAt(src, c.pos, fmt.Sprintf("unknown function %q", fn.name))
		case *memberNode:
			if !isMethodName(fn.name) {
				err = errAt(src, c.pos, fmt.Sprintf("unknown function %q", fn.name))
				return
			}
			if msg := methodArityProblem(fn.name, len(c.args)); msg != "" {
				err = errAt(src, c.pos, msg)
			}
		}
	})
	return err
}

// walk calls visit for n and every node beneath it.
func walk(n node, visit func(node)) {
	if n == nil {
		return
	}
	visit(n)
	switch n := n.(type) {
	case *memberNode:
		walk(n.x, visit)
	case *indexNode:
		walk(n.x, visit)
		walk(n.index, visit)
	case *callNode:
		walk(n.fn, visit)
		for _, a := range n.args {
			walk(a, visit)
		}
	case *unaryNode:
		walk(n.x, visit)
	case *binaryNode:
		walk(n.l, visit)
		walk(n.r, visit)
	case *listNode:
		for _, x := range n.elems {
			walk(x, visit)
		}
	case *objectNode:
		for _, x := range n.vals {
			walk(x, visit)
		}
	}
}

package bases

import "slices"

// Need is a condition met by every file a filter lets through or fails
// on. A caller that keeps its files indexed by property, tag and folder
// can evaluate the filter on the files that meet it alone and get the
// same answer (the same files, the same errors) as from all of them,
// without evaluating anything for the rest.
//
// It is worked out from a filter's simple statements joined by and/or:
// a note property read or compared with a value that does not depend on
// the file, and file.hasProperty, file.hasTag and file.inFolder with
// their arguments written out. Anything else needs nothing (NeedAll).
type Need struct {
	Kind NeedKind
	// Subs are the needs of NeedAnd (every one) and NeedOr (at least
	// one; none passes no file).
	Subs []Need
	// Property is the note property of NeedProperty: the file has it,
	// whatever its value.
	Property string
	// Value, when set, narrows NeedProperty: a file whose value of the
	// property is plain (PlainProperty) meets the need only when Value
	// says so of it. It is meant to be asked once for each distinct plain
	// value. Values that are not plain meet the need.
	Value func(raw any) bool
	// Tags are NeedTag's: the file has at least one of them, by the rule
	// of file.hasTag (HasTag).
	Tags []string
	// Folder is NeedFolder's: the file is in it, by the rule of
	// file.inFolder (InFolder).
	Folder string
}

// NeedKind says what a Need asks.
type NeedKind int

// The kinds of Need.
const (
	NeedAll NeedKind = iota // every file
	NeedAnd
	NeedOr
	NeedProperty
	NeedTag
	NeedFolder
)

// PlainProperty says whether a frontmatter value, as File.Properties
// holds it, reads the same in every note: text that is not a wikilink,
// numbers, booleans and null. (A wikilink is a link from the note it is
// written in; lists and objects hold such values.) Plain values can be
// compared as map keys, one distinct value at a time.
func PlainProperty(raw any) bool {
	switch x := raw.(type) {
	case nil, bool, float64, int, int64:
		return true
	case string:
		return !isWikilink(x)
	}
	return false
}

// Need is what a file must meet to pass the filter or to fail on it,
// evaluated in env (for the time zone of dates and for the values that do
// not depend on the file). A nil filter needs nothing.
func (f *Filter) Need(env *Env) Need {
	if env == nil {
		env = &Env{}
	}
	n, _ := f.need(env)
	return n
}

// need returns the filter's Need and whether evaluating it may fail on
// some file. A filter evaluates its statements in order and stops at the
// first that fails, so the files it fails on are among those that met
// every statement before.
func (f *Filter) need(env *Env) (Need, bool) {
	switch {
	case f == nil:
		return Need{}, false
	case f.Expr != nil:
		if height(f.Expr.root) > maxDepth {
			// Evaluation may stop at the depth bound anywhere in the
			// tree; below it, no simple statement reaches it.
			return Need{}, true
		}
		return f.Expr.need(env, f.Expr.root)
	case f.And != nil:
		var out Need
		for _, g := range f.And {
			n, mayFail := g.need(env)
			out = both(out, n)
			if mayFail {
				return out, true
			}
		}
		return out, false
	case f.Or != nil:
		subs := make([]Need, 0, len(f.Or))
		fails := false
		for _, g := range f.Or {
			n, mayFail := g.need(env)
			subs = append(subs, n)
			fails = fails || mayFail
		}
		return either(subs), fails
	}
	// Not: a file passes when its statements do not, which no index
	// narrows.
	return Need{}, true
}

// need is the Need of the part n of the expression, in a place where it
// is read as true or false (the expression itself, or a side of && and
// ||), with whether evaluating it may fail.
func (x *Expr) need(env *Env, n node) (Need, bool) {
	switch n := n.(type) {
	case *binaryNode:
		switch n.op {
		case "&&":
			// The right side is evaluated only when the left is true.
			l, mayFail := x.need(env, n.l)
			if mayFail {
				return l, true
			}
			r, mayFail := x.need(env, n.r)
			return both(l, r), mayFail
		case "||":
			l, lf := x.need(env, n.l)
			r, rf := x.need(env, n.r)
			return either([]Need{l, r}), lf || rf
		}
		return x.comparisonNeed(env, n)
	case *callNode:
		return fileCallNeed(n)
	}
	if name, ok := propertyRead(n); ok {
		loc := (&evaluator{env: env}).loc()
		return Need{Kind: NeedProperty, Property: name, Value: func(raw any) bool {
			return Truthy(FromAny(raw, "", loc))
		}}, false
	}
	return Need{}, true
}

// comparisonNeed is the Need of a note property compared with a value
// that does not depend on the file (`status == "active"`, `due <
// date("2026-01-01")`): a file without the property compares as null,
// and a file whose value is plain compares as that value does.
func (x *Expr) comparisonNeed(env *Env, n *binaryNode) (Need, bool) {
	e := &evaluator{env: env, src: x.src}
	if _, ok := e.comparison(n.op, Null{}, Null{}); !ok {
		return Need{}, true // not a comparison: arithmetic, which may fail
	}
	name, ok := propertyRead(n.l)
	other, propLeft := n.r, true
	if !ok {
		if name, ok = propertyRead(n.r); !ok {
			return Need{}, true
		}
		other, propLeft = n.l, false
	}
	k, ok := x.constant(env, other)
	if !ok {
		_, isProp := propertyRead(other)
		return Need{}, !isProp
	}
	test := func(v Value) bool {
		l, r := v, k
		if !propLeft {
			l, r = k, v
		}
		b, _ := e.comparison(n.op, l, r)
		return bool(b)
	}
	if test(Null{}) {
		return Need{}, false // a note without the property passes
	}
	loc := e.loc()
	return Need{Kind: NeedProperty, Property: name, Value: func(raw any) bool {
		return test(FromAny(raw, "", loc))
	}}, false
}

// fileCallNeed is the Need of file.hasProperty, file.hasTag and
// file.inFolder called with text written out.
func fileCallNeed(n *callNode) (Need, bool) {
	m, ok := n.fn.(*memberNode)
	if !ok {
		return Need{}, true
	}
	if id, ok := m.x.(*identNode); !ok || id.name != "file" {
		return Need{}, true
	}
	args := make([]string, len(n.args))
	for i, a := range n.args {
		l, ok := a.(*litNode)
		if !ok {
			return Need{}, true
		}
		s, ok := l.v.(String)
		if !ok {
			return Need{}, true
		}
		args[i] = string(s)
	}
	switch {
	case m.name == "hasTag" && len(args) > 0:
		return Need{Kind: NeedTag, Tags: args}, false
	case m.name == "inFolder" && len(args) == 1:
		return Need{Kind: NeedFolder, Folder: args[0]}, false
	case m.name == "hasProperty" && len(args) == 1:
		return Need{Kind: NeedProperty, Property: args[0]}, false
	}
	return Need{}, true
}

// propertyRead says whether n reads a note property of the file, and
// which: `status`, `note.status`, `note["due date"]`. (A filter has no
// names of its own in scope, such as a lambda's `value`.)
func propertyRead(n node) (string, bool) {
	switch n := n.(type) {
	case *identNode:
		switch n.name {
		case "file", "this", "note", "formula":
			return "", false
		}
		return n.name, true
	case *memberNode:
		if id, ok := n.x.(*identNode); ok && id.name == "note" {
			return n.name, true
		}
	case *indexNode:
		if id, ok := n.x.(*identNode); ok && id.name == "note" {
			if l, ok := n.index.(*litNode); ok {
				if s, ok := l.v.(String); ok {
					return string(s), true
				}
			}
		}
	}
	return "", false
}

// constant evaluates n when its value cannot depend on the file:
// literals, and operators and the global functions below over them. ok is
// false when it may depend on the file, or fails. (What it takes is
// bounded by its size, far below the step and memory bounds of an
// evaluation.)
func (x *Expr) constant(env *Env, n node) (Value, bool) {
	if !fileFree(n, !env.Now.IsZero()) {
		return nil, false
	}
	e := &evaluator{env: env, src: x.src}
	v, err := e.eval(n)
	if err != nil {
		return nil, false
	}
	return v, true
}

// fileFreeFuncs are the global functions whose value depends on their
// arguments and the Env alone (now and today on its time when set).
var fileFreeFuncs = map[string]bool{"date": true, "duration": true, "number": true, "list": true, "max": true, "min": true, "now": true, "today": true}

// fileFree says whether n's value depends on nothing but the Env: no
// property, file, this, formula or method, no clock when clock is false
// (Env.Now unset reads it), no random().
func fileFree(n node, clock bool) bool {
	switch n := n.(type) {
	case *litNode:
		return true
	case *unaryNode:
		return fileFree(n.x, clock)
	case *binaryNode:
		return fileFree(n.l, clock) && fileFree(n.r, clock)
	case *listNode:
		for _, el := range n.elems {
			if !fileFree(el, clock) {
				return false
			}
		}
		return true
	case *callNode:
		id, ok := n.fn.(*identNode)
		if !ok || !fileFreeFuncs[id.name] || (!clock && (id.name == "now" || id.name == "today")) {
			return false
		}
		for _, a := range n.args {
			if !fileFree(a, clock) {
				return false
			}
		}
		return true
	}
	return false
}

// height is the number of levels of the tree under n, n included.
func height(n node) int {
	h := 0
	switch n := n.(type) {
	case *memberNode:
		h = height(n.x)
	case *indexNode:
		h = max(height(n.x), height(n.index))
	case *callNode:
		h = height(n.fn)
		for _, a := range n.args {
			h = max(h, height(a))
		}
	case *unaryNode:
		h = height(n.x)
	case *binaryNode:
		h = max(height(n.l), height(n.r))
	case *listNode:
		for _, el := range n.elems {
			h = max(h, height(el))
		}
	case *objectNode:
		for _, v := range n.vals {
			h = max(h, height(v))
		}
	}
	return h + 1
}

// both is the need of two statements that must both hold.
func both(a, b Need) Need {
	switch {
	case a.Kind == NeedAll:
		return b
	case b.Kind == NeedAll:
		return a
	case a.Kind == NeedAnd:
		return Need{Kind: NeedAnd, Subs: append(append([]Need{}, a.Subs...), b)}
	}
	return Need{Kind: NeedAnd, Subs: []Need{a, b}}
}

// either is the need of statements of which one must hold.
func either(subs []Need) Need {
	for _, s := range subs {
		if s.Kind == NeedAll {
			return Need{}
		}
	}
	return Need{Kind: NeedOr, Subs: subs}
}

// Properties are the note properties the filter reads by name (`owner`,
// `note.owner`, `note["due date"]`), each once, in the order written: for
// a caller to say which of them no file has. A function's own name (`link`
// in link("Ana")) is none, nor are `value`, `index` and `acc` in the
// expression of filter, map or reduce.
func (f *Filter) Properties() []string {
	var out []string
	var add func(g *Filter)
	add = func(g *Filter) {
		if g == nil {
			return
		}
		if g.Expr != nil {
			readProperties(g.Expr.root, false, &out)
		}
		for _, gs := range [][]*Filter{g.And, g.Or, g.Not} {
			for _, h := range gs {
				add(h)
			}
		}
	}
	add(f)
	return out
}

// readProperties adds to out the properties n reads (propertyRead);
// inLambda is set within a list function's expression, where `value`,
// `index` and `acc` are the function's own.
func readProperties(n node, inLambda bool, out *[]string) {
	if id, ok := n.(*identNode); ok && inLambda && (id.name == "value" || id.name == "index" || id.name == "acc") {
		return
	}
	if name, ok := propertyRead(n); ok {
		if !slices.Contains(*out, name) {
			*out = append(*out, name)
		}
		return
	}
	switch n := n.(type) {
	case *memberNode:
		readProperties(n.x, inLambda, out)
	case *indexNode:
		readProperties(n.x, inLambda, out)
		readProperties(n.index, inLambda, out)
	case *callNode:
		lambda := false
		if m, ok := n.fn.(*memberNode); ok {
			readProperties(m.x, inLambda, out)
			_, lambda = lambdas[m.name]
		}
		for _, a := range n.args {
			readProperties(a, inLambda || lambda, out)
		}
	case *unaryNode:
		readProperties(n.x, inLambda, out)
	case *binaryNode:
		readProperties(n.l, inLambda, out)
		readProperties(n.r, inLambda, out)
	case *listNode:
		for _, x := range n.elems {
			readProperties(x, inLambda, out)
		}
	case *objectNode:
		for _, x := range n.vals {
			readProperties(x, inLambda, out)
		}
	}
}

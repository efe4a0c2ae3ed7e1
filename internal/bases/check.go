package bases

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/jarvis-mcp/jarvis/internal/words"
)

// field is a field of a kind of value and the kind of value it gives.
type field struct {
	name string
	kind Kind
}

// fieldsOf are the fields of each kind of value whose fields are fixed, in
// the order messages list them. Objects, links and null are not here: an
// object has the fields it holds, a link those of the file it points to
// (or none), and every field of null is null. A kind of value not here and
// not one of those has no fields.
var fieldsOf = map[Kind][]field{
	KindString: {{"length", KindNumber}},
	KindList:   {{"length", KindNumber}},
	KindDate: {{"year", KindNumber}, {"month", KindNumber}, {"day", KindNumber}, {"hour", KindNumber},
		{"minute", KindNumber}, {"second", KindNumber}, {"millisecond", KindNumber}},
	KindFile: {{"name", KindString}, {"basename", KindString}, {"path", KindString}, {"folder", KindString},
		{"ext", KindString}, {"size", KindNumber}, {"ctime", KindDate}, {"mtime", KindDate},
		{"tags", KindList}, {"links", KindList}, {"embeds", KindList}, {"backlinks", KindList},
		{"properties", KindObject}, {"file", KindFile}},
}

// openFields says whether a kind of value has fields that are only known
// when the expression is evaluated.
func openFields(k Kind) bool {
	return k == KindObject || k == KindLink || k == KindNull
}

// fieldNames lists the fields of a kind of value.
func fieldNames(k Kind) []string {
	var out []string
	for _, f := range fieldsOf[k] {
		out = append(out, f.name)
	}
	return out
}

// hasMethod says whether the function name can be called on a value of
// kind k.
func hasMethod(k Kind, name string) bool {
	if _, ok := lambdas[name]; ok && k == KindList {
		return true
	}
	if _, ok := methods[k][name]; ok {
		return true
	}
	_, ok := anyMethods[name]
	return ok
}

// kindWord is a kind of value in words for messages ("a number", "a list").
func kindWord(k Kind) string {
	switch k {
	case KindNull:
		return "null"
	case KindObject, KindImage, KindIcon:
		return "an " + string(k)
	case KindHTML:
		return "HTML"
	}
	return "a " + string(k)
}

// noField words what is wrong with asking a value of kind k (whose fields
// are fixed) for a field it does not have: a function called without
// parentheses, or a field misspelt, with the nearest field or function.
// Evaluation and the parse-time check both word it here.
func noField(k Kind, name string) string {
	if hasMethod(k, name) {
		return fmt.Sprintf("%s() is a function: call it with parentheses, as in .%s()", name, name)
	}
	var msg string
	switch names := fieldNames(k); {
	case k == KindDuration:
		msg = fmt.Sprintf("%s has no field %q; it has no fields, and its functions are %s; for a number of days, divide it: (a - b) / duration(\"1d\")", kindWord(k), name, durationFunctions())
	case len(names) > 1:
		msg = fmt.Sprintf("%s has no field %q (fields: %s)", kindWord(k), name, strings.Join(names, ", "))
	default:
		msg = fmt.Sprintf("%s has no field %q", kindWord(k), name)
	}
	candidates := fieldNames(k)
	for m := range methods[k] {
		candidates = append(candidates, m)
	}
	if k == KindList {
		for m := range lambdas {
			candidates = append(candidates, m)
		}
	}
	slices.Sort(candidates)
	switch best := words.Nearest(name, candidates, 2); {
	case best == "":
	case hasMethod(k, best):
		msg += fmt.Sprintf("; did you mean %s()?", best)
	default:
		msg += fmt.Sprintf("; did you mean %q?", best)
	}
	return msg
}

// wrongMethod words a function called on a kind of value it does not work
// on.
func wrongMethod(k Kind, name string) string {
	return fmt.Sprintf("%s() does not work on %s; it works on %s", name, kindWord(k), methodOwners(name))
}

// checkTypes finds, when the expression is read, the mistakes that do not
// depend on the file it is evaluated for: a field or function asked of a
// value whose kind is known from the expression alone (file.name is text,
// now() a date, "abc" text) that values of that kind do not have, and text
// that cannot be read as a duration or a date where the expression itself
// writes it. Such a mistake would otherwise be found once per file and
// reported as if it were that file's.
func checkTypes(src string, root node) error {
	c := &typeChecker{src: src}
	c.kind(root)
	return c.err
}

type typeChecker struct {
	src string
	err error
}

func (c *typeChecker) fail(n node, msg string) {
	if c.err == nil {
		c.err = errAt(c.src, n.position(), msg)
	}
}

// kind is the kind of value n gives whatever the file, "" when that is only
// known by evaluating it; it checks n and everything beneath it.
func (c *typeChecker) kind(n node) Kind {
	switch n := n.(type) {
	case *litNode:
		return n.v.Kind()
	case *regexpNode:
		return KindRegexp
	case *identNode:
		if n.name == "file" {
			return KindFile
		}
	case *memberNode:
		if id, ok := n.x.(*identNode); ok {
			switch {
			case id.name == "note" || id.name == "formula":
				return ""
			case id.name == "this" && n.name == "file":
				return KindFile
			}
		}
		return c.field(n, c.kind(n.x))
	case *indexNode:
		c.kind(n.x)
		c.kind(n.index)
	case *callNode:
		return c.call(n)
	case *unaryNode:
		k := c.kind(n.x)
		switch {
		case n.op == "!":
			return KindBoolean
		case k == KindNumber || (n.op == "-" && k == KindDuration):
			return k
		}
	case *binaryNode:
		return c.binary(n)
	case *listNode:
		for _, x := range n.elems {
			c.kind(x)
		}
		return KindList
	case *objectNode:
		for _, x := range n.vals {
			c.kind(x)
		}
		return KindObject
	}
	return ""
}

func (c *typeChecker) field(n *memberNode, k Kind) Kind {
	if k == "" || openFields(k) {
		return ""
	}
	for _, f := range fieldsOf[k] {
		if f.name == n.name {
			return f.kind
		}
	}
	c.fail(n, noField(k, n.name))
	return ""
}

// resultOf is the kind of value a global function gives whatever its
// arguments, for those that always give one kind (or null, whose fields
// and functions are null too).
var resultOf = map[string]Kind{
	"now": KindDate, "today": KindDate, "date": KindDate, "duration": KindDuration,
	"number": KindNumber, "list": KindList, "random": KindNumber,
}

func (c *typeChecker) call(n *callNode) Kind {
	var recv Kind
	fn, isMethod := n.fn.(*memberNode)
	if isMethod {
		recv = c.kind(fn.x)
	}
	for _, a := range n.args {
		c.kind(a)
	}
	if isMethod {
		// Unknown functions and wrong numbers of arguments are
		// checkCalls's.
		if recv != "" && recv != KindNull && isMethodName(fn.name) && !hasMethod(recv, fn.name) {
			c.fail(n, wrongMethod(recv, fn.name))
		}
		return ""
	}
	name := n.fn.(*identNode).name
	if len(n.args) == 1 {
		if lit, ok := n.args[0].(*litNode); ok {
			if s, ok := lit.v.(String); ok {
				switch name {
				case "duration":
					if _, ok := parseDuration(string(s)); !ok {
						c.fail(lit, notReadableDuration(string(s)))
					}
				case "date":
					if _, ok := parseDate(string(s), time.UTC); !ok {
						c.fail(lit, notReadableDate(string(s)))
					}
				}
			}
		}
	}
	return resultOf[name]
}

func (c *typeChecker) binary(n *binaryNode) Kind {
	l, r := c.kind(n.l), c.kind(n.r)
	switch n.op {
	case "&&", "||", "==", "!=", "<", ">", "<=", ">=":
		return KindBoolean
	}
	switch {
	case l == KindDate && (n.op == "+" || n.op == "-"):
		if lit, ok := n.r.(*litNode); ok {
			if s, ok := lit.v.(String); ok {
				_, isDur, problem := dateOffset(n.op, string(s))
				if problem != "" {
					c.fail(n, problem)
				}
				if isDur {
					return KindDate
				}
				return KindString
			}
		}
		if r == KindDuration {
			return KindDate
		}
	case l == KindNumber && r == KindNumber:
		return KindNumber
	case n.op == "+" && (l == KindString || r == KindString):
		return KindString
	}
	return ""
}

package bases

import (
	"errors"
	"strings"
	"testing"
)

// TestParseErrors: a malformed expression is refused with the expression,
// the column of the problem and what was expected there.
func TestParseErrors(t *testing.T) {
	for _, tc := range []struct {
		name, src string
		column    int
		want      string
	}{
		{"empty", "", 1, "expected an expression"},
		{"dangling operator", "price >", 8, `expected a value after ">"`},
		{"unclosed parenthesis", "(1 + 2", 7, `expected ")" to close the parenthesis opened at column 1`},
		{"unclosed string", `status == "done`, 11, "no closing \""},
		{"unclosed list", "[1, 2", 6, `or "]" to close the list, found the end`},
		{"missing comma", "[1 2]", 4, `expected "," or "]"`},
		{"single equals", "status = 1", 8, "use == to compare"},
		{"single ampersand", "a & b", 3, "&& for and"},
		{"two values", "price 2", 7, "expected an operator or the end of the expression"},
		{"name after dot", "file.", 6, "expected a field or function name"},
		{"call a number", "1(2)", 2, "only a function name can be called"},
		{"unclosed regexp", "/abc", 1, "no closing /"},
		{"bad regexp flag", "/a/q", 1, `unknown regular expression flag "q"`},
		{"look-ahead", "/a(?=b)/", 3, "the look-ahead (?=...) is not supported"},
		{"object key", "{1: 2}", 2, "expected a key"},
		{"object colon", `{"a" 2}`, 6, `expected ":" after the key "a"`},
		{"bad hex escape", `"\x4"`, 2, "hexadecimal digits"},
		{"empty parentheses", "()", 2, "expected an expression inside the parentheses"},
		{"unknown character", "price # 2", 7, `unexpected character "#"`},
		// A function that does not exist is an error of the expression,
		// found when it is read, not once for each file it runs on.
		{"unknown function", "nosuch(status)", 1, "unknown function \"nosuch\""},
		{"unknown method", `status.nosuch()`, 8, "unknown function \"nosuch\""},
		{"unknown function in a lambda", `tags.filter(nosuch(value))`, 13, "unknown function \"nosuch\""},
		{"method called bare", `contains("a")`, 1, `"contains" is called on a value`},
		{"column counts characters", `"é" + `, 7, "expected a value"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse(tc.src)
			var pe *Error
			if !errors.As(err, &pe) {
				t.Fatalf("Parse(%q) error = %v, want an *Error", tc.src, err)
			}
			if pe.Column != tc.column || !strings.Contains(pe.Msg, tc.want) || pe.Expr != tc.src {
				t.Errorf("Parse(%q) = column %d %q, want column %d containing %q", tc.src, pe.Column, pe.Msg, tc.column, tc.want)
			}
			if !strings.Contains(err.Error(), tc.src) {
				t.Errorf("message %q does not name the expression", err.Error())
			}
		})
	}
}

// TestParseNesting: nesting is bounded, so a hostile expression cannot
// exhaust the stack.
func TestParseNesting(t *testing.T) {
	deep := strings.Repeat("(", 150) + "1" + strings.Repeat(")", 150)
	if _, err := Parse(deep); err == nil || !strings.Contains(err.Error(), "nests more than") {
		t.Fatalf("Parse(150 parentheses) error = %v, want a nesting error", err)
	}
	bangs := strings.Repeat("!", 500) + "true"
	if _, err := Parse(bangs); err == nil {
		t.Fatalf("Parse(500 !) succeeded, want a nesting error")
	}
	ok := strings.Repeat("(", 20) + "1" + strings.Repeat(")", 20)
	if _, err := Parse(ok); err != nil {
		t.Fatalf("Parse(20 parentheses): %v", err)
	}
	if _, err := Parse("/" + strings.Repeat("a", maxPattern+1) + "/"); err == nil || !strings.Contains(err.Error(), "longer than") {
		t.Fatalf("long pattern error = %v", err)
	}
}

// TestParseShapes: precedence and associativity, shown by the tree's
// printed form.
func TestParseShapes(t *testing.T) {
	for src, want := range map[string]string{
		"1 + 2 * 3":              "(1 + (2 * 3))",
		"(1 + 2) * 3":            "((1 + 2) * 3)",
		"1 - 2 - 3":              "((1 - 2) - 3)",
		"a || b && c":            "(a || (b && c))",
		"a == b < c":             "(a == (b < c))",
		"!a && -b":               "(!a && -b)",
		"-5.abs()":               "-5.abs()",
		"note[\"x y\"].length":   `note["x y"].length`,
		"x.slice(1, 2)[0]":       "x.slice(1, 2)[0]",
		"a / b / c":              "((a / b) / c)",
		"a / /b/.matches(c)":     "(a / /b/.matches(c))",
		"[1, [2], {\"k\": 3}]":   `[1, [2], {"k": 3}]`,
		"5.isEmpty()":            "5.isEmpty()",
		"1.5e3 + .5":             "(1500 + 0.5)",
		"'it\\'s' + \"\\u0041\"": `("it's" + "A")`,
	} {
		x, err := Parse(src)
		if err != nil {
			t.Errorf("Parse(%q): %v", src, err)
			continue
		}
		if got := printNode(x.root); got != want {
			t.Errorf("Parse(%q) = %s, want %s", src, got, want)
		}
	}
}

func printNode(n node) string {
	switch n := n.(type) {
	case *litNode:
		if s, ok := n.v.(String); ok {
			return `"` + string(s) + `"`
		}
		return Display(n.v)
	case *identNode:
		return n.name
	case *regexpNode:
		return Display(n.re)
	case *memberNode:
		return printNode(n.x) + "." + n.name
	case *indexNode:
		return printNode(n.x) + "[" + printNode(n.index) + "]"
	case *callNode:
		var args []string
		for _, a := range n.args {
			args = append(args, printNode(a))
		}
		return printNode(n.fn) + "(" + strings.Join(args, ", ") + ")"
	case *unaryNode:
		return n.op + printNode(n.x)
	case *binaryNode:
		return "(" + printNode(n.l) + " " + n.op + " " + printNode(n.r) + ")"
	case *listNode:
		var els []string
		for _, a := range n.elems {
			els = append(els, printNode(a))
		}
		return "[" + strings.Join(els, ", ") + "]"
	case *objectNode:
		var els []string
		for i, k := range n.keys {
			els = append(els, `"`+k+`": `+printNode(n.vals[i]))
		}
		return "{" + strings.Join(els, ", ") + "}"
	}
	return "?"
}

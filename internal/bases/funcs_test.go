package bases

import (
	"testing"
)

// TestSpecs: every function's spec is one checkArgs can use: the required
// parameters are among those listed, a repeated parameter exists, and a
// whole-number parameter takes numbers only.
func TestSpecs(t *testing.T) {
	all := map[string]spec{"if": ifSpec}
	for name, s := range globals {
		all[name+"()"] = s
	}
	for name, s := range anyMethods {
		all["any."+name+"()"] = s
	}
	for name, s := range lambdas {
		all["list."+name+"()"] = s
	}
	for k, m := range methods {
		for name, s := range m {
			all[string(k)+"."+name+"()"] = s
		}
	}
	for name, s := range all {
		if s.required > len(s.params) || s.repeats && len(s.params) == 0 {
			t.Errorf("%s: %d required of %d parameters, repeats %v", name, s.required, len(s.params), s.repeats)
		}
		for i, p := range s.params {
			if p.kinds != nil && p.want == "" {
				t.Errorf("%s: parameter %d takes some kinds but says not which", name, i+1)
			}
			if p.whole && (len(p.kinds) != 1 || p.kinds[0] != KindNumber) {
				t.Errorf("%s: whole-number parameter %d takes %v", name, i+1, p.kinds)
			}
		}
	}
}

// TestArgumentErrors: an argument of the wrong type is worded the same way
// by every function, "name() expects what here, got what", at the
// argument; values that have a text are taken where text is expected.
func TestArgumentErrors(t *testing.T) {
	v, book := testVault()
	env := testEnv(v, nil)
	for _, tc := range []struct {
		src    string
		column int
		want   string
	}{
		{`date([1])`, 6, `date() expects text such as "2025-01-31" here, got a list`},
		{`duration(true)`, 10, `duration() expects text such as "1d" here, got a boolean`},
		{`file(3)`, 6, "file() expects a path or a link here, got a number"},
		{`link([1])`, 6, "link() expects a path or a link here, got a list"},
		{`min(2, [1])`, 8, "min() expects a number or a date here, got a list"},
		{`escapeHTML(null)`, 12, "escapeHTML() expects text here, got null"},
		{`"a".isType([1])`, 12, "isType() expects text here, got a list"},
		{`"abc".contains(null)`, 16, "contains() expects text here, got null"},
		{`"abc".containsAll("a", [1])`, 24, "containsAll() expects text here, got a list"},
		{`"abc".replace([1], "x")`, 15, "replace() expects text or a regular expression here, got a list"},
		{`"abc".repeat(1.5e9)`, 14, "repeat() expects a number from 0 to 1048576 here, got 1500000000"},
		{`"abc".split(",", -1)`, 18, "split() expects a number from 0 to 100000 here, got -1"},
		{`"abc".slice("1")`, 13, "slice() expects a number here, got a string"},
		{`[1, 2].slice(0, "2")`, 17, "slice() expects a number here, got a string"},
		{`(1.5).round(101)`, 13, "round() expects a number from 0 to 100 here, got 101"},
		{`[1].join([","])`, 10, "join() expects text here, got a list"},
		{`file.hasLink(5)`, 14, "hasLink() expects a file, a link or a path here, got a number"},
		{`file.hasTag("a", {})`, 18, "hasTag() expects text here, got an object"},
		{`file.inFolder(file)`, 15, "inFolder() expects text here, got a file"},
		{`/a/.matches([1])`, 13, "matches() expects text here, got a list"},
		{`now().format(null)`, 14, "format() expects text here, got null"},
		{`[1].map()`, 5, "map() takes 1 argument, got 0"},
		{`[1].reduce(acc)`, 5, "reduce() takes 2 arguments, got 1"},
		{`file.asLink(1, 2)`, 6, "asLink() takes 0 to 1 arguments, got 2"},
		{`file.hasTag()`, 6, "hasTag() takes at least 1 argument, got 0"},
	} {
		_, err := evalString(t, env, book, tc.src)
		pe, ok := err.(*Error)
		if !ok {
			t.Errorf("%s: error = %v, want an *Error", tc.src, err)
			continue
		}
		if pe.Column != tc.column || pe.Msg != tc.want {
			t.Errorf("%s: got column %d %q,\nwant column %d %q", tc.src, pe.Column, pe.Msg, tc.column, tc.want)
		}
	}
	runEval(t, []evalCase{
		{`"a1".contains(1)`, "boolean:true"},
		{`"2025-01-31".startsWith(date("2025-01-31"))`, "boolean:true"},
		{`[1, 2].join(0)`, "string:102"},
		{`link(5).toString()`, "string:5"},
		{`"a,b".split(",", 1.9)`, "list:a"},
		{`"abc".slice(1, null)`, "string:bc"},
		{`/a/.matches(null)`, "boolean:false"},
		{`file.hasLink(null)`, "boolean:false"},
		{`max(null, 2, 5)`, "number:5"},
	})
}

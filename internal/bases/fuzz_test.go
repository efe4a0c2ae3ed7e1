package bases

import (
	"errors"
	"testing"
)

var fuzzSeeds = []string{
	`file.hasTag("book") && price > 2.1`,
	`if(price, price.toFixed(2) + " dollars")`,
	`(price / age).toFixed(2)`,
	`date("2024-12-01") + "1M" + "4h" + "3m"`,
	`now() - file.ctime`,
	`[1,2,3,4].filter(value > 2).map(value * index).reduce(acc + value, 0)`,
	`"John Smith".replace(/(\w+) (\w+)/g, "$2, $1").split(/,\s*/, 1)`,
	`{"a": [1, {"b": null}]}.a[1].b.isEmpty()`,
	`note["full name"].slice(-3).title().repeat(2)`,
	`authors.contains(this) || file.hasLink(this.file)`,
	`formula.x + 1`,
	`!(-5).abs() == -"3" % 0`,
	`'\u{1F600}\x41'.reverse().length`,
	`/[/]+/gimsuy.matches("//")`,
	`duration("1 year, 2 weeks") * 1.5 / 7`,
	`values.mean().round(3)`,
	`list(tags).unique().sort().join(", ")`,
	`5.isEmpty()`,
	`a..b`, `((`, `"unterminated`, `[1,`, `{a:}`, `x.y(`, `1e`, `.5.5`,
}

// FuzzParse: parsing never panics, and a failure is always an *Error whose
// column lies within the expression.
func FuzzParse(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, src string) {
		_, err := Parse(src)
		if err == nil {
			return
		}
		var pe *Error
		if !errors.As(err, &pe) {
			t.Fatalf("Parse(%q) error %T, want *Error", src, err)
		}
		if pe.Column < 0 || pe.Column > len([]rune(src))+1 {
			t.Fatalf("Parse(%q) column %d outside the expression", src, pe.Column)
		}
	})
}

// FuzzEval: evaluating any expression that parses, against a note with
// properties of every kind and formulas, never panics (the recover in
// EvalWith would turn a panic into an "internal error", which fails this
// test) and never runs past its bounds.
func FuzzEval(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add(s)
	}
	v, book := testVault()
	formulas, err := NewFormulas(map[string]string{"x": "price * 2", "y": "formula.x + age"})
	if err != nil {
		f.Fatal(err)
	}
	env := testEnv(v, v.Files[1])
	env.Formulas = formulas
	f.Fuzz(func(t *testing.T, src string) {
		x, err := Parse(src)
		if err != nil {
			return
		}
		val, err := x.EvalWith(env, book, map[string]Value{"values": List{Number(1), String("a"), Null{}}})
		if err != nil {
			var pe *Error
			if !errors.As(err, &pe) {
				t.Fatalf("Eval(%q) error %T, want *Error", src, err)
			}
			if len(pe.Msg) > 13 && pe.Msg[:14] == "internal error" {
				t.Fatalf("Eval(%q) panicked: %v", src, err)
			}
			return
		}
		_ = Display(val)
		_ = ToAny(val)
	})
}

// FuzzNeed: every file of the test vault that a filter lets through or
// fails on meets the filter's Need, read as its documentation says.
func FuzzNeed(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add(s)
	}
	for _, s := range []string{`status == "active" && file.hasTag("book")`, `price > 2 || file.inFolder("Books")`,
		`file.hasProperty("price") && (age < date("2024-01-01") || !x)`, `"a" != note["full name"]`} {
		f.Add(s)
	}
	v, _ := testVault()
	env := testEnv(v, v.Files[1])
	var meets func(n Need, file File) bool
	meets = func(n Need, file File) bool {
		switch n.Kind {
		case NeedAnd:
			for _, s := range n.Subs {
				if !meets(s, file) {
					return false
				}
			}
			return true
		case NeedOr:
			for _, s := range n.Subs {
				if meets(s, file) {
					return true
				}
			}
			return false
		case NeedProperty:
			raw, ok := file.Properties()[n.Property]
			return ok && (n.Value == nil || !PlainProperty(raw) || n.Value(raw))
		case NeedTag:
			for _, t := range n.Tags {
				if HasTag(file.Tags(), t) {
					return true
				}
			}
			return false
		case NeedFolder:
			return InFolder(file.Path(), n.Folder)
		}
		return true
	}
	f.Fuzz(func(t *testing.T, src string) {
		x, err := Parse(src)
		if err != nil {
			return
		}
		filter := &Filter{Expr: x}
		need := filter.Need(env)
		for _, file := range v.Files {
			ok, err := filter.Match(env, file)
			if (ok || err != nil) && !meets(need, file) {
				t.Fatalf("%s: %s passes (%v) or fails (%v) but does not meet the filter's need", src, file.Path(), ok, err)
			}
		}
	})
}

package bases

import (
	"errors"
	"strings"
	"testing"
)

// TestParseRefusesWhatTheKindLacks: a field or function asked of a value
// whose kind the expression alone tells (file.name is text, now() a date),
// and a duration written in the expression that does not read as one, are
// refused when the expression is read, at their column, with the nearest
// name; no file is involved.
func TestParseRefusesWhatTheKindLacks(t *testing.T) {
	for _, tc := range []struct {
		src    string
		column int
		want   string
	}{
		{`file.name.lenght > 3`, 11, `a string has no field "lenght"; did you mean "length"?`},
		{`file.mtime > now() - "1 fortnight"`, 20, `"1 fortnight" is not a duration; write a number and a unit, as in "1d", "2 weeks" or "3h"; ` +
			`the units are y, M, w, d, h, m, s, ms, or the words year, month, week, day, hour, minute, second, millisecond`},
		{`today() + "2 weks" > file.ctime`, 9, `"2 weks" is not a duration`},
		{`file.nmae == "a"`, 6, `a file has no field "nmae" (fields: name, basename, `},
		{`file.nmae == "a"`, 6, `; did you mean "name"?`},
		{`file.size.lenght`, 11, `a number has no field "lenght"`},
		{`file.tags.lenght`, 11, `a list has no field "lenght"; did you mean "length"?`},
		{`file.mtime.yaer == 2025`, 12, `a date has no field "yaer" (fields: year, month, `},
		{`date("2025-01-01").weekday`, 20, `a date has no field "weekday"`},
		{`"abc".lenght`, 7, `did you mean "length"?`},
		{`[1, 2].lenght`, 8, `did you mean "length"?`},
		{`this.file.nmae`, 11, `did you mean "name"?`},
		{`(file.size + 1).lenght`, 17, `a number has no field "lenght"`},
		{`(file.name + "x").lenght`, 19, `a string has no field`},
		{`duration("1d").days`, 16, `a duration has no field "days"; it has no fields`},
		{`file.name.lower`, 11, `lower() is a function: call it with parentheses`},
		{`file.name.lowr()`, 11, `unknown function "lowr"`},
		{`file.name.lowr`, 11, `did you mean lower()?`},
		{`file.mtime.lower()`, 12, `lower() does not work on a date; it works on text`},
		{`file.tags.filter(file.nmae)`, 23, `a file has no field "nmae"`},
		{`duration("1 fortnight")`, 10, `duration() cannot read "1 fortnight"; write a number and a unit`},
		{`date("soon") > file.mtime`, 6, `date() cannot read "soon" as a date`},
	} {
		_, err := Parse(tc.src)
		var pe *Error
		if !errors.As(err, &pe) {
			t.Errorf("Parse(%s) = %v, want it refused", tc.src, err)
			continue
		}
		if pe.Column != tc.column || !strings.Contains(pe.Msg, tc.want) || pe.Expr != tc.src {
			t.Errorf("Parse(%s) = column %d %q;\nwant column %d containing %q", tc.src, pe.Column, pe.Msg, tc.column, tc.want)
		}
	}
}

// TestParseLeavesWhatDependsOnTheFile: where the kind of a value is only
// known from a note (a property, a formula, an object's or a link's
// fields), or text added to a date is meant as text, the expression is
// read without complaint.
func TestParseLeavesWhatDependsOnTheFile(t *testing.T) {
	for _, src := range []string{
		`status.lenght`,
		`note.status.lenght`,
		`formula.x.lenght`,
		`file.properties.anything`,
		`date(due).year`,
		`link("x").anything`,
		`author.name`,
		`file.mtime + " (modified)"`,
		`now() + "1 day" > file.mtime - "2 weeks"`,
		`file.mtime - due`,
		`null.anything`,
		`file.tags.filter(value > 1).lenght`,
		`this.status.lenght`,
		`file.name.length > 3 && file.mtime.year == 2025 && file.tags.length > 0`,
	} {
		if _, err := Parse(src); err != nil {
			t.Errorf("Parse(%s): %v", src, err)
		}
	}
}

// TestKindMistakesWordedAlikeWhenReadOrEvaluated: the parse-time check and
// evaluation word one mistake the same way, whether the value is written
// in the expression or read from the note.
func TestKindMistakesWordedAlikeWhenReadOrEvaluated(t *testing.T) {
	v, book := testVault()
	book.Props["gap"] = "1 fortnight"
	book.Props["soon"] = "2 weks"
	env := testEnv(v, nil)
	for _, tc := range []struct{ literal, property string }{
		{`now() - "1 fortnight"`, `now() - gap`},
		{`now() + "2 weks"`, `now() + soon`},
		{`"reading".lenght`, `status.lenght`},
		{`"reading".lower`, `status.lower`},
		{`[1].lenght`, `tags.lenght`},
		{`now().yaer`, `due.yaer`},
		{`date("2025-01-01").lower()`, `due.lower()`},
		{`duration("1 fortnight")`, `duration(gap)`},
	} {
		_, perr := Parse(tc.literal)
		_, eerr := evalString(t, env, book, tc.property)
		var pe, ee *Error
		if !errors.As(perr, &pe) || !errors.As(eerr, &ee) {
			t.Errorf("%s: %v; %s: %v; want both refused", tc.literal, perr, tc.property, eerr)
			continue
		}
		if pe.Msg != ee.Msg {
			t.Errorf("worded apart:\n%s: %s\n%s: %s", tc.literal, pe.Msg, tc.property, ee.Msg)
		}
	}
}

// TestFieldsOfAgreeWithEvaluation: every field the parse-time check knows
// evaluates, on a value of its kind, to the kind it states.
func TestFieldsOfAgreeWithEvaluation(t *testing.T) {
	v, book := testVault()
	env := testEnv(v, nil)
	sample := map[Kind]string{KindString: `"abc"`, KindList: `[1]`, KindDate: `now()`, KindFile: `file`}
	for k, fields := range fieldsOf {
		src, ok := sample[k]
		if !ok {
			t.Errorf("no sample value of kind %s", k)
			continue
		}
		for _, f := range fields {
			got, err := evalString(t, env, book, src+"."+f.name)
			if err != nil || got.Kind() != f.kind {
				t.Errorf("%s.%s = %v, %v; want %s", src, f.name, got, err, f.kind)
			}
		}
	}
}

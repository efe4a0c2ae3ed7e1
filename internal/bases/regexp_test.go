package bases

import (
	"errors"
	"strings"
	"testing"
)

// TestRegexpBacktracking: the constructs of JavaScript's regular
// expressions that need a backtracking matcher are refused by name, at
// their column, never run as something else; inside a character class
// the same characters are plain text and are accepted.
func TestRegexpBacktracking(t *testing.T) {
	for _, tc := range []struct {
		src    string
		column int // 0: accepted
		want   string
	}{
		{`name.matches(/a(?=b)/)`, 16, "the look-ahead (?=...) is not supported"},
		{`name.matches(/a(?!b)/i)`, 16, "the negative look-ahead (?!...) is not supported"},
		{`name.matches(/(?<=\$)\d+/)`, 15, "the look-behind (?<=...) is not supported"},
		{`name.matches(/x(?<!y)z/)`, 16, "the negative look-behind (?<!...) is not supported"},
		{`name.matches(/(a)\1/)`, 18, "the back-reference \\1 is not supported"},
		{`name.matches(/(a)(b)(c)(d)(e)(f)(g)(h)(i)(j)\10/)`, 45, "the back-reference \\10"},
		{`name.matches(/(?<q>['"]).*\k<q>/)`, 27, "the named back-reference \\k<...>"},
		{`"é" + /é(?=x)/`, 9, "look-ahead"},
		{`name.matches(/[(?=]\(?!/)`, 0, ""},
		{`name.matches(/\\1/)`, 0, ""},
		{`name.matches(/(?<year>\d{4})-(?:\d\d)/)`, 0, ""},
		// Other patterns Go cannot read are refused at the part at fault.
		{`name.matches(/ab\u0041/)`, 17, "invalid escape sequence: \\u"},
	} {
		_, err := Parse(tc.src)
		if tc.column == 0 {
			if err != nil {
				t.Errorf("Parse(%s): %v", tc.src, err)
			}
			continue
		}
		var pe *Error
		if !errors.As(err, &pe) {
			t.Errorf("Parse(%s) error = %v, want an *Error", tc.src, err)
			continue
		}
		if pe.Column != tc.column || !strings.Contains(pe.Msg, tc.want) || !strings.Contains(pe.Msg, "cannot be used") {
			t.Errorf("Parse(%s) = column %d %q;\nwant column %d containing %q", tc.src, pe.Column, pe.Msg, tc.column, tc.want)
		}
	}
}

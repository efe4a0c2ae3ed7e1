package bases

import (
	"errors"
	"strings"
	"testing"
)

// TestHyphenatedNames: a property name with a hyphen written bare reads as
// a subtraction of two properties notes do not have, which would quietly
// match nothing; it is refused with the form the Bases syntax page gives
// ("note.price or note["price"]"), while subtractions written with spaces,
// of a function's value or of the list functions' names still parse.
func TestHyphenatedNames(t *testing.T) {
	for _, tc := range []struct {
		src    string
		column int // 0: parses
		want   string
	}{
		{`my-prop == "x"`, 1, `my-prop reads as a subtraction (my - prop): to read the property "my-prop", write note["my-prop"]; to subtract, put spaces around the minus sign`},
		{`note.my-prop`, 6, `write note["my-prop"]`},
		{`formula.net-price > 2`, 9, `write formula["net-price"]`},
		{`status == "done" && due-date < today()`, 21, `write note["due-date"]`},
		{`long-property-name.isEmpty()`, 1, `to read the property "long-property-name", write note["long-property-name"]`},
		{`price - age`, 0, ""},
		{`price -age`, 0, ""},
		{`price- age`, 0, ""},
		{`note["my-prop"] == "x"`, 0, ""},
		{`due-today()`, 0, ""},
		// Not a hyphenated property: a field files do not have.
		{`file.my-name`, 6, `a file has no field "my"`},
		{`file.name-x`, 0, ""},
		{`[1, 2].map(value-index)`, 0, ""},
		{`total-1`, 0, ""},
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
		if pe.Column != tc.column || !strings.Contains(pe.Msg, tc.want) {
			t.Errorf("Parse(%s) = column %d %q;\nwant column %d containing %q", tc.src, pe.Column, pe.Msg, tc.column, tc.want)
		}
	}

	// The form the error suggests reads the property.
	v, book := testVault()
	book.Props["my-prop"] = "x"
	got, err := evalString(t, testEnv(v, nil), book, `note["my-prop"] == "x"`)
	if err != nil || show(got) != "boolean:true" {
		t.Errorf(`note["my-prop"] == "x" = %v, %v; want true`, got, err)
	}
}

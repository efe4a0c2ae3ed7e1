package bases

import (
	"strings"
	"testing"
)

// TestEvaluationBounds: expressions that would run away (huge text, huge
// lists, endless work, deep nesting) stop with an error that says which
// bound they met.
func TestEvaluationBounds(t *testing.T) {
	for _, tc := range []struct{ src, want string }{
		{`"x".repeat(2000000)`, "repeat() expects a number from 0 to 1048576"},
		{`"ab".repeat(600000)`, "text would be longer than"},
		{`"x".repeat(900000) + "x".repeat(900000)`, "text would be longer than"},
		{`"x".repeat(1000).split("").map("y".repeat(1000000))`, "more than 64 MB"},
		{`"x".repeat(100001).split("")`, "more than 100000 items"},
		{`"x".repeat(50000).split("").map([value, value]).flat().map([value, value]).flat()`, "more than 100000 items"},
		{`"x".repeat(100000).split("").reduce(acc` + strings.Repeat(" + 1", 30) + `, 0)`, "more than 5000000 steps"},
		{`"x".repeat(1000).split("").map("y".repeat(1000)).join("")  + "y".repeat(100000)`, "text would be longer than"},
		{`"x".repeat(1000).split("").join("y".repeat(2000))`, "text would be longer than"},
		{`"aaaa".repeat(100000).replace(/a/g, "bbbbbbbb")`, "text would be longer than"},
		{`"a".repeat(100000).replace("a", "bbbbbbbbbbbbbbbbbb")`, "text would be longer than"},
	} {
		_, err := evalString(t, nil, nil, tc.src)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error = %v, want one containing %q", tc.src, err, tc.want)
		}
	}
	// Formulas that nest deeply through each other stop at the depth
	// bound rather than exhausting the stack.
	src := map[string]string{}
	for i := 0; i < 300; i++ {
		src["f"+FormatNumber(float64(i))] = "formula.f" + FormatNumber(float64(i+1)) + " + 1"
	}
	src["f300"] = "1"
	fs, err := NewFormulas(src)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := fs.Eval(&Env{Now: testNow}, &MemFile{FilePath: "a.md"}, "f0"); err == nil || !strings.Contains(err.Error(), "nests more than") {
		t.Errorf("deep formulas: error = %v", err)
	}
	if v, err := fs.Eval(&Env{Now: testNow}, &MemFile{FilePath: "a.md"}, "f250"); err != nil || show(v) != "number:51" {
		t.Errorf("f250 = %v, %v", v, err)
	}
}

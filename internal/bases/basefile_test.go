package bases

import (
	"os"
	"slices"
	"strings"
	"testing"
	"time"
)

func readingVault() *MemVault {
	day := func(m time.Month, d int) time.Time { return time.Date(2025, m, d, 0, 0, 0, 0, time.UTC) }
	return &MemVault{Files: []*MemFile{
		{FilePath: "Books/Dune.md", TagList: []string{"book"}, Props: map[string]any{"pages": 412, "price": 12.5, "status": "done", "started": day(1, 5), "finished": day(2, 1)}},
		{FilePath: "Books/Emma.md", TagList: []string{"book"}, Props: map[string]any{"pages": 300, "price": 0, "status": "reading", "started": "2025-05-01"}},
		{FilePath: "Books/Ulysses.md", TagList: []string{"book"}, Props: map[string]any{"pages": 730, "status": "abandoned"}},
		{FilePath: "Books/Notes draft.md", TagList: []string{"book", "draft"}, Props: map[string]any{"pages": 10}},
		{FilePath: "Articles/On reading.md", Props: map[string]any{"pages": 4, "price": 1, "status": "done", "started": "2024-12-30", "finished": "2024-12-31"}},
		{FilePath: "Articles/figure.png", TagList: []string{"book"}},
		{FilePath: "Recipes/Bread.md", Props: map[string]any{"pages": 1}},
	}}
}

func TestParseBaseFile(t *testing.T) {
	data, err := os.ReadFile("testdata/reading.base")
	if err != nil {
		t.Fatal(err)
	}
	b, err := ParseBase(data)
	if err != nil {
		t.Fatal(err)
	}
	if got := b.Formulas.Names(); !slices.Equal(got, []string{"finished_in", "per_page", "per_page_label"}) {
		t.Errorf("formulas = %v", got)
	}
	if b.Properties["formula.per_page_label"].DisplayName != "Cost" || b.Properties["file.basename"].DisplayName != "Title" {
		t.Errorf("properties = %+v", b.Properties)
	}
	if len(b.Views) != 2 {
		t.Fatalf("views = %d, want 2", len(b.Views))
	}
	shelf := b.Views[0]
	if shelf.Type != "table" || shelf.Name != "Shelf" || shelf.Limit != 50 {
		t.Errorf("view = %+v", shelf)
	}
	if !slices.Equal(shelf.Order, []string{"file.basename", "note.pages", "formula.per_page_label"}) {
		t.Errorf("order = %v", shelf.Order)
	}
	if want := []SortKey{{"note.pages", true}, {"file.name", false}}; !slices.Equal(shelf.Sort, want) {
		t.Errorf("sort = %+v, want %+v", shelf.Sort, want)
	}
	if shelf.GroupBy == nil || *shelf.GroupBy != (SortKey{"note.status", false}) {
		t.Errorf("groupBy = %+v", shelf.GroupBy)
	}
	if shelf.Summaries["note.pages"] != "Sum" || shelf.Summaries["note.price"] != "longest" {
		t.Errorf("summaries = %v", shelf.Summaries)
	}

	v := readingVault()
	env := b.Env(Env{Now: testNow, Resolve: v.Resolve})
	matching := func(view *View) []string {
		var out []string
		for _, f := range v.Files {
			ok, err := b.ViewFilter(view).Match(env, f)
			if err != nil {
				t.Fatalf("%s: %v", f.FilePath, err)
			}
			if ok {
				out = append(out, f.FilePath)
			}
		}
		return out
	}
	if got, want := matching(&b.Views[0]), []string{"Books/Dune.md", "Books/Emma.md", "Articles/On reading.md"}; !slices.Equal(got, want) {
		t.Errorf("Shelf shows %v, want %v", got, want)
	}
	if got, want := matching(&b.Views[1]), []string{"Books/Dune.md"}; !slices.Equal(got, want) {
		t.Errorf("Finished this year shows %v, want %v", got, want)
	}

	dune := v.Files[0]
	for name, want := range map[string]string{
		"per_page":       "number:" + FormatNumber(12.5/412),
		"per_page_label": "string:$3.0 per 100 pages",
		"finished_in":    "number:2332800000",
	} {
		got, err := b.Formulas.Eval(env, dune, name)
		if err != nil || show(got) != want {
			t.Errorf("formula %s = %v, %v; want %s", name, got, err, want)
		}
	}
	emma := v.Files[1]
	if got, err := b.Formulas.Eval(env, emma, "per_page_label"); err != nil || show(got) != "string:free" {
		t.Errorf("Emma's label = %v, %v", got, err)
	}
	if got, err := MustParse("formula.per_page_label.length > 4").Eval(env, dune); err != nil || got != Bool(true) {
		t.Errorf("formula in an expression = %v, %v", got, err)
	}

	pages := []Value{Number(412), Number(300), Number(4)}
	if got, err := b.Summarize(env, "Sum", pages); err != nil || show(got) != "number:716" {
		t.Errorf("Sum = %v, %v", got, err)
	}
	if got, err := b.Summarize(env, "longest", append(pages, String("x"), Null{})); err != nil || show(got) != "number:412" {
		t.Errorf("custom summary = %v, %v", got, err)
	}
	if _, err := b.Summarize(env, "Mode", pages); err == nil || !strings.Contains(err.Error(), `no summary named "Mode"`) {
		t.Errorf("unknown summary error = %v", err)
	}
}

// TestSyntaxPageExample: the example of "Bases syntax", typed out, parses,
// and its formulas evaluate as the page describes.
func TestSyntaxPageExample(t *testing.T) {
	src := `
filters:
  or:
    - file.hasTag("tag")
    - and:
        - file.hasTag("book")
        - file.hasLink("Textbook")
    - not:
        - file.hasTag("book")
        - file.inFolder("Required Reading")
formulas:
  formatted_price: 'if(price, price.toFixed(2) + " dollars")'
  ppu: "(price / age).toFixed(2)"
summaries:
  customAverage: 'values.mean().round(3)'
views:
  - type: table
    name: "My table"
    limit: 10
    groupBy:
      property: note.age
      direction: DESC
    filters:
      and:
        - 'status != "done"'
        - or:
            - "formula.ppu > 5"
            - "price > 2.1"
    summaries:
      formula.ppu: Average
`
	b, err := ParseBase([]byte(src))
	if err != nil {
		t.Fatal(err)
	}
	f := &MemFile{FilePath: "Shop/Lamp.md", TagList: []string{"book"}, LinkList: []string{"Textbook"}, Props: map[string]any{"price": 30, "age": 4, "status": "new"}}
	v := &MemVault{Files: []*MemFile{f, {FilePath: "Textbook.md"}}}
	env := b.Env(Env{Now: testNow, Resolve: v.Resolve})
	ok, err := b.ViewFilter(&b.Views[0]).Match(env, f)
	if err != nil || !ok {
		t.Errorf("match = %v, %v", ok, err)
	}
	got, err := b.Formulas.Eval(env, f, "formatted_price")
	if err != nil || show(got) != "string:30.00 dollars" {
		t.Errorf("formatted_price = %v, %v", got, err)
	}
	got, err = b.Formulas.Eval(env, f, "ppu")
	if err != nil || show(got) != "string:7.50" {
		t.Errorf("ppu = %v, %v", got, err)
	}
	got, err = b.Summarize(env, "customAverage", []Value{Number(1), Number(2), Number(2)})
	if err != nil || show(got) != "number:1.667" {
		t.Errorf("customAverage = %v, %v", got, err)
	}
	if b.Views[0].GroupBy == nil || !b.Views[0].GroupBy.Descending {
		t.Errorf("groupBy = %+v", b.Views[0].GroupBy)
	}
}

func TestParseBaseErrors(t *testing.T) {
	for _, tc := range []struct{ name, src, want string }{
		{"bad yaml", "filters: [", "line 1: this line is not valid YAML"},
		{"bad indent", "views:\n  - type: table\n    name: T\n   limit: 3\n", "line 4: this line is not valid YAML; check its indentation"},
		{"bad filter", "filters:\n  and:\n    - 'price >'\n", "line 3: filters.and[0]: expression `price >`, column 8: expected a value"},
		{"unknown group", "filters:\n  xor:\n    - 'a'\n", `expected and, or or not, found "xor"`},
		{"group not a list", "filters:\n  and: 'a'\n", "line 2: filters.and: expected a list of filters"},
		{"bad formula", "formulas:\n  x: '1 +'\n", `line 2: formula "x": expression` + " `1 +`"},
		{"unknown function in a formula", "formulas:\n  x: 'nosuch(status)'\n", `line 2: formula "x": expression` + " `nosuch(status)`, column 1: unknown function \"nosuch\""},
		{"unknown formula", "formulas:\n  x: 'formula.y + 1'\n", `formula "x": expression` + " `formula.y + 1`, column 9: there is no formula named \"y\""},
		{"cycle", "formulas:\n  a: 'formula.b'\n  b: 'formula.c * 2'\n  c: 'formula.a'\n", `formula "a" refers to itself: a -> b -> c -> a`},
		{"self", "formulas:\n  a: 'formula[\"a\"] + 1'\n", `formula "a" refers to itself: a -> a`},
		{"bad custom summary", "summaries:\n  s: 'values.'\n", `summary "s": expression`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ParseBase([]byte(tc.src))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error = %v, want one containing %q", err, tc.want)
			}
		})
	}
}

// TestParseBaseViewProblems: what is wrong with a view names the view, not
// its place counted from 0, and is that view's alone: the other views of
// the base are read as written.
func TestParseBaseViewProblems(t *testing.T) {
	for _, tc := range []struct{ name, view, want string }{
		{"bad direction", "    sort:\n      - property: x\n        direction: UP\n", `sort key 1 of view "Bad": the direction must be ASC or DESC, not "UP"`},
		{"sort without property", "    groupBy:\n      direction: ASC\n", `groupBy of view "Bad": expected a property`},
		{"negative limit", "    limit: -1\n", `line 5: limit of view "Bad" must be 0 or more`},
		{"limit as text", "    limit: ten\n", `line 5: limit of view "Bad" must be a whole number, got "ten"`},
		{"unknown summary", "    summaries:\n      price: Mean\n", `summary of price of view "Bad": there is no summary named "Mean"`},
		{"bad view filter", "    filters: 'a &&'\n", `line 5: filters of view "Bad": expression`},
		{"order not a list", "    order: 7\n", `line 5: expected a list here of view "Bad", got a number 7`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			src := "views:\n  - type: table\n    name: Good\n  - name: Bad\n" + tc.view + "  - type: table\n    name: Also good\n    limit: 3\n"
			b, err := ParseBase([]byte(src))
			if err != nil {
				t.Fatalf("a broken view fails the whole base: %v", err)
			}
			if len(b.Views) != 3 || b.Views[0].Problem != nil || b.Views[2].Problem != nil || b.Views[2].Limit != 3 {
				t.Fatalf("views %+v", b.Views)
			}
			if err := b.Views[1].Problem; err == nil || !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), "views[") {
				t.Errorf("problem = %v, want one containing %q", err, tc.want)
			}
		})
	}
}

// TestFilterGroups: and, or and not ("none of the following") nest, and an
// empty group filters nothing out.
func TestFilterGroups(t *testing.T) {
	f := &MemFile{FilePath: "a.md", Props: map[string]any{"x": 1, "y": 2}}
	for src, want := range map[string]bool{
		"filters: 'x == 1'":                                                   true,
		"filters:\n  and: ['x == 1', 'y == 2']":                               true,
		"filters:\n  and: ['x == 1', 'y == 3']":                               false,
		"filters:\n  or: ['x == 5', 'y == 2']":                                true,
		"filters:\n  or: ['x == 5', 'y == 5']":                                false,
		"filters:\n  not: ['x == 5', 'y == 5']":                               true,
		"filters:\n  not: ['x == 5', 'y == 2']":                               false,
		"filters:\n  not:\n    - or: ['x == 9', {and: ['x == 1', 'y == 2']}]": false,
		"filters:\n  and: []":                                                 true,
		"filters:":                                                            true,
	} {
		b, err := ParseBase([]byte(src))
		if err != nil {
			t.Errorf("%q: %v", src, err)
			continue
		}
		got, err := b.Filters.Match(&Env{Now: testNow}, f)
		if err != nil || got != want {
			t.Errorf("%q matches = %v, %v; want %v", src, got, err, want)
		}
	}
}

// TestFormulaCycleAtRuntime: a cycle that the static check cannot see (a
// formula named by a computed key) is still refused, with the chain.
func TestFormulaCycleAtRuntime(t *testing.T) {
	fs, err := NewFormulas(map[string]string{"a": `formula["b"]`, "b": `formula["a" + ""]`})
	if err != nil {
		t.Fatal(err)
	}
	_, err = fs.Eval(&Env{Now: testNow}, &MemFile{FilePath: "n.md"}, "a")
	if err == nil || !strings.Contains(err.Error(), `formula "a" refers to itself through a -> b -> a`) {
		t.Errorf("error = %v", err)
	}
	fs, err = NewFormulas(map[string]string{"a": `[1].map(formula.b)`, "b": `formula.c`, "c": `1`})
	if err != nil {
		t.Fatal(err)
	}
	got, err := fs.Eval(&Env{Now: testNow}, &MemFile{FilePath: "n.md"}, "a")
	if err != nil || show(got) != "list:1" {
		t.Errorf("a = %v, %v", got, err)
	}
}

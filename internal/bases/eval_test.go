package bases

import (
	"strings"
	"testing"
	"time"
)

// testVault is a small vault for the evaluator's tests. Its times are in
// UTC, like testEnv's clock.
func testVault() (*MemVault, *MemFile) {
	ctime := time.Date(2025, 1, 10, 9, 0, 0, 0, time.UTC)
	book := &MemFile{
		FilePath: "Books/Dune.md",
		Props: map[string]any{
			"price":     12.5,
			"age":       5,
			"status":    "reading",
			"author":    "[[Frank Herbert]]",
			"authors":   []any{"[[Frank Herbert]]", "[[Brian Herbert]]"},
			"tags":      []any{"book", "scifi"},
			"published": time.Date(1965, 8, 1, 0, 0, 0, 0, time.UTC),
			"due":       "2025-06-01",
			"started":   "2025-05-20T08:15:00",
			"done":      false,
			"rating":    nil,
			"meta":      map[string]any{"pages": 412, "lang": "en"},
			"full name": "Dune: Book One",
		},
		FileSize:   2048,
		Ctime:      ctime,
		Mtime:      time.Date(2025, 5, 26, 18, 0, 0, 0, time.UTC),
		TagList:    []string{"#book", "scifi/classic"},
		LinkList:   []string{"Frank Herbert", "Arrakis#Geography", "Textbook|the textbook"},
		EmbedList:  []string{"cover.png"},
		BacklinkOf: []string{"Reading list.md"},
	}
	frank := &MemFile{FilePath: "People/Frank Herbert.md", Props: map[string]any{"born": 1920}, LinkList: []string{"Dune"}}
	arrakis := &MemFile{FilePath: "Places/Arrakis.md"}
	list := &MemFile{FilePath: "Reading list.md", LinkList: []string{"Books/Dune"}}
	text := &MemFile{FilePath: "Textbook.md"}
	cover := &MemFile{FilePath: "cover.png", FileSize: 10}
	return &MemVault{Files: []*MemFile{book, frank, arrakis, list, text, cover}}, book
}

var testNow = time.Date(2025, 5, 27, 10, 30, 0, 0, time.UTC)

func testEnv(v *MemVault, this File) *Env {
	return &Env{Now: testNow, This: this, Resolve: v.Resolve, Random: func() float64 { return 0.25 }}
}

// show prints a value with its kind, so that a test can tell 1 from "1".
func show(v Value) string { return string(v.Kind()) + ":" + Display(v) }

func evalString(t *testing.T, env *Env, f File, src string) (Value, error) {
	t.Helper()
	x, err := Parse(src)
	if err != nil {
		return nil, err
	}
	return x.Eval(env, f)
}

type evalCase struct{ src, want string }

func runEval(t *testing.T, cases []evalCase) {
	t.Helper()
	v, book := testVault()
	env := testEnv(v, v.Files[3]) // this = Reading list
	for _, tc := range cases {
		got, err := evalString(t, env, book, tc.src)
		if err != nil {
			t.Errorf("%s: %v", tc.src, err)
			continue
		}
		if show(got) != tc.want {
			t.Errorf("%s = %s, want %s", tc.src, show(got), tc.want)
		}
	}
}

func TestLiterals(t *testing.T) {
	runEval(t, []evalCase{
		{`42`, "number:42"},
		{`3.14`, "number:3.14"},
		{`(2.5)`, "number:2.5"},
		{`1e21`, "number:1e+21"},
		{`0.0000001`, "number:1e-7"},
		{`"message"`, "string:message"},
		{`'world'`, "string:world"},
		{`"say \"hi\"\n"`, "string:say \"hi\"\n"},
		{`'it\'s'`, "string:it's"},
		{`"\u00e9\u{1F600}\x41\t"`, "string:é😀A\t"},
		{`true`, "boolean:true"},
		{`false`, "boolean:false"},
		{`null`, "null:"},
		{`[1, "a", [true]]`, "list:1, a, true"},
		{`[]`, "list:"},
		{`{"name": "value", n: 2}`, `object:{"n":2,"name":"value"}`},
		{`{"name": "value"}.name`, "string:value"},
		{`/ab+c/gi`, "regexp:/ab+c/gi"},
		{`[1,2,3,]`, "list:1, 2, 3"},
	})
}

func TestProperties(t *testing.T) {
	runEval(t, []evalCase{
		{`price`, "number:12.5"},
		{`note.price`, "number:12.5"},
		{`note["price"]`, "number:12.5"},
		{`note["full name"]`, "string:Dune: Book One"},
		{`age`, "number:5"},
		{`missing`, "null:"},
		{`note.missing.deeper`, "null:"},
		{`rating`, "null:"},
		{`done`, "boolean:false"},
		{`tags`, "list:book, scifi"},
		{`tags[0]`, "string:book"},
		{`tags[5]`, "null:"},
		{`meta.pages`, "number:412"},
		{`meta["lang"]`, "string:en"},
		{`author`, "link:Frank Herbert"},
		{`published`, "date:1965-08-01"},
		{`due`, "date:2025-06-01"},
		{`started`, "date:2025-05-20 08:15:00"},
		{`status`, "string:reading"},
		{`file.name`, "string:Dune.md"},
		{`file.basename`, "string:Dune"},
		{`file.path`, "string:Books/Dune.md"},
		{`file.folder`, "string:Books"},
		{`file.ext`, "string:md"},
		{`file.size`, "number:2048"},
		{`file.ctime`, "date:2025-01-10 09:00:00"},
		{`file.mtime`, "date:2025-05-26 18:00:00"},
		{`file.tags`, "list:#book, #scifi/classic"},
		{`file.links`, "list:Frank Herbert, Arrakis#Geography, the textbook"},
		{`file.links.length`, "number:3"},
		{`file.embeds`, "list:cover.png"},
		{`file.backlinks`, "list:Reading list.md"},
		{`file.properties.age`, "number:5"},
		{`file.file.name`, "string:Dune.md"},
		{`file["name"]`, "string:Dune.md"},
		{`file`, "file:Books/Dune.md"},
		{`this`, "file:Reading list.md"},
		{`this.file.name`, "string:Reading list.md"},
		{`this.file.folder`, "string:/"},
		{`this.missing`, "null:"},
		{`author.born`, "null:"},
		{`author.name`, "string:Frank Herbert.md"},
	})
}

func TestOperators(t *testing.T) {
	runEval(t, []evalCase{
		{`1 + 2 * 3`, "number:7"},
		{`(1 + 2) * 3`, "number:9"},
		{`10 - 4 - 3`, "number:3"},
		{`7 / 2`, "number:3.5"},
		{`7 % 3`, "number:1"},
		{`-7 % 3`, "number:-1"},
		{`1 / 0`, "number:Infinity"},
		{`2 * (3.14)`, "number:6.28"},
		{`price * age`, "number:62.5"},
		{`(price / age).toFixed(2)`, "string:2.50"},
		{`-price`, "number:-12.5"},
		{`"a" + "b"`, "string:ab"},
		{`"n" + 1`, "string:n1"},
		{`1 + "n"`, "string:1n"},
		{`file.name + " - " + status`, "string:Dune.md - reading"},
		{`"x" + missing`, "string:x"},
		{`price + missing`, "null:"},
		{`missing * 2`, "null:"},
		{`[1] + [2, 3]`, "list:1, 2, 3"},
		{`1 == 1`, "boolean:true"},
		{`1 != 1`, "boolean:false"},
		{`"a" == "a"`, "boolean:true"},
		{`1 == "1"`, "boolean:false"},
		{`null == missing`, "boolean:true"},
		{`[1, [2]] == [1, [2]]`, "boolean:true"},
		{`{"a": 1} == {"a": 1}`, "boolean:true"},
		{`price > 10`, "boolean:true"},
		{`price >= 12.5`, "boolean:true"},
		{`price < 12.5`, "boolean:false"},
		{`price <= 12`, "boolean:false"},
		{`"apple" < "banana"`, "boolean:true"},
		{`missing > 1`, "boolean:false"},
		{`missing < 1`, "boolean:false"},
		{`"10" > 9`, "boolean:true"},
		{`"ten" > 9`, "boolean:false"},
		{`9 < "ten"`, "boolean:false"},
		{`false < true`, "boolean:true"},
		{`status != "done" && price > 2.1`, "boolean:true"},
		{`status == "done" || price > 100`, "boolean:false"},
		{`!done`, "boolean:true"},
		{`!!price`, "boolean:true"},
		{`!missing`, "boolean:true"},
		{`!(1 == 1)`, "boolean:false"},
		{`true && "x"`, "boolean:true"},
		{`0 || ""`, "boolean:false"},
		{`missing.x || true`, "boolean:true"},
	})
}

func TestDates(t *testing.T) {
	runEval(t, []evalCase{
		// The examples of "Bases syntax" > Date arithmetic.
		{`date("2024-12-01") + "1M" + "4h" + "3m"`, "date:2025-01-01 04:03:00"},
		{`now() + "1 day"`, "date:2025-05-28 10:30:00"},
		{`(now() + "1d") - now()`, "number:86400000"},
		{`number((now() + "1d") - now())`, "number:86400000"},
		{`(now() + "1d") - now() == 86400000`, "boolean:true"},
		{`file.mtime > now() - "1 week"`, "boolean:true"},
		{`file.ctime > now() - "1 week"`, "boolean:false"},
		{`now() - file.ctime > duration("100d")`, "boolean:true"},
		{`today()`, "date:2025-05-27"},
		{`today() + "7d"`, "date:2025-06-03"},
		{`now()`, "date:2025-05-27 10:30:00"},
		{`now() + (duration("1d") * 2)`, "date:2025-05-29 10:30:00"},
		{`duration("5h") * 2`, "duration:10 hours"},
		{`duration("1d") / 4`, "duration:6 hours"},
		{`duration("1w") + "1d"`, "duration:8 days"},
		{`date("2025-01-31") + "1M"`, "date:2025-02-28"},
		{`date("2024-02-29") + "1y"`, "date:2025-02-28"},
		{`date("2025-03-01") - "1 month"`, "date:2025-02-01"},
		{`date("2025-01-01") + "2w"`, "date:2025-01-15"},
		{`date("2025-01-01") + "1 year, 2 months"`, "date:2026-03-01"},
		{`date("2025-01-01 12:00:00") + "90s"`, "date:2025-01-01 12:01:30"},
		{`date("2025-01-01T08:00")`, "date:2025-01-01 08:00:00"},
		{`date("2025-01-01T08:00:00Z") == date("2025-01-01 08:00:00")`, "boolean:true"},
		{`date("2025-01-01") - date("2024-12-31")`, "number:86400000"},
		{`date("2025-05-27 10:30:05.250").millisecond`, "number:250"},
		{`started + "2w"`, "date:2025-06-03 08:15:00"},
		{`due < now()`, "boolean:false"},
		{`if(due < now() && status != "Done", "Overdue", "")`, "string:"},
		{`due == "2025-06-01"`, "boolean:true"},
		{`due > "2025-05-01"`, "boolean:true"},
		{`"2025-05-01" < due`, "boolean:true"},
		{`due == date("2025-06-01")`, "boolean:true"},
		{`date("2025-05-27 23:59:59").year`, "number:2025"},
		{`date("2025-05-27 23:59:59").month`, "number:5"},
		{`date("2025-05-27 23:59:59").day`, "number:27"},
		{`now().hour`, "number:10"},
		{`now().minute`, "number:30"},
		{`now().second`, "number:0"},
		{`now().date()`, "date:2025-05-27"},
		{`now().date().format("YYYY-MM-DD HH:mm:ss")`, "string:2025-05-27 00:00:00"},
		{`date("2025-05-27").format("YYYY-MM-DD")`, "string:2025-05-27"},
		{`date("2025-05-07 15:04:05").format("dddd, MMMM Do YYYY [at] h:mm A")`, "string:Wednesday, May 7th 2025 at 3:04 PM"},
		{`date("2025-05-07 15:04:05").format("ddd D MMM YY, HH:mm:ss.SSS Q DDDD")`, "string:Wed 7 May 25, 15:04:05.000 2 127"},
		{`now().time()`, "string:10:30:00"},
		{`file.mtime.relative()`, "string:17 hours ago"},
		{`(now() - "3d").relative()`, "string:3 days ago"},
		{`(now() + "2M").relative()`, "string:in 2 months"},
		{`(now() - "10s").relative()`, "string:a few seconds ago"},
		{`(now() - "400d").relative()`, "string:a year ago"},
		{`now().isEmpty()`, "boolean:false"},
		{`date("2025-05-27") + "fortnight"`, "string:2025-05-27fortnight"},
	})
}

func TestGlobalFunctions(t *testing.T) {
	runEval(t, []evalCase{
		{`escapeHTML("<a href='x'>&</a>")`, "string:&lt;a href=&#39;x&#39;&gt;&amp;&lt;/a&gt;"},
		{`date("2025-01-01 12:00:00")`, "date:2025-01-01 12:00:00"},
		{`duration("1h") == duration("60m")`, "boolean:true"},
		{`file("People/Frank Herbert.md")`, "file:People/Frank Herbert.md"},
		{`file(link("[[Frank Herbert]]"))`, "file:People/Frank Herbert.md"},
		{`file("Nowhere")`, "null:"},
		{`file(file).name`, "string:Dune.md"},
		{`html("<b>x</b>")`, "html:<b>x</b>"},
		{`if(price, price.toFixed(2) + " dollars")`, "string:12.50 dollars"},
		{`if(missing, "yes")`, "null:"},
		{`if(done, "Modified", "Unmodified")`, "string:Unmodified"},
		{`if(true, 1, number("abc"))`, "number:1"},
		{`image("https://obsidian.md/images/obsidian-logo-gradient.svg")`, "image:https://obsidian.md/images/obsidian-logo-gradient.svg"},
		{`icon("arrow-right")`, "icon:arrow-right"},
		{`link("filename")`, "link:filename"},
		{`link("https://obsidian.md")`, "link:https://obsidian.md"},
		{`link("filename", "display")`, "link:display"},
		{`link("filename", icon("plus"))`, "link:plus"},
		{`link(file.ctime.date().toString())`, "link:2025-01-10"},
		{`link("Frank Herbert") == author`, "boolean:true"},
		{`list("value")`, "list:value"},
		{`list([1, 2])`, "list:1, 2"},
		{`list(missing)`, "list:"},
		{`max(1, 5, 3)`, "number:5"},
		{`min(4, 2, 8)`, "number:2"},
		{`max(price, age, missing)`, "number:12.5"},
		{`number("3.4")`, "number:3.4"},
		{`number(true)`, "number:1"},
		{`number(false)`, "number:0"},
		{`number(date("1970-01-02 00:00:00Z"))`, "number:86400000"},
		{`number(" 42 ")`, "number:42"},
		{`random()`, "number:0.25"},
	})
}

func TestAnyFunctions(t *testing.T) {
	runEval(t, []evalCase{
		{`1.isTruthy()`, "boolean:true"},
		{`0.isTruthy()`, "boolean:false"},
		{`"".isTruthy()`, "boolean:false"},
		{`[].isTruthy()`, "boolean:false"},
		{`missing.isTruthy()`, "boolean:false"},
		{`"example".isType("string")`, "boolean:true"},
		{`true.isType("boolean")`, "boolean:true"},
		{`1.isType("string")`, "boolean:false"},
		{`[1].isType("list")`, "boolean:true"},
		{`{}.isType("object")`, "boolean:true"},
		{`now().isType("date")`, "boolean:true"},
		{`author.isType("link")`, "boolean:true"},
		{`file.isType("file")`, "boolean:true"},
		{`missing.isType("null")`, "boolean:true"},
		{`/a/.isType("regexp")`, "boolean:true"},
		{`duration("1d").isType("duration")`, "boolean:true"},
		{`123.toString()`, "string:123"},
		{`(0.1 + 0.2).toString()`, "string:0.30000000000000004"},
		{`true.toString()`, "string:true"},
		{`[1, "a"].toString()`, "string:1, a"},
		{`missing.toString()`, "string:"},
		{`missing.isEmpty()`, "boolean:true"},
		{`missing.toFixed(2)`, "null:"},
	})
}

func TestStringFunctions(t *testing.T) {
	runEval(t, []evalCase{
		{`"hello".length`, "number:5"},
		{`"héllo".length`, "number:5"},
		{`"hello".contains("ell")`, "boolean:true"},
		{`"hello".contains("xyz")`, "boolean:false"},
		{`"hello".containsAll("h", "e")`, "boolean:true"},
		{`"hello".containsAll("h", "x")`, "boolean:false"},
		{`"hello".containsAny("x", "y", "e")`, "boolean:true"},
		{`"hello".containsAny("x", "y")`, "boolean:false"},
		{`"hello".endsWith("lo")`, "boolean:true"},
		{`"hello".startsWith("he")`, "boolean:true"},
		{`"hello".startsWith("lo")`, "boolean:false"},
		{`"Hello world".isEmpty()`, "boolean:false"},
		{`"".isEmpty()`, "boolean:true"},
		{`"HeLLo".lower()`, "string:hello"},
		{`"a:b:c:d".replace(/:/, "-")`, "string:a-b:c:d"},
		{`"a:b:c:d".replace(/:/g, "-")`, "string:a-b-c-d"},
		{`"a:b:c:d".replace(":", "-")`, "string:a-b-c-d"},
		{`"John Smith".replace(/(\w+) (\w+)/, "$2, $1")`, "string:Smith, John"},
		{`"aaa".replace(/A/gi, "$&$&")`, "string:aaaaaa"},
		{`"cost".replace(/o/, "$$")`, "string:c$st"},
		{`"123".repeat(2)`, "string:123123"},
		{`"x".repeat(0)`, "string:"},
		{`"hello".reverse()`, "string:olleh"},
		{`"hello".slice(1, 4)`, "string:ell"},
		{`"hello".slice(1)`, "string:ello"},
		{`"hello".slice(-3)`, "string:llo"},
		{`"hello".slice(3, 1)`, "string:"},
		{`"a,b,c,d".split(",", 3)`, "list:a, b, c"},
		{`"a,b,c,d".split(/,/, 3)`, "list:a, b, c"},
		{`"a,b,c,d".split(",")`, "list:a, b, c, d"},
		{`"a1b22c".split(/\d+/)`, "list:a, b, c"},
		{`"abc".split("")`, "list:a, b, c"},
		{`"a,b".split(",").length`, "number:2"},
		{`"hello world".title()`, "string:Hello World"},
		{`"  hi  ".trim()`, "string:hi"},
		{`"abc"[1]`, "string:b"},
		{`status.contains("read")`, "boolean:true"},
	})
}

func TestNumberFunctions(t *testing.T) {
	runEval(t, []evalCase{
		{`(-5).abs()`, "number:5"},
		{`-5.abs()`, "number:-5"},
		{`(2.1).ceil()`, "number:3"},
		{`(2.9).floor()`, "number:2"},
		{`(-2.1).floor()`, "number:-3"},
		{`5.isEmpty()`, "boolean:false"},
		{`(2.5).round()`, "number:3"},
		{`(-2.5).round()`, "number:-2"},
		{`(2.3333).round(2)`, "number:2.33"},
		{`(2.4).round()`, "number:2"},
		{`(3.14159).toFixed(2)`, "string:3.14"},
		{`(2.5).toFixed(0)`, "string:3"},
		{`(1.005).toFixed(2)`, "string:1.00"},
		{`(1.45).toFixed(1)`, "string:1.4"},
		{`(-1.5).toFixed(0)`, "string:-2"},
		{`(-0.0001).toFixed(2)`, "string:0.00"},
		{`(1234.5678).toFixed(0)`, "string:1235"},
		{`(99.99).toFixed(1)`, "string:100.0"},
		{`5.toFixed(2)`, "string:5.00"},
		{`price.toFixed(2)`, "string:12.50"},
		{`age.round()`, "number:5"},
	})
}

func TestListFunctions(t *testing.T) {
	runEval(t, []evalCase{
		{`[1,2,3].length`, "number:3"},
		{`[1,2,3].contains(2)`, "boolean:true"},
		{`[1,2,3].contains("2")`, "boolean:false"},
		{`[1,2,3].containsAll(2,3)`, "boolean:true"},
		{`[1,2,3].containsAll(2,4)`, "boolean:false"},
		{`[1,2,3].containsAny(3,4)`, "boolean:true"},
		{`[1,2,3].containsAny(5,4)`, "boolean:false"},
		{`[1,2,3,4].filter(value > 2)`, "list:3, 4"},
		{`[5,6,7].filter(index != 1)`, "list:5, 7"},
		{`[1,[2,3]].flat()`, "list:1, 2, 3"},
		{`[1,[2,[3]]].flat().length`, "number:3"},
		{`[1,2,3].isEmpty()`, "boolean:false"},
		{`[].isEmpty()`, "boolean:true"},
		{`[1,2,3].join(",")`, "string:1,2,3"},
		{`[1,2,3,4].map(value + 1)`, "list:2, 3, 4, 5"},
		{`["a","b"].map(value + index)`, "list:a0, b1"},
		{`[1,2,3].reduce(acc + value, 0)`, "number:6"},
		{`[3,9,2].reduce(if(acc == null || value > acc, value, acc), null)`, "number:9"},
		{`["x", 1, 7, "y"].filter(value.isType("number")).reduce(if(acc == null || value > acc, value, acc), null)`, "number:7"},
		{`[].reduce(acc + value, null)`, "null:"},
		{`[1,2,3].reverse()`, "list:3, 2, 1"},
		{`[1,2,3,4].slice(1,3)`, "list:2, 3"},
		{`[1,2,3,4].slice(2)`, "list:3, 4"},
		{`[1,2,3,4].slice(-1)`, "list:4"},
		{`[3, 1, 2].sort()`, "list:1, 2, 3"},
		{`[10, 9, 1].sort()`, "list:1, 9, 10"},
		{`["c", "a", "b"].sort()`, "list:a, b, c"},
		{`["b", 2, null, true].sort()`, "list:true, 2, b, "},
		{`[1,2,2,3].unique()`, "list:1, 2, 3"},
		{`[[1], [1], "a"].unique().length`, "number:2"},
		{`[1, 2, 3, 4].mean()`, "number:2.5"},
		{`values.mean()`, "null:"},
		{`tags.contains("book")`, "boolean:true"},
		{`tags.length`, "number:2"},
		{`[1,2].map([value, value * 10]).flat()`, "list:1, 10, 2, 20"},
		{`[[1,2],[3]].map(value.map(value * 2))`, "list:2, 4, 6"},
		{`[1,2,3].filter(value > 1).map(value * value).reduce(acc + value, 0)`, "number:13"},
	})
}

// TestLinksAndFiles: links equal the file they resolve to, other links to
// that file, and text naming it; file functions follow links through the
// resolver.
func TestLinksAndFiles(t *testing.T) {
	v, _ := testVault()
	// this is Frank Herbert's note, so that author == this holds for Dune.
	env := testEnv(v, v.Files[1])
	book := v.Files[0]
	for _, tc := range []evalCase{
		{`author == this`, "boolean:true"},
		{`author != this`, "boolean:false"},
		{`this == author`, "boolean:true"},
		{`authors.contains(this)`, "boolean:true"},
		{`author == "[[Frank Herbert]]"`, "boolean:true"},
		{`author == "Frank Herbert"`, "boolean:true"},
		{`author == link("People/Frank Herbert")`, "boolean:true"},
		{`author == link("Brian Herbert")`, "boolean:false"},
		{`authors[1] == link("Brian Herbert")`, "boolean:true"},
		{`authors[1] == link("brian herbert")`, "boolean:false"},
		{`author.asFile()`, "file:People/Frank Herbert.md"},
		{`authors[1].asFile()`, "null:"},
		{`link("[[filename]]").asFile()`, "null:"},
		{`author.linksTo(file)`, "boolean:true"},
		{`author.linksTo(link("Arrakis"))`, "boolean:false"},
		{`file.asLink()`, "link:Books/Dune.md"},
		{`file.asLink("Dune")`, "link:Dune"},
		{`file.asLink() == file`, "boolean:true"},
		{`file.hasLink(this)`, "boolean:true"},
		{`file.hasLink(this.file)`, "boolean:true"},
		{`file.hasLink("Places/Arrakis.md")`, "boolean:true"},
		{`file.hasLink("Textbook")`, "boolean:true"},
		{`file.hasLink(file("Reading list.md"))`, "boolean:false"},
		{`file.hasLink("Nowhere")`, "boolean:false"},
		{`file.hasProperty("price")`, "boolean:true"},
		{`file.hasProperty("rating")`, "boolean:true"},
		{`file.hasProperty("isbn")`, "boolean:false"},
		{`file.hasTag("book")`, "boolean:true"},
		{`file.hasTag("#Book")`, "boolean:true"},
		{`file.hasTag("scifi")`, "boolean:true"},
		{`file.hasTag("sci")`, "boolean:false"},
		{`file.hasTag("tag1", "scifi/classic")`, "boolean:true"},
		{`file.hasTag("tag1", "tag2")`, "boolean:false"},
		{`file.inFolder("Books")`, "boolean:true"},
		{`file.inFolder("Books/")`, "boolean:true"},
		{`file.inFolder("Book")`, "boolean:false"},
		{`file.inFolder("")`, "boolean:true"},
		{`file.backlinks.contains(link("Reading list"))`, "boolean:true"},
		{`file.links.map(value.asFile()).filter(value).map(value.name)`, "list:Frank Herbert.md, Arrakis.md, Textbook.md"},
		{`this.born`, "number:1920"},
		{`this.note.born`, "number:1920"},
		{`file.properties.keys().length`, "number:13"},
		{`meta.keys()`, "list:lang, pages"},
		{`meta.values()`, "list:en, 412"},
		{`{}.isEmpty()`, "boolean:true"},
		{`meta.isEmpty()`, "boolean:false"},
		{`/abc/.matches("abcde")`, "boolean:true"},
		{`/^abc$/.matches("abcde")`, "boolean:false"},
		{`/ABC/i.matches("xabcx")`, "boolean:true"},
		{`[author, link("People/Frank Herbert"), this].unique().length`, "number:1"},
	} {
		got, err := evalString(t, env, book, tc.src)
		if err != nil {
			t.Errorf("%s: %v", tc.src, err)
			continue
		}
		if show(got) != tc.want {
			t.Errorf("%s = %s, want %s", tc.src, show(got), tc.want)
		}
	}
}

// TestEvalErrors: mistakes found while evaluating name the expression, the
// column and what was expected.
func TestEvalErrors(t *testing.T) {
	v, book := testVault()
	env := testEnv(v, nil)
	for _, tc := range []struct {
		src    string
		column int
		want   string
	}{
		{`nosuch(1)`, 1, "unknown function \"nosuch\""},
		{`"a".nosuch()`, 5, "unknown function \"nosuch\""},
		{`contains("a")`, 1, `"contains" is called on a value`},
		{`"a".contains()`, 5, "contains() takes 1 argument, got 0"},
		{`now(1)`, 1, "now() takes no arguments, got 1"},
		{`if(1)`, 1, "if() takes 2 to 3 arguments, got 1"},
		{`"a".repeat(-1)`, 12, "expects a number from 0 to"},
		{`[1].join()`, 5, "join() takes 1 argument, got 0"},
		{`1.toFixed("2")`, 11, "toFixed() expects a number from 0 to 100 here, got a string"},
		{`5.contains("a")`, 3, "contains() does not work on a number"},
		{`true + 1`, 6, `cannot use "+" with a boolean and a number`},
		{`2 * duration("5h")`, 3, "put the duration on the left"},
		{`date("soon")`, 6, `date() cannot read "soon" as a date`},
		{`duration("soon")`, 10, `duration() cannot read "soon"`},
		{`number("abc")`, 8, `number() cannot read "abc" as a number`},
		{`number([1])`, 8, "number() expects a number, text, a date, a duration or a boolean here, got a list"},
		{`date("2025-01-01") - "soon"`, 20, `"soon" is not a duration`},
		{`file.nosuch`, 6, `a file has no field "nosuch"`},
		{`now().weekday`, 7, `a date has no field "weekday"`},
		{`price.abs`, 7, "abs() is a function: call it with parentheses"},
		{`formula.x`, 9, `there is no formula named "x"`},
		{`formula`, 1, "expected a formula name"},
		{`"a".isType("thing")`, 12, `does not know the type "thing"`},
		{`max(1, "a")`, 8, "max() expects a number or a date here, got a string"},
		{`[1,2][0.5 + "x"]`, 11, "a list is indexed by a number"},
		{`1[0]`, 2, "a number cannot be indexed"},
		{`(-duration("1d")).abs()`, 19, "abs() does not work on a duration"},
	} {
		_, err := evalString(t, env, book, tc.src)
		pe, ok := err.(*Error)
		if !ok {
			t.Errorf("%s: error = %v, want an *Error", tc.src, err)
			continue
		}
		if pe.Column != tc.column || !strings.Contains(pe.Msg, tc.want) || pe.Expr != tc.src {
			t.Errorf("%s: got column %d %q, want column %d containing %q", tc.src, pe.Column, pe.Msg, tc.column, tc.want)
		}
	}
}

// TestDurationErrorsSayWhatADurationOffers: asking a duration for a field
// it lacks lists what it has; arithmetic it cannot do says how to get a
// number.
func TestDurationErrorsSayWhatADurationOffers(t *testing.T) {
	v, book := testVault()
	env := testEnv(v, nil)
	for src, want := range map[string]string{
		`duration("4d").days`: `a duration has no field "days"; it has no fields, and its functions are `,
		`(date("2025-01-05") - date("2025-01-01")) / 86400000`: "",
		`duration("1d") + true`:                                `in milliseconds, and d / duration("1d") in days`,
	} {
		got, err := evalString(t, env, book, src)
		if want == "" {
			if err != nil || show(got) != "number:4" {
				t.Errorf("%s = %v, %v; want 4", src, got, err)
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want %q", src, err, want)
		}
	}
}

// TestRefusedWhenRead: an expression refused when read is told from one
// that fails while evaluating, which the commands report apart (a usage
// error against a failure).
func TestRefusedWhenRead(t *testing.T) {
	for _, src := range []string{`status ==`, `file.nmae == "x"`, `"a" ~ /(?=b)/`} {
		if _, err := Parse(src); err == nil || !RefusedWhenRead(err) {
			t.Errorf("Parse(%s) = %v, want an error refused when read", src, err)
		}
	}
	v, book := testVault()
	env := testEnv(v, nil)
	for _, src := range []string{`status * 2`, `date(status)`} {
		if _, err := evalString(t, env, book, src); err == nil || RefusedWhenRead(err) {
			t.Errorf("%s: error %v, want one met while evaluating", src, err)
		}
	}
	if RefusedWhenRead(nil) {
		t.Error("no error is refused when read")
	}
}

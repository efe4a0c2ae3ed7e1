package bases

import (
	"strings"
	"testing"
	"time"
)

// The tests of this file walk the Help vault's pages on Bases (Functions.md,
// "Bases syntax.md", Formulas.md, Views.md and Layouts/Table view.md) in
// their order: every function, operator and example the pages give, with
// the answer worked out from the page's words. Where a page leaves a
// choice open, the case says so ("choice:") and the function's comment
// says why.

// docsVault is testVault with a note two folders down, for inFolder's
// sub-folders.
func docsVault() (*MemVault, *MemFile) {
	v, book := testVault()
	plan := &MemFile{
		FilePath: "Notes/Projects/Plan.md",
		Props:    map[string]any{"quantity": 3, "price": 2.5, "first_name": "Ada", "last_name": "Lovelace"},
		TagList:  []string{"#tag1/a", "project"},
		LinkList: []string{"Textbook"},
	}
	v.Files = append(v.Files, plan)
	return v, book
}

func runDocs(t *testing.T, f func(v *MemVault) File, cases []evalCase) {
	t.Helper()
	v, _ := docsVault()
	env := testEnv(v, v.Files[3]) // this = Reading list
	file := f(v)
	for _, tc := range cases {
		got, err := evalString(t, env, file, tc.src)
		if err != nil {
			t.Errorf("%s: %v", tc.src, err)
			continue
		}
		if show(got) != tc.want {
			t.Errorf("%s = %s, want %s", tc.src, show(got), tc.want)
		}
	}
}

func dune(v *MemVault) File { return v.Files[0] }
func plan(v *MemVault) File { return v.Files[len(v.Files)-1] }

// TestDocsGlobalFunctions: Functions.md > Global.
func TestDocsGlobalFunctions(t *testing.T) {
	runDocs(t, dune, []evalCase{
		// escapeHTML(html: string): special characters made safe for HTML.
		{`escapeHTML("<p class=\"x\">Tom & 'Jerry'</p>")`, "string:&lt;p class=&quot;x&quot;&gt;Tom &amp; &#39;Jerry&#39;&lt;/p&gt;"},
		// date(string): the format YYYY-MM-DD HH:mm:ss.
		{`date("2025-01-01 12:00:00")`, "date:2025-01-01 12:00:00"},
		{`date("2025-01-01 12:00:00").hour`, "number:12"},
		{`date("2025-01-01")`, "date:2025-01-01"},
		// duration(value): explicit parsing for arithmetic on durations.
		{`now() + '1d'`, "date:2025-05-28 10:30:00"},
		{`now() + (duration('1d') * 2)`, "date:2025-05-29 10:30:00"},
		{`now() + duration('5h') * 2`, "date:2025-05-27 20:30:00"},
		{`duration('5h') * 2 == duration("10h")`, "boolean:true"},
		// file(path | file | url).
		{`file(link("[[Frank Herbert]]")).path`, "string:People/Frank Herbert.md"},
		{`file("Places/Arrakis.md").name`, "string:Arrakis.md"},
		{`file(file).path`, "string:Books/Dune.md"},
		// html(), image(), icon() make values that render.
		{`html("<b>x</b>").isType("html")`, "boolean:true"},
		{`image("https://obsidian.md/images/obsidian-logo-gradient.svg").isType("image")`, "boolean:true"},
		{`icon("arrow-right").isType("icon")`, "boolean:true"},
		// if(condition, trueResult, falseResult?): falseResult defaults to
		// null; a truthy condition counts as true.
		{`if(true, "a")`, "string:a"},
		{`if(false, "a")`, "null:"},
		{`if(false, "a", "b")`, "string:b"},
		{`if(0, "a", "b")`, "string:b"},
		{`if("x", "a", "b")`, "string:a"},
		{`if([], "a", "b")`, "string:b"},
		{`if(isModified, "Modified", "Unmodified")`, "string:Unmodified"},
		// link(path, display?).
		{`link("filename")`, "link:filename"},
		{`link("filename", "display")`, "link:display"},
		{`link("filename", icon("plus"))`, "link:plus"},
		{`link("Frank Herbert").asFile().path`, "string:People/Frank Herbert.md"},
		// list(element): a list unmodified, anything else wrapped in a
		// list of one element.
		{`list("value")`, "list:value"},
		{`list("value").length`, "number:1"},
		{`list("value")[0]`, "string:value"},
		{`list([1, 2])`, "list:1, 2"},
		{`list([1, 2]).length`, "number:2"},
		{`list(tags)`, "list:book, scifi"},
		{`list(status)`, "list:reading"},
		{`list(5)[0]`, "number:5"},
		{`list(missing).length`, "number:1"},
		{`list(missing)[0]`, "null:"},
		// max() and min(): the largest and smallest of the numbers.
		{`max(1, 5, 3)`, "number:5"},
		{`min(4, 2, 8)`, "number:2"},
		{`max(-1.5, -2)`, "number:-1.5"},
		{`min(7)`, "number:7"},
		// choice: on dates they give the latest and earliest date.
		{`max(date("2025-01-01"), date("2025-03-01"), date("2024-12-31"))`, "date:2025-03-01"},
		{`min(date("2025-01-01"), date("2025-03-01"), date("2024-12-31"))`, "date:2024-12-31"},
		{`max(file.mtime, file.ctime)`, "date:2025-05-26 18:00:00"},
		{`min(file.mtime, file.ctime)`, "date:2025-01-10 09:00:00"},
		// now(): the current moment.
		{`now()`, "date:2025-05-27 10:30:00"},
		// number(input).
		{`number("3.4")`, "number:3.4"},
		{`number(date("1970-01-01 00:00:01Z"))`, "number:1000"},
		{`number(true)`, "number:1"},
		{`number(false)`, "number:0"},
		{`number(5)`, "number:5"},
		// today(): the date, the time set to midnight.
		{`today()`, "date:2025-05-27"},
		{`today().hour`, "number:0"},
		{`today().format("YYYY-MM-DD HH:mm:ss")`, "string:2025-05-27 00:00:00"},
		// random(): a number between 0 and 1.
		{`random() >= 0 && random() < 1`, "boolean:true"},
	})
}

// TestDocsAnyFunctions: Functions.md > Any type, on every type.
func TestDocsAnyFunctions(t *testing.T) {
	runDocs(t, dune, []evalCase{
		// isTruthy(): the value coerced into a boolean, as JavaScript
		// does, except that an empty list or object is false (see Truthy).
		{`1.isTruthy()`, "boolean:true"},
		{`0.isTruthy()`, "boolean:false"},
		{`(-1).isTruthy()`, "boolean:true"},
		{`"".isTruthy()`, "boolean:false"},
		{`"0".isTruthy()`, "boolean:true"},
		{`"false".isTruthy()`, "boolean:true"},
		{`true.isTruthy()`, "boolean:true"},
		{`false.isTruthy()`, "boolean:false"},
		{`null.isTruthy()`, "boolean:false"},
		{`missing.isTruthy()`, "boolean:false"},
		{`[1].isTruthy()`, "boolean:true"},
		{`[].isTruthy()`, "boolean:false"},
		{`{"a": 1}.isTruthy()`, "boolean:true"},
		{`{}.isTruthy()`, "boolean:false"},
		{`now().isTruthy()`, "boolean:true"},
		{`file.isTruthy()`, "boolean:true"},
		{`author.isTruthy()`, "boolean:true"},
		// isType(type): the examples, then each type's name.
		{`"example".isType("string")`, "boolean:true"},
		{`true.isType("boolean")`, "boolean:true"},
		{`42.isType("number")`, "boolean:true"},
		{`"42".isType("number")`, "boolean:false"},
		{`[1, 2].isType("list")`, "boolean:true"},
		{`{"a": 1}.isType("object")`, "boolean:true"},
		{`date("2025-05-27").isType("date")`, "boolean:true"},
		{`due.isType("date")`, "boolean:true"},
		{`duration("1d").isType("duration")`, "boolean:true"},
		{`author.isType("link")`, "boolean:true"},
		{`author.isType("string")`, "boolean:false"},
		{`file.isType("file")`, "boolean:true"},
		{`null.isType("null")`, "boolean:true"},
		{`missing.isType("null")`, "boolean:true"},
		{`/a/.isType("regexp")`, "boolean:true"},
		// toString(): the example, then every type (see Display).
		{`123.toString()`, "string:123"},
		{`(1.5).toString()`, "string:1.5"},
		{`true.toString()`, "string:true"},
		{`"a".toString()`, "string:a"},
		{`date("2025-05-27").toString()`, "string:2025-05-27"},
		{`date("2025-05-27 10:30:00").toString()`, "string:2025-05-27 10:30:00"},
		{`duration("1d").toString()`, "string:1 day"},
		{`[1, "a"].toString()`, "string:1, a"},
		{`{"a": 1}.toString()`, `string:{"a":1}`},
		{`link("Frank Herbert").toString()`, "string:Frank Herbert"},
		{`link("Frank Herbert", "Frank").toString()`, "string:Frank"},
		{`file.toString()`, "string:Books/Dune.md"},
		{`/a+/g.toString()`, "string:/a+/g"},
		{`icon("plus").toString()`, "string:plus"},
		{`null.toString()`, "string:"},
	})
}

// TestDocsIsEmpty: isEmpty() on every type. Date: "Returns false". String:
// no characters, or not present. Number: not present. List: no elements.
// Object: no own properties.
func TestDocsIsEmpty(t *testing.T) {
	runDocs(t, dune, []evalCase{
		{`now().isEmpty()`, "boolean:false"},
		{`date("2025-05-27").isEmpty()`, "boolean:false"},
		{`"Hello world".isEmpty()`, "boolean:false"},
		{`"".isEmpty()`, "boolean:true"},
		{`" ".isEmpty()`, "boolean:false"},
		{`missing.isEmpty()`, "boolean:true"},
		{`null.isEmpty()`, "boolean:true"},
		{`5.isEmpty()`, "boolean:false"},
		{`0.isEmpty()`, "boolean:false"},
		{`price.isEmpty()`, "boolean:false"},
		{`[1,2,3].isEmpty()`, "boolean:false"},
		{`[].isEmpty()`, "boolean:true"},
		{`[null].isEmpty()`, "boolean:false"},
		{`{}.isEmpty()`, "boolean:true"},
		{`{"a": 1}.isEmpty()`, "boolean:false"},
		{`false.isEmpty()`, "boolean:false"},
		{`author.isEmpty()`, "boolean:false"},
		{`file.isEmpty()`, "boolean:false"},
	})
}

// TestDocsDateFunctions: Functions.md > Date type.
func TestDocsDateFunctions(t *testing.T) {
	runDocs(t, dune, []evalCase{
		{`date("2025-05-27 13:45:30.250").year`, "number:2025"},
		{`date("2025-05-27 13:45:30.250").month`, "number:5"},
		{`date("2025-05-27 13:45:30.250").day`, "number:27"},
		{`date("2025-05-27 13:45:30.250").hour`, "number:13"},
		{`date("2025-05-27 13:45:30.250").minute`, "number:45"},
		{`date("2025-05-27 13:45:30.250").second`, "number:30"},
		{`date("2025-05-27 13:45:30.250").millisecond`, "number:250"},
		{`date("2025-01-05").month`, "number:1"},
		{`now().date().format("YYYY-MM-DD HH:mm:ss")`, "string:2025-05-27 00:00:00"},
		{`now().date()`, "date:2025-05-27"},
		{`date("2025-05-27").format("YYYY-MM-DD")`, "string:2025-05-27"},
		{`due.format("YYYY-MM-DD")`, "string:2025-06-01"},
		{`date("2025-05-27 23:59:59").time()`, "string:23:59:59"},
		{`now().time()`, "string:10:30:00"},
		{`(now() - "3d").relative()`, "string:3 days ago"},
		{`file.mtime.relative()`, "string:17 hours ago"},
	})
}

// TestDocsStringFunctions: Functions.md > String type, every example.
func TestDocsStringFunctions(t *testing.T) {
	runDocs(t, dune, []evalCase{
		{`"hello".length`, "number:5"},
		{`"".length`, "number:0"},
		{`"hello".contains("ell")`, "boolean:true"},
		{`"hello".containsAll("h", "e")`, "boolean:true"},
		{`"hello".containsAll("h", "z")`, "boolean:false"},
		{`"hello".containsAny("x", "y", "e")`, "boolean:true"},
		{`"hello".containsAny("x", "y")`, "boolean:false"},
		{`"hello".endsWith("lo")`, "boolean:true"},
		{`"hello".endsWith("he")`, "boolean:false"},
		{`"HeLLo World".lower()`, "string:hello world"},
		{`"a:b:c:d".replace(/:/, "-")`, "string:a-b:c:d"},
		{`"a:b:c:d".replace(/:/g, "-")`, "string:a-b-c-d"},
		// A string pattern replaces all occurrences.
		{`"a:b:c:d".replace(":", "-")`, "string:a-b-c-d"},
		{`"John Smith".replace(/(\w+) (\w+)/, "$2, $1")`, "string:Smith, John"},
		{`"123".repeat(2)`, "string:123123"},
		{`"hello".reverse()`, "string:olleh"},
		{`"hello".slice(1, 4)`, "string:ell"},
		{`"hello".slice(1)`, "string:ello"},
		// Negative indices count from the end, as in JavaScript.
		{`"hello".slice(-3)`, "string:llo"},
		{`"hello".slice(-3, -1)`, "string:ll"},
		{`"hello".slice(1, -1)`, "string:ell"},
		{`"hello".slice(-10, 2)`, "string:he"},
		{`"a,b,c,d".split(",", 3)`, "list:a, b, c"},
		{`"a,b,c,d".split(/,/, 3)`, "list:a, b, c"},
		{`"a,b,c".split(",")`, "list:a, b, c"},
		{`"a,b,c".split(",").length`, "number:3"},
		{`"a,b,c".split(",")[2]`, "string:c"},
		{`"hello".startsWith("he")`, "boolean:true"},
		{`"hello world".title()`, "string:Hello World"},
		{`"the lord of the rings".title()`, "string:The Lord Of The Rings"},
		{`"  hi  ".trim()`, "string:hi"},
	})
}

// TestDocsNumberFunctions: Functions.md > Number type, every example.
func TestDocsNumberFunctions(t *testing.T) {
	runDocs(t, dune, []evalCase{
		{`(-5).abs()`, "number:5"},
		{`(2.1).ceil()`, "number:3"},
		{`(2.9).floor()`, "number:2"},
		{`5.isEmpty()`, "boolean:false"},
		{`(2.5).round()`, "number:3"},
		{`(2.3333).round(2)`, "number:2.33"},
		{`(3.14159).toFixed(2)`, "string:3.14"},
		{`(3).toFixed(2)`, "string:3.00"},
	})
}

// TestDocsListFunctions: Functions.md > List type, every example.
func TestDocsListFunctions(t *testing.T) {
	runDocs(t, dune, []evalCase{
		{`[1, 2, 3].length`, "number:3"},
		{`[1,2,3].contains(2)`, "boolean:true"},
		{`[1,2,3].containsAll(2,3)`, "boolean:true"},
		{`[1,2,3].containsAny(3,4)`, "boolean:true"},
		{`[1,2,3,4].filter(value > 2)`, "list:3, 4"},
		{`[1,2,3,4].filter(index >= 2)`, "list:3, 4"},
		{`[1,[2,3]].flat()`, "list:1, 2, 3"},
		// choice: "Flattens a nested list into a single list": every
		// level, so no list is left inside.
		{`[1,[2,[3,[4]]]].flat()`, "list:1, 2, 3, 4"},
		{`[1,[2,[3,[4]]]].flat()[3]`, "number:4"},
		{`[1,2,3].isEmpty()`, "boolean:false"},
		{`[1,2,3].join(",")`, "string:1,2,3"},
		{`[1,2,3,4].map(value + 1)`, "list:2, 3, 4, 5"},
		{`[10,20].map(index)`, "list:0, 1"},
		{`[1,2,3].reduce(acc + value, 0)`, "number:6"},
		{`[5,1,9,"x"].filter(value.isType("number")).reduce(if(acc == null || value > acc, value, acc), null)`, "number:9"},
		{`["x"].filter(value.isType("number")).reduce(if(acc == null || value > acc, value, acc), null)`, "null:"},
		{`[1,2,3].reverse()`, "list:3, 2, 1"},
		{`[1,2,3,4].slice(1,3)`, "list:2, 3"},
		{`[1,2,3,4].slice(1)`, "list:2, 3, 4"},
		{`[1,2,3,4].slice(-2)`, "list:3, 4"},
		{`[3, 1, 2].sort()`, "list:1, 2, 3"},
		{`["c", "a", "b"].sort()`, "list:a, b, c"},
		{`[10, 9, 100].sort()`, "list:9, 10, 100"},
		{`[date("2025-03-01"), date("2025-01-01")].sort()`, "list:2025-01-01, 2025-03-01"},
		// choice: mixed types sort by type (booleans, numbers, dates,
		// durations, text, then the rest), null last.
		{`["b", 2, "a", 1].sort()`, "list:1, 2, a, b"},
		{`[null, 2, 1].sort()[2]`, "null:"},
		{`[1,2,2,3].unique()`, "list:1, 2, 3"},
		{`["a", "b", "a"].unique()`, "list:a, b"},
	})
}

// TestDocsLinkAndFileFunctions: Functions.md > Link type and File type.
func TestDocsLinkAndFileFunctions(t *testing.T) {
	runDocs(t, dune, []evalCase{
		// asFile(): a file when the link refers to a valid local file.
		{`link("[[Frank Herbert]]").asFile()`, "file:People/Frank Herbert.md"},
		{`link("[[filename]]").asFile()`, "null:"},
		// linksTo(file): the file the link represents links to file.
		// Frank Herbert's note links to Dune.
		{`author.linksTo(file)`, "boolean:true"},
		{`link("Places/Arrakis").linksTo(file)`, "boolean:false"},
		// Fields.
		{`file.name`, "string:Dune.md"},
		{`file.basename`, "string:Dune"},
		{`file.path`, "string:Books/Dune.md"},
		{`file.folder`, "string:Books"},
		{`file.ext`, "string:md"},
		{`file.ext == "md"`, "boolean:true"},
		{`file.size`, "number:2048"},
		{`file.properties.status`, "string:reading"},
		{`file.tags.contains("#book")`, "boolean:true"},
		{`file.links.length`, "number:3"},
		{`file.ctime`, "date:2025-01-10 09:00:00"},
		{`file.mtime`, "date:2025-05-26 18:00:00"},
		// asLink(display?).
		{`file.asLink()`, "link:Books/Dune.md"},
		{`file.asLink("Dune")`, "link:Dune"},
		// hasLink(otherFile: file | string).
		{`file.hasLink("Textbook")`, "boolean:true"},
		{`file.hasLink(file("Textbook.md"))`, "boolean:true"},
		{`file.hasLink(link("Frank Herbert"))`, "boolean:true"},
		{`file.hasLink("Reading list")`, "boolean:false"},
		// hasProperty(name).
		{`file.hasProperty("status")`, "boolean:true"},
		{`file.hasProperty("isbn")`, "boolean:false"},
		// hasTag(...values): any of the tags, nested tags included.
		{`file.hasTag("book")`, "boolean:true"},
		{`file.hasTag("scifi")`, "boolean:true"},
		{`file.hasTag("scifi/classic")`, "boolean:true"},
		{`file.hasTag("classic")`, "boolean:false"},
		{`file.hasTag("sci")`, "boolean:false"},
		{`file.hasTag("tag1", "tag2")`, "boolean:false"},
		{`file.hasTag("tag1", "book")`, "boolean:true"},
		// Object type, Regular expression type.
		{`{}.isEmpty()`, "boolean:true"},
		{`{"a": 1, "b": 2}.keys()`, "list:a, b"},
		{`{"a": 1, "b": 2}.values()`, "list:1, 2"},
		{`/abc/.matches("abcde")`, "boolean:true"},
		{`/abc/.matches("ab")`, "boolean:false"},
	})
	runDocs(t, plan, []evalCase{
		// file.hasTag("tag1", "tag2") is true for #tag1/a.
		{`file.hasTag("tag1", "tag2")`, "boolean:true"},
		// inFolder(folder): the folder or one of its sub-folders.
		{`file.inFolder("Notes")`, "boolean:true"},
		{`file.inFolder("Notes/Projects")`, "boolean:true"},
		{`file.inFolder("Projects")`, "boolean:false"},
		{`file.inFolder("Note")`, "boolean:false"},
		{`file.folder`, "string:Notes/Projects"},
	})
}

// TestDocsSyntaxOperators: "Bases syntax.md" > Operators, Types, and the
// examples of Formulas.md.
func TestDocsSyntaxOperators(t *testing.T) {
	runDocs(t, dune, []evalCase{
		// Arithmetic operators.
		{`2 * (2 * 3.14)`, "number:12.56"},
		{`7 + 2`, "number:9"},
		{`7 - 2`, "number:5"},
		{`7 * 2`, "number:14"},
		{`7 / 2`, "number:3.5"},
		{`7 % 2`, "number:1"},
		{`(1 + 2) * 3`, "number:9"},
		// Date arithmetic: every unit of the table, then the examples.
		{`date("2025-01-01") + "1y"`, "date:2026-01-01"},
		{`date("2025-01-01") + "1year"`, "date:2026-01-01"},
		{`date("2025-01-01") + "2years"`, "date:2027-01-01"},
		{`date("2025-01-01") + "1M"`, "date:2025-02-01"},
		{`date("2025-01-01") + "1month"`, "date:2025-02-01"},
		{`date("2025-01-01") + "2months"`, "date:2025-03-01"},
		{`date("2025-01-01") + "1d"`, "date:2025-01-02"},
		{`date("2025-01-01") + "1day"`, "date:2025-01-02"},
		{`date("2025-01-01") + "2days"`, "date:2025-01-03"},
		{`date("2025-01-01") + "1w"`, "date:2025-01-08"},
		{`date("2025-01-01") + "1week"`, "date:2025-01-08"},
		{`date("2025-01-01") + "2weeks"`, "date:2025-01-15"},
		{`date("2025-01-01") + "1h"`, "date:2025-01-01 01:00:00"},
		{`date("2025-01-01") + "1hour"`, "date:2025-01-01 01:00:00"},
		{`date("2025-01-01") + "2hours"`, "date:2025-01-01 02:00:00"},
		{`date("2025-01-01") + "1m"`, "date:2025-01-01 00:01:00"},
		{`date("2025-01-01") + "1minute"`, "date:2025-01-01 00:01:00"},
		{`date("2025-01-01") + "2minutes"`, "date:2025-01-01 00:02:00"},
		{`date("2025-01-01") + "1s"`, "date:2025-01-01 00:00:01"},
		{`date("2025-01-01") + "1second"`, "date:2025-01-01 00:00:01"},
		{`date("2025-01-01") + "2seconds"`, "date:2025-01-01 00:00:02"},
		{`date("2025-01-01") + "3 days"`, "date:2025-01-04"},
		{`date("2025-01-01 12:00:00") + "1M"`, "date:2025-02-01 12:00:00"},
		{`date("2025-01-01 12:00:00") - "2h"`, "date:2025-01-01 10:00:00"},
		{`now() + "1 day"`, "date:2025-05-28 10:30:00"},
		{`file.mtime > now() - "1 week"`, "boolean:true"},
		{`file.ctime > now() - "1 week"`, "boolean:false"},
		{`date("2024-12-01") + "1M" + "4h" + "3m"`, "date:2025-01-01 04:03:00"},
		// Two dates subtract to milliseconds: from 2025-01-10 09:00 to
		// 2025-05-27 10:30 is 137 days and 90 minutes.
		{`now() - file.ctime`, "number:11842200000"},
		{`date("1900-01-01") - date("2300-01-01")`, "number:-12622780800000"},
		{`(now() + "1d") - now()`, "number:86400000"},
		{`today() + "7d"`, "date:2025-06-03"},
		{`now() + "1 hour"`, "date:2025-05-27 11:30:00"},
		{`now().date()`, "date:2025-05-27"},
		{`now().format("YYYY-MM-DD")`, "string:2025-05-27"},
		{`now().hour`, "number:10"},
		// Comparison operators: numbers and dates; == and != on any value.
		{`price > 10`, "boolean:true"},
		{`price < 10`, "boolean:false"},
		{`price >= 12.5`, "boolean:true"},
		{`price <= 12.5`, "boolean:true"},
		{`price == 12.5`, "boolean:true"},
		{`price != 12.5`, "boolean:false"},
		{`due > date("2025-05-01")`, "boolean:true"},
		{`due < now()`, "boolean:false"},
		{`status == "reading"`, "boolean:true"},
		{`status != "done"`, "boolean:true"},
		{`tags == ["book", "scifi"]`, "boolean:true"},
		{`done == false`, "boolean:true"},
		{`missing == null`, "boolean:true"},
		// Boolean operators give true or false.
		{`!done`, "boolean:true"},
		{`price > 0 && age > 0`, "boolean:true"},
		{`price && age`, "boolean:true"},
		{`done || missing`, "boolean:false"},
		{`done || "x"`, "boolean:true"},
		// Types: primitives, lists and objects.
		{`"message"`, "string:message"},
		{`'message'`, "string:message"},
		{`(2.5)`, "number:2.5"},
		{`true`, "boolean:true"},
		{`tags[0]`, "string:book"},
		{`meta.pages`, "number:412"},
		{`meta["pages"]`, "number:412"},
		{`note.price`, "number:12.5"},
		{`note["price"]`, "number:12.5"},
		// Files and links.
		{`link(file.ctime.date().toString())`, "link:2025-01-10"},
		{`this.file.folder`, "string:/"},
		{`this.file.name`, "string:Reading list.md"},
		// Formulas.md examples.
		{`file.name + " - " + status`, "string:Dune.md - reading"},
		{`(price / age) * 100`, "number:250"},
		{`if(price, "$" + price.toFixed(2), "")`, "string:$12.50"},
		{`if(missing, "$" + missing.toFixed(2), "")`, "string:"},
		{`file.name.lower()`, "string:dune.md"},
		{`tags.contains("scifi")`, "boolean:true"},
		{`started + "2w"`, "date:2025-06-03 08:15:00"},
		{`tags.length`, "number:2"},
		{`if(due < now() && status != "Done", "Overdue", "")`, "string:"},
	})
	runDocs(t, plan, []evalCase{
		{`price * quantity`, "number:7.5"},
		{`first_name + " " + last_name`, "string:Ada Lovelace"},
	})
}

// TestNowIsOneMomentPerEvaluation: without a clock in the Env, now() reads
// the time once for an expression, so that (now() + "1d") - now() is the
// page's 86400000 and not a millisecond or two off.
func TestNowIsOneMomentPerEvaluation(t *testing.T) {
	x := MustParse(`(now() + "1d") - now() == 86400000 && now() == now()`)
	for i := range 200 {
		got, err := x.Eval(&Env{}, nil)
		if err != nil {
			t.Fatal(err)
		}
		if got != Bool(true) {
			t.Fatalf("evaluation %d: %s", i, show(got))
		}
	}
}

// TestDocsErrors: malformed expressions (wrong number of arguments, a
// function on a value it does not work on, an unknown function, an
// unclosed string, parenthesis or bracket) are refused with a message that
// names the expression and the column.
func TestDocsErrors(t *testing.T) {
	v, book := docsVault()
	env := testEnv(v, nil)
	for _, tc := range []struct {
		src    string
		column int
		want   string
	}{
		{`"hello".contains()`, 9, "contains() takes 1 argument, got 0"},
		{`"hello".slice()`, 9, "slice() takes 1 to 2 arguments, got 0"},
		{`"hello".lower(1)`, 9, "lower() takes no arguments, got 1"},
		{`if()`, 1, "if() takes 2 to 3 arguments, got 0"},
		{`if(1, 2, 3, 4)`, 1, "if() takes 2 to 3 arguments, got 4"},
		{`date()`, 1, "date() takes 1 argument, got 0"},
		{`[1].filter()`, 5, "filter() takes 1 argument, got 0"},
		{`[1].reduce(acc + value)`, 5, "reduce() takes 2 arguments, got 1"},
		{`max()`, 1, "max() takes at least 1 argument, got 0"},
		{`5.lower()`, 3, "lower() does not work on a number; it works on text"},
		{`[1].title()`, 5, "title() does not work on a list; it works on text"},
		{`now().contains("a")`, 7, "contains() does not work on a date; it works on text and lists"},
		{`"a".hasTag("x")`, 5, "hasTag() does not work on a string; it works on files"},
		{`5.filter(value > 1)`, 3, "filter() does not work on a number; it works on lists"},
		{`"a".round()`, 5, "round() does not work on a string; it works on numbers"},
		{`"a".upper()`, 5, `unknown function "upper"`},
		{`nosuch()`, 1, `unknown function "nosuch"`},
		{`max(1, "a")`, 8, "max() expects a number or a date here, got a string"},
		{`max(1, now())`, 8, "max() expects numbers or dates, not both"},
		{`"abc`, 1, `text starting here has no closing "`},
		{`'abc`, 1, `text starting here has no closing '`},
		{`(1 + 2`, 7, `expected ")" to close the parenthesis opened at column 1, found the end of the expression`},
		{`[1, 2`, 6, `expected "," or "]" to close the list, found the end of the expression`},
		{`max(1, 2`, 9, `expected "," or ")" to close the arguments, found the end of the expression`},
		{`tags[0`, 7, `expected "]" to close the index, found the end of the expression`},
		{`{"a": 1`, 8, `expected "," or "}" to close the object, found the end of the expression`},
	} {
		_, err := evalString(t, env, book, tc.src)
		pe, ok := err.(*Error)
		if !ok {
			t.Errorf("%s: error = %v, want an *Error", tc.src, err)
			continue
		}
		if pe.Column != tc.column || pe.Msg != tc.want || pe.Expr != tc.src {
			t.Errorf("%s: got column %d %q,\nwant column %d %q", tc.src, pe.Column, pe.Msg, tc.column, tc.want)
		}
		if msg := err.Error(); !strings.Contains(msg, tc.src) || !strings.Contains(msg, "column ") {
			t.Errorf("%s: message %q names neither the expression nor the column", tc.src, msg)
		}
	}
}

// TestDocsSummaries: "Bases syntax.md" > Default Summary Formulas and
// Layouts/Table view.md > Built-in summaries, each on a column that mixes
// types and empty cells.
func TestDocsSummaries(t *testing.T) {
	d := func(s string) Value { v, _ := parseDate(s, time.UTC); return v }
	column := []Value{Number(4), Null{}, String("12"), Number(1), Bool(true), Number(7), String(""), d("2025-01-01")}
	dates := []Value{d("2025-03-01"), Null{}, d("2025-01-01 12:00:00"), String("2020-01-01"), Number(5), d("2025-01-31")}
	checks := []Value{Bool(true), Bool(false), Null{}, Bool(true), String("true"), Number(1)}
	for _, tc := range []struct {
		s      Summary
		values []Value
		want   string
	}{
		// The number summaries read the numbers, and the text holding
		// one (the page's example averages formula.ppu, a toFixed()
		// text): 4, 12, 1 and 7.
		{SummaryAverage, column, "number:6"},
		{SummaryMin, column, "number:1"},
		{SummaryMax, column, "number:12"},
		{SummarySum, column, "number:24"},
		{SummaryRange, column, "number:11"},
		{SummaryMedian, column, "number:5.5"},
		{SummaryMedian, []Value{Number(1), Number(2), Number(3), Number(10)}, "number:2.5"},
		{SummaryStddev, []Value{Number(2), Number(4), Number(4), Number(4), Number(5), Number(5), Number(7), Number(9)}, "number:2"},
		// The date summaries read the dates only.
		{SummaryEarliest, dates, "date:2025-01-01 12:00:00"},
		{SummaryLatest, dates, "date:2025-03-01"},
		// Range of dates is Latest minus Earliest, and two dates subtract
		// to milliseconds: 58 days and 12 hours.
		{SummaryRange, dates[:4], "number:5054400000"},
		// Checked and Unchecked count true and false.
		{SummaryChecked, checks, "number:2"},
		{SummaryUnchecked, checks, "number:1"},
		// Empty: null and "" (and an empty list); Filled the rest.
		{SummaryEmpty, column, "number:2"},
		{SummaryFilled, column, "number:6"},
		// choice: Unique counts the distinct filled values.
		{SummaryUnique, []Value{String("a"), String("a"), String("b"), Null{}, Number(1), String("1")}, "number:4"},
	} {
		if got := show(Summarize(nil, tc.s, tc.values)); got != tc.want {
			t.Errorf("%s(%v) = %s, want %s", tc.s, tc.values, got, tc.want)
		}
	}
}

// TestWrongArityIsFoundWhenParsed: a call with a number of arguments its
// function takes on no kind of value is refused when the expression is
// read, so that price.toFixed() is an error for the whole view and not
// only on the notes that have a price (a function called on a missing
// value gives null without looking at its arguments).
func TestWrongArityIsFoundWhenParsed(t *testing.T) {
	for _, tc := range []struct {
		src    string
		column int
		want   string
	}{
		{`missing.toFixed()`, 9, "toFixed() takes 1 argument, got 0"},
		{`missing.contains()`, 9, "contains() takes 1 argument, got 0"},
		{`missing.slice(1, 2, 3)`, 9, "slice() takes 1 to 2 arguments, got 3"},
		{`missing.filter()`, 9, "filter() takes 1 argument, got 0"},
		{`missing.isEmpty(1)`, 9, "isEmpty() takes no arguments, got 1"},
		{`file.hasTag()`, 6, "hasTag() takes at least 1 argument, got 0"},
		{`now(1)`, 1, "now() takes no arguments, got 1"},
		{`if(price)`, 1, "if() takes 2 to 3 arguments, got 1"},
		{`1 + today(2)`, 5, "today() takes no arguments, got 1"},
	} {
		_, err := Parse(tc.src)
		pe, ok := err.(*Error)
		if !ok {
			t.Errorf("Parse(%s): error = %v, want an *Error", tc.src, err)
			continue
		}
		if pe.Column != tc.column || pe.Msg != tc.want {
			t.Errorf("Parse(%s): got column %d %q, want column %d %q", tc.src, pe.Column, pe.Msg, tc.column, tc.want)
		}
	}
	// Counts that fit some kind are left to the evaluation.
	for _, src := range []string{`missing.slice(1)`, `missing.round()`, `missing.round(2)`, `missing.asLink("x")`, `if(a, b)`} {
		if _, err := Parse(src); err != nil {
			t.Errorf("Parse(%s): %v", src, err)
		}
	}
}

// TestDocsSyntaxPageView: the view of the Bases syntax page's example
// keeps a note by `formula.ppu > 5` alone (its price is not above 2.1),
// though ppu is text, (price / age).toFixed(2); and its Average summary
// of formula.ppu is the mean of those texts' numbers.
func TestDocsSyntaxPageView(t *testing.T) {
	b, err := ParseBase([]byte(`formulas:
  ppu: "(price / age).toFixed(2)"
views:
  - type: table
    name: "My table"
    filters:
      and:
        - 'status != "done"'
        - or:
            - "formula.ppu > 5"
            - "price > 2.1"
    summaries:
      formula.ppu: Average
`))
	if err != nil {
		t.Fatal(err)
	}
	cheap := &MemFile{FilePath: "Cheap.md", Props: map[string]any{"price": 2, "age": 0.25, "status": "new"}}
	low := &MemFile{FilePath: "Low.md", Props: map[string]any{"price": 2, "age": 1, "status": "new"}}
	env := b.Env(Env{Now: testNow})
	filter := b.ViewFilter(&b.Views[0])
	for f, want := range map[*MemFile]bool{cheap: true, low: false} {
		if ok, err := filter.Match(env, f); err != nil || ok != want {
			t.Errorf("%s: match = %v, %v; want %v", f.FilePath, ok, err, want)
		}
	}
	var ppus []Value
	for _, f := range []*MemFile{cheap, low} {
		v, err := b.Formulas.Eval(env, f, "ppu")
		if err != nil {
			t.Fatal(err)
		}
		ppus = append(ppus, v)
	}
	// "8.00" and "2.00".
	if got, err := b.Summarize(env, b.Views[0].Summaries["formula.ppu"], ppus); err != nil || show(got) != "number:5" {
		t.Errorf("Average of %v = %v, %v; want 5", ppus, got, err)
	}
}

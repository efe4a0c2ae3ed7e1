package notes

import (
	"strings"
	"testing"
)

// TestPlain: a snippet shows a note's text as its reader sees it, whatever
// Markdown it was cut from.
func TestPlain(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"## Improvements\n### Tables\n- New buttons to add a column.\n- Sorting ignores formatting.", "Improvements · Tables · New buttons to add a column. Sorting ignores formatting."},
		{"…ments\n## Improvements\n- Added", "…ments Improvements · Added"},
		// A heading is set apart from the text after it, as table cells
		// are from one another, so that the two do not read as one
		// sentence.
		{"# Sourdough hydration\n\nHydration of the dough matters. Bake at 3:00.\n\n## Troubleshooting\n\nSour and thin", "Sourdough hydration · Hydration of the dough matters. Bake at 3:00. Troubleshooting · Sour and thin"},
		{"text\n## Last heading", "text Last heading"},
		{"## Heading\n```sh\nmake\n```", "Heading · `make`"},
		{"…## Cut inside a heading", "…Cut inside a heading"},
		{"| Action | Shortcut |\n|--|:--:|\n| Copy | `Ctrl+C` |", "Action · Shortcut Copy · `Ctrl+C`"},
		// A row the snippet's end cut through reads like a whole one.
		{"here\n| col1 | col2 |\n| zebrafish | val…", "here col1 · col2 zebrafish · val…"},
		{"here\n| col1 | col2 |\n| zebrafish…", "here col1 · col2 zebrafish…"},
		{"> [!tip]- Use shortcuts\n> You can speed up your work.", "Use shortcuts You can speed up your work."},
		{"> > nested quote", "nested quote"},
		{"1. first\n2) second\n- [ ] task\n- [x] done", "first second task done"},
		{"Select ![[lucide-table.svg#icon]] Table from the menu", "Select Table from the menu"},
		// A file embedded that is not an image is named (trial 22: the
		// PDF a search matched by its name was not shown).
		{"Hoja de ejercicios: ![[Arbeitsblätter/subjuntivo-hoja1.pdf]]", "Hoja de ejercicios: Arbeitsblätter/subjuntivo-hoja1.pdf"},
		{"Listen: ![[Audio/Lektion 3.mp3#t=10]] twice", "Listen: Audio/Lektion 3.mp3 twice"},
		{"See [[Embed files#Embed an image in a note|embedding instructions]].", "See embedding instructions."},
		{"See [[Embed files#Embed an image]] and [[#Keyboard shortcuts]] and [[Note#^block1]].", "See Embed files > Embed an image and Keyboard shortcuts and Note > ^block1."},
		{"![[Other note]] is embedded", "Other note is embedded"},
		{"a [link](https://example.com/x) and ![img](a.png) here", "a link and here"},
		{"…Action | Shortcut", "…Action | Shortcut"},
		// A row the snippet's start cut through reads like a whole one too.
		{"…py | `Ctrl+C` |\n| Paste | `Ctrl+V` |", "…py · `Ctrl+C` Paste · `Ctrl+V`"},
		{"…ion | Shortcut |", "…ion · Shortcut"},
		{"…ion | Shortcut |\n| Copy | `Ctrl…", "…ion · Shortcut Copy · `Ctrl…"},
		{"```css\n.callout { --x: 1; }\n```\nafter", "`.callout { --x: 1; }` after"},
		{"```md\n# not a heading inside code\n```", "`# not a heading inside code`"},
		{"#tag at the start stays", "#tag at the start stays"},
		{"the \x02kettle\x03 matters", "the **kettle** matters"},
		{"- \x02kettle\x03 first", "**kettle** first"},
		{"# \x02Title\x03", "**Title**"},
		{"", ""},
		{"write `[[Note|shown]]` for [[Note|shown]]", "write `[[Note|shown]]` for shown"},
		{"a `[link](x.md)` and ` [[open", "a `[link](x.md)` and ` open"},
		// Code inside a quote or a callout: its fences and the quote
		// markers go, the code stays as written, one code span.
		{"> Run this:\n> ```sh\n> jarvis index\n> ```\n> Then search.", "Run this: `jarvis index` Then search."},
		{"> [!example] Config\n> ```yaml\n> vaults: [notes]\n> ```", "Config `vaults: [notes]`"},
		{"> > ~~~\n> > # not a heading\n> > ~~~\n> > after", "`# not a heading` after"},
		// A code line that begins with ">" outside any quote stays.
		{"```\n> prompt\n```", "`> prompt`"},
		// Fences in lists, nested or opening the item.
		{"- step one\n  ```bash\n  make\n  ```\n- step two", "step one `make` step two"},
		{"1. first\n   - sub\n     ```\n     - not a bullet\n     ```", "first sub `- not a bullet`"},
		{"- ```go\n  x := 1\n  ```\n- next", "`x := 1` next"},
		{"> - in a quoted list\n>   ```\n>   code\n>   ```", "in a quoted list `code`"},
		// Matched words are bold outside code only; inside code, fenced
		// or inline, in a quote, a callout or a list, the text is as
		// written: the note's own ** and [[brackets]] stay.
		{"> Quoted \x02code\x03\n\n> Example:\n> ```python\n> # **\x02bold\x03** \x02heading\x03 in \x02code\x03\n> x = [[not a link]]\n> ```\n zebrafish words.",
			"Quoted **code** Example: `# **bold** heading in code x = [[not a link]]` zebrafish words."},
		{"> [!note]\n> - ```\n>   \x02code\x03 here\n>   ```", "`code here`"},
		{"a `\x02code\x03 [[x]]` and **\x02bold\x03** [[x]]", "a `code [[x]]` and **bold** x"},
		{"```\nuse `ticks`\n```", "`` use `ticks` ``"},
		{"```\n\x02cut\x03 inside code", "`cut inside code`"},
		// Block ids at the end of a line go, and table cells are set
		// apart by a middle dot, not the pipes a reader does not see.
		{"The timeline slips a month. ^timeline\n- Goal for Q2 ^q2-goal", "The timeline slips a month. Goal for Q2"},
		{"A paragraph.\n\n^para-id", "A paragraph."},
		{"Search the \x02timeline\x03 ^\x02timeline\x03", "Search the **timeline**"},
		{"| Name | Link |\n| --- | --- |\n| Tea | [[Tea note\\|tea]] |\n| Code | `a|b` |", "Name · Link Tea · tea Code · `a|b`"},
		{"costs 2^10 and x^y", "costs 2^10 and x^y"},
	} {
		if got := Plain(tc.in); got != tc.want {
			t.Errorf("Plain(%q)\n got %q\nwant %q", tc.in, got, tc.want)
		}
	}
}

func FuzzPlain(f *testing.F) {
	for _, s := range []string{"## a\n- [[b|c]]", "![[x.png]]", "> [!note] t", "```\ncode", "[a](b)", "|--|--|",
		"> ```sh\n> code\n> ```", "> [!tip]\n> ~~~\n> > x\n> ~~~", "- ```go\n  x\n  ```", "1. a\n   - b\n     ```\n     c\n     ```",
		"> - a\n>   ```\n>   b", "```\n> not a quote\n```"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		out := Plain(s)
		if len(out) > len(s)+len("…") {
			t.Fatalf("Plain(%q) = %q grew", s, out)
		}
	})
}

// TestLines: a passage is made plain from whole lines, so that a heading
// cut in half still reads as a heading, and lines inside a fenced code
// block still read as code, their "#" being code.
func TestLines(t *testing.T) {
	for _, tc := range []struct {
		name, text, at, want string // at: the text the passage begins and ends in
	}{
		{"heading", "Intro.\n## Atomic notes principle\nEach zettel", "principle", "Atomic notes principle"},
		{"callout title", "> [!tip] Atomic notes principle", "principle", "Atomic notes principle"},
		{"comment in code", "```sh\n# install the tools\n```", "the tools", "`# install the tools`"},
		{"code in a callout", "> [!tip] Tip\n> ```\n> # install the tools\n> ```", "the tools", "`# install the tools`"},
		{"heading after code", "```sh\n# install\n```\n## Atomic notes principle", "principle", "Atomic notes principle"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			at := strings.LastIndex(tc.text, tc.at)
			lines, start, end := Lines(tc.text, at, at+len(tc.at))
			if got := Plain(lines); got != tc.want {
				t.Errorf("Plain(Lines) = %q from %q; want %q", got, lines, tc.want)
			}
			if start > at || end < at+len(tc.at) || (start > 0 && tc.text[start-1] != '\n') || (end < len(tc.text) && tc.text[end] != '\n') {
				t.Errorf("lines [%d, %d) are not the whole lines around %d", start, end, at)
			}
		})
	}
}

package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/jarvis-mcp/jarvis/internal/sharedtest"
)

func TestShowSnippet(t *testing.T) {
	const on, off = boldOn, boldOff
	tests := []struct {
		name, give, bold, plain string
	}{
		{"words", "grind the **beans** **finely**",
			"grind the " + on + "beans" + off + " " + on + "finely" + off, "grind the beans finely"},
		{"no match", "nothing marked", "nothing marked", "nothing marked"},
		{"wikilink", "**grind** see [[**Grind** size]] and **grind**",
			on + "grind" + off + " see [[Grind size]] and " + on + "grind" + off, "grind see [[Grind size]] and grind"},
		{"embed and alias", "![[**Grind**.png]] [[Note|**grind** it]]", "![[Grind.png]] [[Note|grind it]]", "![[Grind.png]] [[Note|grind it]]"},
		// In code a "**" is the note's own: matches are not marked there.
		{"code span", "run `x = **bold** and [[not a link]]` to **grind**",
			"run `x = **bold** and [[not a link]]` to " + on + "grind" + off, "run `x = **bold** and [[not a link]]` to grind"},
		{"double backticks around a backtick", "``a ` **b**`` **c**", "``a ` **b**`` " + on + "c" + off, "``a ` **b**`` c"},
		{"fenced code on one line", "``` **grind** code ``` **grind**",
			"``` **grind** code ``` " + on + "grind" + off, "``` **grind** code ``` grind"},
		{"fence cut off by the end", "**grind** ``` go **grind** code…",
			on + "grind" + off + " ``` go **grind** code…", "grind ``` go **grind** code…"},
		{"link cut off by the end", "**grind** [[**Grind** si…", on + "grind" + off + " [[Grind si…", "grind [[Grind si…"},
		{"link cut off by the start", "…**Grind** size]] and **grind**", "…Grind size]] and " + on + "grind" + off, "…Grind size]] and grind"},
		{"lone backtick is text", "a ` **b**", "a ` " + on + "b" + off, "a ` b"},
		{"closing brackets after a link are text", "[[a]] **b** ]]", "[[a]] " + on + "b" + off + " ]]", "[[a]] b ]]"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := showSnippet(tt.give, true); got != tt.bold {
				t.Errorf("bold:\n got %q\nwant %q", got, tt.bold)
			}
			if got := showSnippet(tt.give, false); got != tt.plain {
				t.Errorf("plain:\n got %q\nwant %q", got, tt.plain)
			}
		})
	}
}

// FuzzShowSnippet: whatever the snippet, plain output is the snippet
// without markers outside its code (excerptCode: notes.CodeSpans and a
// fence the end cut off), and bold output is that with escapes added,
// every bold ended.
func FuzzShowSnippet(f *testing.F) {
	for _, s := range []string{"a **b** c", "[[**a**]] `**b**` ``` **c**", "…x]] **y** [[z", "****", "***a**"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		plain := showSnippet(s, false)
		var want strings.Builder
		from := 0
		for _, c := range excerptCode(s) {
			want.WriteString(strings.ReplaceAll(s[from:c.Start], matchMarker, ""))
			want.WriteString(s[c.Start:c.End])
			from = c.End
		}
		want.WriteString(strings.ReplaceAll(s[from:], matchMarker, ""))
		if plain != want.String() {
			t.Fatalf("plain %q; want %q", plain, want.String())
		}
		bold := showSnippet(s, true)
		if stripped := strings.NewReplacer(boldOn, "", boldOff, "").Replace(bold); stripped != plain {
			t.Fatalf("bold %q without escapes is %q; want %q", bold, stripped, plain)
		}
		if strings.Count(bold, boldOn) != strings.Count(bold, boldOff) {
			t.Fatalf("bold %q leaves bold on", bold)
		}
	})
}

// TestSearchBoldOnATerminal: jarvis search shows matches in bold when
// stdout is a terminal, plainly otherwise, never inside code (a link
// shows its text, which may be bold);
// --json keeps the markers.
func TestSearchBoldOnATerminal(t *testing.T) {
	vault := t.TempDir()
	sharedtest.WriteFile(t, vault, "Grind.md", "# Grind\n\nGrind the coffee finely. See [[Grind size]] and `grind --fine` before you grind again.\n")
	sharedtest.WriteFile(t, vault, "Grind size.md", "# Grind size\n\nAbout the size.\n")
	db := filepath.Join(t.TempDir(), "j.db")
	args := []string{"search", "--vault", vault, "--db", db, "--mode", "keyword", "grind"}

	out := searchJSON(t, args[1:]...)
	if len(out.Results) == 0 || !strings.Contains(out.Results[0].Snippet, "See **Grind** size and") || !strings.Contains(out.Results[0].Snippet, "`grind --fine`") {
		t.Fatalf("the JSON snippet should keep every marker in the link's text (its brackets gone), and mark nothing in code: %+v", out.Results)
	}

	code, tty, stderr := jarvisIn(t, nil, func(e *env) { e.stdoutIsTerminal = true }, args...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, want := range []string{boldOn + "grind" + boldOff + " again", "See " + boldOn + "Grind" + boldOff + " size", "`grind --fine`"} {
		if !strings.Contains(tty, want) {
			t.Errorf("terminal output lacks %q:\n%s", want, tty)
		}
	}
	if strings.Contains(tty, matchMarker) {
		t.Errorf("terminal output shows markers:\n%s", tty)
	}

	code, piped, stderr := jarvis(t, nil, args...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if strings.Contains(piped, "\x1b") || strings.Contains(piped, matchMarker) || !strings.Contains(piped, "before you grind again") {
		t.Errorf("piped output should be plain text:\n%s", piped)
	}
}

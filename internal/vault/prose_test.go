package vault

import (
	"strings"
	"testing"
)

func TestProseMarksPlainWords(t *testing.T) {
	src := "---\ntitle: Grinder\n---\n# The grinder\n\nA hand grinder, see [[Grinder]] and `grinder` and #grinder.\n" +
		"Next line: the *grinder* again.\n\n```\ngrinder in code\n```\n\n| a | b |\n| --- | --- |\n| grinder | [x](Grinder.md) |\n"
	blocks := mustProse(t, NewParser(), []byte(src))
	var free []string
	var lines []int
	for _, b := range blocks {
		for _, f := range b.Free {
			free = append(free, b.Text[f.Start:f.End])
			lines = append(lines, f.Line)
		}
	}
	got := strings.Join(free, "|")
	want := "The grinder|A hand grinder, see | and | and |.|Next line: the grinder again.|a|b|grinder"
	if got != want {
		t.Fatalf("free text %q\nwant %q", got, want)
	}
	if lines[0] != 4 || lines[1] != 6 || lines[5] != 7 {
		t.Fatalf("lines %v", lines)
	}
	if blocks[0].Heading != 1 || blocks[1].Heading != 0 {
		t.Fatalf("heading levels %d, %d", blocks[0].Heading, blocks[1].Heading)
	}
	if blocks[1].Text != "A hand grinder, see Grinder and grinder and #grinder. Next line: the grinder again." {
		t.Fatalf("text %q", blocks[1].Text)
	}
	for _, b := range blocks {
		if strings.Contains(b.Text, "in code") {
			t.Fatalf("code block read as prose: %q", b.Text)
		}
	}
}

func FuzzProse(f *testing.F) {
	f.Add("# a\n\nb [[c]] `d` e\n")
	f.Fuzz(func(t *testing.T, src string) {
		for _, b := range mustProse(t, NewParser(), []byte(src)) {
			for _, r := range b.Free {
				if r.Start < 0 || r.End > len(b.Text) || r.Start >= r.End || r.Line < 1 {
					t.Fatalf("range %+v of %q", r, b.Text)
				}
			}
		}
	})
}

package vault

import (
	"reflect"
	"strings"
	"testing"
)

func TestParagraphs(t *testing.T) {
	text := "## Steps\n\n1. Grind.\n2. Pour.\n\nA paragraph\nover two lines.\n\n```\ncode\n\nmore code\n```\n\n## Last"
	got := Paragraphs(text, 10)
	want := []Paragraph{
		{StartLine: 10, EndLine: 13, Text: "## Steps\n\n1. Grind.\n2. Pour."},
		{StartLine: 15, EndLine: 16, Text: "A paragraph\nover two lines."},
		{StartLine: 18, EndLine: 22, Text: "```\ncode\n\nmore code\n```"},
		{StartLine: 24, EndLine: 24, Text: "## Last"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("Paragraphs = %+v\nwant %+v", got, want)
	}
}

func TestCite(t *testing.T) {
	// # Pour over (1) / ## Recipe (5) / ## Notes (9) / ### Recipe (12) / # Other (15)
	hs := []Heading{{1, "Pour over", 1}, {2, "Recipe", 5}, {2, "Notes", 9}, {3, "Recipe", 12}, {1, "Other", 15}}
	for _, tc := range []struct {
		name       string
		start, end int
		want       string
	}{
		{"inside a subsection", 6, 8, "Pour over > Recipe"},
		{"a chunk from a heading into the next section", 1, 7, "Pour over"},
		{"a repeated heading, named by its path", 13, 14, "Pour over > Notes > Recipe"},
		{"across top sections", 3, 16, ""},
		{"before any heading", 0, 0, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := NewHeadingCiter(hs).Cite(tc.start, tc.end)
			if got != tc.want {
				t.Fatalf("Cite(%d, %d) = %q; want %q", tc.start, tc.end, got, tc.want)
			}
			if got != "" {
				i := FindHeading(hs, got)
				if i < 0 || hs[i].Line > tc.start || (SectionEnd(hs, i) != 0 && SectionEnd(hs, i) < tc.end) {
					t.Fatalf("%q names heading %d, whose section does not hold lines %d-%d", got, i, tc.start, tc.end)
				}
			}
		})
	}
}

// TestCiteStaysShort: a heading path longer than read-note takes
// cites the section above it.
func TestCiteStaysShort(t *testing.T) {
	long := strings.Repeat("very long heading ", 60)
	hs := []Heading{{1, "Top", 1}, {2, long, 3}}
	if got := NewHeadingCiter(hs).Cite(4, 5); got != "Top" {
		t.Fatalf("Cite = %.40q; want Top", got)
	}
}

// TestSectionsOf checks the sections a passage is labelled with: the path
// in force where it starts (a heading without text left out), then each
// heading it runs into, as search and related print them.
func TestSectionsOf(t *testing.T) {
	hs := []Heading{{Level: 1, Text: "A", Line: 1}, {Level: 3, Text: "C", Line: 4}, {Level: 2, Text: "B", Line: 8}, {Level: 2, Text: "", Line: 12}, {Level: 1, Text: "Z", Line: 20}}
	for _, tc := range []struct {
		name       string
		start, end int
		path       string
		label      string
	}{
		{"before the first heading", 0, 0, "", ""},
		{"on a heading line", 1, 3, "A", "A"},
		{"within a nested section", 5, 7, "A > C", "A > C"},
		{"a tiny section joined to a deeper one", 1, 6, "A", "A, then C"},
		{"across two later sections", 2, 9, "A", "A, then C, then B"},
		{"under a heading without text", 13, 21, "A", "A, then Z"},
		{"the end before the start", 9, 0, "A > B", "A > B"},
		{"the note's opening into its first section", 0, 2, "", "the note's opening, then A"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := SectionsOf(hs, tc.start, tc.end)
			if got.Path != tc.path || got.Label() != tc.label {
				t.Errorf("SectionsOf(%d, %d) = %q labelled %q; want %q labelled %q", tc.start, tc.end, got.Path, got.Label(), tc.path, tc.label)
			}
		})
	}
}

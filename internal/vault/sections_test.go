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

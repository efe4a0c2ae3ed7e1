package write

import (
	"testing"
)

// TestAppendKeepsTheNotesBlocks checks what a reader sees: the appended
// text is a block of its own, not read into the note's last one, and the
// note keeps its final line end.
func TestAppendKeepsTheNotesBlocks(t *testing.T) {
	tests := []struct {
		name, src, text, want string
	}{
		{"after a quote", "# Pantry\n\n> \"Quote.\"\n", "- Read on 2026-11-28.", "# Pantry\n\n> \"Quote.\"\n\n- Read on 2026-11-28.\n"},
		{"after a callout", "> [!note] Title\n> Body.\n", "Next.", "> [!note] Title\n> Body.\n\nNext.\n"},
		{"after a list", "- one\n- two\n", "Done.", "- one\n- two\n\nDone.\n"},
		{"after a table", "| a | b |\n| - | - |\n| 1 | 2 |\n", "After.", "| a | b |\n| - | - |\n| 1 | 2 |\n\nAfter.\n"},
		{"after a paragraph", "One.\n", "Two.", "One.\n\nTwo.\n"},
		// An item of the same list goes on with it, with no blank line
		// that would make the list loose (trial 21: an appended bullet
		// split a timeline in two); a list of another kind stands apart.
		{"a list item after a list", "- one\n", "- two", "- one\n- two\n"},
		{"a task after tasks", "## Tasks\n- [ ] one\n", "- [ ] two", "## Tasks\n- [ ] one\n- [ ] two\n"},
		{"a numbered step after steps", "1. one\n2. two\n", "3. three", "1. one\n2. two\n3. three\n"},
		{"a bullet after numbered steps", "1. one\n", "- aside", "1. one\n\n- aside\n"},
		{"a bullet of another marker", "- one\n", "* two", "- one\n\n* two\n"},
		{"a heading after a paragraph", "One.\n", "# Two", "One.\n# Two\n"},
		{"an underline after a paragraph", "One.\n", "===", "One.\n\n===\n"},
		{"after a paragraph without a line end", "One.", "Two.", "One.\n\nTwo."},
		{"after a heading", "# One\n", "Two.", "# One\nTwo.\n"},
		{"after a code block", "```\ncode\n```\n", "Two.", "```\ncode\n```\nTwo.\n"},
		{"after a blank line", "One.\n\n", "Two.", "One.\n\nTwo.\n"},
		{"after frontmatter only", "---\na: 1\n---\n", "Two.", "---\na: 1\n---\nTwo.\n"},
		{"in a CRLF note", "> Quote.\r\n", "Two.", "> Quote.\r\n\r\nTwo.\r\n"},
		{"an empty note", "", "first", "first"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ApplyEdits([]byte(tt.src), []Edit{{Op: OpAppend, Text: tt.text}})
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != tt.want {
				t.Fatalf("got %q, want %q", got, tt.want)
			}
		})
	}
}

package write

import (
	"bytes"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/jarvis-mcp/jarvis/internal/sharedtest"
	"github.com/jarvis-mcp/jarvis/internal/vault"
)

func count(n int) *int { return &n }

const sample = `---
title: Plan
---
# Project

Intro.

## Setup

Old setup.

### Install

Run it.

## Usage

Use it.
`

func TestApplyEdits(t *testing.T) {
	tests := []struct {
		name  string
		src   string
		edits []Edit
		want  string
	}{
		{
			name:  "append adds a line break first when the note lacks one",
			src:   "# One",
			edits: []Edit{{Op: OpAppend, Text: "three\n"}},
			want:  "# One\nthree\n",
		},
		{
			name:  "append to a note ending with a line break keeps it",
			src:   "# One\n",
			edits: []Edit{{Op: OpAppend, Text: "two"}},
			want:  "# One\ntwo\n",
		},
		{
			name:  "append to an empty note",
			src:   "",
			edits: []Edit{{Op: OpAppend, Text: "first"}},
			want:  "first",
		},
		{
			name:  "prepend goes after the frontmatter",
			src:   "---\na: 1\n---\nbody\n",
			edits: []Edit{{Op: OpPrepend, Text: "top"}},
			want:  "---\na: 1\n---\ntop\nbody\n",
		},
		{
			name:  "prepend without frontmatter",
			src:   "body\n",
			edits: []Edit{{Op: OpPrepend, Text: "top\n"}},
			want:  "top\nbody\n",
		},
		{
			name:  "prepend after a closing fence without a line end",
			src:   "---\na: 1\n---",
			edits: []Edit{{Op: OpPrepend, Text: "top"}},
			want:  "---\na: 1\n---\ntop",
		},
		{
			name:  "prepend where an unclosed fence is no frontmatter",
			src:   "---\nnot: closed\n",
			edits: []Edit{{Op: OpPrepend, Text: "top"}},
			want:  "top\n---\nnot: closed\n",
		},
		{
			name:  "replace once",
			src:   "a cat and a dog\n",
			edits: []Edit{{Op: OpReplace, Find: "cat", Replace: "bird"}},
			want:  "a bird and a dog\n",
		},
		{
			name:  "replace every occurrence with count",
			src:   "a cat, a cat\n",
			edits: []Edit{{Op: OpReplace, Find: "cat", Replace: "dog", Count: count(2)}},
			want:  "a dog, a dog\n",
		},
		{
			name:  "replace takes dollars and backslashes literally",
			src:   "price: X\n",
			edits: []Edit{{Op: OpReplace, Find: "X", Replace: `$1 $$ ${name} \1 \\`}},
			want:  "price: $1 $$ ${name} \\1 \\\\\n",
		},
		{
			name:  "replace with nothing deletes",
			src:   "keep drop keep\n",
			edits: []Edit{{Op: OpReplace, Find: " drop", Replace: ""}},
			want:  "keep keep\n",
		},
		{
			name:  "replace a section, keeping its heading and the next one",
			src:   sample,
			edits: []Edit{{Op: OpReplaceSection, Heading: "Setup", Text: "New setup."}},
			want:  strings.Replace(sample, "\nOld setup.\n\n### Install\n\nRun it.\n\n", "\nNew setup.\n\n", 1),
		},
		{
			name:  "replace a section by its heading path",
			src:   sample,
			edits: []Edit{{Op: OpReplaceSection, Heading: "Project > Setup > Install", Text: "\nMake it.\n\n"}},
			want:  strings.Replace(sample, "\nRun it.\n\n", "\nMake it.\n\n", 1),
		},
		{
			name:  "replace the last section",
			src:   sample,
			edits: []Edit{{Op: OpReplaceSection, Heading: "usage", Text: "Gone.\n"}},
			want:  strings.Replace(sample, "\nUse it.\n", "\nGone.\n", 1),
		},
		{
			name:  "empty text empties a section",
			src:   "# A\nx\n# B\ny\n",
			edits: []Edit{{Op: OpReplaceSection, Heading: "A"}},
			want:  "# A\n# B\ny\n",
		},
		{
			name:  "a heading in a code block is no heading",
			src:   "# A\n```\n# B\n```\nx\n# B\ny\n",
			edits: []Edit{{Op: OpReplaceSection, Heading: "B", Text: "z\n"}},
			want:  "# A\n```\n# B\n```\nx\n# B\nz\n",
		},
		{
			name:  "a setext heading keeps its underline",
			src:   "Title\nin two lines\n=====\nold\n\nNext\n====\nkeep\n",
			edits: []Edit{{Op: OpReplaceSection, Heading: "Title in two lines", Text: "new\n"}},
			want:  "Title\nin two lines\n=====\nnew\n\nNext\n====\nkeep\n",
		},
		{
			name:  "the blank lines before the next heading stay as they were",
			src:   "# A\nold\n\n\n# B\ny\n",
			edits: []Edit{{Op: OpReplaceSection, Heading: "A", Text: "new"}},
			want:  "# A\nnew\n\n\n# B\ny\n",
		},
		{
			name:  "the text's own blank lines are not added to the section's",
			src:   "# A\nold\n\n# B\ny\n",
			edits: []Edit{{Op: OpReplaceSection, Heading: "A", Text: "new\n\n\n"}},
			want:  "# A\nnew\n\n# B\ny\n",
		},
		{
			name:  "empty text keeps the blank line before the next heading",
			src:   "# A\nold\n\n# B\ny\n",
			edits: []Edit{{Op: OpReplaceSection, Heading: "A"}},
			want:  "# A\n\n# B\ny\n",
		},
		{
			name:  "the last section keeps the note's last line end and blank lines",
			src:   "# A\nx\n\n# B\nold\n\n",
			edits: []Edit{{Op: OpReplaceSection, Heading: "B", Text: "new"}},
			want:  "# A\nx\n\n# B\nnew\n\n",
		},
		{
			name:  "the last section of a note ending in a line end",
			src:   "# A\nx\n\n# B\nold\n",
			edits: []Edit{{Op: OpReplaceSection, Heading: "B", Text: "new"}},
			want:  "# A\nx\n\n# B\nnew\n",
		},
		{
			name:  "a CRLF note keeps its blank line before the next heading",
			src:   "# A\r\nold\r\n\r\n# B\r\ny\r\n",
			edits: []Edit{{Op: OpReplaceSection, Heading: "A", Text: "new\nlines"}},
			want:  "# A\r\nnew\r\nlines\r\n\r\n# B\r\ny\r\n",
		},
		{
			name:  "a CRLF note's last section",
			src:   "# A\r\nx\r\n\r\n# B\r\nold\r\n\r\n",
			edits: []Edit{{Op: OpReplaceSection, Heading: "B", Text: "new\n"}},
			want:  "# A\r\nx\r\n\r\n# B\r\nnew\r\n\r\n",
		},
		{
			name:  "a heading on the last line without a line end",
			src:   "# A\nx\n# B",
			edits: []Edit{{Op: OpReplaceSection, Heading: "B", Text: "y"}},
			want:  "# A\nx\n# B\ny",
		},
		{
			name:  "content replaces the whole note",
			src:   "old\n",
			edits: []Edit{{Op: OpContent, Text: "new\n"}},
			want:  "new\n",
		},
		{
			name:  "content may empty the note",
			src:   "old\n",
			edits: []Edit{{Op: OpContent}},
			want:  "",
		},
		{
			name: "edits apply in order, each to the result of the one before",
			src:  "a\n",
			edits: []Edit{
				{Op: OpAppend, Text: "b\n"},
				{Op: OpReplace, Find: "b", Replace: "c"},
				{Op: OpPrepend, Text: "# H\n"},
				{Op: OpReplaceSection, Heading: "H", Text: "d\n"},
			},
			want: "# H\nd\n",
		},
		{
			name:  "a CRLF note: find and replace with LF match CRLF",
			src:   "one\r\ntwo\r\nthree\r\n",
			edits: []Edit{{Op: OpReplace, Find: "one\ntwo", Replace: "1\n2"}},
			want:  "1\r\n2\r\nthree\r\n",
		},
		{
			name:  "a CRLF note: each edit kind",
			src:   "---\r\na: 1\r\n---\r\n# A\r\nx\r\n# B\r\ny",
			edits: []Edit{{Op: OpAppend, Text: "p\nq"}, {Op: OpPrepend, Text: "top"}, {Op: OpReplaceSection, Heading: "A", Text: "m\nn"}, {Op: OpSetProperties, Properties: map[string]any{"b": []any{"x"}}}},
			want:  "---\r\na: 1\r\nb:\r\n  - x\r\n---\r\ntop\r\n# A\r\nm\r\nn\r\n# B\r\ny\r\n\r\np\r\nq",
		},
		{
			name:  "an LF note gets LF in text sent with CRLF",
			src:   "# One\n",
			edits: []Edit{{Op: OpAppend, Text: "two\r\nthree\r\n"}},
			want:  "# One\ntwo\nthree\n",
		},
		{
			name:  "a BOM stays first",
			src:   "\uFEFF---\na: 1\n---\nbody\n",
			edits: []Edit{{Op: OpPrepend, Text: "top"}, {Op: OpSetProperties, Properties: map[string]any{"a": 2}}},
			want:  "\uFEFF---\na: 2\n---\ntop\nbody\n",
		},
		{
			name:  "a BOM note without frontmatter gets it after the BOM",
			src:   "\uFEFFbody\n",
			edits: []Edit{{Op: OpSetProperties, Properties: map[string]any{"a": "x"}}},
			want:  "\uFEFF---\na: x\n---\nbody\n",
		},
		{
			name:  "content keeps the BOM and is not given two",
			src:   "\uFEFFold\n",
			edits: []Edit{{Op: OpContent, Text: "\uFEFFnew\n"}},
			want:  "\uFEFFnew\n",
		},
		{
			name:  "lone CR line ends count as lines",
			src:   "# A\rx\r# B\ry\r",
			edits: []Edit{{Op: OpReplaceSection, Heading: "A", Text: "z\n"}},
			want:  "# A\rz\r# B\ry\r",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ApplyEdits([]byte(tt.src), tt.edits)
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != tt.want {
				t.Errorf("got\n%q\nwant\n%q", got, tt.want)
			}
		})
	}
}

// TestReplaceSectionKeepsSpacing checks that the blank lines the user had
// between a heading and its body, and before the next heading, stay as
// they were, whatever blank lines the new text brings.
func TestReplaceSectionKeepsSpacing(t *testing.T) {
	tests := []struct{ name, src, text, want string }{
		{"a blank line after the heading", "## Summary\n\nTBD.\n\n## Next\n", "It shows.", "## Summary\n\nIt shows.\n\n## Next\n"},
		{"none after the heading", "## Summary\nTBD.\n## Next\n", "\n\nIt shows.\n\n", "## Summary\nIt shows.\n## Next\n"},
		{"two after the heading, at the end", "## Summary\n\n\nTBD.\n", "It shows.", "## Summary\n\n\nIt shows.\n"},
		{"CRLF", "## Summary\r\n\r\nTBD.\r\n", "It shows.", "## Summary\r\n\r\nIt shows.\r\n"},
		{"an emptied section keeps the blank line before the next", "## Summary\n\nTBD.\n\n## Next\n", "", "## Summary\n\n## Next\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ApplyEdits([]byte(tt.src), []Edit{{Op: OpReplaceSection, Heading: "Summary", Text: tt.text}})
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}

func TestApplyEditsErrors(t *testing.T) {
	big := strings.Repeat("x", MaxEditText+1)
	tests := []struct {
		name   string
		src    string
		edits  []Edit
		index  int    // the edit the error names, 0 for the list
		words  string // in the message
		tooBig bool
	}{
		{"no edits", sample, nil, 0, "no edits given", false},
		{"too many edits", sample, make([]Edit, MaxEdits+1), 0, "a list of 51 edits is too large", true},
		{"unknown op", sample, []Edit{{Op: "insert"}}, 1, `unknown op "insert"`, false},
		{"missing op", sample, []Edit{{Text: "x"}}, 1, "op is missing", false},
		{"a field the op does not take", sample, []Edit{{Op: OpAppend, Text: "x", Find: "y"}}, 1, "append does not take find; it takes text", false},
		{"empty append", sample, []Edit{{Op: OpAppend}}, 1, "text is empty", false},
		{"empty find", sample, []Edit{{Op: OpReplace, Replace: "x"}}, 1, "find is empty", false},
		{"find absent", sample, []Edit{{Op: OpReplace, Find: "nowhere", Replace: "x"}}, 1, "find does not occur in the note", false},
		{"find twice without count", "a a\n", []Edit{{Op: OpReplace, Find: "a", Replace: "b"}}, 1, "find occurs twice in the note; give count 2", false},
		{"count that does not match", "a a a\n", []Edit{{Op: OpReplace, Find: "a", Replace: "b", Count: count(2)}}, 1, "find occurs 3 times in the note, not twice as count says", false},
		{"count below one", "a\n", []Edit{{Op: OpReplace, Find: "a", Replace: "b", Count: count(0)}}, 1, "count is 0", false},
		{"no such heading", sample, []Edit{{Op: OpReplaceSection, Heading: "Deploy", Text: "x"}}, 1, `the note has no heading "Deploy"; its headings are "Project", "Setup"`, false},
		{"no headings at all", "plain\n", []Edit{{Op: OpReplaceSection, Heading: "A", Text: "x"}}, 1, "the note has no headings", false},
		{"empty properties", sample, []Edit{{Op: OpSetProperties}}, 1, "properties is empty", false},
		{"nested property", sample, []Edit{{Op: OpSetProperties, Properties: map[string]any{"a": map[string]any{"b": 1}}}}, 1, `property "a": a value cannot be a map of properties`, false},
		{"invalid frontmatter", "---\na: [1\n---\nx\n", []Edit{{Op: OpSetProperties, Properties: map[string]any{"a": 1}}}, 1, "invalid frontmatter YAML", false},
		{"duplicate keys", "---\na: 1\na: 2\n---\nx\n", []Edit{{Op: OpSetProperties, Properties: map[string]any{"b": 1}}}, 1, "is given twice", false},
		{"frontmatter that is a list", "---\n- a\n---\nx\n", []Edit{{Op: OpSetProperties, Properties: map[string]any{"b": 1}}}, 1, "not a list of properties", false},
		{"frontmatter in braces", "---\n{a: 1}\n---\nx\n", []Edit{{Op: OpSetProperties, Properties: map[string]any{"b": 1}}}, 1, "in braces", false},
		{"removing an anchored value", "---\na: &x 1\nb: *x\n---\n", []Edit{{Op: OpSetProperties, Properties: map[string]any{"a": nil}}}, 1, "perhaps because another property refers", false},
		{"text too large", sample, []Edit{{Op: OpAppend, Text: big}}, 1, "text too large: 1,048,577 bytes, over the 1 MB limit", true},
		{"note grows too large", sample, []Edit{{Op: OpReplace, Find: "Intro.", Replace: big[:vault.MaxNoteSize/8]}, {Op: OpReplace, Find: "x", Replace: "xxxxxxxxx", Count: count(vault.MaxNoteSize / 8)}}, 2, "the note would grow too large", true},
		{"an error in edit 3", sample, []Edit{{Op: OpAppend, Text: "a"}, {Op: OpPrepend, Text: "b"}, {Op: OpReplace, Find: "absent", Replace: "c"}, {Op: OpAppend, Text: "d"}}, 3, "edit 3 (replace): find does not occur", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			src := []byte(tt.src)
			orig := bytes.Clone(src)
			got, err := ApplyEdits(src, tt.edits)
			if err == nil {
				t.Fatalf("no error; got %q", got)
			}
			if got != nil {
				t.Errorf("an error, and bytes too: %q", got)
			}
			if !bytes.Equal(src, orig) {
				t.Errorf("the note's bytes changed")
			}
			if !strings.Contains(err.Error(), tt.words) {
				t.Errorf("error %q lacks %q", err, tt.words)
			}
			var ee *EditError
			if errors.As(err, &ee) != (tt.index > 0) || (ee != nil && ee.Index != tt.index) {
				t.Errorf("error %q: want it to name edit %d", err, tt.index)
			}
			if errors.Is(err, ErrTooLarge) != tt.tooBig {
				t.Errorf("error %q: errors.Is(ErrTooLarge) = %v", err, !tt.tooBig)
			}
			sharedtest.CheckWords(t, tt.name, err.Error())
		})
	}
}

// TestReplaceSectionRefusesAnAmbiguousName: two headings of one name are
// not guessed between; the heading path chooses.
func TestReplaceSectionRefusesAnAmbiguousName(t *testing.T) {
	src := []byte("# Dup\n## Notes\none\n# Other\n## Notes\ntwo\n")
	_, err := ApplyEdits(src, []Edit{{Op: OpReplaceSection, Heading: "Notes", Text: "X\n"}})
	if err == nil || !strings.Contains(err.Error(), `"Dup > Notes" and "Other > Notes"`) {
		t.Fatalf("an ambiguous heading: %v", err)
	}
	got, err := ApplyEdits(src, []Edit{{Op: OpReplaceSection, Heading: "Other > Notes", Text: "X\n"}})
	if err != nil || string(got) != "# Dup\n## Notes\none\n# Other\n## Notes\nX\n" {
		t.Fatalf("by its path: %q, %v", got, err)
	}
}

// TestEditFieldLeftOut tells a field an edit's JSON left out from one
// given as "": no replace is refused, not read as a delete of find, and
// no text of replace_section or content is refused, not read as emptying
// the section or the note. Given as "", each does what "" says.
func TestEditFieldLeftOut(t *testing.T) {
	src := []byte("# Top\n\nLine A.\n\nLine B.\n")
	for _, tc := range []struct {
		name, json, want, err string
	}{
		{"replace left out", `{"op":"replace","find":"Line B."}`, "",
			`edit 1 (replace): replace is missing; give the text to put in place of find ("" to delete it); nothing was changed`},
		{"replace given empty", `{"op":"replace","find":"Line B.","replace":""}`, "# Top\n\nLine A.\n\n\n", ""},
		{"section text left out", `{"op":"replace_section","heading":"Top"}`, "",
			`edit 1 (replace_section): text is missing; give the new body of the section ("" to empty it); nothing was changed`},
		{"section text given empty", `{"op":"replace_section","heading":"Top","text":""}`, "# Top\n", ""},
		{"content left out", `{"op":"content"}`, "",
			`edit 1 (content): text is missing; give the whole new text of the note ("" to empty it); nothing was changed`},
		{"content given empty", `{"op":"content","text":""}`, "", ""},
		{"append left out", `{"op":"append"}`, "", "edit 1 (append): text is empty: give the text to append"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var e Edit
			if err := json.Unmarshal([]byte(tc.json), &e); err != nil {
				t.Fatal(err)
			}
			got, err := ApplyEdits(src, []Edit{e})
			if tc.err != "" {
				if err == nil || err.Error() != tc.err {
					t.Fatalf("err %v, want %q (note now %q)", err, tc.err, got)
				}
				return
			}
			if err != nil || string(got) != tc.want {
				t.Fatalf("got %q, %v; want %q", got, err, tc.want)
			}
		})
	}
}

// TestKanbanAppendWarns: an append to a Kanban board lands after its
// settings block, off the board, and a prepend before its first lane;
// each is said, naming a lane to replace_section instead. A note that is
// no board, and an edit that is no append or prepend, get no warning.
func TestKanbanAppendWarns(t *testing.T) {
	board := []byte("---\nkanban-plugin: basic\n---\n\n## Doing\n\n- [ ] one\n\n%% kanban:settings\n```\n{\"kanban-plugin\":\"basic\"}\n```\n%%\n")
	for _, tc := range []struct {
		name string
		src  []byte
		edit Edit
		want []string
	}{
		{"append", board, Edit{Op: OpAppend, Text: "- [ ] new"}, []string{`this note is a Kanban board; text appended after its settings block is not on the board; to add a card use replace_section on a lane heading such as "Doing"`}},
		{"prepend", board, Edit{Op: OpPrepend, Text: "- [ ] new"}, []string{`this note is a Kanban board; text prepended before its first lane is not on the board; to add a card use replace_section on a lane heading such as "Doing"`}},
		{"replace_section", board, Edit{Op: OpReplaceSection, Heading: "Doing", Text: "- [ ] new"}, nil},
		{"no board", []byte("# Notes\n\n- [ ] one\n"), Edit{Op: OpAppend, Text: "- [ ] new"}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := kanbanWarnings(tc.src, []Edit{tc.edit})
			if !slices.Equal(got, tc.want) {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
}

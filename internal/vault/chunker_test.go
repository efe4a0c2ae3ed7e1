package vault

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// words returns n words of filler prose, prefixed with tag so that tests
// can tell paragraphs apart.
func words(tag string, n int) string {
	w := make([]string, n)
	for i := range w {
		w[i] = fmt.Sprintf("%s%d", tag, i)
	}
	return strings.Join(w, " ")
}

// chunkStrings renders chunks compactly: "A > B @3-7".
func chunkStrings(chunks []Chunk) []string {
	out := []string{}
	for _, c := range chunks {
		out = append(out, fmt.Sprintf("%s @%d-%d", c.HeadingPath(), c.StartLine, c.EndLine))
	}
	return out
}

func TestChunks(t *testing.T) {
	long := func(tag string) string { return words(tag, 150) } // two make a target-sized chunk
	tests := []struct {
		name string
		src  string
		want []string
	}{
		{name: "empty", src: "", want: []string{}},
		{name: "blank lines only", src: "\n\n  \n\t\n", want: []string{}},
		{name: "frontmatter only", src: "---\ntitle: x\n---\n", want: []string{}},
		{name: "frontmatter only, no final newline", src: "---\ntitle: x\n---", want: []string{}},
		{name: "frontmatter and blank body", src: "---\ntitle: x\n---\n\n\n", want: []string{}},
		{name: "one line", src: "Hello.", want: []string{" @1-1"}},
		{name: "body after frontmatter", src: "---\ntags: [a]\n---\n\nHello.\n", want: []string{" @5-5"}},
		{
			name: "preamble then sections",
			src:  "Intro line.\n\n## A\n\n" + long("a") + "\n\n## B\n\n" + long("b") + "\n",
			want: []string{" @1-1", "A @3-5", "B @7-9"},
		},
		{
			name: "tiny parent joins its child and takes the deeper path",
			src:  "# Top\n\nOne line of intro.\n\n## Child\n\n" + long("c") + "\n",
			want: []string{"Top > Child @1-7"},
		},
		{
			name: "tiny sections chain into the deepest",
			src:  "# A\nshort\n## B\nshort\n### C\n" + long("c"),
			want: []string{"A > B > C @1-6"},
		},
		{
			name: "tiny section before a sibling stays alone",
			src:  "## A\n\nshort\n\n## B\n\n" + long("b"),
			want: []string{"A @1-3", "B @5-7"},
		},
		{
			name: "tiny section before a shallower one stays alone",
			src:  "# A\n" + long("a") + "\n## B\nshort\n# C\n" + long("c"),
			want: []string{"A @1-2", "A > B @3-4", "C @5-6"},
		},
		{
			name: "section with enough words is not merged",
			src:  "# A\n\n" + words("a", 60) + "\n\n## B\n\n" + long("b"),
			want: []string{"A @1-3", "A > B @5-7"},
		},
		{
			name: "heading without text stays out of the path",
			src:  "# A\n" + long("a") + "\n##\n" + long("x") + "\n### C\n" + long("c"),
			want: []string{"A @1-2", "A @3-4", "A > C @5-6"},
		},
		{
			name: "skipped levels and popping",
			src:  "# A\n" + long("a") + "\n### C\n" + long("c") + "\n## B\n" + long("b") + "\n# D\n" + long("d"),
			want: []string{"A @1-2", "A > C @3-4", "A > B @5-6", "D @7-8"},
		},
		{
			name: "long section cut at blank lines",
			src:  "## S\n\n" + long("p") + "\n\n" + long("q") + "\n\n" + long("r") + "\n\n" + long("s") + "\n",
			want: []string{"S @1-5", "S @7-9"},
		},
		{
			name: "small tail joins the piece before",
			src:  long("p") + "\n\n" + long("q") + "\n\n" + words("t", 20) + "\n",
			want: []string{" @1-5"},
		},
		{
			name: "fenced code is not cut at its blank lines",
			src:  long("p") + "\n\n```\n" + words("c", 100) + "\n\n" + words("d", 100) + "\n```\n\n" + long("q"),
			want: []string{" @1-7", " @9-9"},
		},
		{
			name: "code block over the cap is cut at its lines",
			src:  "```\n" + strings.Repeat(words("c", 100)+"\n", 9) + "```\n",
			want: []string{" @1-4", " @5-7", " @8-11"},
		},
		{
			name: "one long line stays whole",
			src:  words("w", 1000),
			want: []string{" @1-1"},
		},
		{
			name: "long list without blank lines is cut at its lines",
			src:  strings.Repeat("- "+words("i", 50)+"\n", 12),
			want: []string{" @1-5", " @6-10", " @11-12"},
		},
		{
			name: "setext headings",
			src:  "Title\n=====\n\n" + long("a") + "\n\nPart\n----\n\n" + long("b"),
			want: []string{"Title @1-4", "Title > Part @6-9"},
		},
		{
			name: "heading in fenced code is not a heading",
			src:  "# A\n" + long("a") + "\n```\n# not a heading\n```\n",
			want: []string{"A @1-5"},
		},
	}
	p := NewParser()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			n := mustParse(t, p, "t.md", []byte(tt.src))
			if got := chunkStrings(n.Chunks); !slices.Equal(got, tt.want) {
				t.Errorf("chunks\n got %q\nwant %q", got, tt.want)
			}
			checkChunks(t, tt.name, []byte(tt.src), n)
		})
	}
}

// TestChunkText pins what a chunk's text holds: the file's lines from the
// heading line on, blank lines inside kept, none at the edges.
func TestChunkText(t *testing.T) {
	src := "---\ntitle: T\n---\n\n# Head\n\nFirst paragraph\nsecond line.\n\n\n- item\n\n"
	n := mustParse(t, NewParser(), "t.md", []byte(src))
	want := []Chunk{{Headings: []string{"Head"}, StartLine: 5, EndLine: 11, Text: "# Head\n\nFirst paragraph\nsecond line.\n\n\n- item"}}
	if len(n.Chunks) != 1 || n.Chunks[0].HeadingPath() != "Head" || n.Chunks[0].Text != want[0].Text ||
		n.Chunks[0].StartLine != 5 || n.Chunks[0].EndLine != 11 {
		t.Errorf("chunks %#v\nwant %#v", n.Chunks, want)
	}
}

// checkChunks asserts what holds for the chunks of any note: in file
// order without overlap, each the exact text of its lines with no blank
// line at either end, every non-blank body line in one of them, and any
// heading inside a chunk named in its heading path (only tiny sections
// join the next).
func checkChunks(t *testing.T, name string, src []byte, n Note) {
	t.Helper()
	norm, _, _ := normalizeSource(src)
	lines := newLineIndex(norm)
	first := 1
	if fm, ok := splitFrontmatter(norm); ok {
		first = lines.line(fm.bodyStart)
		if fm.bodyStart >= len(norm) {
			first = lines.count() + 1
		}
	}
	covered := map[int]bool{}
	prevEnd := first - 1
	for i, c := range n.Chunks {
		if c.StartLine <= prevEnd || c.EndLine < c.StartLine || c.EndLine > lines.count() {
			t.Fatalf("%s: chunk %d lines %d-%d after line %d of %d", name, i, c.StartLine, c.EndLine, prevEnd, lines.count())
		}
		prevEnd = c.EndLine
		if want := string(lines.span(c.StartLine, c.EndLine)); c.Text != want {
			t.Errorf("%s: chunk %d text %q; lines %d-%d are %q", name, i, c.Text, c.StartLine, c.EndLine, want)
		}
		if isBlank(lines.text(c.StartLine)) || isBlank(lines.text(c.EndLine)) {
			t.Errorf("%s: chunk %d starts or ends with a blank line: %q", name, i, c.Text)
		}
		for l := c.StartLine; l <= c.EndLine; l++ {
			covered[l] = true
		}
		for _, h := range n.Headings {
			if h.Line > c.StartLine && h.Line <= c.EndLine && h.Text != "" && !slices.Contains(c.Headings, h.Text) {
				t.Errorf("%s: chunk %d (%q) holds heading %q of line %d", name, i, c.HeadingPath(), h.Text, h.Line)
			}
		}
	}
	for l := first; l <= lines.count(); l++ {
		if !covered[l] && !isBlank(lines.text(l)) {
			t.Errorf("%s: line %d %q is in no chunk", name, l, lines.text(l))
		}
	}
}

// TestChunksHelpVault chunks every note of the Obsidian Help vault, all
// languages: the invariants hold, and a chunk over the cap is one line or
// one code block.
func TestChunksHelpVault(t *testing.T) {
	root := helpVault(t)
	p := NewParser()
	notes, chunks := 0, 0
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".md") {
			return err
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		n := mustParse(t, p, filepath.Base(path), src)
		checkChunks(t, path, src, n)
		notes++
		chunks += len(n.Chunks)
		for _, c := range n.Chunks {
			if w := countWords([]byte(c.Text)); w > chunkMaxWords && c.StartLine != c.EndLine && !strings.Contains(c.Text, "```") {
				t.Errorf("%s: chunk at %d-%d has %d words", path, c.StartLine, c.EndLine, w)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%d notes, %d chunks", notes, chunks)
}

func FuzzChunks(f *testing.F) {
	for _, s := range []string{
		"", "# a\nb\n## c\nd", "```\n\n```", "~~~\n# x\n~~~\n# y", "---\na: b\n---", "x\n===\n\n- y\n", "> ```\n>\n> ```",
	} {
		f.Add([]byte(s))
	}
	p := NewParser()
	f.Fuzz(func(t *testing.T, src []byte) {
		checkChunks(t, "fuzz", src, mustParse(t, p, "fuzz.md", src))
	})
}

func BenchmarkChunkBody(b *testing.B) {
	src, err := os.ReadFile(filepath.Join("testdata", "parse", "realistic.md"))
	if err != nil {
		b.Fatal(err)
	}
	n := mustParse(b, NewParser(), "r.md", src)
	lines := newLineIndex(src)
	fm, _ := splitFrontmatter(src)
	b.SetBytes(int64(len(src)))
	b.ReportAllocs()
	for b.Loop() {
		chunkBody(&lines, fm.bodyStart, n.Headings)
	}
}

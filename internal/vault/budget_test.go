package vault

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/jarvis-mcp/jarvis/internal/sharedtest"
)

func TestParseStopsAtItsBudget(t *testing.T) {
	p := NewParser()
	p.budget = func(int) time.Duration { return 100 * time.Millisecond }
	src := append([]byte("---\ntitle: Kept out\ntags: [a]\n---\n"), sharedtest.SlowMarkdown(900_000)...)
	var n Note
	var err error
	sharedtest.Within(t, "parsing", func() { n, err = p.Parse(context.Background(), "Folder/Slow.md", src) })
	if !errors.Is(err, ErrTooComplex) {
		t.Fatalf("err = %v, want ErrTooComplex", err)
	}
	// By name only, as a note over MaxNoteSize is, with the reason.
	if n.Title != "Slow" || len(n.Tags) > 0 || n.Frontmatter != nil || len(n.Chunks) > 0 {
		t.Errorf("note = %+v, want the name only", n)
	}
	if len(n.Warnings) != 1 || !strings.Contains(n.Warnings[0], "too complex to parse") {
		t.Errorf("warnings = %q", n.Warnings)
	}
}

func TestProseStopsAtItsBudget(t *testing.T) {
	p := NewParser()
	p.budget = func(int) time.Duration { return 100 * time.Millisecond }
	var err error
	sharedtest.Within(t, "parsing", func() { _, err = p.Prose(context.Background(), sharedtest.SlowMarkdown(900_000)) })
	if !errors.Is(err, ErrTooComplex) {
		t.Fatalf("err = %v, want ErrTooComplex", err)
	}
}

// TestParseStopsWhenCancelled cancels a parse that its budget would let
// run for minutes: it must stop, with the context's error.
func TestParseStopsWhenCancelled(t *testing.T) {
	p := NewParser()
	p.budget = func(int) time.Duration { return time.Hour }
	for _, read := range []struct {
		name string
		call func(ctx context.Context) error
	}{
		{"Parse", func(ctx context.Context) error {
			_, err := p.Parse(ctx, "Slow.md", sharedtest.SlowMarkdown(900_000))
			return err
		}},
		{"Prose", func(ctx context.Context) error { _, err := p.Prose(ctx, sharedtest.SlowMarkdown(900_000)); return err }},
	} {
		t.Run(read.name, func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			time.AfterFunc(50*time.Millisecond, cancel)
			var err error
			sharedtest.Within(t, "parsing", func() { err = read.call(ctx) })
			if !errors.Is(err, context.Canceled) {
				t.Fatalf("err = %v, want context.Canceled", err)
			}
		})
	}
	// A context already ended stops the parse before it starts.
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := p.Parse(ctx, "n.md", []byte("[[a]]")); !errors.Is(err, context.Canceled) {
		t.Errorf("err = %v, want context.Canceled", err)
	}
}

// TestParseKnownSlowShapes reads notes of the shapes that made goldmark
// take minutes before they were rewritten: each must parse in full within
// the default budget, keeping the links around it.
func TestParseKnownSlowShapes(t *testing.T) {
	tabs := func(size int) []byte {
		var b bytes.Buffer
		for i := 0; b.Len() < size; i++ {
			b.WriteString(strings.Repeat("\t", i))
			b.WriteString("- [[x]]\n")
		}
		return b.Bytes()
	}
	tests := []struct {
		name string
		src  []byte
	}{
		{"empty links", bytes.Repeat([]byte("[]("), 400_000/3)},
		{"links", bytes.Repeat([]byte("[a]("), 400_000/4)},
		{"images", bytes.Repeat([]byte("![]("), 400_000/4)},
		{"list nested by tabs", tabs(2 << 20)},
	}
	p := NewParser()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			src := append(append([]byte("[[before]]\n\n"), tt.src...), "\n\n[[after]]\n"...)
			var n Note
			var err error
			sharedtest.Within(t, "parsing", func() { n, err = p.Parse(context.Background(), "Shape.md", src) })
			if err != nil {
				t.Fatal(err)
			}
			if len(n.Links) < 2 || n.Links[0].Target != "before" || n.Links[len(n.Links)-1].Target != "after" {
				t.Errorf("links %d, want [[before]] first and [[after]] last", len(n.Links))
			}
			if want := bytes.Count(tt.src, []byte("[[x]]")); len(n.Links) != want+2 {
				t.Errorf("%d links, want %d", len(n.Links), want+2)
			}
		})
	}
}

func TestHideUnclosedDestinations(t *testing.T) {
	long := strings.Repeat("x", maxOverlappingDestination)
	tests := []struct {
		name, src string
		hidden    []int // offsets of the bytes hidden
	}{
		{name: "links", src: "[a](b) [c](d)[e](f(g)h) ![i](j)"},
		{name: "one long destination", src: "![](data:" + long + ")"},
		{name: "long destination holding a short one", src: "[a](" + long + "[b](c))", hidden: []int{0}},
		{name: "unclosed run", src: "[](" + "[](" + long + " [x](y)", hidden: []int{0}},
		{name: "unclosed run of three", src: "[a](" + "[a](" + "[a](" + long, hidden: []int{0, 4}},
		{name: "link text on the line before", src: "[a\nb](" + "[](" + long, hidden: []int{5}},
		{name: "escaped parenthesis closes nothing", src: `[](\)[](` + long, hidden: []int{0}},
		{name: "short overlapping destinations", src: "[a](b[c](d)e) [f](g[h](" + " " + long},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := hideUnclosedDestinations([]byte(tt.src))
			if len(got) != len(tt.src) {
				t.Fatalf("length %d, want %d", len(got), len(tt.src))
			}
			want := []byte(tt.src)
			for _, i := range tt.hidden {
				want[i] = 0x1f
			}
			if !bytes.Equal(got, want) {
				var at []int
				for i := range got {
					if got[i] != tt.src[i] {
						at = append(at, i)
					}
				}
				t.Errorf("hidden at %v, want %v", at, tt.hidden)
			}
		})
	}
}

func TestLimitContainerDepthIndentation(t *testing.T) {
	deep := strings.Repeat("\t", 40)
	tests := []struct {
		name, src, want string
	}{
		{"shallow", "\t\t- a\n", "\t\t- a\n"},
		{"past the cap", deep + "- a\n", strings.Repeat("\x1f", 42) + "a\n"},
		{"past the cap in a quote", "> " + deep + "- a\n", ">" + strings.Repeat("\x1f", 43) + "a\n"},
		{"blank line", deep + "\n", deep + "\n"},
		{"spaces", strings.Repeat(" ", 130) + "x", strings.Repeat("\x1f", 130) + "x"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := string(limitContainerDepth([]byte(tt.src))); got != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}

// FuzzParseBudget checks that no input keeps Parse past its budget: it
// returns within the budget and a second, with the note read in full or
// ErrTooComplex and the note by name only.
func FuzzParseBudget(f *testing.F) {
	for _, s := range []string{
		"[](", "[a](", "![](", "[[", "![[", "\t- a\n\t\t- b\n", "> > - [^a]: ", "`a``", "*a _b", "<a ", "#t #t", "a ^b",
		"| a |\n|---|\n| [[x]] |", "[a](<b", "[a]: <b", "[a](b \"x\n", "~~~\n[[x]]",
	} {
		f.Add([]byte(strings.Repeat(s, 200)), uint8(4))
	}
	p := NewParser()
	const budget = 200 * time.Millisecond
	p.budget = func(int) time.Duration { return budget }
	f.Fuzz(func(t *testing.T, unit []byte, repeat uint8) {
		src := bytes.Repeat(unit, int(repeat)+1)
		start := time.Now()
		n, err := p.Parse(context.Background(), "fuzz.md", src)
		if d := time.Since(start); d > budget+time.Second {
			t.Errorf("Parse took %v with a budget of %v", d, budget)
		}
		switch {
		case err == nil:
			checkNote(t, "fuzz", src, n)
		case errors.Is(err, ErrTooComplex):
			if n.Title != "fuzz" || len(n.Links)+len(n.Tags)+len(n.Headings) > 0 {
				t.Errorf("note past its budget = %+v, want the name only", n)
			}
		default:
			t.Errorf("err = %v", err)
		}
	})
}

// TestParseCapsLists parses a note holding more of every list than a note
// keeps: each list stops at maxListItems and a warning says how many there
// were.
func TestParseCapsLists(t *testing.T) {
	n := maxListItems + 5
	var b strings.Builder
	b.WriteString("---\ntags: [")
	for i := range n {
		fmt.Fprintf(&b, "f%d, ", i)
	}
	b.WriteString("]\n---\n")
	for i := range n {
		fmt.Fprintf(&b, "# H%d\n[[n%d]] [x](https://e.x/%d) #t%d ^b%d\n\n", i, i, i, i, i)
	}
	note := mustParse(t, NewParser(), "Big.md", []byte(b.String()))
	for _, l := range []struct {
		what string
		got  int
	}{
		{"links", len(note.Links)}, {"external links", len(note.External)}, {"tags", len(note.Tags)},
		{"block ids", len(note.Blocks)}, {"headings", len(note.Headings)},
	} {
		if l.got != maxListItems {
			t.Errorf("%d %s, want %d", l.got, l.what, maxListItems)
		}
		total := n
		if l.what == "tags" {
			total = 2 * n // frontmatter and body
		}
		want := fmt.Sprintf("note has %d %s; only the first %d are kept", total, l.what, maxListItems)
		if !slices.Contains(note.Warnings, want) {
			t.Errorf("no warning %q in %q", want, note.Warnings)
		}
	}
	if note.Links[0].Target != "n0" || note.Headings[0].Text != "H0" {
		t.Errorf("first link %q, first heading %q; want the first of the note", note.Links[0].Target, note.Headings[0].Text)
	}
}

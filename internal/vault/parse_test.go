package vault

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/jarvis-mcp/jarvis/internal/sharedtest"
	"golang.org/x/text/encoding/charmap"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/parse")

// The compact forms below keep the table readable: a link is
// "kind target#subpath|display @line", an inline tag "#name @line", a
// frontmatter tag "fm:name @line", a block "^id @line", a heading
// "## text @line" and an external link "url [text] @line".

func linkStrings(links []Link) []string {
	out := []string{}
	for _, l := range links {
		s := string(l.Kind) + " " + l.Target
		if l.Subpath != "" {
			s += "#" + l.Subpath
		}
		if l.Display != "" {
			s += "|" + l.Display
		}
		out = append(out, s+" @"+strconv.Itoa(l.Line))
	}
	return out
}

func tagStrings(tags []Tag) []string {
	out := []string{}
	for _, t := range tags {
		prefix := "fm:"
		if t.Inline {
			prefix = "#"
		}
		out = append(out, prefix+t.Name+" @"+strconv.Itoa(t.Line))
	}
	return out
}

func blockStrings(blocks []Block) []string {
	out := []string{}
	for _, b := range blocks {
		out = append(out, "^"+b.ID+" @"+strconv.Itoa(b.Line))
	}
	return out
}

func headingStrings(headings []Heading) []string {
	out := []string{}
	for _, h := range headings {
		out = append(out, strings.Repeat("#", h.Level)+" "+h.Text+" @"+strconv.Itoa(h.Line))
	}
	return out
}

func externalStrings(external []ExternalLink) []string {
	out := []string{}
	for _, e := range external {
		out = append(out, fmt.Sprintf("%s [%s] @%d", e.URL, e.Text, e.Line))
	}
	return out
}

// TestParseSyntax covers each piece of syntax, and each place where
// something that looks like a link, tag or block id must not count. A nil
// want field is not checked; an empty one must come out empty.
func TestParseSyntax(t *testing.T) {
	tests := []struct {
		name     string
		src      string
		links    []string
		tags     []string
		blocks   []string
		headings []string
		external []string
	}{
		// Wikilinks and embeds.
		{name: "wikilink", src: "See [[Target]].", links: []string{"link Target @1"}},
		{name: "wikilink with display text", src: "[[Target|shown text]]", links: []string{"link Target|shown text @1"}},
		{name: "wikilink to heading", src: "[[Target#Heading]]", links: []string{"link Target#Heading @1"}},
		{name: "wikilink to block", src: "[[Target#^block-1]]", links: []string{"link Target#^block-1 @1"}},
		{name: "wikilink to heading in same note", src: "[[#Heading]]", links: []string{"link #Heading @1"}},
		{name: "wikilink to subheading", src: "[[Target#H1#H2]]", links: []string{"link Target#H1#H2 @1"}},
		{name: "wikilink with heading and display", src: "[[Target#Heading|shown]]", links: []string{"link Target#Heading|shown @1"}},
		{name: "wikilink parts trimmed", src: "[[ Target # Heading | shown ]]", links: []string{"link Target#Heading|shown @1"}},
		{name: "wikilink keeps .md and folders", src: "[[Folder/Note.md]]", links: []string{"link Folder/Note.md @1"}},
		{name: "wikilink display keeps later pipes", src: "[[A|b|c]]", links: []string{"link A|b|c @1"}},
		{
			name:  "escaped pipe in table",
			src:   "| note | x |\n| --- | --- |\n| [[Note\\|alias]] | [[Other#Part\\|p]] |",
			links: []string{"link Note|alias @3", "link Other#Part|p @3"},
		},
		{name: "embed", src: "![[image.png]]", links: []string{"embed image.png @1"}},
		{name: "embed with size", src: "![[image.png|100x200]]", links: []string{"embed image.png|100x200 @1"}},
		{name: "embed of a section", src: "![[Note#Section]]", links: []string{"embed Note#Section @1"}},
		{name: "embed of a block", src: "![[Quick switcher#^search-autocomplete-large]]", links: []string{"embed Quick switcher#^search-autocomplete-large @1"}},
		{
			name:  "several on one line",
			src:   "[[A]] and [[B|b]], then ![[C]].",
			links: []string{"link A @1", "link B|b @1", "embed C @1"},
		},
		{name: "extra brackets around wikilink", src: "[[[x]]]", links: []string{"link x @1"}},
		{name: "wikilink in emphasis", src: "**[[Target]]** and _[[Other]]_", links: []string{"link Target @1", "link Other @1"}},
		{name: "wikilink in callout", src: "> [!note] Title\n> See [[Target]].", links: []string{"link Target @2"}},
		{name: "wikilink in list item", src: "- one\n- two [[Target]]\n  - [[Nested]]", links: []string{"link Target @2", "link Nested @3"}},
		{name: "wikilink in footnote", src: "Text.[^1]\n\n[^1]: See [[Target]].", links: []string{"link Target @3"}},
		{
			name:  "wikilinks in footnotes, one nested",
			src:   "[^c]: see [[C]]\n    [^d]: nested [[D]]\n\n[^b]: [[B]]\n\n> [^a]: [[A]]\n\nAfter [[E]]",
			links: []string{"link C @1", "link D @2", "link B @4", "link A @6", "link E @8"},
		},
		{
			name:  "links keep line order around footnotes",
			src:   "[^b]: [[B]]\n\nMiddle [[M]]\n\n[^c]: [[C]]",
			links: []string{"link B @1", "link M @3", "link C @5"},
		},
		{name: "wikilink in heading", src: "## See [[Target|the target]]", links: []string{"link Target|the target @1"}, headings: []string{"## See the target @1"}},
		{name: "empty wikilinks", src: "[[]] [[ ]] [[#]] [[|x]]", links: []string{}},
		{name: "unclosed wikilink", src: "[[Target] and [[other", links: []string{}},
		{name: "wikilink does not span lines", src: "[[Tar\nget]]", links: []string{}},
		{name: "nested open brackets", src: "[[a [[b]]", links: []string{"link b @1"}},

		// Places where nothing counts.
		{
			name: "code span", src: "`[[Target]]`, ``![[x]] #tag ^id`` and `[x](y.md)`",
			links: []string{}, tags: []string{}, blocks: []string{},
		},
		{
			name: "fenced code", src: "```\n[[Target]] #tag [x](y.md)\ntext ^id\n```\n",
			links: []string{}, tags: []string{}, blocks: []string{}, headings: []string{},
		},
		{name: "tilde fence", src: "~~~md\n# Heading\n[[Target]]\n~~~", links: []string{}, headings: []string{}},
		{
			name: "indented code", src: "Paragraph.\n\n    [[Target]] #tag\n    text ^id\n",
			links: []string{}, tags: []string{}, blocks: []string{},
		},
		{name: "fenced code in list", src: "- item\n  ```\n  [[Target]]\n  ```\n- [[After]]", links: []string{"link After @5"}},
		{name: "escaped brackets", src: `Use \[\[Wikilinks\]\] and \!\[\[x\]\]`, links: []string{}},
		{name: "escaped hash", src: `\#nottag`, tags: []string{}},

		// Markdown links.
		{name: "markdown link percent-encoded", src: "[text](Some%20Note.md)", links: []string{"markdown Some Note.md|text @1"}},
		{name: "markdown link with heading", src: "[text](../folder/Note.md#Heading)", links: []string{"markdown ../folder/Note.md#Heading|text @1"}},
		{name: "markdown link without extension", src: "[text](Note)", links: []string{"markdown Note|text @1"}},
		{name: "markdown link fragment decoded", src: "[t](Note.md#Big%20Heading)", links: []string{"markdown Note.md#Big Heading|t @1"}},
		{name: "markdown link to same note", src: "[t](#Heading)", links: []string{"markdown #Heading|t @1"}},
		{name: "markdown link in angle brackets", src: "[t](<Some Note.md>)", links: []string{"markdown Some Note.md|t @1"}},
		{name: "markdown link bad escape kept raw", src: "[t](100%zz.md)", links: []string{"markdown 100%zz.md|t @1"}},
		{name: "markdown link text is plain", src: "[**bold** `code`](Note.md)", links: []string{"markdown Note.md|bold code @1"}},
		{name: "markdown image", src: "![alt text](local.png)", links: []string{"embed local.png|alt text @1"}},
		{name: "reference link", src: "[t][ref]\n\n[ref]: Note.md", links: []string{"markdown Note.md|t @1"}},
		{name: "empty destination", src: "[t]()", links: []string{}, external: []string{}},

		// External links.
		{
			name: "https link", src: "[site](https://example.com/a?b=c#frag)",
			links: []string{}, tags: []string{}, external: []string{"https://example.com/a?b=c#frag [site] @1"},
		},
		{name: "mailto link", src: "[mail](mailto:me@example.com)", links: []string{}, external: []string{"mailto:me@example.com [mail] @1"}},
		{name: "obsidian uri", src: "[open](obsidian://open?vault=v&file=f)", links: []string{}, external: []string{"obsidian://open?vault=v&file=f [open] @1"}},
		{name: "file uri", src: "[f](file:///tmp/x.md)", links: []string{}, external: []string{"file:///tmp/x.md [f] @1"}},
		{name: "autolink", src: "<https://example.com/x>", links: []string{}, external: []string{"https://example.com/x [https://example.com/x] @1"}},
		{name: "email autolink", src: "<me@example.com>", external: []string{"mailto:me@example.com [me@example.com] @1"}},
		{
			name: "bare url", src: "Go to https://example.com/x#frag now.",
			tags: []string{}, external: []string{"https://example.com/x#frag [https://example.com/x#frag] @1"},
		},
		{name: "bare e-mail and www are text", src: "write me@example.com or see www.example.com", external: []string{}, links: []string{}},
		{name: "external image", src: "![logo](https://example.com/logo.png)", links: []string{}, external: []string{"https://example.com/logo.png [logo] @1"}},
		{
			name: "badge: image inside link", src: "[![build](https://ci.example/b.svg)](https://ci.example)",
			links: []string{}, external: []string{"https://ci.example [build] @1", "https://ci.example/b.svg [build] @1"},
		},

		// Tags.
		{name: "tag", src: "#tag", tags: []string{"#tag @1"}, headings: []string{}},
		{name: "nested tag", src: "text #nested/tag", tags: []string{"#nested/tag @1"}},
		{name: "tag with dash and underscore", src: "#tag-with_dash", tags: []string{"#tag-with_dash @1"}},
		{name: "unicode tags", src: "#日本語 and #тег and #العربية", tags: []string{"#日本語 @1", "#тег @1", "#العربية @1"}},
		{name: "emoji tag", src: "#🚀launch", tags: []string{"#🚀launch @1"}},
		{name: "tag ends at punctuation", src: "#tag, #end. #q? #a:b #x's #y—z", tags: []string{"#tag @1", "#end @1", "#q @1", "#a @1", "#x @1", "#y @1"}},
		{name: "digits only is not a tag", src: "#123 #1984 but #y1984 and #1a", tags: []string{"#y1984 @1", "#1a @1"}},
		{name: "tag must follow whitespace", src: "C#sharp foo#bar (#paren) **#bold** [#label](x.md)", tags: []string{}},
		{name: "heading marker is not a tag", src: "# Heading\n## Another #tagged", tags: []string{"#tagged @2"}, headings: []string{"# Heading @1", "## Another #tagged @2"}},
		{name: "hash without name", src: "a # b #", tags: []string{}},
		{
			name: "url fragments are not tags", src: "https://x.y/#frag and [a](https://x.y/#frag2) and <https://x.y/#frag3> and [b](Note.md#frag4)",
			tags: []string{},
		},
		{name: "tag after tag", src: "#one#two", tags: []string{"#one @1", "#two @1"}},
		{name: "tags in list and quotes", src: "- #a\n> #b\n>#c", tags: []string{"#a @1", "#b @2", "#c @3"}},
		{name: "tags in table cells", src: "| #a | b |\n| --- | --- |\n| #c | x #d |", tags: []string{"#a @1", "#c @3", "#d @3"}},
		{name: "tag before wikilink", src: "#tag[[Note]]", tags: []string{"#tag @1"}, links: []string{"link Note @1"}},

		// Block ids.
		{name: "block id at end of paragraph", src: "Some text ^abc-123", blocks: []string{"^abc-123 @1"}},
		{name: "block id on its own line", src: "> quote\n\n^quote-id\n", blocks: []string{"^quote-id @3"}},
		{name: "block id in list item", src: "- item ^li1\n- item two", blocks: []string{"^li1 @1"}},
		{name: "block id after trailing spaces", src: "text ^abc  \nmore", blocks: []string{"^abc @1"}},
		{name: "block id after lazy quote line", src: "> [!tip] Tip\n> Use it.\n^callout-id", blocks: []string{"^callout-id @3"}},
		{name: "caret inside a word", src: "x^2 and text^abc", blocks: []string{}},
		// The Obsidian Help vault names an embedded image this way and
		// links to it: ![[version-history-collaboration.png]]^version-history-image
		{name: "block id right after an embed", src: "![[image.png]]^image-id\n", blocks: []string{"^image-id @1"}, links: []string{"embed image.png @1"}},
		{name: "block id not at end of line", src: "^abc then text", blocks: []string{}},
		{name: "block id with underscore", src: "text ^abc_def", blocks: []string{}},
		{name: "no block id in heading", src: "## Heading ^abc", blocks: []string{}},
		{name: "footnote reference is not a block id", src: "text[^1] and ^[inline]\n\n[^1]: note", blocks: []string{}},

		// Headings.
		{
			name: "atx headings", src: "# One\n\n## Two ##\n\n###### Six ###   ",
			headings: []string{"# One @1", "## Two @3", "###### Six @5"},
		},
		{name: "setext headings", src: "Title\n=====\n\nSub title\n---", headings: []string{"# Title @1", "## Sub title @4"}},
		{
			name: "heading text is plain", src: "## **Bold** `code()` [link](x.md) [[Note|alias]] \\# esc &amp; <b>x</b>",
			headings: []string{"## Bold code() link alias # esc & x @1"},
		},
		{name: "no space is not a heading", src: "#NoSpace", headings: []string{}, tags: []string{"#NoSpace @1"}},
		{name: "heading in a callout", src: "> ## Inside", headings: []string{"## Inside @1"}},
	}
	p := NewParser()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			n := mustParse(t, p, "Note.md", []byte(tt.src))
			check := func(what string, got, want []string) {
				t.Helper()
				if want != nil && !slices.Equal(got, want) {
					t.Errorf("%s:\n got %q\nwant %q", what, got, want)
				}
			}
			check("links", linkStrings(n.Links), tt.links)
			check("tags", tagStrings(n.Tags), tt.tags)
			check("blocks", blockStrings(n.Blocks), tt.blocks)
			check("headings", headingStrings(n.Headings), tt.headings)
			check("external", externalStrings(n.External), tt.external)
			if len(n.Warnings) > 0 {
				t.Errorf("warnings: %q", n.Warnings)
			}
		})
	}
}

// TestParseLines checks that line numbers count from the top of the file,
// frontmatter included, whatever the line ends, and that Context is the
// whole source line.
func TestParseLines(t *testing.T) {
	const note = "---\ntitle: Lines\ntags: [a]\n---\n\nIntro [[First]]\n\n## Heading\n\n- item #tagged ^blk\n\n[md](Second.md)\n"
	want := struct{ links, tags, blocks, headings []string }{
		links:    []string{"link First @6", "markdown Second.md|md @12"},
		tags:     []string{"fm:a @3", "#tagged @10"},
		blocks:   []string{"^blk @10"},
		headings: []string{"## Heading @8"},
	}
	variants := map[string]string{
		"LF":       note,
		"CRLF":     strings.ReplaceAll(note, "\n", "\r\n"),
		"CR":       strings.ReplaceAll(note, "\n", "\r"),
		"BOM":      "\uFEFF" + note,
		"BOM+CRLF": "\uFEFF" + strings.ReplaceAll(note, "\n", "\r\n"),
	}
	p := NewParser()
	for name, src := range variants {
		t.Run(name, func(t *testing.T) {
			n := mustParse(t, p, "Lines.md", []byte(src))
			if got := linkStrings(n.Links); !slices.Equal(got, want.links) {
				t.Errorf("links: got %q, want %q", got, want.links)
			}
			if got := tagStrings(n.Tags); !slices.Equal(got, want.tags) {
				t.Errorf("tags: got %q, want %q", got, want.tags)
			}
			if got := blockStrings(n.Blocks); !slices.Equal(got, want.blocks) {
				t.Errorf("blocks: got %q, want %q", got, want.blocks)
			}
			if got := headingStrings(n.Headings); !slices.Equal(got, want.headings) {
				t.Errorf("headings: got %q, want %q", got, want.headings)
			}
			if n.Title != "Lines" {
				t.Errorf("title %q, want frontmatter title (frontmatter not found?)", n.Title)
			}
			if len(n.Links) == 2 {
				if got := n.Links[0].Context; got != "Intro [[First]]" {
					t.Errorf("context %q, want the source line without its line end", got)
				}
			}
			if len(n.Warnings) > 0 {
				t.Errorf("warnings: %q", n.Warnings)
			}
		})
	}
}

func TestParseContext(t *testing.T) {
	p := NewParser()
	t.Run("trimmed", func(t *testing.T) {
		n := mustParse(t, p, "n.md", []byte("- \t [[A]] and more  \t\n"))
		if len(n.Links) != 1 || n.Links[0].Context != "- \t [[A]] and more" {
			t.Fatalf("links %+v", n.Links)
		}
	})
	t.Run("capped on a rune boundary", func(t *testing.T) {
		// 'é' is two bytes; with one leading ASCII byte every cut at an
		// even offset would split one.
		line := "x" + strings.Repeat("é", 400) + " [[A]]"
		n := mustParse(t, p, "n.md", []byte(line))
		if len(n.Links) != 1 {
			t.Fatalf("links %+v", n.Links)
		}
		c := n.Links[0].Context
		if len(c) > maxContext || len(c) < maxContext-utf8.UTFMax || !utf8.ValidString(c) || !strings.HasPrefix(line, c) {
			t.Errorf("context is %d bytes, valid UTF-8 %v, prefix of the line %v", len(c), utf8.ValidString(c), strings.HasPrefix(line, c))
		}
	})
	t.Run("frontmatter link", func(t *testing.T) {
		n := mustParse(t, p, "n.md", []byte("---\nup:  \"[[Parent]]\"  \n---\n"))
		if len(n.Links) != 1 || n.Links[0].Context != `up:  "[[Parent]]"` {
			t.Fatalf("links %+v", n.Links)
		}
	})
}

func TestParseWarnings(t *testing.T) {
	tests := []struct {
		name    string
		src     string
		warning string // a prefix of the one warning expected
		links   []string
	}{
		{
			name:    "invalid UTF-8",
			src:     "Bad \xff\xfe bytes [[Still parsed]]",
			warning: "file is not UTF-8; read as Windows-1252 (Latin-1). To save it as UTF-8, run `iconv -f windows-1252 -t utf-8 'Note.md' > 'Note.md.utf8' && mv 'Note.md.utf8' 'Note.md'` in its folder",
			links:   []string{"link Still parsed @1"},
		},
		{
			name:    "invalid YAML",
			src:     "---\ntitle: ok\ntags: [a, b\nother: x\n---\n[[Body link]]",
			warning: "invalid frontmatter YAML: line 3: a list opened with [ is not closed with ]",
			links:   []string{"link Body link @6"},
		},
		{
			name:    "duplicate key",
			src:     "---\na: 1\na: 2\n---\n[[Body link]]",
			warning: `invalid frontmatter YAML: line 3: property "a" is given twice (first at line 2)`,
			links:   []string{"link Body link @5"},
		},
		{
			name:    "frontmatter never closed",
			src:     "---\ntitle: ok\n\n[[Body link]]",
			warning: "invalid frontmatter YAML: line 1 opens the frontmatter with --- and no later --- line closes it",
			links:   []string{"link Body link @4"},
		},
		{
			name:    "frontmatter is a list",
			src:     "---\n- a\n- b\n---\n[[Body link]]",
			warning: "invalid frontmatter YAML: not a mapping",
			links:   []string{"link Body link @5"},
		},
		{
			name:    "scanner error",
			src:     "---\na: b\nc: d: e\n---\n[[Body link]]",
			warning: "invalid frontmatter YAML: line 3: a value holds a colon and a space: put the value in quotes",
			links:   []string{"link Body link @5"},
		},
		{
			name:    "block mapping error",
			src:     "---\na: 1\n- b\n---\n[[Body link]]",
			warning: "invalid frontmatter YAML: line 3: expected a property (name: value)",
			links:   []string{"link Body link @5"},
		},
		{
			name:    "map not closed",
			src:     "---\na: {b: 1\n---\n[[Body link]]",
			warning: "invalid frontmatter YAML: line 3: a mapping opened with { is not closed with }",
			links:   []string{"link Body link @4"},
		},
		{
			name:    "quote not closed",
			src:     "---\na: \"x\n---\n[[Body link]]",
			warning: "invalid frontmatter YAML: line 3: a quoted value is not closed",
			links:   []string{"link Body link @4"},
		},
		{
			name:    "tab indentation",
			src:     "---\nlinks: \"[[Not a link]]\"\ntags:\n\t- a\n---\ntext",
			warning: "invalid frontmatter YAML: line 4: a character that cannot start a value, such as a tab (indent with spaces)",
			links:   []string{},
		},
	}
	p := NewParser()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			n := mustParse(t, p, "Note.md", []byte(tt.src))
			if len(n.Warnings) != 1 || !strings.HasPrefix(n.Warnings[0], tt.warning) {
				t.Errorf("warnings %q, want one starting %q", n.Warnings, tt.warning)
			}
			for _, w := range n.Warnings {
				if strings.Contains(w, "\n") {
					t.Errorf("warning %q spans lines", w)
				}
			}
			if got := linkStrings(n.Links); !slices.Equal(got, tt.links) {
				t.Errorf("links %q, want %q", got, tt.links)
			}
			if strings.HasPrefix(tt.warning, "invalid frontmatter") {
				if n.Frontmatter != nil || n.Title != "Note" || n.Tags != nil {
					t.Errorf("invalid frontmatter still used: %+v, title %q, tags %v", n.Frontmatter, n.Title, n.Tags)
				}
			}
		})
	}
	t.Run("replacement character kept", func(t *testing.T) {
		n := mustParse(t, p, "Note.md", []byte("# Caf\uFFFD\n"))
		if len(n.Headings) != 1 || n.Headings[0].Text != "Caf\uFFFD" || len(n.Warnings) != 0 {
			t.Errorf("headings %+v, warnings %q", n.Headings, n.Warnings)
		}
	})
}

func TestParseFrontmatter(t *testing.T) {
	tests := []struct {
		name    string
		yaml    string
		title   string
		aliases []string
		tags    []string
		links   []string
		props   string // JSON of Frontmatter, when set
	}{
		{name: "aliases list", yaml: "aliases:\n  - One\n  - Two, with comma", aliases: []string{"One", "Two, with comma"}},
		{name: "aliases string splits on commas", yaml: "aliases: One, Two ,", aliases: []string{"One", "Two"}},
		{name: "alias key", yaml: "alias: Only", aliases: []string{"Only"}},
		{name: "aliases flow list", yaml: "aliases: [A, 'B']", aliases: []string{"A", "B"}},
		{name: "aliases null", yaml: "aliases:", aliases: nil},
		{name: "tags list", yaml: "tags:\n  - one\n  - '#two'\n  - nested/three", tags: []string{"fm:one @3", "fm:two @4", "fm:nested/three @5"}},
		{name: "tags string", yaml: "tags: one, two  three", tags: []string{"fm:one @2", "fm:two @2", "fm:three @2"}},
		{name: "tags string with hashes", yaml: "tags: \"#one #two\" # a comment", tags: []string{"fm:one @2", "fm:two @2"}},
		{name: "tag key", yaml: "tag: solo", tags: []string{"fm:solo @2"}},
		{name: "tags numbers", yaml: "tags: [2024, x]", tags: []string{"fm:2024 @2", "fm:x @2"}},
		{name: "keys differ in case", yaml: "Tags: [a]\nAliases: [b]\nTitle: T", tags: []string{"fm:a @2"}, aliases: []string{"b"}, title: "T"},
		{name: "title", yaml: "title: '  Spaced title '", title: "Spaced title"},
		{name: "title number", yaml: "title: 1.7.7", title: "1.7.7"},
		{name: "empty title falls back", yaml: "title: ''", title: "Note"},
		{
			name:  "links in values",
			yaml:  "up: \"[[Parent]]\"\nrelated:\n  - \"[[A|a]]\"\n  - x [[B#Part]] y ![[C.png]]\nnested:\n  deeper: '[[D]]'\n\"[[Key]]\": not a link",
			links: []string{"frontmatter Parent @2", "frontmatter A|a @4", "frontmatter B#Part @5", "frontmatter C.png @5", "frontmatter D @7"},
		},
		{
			name:  "link in block scalar",
			yaml:  "summary: |\n  first line\n  see [[Deep]]\n",
			links: []string{"frontmatter Deep @4"},
		},
		{
			name:  "same link twice",
			yaml:  "a: \"[[X]]\"\nb: \"[[X]]\"",
			links: []string{"frontmatter X @2", "frontmatter X @3"},
		},
		{
			name:  "values made JSON friendly",
			yaml:  "date: 2024-11-18\nat: 2024-11-18T10:30:00Z\nn: 3\nf: 1.5\nnan: .nan\nb: true\nnothing:\nmap:\n  1: one\n  true: yes\n  x: [1, {y: 2}]\nanchor: &a {k: v}\nref: *a",
			props: `{"anchor":{"k":"v"},"at":"2024-11-18T10:30:00Z","b":true,"date":"2024-11-18","f":1.5,"map":{"1":"one","true":"yes","x":[1,{"y":2}]},"n":3,"nan":".nan","nothing":null,"ref":{"k":"v"}}`,
		},
		{name: "non-string keys", yaml: "2024: year\ntrue: yes\n~: nothing", props: `{"2024":"year","null":"nothing","true":"yes"}`},
		{name: "empty", yaml: "", props: "null"},
		{name: "only a comment", yaml: "# nothing here", props: "null"},
	}
	p := NewParser()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			n := mustParse(t, p, "Note.md", []byte("---\n"+tt.yaml+"\n---\nBody.\n"))
			if len(n.Warnings) > 0 {
				t.Fatalf("warnings %q", n.Warnings)
			}
			if tt.title != "" && n.Title != tt.title {
				t.Errorf("title %q, want %q", n.Title, tt.title)
			}
			if tt.aliases != nil || strings.Contains(tt.yaml, "alias") {
				if !slices.Equal(n.Aliases, tt.aliases) {
					t.Errorf("aliases %q, want %q", n.Aliases, tt.aliases)
				}
			}
			if tt.tags != nil {
				if got := tagStrings(n.Tags); !slices.Equal(got, tt.tags) {
					t.Errorf("tags %q, want %q", got, tt.tags)
				}
			}
			if tt.links != nil {
				if got := linkStrings(n.Links); !slices.Equal(got, tt.links) {
					t.Errorf("links %q, want %q", got, tt.links)
				}
			}
			b, err := json.Marshal(n.Frontmatter)
			if err != nil {
				t.Fatalf("frontmatter does not marshal: %v", err)
			}
			if tt.props != "" && string(b) != tt.props {
				t.Errorf("frontmatter\n got %s\nwant %s", b, tt.props)
			}
		})
	}
	t.Run("lifted fields stay in Frontmatter", func(t *testing.T) {
		n := mustParse(t, p, "Note.md", []byte("---\ntitle: T\naliases: [A]\ntags: x\n---\n"))
		want := map[string]any{"title": "T", "aliases": []any{"A"}, "tags": "x"}
		if !reflect.DeepEqual(n.Frontmatter, want) {
			t.Errorf("frontmatter %#v, want %#v", n.Frontmatter, want)
		}
	})
}

func TestSplitFrontmatter(t *testing.T) {
	tests := []struct {
		name     string
		src      string
		yaml     string
		body     string
		found    bool
		bodyLine int
	}{
		{name: "plain", src: "---\na: 1\n---\nbody", yaml: "a: 1\n", body: "body", found: true},
		{name: "dots close", src: "---\na: 1\n...\nbody", yaml: "a: 1\n", body: "body", found: true},
		{name: "trailing blanks on fences", src: "--- \t\na: 1\n---  \nbody", yaml: "a: 1\n", body: "body", found: true},
		{name: "empty", src: "---\n---\nbody", yaml: "", body: "body", found: true},
		{name: "nothing after", src: "---\na: 1\n---", yaml: "a: 1\n", body: "", found: true},
		{name: "not closed", src: "---\na: 1\nbody", found: false},
		{name: "not at start", src: "\n---\na: 1\n---\n", found: false},
		{name: "four dashes", src: "----\na: 1\n---\n", found: false},
		{name: "indented fence", src: " ---\na: 1\n---\n", found: false},
		{name: "only a fence", src: "---", found: false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fm, ok := splitFrontmatter([]byte(tt.src))
			if ok != tt.found {
				t.Fatalf("found %v, want %v", ok, tt.found)
			}
			if !ok {
				return
			}
			if string(fm.yaml) != tt.yaml || tt.src[fm.bodyStart:] != tt.body || fm.firstLine != 2 {
				t.Errorf("yaml %q body %q first line %d; want %q, %q, 2", fm.yaml, tt.src[fm.bodyStart:], fm.firstLine, tt.yaml, tt.body)
			}
		})
	}
}

func TestCountWords(t *testing.T) {
	tests := []struct {
		text string
		want int
	}{
		{"", 0},
		{"one two  three\nfour", 4},
		{"don't stop — it's fine", 4},
		{"well-known 3.14 a_b", 6},
		{"[[Some Note|alias]] #tag", 4},
		{"日本語のメモ", 6},
		{"中文 text", 3},
		{"Привет, мир!", 2},
		{"مرحبا بالعالم", 2},
		{"ภาษาไทย", 7}, // seven letters; Thai vowels written after a consonant are letters
		{"ที่นี่", 2},  // ท น are letters; ี ่ are combining marks
		{"한국어 문장", 2},
		{"naïve café", 2},
		{"e\u0301te\u0301", 1}, // combining accents stay in the word
	}
	for _, tt := range tests {
		if got := countWords([]byte(tt.text)); got != tt.want {
			t.Errorf("countWords(%q) = %d, want %d", tt.text, got, tt.want)
		}
	}
	n := mustParse(t, NewParser(), "n.md", []byte("---\ntitle: not counted at all\n---\nTwo words"))
	if n.WordCount != 2 {
		t.Errorf("WordCount %d, want 2: frontmatter must not count", n.WordCount)
	}
}

func TestHasURLScheme(t *testing.T) {
	tests := map[string]bool{
		"https://x.y":   true,
		"mailto:a@b.c":  true,
		"obsidian://x":  true,
		"file:///tmp":   true,
		"x-custom+a.b:": true,
		"C:/notes/x.md": false,
		"Note.md":       false,
		"../Note.md":    false,
		"#Heading":      false,
		"2024-01-01.md": false,
		"a b:c":         false,
	}
	for s, want := range tests {
		if got := hasURLScheme(s); got != want {
			t.Errorf("hasURLScheme(%q) = %v, want %v", s, got, want)
		}
	}
}

// TestParseGolden parses each testdata/parse/*.md and compares the whole
// Note with the *.golden.json beside it. go test -run Golden -update
// rewrites the goldens; review the diff as you would code.
func TestParseGolden(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("testdata", "parse", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Fatal("no testdata/parse/*.md files")
	}
	p := NewParser()
	for _, file := range files {
		name := filepath.Base(file)
		t.Run(strings.TrimSuffix(name, ".md"), func(t *testing.T) {
			src, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			got, err := json.MarshalIndent(mustParse(t, p, name, src), "", "  ")
			if err != nil {
				t.Fatal(err)
			}
			got = append(got, '\n')
			golden := strings.TrimSuffix(file, ".md") + ".golden.json"
			if *update {
				if err := os.WriteFile(golden, got, 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run with -update to create it)", err)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("parsed note differs from %s; run go test -run Golden -update and review the diff\ngot:\n%s", golden, got)
			}
		})
	}
}

// helpVault locates the Obsidian Help vault that sits beside the
// repository in the shared tree. Without it the tests that need it skip,
// except on CI where its absence is an error.
func helpVault(t *testing.T) string {
	t.Helper()
	sharedtest.Path(t, "vaults/obsidian-help/en")
	return sharedtest.Path(t, "vaults/obsidian-help")
}

func parseVaultFile(t *testing.T, p *Parser, vault, rel string) (Note, []string) {
	t.Helper()
	src, err := os.ReadFile(filepath.Join(vault, filepath.FromSlash(rel)))
	if err != nil {
		t.Fatal(err)
	}
	return mustParse(t, p, rel, src), strings.Split(string(src), "\n")
}

func findLink(links []Link, kind LinkKind, target, subpath string) (Link, bool) {
	for _, l := range links {
		if l.Kind == kind && l.Target == target && l.Subpath == subpath {
			return l, true
		}
	}
	return Link{}, false
}

func TestHelpVaultInternalLinks(t *testing.T) {
	vault := helpVault(t)
	p := NewParser()
	n, lines := parseVaultFile(t, p, vault, "en/Linking notes and files/Internal links.md")

	if want := []string{"How to/Internal link", "How to/Link to blocks"}; !slices.Equal(n.Aliases, want) {
		t.Errorf("aliases %q, want %q", n.Aliases, want)
	}
	if n.Title != "Internal links" {
		t.Errorf("title %q", n.Title)
	}
	if n.Frontmatter["permalink"] != "links" || n.Frontmatter["mobile"] != true {
		t.Errorf("frontmatter %v", n.Frontmatter)
	}

	l, ok := findLink(n.Links, KindLink, "Settings", "Files and links")
	if !ok || l.Display != "Files and links" || l.Line != 17 || l.Context != strings.TrimSpace(lines[16]) {
		t.Errorf("[[Settings#Files and links|Files and links]]: found %v, %+v", ok, l)
	}
	if l, ok := findLink(n.Links, KindEmbed, "Quick switcher", "^search-autocomplete-large"); !ok || l.Line != 57 {
		t.Errorf("![[Quick switcher#^search-autocomplete-large]]: found %v, %+v", ok, l)
	}
	if l, ok := findLink(n.Links, KindLink, "Help and support", "Questions and advice#Report bugs and request features"); !ok || l.Line != 86 {
		t.Errorf("link to a subheading: found %v, %+v", ok, l)
	}
	if l, ok := findLink(n.Links, KindLink, "", "Preview a linked file"); !ok || l.Line != 74 {
		t.Errorf("[[#Preview a linked file]]: found %v, %+v", ok, l)
	}
	if l, ok := findLink(n.Links, KindMarkdown, "Example.md", "Details"); !ok || l.Display != "Section name" || l.Line != 169 {
		t.Errorf("[Section name](Example.md#Details): found %v, %+v", ok, l)
	}
	// Written inside backticks or a fenced block: examples, not links.
	for _, target := range []string{"Three laws of motion", "Three laws of motion.md", "Projects/Three laws of motion", "Figure 1.png", "2023-01-01", "The 3 laws", "Wikilinks"} {
		for _, l := range n.Links {
			if l.Target == target {
				t.Errorf("example in code counted as a link: %+v", l)
			}
		}
	}
	wantBlocks := []string{"^b15695 @13", "^callout-internal-links-link-text @179"}
	if got := blockStrings(n.Blocks); !slices.Equal(got, wantBlocks) {
		t.Errorf("blocks %q, want %q (^37066d and friends are inside code fences)", got, wantBlocks)
	}
	wantExternal := []string{
		"https://en.wikipedia.org/wiki/Percent-encoding [URL encode] @33",
		"https://stackoverflow.com/questions/1976007/what-characters-are-forbidden-in-windows-and-linux-directory-names [safe filename practices] @47",
	}
	if got := externalStrings(n.External); !slices.Equal(got, wantExternal) {
		t.Errorf("external %q, want %q", got, wantExternal)
	}
	if len(n.Tags) != 0 {
		t.Errorf("tags %v, want none", n.Tags)
	}
	wantHeadings := []string{
		"## Supported formats for internal links @19", "## Link to a file @49", "## Link to a heading in a note @66",
		"## Link to a block in a note @98", "## Change the link display text @151", "## Preview a linked file @181",
	}
	if got := headingStrings(n.Headings); !slices.Equal(got, wantHeadings) {
		t.Errorf("headings %q, want %q (\"# ...\" lines inside code fences are not headings)", got, wantHeadings)
	}
}

func TestHelpVaultTags(t *testing.T) {
	vault := helpVault(t)
	n, _ := parseVaultFile(t, NewParser(), vault, "en/Editing and formatting/Tags.md")
	// `#meeting`, `#inbox/to-read` and friends are in code spans; #1984 is
	// the page's own example of an invalid tag.
	want := []string{
		"#y1984 @51", "#tag @53", "#TAG @53", "#Tag @57", "#TAG @57", "#Tag @57",
		"#camelCase @61", "#PascalCase @62", "#snake_case @63", "#kebab-case @64",
	}
	if got := tagStrings(n.Tags); !slices.Equal(got, want) {
		t.Errorf("tags %q, want %q", got, want)
	}
	if l, ok := findLink(n.Links, KindLink, "Functions", "hasTag"); !ok || l.Display != "`hasTag`" || l.Line != 38 {
		t.Errorf("[[Functions#hasTag|`hasTag`]]: found %v, %+v", ok, l)
	}
}

func TestHelpVaultReleaseNote(t *testing.T) {
	vault := helpVault(t)
	n, _ := parseVaultFile(t, NewParser(), vault, "Release notes/v1.7.7.md")
	if n.Title != "1.7.7" {
		t.Errorf("title %q, want the frontmatter title", n.Title)
	}
	if got := tagStrings(n.Tags); !slices.Equal(got, []string{"fm:desktop @3"}) {
		t.Errorf("tags %q", got)
	}
	if n.Frontmatter["date"] != "2024-11-18" {
		t.Errorf("date %#v, want the date as written", n.Frontmatter["date"])
	}
}

func TestHelpVaultJapanese(t *testing.T) {
	vault := helpVault(t)
	n, _ := parseVaultFile(t, NewParser(), vault, "ja/ノートとファイルのリンク/内部リンク.md")
	if n.Title != "内部リンク" {
		t.Errorf("title %q", n.Title)
	}
	if want := []string{"ガイド/ブロックへのリンク", "ガイド/内部リンク"}; !slices.Equal(n.Aliases, want) {
		t.Errorf("aliases %q, want %q", n.Aliases, want)
	}
	if l, ok := findLink(n.Links, KindLink, "設定", "ファイルとリンク"); !ok || l.Display != "ファイルとリンク" || l.Line != 16 {
		t.Errorf("[[設定#ファイルとリンク|ファイルとリンク]]: found %v, %+v", ok, l)
	}
	if len(n.Blocks) == 0 || n.Blocks[0] != (Block{ID: "b15695", Line: 12}) {
		t.Errorf("blocks %v", n.Blocks)
	}
	if len(n.Headings) == 0 || n.Headings[0] != (Heading{Level: 2, Text: "内部リンクの対応フォーマット", Line: 18}) {
		t.Errorf("headings %v", n.Headings)
	}
}

// TestHelpVaultAllFiles parses every note of every language. Besides not
// failing, headings written without markup must come out exactly as the
// source line has them, and titles must be the file names, so no
// translation is mangled on the way through.
func TestHelpVaultAllFiles(t *testing.T) {
	vault := helpVault(t)
	p := NewParser()
	checked := map[string]int{} // headings compared, per top folder
	files := 0
	err := filepath.WalkDir(vault, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || filepath.Ext(path) != ".md" {
			return err
		}
		files++
		rel, _ := filepath.Rel(vault, path)
		rel = filepath.ToSlash(rel)
		lang, _, _ := strings.Cut(rel, "/")
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		n := mustParse(t, p, rel, src)
		checkNote(t, rel, src, n)
		lines := strings.Split(string(src), "\n")
		if _, hasTitle := n.Frontmatter["title"]; !hasTitle && n.Title != strings.TrimSuffix(filepath.Base(path), ".md") {
			t.Errorf("%s: title %q", rel, n.Title)
		}
		for _, h := range n.Headings {
			raw := strings.TrimSpace(lines[h.Line-1])
			if !strings.HasPrefix(raw, "#") || strings.ContainsAny(raw, "`*_[]<>\\&") {
				continue // setext, or markup that plain text drops
			}
			raw = strings.TrimSpace(strings.TrimRight(strings.TrimLeft(raw, "#"), "# "))
			if h.Text != raw {
				t.Errorf("%s:%d: heading %q, source has %q", rel, h.Line, h.Text, raw)
			}
			checked[lang]++
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if files < 1000 {
		t.Errorf("parsed only %d files", files)
	}
	for _, lang := range []string{"en", "de", "ja", "ru", "zh", "ar", "Release notes"} {
		if checked[lang] < 100 {
			t.Errorf("%s: only %d headings compared", lang, checked[lang])
		}
	}
}

// isLinkText reports whether the bytes at the link's offsets in src are a
// whole link of its kind.
func isLinkText(src []byte, l Link) bool {
	if l.Start < 0 || l.Start >= l.End || l.End > len(src) {
		return false
	}
	s := string(src[l.Start:l.End])
	switch {
	case strings.HasPrefix(s, "[[") || strings.HasPrefix(s, "![["):
		return strings.HasSuffix(s, "]]")
	case l.Kind == KindMarkdown || l.Kind == KindEmbed:
		return (strings.HasPrefix(s, "[") || strings.HasPrefix(s, "![")) && strings.HasSuffix(s, ")")
	}
	return false
}

// checkNote asserts what must hold for any input: no internal error, every
// line inside the file, every string valid UTF-8, contexts capped, and a
// Note that encodes to JSON.
func checkNote(t *testing.T, name string, src []byte, n Note) {
	t.Helper()
	norm, _, _ := normalizeSource(src)
	lines := newLineIndex(norm)
	for _, w := range n.Warnings {
		if strings.HasPrefix(w, internalErrorWarning) {
			t.Errorf("%s: %s", name, w)
		}
	}
	inFile := func(what string, line int) {
		if line < 1 || line > lines.count() {
			t.Errorf("%s: %s line %d outside 1..%d", name, what, line, lines.count())
		}
	}
	valid := func(what, s string) {
		if !utf8.ValidString(s) {
			t.Errorf("%s: %s %q is not valid UTF-8", name, what, s)
		}
	}
	valid("title", n.Title)
	for _, a := range n.Aliases {
		valid("alias", a)
	}
	for _, l := range n.Links {
		inFile("link", l.Line)
		valid("link target", l.Target)
		valid("link subpath", l.Subpath)
		valid("link display", l.Display)
		valid("link context", l.Context)
		if len(l.Context) > maxContext {
			t.Errorf("%s: context of %d bytes", name, len(l.Context))
		}
		if l.Target == "" && l.Subpath == "" {
			t.Errorf("%s: empty link %+v", name, l)
		}
		if l.End != 0 && !isLinkText(src, l) {
			t.Errorf("%s: link %+v: offsets %d-%d do not hold a link in the file", name, l, l.Start, l.End)
		}
	}
	for _, e := range n.External {
		inFile("external link", e.Line)
		valid("url", e.URL)
		valid("link text", e.Text)
	}
	for _, tag := range n.Tags {
		inFile("tag", tag.Line)
		valid("tag", tag.Name)
		if tag.Name == "" || tag.Inline && isASCIIDigits([]byte(tag.Name)) {
			t.Errorf("%s: bad tag %+v", name, tag)
		}
	}
	for _, b := range n.Blocks {
		inFile("block", b.Line)
		if b.ID == "" {
			t.Errorf("%s: empty block id", name)
		}
	}
	for _, h := range n.Headings {
		inFile("heading", h.Line)
		valid("heading", h.Text)
		if h.Level < 1 || h.Level > 6 {
			t.Errorf("%s: heading level %d", name, h.Level)
		}
	}
	if _, err := json.Marshal(n); err != nil {
		t.Errorf("%s: note does not encode: %v", name, err)
	}
}

// TestParseConcurrent runs one Parser from many goroutines; under -race it
// also proves the parsers keep no state between calls.
func TestParseConcurrent(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("testdata", "parse", "*.md"))
	if err != nil || len(files) == 0 {
		t.Fatalf("testdata: %v", err)
	}
	p := NewParser()
	var srcs [][]byte
	var want []Note
	for _, f := range files {
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		srcs = append(srcs, src)
		want = append(want, mustParse(t, p, f, src))
	}
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			for i := range 20 {
				k := (g + i) % len(srcs)
				if got := mustParse(t, p, files[k], srcs[k]); !reflect.DeepEqual(got, want[k]) {
					t.Errorf("%s parsed differently on goroutine %d", files[k], g)
					return
				}
			}
		})
	}
	wg.Wait()
}

// TestParseHugeInput feeds 20 MB notes of several shapes. goldmark's time
// grows with the square of container nesting on one line, which
// limitContainerDepth guards against; the rest must simply stay linear.
func TestParseHugeInput(t *testing.T) {
	if testing.Short() {
		t.Skip("20 MB inputs")
	}
	size := 20 << 20
	if raceEnabled {
		size = 2 << 20 // quadratic time still shows at 2 MB: 100 times the work of 200 KB
	}
	repeat := func(unit string) []byte { return bytes.Repeat([]byte(unit), size/len(unit)) }
	const prose = "Words and a [[Link|alias]], a #tag, `code`, https://example.com/x#y ^id-1\n\n"
	tests := []struct {
		name  string
		src   []byte
		links int
	}{
		{name: "prose", src: repeat(prose), links: size / len(prose)},
		{name: "one line", src: repeat("word [[x]] #t "), links: size / len("word [[x]] #t ")},
		{name: "code fence", src: append([]byte("```\n"), repeat("[[x]] #y\n")...), links: 0},
		{name: "nested quotes", src: append(repeat("> "), "[[x]]"...), links: 1},
		{name: "nested ordered lists", src: append(repeat("1. "), "[[x]]"...), links: 1},
		{name: "nested footnotes", src: append(repeat("[^a]: "), "[[x]]"...), links: 1},
	}
	p := NewParser()
	// The time is checked here; the budget is not what is tested.
	p.budget = func(int) time.Duration { return time.Hour }
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			start := time.Now()
			n := mustParse(t, p, "huge.md", tt.src)
			if d := time.Since(start); d > 2*time.Minute { // quadratic would take hours; a loaded CI machine takes a minute
				t.Errorf("took %v", d)
			}
			// Links past maxListItems are counted, not kept.
			if want := min(tt.links, maxListItems); len(n.Links) != want {
				t.Errorf("%d links, want %d", len(n.Links), want)
			}
			if tt.links > maxListItems {
				want := fmt.Sprintf("note has %d links; only the first %d are kept", tt.links, maxListItems)
				if !slices.Contains(n.Warnings, want) {
					t.Errorf("warnings %q, want %q", n.Warnings, want)
				}
			}
		})
	}
}

func FuzzParse(f *testing.F) {
	files, _ := filepath.Glob(filepath.Join("testdata", "parse", "*.md"))
	for _, file := range files {
		if src, err := os.ReadFile(file); err == nil {
			f.Add(src)
		}
	}
	for _, s := range []string{
		"", "---", "---\n---", "---\na: [[x]]\n---\n", "\uFEFF---\r\ntags: a\r\n---\r\n#t",
		"[[a|b]] ![[c#^d]] #e ^f", "| [[a\\|b]] |\n|---|\n", "> > > [[x]]", "[[", "#", "^", "\xff[[x]]",
		"---\na: &a [*a]\n---\n", "---\n? [a]\n: b\n---\n", "[t](%zz#%zz)", "<a@b.c> https://x.y/#z",
	} {
		f.Add([]byte(s))
	}
	p := NewParser()
	f.Fuzz(func(t *testing.T, src []byte) {
		n := mustParse(t, p, "fuzz.md", src)
		checkNote(t, "fuzz", src, n)
	})
}

func BenchmarkParse(b *testing.B) {
	src, err := os.ReadFile(filepath.Join("testdata", "parse", "realistic.md"))
	if err != nil {
		b.Fatal(err)
	}
	p := NewParser()
	b.SetBytes(int64(len(src)))
	b.ReportAllocs()
	for b.Loop() {
		p.Parse(context.Background(), "Reviews/2024-W14.md", src)
	}
}

// BenchmarkParseParallel is BenchmarkParse from GOMAXPROCS goroutines, as
// the indexer's worker pool calls it.
func BenchmarkParseParallel(b *testing.B) {
	src, err := os.ReadFile(filepath.Join("testdata", "parse", "realistic.md"))
	if err != nil {
		b.Fatal(err)
	}
	p := NewParser()
	b.SetBytes(int64(len(src)))
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			p.Parse(context.Background(), "Reviews/2024-W14.md", src)
		}
	})
}

// mustParse is Parse with no deadline of the caller's, failing the test
// when it does not read the note to the end.
func mustParse(tb testing.TB, p *Parser, path string, src []byte) Note {
	tb.Helper()
	n, err := p.Parse(context.Background(), path, src)
	if err != nil {
		tb.Errorf("Parse(%s): %v", path, err)
	}
	return n
}

// mustProse is Prose as mustParse is Parse.
func mustProse(tb testing.TB, p *Parser, src []byte) []Prose {
	tb.Helper()
	out, err := p.Prose(context.Background(), src)
	if err != nil {
		tb.Errorf("Prose: %v", err)
	}
	return out
}

// TestParseOtherEncodings reads notes saved as Windows-1252 or UTF-16:
// title, headings, chunks and links hold the characters written, and the
// warning says how the file was read.
func TestParseOtherEncodings(t *testing.T) {
	const text = "---\ntitle: Café crème\n---\n# Crème brûlée\n\nLa crème brûlée est un dessert français. [[Œuvre]]\n"
	latin1, err := charmap.Windows1252.NewEncoder().String(text)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, src, warning string
	}{
		{"windows-1252", latin1, "read as Windows-1252 (Latin-1)"},
		{"windows-1252 with CRLF", strings.ReplaceAll(latin1, "\n", "\r\n"), "read as Windows-1252 (Latin-1)"},
		{"utf-16le", "\xff\xfe" + utf16LE(text), "read as UTF-16"},
		{"utf-16be", "\xfe\xff" + utf16BE(text), "read as UTF-16"},
	}
	p := NewParser()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			n := mustParse(t, p, "Zettel/2024.md", []byte(tt.src))
			if n.Title != "Café crème" {
				t.Errorf("title %q", n.Title)
			}
			if len(n.Headings) != 1 || n.Headings[0].Text != "Crème brûlée" {
				t.Errorf("headings %+v", n.Headings)
			}
			var body strings.Builder
			for _, c := range n.Chunks {
				body.WriteString(c.Text)
			}
			if !strings.Contains(body.String(), "La crème brûlée est un dessert français.") {
				t.Errorf("chunks %q", body.String())
			}
			if got := linkStrings(n.Links); !slices.Equal(got, []string{"link Œuvre @6"}) {
				t.Errorf("links %q", got)
			}
			if len(n.Warnings) != 1 || !strings.Contains(n.Warnings[0], tt.warning) || !strings.Contains(n.Warnings[0], "'2024.md'") {
				t.Errorf("warnings %q, want one saying %q", n.Warnings, tt.warning)
			}
			if got, _ := NoteText([]byte(tt.src)); !strings.Contains(got, "La crème brûlée") {
				t.Errorf("NoteText %q", got)
			}
		})
	}
}

// utf16BE is s in UTF-16, big-endian, without a byte order mark.
func utf16BE(s string) string {
	var b []byte
	for _, u := range utf16.Encode([]rune(s)) {
		b = binary.BigEndian.AppendUint16(b, u)
	}
	return string(b)
}

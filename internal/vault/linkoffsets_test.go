package vault

import (
	"bytes"
	"context"
	"encoding/binary"
	"slices"
	"testing"
	"unicode/utf16"
	"unicode/utf8"

	"golang.org/x/text/encoding/charmap"
)

// TestLinkOffsets checks that each link's Start and End hold the link as
// written in the file, whatever the file's line ends, BOM or bytes.
func TestLinkOffsets(t *testing.T) {
	tests := []struct {
		name string
		src  string
		want []string // the text at each link's offsets, "" when End is 0
	}{
		{"wikilinks", "See [[Note]], [[Note|alias]] and ![[Pic.png]].\n[[Folder/Note#Heading|x]] [[Note#^block]]\n",
			[]string{"[[Note]]", "[[Note|alias]]", "![[Pic.png]]", "[[Folder/Note#Heading|x]]", "[[Note#^block]]"}},
		{"markdown", "A [text](Folder/Note.md), [b](<My Note.md> \"title\") and ![alt](img.png 'x').\n[c](../Up.md#Part (t))\n",
			[]string{"[text](Folder/Note.md)", `[b](<My Note.md> "title")`, "![alt](img.png 'x')", "[c](../Up.md#Part (t))"}},
		{"markdown with parentheses", "[x](a(b).md) [y]( My%20Note.md )\n",
			[]string{"[x](a(b).md)", "[y]( My%20Note.md )"}},
		{"label with brackets", "[see [[Inner]] too](Outer.md)\n",
			[]string{"[see [[Inner]] too](Outer.md)", "[[Inner]]"}},
		{"reference link", "[x][r]\n\n[r]: Note.md\n",
			[]string{""}},
		{"crlf and bom", "\uFEFF# T\r\n\r\nSee [[A]]\r\nand [b](B.md)\r\n",
			[]string{"[[A]]", "[b](B.md)"}},
		{"lone cr", "x\ry [[A]]\r[[B]]",
			[]string{"[[A]]", "[[B]]"}},
		{"invalid utf-8", "x\xff\xfe [[A]] \xc3 [[B]] é [c](C.md)\n",
			[]string{"[[A]]", "[[B]]", "[c](C.md)"}},
		{"frontmatter", "---\r\nup: \"[[Parent]]\"\r\nrelated:\r\n  - \"[[A|a]]\"\r\n  - '[[B]]'\r\nesc: \"[[C\\u0041]]\"\r\n---\r\n[[D]]\r\n",
			[]string{"[[Parent]]", "[[A|a]]", "[[B]]", "", "[[D]]"}},
		{"tab indented list", "- item\n\t[t](Tab%20Note.md) [[W]]\n",
			[]string{"[t](Tab%20Note.md)", "[[W]]"}},
		{"utf-16", "\xff\xfe" + utf16LE("a\r\n[[A]] é 🚀 [b](B.md)\n"),
			[]string{utf16LE("[[A]]"), utf16LE("[b](B.md)")}},
		{"code", "`[[A]]` and\n\n```\n[b](B.md)\n```\n[[C]]\n",
			[]string{"[[C]]"}},
	}
	p := NewParser()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			n, err := p.Parse(context.Background(), "n.md", []byte(tt.src))
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, l := range n.Links {
				if l.End == 0 {
					got = append(got, "")
					continue
				}
				got = append(got, tt.src[l.Start:l.End])
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("links at their offsets\n got %q\nwant %q", got, tt.want)
			}
		})
	}
}

// utf16LE is s in UTF-16, little-endian, without a byte order mark.
func utf16LE(s string) string {
	var b []byte
	for _, u := range utf16.Encode([]rune(s)) {
		b = binary.LittleEndian.AppendUint16(b, u)
	}
	return string(b)
}

// TestNormalizeSourceOffsets checks normalizeSource against the two steps
// it does in one pass (bytes not valid UTF-8 read as Windows-1252, then CR
// line ends to LF), and that every character it keeps maps back to the
// same character in the file.
func TestNormalizeSourceOffsets(t *testing.T) {
	for _, src := range []string{
		"", "plain\n", "\uFEFFbom", "a\r\nb\rc\n\r\n", "a\xff\xfe\xfdx\xc3\r\n\xe2\x82é\uFFFD\x81\x80",
		"\uFEFF\r\r\n\xff\r", "\r",
	} {
		got, _, m := normalizeSource([]byte(src))
		want := []byte(referenceDecode(bytes.TrimPrefix([]byte(src), utf8BOM)))
		want = bytes.ReplaceAll(want, []byte("\r\n"), []byte("\n"))
		want = bytes.ReplaceAll(want, []byte("\r"), []byte("\n"))
		if !bytes.Equal(got, want) {
			t.Errorf("normalizeSource(%q) = %q, want %q", src, got, want)
			continue
		}
		for off := 0; off < len(got); {
			r, size := utf8.DecodeRune(got[off:])
			o := m.original(off)
			switch {
			case got[off] == '\n':
				if src[o] != '\n' && src[o] != '\r' {
					t.Errorf("%q: line end at %d maps to %d, %q", src, off, o, src[o])
				}
			case o+size <= len(src) && src[o:o+size] == string(got[off:off+size]):
			case charmap.Windows1252.DecodeByte(src[o]) == r:
				// a byte read as Windows-1252
			default:
				t.Errorf("%q: %q at %d maps to %d, %q", src, got[off:off+size], off, o, src[o])
			}
			off += size
		}
	}
}

// referenceDecode reads b as UTF-8 where it is valid and each other byte
// as Windows-1252, one rune at a time with the standard library.
func referenceDecode(b []byte) string {
	var out []rune
	for len(b) > 0 {
		r, size := utf8.DecodeRune(b)
		if r == utf8.RuneError && size == 1 {
			r = charmap.Windows1252.DecodeByte(b[0])
		}
		out = append(out, r)
		b = b[size:]
	}
	return string(out)
}

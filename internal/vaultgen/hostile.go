package vaultgen

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// HostileOptions describe the vault Hostile writes.
type HostileOptions struct {
	// LinkDenseCopies is how many copies of the 8 MB link-dense note to
	// write; 0 means 1.
	LinkDenseCopies int
}

// HostileNote is one note Hostile writes.
type HostileNote struct {
	Path string
	Size int
	// Shape says what makes the note hard to index.
	Shape string
}

// Hostile writes into dir, which must not exist or be empty, a vault of
// notes shaped to make a Markdown parser slow or an indexer's memory grow:
// long runs of "[](" and "[a](", a list nested by tabs, link titles that
// never close, 8 MB notes dense with links and a 6 MB table, each under
// the 8 MB note size limit, plus a Home note linking to them all. It
// returns the notes written, Home last.
func Hostile(dir string, opts HostileOptions) ([]HostileNote, error) {
	if err := prepareDir(dir); err != nil {
		return nil, err
	}
	copies := max(opts.LinkDenseCopies, 1)
	type spec struct {
		name, shape string
		body        []byte
	}
	specs := []spec{
		{"Empty links", `200 KB of "[](" on one line`, repeatTo("[](", 200<<10)},
		{"Links", `400 KB of "[a](" on one line`, repeatTo("[a](", 400<<10)},
		{"Long links", `8 MB of "[a](" on one line`, repeatTo("[a](", 8<<20-1024)},
		{"Tab list", "a 4.5 MB list nested by tabs", tabList(4608 << 10)},
		{"Open titles", `1 MB of lines opening a link title that never closes`, repeatTo("[a](b \"x\n", 1<<20)},
		{"Table", "a 6 MB table with a link in every row", table(6 << 20)},
	}
	dense := linkDense(8<<20 - 1024)
	for i := range copies {
		specs = append(specs, spec{"Link dense " + strconv.Itoa(i+1), "8 MB of prose dense with links", dense})
	}
	var out []HostileNote
	var home strings.Builder
	home.WriteString("# Home\n\n")
	for _, s := range specs {
		path := s.name + ".md"
		if err := os.WriteFile(filepath.Join(dir, path), s.body, 0o644); err != nil {
			return nil, fmt.Errorf("write %s: %w", path, err)
		}
		out = append(out, HostileNote{Path: path, Size: len(s.body), Shape: s.shape})
		fmt.Fprintf(&home, "- [[%s]]: %s\n", s.name, s.shape)
	}
	if err := os.WriteFile(filepath.Join(dir, "Home.md"), []byte(home.String()), 0o644); err != nil {
		return nil, fmt.Errorf("write Home.md: %w", err)
	}
	return append(out, HostileNote{Path: "Home.md", Size: home.Len(), Shape: "links to the others"}), nil
}

// repeatTo repeats unit to at most size bytes.
func repeatTo(unit string, size int) []byte {
	return bytes.Repeat([]byte(unit), size/len(unit))
}

// tabList is a list whose items go one tab deeper on every line, back to
// the left margin every 2000 lines.
func tabList(size int) []byte {
	var b bytes.Buffer
	for i := 0; b.Len() < size; i++ {
		b.WriteString(strings.Repeat("\t", i%2000))
		b.WriteString("- item [[Home]]\n")
	}
	return b.Bytes()[:size]
}

// table is a Markdown table with a wikilink, a Markdown link and a tag in
// every row.
func table(size int) []byte {
	var b bytes.Buffer
	b.WriteString("| Note | Link | Tag |\n|---|---|---|\n")
	for i := 0; ; i++ {
		row := fmt.Sprintf("| [[Note %d]] | [row %d](Folder/Row%%20%d.md) | #t%d |\n", i, i, i, i%100)
		if b.Len()+len(row) > size {
			break
		}
		b.WriteString(row)
	}
	return b.Bytes()
}

// linkDense is prose with a link every few words, in paragraphs of ten
// lines.
func linkDense(size int) []byte {
	var b bytes.Buffer
	for i := 0; ; i++ {
		s := fmt.Sprintf("See [[Note %d]] and [the other](Other%%20%d.md#Part) or [[Target %d#Heading|alias]] with #tag%d.", i, i, i, i%50)
		if i%10 == 9 {
			s += "\n\n"
		} else {
			s += "\n"
		}
		if b.Len()+len(s) > size {
			break
		}
		b.WriteString(s)
	}
	return b.Bytes()
}

package query

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"strings"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/text"

	"github.com/jarvis-mcp/jarvis/internal/bases"
	"github.com/jarvis-mcp/jarvis/internal/vault"
)

// ErrNoBlock means a note holds no base block, or fewer than asked for.
var ErrNoBlock = errors.New("no base block")

// ErrNotBase means a path names neither a .base file nor a note.
var ErrNotBase = errors.New("not a base")

// Source is a base as read from the vault: the parsed base and the file
// `this` is (the .base file, or the note embedding the block).
type Source struct {
	Base *bases.Base
	// This is the .base file or the note, as the index holds it when it
	// does (a .base file may not be indexed yet: then its path and times
	// from disk).
	This bases.File
}

// ReadBase reads the base at rel: a .base file, or the block-th ```base
// block (from 1; the first when 0) of a note. Both are read through the
// vault root, so that nothing outside the vault or kept out of it is
// read, within the size a note may have. v gives `this` the facts the
// index holds of the file.
func ReadBase(root *vault.Root, v *Vault, rel string, block int) (Source, error) {
	rel = baseFile(root, rel)
	lower := strings.ToLower(rel)
	isBase := strings.HasSuffix(lower, ".base")
	if !isBase && !vault.IsNote(rel) {
		return Source{}, fmt.Errorf("%w: %q is neither a .base file nor a Markdown note", ErrNotBase, rel)
	}
	if isBase && block > 0 {
		return Source{}, fmt.Errorf("block is for a base block in a note; %q is a .base file", rel)
	}
	data, info, warn, err := root.ReadNote(rel)
	if err != nil {
		return Source{}, err
	}
	if warn != "" {
		return Source{}, fmt.Errorf("%s: %s", rel, warn)
	}
	var this bases.File
	if f, ok := v.File(rel); ok {
		this = f
	} else {
		// Not indexed yet: its birth time is not known here.
		this = &bases.MemFile{FilePath: rel, FileSize: info.Size(), Ctime: CreatedTime(0, info.ModTime()), Mtime: info.ModTime()}
	}
	src, where, first := data, rel, 1
	if !isBase {
		blocks := baseBlocks(data)
		n := max(block, 1)
		if len(blocks) < n {
			if len(blocks) == 0 {
				return Source{}, fmt.Errorf("%w: note %q has no ```base block", ErrNoBlock, rel)
			}
			return Source{}, fmt.Errorf("%w: note %q has %d base blocks, so there is no block %d", ErrNoBlock, rel, len(blocks), n)
		}
		src, first = blocks[n-1].src, blocks[n-1].line
		where = fmt.Sprintf("%s, base block %d", rel, n)
	}
	b, err := bases.ParseBase(src)
	if err != nil {
		return Source{}, fileError(where, first, err)
	}
	// A view's problem is said as the base's are: in the file, on its line.
	for i := range b.Views {
		if p := b.Views[i].Problem; p != nil {
			b.Views[i].Problem = fileError(where, first, p)
		}
	}
	return Source{Base: b, This: this}, nil
}

// fileError places a problem of a base in the file it is written in:
// "Bases/Projects.base, line 13: ..." for a .base file, the note's own
// line for a base block whose first line is first.
func fileError(where string, first int, err error) error {
	var fe *bases.FileError
	if !errors.As(err, &fe) {
		return fmt.Errorf("%s: %w", where, err)
	}
	if fe.Line == 0 {
		return &placedError{msg: fmt.Sprintf("%s: %s", where, fe.Msg), err: err}
	}
	return &placedError{msg: fmt.Sprintf("%s, line %d: %s", where, first+fe.Line-1, fe.Msg), err: err}
}

type placedError struct {
	msg string
	err error
}

func (e *placedError) Error() string { return e.msg }
func (e *placedError) Unwrap() error { return e.err }

// baseFile is the file a base is named by: rel as written, or, for a name
// without the extension ("Bases/Projects", "Dashboard"), the .base file
// of that name, else the note, as read-note finds a note without its
// ".md". A name that is none of them is left as written.
func baseFile(root *vault.Root, rel string) string {
	if strings.HasSuffix(strings.ToLower(rel), ".base") || vault.IsNote(rel) {
		return rel
	}
	for _, ext := range []string{".base", ".md"} {
		if _, _, err := root.Stat(rel + ext); err == nil {
			return rel + ext
		}
	}
	return rel
}

// IsNotExist reports whether err says the base's file does not exist.
func IsNotExist(err error) bool { return errors.Is(err, fs.ErrNotExist) }

// BaseBlocks are the contents of the fenced code blocks of a note whose
// language is "base", in order: the bases a note embeds.
func BaseBlocks(src []byte) [][]byte {
	var out [][]byte
	for _, b := range baseBlocks(src) {
		out = append(out, b.src)
	}
	return out
}

// block is a base block of a note: its text and the note's line its first
// line is (from 1).
type block struct {
	src  []byte
	line int
}

func baseBlocks(src []byte) []block {
	doc := goldmark.New().Parser().Parse(text.NewReader(src))
	var out []block
	_ = ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		cb, ok := n.(*ast.FencedCodeBlock)
		if !entering || !ok {
			return ast.WalkContinue, nil
		}
		if strings.EqualFold(string(cb.Language(src)), "base") {
			var b []byte
			lines := cb.Lines()
			line := 0
			for i := 0; i < lines.Len(); i++ {
				seg := lines.At(i)
				if i == 0 {
					line = bytes.Count(src[:seg.Start], []byte("\n")) + 1
				}
				b = append(b, seg.Value(src)...)
			}
			out = append(out, block{src: b, line: line})
		}
		return ast.WalkSkipChildren, nil
	})
	return out
}

// AdHoc is a query written as arguments rather than in a file: a filter
// (an expression, or an and/or/not object as in a .base file, as JSON),
// formulas by name, sort keys, the columns and a limit. It is read as the
// one view of a base, by the same parser as a .base file.
type AdHoc struct {
	Filter     json.RawMessage
	Formulas   map[string]string
	Sort       []SortKey
	Properties []string
	GroupBy    *SortKey
	Limit      int
}

// SortKey is a property and a direction, ASC (the default) or DESC.
type SortKey struct {
	Property  string `json:"property"`
	Direction string `json:"direction,omitempty"`
}

// Base parses the query into a base of one view, named "query".
func (q AdHoc) Base() (*bases.Base, error) {
	type view struct {
		Type    string          `json:"type"`
		Name    string          `json:"name"`
		Filters json.RawMessage `json:"filters,omitempty"`
		Order   []string        `json:"order,omitempty"`
		Sort    []SortKey       `json:"sort,omitempty"`
		GroupBy *SortKey        `json:"groupBy,omitempty"`
		Limit   int             `json:"limit,omitempty"`
	}
	doc := struct {
		Formulas map[string]string `json:"formulas,omitempty"`
		Views    []view            `json:"views"`
	}{q.Formulas, []view{{Type: "table", Name: adHocView, Order: q.Properties, Sort: q.Sort, GroupBy: q.GroupBy, Limit: q.Limit}}}
	if f := strings.TrimSpace(string(q.Filter)); f != "" && f != "null" {
		if err := jsonInText(q.Filter); err != nil {
			return nil, err
		}
		doc.Views[0].Filters = q.Filter
	}
	// JSON is YAML: the base file parser reads it, with its checks and
	// its words for what is wrong.
	data, err := json.Marshal(doc)
	if err != nil {
		return nil, fmt.Errorf("read the query: %w", err)
	}
	b, err := bases.ParseBase(data)
	if err != nil {
		return nil, asQueryError(err)
	}
	if p := b.Views[0].Problem; p != nil {
		return nil, asQueryError(p)
	}
	return b, nil
}

// jsonInText refuses a filter given as text that holds JSON, such as
// "{\"and\": [...]}": a client that encoded the group twice. Read as an
// expression it is an object or list literal, which passes every file or
// none whatever it says.
func jsonInText(filter json.RawMessage) error {
	var text string
	if json.Unmarshal(filter, &text) != nil {
		return nil // not text: an object, which is read as a group
	}
	t := strings.TrimSpace(text)
	if (strings.HasPrefix(t, "{") || strings.HasPrefix(t, "[")) && json.Valid([]byte(t)) {
		return &queryError{msg: `filter is text that holds JSON; pass an and/or/not group as a JSON object ({"and": ["…", "…"]}), not as a string, or give one expression such as file.name == "a.md"`}
	}
	return nil
}

// asQueryError words a base file error in the names of the query's
// arguments: "filter.and[1]" rather than "filters.and[1] of view ...", and
// without the line of the JSON the query is read as.
func asQueryError(err error) error {
	msg := err.Error()
	var fe *bases.FileError
	if errors.As(err, &fe) {
		msg = fe.Msg
	}
	// Only the argument's path: "a list of filters" stays plural.
	msg = strings.NewReplacer(" of "+bases.ViewLabel(adHocView, 0), "", "filters.", "filter.", "filters[", "filter[", "filters:", "filter:", "groupBy", "group_by").Replace(msg)
	return &queryError{msg: msg, err: err}
}

// adHocView is the name of the one view an ad-hoc query is read as.
const adHocView = "query"

type queryError struct {
	msg string
	err error
}

func (e *queryError) Error() string { return e.msg }
func (e *queryError) Unwrap() error { return e.err }

package write

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/jarvis-mcp/jarvis/internal/vault"
	"github.com/jarvis-mcp/jarvis/internal/words"
)

// Edit is one change edit-note makes to a note's text. Op says which, and
// which of the other fields it takes:
//
//   - "append": Text goes at the end of the note, on a line of its own.
//   - "prepend": Text goes at the start of the body, after the frontmatter.
//   - "replace": the literal text Find becomes Replace; Count, when given,
//     is how many times Find must occur, else it must occur exactly once.
//   - "replace_section": the body of the section under Heading (a heading
//     or heading path, as read-note takes it) becomes Text; the heading
//     line stays, and so do the blank lines that end the section.
//   - "set_properties": each of Properties is set in the frontmatter, or
//     removed when its value is null; every other byte stays as written.
//   - "content": Text is the whole new note.
//
// Text, Find and Replace are taken with the note's line ends: a "\n" in
// them is a CRLF in a CRLF note.
type Edit struct {
	Op         string         `json:"op" jsonschema:"the kind of edit: append, prepend, replace, replace_section, set_properties or content"`
	Text       string         `json:"text,omitempty" jsonschema:"the text to add (append: at the end; prepend: after the frontmatter), the new body of the section (replace_section) or the whole new note (content)"`
	Find       string         `json:"find,omitempty" jsonschema:"replace: the exact text to find, not a pattern"`
	Replace    string         `json:"replace,omitempty" jsonschema:"replace: the text to put in its place, taken literally ($ and \\ have no special meaning)"`
	Count      *int           `json:"count,omitempty" jsonschema:"replace: how many times find occurs, all of them replaced; without it find must occur exactly once"`
	Heading    string         `json:"heading,omitempty" jsonschema:"replace_section: the heading whose section to replace, or a heading path such as Setup > Install, as read-note takes it; the heading line is kept"`
	Properties map[string]any `json:"properties,omitempty" jsonschema:"set_properties: the frontmatter properties to set; a null value removes the property; dates as YYYY-MM-DD"`

	// given says which of text and replace the edit's JSON had, so that
	// a field left out is told from one given as "": replace "" deletes
	// find, but no replace at all is a mistake, not a delete. An Edit
	// made in Go (decoded false) takes its fields as set.
	decoded, hasText, hasReplace bool
}

// UnmarshalJSON decodes an edit as encoding/json does, noting which of
// the fields whose "" means something (text, replace) were given: one
// left out, or null, is missing.
func (e *Edit) UnmarshalJSON(b []byte) error {
	type plain Edit // without this method
	var p plain
	if err := json.Unmarshal(b, &p); err != nil {
		return err
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(b, &fields); err != nil {
		return err
	}
	*e = Edit(p)
	e.decoded = true
	for name, v := range fields {
		given := string(bytes.TrimSpace(v)) != "null"
		switch strings.ToLower(name) { // as encoding/json matches them
		case "text":
			e.hasText = e.hasText || given
		case "replace":
			e.hasReplace = e.hasReplace || given
		}
	}
	return nil
}

// missing is the field op needs that e's JSON left out, worded as what to
// give: "" when none is. A field given as "" is not missing: replace ""
// deletes find, and text "" empties a section or the note. (append and
// prepend refuse an empty text, given or not.)
func (e Edit) missing() string {
	if !e.decoded {
		return ""
	}
	switch {
	case e.Op == OpReplace && !e.hasReplace:
		return `replace is missing; give the text to put in place of find ("" to delete it); nothing was changed`
	case e.Op == OpReplaceSection && !e.hasText:
		return `text is missing; give the new body of the section ("" to empty it); nothing was changed`
	case e.Op == OpContent && !e.hasText:
		return `text is missing; give the whole new text of the note ("" to empty it); nothing was changed`
	}
	return ""
}

// The ops an Edit may name.
const (
	OpAppend         = "append"
	OpPrepend        = "prepend"
	OpReplace        = "replace"
	OpReplaceSection = "replace_section"
	OpSetProperties  = "set_properties"
	OpContent        = "content"
)

var ops = []string{OpAppend, OpPrepend, OpReplace, OpReplaceSection, OpSetProperties, OpContent}

// Ops lists the ops an Edit may name.
func Ops() []string { return slices.Clone(ops) }

// Bounds of one call of ApplyEdits: an edit list is written by a model, and
// a long or repeated one must not make a note, or the memory that builds
// it, grow without end. The note itself is bounded by vault.MaxNoteSize,
// past which it would no longer be indexed.
const (
	// MaxEdits is the most edits one call applies.
	MaxEdits = 50
	// MaxEditText is the longest text, find, replace, or properties (all
	// their values together) one edit may carry, in bytes.
	MaxEditText = 1 << 20
	// MaxProperties is the most properties one set_properties edit sets.
	MaxProperties = 200
)

// EditError is the error of one edit of a list: it names the edit by its
// place in the list (1-based) and its op, and wraps why it failed. An
// ErrTooLarge is wrapped in it too.
type EditError struct {
	Index int // 1-based
	Op    string
	Err   error
}

func (e *EditError) Error() string {
	if e.Op == "" {
		return fmt.Sprintf("edit %d: %v", e.Index, e.Err)
	}
	return fmt.Sprintf("edit %d (%s): %v", e.Index, e.Op, e.Err)
}

func (e *EditError) Unwrap() error { return e.Err }

// ApplyEdits applies edits to a note's bytes src, in order, as one change,
// and returns the new bytes. When any edit fails it returns nil and an
// *EditError naming that edit and why: no edit is applied alone. The
// note's BOM, line ends and every byte no edit touches are kept.
func ApplyEdits(src []byte, edits []Edit) ([]byte, error) {
	if len(edits) == 0 {
		return nil, errors.New("no edits given: pass at least one")
	}
	if len(edits) > MaxEdits {
		return nil, fmt.Errorf("a list of %d edits is %w: at most %d go in one call", len(edits), ErrTooLarge, MaxEdits)
	}
	if len(src) > vault.MaxNoteSize {
		return nil, fmt.Errorf("the note is %w to edit: %s, over the %s limit", ErrTooLarge, sizeWords(len(src)), sizeWords(vault.MaxNoteSize))
	}
	out := src
	for i, e := range edits {
		next, err := applyEdit(out, e)
		if err == nil && len(next) > vault.MaxNoteSize {
			err = fmt.Errorf("the note would grow %w: %s, over the %s limit", ErrTooLarge, sizeWords(len(next)), sizeWords(vault.MaxNoteSize))
		}
		if err != nil {
			op := e.Op
			if !slices.Contains(ops, op) {
				op = ""
			}
			return nil, &EditError{Index: i + 1, Op: op, Err: err}
		}
		out = next
	}
	return out, nil
}

// applyEdit applies one edit; it never changes src in place.
func applyEdit(src []byte, e Edit) ([]byte, error) {
	if err := checkFields(e); err != nil {
		return nil, err
	}
	bom, body := splitBOM(src)
	nl := lineEnd(body)
	var out []byte
	var err error
	switch e.Op {
	case OpAppend:
		out, err = appendText(body, withLineEnds(e.Text, nl), nl)
	case OpPrepend:
		out = prependText(body, withLineEnds(e.Text, nl), nl)
	case OpReplace:
		out, err = replaceText(body, withLineEnds(e.Find, nl), withLineEnds(e.Replace, nl), e.Count)
	case OpReplaceSection:
		out, err = replaceSection(body, e.Heading, withLineEnds(e.Text, nl), nl)
	case OpSetProperties:
		out, err = setProperties(body, e.Properties, nl)
	case OpContent:
		text := []byte(withLineEnds(e.Text, nl))
		if bom != nil && bytes.HasPrefix(text, utf8BOM) {
			text = text[len(utf8BOM):] // the note's own BOM is kept below
		}
		out = text
	}
	if err != nil {
		return nil, err
	}
	return append(slices.Clip(bom), out...), nil
}

// checkFields refuses an unknown op, a field the op does not take, and a
// field over the bounds, so that a misspelt edit fails rather than doing
// something else.
func checkFields(e Edit) error {
	if !slices.Contains(ops, e.Op) {
		if e.Op == "" {
			return fmt.Errorf("op is missing; give one of %s", strings.Join(ops, ", "))
		}
		return fmt.Errorf("unknown op %q; give one of %s", e.Op, strings.Join(ops, ", "))
	}
	takes := map[string][]string{
		OpAppend:         {"text"},
		OpPrepend:        {"text"},
		OpReplace:        {"find", "replace", "count"},
		OpReplaceSection: {"heading", "text"},
		OpSetProperties:  {"properties"},
		OpContent:        {"text"},
	}[e.Op]
	given := map[string]bool{
		"text":       e.Text != "",
		"find":       e.Find != "",
		"replace":    e.Replace != "",
		"count":      e.Count != nil,
		"heading":    e.Heading != "",
		"properties": len(e.Properties) > 0,
	}
	var extra []string
	for _, f := range []string{"text", "find", "replace", "count", "heading", "properties"} {
		if given[f] && !slices.Contains(takes, f) {
			extra = append(extra, f)
		}
	}
	if len(extra) > 0 {
		return fmt.Errorf("%s does not take %s; it takes %s", e.Op, joinAnd(extra), joinAnd(takes))
	}
	for _, f := range []struct {
		name string
		n    int
	}{{"text", len(e.Text)}, {"find", len(e.Find)}, {"replace", len(e.Replace)}, {"heading", len(e.Heading)}} {
		if f.n > MaxEditText {
			return fmt.Errorf("%s %w: %s, over the %s limit", f.name, ErrTooLarge, sizeWords(f.n), sizeWords(MaxEditText))
		}
	}
	switch e.Op {
	case OpAppend, OpPrepend:
		if e.Text == "" {
			return fmt.Errorf("text is empty: give the text to %s", e.Op)
		}
	case OpReplace:
		if e.Find == "" {
			return errors.New("find is empty: give the exact text to replace")
		}
		if e.Count != nil && *e.Count < 1 {
			return fmt.Errorf("count is %d: give how many times find occurs (1 or more), or leave it out", *e.Count)
		}
	case OpReplaceSection:
		if strings.TrimSpace(e.Heading) == "" {
			return errors.New("heading is empty: give the heading whose section to replace")
		}
	case OpSetProperties:
		if len(e.Properties) == 0 {
			return errors.New("properties is empty: give the properties to set, with null for those to remove")
		}
	}
	if m := e.missing(); m != "" {
		return errors.New(m)
	}
	return nil
}

// appendText adds text at the end of body, on a line of its own, so that
// it renders as the blocks it is: when it would be read into the note's
// last block (a paragraph, a quote or callout, a list, a table), a blank
// line goes before it, but for items of the same list added to a list,
// which go on with it (vault.Parser.NeedsBlankLine). A note that ended
// with a line end still does.
func appendText(body []byte, text, nl string) ([]byte, error) {
	sep := ""
	if len(body) > 0 && !endsWithLineEnd(body) {
		sep = breakOf(nl)
	}
	if start := bodyStart(body); start < len(body) && trailingBlank(body[start:]) < len(body)-start {
		// The note ends with a blank line, or its body is empty.
	} else if start < len(body) {
		joins, err := vault.NewParser().NeedsBlankLine(context.Background(), append(slices.Clone(body[start:]), sep...), []byte(text))
		if err != nil {
			return nil, fmt.Errorf("the note could not be read for where its last block ends (%v); use replace instead", err)
		}
		if joins {
			sep += breakOf(nl)
		}
	}
	if endsWithLineEnd(body) && !endsWithLineEnd([]byte(text)) {
		text += breakOf(nl)
	}
	out := make([]byte, 0, len(body)+len(sep)+len(text))
	return append(append(append(out, body...), sep...), text...), nil
}

// bodyStart is where the Markdown of body starts: past its frontmatter,
// if any.
func bodyStart(body []byte) int {
	if _, _, start, ok := frontmatterBounds(body); ok {
		return start
	}
	return 0
}

// prependText inserts text at the start of the body, after any
// frontmatter, and ends it with a line end when more text follows, so that
// the first line of the body stays a line of its own.
func prependText(body []byte, text, nl string) []byte {
	at := 0
	if _, _, bodyStart, ok := frontmatterBounds(body); ok {
		at = bodyStart
	}
	var sep string
	switch {
	case at > 0 && !endsWithLineEnd(body[:at]):
		sep = breakOf(nl) // the closing fence ends the note without a line end
		text = sep + text
	case at < len(body) && !strings.HasSuffix(text, "\n") && !strings.HasSuffix(text, "\r"):
		text += breakOf(nl)
	}
	out := make([]byte, 0, len(body)+len(text))
	out = append(append(append(out, body[:at]...), text...), body[at:]...)
	return out
}

// replaceText replaces the literal find in body with repl: count times
// when count is given (and find must occur that often), else exactly once.
func replaceText(body []byte, find, repl string, count *int) ([]byte, error) {
	n := bytes.Count(body, []byte(find))
	switch {
	case n == 0:
		return nil, errors.New("find does not occur in the note; read the note again and copy the text exactly, with its spaces and line breaks")
	case count != nil && n != *count:
		return nil, fmt.Errorf("find occurs %s in the note, not %s as count says; nothing was replaced", times(n), times(*count))
	case count == nil && n > 1:
		return nil, fmt.Errorf("find occurs %s in the note; give count %d to replace every one, or more of the surrounding text in find to pick one", times(n), n)
	}
	if grown := len(body) + n*(len(repl)-len(find)); grown > vault.MaxNoteSize {
		return nil, fmt.Errorf("the note would grow %w: %s, over the %s limit", ErrTooLarge, sizeWords(grown), sizeWords(vault.MaxNoteSize))
	}
	// bytes.ReplaceAll takes repl as it is: no $ or \ expansion.
	return bytes.ReplaceAll(body, []byte(find), []byte(repl)), nil
}

// replaceSection replaces the body of the section under heading: the
// lines after the heading up to the next heading of the same or a higher
// level, as read-note reads the section. Headings are found by the vault's
// parser, so a "#" line in a code block is no heading here either.
func replaceSection(body []byte, heading, text, nl string) ([]byte, error) {
	note, err := vault.NewParser().Parse(context.Background(), "", body)
	if err != nil {
		return nil, fmt.Errorf("the note could not be read for its headings (%v); use replace instead", err)
	}
	headings := note.Headings
	if len(headings) >= vault.MaxHeadings {
		return nil, fmt.Errorf("the note has %d headings or more, too many to find where a section ends; use replace instead", vault.MaxHeadings)
	}
	i := vault.FindHeading(headings, heading)
	if i < 0 {
		return nil, noHeadingError(headings, heading)
	}
	if same := sameNamed(headings, heading); len(same) > 1 {
		// read-note may show the first; a write must not guess.
		return nil, fmt.Errorf("%d headings are named %q (%s): give the heading path of the one meant, as read-note cites it", len(same), heading, words.Quoted(same))
	}
	lines := lineStarts(body)
	// The section's body starts after the heading: its line, and for a
	// setext heading the lines down to its underline.
	from := headingEnd(body, lines, headings[i].Line, vault.SectionEnd(headings, i))
	to := len(body)
	if end := vault.SectionEnd(headings, i); end > 0 && end < len(lines) {
		to = lines[end] // the start of the next heading's line
	}
	// The blank lines that end the section, separating it from the next
	// heading, stay as they were: the text's own are not added to them.
	tail := from + trailingBlank(body[from:to])
	blank := body[tail:to]
	// So do the blank lines between the heading and its body: the text
	// takes the spacing the user had rather than its own.
	lead := body[from : from+min(leadingBlank(body[from:to]), tail-from)]
	text = text[:trailingBlank([]byte(text))]
	text = text[leadingBlank([]byte(text)):]
	if text != "" {
		text = string(lead) + text
	}
	var mid []byte
	if from == len(body) && from > 0 && !endsWithLineEnd(body) && text != "" {
		mid = append(mid, breakOf(nl)...) // the heading is the last line, without a line end
	}
	mid = append(mid, text...)
	if text != "" && !endsWithLineEnd([]byte(text)) && (len(blank) > 0 || to < len(body) || endsWithLineEnd(body)) {
		mid = append(mid, breakOf(nl)...) // what follows keeps its own line, and a note its last line end
	}
	mid = append(mid, blank...)
	out := make([]byte, 0, len(body)-(to-from)+len(mid))
	out = append(append(append(out, body[:from]...), mid...), body[to:]...)
	return out, nil
}

// trailingBlank is where the blank lines (empty, or spaces and tabs) that
// end b begin: len(b) when its last line is not blank.
func trailingBlank(b []byte) int {
	end := len(b)
	for end > 0 {
		j := end
		if b[j-1] == '\n' {
			j--
		}
		if j > 0 && b[j-1] == '\r' {
			j--
		}
		start := bytes.LastIndexAny(b[:j], "\r\n") + 1
		if len(bytes.Trim(b[start:j], " \t")) > 0 {
			break
		}
		end = start
	}
	return end
}

// leadingBlank is where the blank lines (empty, or spaces and tabs) that
// start b end: 0 when its first line is not blank.
func leadingBlank(b []byte) int {
	at := 0
	for at < len(b) {
		end := bytes.IndexAny(b[at:], "\r\n")
		if end < 0 {
			if len(bytes.Trim(b[at:], " \t")) == 0 {
				return len(b)
			}
			break
		}
		if len(bytes.Trim(b[at:at+end], " \t")) > 0 {
			break
		}
		end += at + 1
		if b[end-1] == '\r' && end < len(b) && b[end] == '\n' {
			end++
		}
		at = end
	}
	return at
}

// headingEnd is the offset just past the heading on line (1-based): past
// its line end for an ATX heading ("## Setup"), past its underline for a
// setext one ("Setup" then "====="). last is the section's last line (0:
// the end of the note), below which an underline is not looked for.
func headingEnd(body []byte, lines []int, line, last int) int {
	if last == 0 {
		last = len(lines)
	}
	if !isATXHeading(lineText(body, lines, line)) {
		for l := line + 1; l <= last && l <= len(lines); l++ {
			if isSetextUnderline(lineText(body, lines, l)) {
				line = l
				break
			}
		}
	}
	if line >= len(lines) {
		return len(body)
	}
	return lines[line]
}

// isATXHeading reports whether a heading's line is written "# Text", past
// any block quote markers and indentation.
func isATXHeading(line []byte) bool {
	return bytes.HasPrefix(bytes.TrimLeft(line, " \t>"), []byte("#"))
}

// isSetextUnderline reports whether line is a run of '=' or '-', past any
// block quote markers and indentation, and give or take trailing blanks.
func isSetextUnderline(line []byte) bool {
	s := bytes.TrimRight(bytes.TrimLeft(line, " \t>"), " \t")
	return len(s) > 0 && (len(bytes.Trim(s, "=")) == 0 || len(bytes.Trim(s, "-")) == 0)
}

// noHeadingError says that no heading answers to want, naming a few that
// do exist.
func noHeadingError(headings []vault.Heading, want string) error {
	if len(headings) == 0 {
		return fmt.Errorf("the note has no headings, so no section %q; use append, prepend or replace instead", want)
	}
	var names []string
	for _, h := range headings[:min(len(headings), 10)] {
		names = append(names, fmt.Sprintf("%q", h.Text))
	}
	more := ""
	if len(headings) > 10 {
		more = fmt.Sprintf(" and %d more", len(headings)-10)
	}
	return fmt.Errorf("the note has no heading %q; its headings are %s%s", want, strings.Join(names, ", "), more)
}

// lineStarts gives the offset where each line of body starts: lines[0] is
// 0 and lines[n-1] the start of line n. A line ends at LF, CRLF or a lone
// CR, as the vault's parser counts lines.
func lineStarts(body []byte) []int {
	lines := []int{0}
	for i := 0; i < len(body); i++ {
		switch body[i] {
		case '\r':
			if i+1 < len(body) && body[i+1] == '\n' {
				i++
			}
			lines = append(lines, i+1)
		case '\n':
			lines = append(lines, i+1)
		}
	}
	if lines[len(lines)-1] == len(body) && len(lines) > 1 {
		lines = lines[:len(lines)-1] // no line after the last line end
	}
	return lines
}

// lineText is line n (1-based) of body without its line end.
func lineText(body []byte, lines []int, n int) []byte {
	if n < 1 || n > len(lines) {
		return nil
	}
	end := len(body)
	if n < len(lines) {
		end = lines[n]
	}
	return bytes.TrimRight(body[lines[n-1]:end], "\r\n")
}

var utf8BOM = []byte("\xEF\xBB\xBF")

// splitBOM splits a note's UTF-8 byte order mark, if any, from the rest.
func splitBOM(src []byte) (bom, body []byte) {
	if bytes.HasPrefix(src, utf8BOM) {
		return src[:len(utf8BOM)], src[len(utf8BOM):]
	}
	return nil, src
}

// lineEnd is the line end a note uses, by its first one: "\r\n", "\n" or
// "\r", or "" for a note of one line.
func lineEnd(body []byte) string {
	i := bytes.IndexAny(body, "\r\n")
	switch {
	case i < 0:
		return ""
	case body[i] == '\n':
		return "\n"
	case i+1 < len(body) && body[i+1] == '\n':
		return "\r\n"
	}
	return "\r"
}

// breakOf is the line end to add to a note whose line end is nl: "\n" for
// a note of one line.
func breakOf(nl string) string {
	if nl == "" {
		return "\n"
	}
	return nl
}

// withLineEnds gives text the note's line ends nl: its CRLFs and LFs
// become nl. A note of one line (nl "") takes text as it is.
func withLineEnds(text, nl string) string {
	if nl == "" || !strings.ContainsAny(text, "\n") {
		return text
	}
	text = strings.ReplaceAll(text, "\r\n", "\n")
	if nl != "\n" {
		text = strings.ReplaceAll(text, "\n", nl)
	}
	return text
}

func endsWithLineEnd(b []byte) bool {
	return len(b) > 0 && (b[len(b)-1] == '\n' || b[len(b)-1] == '\r')
}

// times words a count of occurrences: "once", "twice", "3 times".
func times(n int) string {
	switch n {
	case 1:
		return "once"
	case 2:
		return "twice"
	}
	return fmt.Sprintf("%d times", n)
}

// joinAnd joins words as a list in English: "a", "a and b", "a, b and c".
func joinAnd(words []string) string {
	if len(words) < 2 {
		return strings.Join(words, "")
	}
	return strings.Join(words[:len(words)-1], ", ") + " and " + words[len(words)-1]
}

// sizeWords words a size in bytes for a reader: "8 MB" and "1 KB" when
// exact, else the bytes counted: "1,048,577 bytes".
func sizeWords(n int) string {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MB", n>>20)
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%d KB", n>>10)
	case n == 1:
		return "1 byte"
	}
	s := strconv.Itoa(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s + " bytes"
}

// sameNamed are the heading paths ("Top > Notes") of the headings that
// want, one heading's name and no path, names: more than one means want
// does not say which. A heading path names one.
func sameNamed(headings []vault.Heading, want string) []string {
	if strings.Contains(want, " > ") {
		return nil
	}
	key := vault.HeadingKey(want)
	var out, stack []string
	var levels []int
	for _, h := range headings {
		for len(levels) > 0 && levels[len(levels)-1] >= h.Level {
			levels, stack = levels[:len(levels)-1], stack[:len(stack)-1]
		}
		levels, stack = append(levels, h.Level), append(stack, h.Text)
		if vault.HeadingKey(h.Text) == key {
			out = append(out, strings.Join(stack, " > "))
		}
	}
	return out
}

// kanbanWarnings warns of the append and prepend edits of edits that put
// text off a Kanban board: the note src is one (its frontmatter says
// kanban-plugin) and the plugin reads only the lanes (## headings with
// their lists) before its closing "%% kanban:settings" block, so text
// appended after that block, or prepended before the first lane, is not
// on the board.
func kanbanWarnings(src []byte, edits []Edit) []string {
	_, body := splitBOM(src)
	ys, ye, _, ok := frontmatterBounds(body)
	if !ok || !bytes.Contains(body[ys:ye], []byte("kanban-plugin:")) {
		return nil
	}
	var out []string
	for _, e := range edits {
		var where string
		switch e.Op {
		case OpAppend:
			if !bytes.Contains(body, []byte("%% kanban:settings")) {
				continue
			}
			where = "text appended after its settings block"
		case OpPrepend:
			where = "text prepended before its first lane"
		default:
			continue
		}
		w := fmt.Sprintf("this note is a Kanban board; %s is not on the board; to add a card use replace_section on a lane heading such as %q", where, kanbanLane(body))
		if !slices.Contains(out, w) {
			out = append(out, w)
		}
	}
	return out
}

// kanbanLane is the name of a board's first lane, "Todo" when it has none.
func kanbanLane(body []byte) string {
	note, err := vault.NewParser().Parse(context.Background(), "", body)
	if err == nil {
		for _, h := range note.Headings {
			if h.Level == 2 {
				return h.Text
			}
		}
	}
	return "Todo"
}

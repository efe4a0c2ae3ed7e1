package vault

import (
	"bytes"
	"fmt"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"
)

// frontmatter is the YAML block at the top of a note, found but not yet
// decoded.
type frontmatter struct {
	yaml      []byte // the text between the fences
	firstLine int    // 1-based file line of the first YAML line
	bodyStart int    // byte offset where the Markdown body begins
}

// splitFrontmatter finds frontmatter at the very start of src: a "---" line,
// then YAML, then a "---" or "..." line (trailing blanks allowed on both
// fences). Without a closing fence there is no frontmatter and the opening
// "---" is an ordinary thematic break, as in Obsidian. src has already lost
// its BOM and its CR line ends.
func splitFrontmatter(src []byte) (frontmatter, bool) {
	first, _, ok := bytes.Cut(src, []byte{'\n'})
	if !ok || !isFence(first, "---") {
		return frontmatter{}, false
	}
	yamlStart := len(first) + 1
	for off := yamlStart; off < len(src); {
		line := src[off:]
		next := len(src)
		if i := bytes.IndexByte(line, '\n'); i >= 0 {
			line = line[:i]
			next = off + i + 1
		}
		if isFence(line, "---") || isFence(line, "...") {
			return frontmatter{yaml: src[yamlStart:off], firstLine: 2, bodyStart: next}, true
		}
		off = next
	}
	return frontmatter{}, false
}

// isFence reports whether line is fence, give or take trailing blanks (and
// the CR of a CRLF line end, which FrontmatterBounds meets).
func isFence(line []byte, fence string) bool {
	return string(bytes.TrimRight(line, " \t\r")) == fence
}

// FrontmatterBounds finds the frontmatter at the start of src as Parse
// does, for a writer that edits it in place: the YAML is
// src[yamlStart:yamlEnd] and the body starts at bodyStart. src is a note's
// bytes without its BOM; its lines may end in LF or CRLF (a writer turns
// lone CRs into LFs first, which keeps every offset).
func FrontmatterBounds(src []byte) (yamlStart, yamlEnd, bodyStart int, ok bool) {
	fm, ok := splitFrontmatter(src)
	if !ok {
		return 0, 0, 0, false
	}
	yamlStart = bytes.IndexByte(src, '\n') + 1
	return yamlStart, yamlStart + len(fm.yaml), fm.bodyStart, true
}

// FrontmatterError words a YAML error met reading yamlText, a note's
// frontmatter, as Parse's warning does, with the line counted in the file.
func FrontmatterError(yamlText []byte, err error) string {
	var doc yaml.Node
	if yaml.Unmarshal(yamlText, &doc) != nil || len(doc.Content) == 0 {
		return yamlWarning(err, 2)
	}
	return frontmatterProblem(yamlText, doc.Content[0], err, 2)
}

// decodeFrontmatter decodes fm into note.Frontmatter and lifts title,
// aliases and tags into their fields; wikilinks inside string values become
// links of KindFrontmatter. Invalid YAML leaves the note without
// properties and adds a warning; the body is parsed regardless.
func decodeFrontmatter(fm frontmatter, lines *lineIndex, note *Note) {
	defer func() {
		if r := recover(); r != nil {
			note.Frontmatter, note.Title, note.Aliases, note.Tags, note.Links = nil, "", nil, nil, nil
			note.Warnings = append(note.Warnings, fmt.Sprintf("%s: frontmatter: %v", internalErrorWarning, r))
		}
	}()
	var doc yaml.Node
	if err := yaml.Unmarshal(fm.yaml, &doc); err != nil {
		note.Warnings = append(note.Warnings, yamlWarning(err, fm.firstLine))
		return
	}
	if len(doc.Content) == 0 {
		return // only blank lines or comments
	}
	root := doc.Content[0]
	if root.Kind == yaml.ScalarNode && root.Tag == "!!null" {
		return
	}
	if root.Kind != yaml.MappingNode {
		note.Warnings = append(note.Warnings, WarnFrontmatter+": not a mapping of property names to values")
		return
	}
	// Decoded into any, a mapping with a non-string key ("2024: x") is a
	// map[any]any rather than an error; jsonValue gives it string keys.
	var decoded any
	if err := root.Decode(&decoded); err != nil {
		note.Warnings = append(note.Warnings, frontmatterProblem(fm.yaml, root, err, fm.firstLine))
		return
	}
	if props, ok := jsonValue(decoded).(map[string]any); ok && len(props) > 0 {
		note.Frontmatter = props
	}

	lineOffset := fm.firstLine - 1
	for i := 0; i+1 < len(root.Content); i += 2 {
		key, value := root.Content[i], resolveAlias(root.Content[i+1])
		if key.Kind != yaml.ScalarNode {
			continue
		}
		switch strings.ToLower(key.Value) {
		case "title":
			if note.Title == "" && value.Kind == yaml.ScalarNode && value.Tag != "!!null" {
				note.Title = strings.TrimSpace(value.Value)
			}
		case "aliases", "alias":
			forEachScalar(value, func(s *yaml.Node, single bool) {
				if single {
					for _, a := range strings.Split(s.Value, ",") {
						note.Aliases = appendTrimmed(note.Aliases, a)
					}
					return
				}
				note.Aliases = appendTrimmed(note.Aliases, s.Value)
			})
		case "tags", "tag":
			forEachScalar(value, func(s *yaml.Node, single bool) {
				names := []string{s.Value}
				if single {
					names = strings.FieldsFunc(s.Value, func(r rune) bool {
						return r == ',' || r == ' ' || r == '\t' || r == '\n'
					})
				}
				for _, name := range names {
					name = strings.TrimPrefix(strings.TrimSpace(name), "#")
					if name != "" {
						note.Tags = append(note.Tags, Tag{Name: name, Line: s.Line + lineOffset})
					}
				}
			})
		}
	}

	fmEnd := lines.start(fm.firstLine) + len(fm.yaml)
	walkStrings(root, func(s *yaml.Node) {
		from := lines.start(s.Line + lineOffset)
		forEachWikilink([]byte(s.Value), func(inner []byte) {
			target, subpath, display, ok := splitWikilink(inner)
			if !ok {
				return
			}
			line := s.Line + lineOffset
			// The value may be quoted, escaped or folded; when the link is
			// written as-is, report the line it is on rather than the
			// line where the value starts.
			needle := make([]byte, 0, len(inner)+4)
			needle = append(append(append(needle, "[["...), inner...), "]]"...)
			start, end := 0, 0
			if from < fmEnd {
				if i := bytes.Index(lines.src[from:fmEnd], needle); i >= 0 {
					line = lines.line(from + i)
					start = lines.offsets.original(from + i)
					end = lines.offsets.original(from + i + len(needle))
					from += i + len(needle)
				}
			}
			note.Links = append(note.Links, Link{
				Kind:    KindFrontmatter,
				Target:  string(target),
				Subpath: string(subpath),
				Display: string(display),
				Line:    line,
				Context: lines.context(line),
				Start:   start,
				End:     end,
			})
		})
	})
}

var yamlErrorLine = regexp.MustCompile(`line (\d+)`)

// yamlParserProblems start the messages of yaml's parser (as opposed to its
// scanner). For those the library reports the line counted from 0.
var yamlParserProblems = []string{
	"did not find expected", "found duplicate %", "found incompatible YAML", "found undefined tag handle",
}

// yamlWarning words a YAML error as a note warning, with the decoder's line
// numbers (counted from the first YAML line) turned into file lines.
func yamlWarning(err error, firstLine int) string {
	msg := err.Error()
	shift := firstLine - 1
	if te, ok := err.(*yaml.TypeError); ok {
		msg = strings.Join(te.Errors, "; ")
	} else {
		msg = strings.TrimPrefix(msg, "yaml: ")
		_, problem, _ := strings.Cut(msg, ": ")
		for _, p := range yamlParserProblems {
			if strings.HasPrefix(problem, p) {
				shift++
			}
		}
	}
	msg = yamlErrorLine.ReplaceAllStringFunc(msg, func(m string) string {
		n, err := strconv.Atoi(m[len("line "):])
		if err != nil {
			return m
		}
		return "line " + strconv.Itoa(n+shift)
	})
	for _, w := range yamlWords {
		msg = w.pattern.ReplaceAllString(msg, w.words)
	}
	if goSyntax.MatchString(msg) {
		// A message of the library not worded above that spells a Go
		// value or a YAML tag: the line, if any, is all a reader can use.
		line := yamlErrorLine.FindString(msg)
		msg = "a value cannot be read"
		if line != "" {
			msg = line + ": " + msg
		}
	}
	return WarnFrontmatter + ": " + strings.Join(strings.Fields(msg), " ")
}

// goSyntax matches what a reader of a warning should never see: Go type
// syntax and YAML's own tags.
var goSyntax = regexp.MustCompile(`map\[|interface \{\}|\[\]interface|!!|\byaml:`)

// frontmatterProblem words an error of decoding root, the mapping of
// yamlText (whose first line is file line firstLine), naming the value at
// fault and its line where it can be found. The YAML library's decode
// errors carry no line and may print Go values ("invalid map key:
// map[string]interface {}..."), so the value is found again in the tree.
func frontmatterProblem(yamlText []byte, root *yaml.Node, err error, firstLine int) string {
	budget := 10000 // nodes decoded while looking; frontmatter is small
	path := culprit(root, nil, &budget)
	if len(path) == 0 {
		return yamlWarning(err, firstLine)
	}
	n := path[len(path)-1]
	line := func(n *yaml.Node) string {
		return WarnFrontmatter + ": line " + strconv.Itoa(n.Line+firstLine-1) + ": "
	}
	msg := err.Error()
	switch {
	case strings.Contains(msg, "invalid map key"):
		// The key that is not a name: {{date}} is a mapping whose key is
		// the mapping {date}. Name the outermost value written in
		// brackets around it, as the user typed it.
		var key *yaml.Node
		for i := 0; i+1 < len(n.Content); i += 2 {
			if k := resolveAlias(n.Content[i]); k.Kind != yaml.ScalarNode {
				key = k
				break
			}
		}
		if key == nil {
			break
		}
		shown := key
		for _, a := range append(path, key) {
			if a.Style&yaml.FlowStyle != 0 {
				shown = a
				break
			}
		}
		what := "a mapping"
		if shown.Kind == yaml.SequenceNode {
			what = "a list"
		}
		text := writtenValue(yamlText, shown)
		quoted := `"` + text + `"`
		if strings.Contains(text, `"`) {
			quoted = "'" + text + "'"
		}
		return line(shown) + text + " is read as " + what + "; quote it (" + quoted + ")"
	case strings.Contains(msg, "cannot decode"):
		return line(n) + strconv.Quote(n.Value) + " is tagged as " + tagWords(n.Tag) + " but is not one; remove the tag before it"
	case strings.Contains(msg, "!!binary"):
		return line(n) + "a value tagged as binary data is not valid base64; remove the tag before it"
	case strings.Contains(msg, "map merge"):
		return line(n) + "a merge (<<) takes a mapping or a list of mappings"
	}
	w := yamlWarning(err, firstLine)
	if yamlErrorLine.MatchString(w) {
		return w
	}
	return line(n) + strings.TrimPrefix(w, WarnFrontmatter+": ")
}

// culprit is the path from n down to the deepest node that fails to
// decode on its own, or nil when n decodes (or budget runs out).
func culprit(n *yaml.Node, path []*yaml.Node, budget *int) []*yaml.Node {
	if n == nil || n.Kind == yaml.AliasNode || *budget <= 0 || len(path) > 64 {
		return nil
	}
	path = append(path, n)
	for _, c := range n.Content {
		if p := culprit(c, path, budget); p != nil {
			return p
		}
	}
	*budget--
	var v any
	if n.Decode(&v) != nil {
		return slices.Clone(path)
	}
	return nil
}

// writtenValue is the text of n as written in src: a value in brackets to
// its closing bracket, any other to the end of its line; long ones cut.
func writtenValue(src []byte, n *yaml.Node) string {
	lines := bytes.SplitAfter(src, []byte{'\n'})
	if n.Line < 1 || n.Line > len(lines) {
		return n.Value
	}
	rest := []rune(strings.TrimRight(string(lines[n.Line-1]), "\r\n"))
	if n.Column-1 > len(rest) {
		return n.Value
	}
	rest = rest[n.Column-1:]
	end := len(rest)
	if n.Style&yaml.FlowStyle != 0 {
		depth := 0
		for i, r := range rest {
			if r == '[' || r == '{' {
				depth++
			} else if r == ']' || r == '}' {
				if depth--; depth == 0 {
					end = i + 1
					break
				}
			}
		}
	}
	text := strings.TrimSpace(string(rest[:end]))
	if r := []rune(text); len(r) > 60 {
		text = string(r[:60]) + "…"
	}
	return text
}

// tagWords names the kind of value a YAML tag asks for.
func tagWords(tag string) string {
	switch tag {
	case "!!int":
		return "a whole number"
	case "!!float":
		return "a number"
	case "!!bool":
		return "true or false"
	case "!!timestamp":
		return "a date"
	case "!!null":
		return "empty"
	}
	return "another kind of value"
}

// yamlWords put the YAML library's commonest complaints in a user's words,
// keeping their line numbers.
var yamlWords = []struct {
	pattern *regexp.Regexp
	words   string
}{
	{regexp.MustCompile(`did not find expected ',' or '\]'`), "a list opened with [ is not closed with ]"},
	{regexp.MustCompile(`did not find expected ',' or '\}'`), "a mapping opened with { is not closed with }"},
	{regexp.MustCompile(`did not find expected key`), "expected a property (name: value)"},
	{regexp.MustCompile(`mapping values are not allowed in this context`), "a value holds a colon and a space: put the value in quotes"},
	{regexp.MustCompile(`mapping key ("[^"]*") already defined at (line \d+)`), "property $1 is given twice (first at $2)"},
	{regexp.MustCompile(`found character that cannot start any token`), "a character that cannot start a value, such as a tab (indent with spaces) or a @ or ` (put the value in quotes)"},
	{regexp.MustCompile(`found unexpected end of stream`), "a quoted value is not closed"},
}

// resolveAlias follows "*anchor" references to the value they stand for,
// giving up after a few hops rather than trusting the chain to end.
func resolveAlias(n *yaml.Node) *yaml.Node {
	for i := 0; n != nil && n.Kind == yaml.AliasNode && i < 16; i++ {
		n = n.Alias
	}
	return n
}

// forEachScalar calls fn for a scalar value (single is true) or for each
// scalar item of a sequence. Nulls and nested collections are skipped.
func forEachScalar(n *yaml.Node, fn func(s *yaml.Node, single bool)) {
	switch n.Kind {
	case yaml.ScalarNode:
		if n.Tag != "!!null" {
			fn(n, true)
		}
	case yaml.SequenceNode:
		for _, item := range n.Content {
			if item = resolveAlias(item); item.Kind == yaml.ScalarNode && item.Tag != "!!null" {
				fn(item, false)
			}
		}
	}
}

// walkStrings calls fn for every string scalar that is a value (not a key)
// in document order. Aliases are not followed: an anchored value is
// visited once, where it is written.
func walkStrings(n *yaml.Node, fn func(*yaml.Node)) {
	switch n.Kind {
	case yaml.ScalarNode:
		if n.Tag == "!!str" {
			fn(n)
		}
	case yaml.MappingNode:
		for i := 1; i < len(n.Content); i += 2 {
			walkStrings(n.Content[i], fn)
		}
	case yaml.SequenceNode, yaml.DocumentNode:
		for _, c := range n.Content {
			walkStrings(c, fn)
		}
	}
}

// forEachWikilink calls fn with the inside of each "[[...]]" or "![[...]]"
// in s, using the same rules as the inline wikilink parser.
func forEachWikilink(s []byte, fn func(inner []byte)) {
	for {
		i := bytes.Index(s, []byte("[["))
		if i < 0 {
			return
		}
		s = s[i:]
		if inner, n := scanWikilink(s); n > 0 {
			fn(inner)
			s = s[n:]
			continue
		}
		s = s[1:]
	}
}

// keyString spells a non-string mapping key (1, true, null, a date) the way
// it would be written in YAML.
func keyString(k any) string {
	if k == nil {
		return "null"
	}
	return fmt.Sprint(jsonValue(k))
}

// appendTrimmed appends s without surrounding blanks, unless that is empty.
func appendTrimmed(list []string, s string) []string {
	if s = strings.TrimSpace(s); s != "" {
		list = append(list, s)
	}
	return list
}

// jsonValue converts a decoded YAML value into one encoding/json accepts:
// maps with non-string keys get string keys, times become strings (a bare
// date stays "2006-01-02") and NaN or infinities keep their YAML spelling.
func jsonValue(v any) any {
	switch v := v.(type) {
	case map[string]any:
		for k, e := range v {
			v[k] = jsonValue(e)
		}
		return v
	case map[any]any:
		m := make(map[string]any, len(v))
		for k, e := range v {
			m[keyString(k)] = jsonValue(e)
		}
		return m
	case []any:
		for i, e := range v {
			v[i] = jsonValue(e)
		}
		return v
	case time.Time:
		if v.Location() == time.UTC && v.Hour() == 0 && v.Minute() == 0 && v.Second() == 0 && v.Nanosecond() == 0 {
			return v.Format(time.DateOnly)
		}
		return v.Format(time.RFC3339Nano)
	case float64:
		switch {
		case math.IsNaN(v):
			return ".nan"
		case math.IsInf(v, 1):
			return ".inf"
		case math.IsInf(v, -1):
			return "-.inf"
		}
		return v
	case string:
		return strings.ToValidUTF8(v, "\uFFFD") // !!binary may decode to anything
	default:
		return v
	}
}

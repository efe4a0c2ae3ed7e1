package write

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/jarvis-mcp/jarvis/internal/vault"
)

// set_properties edits the frontmatter line by line rather than decoding
// and encoding it again: a YAML round trip rewrites quotes, dates,
// comments and key order, which Obsidian users notice. The YAML parser is
// used to check the frontmatter, to find where each top-level property is
// written, and to check that the result reads back as intended.

// frontmatterBounds is vault.FrontmatterBounds for a note's body as it is:
// lone CRs are read as line ends, as the vault's parser reads them,
// without moving any offset.
func frontmatterBounds(body []byte) (yamlStart, yamlEnd, bodyStart int, ok bool) {
	if bytes.IndexByte(body, '\r') >= 0 {
		lf := slices.Clone(body)
		for i, c := range lf {
			if c == '\r' && (i+1 == len(lf) || lf[i+1] != '\n') {
				lf[i] = '\n'
			}
		}
		body = lf
	}
	return vault.FrontmatterBounds(body)
}

// property is one top-level property as written in the frontmatter.
type property struct {
	name       string
	start, end int    // its lines, as offsets into the YAML text
	keyText    []byte // its line up to and including the colon after the key
	comment    string // the comment ending its key line, if any
	indent     string
}

// setProperties sets props in the frontmatter of body (a note without its
// BOM), creating the frontmatter when there is none. A nil value removes
// the property.
func setProperties(body []byte, props map[string]any, nl string) ([]byte, error) {
	nl = breakOf(nl)
	if len(props) > MaxProperties {
		return nil, fmt.Errorf("%d properties are %w for one edit: at most %d", len(props), ErrTooLarge, MaxProperties)
	}
	names := make([]string, 0, len(props))
	for name := range props {
		names = append(names, name)
	}
	slices.Sort(names) // new properties are added in this order
	want := make(map[string]any, len(props))
	size := 0
	for _, name := range names {
		if strings.TrimSpace(name) == "" {
			return nil, errors.New("a property name is empty: give each property a name")
		}
		if strings.ContainsAny(name, "\r\n") {
			return nil, fmt.Errorf("property name %q cannot be written: a name must be one line of text", name)
		}
		v, err := propertyValue(props[name])
		if err != nil {
			return nil, fmt.Errorf("property %q: %w", name, err)
		}
		want[name] = v
		size += len(name) + valueSize(v)
	}
	if size > MaxEditText {
		return nil, fmt.Errorf("properties %w: %s, over the %s limit", ErrTooLarge, sizeWords(size), sizeWords(MaxEditText))
	}

	ys, ye, _, ok := frontmatterBounds(body)
	if !ok {
		var lines []byte
		for _, name := range names {
			if want[name] != nil {
				lines = append(lines, propertyLines(nil, name, "", "", want[name], nl)...)
			}
		}
		if lines == nil {
			return slices.Clone(body), nil // only removals, and nothing to remove
		}
		out := make([]byte, 0, len(lines)+2*len("---"+nl)+len(body))
		out = append(append(append(append(out, "---"+nl...), lines...), "---"+nl...), body...)
		if err := checkFrontmatter(lines, nil, want); err != nil {
			return nil, err
		}
		return out, nil
	}

	yamlText := body[ys:ye]
	old, written, err := readFrontmatter(yamlText)
	if err != nil {
		return nil, err
	}
	type splice struct {
		start, end int
		with       []byte
	}
	for _, name := range names {
		if !slices.ContainsFunc(written, func(p property) bool { return p.name == name }) {
			if err := nestedName(yamlText, name); err != nil {
				return nil, err
			}
		}
	}
	var splices []splice
	var added []byte
	indent := ""
	if len(written) > 0 {
		indent = written[0].indent
	}
	for _, name := range names {
		i := slices.IndexFunc(written, func(p property) bool { return p.name == name })
		v := want[name]
		switch {
		case i >= 0 && v == nil:
			splices = append(splices, splice{written[i].start, written[i].end, nil})
		case i >= 0:
			p := written[i]
			splices = append(splices, splice{p.start, p.end, propertyLines(p.keyText, name, p.indent, p.comment, v, nl)})
		case v != nil:
			added = append(added, propertyLines(nil, name, indent, "", v, nl)...)
		}
	}
	slices.SortFunc(splices, func(a, b splice) int { return a.start - b.start })
	newYAML := make([]byte, 0, len(yamlText)+len(added))
	at := 0
	for _, s := range splices {
		newYAML = append(append(newYAML, yamlText[at:s.start]...), s.with...)
		at = s.end
	}
	newYAML = append(newYAML, yamlText[at:]...)
	if len(newYAML) > 0 && !endsWithLineEnd(newYAML) && len(added) > 0 {
		newYAML = append(newYAML, nl...)
	}
	newYAML = append(newYAML, added...)

	if err := checkFrontmatter(newYAML, old, want); err != nil {
		return nil, err
	}
	out := make([]byte, 0, len(body)-len(yamlText)+len(newYAML))
	out = append(append(append(out, body[:ys]...), newYAML...), body[ye:]...)
	return out, nil
}

// readFrontmatter checks that yamlText is a frontmatter set_properties can
// edit (valid YAML, a mapping written in block style, or empty) and
// returns its properties decoded and as written.
func readFrontmatter(yamlText []byte) (map[string]any, []property, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(yamlText, &doc); err != nil {
		return nil, nil, unreadable(vault.FrontmatterError(yamlText, err))
	}
	if len(doc.Content) == 0 {
		return map[string]any{}, nil, nil // blank, or only comments
	}
	root := doc.Content[0]
	if root.Kind == yaml.ScalarNode && root.Tag == "!!null" {
		return map[string]any{}, nil, nil
	}
	if root.Kind != yaml.MappingNode {
		return nil, nil, unreadable("the frontmatter is not a list of properties (name: value)")
	}
	if root.Style&yaml.FlowStyle != 0 {
		return nil, nil, unreadable("the frontmatter is written on one line in braces ({...}), which cannot be edited property by property")
	}
	old, err := decodeProperties(yamlText)
	if err != nil {
		return nil, nil, unreadable(vault.FrontmatterError(yamlText, err))
	}
	lines := lineStarts(yamlText)
	lineAt := func(n int) int { // offset of line n (1-based), or the end
		if n > len(lines) {
			return len(yamlText)
		}
		return lines[n-1]
	}
	var written []property
	for i := 0; i+1 < len(root.Content); i += 2 {
		key := root.Content[i]
		if key.Kind != yaml.ScalarNode {
			return nil, nil, unreadable(fmt.Sprintf("the property on line %d has a name that is not text", key.Line+1))
		}
		lastLine := len(lines)
		if i+2 < len(root.Content) {
			lastLine = root.Content[i+2].Line - 1
		}
		// Blank lines and comments below a property, and not indented
		// under it, belong to what follows.
		for lastLine > key.Line {
			t := lineText(yamlText, lines, lastLine)
			trimmed := bytes.TrimLeft(t, " \t")
			if len(bytes.TrimSpace(t)) != 0 && !(trimmed[0] == '#' && len(t)-len(trimmed) < key.Column) {
				break
			}
			lastLine--
		}
		keyLine := lineText(yamlText, lines, key.Line)
		colon := keyEnd(keyLine, key)
		if colon < 0 {
			return nil, nil, unreadable(fmt.Sprintf("the name of property %q on line %d could not be found", key.Value, key.Line+1))
		}
		p := property{
			name:    key.Value,
			start:   lineAt(key.Line),
			end:     lineAt(lastLine + 1),
			keyText: slices.Clone(keyLine[:colon+1]),
			indent:  string(keyLine[:len(keyLine)-len(bytes.TrimLeft(keyLine, " \t"))]),
		}
		value := root.Content[i+1]
		for _, c := range []string{key.LineComment, value.LineComment} {
			if c != "" && bytes.HasSuffix(bytes.TrimRight(keyLine, " \t"), []byte(c)) {
				p.comment = c
			}
		}
		written = append(written, p)
	}
	return old, written, nil
}

// nestedName refuses a dotted property name, such as "zotero.key", that
// names a key inside a property written as a map ("zotero:" with "key:"
// beneath it): the filter language reads the name so, and a top-level
// property "zotero.key" beside the map would disagree with it.
// set_properties changes top-level properties only, so the refusal says
// which line to change with a replace edit.
func nestedName(yamlText []byte, name string) error {
	if !strings.Contains(name, ".") {
		return nil
	}
	var doc yaml.Node
	if yaml.Unmarshal(yamlText, &doc) != nil || len(doc.Content) == 0 {
		return nil
	}
	node, parts := doc.Content[0], strings.Split(name, ".")
	for depth, part := range parts {
		if node.Kind != yaml.MappingNode {
			return nil // a text, number or list: no key inside it
		}
		var key, value *yaml.Node
		for j := 0; j+1 < len(node.Content); j += 2 {
			if node.Content[j].Value == part {
				key, value = node.Content[j], node.Content[j+1]
				break
			}
		}
		inside := strings.Join(parts[:depth], ".")
		switch {
		case key == nil && depth == 0:
			return nil // no such property: the name is a top-level one
		case key == nil:
			return fmt.Errorf("property %q names a key inside the property %q, which is a map, and set_properties changes only top-level properties: "+
				"add the key %q under %q with a replace edit; nothing was changed", name, inside, strings.Join(parts[depth:], "."), inside)
		case depth > 0 && depth == len(parts)-1:
			line := strings.TrimSpace(string(lineText(yamlText, lineStarts(yamlText), key.Line)))
			return fmt.Errorf("property %q names the key %q inside the property %q, and set_properties changes only top-level properties: "+
				"change it with a replace edit of its line (find %q); nothing was changed", name, part, inside, line)
		}
		node = value
	}
	return nil
}

// dottedNames says of each dotted property name that set_properties
// edits set (nestedName having let them through, no map in the note
// holding such a key) that it was written as one top-level property, so
// that a caller who meant a key inside a map knows.
func dottedNames(edits []Edit) []string {
	var said []string
	for _, e := range edits {
		if e.Op != OpSetProperties {
			continue
		}
		for _, name := range slices.Sorted(maps.Keys(e.Properties)) {
			if e.Properties[name] != nil && strings.Contains(name, ".") {
				said = append(said, fmt.Sprintf("property %q was set as one top-level property of that name, not as a key inside a map %q, which the note does not have", name, name[:strings.LastIndex(name, ".")]))
			}
		}
	}
	return said
}

// keyEnd is the offset of the colon that ends key's name on its line, or
// -1 when it is not where the parser says.
func keyEnd(line []byte, key *yaml.Node) int {
	i := len(line) - len(bytes.TrimLeft(line, " \t"))
	rest := line[i:]
	switch {
	case key.Style&yaml.DoubleQuotedStyle != 0:
		j := 1
		for ; j < len(rest) && rest[j] != '"'; j++ {
			if rest[j] == '\\' {
				j++
			}
		}
		i += j + 1
	case key.Style&yaml.SingleQuotedStyle != 0:
		j := 1
		for ; j < len(rest); j++ {
			if rest[j] == '\'' {
				if j+1 < len(rest) && rest[j+1] == '\'' {
					j++
					continue
				}
				break
			}
		}
		i += j + 1
	case key.Style == 0 && bytes.HasPrefix(rest, []byte(key.Value)):
		i += len(key.Value)
	default:
		return -1 // a key with a tag, an anchor, or written over lines
	}
	for i < len(line) && (line[i] == ' ' || line[i] == '\t') {
		i++
	}
	if i >= len(line) || line[i] != ':' {
		return -1
	}
	return i
}

func unreadable(why string) error {
	return fmt.Errorf("%s; set_properties edits only a frontmatter that reads as YAML properties: fix it with a replace edit, or rewrite the note with content", why)
}

// decodeProperties decodes a frontmatter's properties, or none when it
// holds none.
func decodeProperties(yamlText []byte) (map[string]any, error) {
	var decoded any
	if err := yaml.Unmarshal(yamlText, &decoded); err != nil {
		return nil, err
	}
	props := map[string]any{}
	switch m := decoded.(type) {
	case map[string]any:
		props = m
	case map[any]any:
		for k, v := range m {
			props[fmt.Sprint(k)] = v
		}
	case nil:
	default:
		return nil, errors.New("not a list of properties")
	}
	return props, nil
}

// checkFrontmatter checks that the edited YAML reads back with the values
// set as wanted, those removed gone, and every other property as it was
// (old). A property another refers to by a YAML anchor, or a value the
// writer got wrong, fails here rather than in the note.
func checkFrontmatter(newYAML []byte, old map[string]any, want map[string]any) error {
	got, err := decodeProperties(newYAML)
	if err != nil {
		return fmt.Errorf("the frontmatter would no longer read as YAML (%v), perhaps because another property refers to one changed; edit it with replace instead", err)
	}
	for name, v := range old {
		if _, set := want[name]; set {
			continue
		}
		if comparable(got[name]) != comparable(v) {
			return fmt.Errorf("changing these properties would change %q too, which refers to one of them; edit the frontmatter with replace instead", name)
		}
	}
	for name, v := range want {
		g, present := got[name]
		switch {
		case v == nil && present:
			return fmt.Errorf("property %q could not be removed; edit the frontmatter with replace instead", name)
		case v != nil && comparable(g) != comparable(v):
			return fmt.Errorf("property %q could not be written so that it reads back as given; edit the frontmatter with replace instead", name)
		}
	}
	return nil
}

// comparable spells a property value so that a value read from YAML and
// the value given for it are equal when they mean the same: numbers as
// float64, dates as YYYY-MM-DD.
func comparable(v any) string {
	var norm func(v any) any
	norm = func(v any) any {
		switch v := v.(type) {
		case int:
			return float64(v)
		case int64:
			return float64(v)
		case uint64:
			return float64(v)
		case time.Time:
			if v.Location() == time.UTC && v.Hour() == 0 && v.Minute() == 0 && v.Second() == 0 && v.Nanosecond() == 0 {
				return v.Format(time.DateOnly)
			}
			return v.Format(time.RFC3339Nano)
		case []any:
			out := make([]any, len(v))
			for i, e := range v {
				out[i] = norm(e)
			}
			return out
		}
		return v
	}
	return fmt.Sprintf("%#v", norm(v))
}

// propertyValue checks a value given for a property and brings it to one
// of nil, string, float64, bool or []any of those (but nil).
func propertyValue(v any) (any, error) {
	var scalar func(v any) (any, bool)
	scalar = func(v any) (any, bool) {
		switch v := v.(type) {
		case string, bool:
			return v, true
		case float64:
			return v, !math.IsNaN(v) && !math.IsInf(v, 0)
		case float32:
			return scalar(float64(v))
		case int:
			return float64(v), true
		case int64:
			return float64(v), true
		case json.Number:
			f, err := v.Float64()
			return f, err == nil
		}
		return nil, false
	}
	const kinds = "a value may be text, a number, true or false, a date (YYYY-MM-DD), a list of those, or null to remove the property"
	switch v := v.(type) {
	case nil:
		return nil, nil
	case []string:
		out := make([]any, len(v))
		for i, s := range v {
			out[i] = s
		}
		return out, nil
	case []any:
		out := make([]any, len(v))
		for i, e := range v {
			s, ok := scalar(e)
			if !ok {
				return nil, fmt.Errorf("item %d of the list cannot be written: %s", i+1, kinds)
			}
			out[i] = s
		}
		return out, nil
	}
	if s, ok := scalar(v); ok {
		return s, nil
	}
	if _, ok := v.(map[string]any); ok {
		return nil, errors.New("a value cannot be a map of properties: set_properties changes top-level properties only; change a key inside a map with a replace edit of its line")
	}
	return nil, errors.New(kinds)
}

// valueSize is about how many bytes a value takes written.
func valueSize(v any) int {
	switch v := v.(type) {
	case string:
		return len(v)
	case []any:
		n := 0
		for _, e := range v {
			n += valueSize(e) + 4
		}
		return n
	}
	return 8
}

// propertyLines writes a property as Obsidian does: "name: value", or a
// list as "name:" then "  - item" lines (an empty one as "name: []").
// keyText is the key as already written, up to its colon, or nil to write
// name; comment is kept at the end of the key line.
func propertyLines(keyText []byte, name, indent, comment string, v any, nl string) []byte {
	var b []byte
	if keyText != nil {
		b = append(b, keyText...)
	} else {
		b = append(append(append(b, indent...), yamlKey(name)...), ':')
	}
	tail := ""
	if comment != "" {
		tail = " " + comment
	}
	list, isList := v.([]any)
	if !isList {
		return append(append(append(append(b, ' '), yamlScalar(v, false)...), tail...), nl...)
	}
	if len(list) == 0 {
		return append(append(append(b, " []"...), tail...), nl...)
	}
	b = append(append(b, tail...), nl...)
	for _, e := range list {
		b = append(append(append(append(b, indent...), "  - "...), yamlScalar(e, true)...), nl...)
	}
	return b
}

var dateOnly = regexp.MustCompile(`^\d{4}-\d{2}-\d{2}$`)

// yamlScalar writes a value the way Obsidian writes it: numbers and
// booleans bare, a date bare as YYYY-MM-DD, text bare unless YAML would
// read it as something else, then in double quotes.
func yamlScalar(v any, inList bool) string {
	switch v := v.(type) {
	case bool:
		return strconv.FormatBool(v)
	case float64:
		if v == math.Trunc(v) && math.Abs(v) < 1e15 {
			return strconv.FormatInt(int64(v), 10)
		}
		return strconv.FormatFloat(v, 'g', -1, 64)
	case string:
		if dateOnly.MatchString(v) {
			if _, err := time.Parse(time.DateOnly, v); err == nil {
				return v
			}
		}
		if readsAsText(v, inList) {
			return v
		}
		return doubleQuoted(v)
	}
	return doubleQuoted(fmt.Sprint(v))
}

// yamlKey writes a property name: bare unless YAML would read it as
// something else.
func yamlKey(name string) string {
	var doc yaml.Node
	if !strings.ContainsAny(name, "\r\n") && yaml.Unmarshal([]byte(name+": x\n"), &doc) == nil &&
		len(doc.Content) == 1 && doc.Content[0].Kind == yaml.MappingNode && len(doc.Content[0].Content) == 2 {
		k := doc.Content[0].Content[0]
		if k.Kind == yaml.ScalarNode && k.Style == 0 && k.Tag == "!!str" && k.Value == name {
			return name
		}
	}
	return doubleQuoted(name)
}

// readsAsText reports whether s written bare, as a property's value or a
// list item, reads back as the text s.
func readsAsText(s string, inList bool) bool {
	if s == "" || strings.ContainsAny(s, "\r\n") {
		return false
	}
	src := "k: " + s + " #\n"
	if inList {
		src = "k:\n  - " + s + " #\n"
	}
	var doc yaml.Node
	if yaml.Unmarshal([]byte(src), &doc) != nil || len(doc.Content) != 1 {
		return false
	}
	m := doc.Content[0]
	if m.Kind != yaml.MappingNode || len(m.Content) != 2 {
		return false
	}
	n := m.Content[1]
	if inList {
		if n.Kind != yaml.SequenceNode || len(n.Content) != 1 {
			return false
		}
		n = n.Content[0]
	}
	return n.Kind == yaml.ScalarNode && n.Style == 0 && n.Tag == "!!str" && n.Value == s
}

// doubleQuoted writes s in YAML's double quotes, whose escapes JSON's are.
func doubleQuoted(s string) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s) // a string always encodes
	return strings.TrimSuffix(b.String(), "\n")
}

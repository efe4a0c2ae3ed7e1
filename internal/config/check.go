package config

import (
	"errors"
	"fmt"
	"reflect"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/BurntSushi/toml"
	"go.yaml.in/yaml/v3"

	"github.com/jarvis-mcp/jarvis/internal/words"
)

// The decoders' own errors name Go types ("cannot unmarshal !!str `abc`
// into float64", "cannot decode TOML integer into struct field
// config.fileFormat.Vaults of type []config.Vault"), which say nothing to
// someone editing a config file. So a file is first read into a plain
// tree of values, checked against fileFormat's shape with messages in the
// file's own terms, and only then decoded.

// valueKind is what a value in a config file is, as written.
type valueKind int

const (
	kindNull valueKind = iota
	kindText
	kindNumber
	kindBool
	kindList
	kindMap
	kindOther // a TOML date or time
)

// value is one value of a config file, YAML or TOML alike.
type value struct {
	kind  valueKind
	text  string   // a scalar as written
	keys  []string // a map's keys, in order
	items []value  // a list's items, or a map's values in the order of keys
}

// yamlTree turns a decoded YAML document into a value.
func yamlTree(n *yaml.Node) value {
	switch n.Kind {
	case yaml.DocumentNode:
		if len(n.Content) == 0 {
			return value{kind: kindNull}
		}
		return yamlTree(n.Content[0])
	case yaml.AliasNode:
		return yamlTree(n.Alias)
	case yaml.MappingNode:
		v := value{kind: kindMap}
		for i := 0; i+1 < len(n.Content); i += 2 {
			key, val := n.Content[i], n.Content[i+1]
			if key.ShortTag() == "!!merge" {
				// "<<: *defaults" brings in the keys of another mapping
				// (or of a list of them), as the decoder does.
				for _, m := range mergedMaps(yamlTree(val)) {
					v.keys = append(v.keys, m.keys...)
					v.items = append(v.items, m.items...)
				}
				continue
			}
			v.keys = append(v.keys, key.Value)
			v.items = append(v.items, yamlTree(val))
		}
		return v
	case yaml.SequenceNode:
		v := value{kind: kindList}
		for _, c := range n.Content {
			v.items = append(v.items, yamlTree(c))
		}
		return v
	}
	v := value{text: n.Value}
	switch n.ShortTag() {
	case "!!null":
		v.kind = kindNull
	case "!!int", "!!float":
		v.kind = kindNumber
	case "!!bool":
		v.kind = kindBool
	case "!!str":
		v.kind = kindText
	default:
		v.kind = kindOther
	}
	return v
}

// mergedMaps is what a YAML merge key brings in: one mapping or a list of
// them. Anything else is left for the decoder to refuse.
func mergedMaps(v value) []value {
	switch v.kind {
	case kindMap:
		return []value{v}
	case kindList:
		var out []value
		for _, item := range v.items {
			if item.kind == kindMap {
				out = append(out, item)
			}
		}
		return out
	}
	return nil
}

// tomlTree turns what the TOML decoder makes of a file into a value.
// Tables have no order left, so their keys are sorted.
func tomlTree(x any) value {
	switch x := x.(type) {
	case nil:
		return value{kind: kindNull}
	case string:
		return value{kind: kindText, text: x}
	case int64:
		return value{kind: kindNumber, text: strconv.FormatInt(x, 10)}
	case float64:
		return value{kind: kindNumber, text: strconv.FormatFloat(x, 'g', -1, 64)}
	case bool:
		return value{kind: kindBool, text: strconv.FormatBool(x)}
	case map[string]any:
		v := value{kind: kindMap}
		for k := range x {
			v.keys = append(v.keys, k)
		}
		sort.Strings(v.keys)
		for _, k := range v.keys {
			v.items = append(v.items, tomlTree(x[k]))
		}
		return v
	case []map[string]any:
		v := value{kind: kindList}
		for _, m := range x {
			v.items = append(v.items, tomlTree(m))
		}
		return v
	case []any:
		v := value{kind: kindList}
		for _, i := range x {
			v.items = append(v.items, tomlTree(i))
		}
		return v
	}
	return value{kind: kindOther, text: "a date or time"}
}

// shapeChecker checks a value against a Go type through its yaml tags,
// which name the same keys as the toml tags.
type shapeChecker struct {
	// scalarText accepts any scalar where text is wanted (a number, true
	// or a date), as YAML's decoder does: a vault may be named 2024. TOML
	// wants quotes.
	scalarText bool
}

// check returns the first place where v does not fit t, worded as
// "path: want ..., got ...".
func (c shapeChecker) check(path string, v value, t reflect.Type) error {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if v.kind == kindNull {
		return nil // left out, as YAML's `key:` with nothing after it
	}
	fail := func() error { return &shapeError{path: path, detail: fmt.Sprintf("is %s, not %s", got(v), want(t))} }
	switch t.Kind() {
	case reflect.Struct:
		if v.kind != kindMap {
			return fail()
		}
		fields := settingsOf(t)
		for i, k := range v.keys {
			f, ok := fields[k]
			if !ok {
				return unknownSetting(path, k, settingNames(t))
			}
			if err := c.check(join(path, k), v.items[i], f.Type); err != nil {
				return err
			}
		}
	case reflect.Slice:
		if v.kind != kindList {
			return fail()
		}
		for i, item := range v.items {
			if err := c.check(fmt.Sprintf("%s[%d]", path, i+1), item, t.Elem()); err != nil {
				return err
			}
		}
	case reflect.String:
		if v.kind != kindText && !(c.scalarText && (v.kind == kindNumber || v.kind == kindBool || v.kind == kindOther)) {
			return fail()
		}
	case reflect.Float64, reflect.Float32, reflect.Int, reflect.Int64:
		if v.kind != kindNumber {
			return fail()
		}
	case reflect.Bool:
		if v.kind != kindBool {
			return fail()
		}
	}
	return nil
}

// shapeError is a config file setting that does not fit: path is the
// key at fault ("" for the file as a whole), detail what is wrong with
// it.
type shapeError struct {
	path, detail string
	// unknown, when set, is a key the settings at path do not take, and
	// near the setting it is a slip of ("" when none is near).
	unknown, near string
}

// unknownSetting is the error for key, which is not among names, the
// settings at path: it offers the one setting key is a slip of, if any.
func unknownSetting(path, key string, names []string) *shapeError {
	e := &shapeError{path: path, detail: fmt.Sprintf("has an unknown setting %q", key), unknown: key}
	if e.near = words.Nearest(key, names, 2); e.near != "" {
		e.detail += fmt.Sprintf(" (did you mean %q?)", e.near)
	}
	e.detail += "; the settings there are " + strings.Join(names, ", ")
	return e
}

// fix is the change that mends e in the config file at file, or "" when
// the message is all there is to say.
func (e *shapeError) fix(file string) string {
	if e.unknown == "" {
		return ""
	}
	where := inFile(e.path, file)
	if e.path == "" {
		where = wholeFile(file)
	}
	if e.near != "" {
		return fmt.Sprintf("rename %q to %q in %s", e.unknown, e.near, where)
	}
	return fmt.Sprintf("remove %q from %s, or rename it to one of the settings there", e.unknown, where)
}

func (e *shapeError) Error() string {
	if e.path == "" {
		return e.detail
	}
	return e.path + " " + e.detail
}

func join(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

// settingsOf maps the keys a struct takes in a config file to its fields.
func settingsOf(t reflect.Type) map[string]reflect.StructField {
	m := map[string]reflect.StructField{}
	for i := range t.NumField() {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("yaml"), ",")
		if name == "" || name == "-" {
			continue
		}
		m[name] = f
	}
	return m
}

// settingNames lists a struct's keys in the order of its fields.
func settingNames(t reflect.Type) []string {
	var names []string
	for i := range t.NumField() {
		name, _, _ := strings.Cut(t.Field(i).Tag.Get("yaml"), ",")
		if name != "" && name != "-" {
			names = append(names, name)
		}
	}
	return names
}

// want says what a value of type t is written as.
func want(t reflect.Type) string {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.Struct:
		return "settings (" + strings.Join(settingNames(t), ", ") + ")"
	case reflect.Slice:
		e := t.Elem()
		switch e.Kind() {
		case reflect.String:
			return "a list of text"
		case reflect.Struct:
			return "a list of settings (" + strings.Join(settingNames(e), ", ") + ")"
		}
		return "a list"
	case reflect.String:
		return "text"
	case reflect.Float64, reflect.Float32, reflect.Int, reflect.Int64:
		return "a number"
	case reflect.Bool:
		return "true or false"
	}
	return t.Kind().String()
}

// got says what was written instead, quoting a scalar as it was written.
func got(v value) string {
	switch v.kind {
	case kindText:
		return strconv.Quote(v.text)
	case kindNumber, kindBool, kindOther:
		return v.text
	case kindList:
		return "a list"
	case kindMap:
		return "settings (" + strings.Join(v.keys, ", ") + ")"
	}
	return "nothing"
}

// decodeYAML reads a YAML config file into f, with errors in the file's
// terms.
func decodeYAML(data []byte, f *fileFormat) error {
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return yamlSyntaxError(data, err)
	}
	if doc.Kind == 0 {
		return nil // an empty file
	}
	if err := (shapeChecker{scalarText: true}).check("", yamlTree(&doc), reflect.TypeFor[fileFormat]()); err != nil {
		return err
	}
	if err := doc.Decode(f); err != nil {
		// The check above should have caught it; the decoder's own words
		// stay out all the same.
		return &shapeError{detail: "has a setting with a value of the wrong kind" + yamlLines(err)}
	}
	return nil
}

// yamlLinePrefix is how the YAML parser starts a message that has a line.
var yamlLinePrefix = regexp.MustCompile(`^yaml: line (\d+): `)

// yamlSyntaxError words a YAML parser error as where the file stops being
// YAML. The parser names the line where the enclosing block starts, not
// the line at fault, so the line is found by stopLine.
func yamlSyntaxError(data []byte, err error) error {
	msg, noticed := strings.TrimPrefix(err.Error(), "yaml: "), 0
	if m := yamlLinePrefix.FindStringSubmatch(err.Error()); m != nil {
		msg = err.Error()[len(m[0]):]
		noticed, _ = strconv.Atoi(m[1])
	}
	valid := func(b []byte) bool {
		var n yaml.Node
		return yaml.Unmarshal(b, &n) == nil
	}
	return fmt.Errorf("not valid YAML%s: %s", stopLine(data, valid, noticed), yamlWords(msg))
}

// yamlParserWords are the YAML parser's complaints, in words for someone
// editing the file; the parser speaks of indicators, tokens and streams.
var yamlParserWords = map[string]string{
	"did not find expected '-' indicator":             "this line is indented more or less than the list item above it; line it up with that item's settings",
	"did not find expected key":                       "this line is indented differently from the settings around it",
	"did not find expected ',' or ']'":                "a list opened with '[' is not closed with ']'",
	"did not find expected ',' or '}'":                "a group opened with '{' is not closed with '}'",
	"did not find expected node content":              "a value is missing",
	"could not find expected ':'":                     "a setting has no ':' after its name",
	"mapping values are not allowed in this context":  "a ':' where no setting can start; put quotes around a value that holds ': '",
	"found unexpected end of stream":                  "the file ends inside a quoted text; close the quotes",
	"found a tab character that violates indentation": "a tab indents this line; YAML indents with spaces only",
	"found character that cannot start any token":     "a character that cannot start a value; put the value in quotes",
	"found unknown escape character":                  "a backslash in double quotes; use single quotes or write \\\\",
}

// yamlWords is the parser's complaint msg in plain words when it is one
// of the common ones, and as it is otherwise.
func yamlWords(msg string) string {
	for jargon, plain := range yamlParserWords {
		if strings.HasPrefix(msg, jargon) {
			return plain
		}
	}
	return msg
}

// maxStopLines bounds the lines stopLine reads again, one parse a line:
// a config file is a few dozen lines.
const maxStopLines = 2000

// stopLine says where data stops being valid, as " at line N (its text
// quoted)": the line after the longest run of whole lines from the start
// that valid accepts. Parsers name the line where they noticed, which may
// be where the enclosing block starts or the line after; that line,
// noticed, is named for a file too long to read again, and nothing when
// it is 0.
func stopLine(data []byte, valid func([]byte) bool, noticed int) string {
	lines := strings.SplitAfter(string(data), "\n")
	if len(lines) > maxStopLines {
		if noticed > 0 {
			return fmt.Sprintf(" at line %d", noticed)
		}
		return ""
	}
	prefix := len(data)
	for k := len(lines) - 1; k >= 0; k-- {
		prefix -= len(lines[k])
		if k == 0 || valid(data[:prefix]) {
			text := strings.TrimRight(lines[k], "\r\n")
			if i := strings.Index(text, "api_key"); i >= 0 {
				text = text[:i+len("api_key")] + " ..." // the key stays off the screen
			}
			return fmt.Sprintf(" at line %d (%s)", k+1, strconv.Quote(text))
		}
	}
	return ""
}

// yamlLines lists the lines a YAML type error names, as " (line 3, 7)".
func yamlLines(err error) string {
	var te *yaml.TypeError
	if !errors.As(err, &te) {
		return ""
	}
	var lines []string
	for _, e := range te.Errors {
		if l, _, ok := strings.Cut(strings.TrimPrefix(e, "line "), ":"); ok && strings.HasPrefix(e, "line ") {
			lines = append(lines, l)
		}
	}
	if len(lines) == 0 {
		return ""
	}
	return " (line " + strings.Join(lines, ", ") + ")"
}

// decodeTOML reads a TOML config file into f, with errors in the file's
// terms.
func decodeTOML(data []byte, f *fileFormat) error {
	var tree map[string]any
	if _, err := toml.Decode(string(data), &tree); err != nil {
		var pe toml.ParseError
		if errors.As(err, &pe) {
			// The parser names the line it was on when it noticed, often
			// the one after the line at fault.
			valid := func(b []byte) bool {
				var m map[string]any
				_, err := toml.Decode(string(b), &m)
				return err == nil
			}
			return fmt.Errorf("not valid TOML%s: %s", stopLine(data, valid, pe.Position.Line), pe.Message)
		}
		return fmt.Errorf("not valid TOML: %s", strings.TrimPrefix(err.Error(), "toml: "))
	}
	if err := (shapeChecker{}).check("", tomlTree(tree), reflect.TypeFor[fileFormat]()); err != nil {
		return err
	}
	md, err := toml.Decode(string(data), f)
	if err != nil {
		return &shapeError{detail: "has a setting with a value of the wrong kind"}
	}
	if un := md.Undecoded(); len(un) > 0 {
		return &shapeError{detail: fmt.Sprintf("has an unknown setting %q", un[0].String())}
	}
	return nil
}

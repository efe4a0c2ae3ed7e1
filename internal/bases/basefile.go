package bases

import (
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
)

// Base is a parsed .base file ("Bases syntax"): its global filters,
// formulas, property settings, custom summaries and views, with every
// expression already parsed.
type Base struct {
	Filters    *Filter
	Formulas   *Formulas
	Properties map[string]PropertyConfig
	Summaries  map[string]SummaryFormula
	Views      []View
}

// PropertyConfig is a property's entry under `properties`.
type PropertyConfig struct {
	DisplayName string
}

// View is one entry of `views`.
type View struct {
	Type    string
	Name    string
	Limit   int // 0: no limit
	Filters *Filter
	Order   []string
	Sort    []SortKey
	GroupBy *SortKey
	// Summaries maps a property to a default summary's name or a custom
	// summary's name.
	Summaries map[string]string
	// Problem is what keeps the view from running (a malformed filter,
	// sort or limit), nil when it can run. The base's other views run
	// whatever this one holds.
	Problem error
}

// SortKey is a property and a direction, for `sort` and `groupBy`.
type SortKey struct {
	Property string
	// Descending is true for direction DESC.
	Descending bool
}

// Filter is a filter statement or an and/or/not group of filters. Exactly
// one of Expr, And, Or and Not is set.
type Filter struct {
	Expr *Expr
	And  []*Filter
	Or   []*Filter
	// Not holds when none of its filters does ("None of the following are
	// true").
	Not []*Filter
}

// Match says whether a file passes the filter. A nil filter passes every
// file.
func (f *Filter) Match(env *Env, file File) (bool, error) {
	if f == nil {
		return true, nil
	}
	switch {
	case f.Expr != nil:
		return f.Expr.Match(env, file)
	case f.And != nil:
		for _, g := range f.And {
			ok, err := g.Match(env, file)
			if err != nil || !ok {
				return false, err
			}
		}
		return true, nil
	case f.Or != nil:
		for _, g := range f.Or {
			ok, err := g.Match(env, file)
			if err != nil || ok {
				return ok, err
			}
		}
		return false, nil
	case f.Not != nil:
		for _, g := range f.Not {
			ok, err := g.Match(env, file)
			if err != nil {
				return false, err
			}
			if ok {
				return false, nil
			}
		}
		return true, nil
	}
	return true, nil
}

// ViewFilter is the filter a view applies: the base's filters and the
// view's, joined by AND.
func (b *Base) ViewFilter(v *View) *Filter {
	switch {
	case b.Filters == nil:
		return v.Filters
	case v.Filters == nil:
		return b.Filters
	}
	return &Filter{And: []*Filter{b.Filters, v.Filters}}
}

// Env returns env with the base's formulas set, for evaluating its
// expressions.
func (b *Base) Env(env Env) *Env {
	env.Formulas = b.Formulas
	return &env
}

// Summarize computes a view's summary for a column: a custom summary of the
// base by that name, else a default one.
func (b *Base) Summarize(env *Env, name string, values []Value) (Value, error) {
	if s, ok := b.Summaries[name]; ok {
		return s.Eval(env, values)
	}
	if s, ok := LookupSummary(name); ok {
		return Summarize(env, s, values), nil
	}
	return nil, fmt.Errorf("there is no summary named %q (default summaries: %s)", name, summaryNames())
}

func summaryNames() string {
	names := make([]string, len(Summaries))
	for i, s := range Summaries {
		names[i] = string(s)
	}
	return strings.Join(names, ", ")
}

// FileError is a problem of a base file: the line it is on, counted from
// 1 in the YAML given (0 when no one line is at fault), and what is wrong,
// naming the part of the file (a view by its name, a formula by its).
type FileError struct {
	Line int
	Msg  string
	err  error
}

func (e *FileError) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("line %d: %s", e.Line, e.Msg)
	}
	return e.Msg
}

func (e *FileError) Unwrap() error { return e.err }

func fileErr(line int, err error, format string, args ...any) *FileError {
	return &FileError{Line: line, Msg: fmt.Sprintf(format, args...), err: err}
}

// rawBase is the YAML shape of a .base file. Views are read one by one, so
// that one broken view leaves the others usable.
type rawBase struct {
	Filters    yaml.Node                    `yaml:"filters"`
	Formulas   yaml.Node                    `yaml:"formulas"`
	Properties map[string]rawPropertyConfig `yaml:"properties"`
	Summaries  map[string]string            `yaml:"summaries"`
	Views      []yaml.Node                  `yaml:"views"`
}

type rawPropertyConfig struct {
	DisplayName string `yaml:"displayName"`
}

type rawView struct {
	Type      string            `yaml:"type"`
	Name      string            `yaml:"name"`
	Limit     yaml.Node         `yaml:"limit"`
	Filters   yaml.Node         `yaml:"filters"`
	Order     []string          `yaml:"order"`
	Sort      []rawSortKey      `yaml:"sort"`
	GroupBy   *rawSortKey       `yaml:"groupBy"`
	Summaries map[string]string `yaml:"summaries"`
	// Other settings belong to the view type (a table's column widths, a
	// map's coordinates); they are kept out of the way.
	Other map[string]yaml.Node `yaml:",inline"`
}

type rawSortKey struct {
	Property  string `yaml:"property"`
	Direction string `yaml:"direction"`
}

// ParseBase parses the YAML of a .base file. A problem of the file as a
// whole (its YAML, its filters, formulas or summaries) is an error; a
// problem of one view is that view's Problem, so that the others still
// run. Every problem is a *FileError, with its line and the part of the
// file it is in.
func ParseBase(data []byte) (*Base, error) {
	var raw rawBase
	if err := yaml.Unmarshal(data, &raw); err != nil {
		return nil, yamlError(err, "", data)
	}
	b := &Base{Properties: map[string]PropertyConfig{}, Summaries: map[string]SummaryFormula{}}
	var err error
	if b.Filters, err = parseFilter(&raw.Filters, "filters", ""); err != nil {
		return nil, err
	}
	if b.Formulas, err = parseFormulas(&raw.Formulas); err != nil {
		return nil, err
	}
	for name, p := range raw.Properties {
		b.Properties[name] = PropertyConfig(p)
	}
	for _, name := range sortedKeys(raw.Summaries) {
		x, err := Parse(raw.Summaries[name])
		if err != nil {
			return nil, fileErr(0, err, "summary %q: %v", name, err)
		}
		b.Summaries[name] = SummaryFormula{Name: name, Expr: x}
	}
	for i := range raw.Views {
		b.Views = append(b.Views, b.parseView(&raw.Views[i], i))
	}
	return b, nil
}

// parseFormulas reads the formulas, each an expression by name.
func parseFormulas(n *yaml.Node) (*Formulas, error) {
	src := map[string]string{}
	if n.Kind == yaml.MappingNode {
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, v := n.Content[i], n.Content[i+1]
			if v.Kind != yaml.ScalarNode {
				return nil, fileErr(v.Line, nil, "formula %q must be an expression written as text", k.Value)
			}
			if _, err := Parse(v.Value); err != nil {
				return nil, fileErr(v.Line, err, "formula %q: %v", k.Value, err)
			}
			src[k.Value] = v.Value
		}
	} else if n.Kind != 0 && n.Tag != "!!null" {
		return nil, fileErr(n.Line, nil, "formulas must be a list of name: expression lines")
	}
	f, err := NewFormulas(src)
	if err != nil {
		return nil, fileErr(0, err, "formulas: %v", err)
	}
	return f, nil
}

// ViewLabel names a view in a message: `view "Table"`, or its place when
// it has no name.
func ViewLabel(name string, i int) string {
	if name != "" {
		return fmt.Sprintf("view %q", name)
	}
	return fmt.Sprintf("the unnamed view %d", i+1)
}

// parseView reads the i-th view; what is wrong with it is its Problem.
func (b *Base) parseView(n *yaml.Node, i int) View {
	var name string
	if n.Kind == yaml.MappingNode {
		for j := 0; j+1 < len(n.Content); j += 2 {
			if n.Content[j].Value == "name" {
				name = n.Content[j+1].Value
			}
		}
	}
	of := " of " + ViewLabel(name, i)
	var rv rawView
	if err := n.Decode(&rv); err != nil {
		return View{Name: name, Problem: yamlError(err, of, nil)}
	}
	v := View{Type: rv.Type, Name: rv.Name, Order: rv.Order, Summaries: rv.Summaries}
	var err error
	if v.Limit, err = limit(&rv.Limit, of); err != nil {
		v.Problem = err
		return v
	}
	if v.Filters, err = parseFilter(&rv.Filters, "filters", of); err != nil {
		v.Problem = err
		return v
	}
	for j, s := range rv.Sort {
		k, err := sortKey(s, fmt.Sprintf("sort key %d%s", j+1, of))
		if err != nil {
			v.Problem = err
			return v
		}
		v.Sort = append(v.Sort, k)
	}
	if rv.GroupBy != nil {
		k, err := sortKey(*rv.GroupBy, "groupBy"+of)
		if err != nil {
			v.Problem = err
			return v
		}
		v.GroupBy = &k
	}
	for _, prop := range sortedKeys(rv.Summaries) {
		name := rv.Summaries[prop]
		if _, custom := b.Summaries[name]; custom {
			continue
		}
		if _, ok := LookupSummary(name); !ok {
			v.Problem = fileErr(0, nil, "summary of %s%s: there is no summary named %q (default summaries: %s)", prop, of, name, summaryNames())
			return v
		}
	}
	return v
}

// limit reads a view's limit: a whole number of rows, 0 or more.
func limit(n *yaml.Node, of string) (int, error) {
	if n.Kind == 0 || n.Tag == "!!null" {
		return 0, nil
	}
	i, err := strconv.Atoi(n.Value)
	if n.Kind != yaml.ScalarNode || n.Tag != "!!int" || err != nil {
		return 0, fileErr(n.Line, nil, "limit%s must be a whole number, got %s", of, yamlValue(n))
	}
	if i < 0 {
		return 0, fileErr(n.Line, nil, "limit%s must be 0 or more (0 shows every row), got %d", of, i)
	}
	return i, nil
}

// yamlValue is a YAML value as a message quotes it.
func yamlValue(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a list"
	}
	if n.Tag == "!!str" {
		return strconv.Quote(n.Value)
	}
	return n.Value
}

var (
	yamlSyntax = regexp.MustCompile(`^yaml: line (\d+): (.*)$`)
	yamlType   = regexp.MustCompile("^line (\\d+): cannot unmarshal !!(\\w+)( `(.*)`)? into (.*)$")
)

// yamlError words an error of the YAML reader: the line, and what was
// expected there in words rather than Go types. data, when given, is the
// YAML read, to find the line a syntax error is on: the reader names the
// line its block starts on.
func yamlError(err error, of string, data []byte) error {
	var te *yaml.TypeError
	if errors.As(err, &te) && len(te.Errors) > 0 {
		m := yamlType.FindStringSubmatch(te.Errors[0])
		if m == nil {
			return fileErr(0, err, "%s", te.Errors[0])
		}
		line, _ := strconv.Atoi(m[1])
		got := map[string]string{"str": "text", "int": "a number", "float": "a number", "bool": "true or false",
			"map": "a mapping", "seq": "a list", "null": "nothing"}[m[2]]
		if got == "" {
			got = "a value"
		}
		if m[3] != "" && m[2] == "str" {
			got += " " + strconv.Quote(m[4])
		} else if m[3] != "" {
			got += " " + m[4]
		}
		want := "a value of another kind"
		switch t := m[5]; {
		case t == "string":
			want = "text"
		case t == "int":
			want = "a whole number"
		case strings.HasPrefix(t, "[]"):
			want = "a list"
		case strings.HasPrefix(t, "map["), strings.Contains(t, "raw"):
			want = "a mapping"
		}
		return fileErr(line, err, "expected %s here%s, got %s", want, of, got)
	}
	msg := strings.TrimPrefix(err.Error(), "yaml: ")
	if m := yamlSyntax.FindStringSubmatch(err.Error()); m != nil {
		line, _ := strconv.Atoi(m[1])
		line = max(line, firstBadLine(data))
		return fileErr(line, err, "this line is not valid YAML; check its indentation and its colon against the lines above (the YAML reader says: %s)", m[2])
	}
	return fileErr(0, err, "this is not valid YAML (%s)", msg)
}

// firstBadLine is the first line of data at which the lines so far no
// longer read as YAML, 0 when it cannot be told. A YAML block cut after
// any line still reads, so the first cut that fails ends on the line at
// fault.
func firstBadLine(data []byte) int {
	lines := strings.SplitAfter(string(data), "\n")
	bad := func(k int) bool {
		var n yaml.Node
		return yaml.Unmarshal([]byte(strings.Join(lines[:k], "")), &n) != nil
	}
	if len(lines) == 0 || !bad(len(lines)) {
		return 0
	}
	lo, hi := 0, len(lines) // lines[:lo] read, lines[:hi] do not
	for hi-lo > 1 {
		mid := (lo + hi) / 2
		if bad(mid) {
			hi = mid
		} else {
			lo = mid
		}
	}
	return hi
}

// Direction reads a sort direction: ASC (or nothing) and DESC, in any case.
func Direction(s string) (descending, ok bool) {
	switch strings.ToUpper(strings.TrimSpace(s)) {
	case "", "ASC":
		return false, true
	case "DESC":
		return true, true
	}
	return false, false
}

func sortKey(s rawSortKey, where string) (SortKey, error) {
	if strings.TrimSpace(s.Property) == "" {
		return SortKey{}, fileErr(0, nil, "%s: expected a property to sort by", where)
	}
	desc, ok := Direction(s.Direction)
	if !ok {
		return SortKey{}, fileErr(0, nil, "%s: the direction must be ASC or DESC, not %q", where, s.Direction)
	}
	return SortKey{Property: s.Property, Descending: desc}, nil
}

// parseFilter reads a filter: a statement as a string, or a mapping with
// one of and, or, not holding a list of filters.
// where is the filter's path in the file ("filters.and[1]"), of what
// follows it (` of view "Table"`).
func parseFilter(n *yaml.Node, where, of string) (*Filter, error) {
	for n.Kind == yaml.DocumentNode && len(n.Content) == 1 {
		n = n.Content[0]
	}
	if n.Kind == yaml.AliasNode && n.Alias != nil {
		n = n.Alias
	}
	switch n.Kind {
	case 0:
		return nil, nil
	case yaml.ScalarNode:
		if n.Tag == "!!null" {
			return nil, nil
		}
		x, err := Parse(n.Value)
		if err != nil {
			return nil, fileErr(n.Line, err, "%s%s: %v", where, of, err)
		}
		return &Filter{Expr: x}, nil
	case yaml.MappingNode:
		if len(n.Content) != 2 {
			return nil, fileErr(n.Line, nil, "%s%s: expected one of and, or, not, found %d keys", where, of, len(n.Content)/2)
		}
		key, list := n.Content[0].Value, n.Content[1]
		if list.Kind != yaml.SequenceNode {
			return nil, fileErr(list.Line, nil, "%s.%s%s: expected a list of filters", where, key, of)
		}
		subs := make([]*Filter, 0, len(list.Content))
		for i, c := range list.Content {
			g, err := parseFilter(c, fmt.Sprintf("%s.%s[%d]", where, key, i), of)
			if err != nil {
				return nil, err
			}
			if g != nil {
				subs = append(subs, g)
			}
		}
		if len(subs) == 0 {
			// An empty group, which Obsidian's filter menu can leave
			// behind, filters nothing out.
			return nil, nil
		}
		switch key {
		case "and":
			return &Filter{And: subs}, nil
		case "or":
			return &Filter{Or: subs}, nil
		case "not":
			return &Filter{Not: subs}, nil
		}
		return nil, fileErr(n.Line, nil, "%s%s: expected and, or or not, found %q", where, of, key)
	}
	return nil, fileErr(n.Line, nil, "%s%s: expected a filter as text or an and, or, not group", where, of)
}

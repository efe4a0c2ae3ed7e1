package bases

import (
	"fmt"
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

// rawBase is the YAML shape of a .base file.
type rawBase struct {
	Filters    yaml.Node                    `yaml:"filters"`
	Formulas   map[string]string            `yaml:"formulas"`
	Properties map[string]rawPropertyConfig `yaml:"properties"`
	Summaries  map[string]string            `yaml:"summaries"`
	Views      []rawView                    `yaml:"views"`
}

type rawPropertyConfig struct {
	DisplayName string `yaml:"displayName"`
}

type rawView struct {
	Type      string            `yaml:"type"`
	Name      string            `yaml:"name"`
	Limit     int               `yaml:"limit"`
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

// ParseBase parses the YAML of a .base file. A problem is reported with
// where it is (`views[0].filters.and[1]`, `formulas.ppu`) and, for an
// expression, its column.
func ParseBase(data []byte) (*Base, error) {
	var raw rawBase
	if err := yaml.Unmarshal(data, &raw); err != nil {
		return nil, fmt.Errorf("read base file: %s", strings.TrimPrefix(err.Error(), "yaml: "))
	}
	b := &Base{Properties: map[string]PropertyConfig{}, Summaries: map[string]SummaryFormula{}}
	var err error
	if b.Filters, err = parseFilter(&raw.Filters, "filters"); err != nil {
		return nil, err
	}
	if b.Formulas, err = NewFormulas(raw.Formulas); err != nil {
		return nil, fmt.Errorf("formulas: %w", err)
	}
	for name, p := range raw.Properties {
		b.Properties[name] = PropertyConfig(p)
	}
	for _, name := range sortedKeys(raw.Summaries) {
		x, err := Parse(raw.Summaries[name])
		if err != nil {
			return nil, fmt.Errorf("summaries.%s: %w", name, err)
		}
		b.Summaries[name] = SummaryFormula{Name: name, Expr: x}
	}
	for i, rv := range raw.Views {
		where := fmt.Sprintf("views[%d]", i)
		v := View{Type: rv.Type, Name: rv.Name, Limit: rv.Limit, Order: rv.Order, Summaries: rv.Summaries}
		if rv.Limit < 0 {
			return nil, fmt.Errorf("%s.limit: expected a number of results of 0 or more, found %d", where, rv.Limit)
		}
		if v.Filters, err = parseFilter(&rv.Filters, where+".filters"); err != nil {
			return nil, err
		}
		for j, s := range rv.Sort {
			k, err := sortKey(s, fmt.Sprintf("%s.sort[%d]", where, j))
			if err != nil {
				return nil, err
			}
			v.Sort = append(v.Sort, k)
		}
		if rv.GroupBy != nil {
			k, err := sortKey(*rv.GroupBy, where+".groupBy")
			if err != nil {
				return nil, err
			}
			v.GroupBy = &k
		}
		for prop, name := range rv.Summaries {
			if _, custom := b.Summaries[name]; custom {
				continue
			}
			if _, ok := LookupSummary(name); !ok {
				return nil, fmt.Errorf("%s.summaries.%s: there is no summary named %q (default summaries: %s)", where, prop, name, summaryNames())
			}
		}
		b.Views = append(b.Views, v)
	}
	return b, nil
}

func sortKey(s rawSortKey, where string) (SortKey, error) {
	if strings.TrimSpace(s.Property) == "" {
		return SortKey{}, fmt.Errorf("%s: expected a property to sort by", where)
	}
	switch strings.ToUpper(strings.TrimSpace(s.Direction)) {
	case "", "ASC":
		return SortKey{Property: s.Property}, nil
	case "DESC":
		return SortKey{Property: s.Property, Descending: true}, nil
	}
	return SortKey{}, fmt.Errorf("%s.direction: expected ASC or DESC, found %q", where, s.Direction)
}

// parseFilter reads a filter: a statement as a string, or a mapping with
// one of and, or, not holding a list of filters.
func parseFilter(n *yaml.Node, where string) (*Filter, error) {
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
			return nil, fmt.Errorf("%s (line %d): %w", where, n.Line, err)
		}
		return &Filter{Expr: x}, nil
	case yaml.MappingNode:
		if len(n.Content) != 2 {
			return nil, fmt.Errorf("%s (line %d): expected one of and, or, not, found %d keys", where, n.Line, len(n.Content)/2)
		}
		key, list := n.Content[0].Value, n.Content[1]
		if list.Kind != yaml.SequenceNode {
			return nil, fmt.Errorf("%s.%s (line %d): expected a list of filters", where, key, list.Line)
		}
		subs := make([]*Filter, 0, len(list.Content))
		for i, c := range list.Content {
			g, err := parseFilter(c, fmt.Sprintf("%s.%s[%d]", where, key, i))
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
		return nil, fmt.Errorf("%s (line %d): expected and, or or not, found %q", where, n.Line, key)
	}
	return nil, fmt.Errorf("%s (line %d): expected a filter as text or an and, or, not group", where, n.Line)
}

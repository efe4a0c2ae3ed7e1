package bases

import (
	"fmt"
	"sort"
	"strings"
)

// Formulas are a base's named formulas, parsed and checked: each may refer
// to others as formula.NAME, and no formula may need itself, directly or
// through others.
type Formulas struct {
	byName map[string]*Expr
}

// NewFormulas parses formulas given by name. It refuses a malformed formula,
// a reference to a formula that does not exist and a cycle, naming them.
func NewFormulas(src map[string]string) (*Formulas, error) {
	f := &Formulas{byName: make(map[string]*Expr, len(src))}
	for _, name := range sortedKeys(src) {
		x, err := Parse(src[name])
		if err != nil {
			return nil, fmt.Errorf("formula %q: %w", name, err)
		}
		f.byName[name] = x
	}
	// Every reference must name a formula, and following references from
	// any formula must never come back to it.
	refs := map[string][]string{}
	for _, name := range f.Names() {
		x := f.byName[name]
		for _, r := range formulaRefs(x.root) {
			if _, ok := f.byName[r.name]; !ok {
				return nil, fmt.Errorf("formula %q: %w", name, errAt(x.src, r.pos, fmt.Sprintf("there is no formula named %q", r.name)))
			}
			refs[name] = append(refs[name], r.name)
		}
	}
	const (
		visiting = 1
		done     = 2
	)
	state := map[string]int{}
	var path []string
	var visit func(string) error
	visit = func(name string) error {
		switch state[name] {
		case done:
			return nil
		case visiting:
			i := 0
			for path[i] != name {
				i++
			}
			cycle := append(append([]string{}, path[i:]...), name)
			return fmt.Errorf("formula %q refers to itself: %s", name, strings.Join(cycle, " -> "))
		}
		state[name] = visiting
		path = append(path, name)
		for _, r := range refs[name] {
			if err := visit(r); err != nil {
				return err
			}
		}
		path = path[:len(path)-1]
		state[name] = done
		return nil
	}
	for _, name := range f.Names() {
		if err := visit(name); err != nil {
			return nil, err
		}
	}
	return f, nil
}

// Names lists the formulas' names in order.
func (f *Formulas) Names() []string {
	if f == nil {
		return nil
	}
	names := make([]string, 0, len(f.byName))
	for k := range f.byName {
		names = append(names, k)
	}
	sort.Strings(names)
	return names
}

// Get returns a formula's expression.
func (f *Formulas) Get(name string) (*Expr, bool) {
	if f == nil {
		return nil, false
	}
	x, ok := f.byName[name]
	return x, ok
}

// Eval evaluates the named formula for a file; env.Formulas should be f.
func (f *Formulas) Eval(env *Env, file File, name string) (v Value, err error) {
	if env == nil {
		env = &Env{}
	}
	if env.Formulas != f {
		copied := *env
		copied.Formulas = f
		env = &copied
	}
	e := &evaluator{env: env, file: file}
	defer func() {
		if r := recover(); r != nil {
			v, err = nil, fmt.Errorf("formula %q: internal error while evaluating: %v", name, r)
		}
	}()
	return e.formula(nil, name)
}

type ref struct {
	name string
	pos  int
}

// formulaRefs finds formula.NAME and formula["NAME"] in an expression.
func formulaRefs(n node) []ref {
	var out []ref
	var walk func(node)
	walk = func(n node) {
		switch n := n.(type) {
		case *memberNode:
			if id, ok := n.x.(*identNode); ok && id.name == "formula" {
				out = append(out, ref{n.name, n.pos})
				return
			}
			walk(n.x)
		case *indexNode:
			if id, ok := n.x.(*identNode); ok && id.name == "formula" {
				if l, ok := n.index.(*litNode); ok {
					if s, ok := l.v.(String); ok {
						out = append(out, ref{string(s), n.pos})
						return
					}
				}
			}
			walk(n.x)
			walk(n.index)
		case *callNode:
			walk(n.fn)
			for _, a := range n.args {
				walk(a)
			}
		case *unaryNode:
			walk(n.x)
		case *binaryNode:
			walk(n.l)
			walk(n.r)
		case *listNode:
			for _, el := range n.elems {
				walk(el)
			}
		case *objectNode:
			for _, v := range n.vals {
				walk(v)
			}
		}
	}
	walk(n)
	return out
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

package query

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/jarvis-mcp/jarvis/internal/bases"
	"github.com/jarvis-mcp/jarvis/internal/words"
)

// Request is one view of a base to run over a vault.
type Request struct {
	Base *bases.Base
	// View is the view's name; the first view when empty.
	View string
	// This is the file `this` is: the .base file, or the note embedding
	// the base block. Nil makes `this` null.
	This bases.File
	// Now is the current time, in the time zone of dates written without
	// one; the clock when zero.
	Now time.Time
}

// Column is a column of a view: a property ("note.status", "file.name",
// "formula.price") and the name it is shown by.
type Column struct {
	ID   string
	Name string
}

// Row is one file that passed the view's filter, with the value of each
// column in order.
type Row struct {
	File   *File
	Values []bases.Value
}

// Summary is the summary of one column.
type Summary struct {
	Column  string // the column's name, as shown
	Summary string // the summary's name ("Average", or a custom one)
	Value   bases.Value
}

// Group is the rows sharing one value of the view's groupBy property.
type Group struct {
	Key       bases.Value
	Rows      []Row
	Summaries []Summary
}

// Result is a view's answer.
type Result struct {
	View    string
	Columns []Column
	// Rows are the files that passed, sorted, up to the view's limit.
	Rows []Row
	// Total is how many files passed, before the limit.
	Total int
	// Groups are Rows grouped by the view's groupBy, in its order; nil
	// without one.
	Groups    []Group
	Summaries []Summary
	// Warnings say what was passed over: files on which the filter or a
	// column failed.
	Warnings []string
}

// ErrNoView means the view asked for is not in the base; the error names
// the views there are.
var ErrNoView = errors.New("no such view")

// FindView returns the view named, or the first when name is empty.
func FindView(b *bases.Base, name string) (*bases.View, error) {
	if len(b.Views) == 0 {
		if name != "" {
			return nil, &noViewError{fmt.Sprintf("the base has no views, so there is no view %q", name)}
		}
		return &bases.View{Type: "table"}, nil
	}
	if name == "" {
		return &b.Views[0], nil
	}
	for i := range b.Views {
		if b.Views[i].Name == name {
			return &b.Views[i], nil
		}
	}
	names := make([]string, len(b.Views))
	for i, v := range b.Views {
		names[i] = strconv.Quote(v.Name)
	}
	return nil, &noViewError{fmt.Sprintf("the base has no view %q; its views are %s", name, strings.Join(names, ", "))}
}

// noViewError is ErrNoView with its own words: "no such view" before
// them would say it twice.
type noViewError struct{ msg string }

func (e *noViewError) Error() string        { return e.msg }
func (e *noViewError) Is(target error) bool { return target == ErrNoView }

// maxWarnings bounds the warnings of one answer.
const maxWarnings = 5

// Run runs a view of a base over the files of v: the base's filter and
// the view's (joined by AND, bases.Base.ViewFilter), evaluated on the
// files that can pass it (Vault.Candidates), sorted by the view's keys in
// turn (bases.SortOrder, stable, so that ties keep path order), cut to the
// view's limit, then grouped and summarized.
func Run(ctx context.Context, v *Vault, req Request) (*Result, error) {
	view, err := FindView(req.Base, req.View)
	if err != nil {
		return nil, err
	}
	if view.Problem != nil {
		return nil, view.Problem
	}
	env := req.Base.Env(bases.Env{Now: req.Now, This: req.This, Resolve: v.Resolve})
	res := &Result{View: view.Name}
	// The base's other views are not run; what keeps one from running
	// is said, not held against this one.
	for i := range req.Base.Views {
		if o := &req.Base.Views[i]; o != view && o.Problem != nil {
			res.Warnings = append(res.Warnings, fmt.Sprintf("%s cannot run: %v", bases.ViewLabel(o.Name, i), o.Problem))
		}
	}
	cols, err := columns(req.Base, view)
	if err != nil {
		return nil, err
	}
	for _, c := range cols {
		res.Columns = append(res.Columns, c.Column)
		if w := unknownProperty(v, c.path); w != "" {
			res.Warnings = append(res.Warnings, fmt.Sprintf("column %s: %s", c.ID, w))
		}
	}
	sortBy := make([]*bases.Expr, len(view.Sort))
	for i, k := range view.Sort {
		p, err := bases.ParseProperty(k.Property)
		if err != nil {
			return nil, fmt.Errorf("sort by %q: %w", k.Property, err)
		}
		sortBy[i] = p.Expr
		if w := unknownProperty(v, p.Path); w != "" {
			res.Warnings = append(res.Warnings, "sort by "+k.Property+": "+w)
		}
	}
	var group *bases.Expr
	if view.GroupBy != nil {
		p, err := bases.ParseProperty(view.GroupBy.Property)
		if err != nil {
			return nil, fmt.Errorf("group by %q: %w", view.GroupBy.Property, err)
		}
		group = p.Expr
	}
	filter := req.Base.ViewFilter(view)
	res.Warnings = append(res.Warnings, v.filterWarnings(ctx, filter)...)
	type candidate struct {
		f    *File
		keys []bases.Value
		grp  bases.Value
	}
	var matched []candidate
	var failed int
	var firstErr error
	for i, f := range v.Candidates(env, filter) {
		if i%1024 == 0 && ctx.Err() != nil {
			return nil, ctx.Err()
		}
		ok, err := Match(env, filter, f)
		if err != nil {
			failed++
			if firstErr == nil {
				firstErr = fmt.Errorf("%w (for %s)", err, f.path)
			}
			continue
		}
		if !ok {
			continue
		}
		c := candidate{f: f, keys: make([]bases.Value, len(sortBy))}
		for j, x := range sortBy {
			c.keys[j] = value(env, x, f)
		}
		if group != nil {
			c.grp = value(env, group, f)
		}
		matched = append(matched, c)
	}
	if failed > 0 && len(matched) == 0 {
		return nil, firstErr
	}
	if failed > 0 {
		res.Warnings = append(res.Warnings, fmt.Sprintf("%s left out because the filter failed on them, as in: %v",
			words.CountAs(failed, "file was", "files were"), firstErr))
	}
	res.Total = len(matched)
	matched = sortedFirst(matched, view.Limit, func(a, b candidate) int {
		for j, k := range view.Sort {
			if c := bases.SortOrder(env, a.keys[j], b.keys[j], k.Descending); c != 0 {
				return c
			}
		}
		return 0
	})
	var cellsFailed, cellsSaid int
	for _, c := range matched {
		row := Row{File: c.f, Values: make([]bases.Value, len(cols))}
		for j, col := range cols {
			val, err := col.expr.Eval(env, c.f)
			if err != nil {
				cellsFailed++
				if cellsSaid < maxWarnings {
					cellsSaid++
					res.Warnings = append(res.Warnings, fmt.Sprintf("column %q of %s: %v", col.Name, c.f.path, err))
				}
				val = bases.Null{}
			}
			row.Values[j] = val
		}
		res.Rows = append(res.Rows, row)
	}
	if more := cellsFailed - cellsSaid; more > 0 {
		res.Warnings = append(res.Warnings, fmt.Sprintf("%s could not be computed as well, and %s left empty",
			words.CountAs(more, "more value", "more values"), words.Agree(more, "is", "are")))
	}
	if res.Summaries, err = summarize(env, req.Base, view, cols, res.Rows); err != nil {
		return nil, err
	}
	if group != nil {
		desc := view.GroupBy.Descending
		keys := make([]bases.Value, len(matched))
		for i, c := range matched {
			keys[i] = c.grp
		}
		for i, row := range res.Rows {
			k := keys[i]
			at := slices.IndexFunc(res.Groups, func(g Group) bool { return bases.Order(env, g.Key, k) == 0 })
			if at < 0 {
				res.Groups = append(res.Groups, Group{Key: k})
				at = len(res.Groups) - 1
			}
			res.Groups[at].Rows = append(res.Groups[at].Rows, row)
		}
		slices.SortStableFunc(res.Groups, func(a, b Group) int {
			return bases.SortOrder(env, a.Key, b.Key, desc)
		})
		for i := range res.Groups {
			if res.Groups[i].Summaries, err = summarize(env, req.Base, view, cols, res.Groups[i].Rows); err != nil {
				return nil, err
			}
		}
	}
	return res, nil
}

// Match is the one rule of what a Bases filter lets through, for a view
// and for the `where` of a search: the filter's statements evaluated for
// the file, a nil filter letting every file through. An error is an
// expression that cannot be evaluated for this file.
func Match(env *bases.Env, f *bases.Filter, file bases.File) (bool, error) {
	return f.Match(env, file)
}

// value evaluates a sort or group key, null where it fails: a file whose
// key cannot be computed sorts with those that have none.
func value(env *bases.Env, x *bases.Expr, f *File) bases.Value {
	v, err := x.Eval(env, f)
	if err != nil {
		return bases.Null{}
	}
	return v
}

type column struct {
	Column
	expr *bases.Expr
	path []string // the note property it reads (bases.Property.Path)
}

// columns are the view's columns: those of `order`, or the file name
// when it lists none, named by the base's displayName.
func columns(b *bases.Base, view *bases.View) ([]column, error) {
	ids := view.Order
	if len(ids) == 0 {
		ids = []string{"file.name"}
	}
	var out []column
	for _, id := range ids {
		p, err := bases.ParseProperty(id)
		if err != nil {
			return nil, fmt.Errorf("column %q: %w", id, err)
		}
		out = append(out, column{Column: Column{ID: id, Name: displayName(b, id)}, expr: p.Expr, path: p.Path})
	}
	return out, nil
}

// displayName is how a column is shown: its displayName in the base, else
// the property without "note.".
func displayName(b *bases.Base, id string) string {
	for _, k := range []string{id, "note." + id, strings.TrimPrefix(id, "note.")} {
		if p, ok := b.Properties[k]; ok && p.DisplayName != "" {
			return p.DisplayName
		}
	}
	return strings.TrimPrefix(id, "note.")
}

// summarize computes the view's summaries over rows: those of columns in
// column order, then those of properties the view does not show as
// columns (Obsidian computes them too), in name order.
func summarize(env *bases.Env, b *bases.Base, view *bases.View, cols []column, rows []Row) ([]Summary, error) {
	var out []Summary
	used := map[string]bool{}
	for j, col := range cols {
		var name string
		ok := false
		for _, k := range []string{col.ID, "note." + col.ID, strings.TrimPrefix(col.ID, "note.")} {
			if name, ok = view.Summaries[k]; ok {
				used[k] = true
				break
			}
		}
		if !ok {
			continue
		}
		values := make([]bases.Value, len(rows))
		for i, r := range rows {
			values[i] = r.Values[j]
		}
		v, err := b.Summarize(env, name, values)
		if err != nil {
			return nil, fmt.Errorf("summary of column %q: %w", col.Name, err)
		}
		out = append(out, Summary{Column: col.Name, Summary: name, Value: v})
	}
	var rest []string
	for k := range view.Summaries {
		if !used[k] && !slices.ContainsFunc(cols, func(c column) bool { return c.ID == k || "note."+c.ID == k || strings.TrimPrefix(c.ID, "note.") == k }) {
			rest = append(rest, k)
		}
	}
	slices.Sort(rest)
	for _, k := range rest {
		p, err := bases.ParseProperty(k)
		if err != nil {
			return nil, fmt.Errorf("summary of property %q: %w", k, err)
		}
		values := make([]bases.Value, len(rows))
		for i, r := range rows {
			values[i] = value(env, p.Expr, r.File)
		}
		name := displayName(b, k)
		v, err := b.Summarize(env, view.Summaries[k], values)
		if err != nil {
			return nil, fmt.Errorf("summary of property %q: %w", name, err)
		}
		out = append(out, Summary{Column: name, Summary: view.Summaries[k], Value: v})
	}
	return out, nil
}

// sortedFirst returns the first limit items of a stable sort of items by
// cmp (all of them when limit is 0 or more than there are): ties keep
// the items' order. With a limit below the number of items, only the
// best limit items are kept while reading them, and only they are
// sorted. items is reordered.
func sortedFirst[T any](items []T, limit int, cmp func(a, b T) int) []T {
	// Each item's place breaks ties, which makes any sort stable.
	type placed struct {
		item T
		at   int
	}
	before := func(a, b placed) int {
		if c := cmp(a.item, b.item); c != 0 {
			return c
		}
		return a.at - b.at
	}
	if limit <= 0 || limit >= len(items) {
		all := make([]placed, len(items))
		for i, it := range items {
			all[i] = placed{it, i}
		}
		slices.SortFunc(all, before)
		for i, p := range all {
			items[i] = p.item
		}
		return items
	}
	// A heap of the best limit items so far, the worst of them on top.
	best := make([]placed, 0, limit)
	down := func(i int) {
		for {
			worst, l, r := i, 2*i+1, 2*i+2
			if l < len(best) && before(best[l], best[worst]) > 0 {
				worst = l
			}
			if r < len(best) && before(best[r], best[worst]) > 0 {
				worst = r
			}
			if worst == i {
				return
			}
			best[i], best[worst] = best[worst], best[i]
			i = worst
		}
	}
	for i, it := range items {
		p := placed{it, i}
		if len(best) < limit {
			best = append(best, p)
			for j := len(best) - 1; j > 0; {
				parent := (j - 1) / 2
				if before(best[j], best[parent]) <= 0 {
					break
				}
				best[j], best[parent] = best[parent], best[j]
				j = parent
			}
			continue
		}
		if before(p, best[0]) < 0 {
			best[0] = p
			down(0)
		}
	}
	slices.SortFunc(best, before)
	out := items[:limit]
	for i, p := range best {
		out[i] = p.item
	}
	return out
}

// unknownProperty is a warning for a note property no file of v has, as a
// misspelt sort key or column would be ("ratng", "zotero.kye"), naming the
// closest property some file has when one is close; "" when a file has
// it, or path is nil (the key is not a note property).
func unknownProperty(v *Vault, path []string) string {
	if len(path) == 0 {
		return ""
	}
	seen := map[string]bool{}
	for _, f := range v.Files {
		if has(f.Properties(), path, "", seen) {
			return ""
		}
	}
	name := strings.Join(path, ".")
	msg := fmt.Sprintf("no file has a property %s", name)
	best := words.Nearest(name, slices.Sorted(maps.Keys(seen)), 2)
	if best != "" {
		msg += fmt.Sprintf("; did you mean %s?", best)
	}
	return msg
}

// filterWarnings warn of each property the filter reads that no file has,
// as for a column, and say when notes hold it as a Dataview inline field
// ("owner:: [[Ana]]"), which a query does not read.
func (v *Vault) filterWarnings(ctx context.Context, filter *bases.Filter) []string {
	var out []string
	for _, name := range filter.Properties() {
		w := unknownProperty(v, []string{name})
		if w == "" {
			continue
		}
		if v.inline != nil {
			if n, err := v.inline(ctx, name); err == nil && n > 0 {
				w += fmt.Sprintf("; %s %s it as a Dataview inline field (%s::), but queries read only the properties in a note's frontmatter",
					words.Count(n, "note"), words.Agree(n, "holds", "hold"), name)
			}
		}
		out = append(out, "filter: "+w)
	}
	return out
}

// has reports whether props holds path, key by key through nested
// objects, noting in seen the dotted names of the keys it passed on the
// way (prefix is the dotted name of props itself).
func has(props map[string]any, path []string, prefix string, seen map[string]bool) bool {
	for k := range props {
		seen[prefix+k] = true
	}
	x, ok := props[path[0]]
	if !ok {
		return false
	}
	if len(path) == 1 {
		return true
	}
	sub, ok := x.(map[string]any)
	if !ok {
		return false
	}
	return has(sub, path[1:], prefix+path[0]+".", seen)
}

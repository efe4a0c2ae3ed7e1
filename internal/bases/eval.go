package bases

import (
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"
)

// Env is what an evaluation needs besides the file it looks at.
type Env struct {
	// Now is the current time. Its location is the time zone of dates
	// written without one. When zero, the clock is read.
	Now time.Time
	// This is the file `this` refers to: the base itself, the note that
	// embeds it, or the active note. Nil makes `this` null.
	This File
	// Resolve finds the file a link points to. Nil resolves nothing, and
	// links then compare by their text.
	Resolve Resolver
	// Formulas are the base's formulas, for `formula.NAME`.
	Formulas *Formulas
	// Random returns a number in [0, 1) for random(); nil uses
	// math/rand/v2.
	Random func() float64
}

// Limits of one evaluation. They keep a hostile or mistaken expression from
// running away: every node evaluated counts a step, and strings and lists
// count against a memory budget before they are built.
const (
	maxSteps  = 5_000_000
	maxDepth  = 200
	maxList   = 100_000
	maxString = 1 << 20
	maxMemory = 64 << 20
)

// Eval evaluates the expression for one file.
func (x *Expr) Eval(env *Env, f File) (Value, error) {
	return x.EvalWith(env, f, nil)
}

// EvalWith evaluates the expression with extra names in scope, such as
// `values` for a summary formula.
func (x *Expr) EvalWith(env *Env, f File, names map[string]Value) (v Value, err error) {
	if env == nil {
		env = &Env{}
	}
	e := &evaluator{env: env, file: f, src: x.src}
	if len(names) > 0 {
		e.locals = append(e.locals, names)
	}
	defer func() {
		// A last resort: every failure is meant to be returned as an error
		// where it happens; a panic here is a bug, reported rather than
		// taking the caller down.
		if r := recover(); r != nil {
			v, err = nil, &Error{Expr: x.src, Msg: fmt.Sprintf("internal error while evaluating: %v", r), evaluating: true}
		}
	}()
	return e.eval(x.root)
}

// Match evaluates the expression as a filter: whether the file passes.
func (x *Expr) Match(env *Env, f File) (bool, error) {
	v, err := x.Eval(env, f)
	if err != nil {
		return false, err
	}
	return Truthy(v), nil
}

type evaluator struct {
	env      *Env
	file     File
	src      string
	locals   []map[string]Value
	depth    int
	steps    int
	mem      int
	formulas []string // formulas being evaluated, innermost last
	cache    map[string]Value
	clock    time.Time // the clock's time, once read (now)
}

func (e *evaluator) errf(n node, format string, args ...any) error {
	pos := 0
	if n != nil {
		pos = n.position()
	}
	err := errAt(e.src, pos, fmt.Sprintf(format, args...))
	err.evaluating = true
	return err
}

// charge counts bytes against the memory budget before they are allocated.
func (e *evaluator) charge(n node, bytes int) error {
	e.mem += bytes
	if bytes < 0 || e.mem > maxMemory {
		return e.errf(n, "expression builds more than %d MB of text and lists", maxMemory>>20)
	}
	return nil
}

func (e *evaluator) checkString(n node, size int) error {
	if size > maxString {
		return e.errf(n, "text would be longer than %d characters", maxString)
	}
	return e.charge(n, size)
}

func (e *evaluator) checkList(n node, size int) error {
	if size > maxList {
		return e.errf(n, "list would have more than %d items", maxList)
	}
	return e.charge(n, size*16)
}

// now is the Env's time, or else the clock read once for the whole
// evaluation: every now() of an expression is one moment, so that
// (now() + "1d") - now() is 86400000, as the Bases syntax page says.
func (e *evaluator) now() time.Time {
	if !e.env.Now.IsZero() {
		return e.env.Now
	}
	if e.clock.IsZero() {
		e.clock = time.Now()
	}
	return e.clock
}

func (e *evaluator) loc() *time.Location {
	if e.env.Now.IsZero() {
		return time.Local
	}
	return e.env.Now.Location()
}

func (e *evaluator) local(name string) (Value, bool) {
	for i := len(e.locals) - 1; i >= 0; i-- {
		if v, ok := e.locals[i][name]; ok {
			return v, true
		}
	}
	return nil, false
}

func (e *evaluator) eval(n node) (Value, error) {
	e.steps++
	if e.steps > maxSteps {
		return nil, e.errf(n, "expression takes more than %d steps; simplify it or work on shorter lists", maxSteps)
	}
	e.depth++
	if e.depth > maxDepth {
		e.depth--
		return nil, e.errf(n, "expression nests more than %d levels deep", maxDepth)
	}
	// Not deferred: eval runs for every node of every file, and a
	// function with this many returns cannot have its defer inlined.
	v, err := e.evalNode(n)
	e.depth--
	return v, err
}

// evalNode is eval's work, within its step and depth bounds.
func (e *evaluator) evalNode(n node) (Value, error) {
	switch n := n.(type) {
	case *litNode:
		return n.v, nil
	case *regexpNode:
		return n.re, nil
	case *identNode:
		return e.ident(n)
	case *memberNode:
		if id, ok := n.x.(*identNode); ok {
			if _, isLocal := e.local(id.name); !isLocal {
				switch id.name {
				case "note":
					return e.property(e.file, n.name), nil
				case "formula":
					return e.formula(n, n.name)
				}
			}
		}
		x, err := e.eval(n.x)
		if err != nil {
			return nil, err
		}
		return e.member(n, x, n.name)
	case *indexNode:
		idx, err := e.eval(n.index)
		if err != nil {
			return nil, err
		}
		if id, ok := n.x.(*identNode); ok {
			if _, isLocal := e.local(id.name); !isLocal {
				s, isStr := idx.(String)
				switch {
				case id.name == "note" && isStr:
					return e.property(e.file, string(s)), nil
				case id.name == "formula" && isStr:
					return e.formula(n, string(s))
				case id.name == "formula":
					return nil, e.errf(n.index, "expected a formula name in quotes inside formula[...]")
				}
			}
		}
		x, err := e.eval(n.x)
		if err != nil {
			return nil, err
		}
		return e.index(n, x, idx)
	case *callNode:
		return e.call(n)
	case *unaryNode:
		x, err := e.eval(n.x)
		if err != nil {
			return nil, err
		}
		return e.unary(n, x)
	case *binaryNode:
		return e.binary(n)
	case *listNode:
		if err := e.checkList(n, len(n.elems)); err != nil {
			return nil, err
		}
		out := make(List, 0, len(n.elems))
		for _, el := range n.elems {
			v, err := e.eval(el)
			if err != nil {
				return nil, err
			}
			out = append(out, v)
		}
		return out, nil
	case *objectNode:
		o := NewObject()
		for i, k := range n.keys {
			v, err := e.eval(n.vals[i])
			if err != nil {
				return nil, err
			}
			o.Set(k, v)
		}
		return o, nil
	}
	return nil, e.errf(n, "cannot evaluate this part of the expression")
}

func (e *evaluator) ident(n *identNode) (Value, error) {
	if v, ok := e.local(n.name); ok {
		return v, nil
	}
	switch n.name {
	case "file":
		if e.file == nil {
			return Null{}, nil
		}
		return FileValue{F: e.file}, nil
	case "this":
		if e.env.This == nil {
			return Null{}, nil
		}
		return FileValue{F: e.env.This, Context: true}, nil
	case "note":
		return e.properties(e.file), nil
	case "formula":
		return nil, e.errf(n, "expected a formula name after \"formula\", as in formula.price")
	}
	return e.property(e.file, n.name), nil
}

// property reads a note property of f, null when f has none by that name.
func (e *evaluator) property(f File, name string) Value {
	if f == nil {
		return Null{}
	}
	raw, ok := f.Properties()[name]
	if !ok {
		return Null{}
	}
	return e.fromAny(raw, f.Path())
}

func (e *evaluator) properties(f File) Value {
	o := NewObject()
	if f == nil {
		return o
	}
	props := f.Properties()
	keys := make([]string, 0, len(props))
	for k := range props {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		o.Set(k, e.fromAny(props[k], f.Path()))
	}
	return o
}

// FromAny converts a decoded YAML or JSON value to a Value as Obsidian reads
// frontmatter: a string holding one wikilink is a link, a string written as
// a date or date and time is a date, numbers of every Go type are numbers.
// from is the path of the note the value comes from (for its links); loc is
// the time zone of dates written without one.
func FromAny(v any, from string, loc *time.Location) Value {
	switch x := v.(type) {
	case nil:
		return Null{}
	case Value:
		return x
	case bool:
		return Bool(x)
	case int:
		return Number(x)
	case int8:
		return Number(x)
	case int16:
		return Number(x)
	case int32:
		return Number(x)
	case int64:
		return Number(x)
	case uint:
		return Number(x)
	case uint8:
		return Number(x)
	case uint16:
		return Number(x)
	case uint32:
		return Number(x)
	case uint64:
		return Number(x)
	case float32:
		return Number(x)
	case float64:
		return Number(x)
	case json.Number:
		f, err := x.Float64()
		if err != nil {
			return String(x.String())
		}
		return Number(f)
	case string:
		if isWikilink(x) {
			return parseLink(x, from)
		}
		if d, ok := parseDate(x, loc); ok {
			return d
		}
		return String(x)
	case time.Time:
		// YAML decodes an unquoted 2024-01-01 to midnight UTC: a date
		// without a time, meant in the reader's time zone.
		if x.Location() == time.UTC && x.Hour() == 0 && x.Minute() == 0 && x.Second() == 0 && x.Nanosecond() == 0 {
			return Date{T: time.Date(x.Year(), x.Month(), x.Day(), 0, 0, 0, 0, loc)}
		}
		return Date{T: x, HasTime: true}
	case []any:
		out := make(List, len(x))
		for i, el := range x {
			out[i] = FromAny(el, from, loc)
		}
		return out
	case []string:
		out := make(List, len(x))
		for i, el := range x {
			out[i] = FromAny(el, from, loc)
		}
		return out
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		o := NewObject()
		for _, k := range keys {
			o.Set(k, FromAny(x[k], from, loc))
		}
		return o
	case map[any]any:
		keys := make([]string, 0, len(x))
		byKey := map[string]any{}
		for k, el := range x {
			ks := fmt.Sprint(k)
			keys = append(keys, ks)
			byKey[ks] = el
		}
		sort.Strings(keys)
		o := NewObject()
		for _, k := range keys {
			o.Set(k, FromAny(byKey[k], from, loc))
		}
		return o
	}
	return String(fmt.Sprint(v))
}

func (e *evaluator) fromAny(v any, from string) Value {
	return FromAny(v, from, e.loc())
}

// formula evaluates the named formula for the current file, refusing a
// formula that needs itself.
func (e *evaluator) formula(n node, name string) (Value, error) {
	if e.env.Formulas == nil {
		return nil, e.errf(n, "there is no formula named %q", name)
	}
	f, ok := e.env.Formulas.byName[name]
	if !ok {
		return nil, e.errf(n, "there is no formula named %q (formulas: %s)", name, strings.Join(e.env.Formulas.Names(), ", "))
	}
	if v, ok := e.cache[name]; ok {
		return v, nil
	}
	for _, g := range e.formulas {
		if g == name {
			return nil, e.errf(n, "formula %q refers to itself through %s", name, strings.Join(append(e.formulas, name), " -> "))
		}
	}
	e.formulas = append(e.formulas, name)
	savedSrc, savedLocals := e.src, e.locals
	e.src, e.locals = f.src, nil
	v, err := e.eval(f.root)
	e.src, e.locals = savedSrc, savedLocals
	e.formulas = e.formulas[:len(e.formulas)-1]
	if err != nil {
		if ee, ok := err.(*Error); ok && ee.Expr == f.src && !strings.HasPrefix(ee.Msg, "in formula") {
			ee.Msg = fmt.Sprintf("in formula %q: %s", name, ee.Msg)
		}
		return nil, err
	}
	if e.cache == nil {
		e.cache = map[string]Value{}
	}
	e.cache[name] = v
	return v, nil
}

// kindName is a value's type in words for messages ("a number", "a list").
func kindName(v Value) string { return kindWord(v.Kind()) }

func (e *evaluator) member(n *memberNode, x Value, name string) (Value, error) {
	switch x := x.(type) {
	case Null:
		return Null{}, nil
	case *Object:
		return x.Get(name), nil
	case FileValue:
		if x.Context {
			switch name {
			case "file":
				return FileValue{F: x.F}, nil
			case "note":
				return e.properties(x.F), nil
			}
			return e.property(x.F, name), nil
		}
		if v, ok := e.fileField(x.F, name); ok {
			return v, nil
		}
	case Date:
		t := x.T
		switch name {
		case "year":
			return Number(t.Year()), nil
		case "month":
			return Number(t.Month()), nil
		case "day":
			return Number(t.Day()), nil
		case "hour":
			return Number(t.Hour()), nil
		case "minute":
			return Number(t.Minute()), nil
		case "second":
			return Number(t.Second()), nil
		case "millisecond":
			return Number(t.Nanosecond() / 1e6), nil
		}
	case String:
		if name == "length" {
			return Number(len([]rune(string(x)))), nil
		}
	case List:
		if name == "length" {
			return Number(len(x)), nil
		}
	case Link:
		// A link stands for the file it points to, so its fields are the
		// file's when it resolves.
		if f, ok := e.resolve(x); ok {
			if v, ok := e.fileField(f, name); ok {
				return v, nil
			}
		}
		return Null{}, nil
	}
	return nil, e.errf(n, "%s", noField(x.Kind(), name))
}

// durationFunctions lists what can be called on a duration.
func durationFunctions() string {
	var names []string
	for name := range methods[KindDuration] {
		names = append(names, name)
	}
	for name := range anyMethods {
		names = append(names, name)
	}
	slices.Sort(names)
	return strings.Join(names, ", ")
}

func (e *evaluator) fileField(f File, name string) (Value, bool) {
	p := f.Path()
	switch name {
	case "name":
		return String(pathBase(p)), true
	case "basename":
		b := pathBase(p)
		if i := strings.LastIndexByte(b, '.'); i > 0 {
			b = b[:i]
		}
		return String(b), true
	case "path":
		return String(p), true
	case "folder":
		return String(folderOf(p)), true
	case "ext":
		b := pathBase(p)
		if i := strings.LastIndexByte(b, '.'); i > 0 {
			return String(b[i+1:]), true
		}
		return String(""), true
	case "size":
		return Number(f.Size()), true
	case "ctime":
		return Date{T: f.Created().In(e.loc()), HasTime: true}, true
	case "mtime":
		return Date{T: f.Modified().In(e.loc()), HasTime: true}, true
	case "tags":
		var out List
		for _, t := range f.Tags() {
			out = append(out, String("#"+strings.TrimPrefix(t, "#")))
		}
		return out, true
	case "links":
		return e.linkList(f.Links(), p), true
	case "embeds":
		return e.linkList(f.Embeds(), p), true
	case "backlinks":
		var out List
		for _, b := range f.Backlinks() {
			out = append(out, Link{Target: b, From: p})
		}
		return out, true
	case "properties":
		return e.properties(f), true
	case "file":
		return FileValue{F: f}, true
	}
	return nil, false
}

func (e *evaluator) linkList(targets []string, from string) List {
	out := make(List, 0, len(targets))
	for _, t := range targets {
		l := parseLink(t, from)
		if strings.HasPrefix(strings.TrimSpace(t), "[[") || strings.Contains(t, "|") {
			target, display, _ := strings.Cut(strings.Trim(strings.TrimSpace(t), "[]!"), "|")
			l = Link{Target: target, Display: display, From: from}
		}
		out = append(out, l)
	}
	return out
}

func pathBase(p string) string {
	if i := strings.LastIndexByte(p, '/'); i >= 0 {
		return p[i+1:]
	}
	return p
}

// folderOf is a file's folder as Obsidian gives it: "/" for the vault root.
func folderOf(p string) string {
	if i := strings.LastIndexByte(p, '/'); i >= 0 {
		return p[:i]
	}
	return "/"
}

func (e *evaluator) resolve(l Link) (File, bool) {
	if e.env.Resolve == nil || isExternal(l.Target) {
		return nil, false
	}
	t := linkPath(l.Target)
	if t == "" {
		return nil, false
	}
	return e.env.Resolve(l.From, t)
}

func (e *evaluator) index(n *indexNode, x, idx Value) (Value, error) {
	switch x := x.(type) {
	case Null:
		return Null{}, nil
	case List:
		i, ok := idx.(Number)
		if !ok {
			return nil, e.errf(n.index, "a list is indexed by a number, as in list[0]; found %s", kindName(idx))
		}
		k := float64(i)
		if k != math.Trunc(k) || k < 0 || k >= float64(len(x)) {
			return Null{}, nil
		}
		return x[int(k)], nil
	case String:
		i, ok := idx.(Number)
		if !ok {
			return nil, e.errf(n.index, "text is indexed by a number, as in name[0]; found %s", kindName(idx))
		}
		r := []rune(string(x))
		k := float64(i)
		if k != math.Trunc(k) || k < 0 || k >= float64(len(r)) {
			return Null{}, nil
		}
		return String(r[int(k)]), nil
	case *Object:
		k, ok := idx.(String)
		if !ok {
			return x.Get(e.display(idx)), nil
		}
		return x.Get(string(k)), nil
	case FileValue:
		k, ok := idx.(String)
		if !ok {
			return nil, e.errf(n.index, "a file is indexed by a field name in quotes; found %s", kindName(idx))
		}
		return e.member(&memberNode{pos: n.pos, x: n.x, name: string(k)}, x, string(k))
	}
	return nil, e.errf(n, "%s cannot be indexed with [...]", kindName(x))
}

func (e *evaluator) unary(n *unaryNode, x Value) (Value, error) {
	switch n.op {
	case "!":
		return Bool(!Truthy(x)), nil
	case "-":
		switch x := x.(type) {
		case Null:
			return Null{}, nil
		case Number:
			return -x, nil
		case Duration:
			return scaleDuration(x, -1), nil
		}
		return nil, e.errf(n, "cannot negate %s; \"-\" works on numbers and durations", kindName(x))
	case "+":
		switch x := x.(type) {
		case Null, Number:
			return x, nil
		}
		return nil, e.errf(n, "\"+\" before a value works on numbers only, not on %s; use number(...) to convert", kindName(x))
	}
	return nil, e.errf(n, "unknown operator %q", n.op)
}

func (e *evaluator) binary(n *binaryNode) (Value, error) {
	l, err := e.eval(n.l)
	if err != nil {
		return nil, err
	}
	switch n.op {
	case "&&":
		if !Truthy(l) {
			return Bool(false), nil
		}
		r, err := e.eval(n.r)
		if err != nil {
			return nil, err
		}
		return Bool(Truthy(r)), nil
	case "||":
		if Truthy(l) {
			return Bool(true), nil
		}
		r, err := e.eval(n.r)
		if err != nil {
			return nil, err
		}
		return Bool(Truthy(r)), nil
	}
	r, err := e.eval(n.r)
	if err != nil {
		return nil, err
	}
	if v, ok := e.comparison(n.op, l, r); ok {
		return v, nil
	}
	return e.arith(n, n.op, l, r)
}

// comparison applies == != < > <= >=, which never fail; ok is false for
// any other operator.
func (e *evaluator) comparison(op string, l, r Value) (v Bool, ok bool) {
	switch op {
	case "==":
		return Bool(e.equal(l, r)), true
	case "!=":
		return Bool(!e.equal(l, r)), true
	case "<", ">", "<=", ">=":
		c, ok := e.compare(l, r)
		if !ok {
			// Values that have no order between them (a number and
			// text that is not one, anything and null) compare false, as NaN does in
			// JavaScript: a filter such as `price > 2` then drops notes
			// without a price instead of failing.
			return false, true
		}
		switch op {
		case "<":
			return c < 0, true
		case ">":
			return c > 0, true
		case "<=":
			return c <= 0, true
		}
		return c >= 0, true
	}
	return false, false
}

// arith applies + - * / %. Null on either side of a number, date or
// duration operation gives null: a formula such as `price * quantity` is
// then empty for a note without a price rather than 0 or an error. With
// text, "+" joins, and null joins as nothing.
func (e *evaluator) arith(n node, op string, l, r Value) (Value, error) {
	ls, lIsStr := l.(String)
	rs, rIsStr := r.(String)
	if op == "+" || op == "-" {
		// Date arithmetic: a date plus or minus a duration, written as a
		// duration value or as text ("1M", "2 hours").
		if d, ok := l.(Date); ok {
			dur, isDur := r.(Duration)
			if rIsStr {
				var problem string
				dur, isDur, problem = dateOffset(op, string(rs))
				if problem != "" {
					return nil, e.errf(n, "%s", problem)
				}
			}
			if isDur {
				if op == "-" {
					dur = scaleDuration(dur, -1)
				}
				out, ok := addToDate(d, dur)
				if !ok {
					return nil, e.errf(n, "the date is out of range after adding %s", formatDuration(dur))
				}
				return out, nil
			}
			if d2, ok := r.(Date); ok && op == "-" {
				return dateDifference(d, d2), nil
			}
		}
		if d, ok := l.(Duration); ok {
			if dur, ok := e.asDuration(r); ok {
				if op == "-" {
					dur = scaleDuration(dur, -1)
				}
				return addDurations(d, dur), nil
			}
			if d2, ok := r.(Date); ok && op == "+" {
				return e.arith(n, op, d2, d)
			}
		}
	}
	if op == "+" && (lIsStr || rIsStr) {
		a, b := string(ls), string(rs)
		if !lIsStr {
			a = e.display(l)
		}
		if !rIsStr {
			b = e.display(r)
		}
		if err := e.checkString(n, len(a)+len(b)); err != nil {
			return nil, err
		}
		return String(a + b), nil
	}
	if _, ok := l.(Null); ok {
		return Null{}, nil
	}
	if _, ok := r.(Null); ok {
		return Null{}, nil
	}
	if op == "+" {
		if a, ok := l.(List); ok {
			if b, ok := r.(List); ok {
				if err := e.checkList(n, len(a)+len(b)); err != nil {
					return nil, err
				}
				return append(append(List{}, a...), b...), nil
			}
		}
	}
	if d, ok := l.(Duration); ok && (op == "*" || op == "/") {
		// One duration divided by another is how many of the second the
		// first holds: (due - today()) / duration("1d") is a number of days.
		if q, ok := r.(Duration); ok && op == "/" && durationMillis(q) != 0 {
			return Number(durationMillis(d) / durationMillis(q)), nil
		}
		k, ok := r.(Number)
		if !ok {
			return nil, e.errf(n, "a duration can be multiplied or divided by a number only, not by %s", kindName(r))
		}
		if op == "/" {
			if k == 0 {
				return nil, e.errf(n, "cannot divide a duration by zero")
			}
			return scaleDuration(d, 1/float64(k)), nil
		}
		return scaleDuration(d, float64(k)), nil
	}
	a, aok := l.(Number)
	b, bok := r.(Number)
	if !aok || !bok {
		if _, ok := r.(Duration); ok && aok && op == "*" {
			return nil, e.errf(n, "put the duration on the left: duration(\"5h\") * 2, not 2 * duration(\"5h\")")
		}
		_, ld := l.(Duration)
		_, rd := r.(Duration)
		if ld || rd {
			return nil, e.errf(n, "cannot use %q with %s and %s; number(d) is a duration d in milliseconds, and d / duration(\"1d\") in days", op, kindName(l), kindName(r))
		}
		return nil, e.errf(n, "cannot use %q with %s and %s", op, kindName(l), kindName(r))
	}
	switch op {
	case "+":
		return a + b, nil
	case "-":
		return a - b, nil
	case "*":
		return a * b, nil
	case "/":
		return a / b, nil
	case "%":
		return Number(math.Mod(float64(a), float64(b))), nil
	}
	return nil, e.errf(n, "unknown operator %q", op)
}

// asDuration reads a duration from a Duration value or duration text.
func (e *evaluator) asDuration(v Value) (Duration, bool) {
	switch x := v.(type) {
	case Duration:
		return x, true
	case String:
		return parseDuration(string(x))
	}
	return Duration{}, false
}

// equal is `==`. Values of different types are not equal, except where
// Obsidian reads one as the other: a date and text that reads as a date, a
// duration and a number of milliseconds, and links, which equal the file
// they resolve to, another link to the same file, or text naming the same
// file (`author == "[[John]]"`).
func (e *evaluator) equal(a, b Value) bool {
	switch x := a.(type) {
	case Null:
		_, ok := b.(Null)
		return ok
	case Bool:
		y, ok := b.(Bool)
		return ok && x == y
	case Number:
		switch y := b.(type) {
		case Number:
			return x == y
		case Duration:
			return float64(x) == durationMillis(y)
		}
		return false
	case String:
		switch y := b.(type) {
		case String:
			return x == y
		case Date, Link, Rendered:
			return e.equal(b, a)
		}
		return false
	case Date:
		switch y := b.(type) {
		case Date:
			return x.T.Equal(y.T)
		case String:
			d, ok := parseDate(string(y), e.loc())
			return ok && x.T.Equal(d.T)
		}
		return false
	case Duration:
		switch y := b.(type) {
		case Duration:
			return durationMillis(x) == durationMillis(y)
		case Number:
			return durationMillis(x) == float64(y)
		}
		return false
	case List:
		y, ok := b.(List)
		if !ok || len(x) != len(y) {
			return false
		}
		for i := range x {
			if !e.equal(x[i], y[i]) {
				return false
			}
		}
		return true
	case *Object:
		y, ok := b.(*Object)
		if !ok || len(x.Keys) != len(y.Keys) {
			return false
		}
		for _, k := range x.Keys {
			w, ok := y.Fields[k]
			if !ok || !e.equal(x.Fields[k], w) {
				return false
			}
		}
		return true
	case Link:
		switch y := b.(type) {
		case Link:
			return e.linksEqual(x, y)
		case FileValue:
			f, ok := e.resolve(x)
			return ok && f.Path() == y.F.Path()
		case String:
			return e.linksEqual(x, parseLink(string(y), x.From))
		}
		return false
	case FileValue:
		switch y := b.(type) {
		case FileValue:
			return x.F.Path() == y.F.Path()
		case Link:
			return e.equal(b, a)
		}
		return false
	case *Regexp:
		y, ok := b.(*Regexp)
		return ok && x.Source == y.Source && x.Flags == y.Flags
	case Rendered:
		switch y := b.(type) {
		case Rendered:
			return x == y
		case String:
			return x.Text == string(y)
		}
	}
	return false
}

// linksEqual: two links are equal when they resolve to the same file, or,
// when either does not resolve, when their targets are the same text.
func (e *evaluator) linksEqual(a, b Link) bool {
	fa, okA := e.resolve(a)
	fb, okB := e.resolve(b)
	if okA && okB {
		return fa.Path() == fb.Path()
	}
	return linkPath(a.Target) == linkPath(b.Target)
}

// compare orders two values for < > <= >= and sorting: numbers (also
// against text that reads as a number), text, dates (a date against text
// that reads as a date too), durations (also against a number of
// milliseconds) and booleans. ok is false when the values have no order
// between them.
func (e *evaluator) compare(a, b Value) (int, bool) {
	switch x := a.(type) {
	case Number:
		switch y := b.(type) {
		case Number:
			return cmpFloat(float64(x), float64(y))
		case Duration:
			return cmpFloat(float64(x), durationMillis(y))
		case String:
			// Text holding a number compares as that number, as in
			// JavaScript: the Bases syntax page filters on
			// formula.ppu > 5, ppu being (price / age).toFixed(2).
			if f, ok := numberInText(string(y)); ok {
				return cmpFloat(float64(x), f)
			}
		}
	case String:
		switch y := b.(type) {
		case String:
			return strings.Compare(string(x), string(y)), true
		case Date, Number:
			c, ok := e.compare(b, a)
			return -c, ok
		}
	case Date:
		switch y := b.(type) {
		case Date:
			return x.T.Compare(y.T), true
		case String:
			if d, ok := parseDate(string(y), e.loc()); ok {
				return x.T.Compare(d.T), true
			}
		}
	case Duration:
		switch y := b.(type) {
		case Duration:
			return cmpFloat(durationMillis(x), durationMillis(y))
		case Number:
			return cmpFloat(durationMillis(x), float64(y))
		}
	case Bool:
		if y, ok := b.(Bool); ok {
			switch {
			case x == y:
				return 0, true
			case !bool(x):
				return -1, true
			}
			return 1, true
		}
	}
	return 0, false
}

func cmpFloat(a, b float64) (int, bool) {
	switch {
	case math.IsNaN(a) || math.IsNaN(b):
		return 0, false
	case a < b:
		return -1, true
	case a > b:
		return 1, true
	}
	return 0, true
}

// display is a value as text, for toString(), joining with "+" and join():
// null is empty, numbers as JavaScript prints them, dates as
// "YYYY-MM-DD" or "YYYY-MM-DD HH:mm:ss", lists as their items joined by
// ", ", links as their display text or target, files as their path.
func (e *evaluator) display(v Value) string {
	return Display(v)
}

// Display is a value as text; see evaluator.display.
func Display(v Value) string {
	switch x := v.(type) {
	case nil, Null:
		return ""
	case Bool:
		return strconv.FormatBool(bool(x))
	case Number:
		return FormatNumber(float64(x))
	case String:
		return string(x)
	case Date:
		if x.HasTime {
			if x.T.Nanosecond() != 0 {
				return x.T.Format("2006-01-02 15:04:05.000")
			}
			return x.T.Format("2006-01-02 15:04:05")
		}
		return x.T.Format("2006-01-02")
	case Duration:
		return formatDuration(x)
	case List:
		parts := make([]string, len(x))
		for i, el := range x {
			parts[i] = Display(el)
		}
		return strings.Join(parts, ", ")
	case *Object:
		b, err := json.Marshal(ToAny(x))
		if err != nil {
			return "{}"
		}
		return string(b)
	case Link:
		if x.Display != "" {
			return x.Display
		}
		return x.Target
	case FileValue:
		return x.F.Path()
	case *Regexp:
		return "/" + x.Source + "/" + x.Flags
	case Rendered:
		return x.Text
	}
	return ""
}

// ToAny turns a value into plain Go data for JSON: nil, bool, float64,
// string, []any and map[string]any. Dates become their display text, links
// "[[Target|Display]]", files their path, numbers that JSON cannot hold
// (NaN, infinities) their text.
func ToAny(v Value) any {
	switch x := v.(type) {
	case nil, Null:
		return nil
	case Bool:
		return bool(x)
	case Number:
		f := float64(x)
		if math.IsNaN(f) || math.IsInf(f, 0) {
			return FormatNumber(f)
		}
		return f
	case List:
		out := make([]any, len(x))
		for i, el := range x {
			out[i] = ToAny(el)
		}
		return out
	case *Object:
		out := make(map[string]any, len(x.Keys))
		for _, k := range x.Keys {
			out[k] = ToAny(x.Fields[k])
		}
		return out
	case Link:
		if isExternal(x.Target) {
			return x.Target
		}
		if x.Display != "" {
			return "[[" + x.Target + "|" + x.Display + "]]"
		}
		return "[[" + x.Target + "]]"
	}
	return Display(v)
}

package bases

import (
	"fmt"
	"math"
	"math/big"
	"math/rand/v2"
	"sort"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/jarvis-mcp/jarvis/internal/periodic"
)

// fn is a function of Bases: recv is the value before the dot (nil for a
// global function), args are the evaluated arguments.
type fn func(e *evaluator, n *callNode, recv Value, args []Value) (Value, error)

// spec is a function with the number of arguments it takes (max -1: any).
type spec struct {
	min, max int
	f        fn
}

var (
	globals map[string]spec
	methods map[Kind]map[string]spec
	// anyMethods work on every value, null included.
	anyMethods map[string]spec
	// lambdas are the list functions whose first argument is evaluated
	// once per item, with `value` and `index` (and `acc`) in scope.
	lambdas = map[string]bool{"filter": true, "map": true, "reduce": true}
)

func init() {
	globals = map[string]spec{
		"date":       {1, 1, fnDate},
		"duration":   {1, 1, fnDuration},
		"now":        {0, 0, fnNow},
		"today":      {0, 0, fnToday},
		"link":       {1, 2, fnLink},
		"list":       {1, 1, fnList},
		"number":     {1, 1, fnNumber},
		"max":        {1, -1, fnMax},
		"min":        {1, -1, fnMin},
		"file":       {1, 1, fnFile},
		"image":      {1, 1, rendered(KindImage)},
		"icon":       {1, 1, rendered(KindIcon)},
		"html":       {1, 1, rendered(KindHTML)},
		"escapeHTML": {1, 1, fnEscapeHTML},
		"random":     {0, 0, fnRandom},
		// "if" is evaluated lazily in call.
	}
	anyMethods = map[string]spec{
		"isTruthy": {0, 0, func(_ *evaluator, _ *callNode, v Value, _ []Value) (Value, error) { return Bool(Truthy(v)), nil }},
		"isType":   {1, 1, mIsType},
		"toString": {0, 0, func(e *evaluator, n *callNode, v Value, _ []Value) (Value, error) { return e.text(n, Display(v)) }},
		"isEmpty":  {0, 0, func(_ *evaluator, _ *callNode, v Value, _ []Value) (Value, error) { return Bool(IsEmpty(v)), nil }},
	}
	methods = map[Kind]map[string]spec{
		KindDate: {
			"date":   {0, 0, mDateDate},
			"format": {1, 1, mDateFormat},
			"time": {0, 0, func(_ *evaluator, _ *callNode, v Value, _ []Value) (Value, error) {
				return String(v.(Date).T.Format("15:04:05")), nil
			}},
			"relative": {0, 0, func(e *evaluator, _ *callNode, v Value, _ []Value) (Value, error) {
				return String(relativeTime(v.(Date).T, e.now())), nil
			}},
		},
		KindString: {
			"contains":    {1, 1, mStrContains},
			"containsAll": {1, -1, mStrContainsAll},
			"containsAny": {1, -1, mStrContainsAny},
			"startsWith":  {1, 1, mStrStartsWith},
			"endsWith":    {1, 1, mStrEndsWith},
			"lower": {0, 0, func(_ *evaluator, _ *callNode, v Value, _ []Value) (Value, error) {
				return String(strings.ToLower(string(v.(String)))), nil
			}},
			"title": {0, 0, mStrTitle},
			"trim": {0, 0, func(_ *evaluator, _ *callNode, v Value, _ []Value) (Value, error) {
				return String(strings.TrimSpace(string(v.(String)))), nil
			}},
			"replace": {2, 2, mStrReplace},
			"repeat":  {1, 1, mStrRepeat},
			"reverse": {0, 0, mStrReverse},
			"slice":   {1, 2, mStrSlice},
			"split":   {1, 2, mStrSplit},
		},
		KindNumber: {
			"abs":     {0, 0, numFn(math.Abs)},
			"ceil":    {0, 0, numFn(math.Ceil)},
			"floor":   {0, 0, numFn(math.Floor)},
			"round":   {0, 1, mNumRound},
			"toFixed": {1, 1, mNumToFixed},
		},
		KindList: {
			"contains":    {1, 1, mListContains},
			"containsAll": {1, -1, mListContainsAll},
			"containsAny": {1, -1, mListContainsAny},
			"flat":        {0, 0, mListFlat},
			"join":        {1, 1, mListJoin},
			"reverse":     {0, 0, mListReverse},
			"slice":       {1, 2, mListSlice},
			"sort":        {0, 0, mListSort},
			"unique":      {0, 0, mListUnique},
			// The aggregates the Average, Sum ... summaries use, so that
			// a custom summary such as values.mean().round(3) can too.
			"mean":   {0, 0, aggregate(SummaryAverage)},
			"sum":    {0, 0, aggregate(SummarySum)},
			"min":    {0, 0, aggregate(SummaryMin)},
			"max":    {0, 0, aggregate(SummaryMax)},
			"median": {0, 0, aggregate(SummaryMedian)},
			"stddev": {0, 0, aggregate(SummaryStddev)},
		},
		KindLink: {
			"asFile":  {0, 0, mLinkAsFile},
			"linksTo": {1, 1, mLinkLinksTo},
		},
		KindFile: {
			"asLink":      {0, 1, mFileAsLink},
			"hasLink":     {1, 1, mFileHasLink},
			"hasProperty": {1, 1, mFileHasProperty},
			"hasTag":      {1, -1, mFileHasTag},
			"inFolder":    {1, 1, mFileInFolder},
		},
		KindObject: {
			"keys":   {0, 0, mObjKeys},
			"values": {0, 0, mObjValues},
		},
		KindRegexp: {
			"matches": {1, 1, mRegexpMatches},
		},
	}
}

// isMethodName says whether any type has a function by this name.
func isMethodName(name string) bool {
	if _, ok := anyMethods[name]; ok || lambdas[name] {
		return true
	}
	for _, m := range methods {
		if _, ok := m[name]; ok {
			return true
		}
	}
	return false
}

func plural(n int, one, many string) string {
	if n == 1 {
		return fmt.Sprintf("%d %s", n, one)
	}
	return fmt.Sprintf("%d %s", n, many)
}

func (e *evaluator) checkArity(n *callNode, name string, s spec) error {
	got := len(n.args)
	if got >= s.min && (s.max < 0 || got <= s.max) {
		return nil
	}
	var want string
	switch {
	case s.max < 0:
		want = "at least " + plural(s.min, "argument", "arguments")
	case s.min == s.max:
		want = plural(s.min, "argument", "arguments")
	default:
		want = fmt.Sprintf("%d to %d arguments", s.min, s.max)
	}
	if s.max == 0 {
		want = "no arguments"
	}
	return e.errf(n, "%s() takes %s, got %d", name, want, got)
}

func (e *evaluator) call(n *callNode) (Value, error) {
	switch fnNode := n.fn.(type) {
	case *identNode:
		name := fnNode.name
		if name == "if" {
			if err := e.checkArity(n, "if", spec{2, 3, nil}); err != nil {
				return nil, err
			}
			c, err := e.eval(n.args[0])
			if err != nil {
				return nil, err
			}
			if Truthy(c) {
				return e.eval(n.args[1])
			}
			if len(n.args) == 3 {
				return e.eval(n.args[2])
			}
			return Null{}, nil
		}
		s, ok := globals[name]
		if !ok {
			if isMethodName(name) {
				return nil, e.errf(n, "%s() is called on a value, as in x.%s(...)", name, name)
			}
			return nil, e.errf(n, "unknown function %s()", name)
		}
		if err := e.checkArity(n, name, s); err != nil {
			return nil, err
		}
		args, err := e.args(n)
		if err != nil {
			return nil, err
		}
		return s.f(e, n, nil, args)
	case *memberNode:
		name := fnNode.name
		recv, err := e.eval(fnNode.x)
		if err != nil {
			return nil, err
		}
		if lambdas[name] {
			if l, ok := recv.(List); ok {
				return e.lambda(n, name, l)
			}
		}
		s, ok := methods[recv.Kind()][name]
		if !ok {
			s, ok = anyMethods[name]
		}
		if !ok {
			if _, isNull := recv.(Null); isNull && isMethodName(name) {
				// A function called on a missing property gives null,
				// so that `price.toFixed(2)` is empty for a note
				// without a price instead of failing the whole view.
				return Null{}, nil
			}
			if isMethodName(name) {
				return nil, e.errf(n, "%s() does not work on %s", name, kindName(recv))
			}
			return nil, e.errf(n, "unknown function %s()", name)
		}
		if err := e.checkArity(n, name, s); err != nil {
			return nil, err
		}
		args, err := e.args(n)
		if err != nil {
			return nil, err
		}
		return s.f(e, n, recv, args)
	}
	return nil, e.errf(n, "only a function name can be called with (...)")
}

func (e *evaluator) args(n *callNode) ([]Value, error) {
	out := make([]Value, len(n.args))
	for i, a := range n.args {
		v, err := e.eval(a)
		if err != nil {
			return nil, err
		}
		out[i] = v
	}
	return out, nil
}

func (e *evaluator) argNode(n *callNode, i int) node {
	if i < len(n.args) {
		return n.args[i]
	}
	return n
}

func fnName(n *callNode) string {
	switch f := n.fn.(type) {
	case *identNode:
		return f.name
	case *memberNode:
		return f.name
	}
	return "function"
}

// str reads argument i as text. Numbers, booleans, dates and links are
// turned into their text, as JavaScript would; null and lists are refused.
func (e *evaluator) str(n *callNode, args []Value, i int) (string, error) {
	switch v := args[i].(type) {
	case String:
		return string(v), nil
	case Number, Bool, Date, Link, Rendered, Duration:
		return Display(v), nil
	}
	return "", e.errf(e.argNode(n, i), "%s() expects text here, got %s", fnName(n), kindName(args[i]))
}

func (e *evaluator) num(n *callNode, args []Value, i int) (float64, error) {
	if v, ok := args[i].(Number); ok {
		return float64(v), nil
	}
	return 0, e.errf(e.argNode(n, i), "%s() expects a number here, got %s", fnName(n), kindName(args[i]))
}

// intArg reads argument i as a whole number within [lo, hi].
func (e *evaluator) intArg(n *callNode, args []Value, i int, lo, hi float64) (int, error) {
	f, err := e.num(n, args, i)
	if err != nil {
		return 0, err
	}
	if math.IsNaN(f) || f < lo || f > hi {
		return 0, e.errf(e.argNode(n, i), "%s() expects a number from %s to %s here, got %s", fnName(n), FormatNumber(lo), FormatNumber(hi), FormatNumber(f))
	}
	return int(math.Trunc(f)), nil
}

func (e *evaluator) text(n node, s string) (Value, error) {
	if err := e.checkString(n, len(s)); err != nil {
		return nil, err
	}
	return String(s), nil
}

// Global functions.

func fnDate(e *evaluator, n *callNode, _ Value, args []Value) (Value, error) {
	switch v := args[0].(type) {
	case Null:
		return Null{}, nil
	case Date:
		return v, nil
	case Number:
		return Date{T: time.UnixMilli(int64(v)).In(e.loc()), HasTime: true}, nil
	case Link, String:
		s := Display(v)
		if d, ok := parseDate(s, e.loc()); ok {
			return d, nil
		}
		return nil, e.errf(n.args[0], "date() cannot read %q as a date; write it as YYYY-MM-DD or YYYY-MM-DD HH:mm:ss", s)
	}
	return nil, e.errf(n.args[0], "date() expects text such as \"2025-01-31\", got %s", kindName(args[0]))
}

func fnDuration(e *evaluator, n *callNode, _ Value, args []Value) (Value, error) {
	switch v := args[0].(type) {
	case Null:
		return Null{}, nil
	case Duration:
		return v, nil
	case Number:
		return Duration{Millis: float64(v)}, nil
	case String:
		if d, ok := parseDuration(string(v)); ok {
			return d, nil
		}
		return nil, e.errf(n.args[0], "duration() cannot read %q; write a number and a unit, as in \"1d\", \"2 weeks\" or \"3h\"", string(v))
	}
	return nil, e.errf(n.args[0], "duration() expects text such as \"1d\", got %s", kindName(args[0]))
}

func fnNow(e *evaluator, _ *callNode, _ Value, _ []Value) (Value, error) {
	return Date{T: e.now().In(e.loc()), HasTime: true}, nil
}

func fnToday(e *evaluator, _ *callNode, _ Value, _ []Value) (Value, error) {
	t := e.now().In(e.loc())
	return Date{T: time.Date(t.Year(), t.Month(), t.Day(), 0, 0, 0, 0, e.loc())}, nil
}

func fnLink(e *evaluator, n *callNode, _ Value, args []Value) (Value, error) {
	from := ""
	if e.file != nil {
		from = e.file.Path()
	}
	var l Link
	switch v := args[0].(type) {
	case String:
		l = parseLink(string(v), from)
	case Link:
		l = v
	case FileValue:
		l = Link{Target: v.F.Path(), From: from}
	case Null:
		return Null{}, nil
	default:
		s, err := e.str(n, args, 0)
		if err != nil {
			return nil, err
		}
		l = Link{Target: s, From: from}
	}
	if len(args) == 2 {
		l.Display = Display(args[1])
	}
	return l, nil
}

// fnList wraps a single value in a list. null gives an empty list: a note
// without the property has no items, which is what list(tags).length
// should say.
func fnList(_ *evaluator, _ *callNode, _ Value, args []Value) (Value, error) {
	switch v := args[0].(type) {
	case List:
		return v, nil
	case Null:
		return List{}, nil
	}
	return List{args[0]}, nil
}

func fnNumber(e *evaluator, n *callNode, _ Value, args []Value) (Value, error) {
	switch v := args[0].(type) {
	case Number:
		return v, nil
	case Null:
		return Null{}, nil
	case Bool:
		if v {
			return Number(1), nil
		}
		return Number(0), nil
	case Date:
		return Number(v.T.UnixMilli()), nil
	case Duration:
		return Number(durationMillis(v)), nil
	case String:
		s := strings.TrimSpace(string(v))
		if f, err := strconv.ParseFloat(s, 64); err == nil && s != "" && !strings.ContainsAny(s, "_xXpP") {
			return Number(f), nil
		}
		return nil, e.errf(n.args[0], "number() cannot read %q as a number", string(v))
	}
	return nil, e.errf(n.args[0], "number() cannot turn %s into a number", kindName(args[0]))
}

func extreme(e *evaluator, n *callNode, args []Value, better func(a, b float64) bool) (Value, error) {
	var best Value = Null{}
	for i, a := range args {
		switch v := a.(type) {
		case Null:
			continue
		case Number:
			if b, ok := best.(Number); !ok || better(float64(v), float64(b)) || math.IsNaN(float64(v)) {
				best = v
			}
		default:
			return nil, e.errf(e.argNode(n, i), "%s() expects numbers, got %s", fnName(n), kindName(a))
		}
	}
	return best, nil
}

func fnMax(e *evaluator, n *callNode, _ Value, args []Value) (Value, error) {
	return extreme(e, n, args, func(a, b float64) bool { return a > b })
}

func fnMin(e *evaluator, n *callNode, _ Value, args []Value) (Value, error) {
	return extreme(e, n, args, func(a, b float64) bool { return a < b })
}

func fnFile(e *evaluator, n *callNode, _ Value, args []Value) (Value, error) {
	from := ""
	if e.file != nil {
		from = e.file.Path()
	}
	var l Link
	switch v := args[0].(type) {
	case FileValue:
		return FileValue{F: v.F}, nil
	case Null:
		return Null{}, nil
	case Link:
		l = v
	case String:
		l = parseLink(string(v), from)
	default:
		return nil, e.errf(n.args[0], "file() expects a path or a link, got %s", kindName(args[0]))
	}
	if f, ok := e.resolve(l); ok {
		return FileValue{F: f}, nil
	}
	return Null{}, nil
}

func rendered(k Kind) fn {
	return func(e *evaluator, n *callNode, _ Value, args []Value) (Value, error) {
		if _, ok := args[0].(Null); ok {
			return Null{}, nil
		}
		return Rendered{K: k, Text: Display(args[0])}, nil
	}
}

var htmlEscaper = strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", `"`, "&quot;", "'", "&#39;")

func fnEscapeHTML(e *evaluator, n *callNode, _ Value, args []Value) (Value, error) {
	s, err := e.str(n, args, 0)
	if err != nil {
		return nil, err
	}
	return e.text(n, htmlEscaper.Replace(s))
}

func fnRandom(e *evaluator, _ *callNode, _ Value, _ []Value) (Value, error) {
	if e.env.Random != nil {
		return Number(e.env.Random()), nil
	}
	return Number(rand.Float64()), nil
}

// Any type.

// typeNames are the names isType() accepts for each kind; "array" is the
// JavaScript word for a list.
var typeNames = map[string]Kind{
	"null": KindNull, "boolean": KindBoolean, "number": KindNumber, "string": KindString,
	"date": KindDate, "duration": KindDuration, "list": KindList, "array": KindList,
	"object": KindObject, "link": KindLink, "file": KindFile, "regexp": KindRegexp,
	"image": KindImage, "icon": KindIcon, "html": KindHTML,
}

func mIsType(e *evaluator, n *callNode, v Value, args []Value) (Value, error) {
	s, err := e.str(n, args, 0)
	if err != nil {
		return nil, err
	}
	k, ok := typeNames[strings.ToLower(s)]
	if !ok {
		return nil, e.errf(n.args[0], "isType() does not know the type %q (types: boolean, date, duration, file, link, list, null, number, object, regexp, string)", s)
	}
	return Bool(v.Kind() == k), nil
}

// Date type.

func mDateDate(e *evaluator, _ *callNode, v Value, _ []Value) (Value, error) {
	t := v.(Date).T
	return Date{T: time.Date(t.Year(), t.Month(), t.Day(), 0, 0, 0, 0, t.Location())}, nil
}

// mDateFormat formats with periodic's Moment.js layout, the one formatter
// periodic notes are named with too.
func mDateFormat(e *evaluator, n *callNode, v Value, args []Value) (Value, error) {
	s, err := e.str(n, args, 0)
	if err != nil {
		return nil, err
	}
	if err := e.checkString(n, len(s)*8); err != nil {
		return nil, err
	}
	return e.text(n, periodic.ParseLayout(s).Format(v.(Date).T))
}

// String type.

func mStrContains(e *evaluator, n *callNode, v Value, args []Value) (Value, error) {
	s, err := e.str(n, args, 0)
	if err != nil {
		return nil, err
	}
	return Bool(strings.Contains(string(v.(String)), s)), nil
}

func strAllAny(e *evaluator, n *callNode, v Value, args []Value, all bool) (Value, error) {
	for i := range args {
		s, err := e.str(n, args, i)
		if err != nil {
			return nil, err
		}
		has := strings.Contains(string(v.(String)), s)
		if has != all {
			return Bool(has), nil
		}
	}
	return Bool(all), nil
}

func mStrContainsAll(e *evaluator, n *callNode, v Value, args []Value) (Value, error) {
	return strAllAny(e, n, v, args, true)
}

func mStrContainsAny(e *evaluator, n *callNode, v Value, args []Value) (Value, error) {
	return strAllAny(e, n, v, args, false)
}

func mStrStartsWith(e *evaluator, n *callNode, v Value, args []Value) (Value, error) {
	s, err := e.str(n, args, 0)
	if err != nil {
		return nil, err
	}
	return Bool(strings.HasPrefix(string(v.(String)), s)), nil
}

func mStrEndsWith(e *evaluator, n *callNode, v Value, args []Value) (Value, error) {
	s, err := e.str(n, args, 0)
	if err != nil {
		return nil, err
	}
	return Bool(strings.HasSuffix(string(v.(String)), s)), nil
}

// mStrTitle capitalises the first letter of each word and leaves the rest
// as written ("hello wORLD" gives "Hello WORLD").
func mStrTitle(_ *evaluator, _ *callNode, v Value, _ []Value) (Value, error) {
	rs := []rune(string(v.(String)))
	start := true
	for i, r := range rs {
		if unicode.IsSpace(r) {
			start = true
			continue
		}
		if start {
			rs[i] = unicode.ToUpper(r)
		}
		start = false
	}
	return String(rs), nil
}

func mStrReplace(e *evaluator, n *callNode, v Value, args []Value) (Value, error) {
	s := string(v.(String))
	repl, err := e.str(n, args, 1)
	if err != nil {
		return nil, err
	}
	var out string
	switch p := args[0].(type) {
	case *Regexp:
		limit := 1
		if p.global() {
			limit = -1
		}
		matches := p.re.FindAllStringSubmatchIndex(s, limit)
		var b strings.Builder
		last := 0
		for _, m := range matches {
			b.WriteString(s[last:m[0]])
			b.WriteString(expandJS(repl, s, p.re, m))
			last = m[1]
			if b.Len() > maxString {
				return nil, e.checkString(n, b.Len())
			}
		}
		b.WriteString(s[last:])
		out = b.String()
	default:
		pat, err := e.str(n, args, 0)
		if err != nil {
			return nil, err
		}
		if c := strings.Count(s, pat); c > 0 {
			if err := e.checkString(n, len(s)+c*len(repl)); err != nil {
				return nil, err
			}
		}
		out = strings.ReplaceAll(s, pat, repl)
	}
	return e.text(n, out)
}

func mStrRepeat(e *evaluator, n *callNode, v Value, args []Value) (Value, error) {
	s := string(v.(String))
	k, err := e.intArg(n, args, 0, 0, maxString)
	if err != nil {
		return nil, err
	}
	if err := e.checkString(n, len(s)*k); err != nil {
		return nil, err
	}
	return String(strings.Repeat(s, k)), nil
}

func mStrReverse(_ *evaluator, _ *callNode, v Value, _ []Value) (Value, error) {
	rs := []rune(string(v.(String)))
	for i, j := 0, len(rs)-1; i < j; i, j = i+1, j-1 {
		rs[i], rs[j] = rs[j], rs[i]
	}
	return String(rs), nil
}

// sliceBounds applies JavaScript's slice(start, end) rules to a length:
// negative positions count from the end, and both are clamped.
func (e *evaluator) sliceBounds(n *callNode, args []Value, length int) (int, int, error) {
	clamp := func(f float64) int {
		if math.IsNaN(f) {
			return 0
		}
		f = math.Trunc(f)
		if f < 0 {
			f += float64(length)
			if f < 0 {
				f = 0
			}
		}
		if f > float64(length) {
			f = float64(length)
		}
		return int(f)
	}
	s, err := e.num(n, args, 0)
	if err != nil {
		return 0, 0, err
	}
	start, end := clamp(s), length
	if len(args) > 1 {
		if _, isNull := args[1].(Null); !isNull {
			en, err := e.num(n, args, 1)
			if err != nil {
				return 0, 0, err
			}
			end = clamp(en)
		}
	}
	if end < start {
		end = start
	}
	return start, end, nil
}

func mStrSlice(e *evaluator, n *callNode, v Value, args []Value) (Value, error) {
	rs := []rune(string(v.(String)))
	start, end, err := e.sliceBounds(n, args, len(rs))
	if err != nil {
		return nil, err
	}
	return String(rs[start:end]), nil
}

func mStrSplit(e *evaluator, n *callNode, v Value, args []Value) (Value, error) {
	s := string(v.(String))
	limit := -1
	if len(args) > 1 {
		k, err := e.intArg(n, args, 1, 0, maxList)
		if err != nil {
			return nil, err
		}
		limit = k
	}
	var parts []string
	switch p := args[0].(type) {
	case *Regexp:
		if s == "" {
			if p.re.MatchString("") {
				parts = []string{}
			} else {
				parts = []string{""}
			}
			break
		}
		if p.re.MatchString("") {
			parts = splitChars(s, maxList+1)
			break
		}
		parts = p.re.Split(s, maxList+1)
	default:
		sep, err := e.str(n, args, 0)
		if err != nil {
			return nil, err
		}
		if sep == "" {
			parts = splitChars(s, maxList+1)
		} else {
			parts = strings.SplitN(s, sep, maxList+1)
		}
	}
	if limit >= 0 && len(parts) > limit {
		parts = parts[:limit]
	}
	if err := e.checkList(n, len(parts)); err != nil {
		return nil, err
	}
	out := make(List, len(parts))
	for i, p := range parts {
		out[i] = String(p)
	}
	return out, nil
}

func splitChars(s string, max int) []string {
	var out []string
	for len(s) > 0 && len(out) < max {
		_, size := utf8.DecodeRuneInString(s)
		out = append(out, s[:size])
		s = s[size:]
	}
	return out
}

// Number type.

func numFn(f func(float64) float64) fn {
	return func(_ *evaluator, _ *callNode, v Value, _ []Value) (Value, error) {
		return Number(f(float64(v.(Number)))), nil
	}
}

// jsRound is JavaScript's Math.round: halves go up, towards +Infinity.
func jsRound(x float64) float64 {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return x
	}
	r := math.Floor(x)
	if x-r >= 0.5 {
		r++
	}
	return r
}

func mNumRound(e *evaluator, n *callNode, v Value, args []Value) (Value, error) {
	x := float64(v.(Number))
	if len(args) == 0 {
		return Number(jsRound(x)), nil
	}
	d, err := e.intArg(n, args, 0, 0, 100)
	if err != nil {
		return nil, err
	}
	p := math.Pow(10, float64(d))
	if math.IsInf(x*p, 0) {
		return Number(x), nil
	}
	return Number(jsRound(x*p) / p), nil
}

// mNumToFixed is JavaScript's toFixed: the exact decimal value of the number
// rounded to the given places, a tie going away from zero.
func mNumToFixed(e *evaluator, n *callNode, v Value, args []Value) (Value, error) {
	x := float64(v.(Number))
	p, err := e.intArg(n, args, 0, 0, 100)
	if err != nil {
		return nil, err
	}
	if math.IsNaN(x) || math.IsInf(x, 0) || math.Abs(x) >= 1e21 {
		return String(FormatNumber(x)), nil
	}
	return String(toFixed(x, p)), nil
}

func toFixed(x float64, places int) string {
	neg := x < 0
	exact := new(big.Float).SetFloat64(math.Abs(x)).Text('f', 1100)
	intPart, frac, _ := strings.Cut(exact, ".")
	frac += strings.Repeat("0", places+1)
	digits := []byte(intPart + frac[:places])
	if frac[places] >= '5' {
		i := len(digits) - 1
		for ; i >= 0; i-- {
			if digits[i] == '9' {
				digits[i] = '0'
				continue
			}
			digits[i]++
			break
		}
		if i < 0 {
			digits = append([]byte{'1'}, digits...)
		}
	}
	ip := string(digits[:len(digits)-places])
	out := ip
	if places > 0 {
		out += "." + string(digits[len(digits)-places:])
	}
	if neg && strings.Trim(out, "0.") != "" {
		out = "-" + out
	}
	return out
}

// List type.

func (e *evaluator) contains(l List, v Value) bool {
	for _, el := range l {
		if e.equal(el, v) {
			return true
		}
	}
	return false
}

func mListContains(e *evaluator, _ *callNode, v Value, args []Value) (Value, error) {
	return Bool(e.contains(v.(List), args[0])), nil
}

func mListContainsAll(e *evaluator, _ *callNode, v Value, args []Value) (Value, error) {
	for _, a := range args {
		if !e.contains(v.(List), a) {
			return Bool(false), nil
		}
	}
	return Bool(true), nil
}

func mListContainsAny(e *evaluator, _ *callNode, v Value, args []Value) (Value, error) {
	for _, a := range args {
		if e.contains(v.(List), a) {
			return Bool(true), nil
		}
	}
	return Bool(false), nil
}

// mListFlat flattens one level, as JavaScript's flat() does by default.
func mListFlat(e *evaluator, n *callNode, v Value, _ []Value) (Value, error) {
	size := 0
	for _, el := range v.(List) {
		if sub, ok := el.(List); ok {
			size += len(sub)
		} else {
			size++
		}
	}
	if err := e.checkList(n, size); err != nil {
		return nil, err
	}
	out := make(List, 0, size)
	for _, el := range v.(List) {
		if sub, ok := el.(List); ok {
			out = append(out, sub...)
		} else {
			out = append(out, el)
		}
	}
	return out, nil
}

func mListJoin(e *evaluator, n *callNode, v Value, args []Value) (Value, error) {
	sep, err := e.str(n, args, 0)
	if err != nil {
		return nil, err
	}
	l := v.(List)
	parts := make([]string, len(l))
	size := 0
	for i, el := range l {
		parts[i] = Display(el)
		size += len(parts[i]) + len(sep)
		if size > maxString {
			return nil, e.checkString(n, size)
		}
	}
	if err := e.checkString(n, size); err != nil {
		return nil, err
	}
	return String(strings.Join(parts, sep)), nil
}

func mListReverse(e *evaluator, n *callNode, v Value, _ []Value) (Value, error) {
	l := v.(List)
	if err := e.checkList(n, len(l)); err != nil {
		return nil, err
	}
	out := make(List, len(l))
	for i, el := range l {
		out[len(l)-1-i] = el
	}
	return out, nil
}

func mListSlice(e *evaluator, n *callNode, v Value, args []Value) (Value, error) {
	l := v.(List)
	start, end, err := e.sliceBounds(n, args, len(l))
	if err != nil {
		return nil, err
	}
	return append(List{}, l[start:end]...), nil
}

// kindRank orders values of different kinds when sorting a mixed list:
// null first, then booleans, numbers, dates, durations, text and the rest.
var kindRank = map[Kind]int{KindNull: 0, KindBoolean: 1, KindNumber: 2, KindDate: 3, KindDuration: 4, KindString: 5}

// Order is the order of sort(), for a view's sort to use too: values of one
// kind by their natural order (numbers by size, text alphabetically, dates
// by time), values of different kinds by kindRank, then by their text. It
// returns a negative number when a comes first, 0 when neither does.
func Order(env *Env, a, b Value) int {
	if env == nil {
		env = &Env{}
	}
	return (&evaluator{env: env}).order(a, b)
}

func (e *evaluator) order(a, b Value) int {
	if c, ok := e.compare(a, b); ok && a.Kind() == b.Kind() {
		return c
	}
	ra, oka := kindRank[a.Kind()]
	rb, okb := kindRank[b.Kind()]
	if !oka {
		ra = 9
	}
	if !okb {
		rb = 9
	}
	if ra != rb {
		return ra - rb
	}
	return strings.Compare(Display(a), Display(b))
}

func mListSort(e *evaluator, n *callNode, v Value, _ []Value) (Value, error) {
	l := v.(List)
	if err := e.checkList(n, len(l)); err != nil {
		return nil, err
	}
	out := append(List{}, l...)
	sort.SliceStable(out, func(i, j int) bool { return e.order(out[i], out[j]) < 0 })
	return out, nil
}

func mListUnique(e *evaluator, n *callNode, v Value, _ []Value) (Value, error) {
	l := v.(List)
	seen := make(map[string]bool, len(l))
	var out List
	for _, el := range l {
		k := e.identity(el)
		if !seen[k] {
			seen[k] = true
			out = append(out, el)
		}
	}
	if out == nil {
		out = List{}
	}
	return out, nil
}

// identity is a key under which equal values (by `==`) meet, for unique()
// and the Unique summary: a link and the file it resolves to share one.
func (e *evaluator) identity(v Value) string {
	switch x := v.(type) {
	case Null:
		return "null"
	case Bool, Number:
		return string(v.Kind()) + ":" + Display(v)
	case String:
		if d, ok := parseDate(string(x), e.loc()); ok {
			return "date:" + strconv.FormatInt(d.T.UnixNano(), 10)
		}
		return "string:" + string(x)
	case Date:
		return "date:" + strconv.FormatInt(x.T.UnixNano(), 10)
	case Duration:
		return "number:" + FormatNumber(durationMillis(x))
	case Link:
		if f, ok := e.resolve(x); ok {
			return "file:" + f.Path()
		}
		return "link:" + linkPath(x.Target)
	case FileValue:
		return "file:" + x.F.Path()
	case List:
		parts := make([]string, len(x))
		for i, el := range x {
			parts[i] = strconv.Quote(e.identity(el))
		}
		return "list:[" + strings.Join(parts, ",") + "]"
	case *Object:
		parts := make([]string, len(x.Keys))
		keys := append([]string{}, x.Keys...)
		sort.Strings(keys)
		for i, k := range keys {
			parts[i] = strconv.Quote(k) + ":" + strconv.Quote(e.identity(x.Fields[k]))
		}
		return "object:{" + strings.Join(parts, ",") + "}"
	}
	return string(v.Kind()) + ":" + Display(v)
}

// lambda runs filter, map and reduce: the expression argument is evaluated
// for each item with `value` and `index` (and, for reduce, `acc`) in scope.
func (e *evaluator) lambda(n *callNode, name string, l List) (Value, error) {
	want := spec{1, 1, nil}
	if name == "reduce" {
		want = spec{2, 2, nil}
	}
	if err := e.checkArity(n, name, want); err != nil {
		return nil, err
	}
	frame := map[string]Value{}
	e.locals = append(e.locals, frame)
	defer func() { e.locals = e.locals[:len(e.locals)-1] }()
	var acc Value
	if name == "reduce" {
		// The initial value is evaluated outside the items' scope.
		e.locals = e.locals[:len(e.locals)-1]
		v, err := e.eval(n.args[1])
		e.locals = append(e.locals, frame)
		if err != nil {
			return nil, err
		}
		acc = v
	}
	var out List
	for i, el := range l {
		frame["value"] = el
		frame["index"] = Number(i)
		if name == "reduce" {
			frame["acc"] = acc
		}
		v, err := e.eval(n.args[0])
		if err != nil {
			return nil, err
		}
		switch name {
		case "filter":
			if Truthy(v) {
				out = append(out, el)
			}
		case "map":
			out = append(out, v)
		case "reduce":
			acc = v
		}
	}
	if name == "reduce" {
		return acc, nil
	}
	if out == nil {
		out = List{}
	}
	return out, e.checkList(n, len(out))
}

func aggregate(s Summary) fn {
	return func(e *evaluator, _ *callNode, v Value, _ []Value) (Value, error) {
		return e.summarize(s, v.(List)), nil
	}
}

// Link type.

func mLinkAsFile(e *evaluator, _ *callNode, v Value, _ []Value) (Value, error) {
	if f, ok := e.resolve(v.(Link)); ok {
		return FileValue{F: f}, nil
	}
	return Null{}, nil
}

func mLinkLinksTo(e *evaluator, n *callNode, v Value, args []Value) (Value, error) {
	f, ok := e.resolve(v.(Link))
	if !ok {
		return Bool(false), nil
	}
	return e.hasLink(n, f, args[0])
}

// File type.

func mFileAsLink(e *evaluator, _ *callNode, v Value, args []Value) (Value, error) {
	l := Link{Target: v.(FileValue).F.Path()}
	if len(args) == 1 {
		l.Display = Display(args[0])
	}
	return l, nil
}

func mFileHasLink(e *evaluator, n *callNode, v Value, args []Value) (Value, error) {
	return e.hasLink(n, v.(FileValue).F, args[0])
}

// hasLink says whether f links to target (a file, a link, or a path or link
// as text): one of f's links resolves to the same file, or, when the target
// does not resolve, has the same text. It is file.hasLink and link.linksTo.
func (e *evaluator) hasLink(n *callNode, f File, target Value) (Value, error) {
	var want Value
	switch t := target.(type) {
	case FileValue:
		want = FileValue{F: t.F}
	case Link:
		want = t
	case String:
		want = parseLink(string(t), f.Path())
	case Null:
		return Bool(false), nil
	default:
		return nil, e.errf(e.argNode(n, 0), "%s() expects a file, a link or a path, got %s", fnName(n), kindName(target))
	}
	for _, l := range e.linkList(f.Links(), f.Path()) {
		if e.equal(l, want) {
			return Bool(true), nil
		}
	}
	return Bool(false), nil
}

func mFileHasProperty(e *evaluator, n *callNode, v Value, args []Value) (Value, error) {
	name, err := e.str(n, args, 0)
	if err != nil {
		return nil, err
	}
	_, ok := v.(FileValue).F.Properties()[name]
	return Bool(ok), nil
}

// HasTag is the rule of file.hasTag: tags compare without "#" and without
// regard to case, and a tag also matches its nested tags (book matches
// book/fiction).
func HasTag(tags []string, want string) bool {
	w := strings.ToLower(strings.TrimPrefix(strings.TrimSpace(want), "#"))
	if w == "" {
		return false
	}
	for _, t := range tags {
		t = strings.ToLower(strings.TrimPrefix(t, "#"))
		if t == w || strings.HasPrefix(t, w+"/") {
			return true
		}
	}
	return false
}

func mFileHasTag(e *evaluator, n *callNode, v Value, args []Value) (Value, error) {
	tags := v.(FileValue).F.Tags()
	for i := range args {
		s, err := e.str(n, args, i)
		if err != nil {
			return nil, err
		}
		if HasTag(tags, s) {
			return Bool(true), nil
		}
	}
	return Bool(false), nil
}

// InFolder is the rule of file.inFolder: the file is in the folder or in
// one of its sub-folders. "" and "/" are the vault root, which holds every
// file.
func InFolder(filePath, folder string) bool {
	folder = strings.Trim(strings.TrimSpace(folder), "/")
	if folder == "" {
		return true
	}
	return strings.HasPrefix(filePath, folder+"/")
}

func mFileInFolder(e *evaluator, n *callNode, v Value, args []Value) (Value, error) {
	folder, err := e.str(n, args, 0)
	if err != nil {
		return nil, err
	}
	return Bool(InFolder(v.(FileValue).F.Path(), folder)), nil
}

// Object type.

func mObjKeys(e *evaluator, n *callNode, v Value, _ []Value) (Value, error) {
	o := v.(*Object)
	out := make(List, len(o.Keys))
	for i, k := range o.Keys {
		out[i] = String(k)
	}
	return out, nil
}

func mObjValues(e *evaluator, n *callNode, v Value, _ []Value) (Value, error) {
	o := v.(*Object)
	out := make(List, len(o.Keys))
	for i, k := range o.Keys {
		out[i] = o.Fields[k]
	}
	return out, nil
}

// Regular expression type.

func mRegexpMatches(e *evaluator, n *callNode, v Value, args []Value) (Value, error) {
	if _, ok := args[0].(Null); ok {
		return Bool(false), nil
	}
	s, err := e.str(n, args, 0)
	if err != nil {
		return nil, err
	}
	return Bool(v.(*Regexp).re.MatchString(s)), nil
}

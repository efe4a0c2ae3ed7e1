package bases

import (
	"cmp"
	"fmt"
	"math"
	"math/big"
	"math/rand/v2"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/jarvis-mcp/jarvis/internal/periodic"
	"github.com/jarvis-mcp/jarvis/internal/words"
)

// fn is a function of Bases: recv is the value before the dot (nil for a
// global function), args are the evaluated arguments, already checked
// against the function's spec: an argument of a text parameter is a
// String, of a number parameter a Number, and so on.
type fn func(e *evaluator, n *callNode, recv Value, args []Value) (Value, error)

// spec is a function's signature and body: the parameters it takes in
// order, how many of them must be given, and whether the last one may be
// given any number of times. Each function states its parameters once,
// here, and checkArgs words every mistake the same way.
type spec struct {
	params   []param
	required int
	repeats  bool
	f        fn
}

// param is what a function takes at one position. kinds are the values
// taken as they are (none: any value); with text, a value that has a text
// (a number, a date, a link ...) is taken too, turned into its text, as
// JavaScript would; with whole, a number must be within [lo, hi]. want is
// the parameter in words, for the error.
type param struct {
	want   string
	kinds  []Kind
	text   bool
	whole  bool
	lo, hi float64
}

var (
	anyArg    = param{}
	textArg   = param{want: "text", kinds: []Kind{KindString}, text: true}
	numberArg = param{want: "a number", kinds: []Kind{KindNumber}}
	// maybeNumber is a number or null, which counts as leaving it out.
	maybeNumber = param{want: "a number", kinds: []Kind{KindNumber, KindNull}}
	// numberOrDate is what max() and min() compare; null is passed over.
	numberOrDate = param{want: "a number or a date", kinds: []Kind{KindNumber, KindDate, KindNull}}
	// patternArg is what replace() and split() look for.
	patternArg = param{want: "text or a regular expression", kinds: []Kind{KindString, KindRegexp}, text: true}
	// linkTarget is what hasLink() and linksTo() look for; null matches
	// nothing.
	linkTarget = param{want: "a file, a link or a path", kinds: []Kind{KindFile, KindLink, KindString, KindNull}}
)

// wholeArg is a whole number within [lo, hi]; a fraction is cut off.
func wholeArg(lo, hi float64) param {
	return param{want: fmt.Sprintf("a number from %s to %s", FormatNumber(lo), FormatNumber(hi)), kinds: []Kind{KindNumber}, whole: true, lo: lo, hi: hi}
}

// oneOf is a parameter that takes values of the given kinds.
func oneOf(want string, kinds ...Kind) param { return param{want: want, kinds: kinds} }

// takes is a function of exactly these parameters.
func takes(f fn, params ...param) spec {
	return spec{params: params, required: len(params), f: f}
}

// takesOptional is a function whose first required parameters must be
// given and the rest may be left out.
func takesOptional(required int, f fn, params ...param) spec {
	return spec{params: params, required: required, f: f}
}

// takesMany is a function whose last parameter is given one or more times.
func takesMany(f fn, params ...param) spec {
	return spec{params: params, required: len(params), repeats: true, f: f}
}

var (
	globals map[string]spec
	methods map[Kind]map[string]spec
	// anyMethods work on every value, null included.
	anyMethods map[string]spec
	// lambdas are the list functions whose first argument is evaluated
	// once per item, with `value` and `index` (and `acc`) in scope; their
	// arguments are expressions, so only their number is checked.
	lambdas = map[string]spec{
		"filter": takes(nil, anyArg),
		"map":    takes(nil, anyArg),
		"reduce": takes(nil, anyArg, anyArg),
	}
	// ifSpec is if(condition, then, else): evaluated lazily in call.
	ifSpec = takesOptional(2, nil, anyArg, anyArg, anyArg)
)

func init() {
	dateText := oneOf(`text such as "2025-01-31"`, KindString, KindLink, KindDate, KindNumber, KindNull)
	globals = map[string]spec{
		"date":       takes(fnDate, dateText),
		"duration":   takes(fnDuration, oneOf(`text such as "1d"`, KindString, KindDuration, KindNumber, KindNull)),
		"now":        takes(fnNow),
		"today":      takes(fnToday),
		"link":       takesOptional(1, fnLink, param{want: "a path or a link", kinds: []Kind{KindString, KindLink, KindFile, KindNull}, text: true}, anyArg),
		"list":       takes(fnList, anyArg),
		"number":     takes(fnNumber, oneOf("a number, text, a date, a duration or a boolean", KindNumber, KindString, KindDate, KindDuration, KindBoolean, KindNull)),
		"max":        takesMany(fnMax, numberOrDate),
		"min":        takesMany(fnMin, numberOrDate),
		"file":       takes(fnFile, oneOf("a path or a link", KindString, KindLink, KindFile, KindNull)),
		"image":      takes(rendered(KindImage), anyArg),
		"icon":       takes(rendered(KindIcon), anyArg),
		"html":       takes(rendered(KindHTML), anyArg),
		"escapeHTML": takes(fnEscapeHTML, textArg),
		"random":     takes(fnRandom),
		// "if" is evaluated lazily in call.
	}
	anyMethods = map[string]spec{
		"isTruthy": takes(func(_ *evaluator, _ *callNode, v Value, _ []Value) (Value, error) { return Bool(Truthy(v)), nil }),
		"isType":   takes(mIsType, textArg),
		"toString": takes(func(e *evaluator, n *callNode, v Value, _ []Value) (Value, error) { return e.text(n, Display(v)) }),
		"isEmpty":  takes(func(_ *evaluator, _ *callNode, v Value, _ []Value) (Value, error) { return Bool(IsEmpty(v)), nil }),
	}
	methods = map[Kind]map[string]spec{
		KindDate: {
			"date":   takes(mDateDate),
			"format": takes(mDateFormat, textArg),
			"time": takes(func(_ *evaluator, _ *callNode, v Value, _ []Value) (Value, error) {
				return String(v.(Date).T.Format("15:04:05")), nil
			}),
			"relative": takes(func(e *evaluator, _ *callNode, v Value, _ []Value) (Value, error) {
				return String(relativeTime(v.(Date).T, e.now())), nil
			}),
		},
		KindString: {
			"contains":    takes(mStrContains, textArg),
			"containsAll": takesMany(mStrContainsAll, textArg),
			"containsAny": takesMany(mStrContainsAny, textArg),
			"startsWith":  takes(mStrStartsWith, textArg),
			"endsWith":    takes(mStrEndsWith, textArg),
			"lower": takes(func(_ *evaluator, _ *callNode, v Value, _ []Value) (Value, error) {
				return String(strings.ToLower(string(v.(String)))), nil
			}),
			"title": takes(mStrTitle),
			"trim": takes(func(_ *evaluator, _ *callNode, v Value, _ []Value) (Value, error) {
				return String(strings.TrimSpace(string(v.(String)))), nil
			}),
			"replace": takes(mStrReplace, patternArg, textArg),
			"repeat":  takes(mStrRepeat, wholeArg(0, maxString)),
			"reverse": takes(mStrReverse),
			"slice":   takesOptional(1, mStrSlice, numberArg, maybeNumber),
			"split":   takesOptional(1, mStrSplit, patternArg, wholeArg(0, maxList)),
		},
		KindNumber: {
			"abs":     takes(numFn(math.Abs)),
			"ceil":    takes(numFn(math.Ceil)),
			"floor":   takes(numFn(math.Floor)),
			"round":   takesOptional(0, mNumRound, wholeArg(0, 100)),
			"toFixed": takes(mNumToFixed, wholeArg(0, 100)),
		},
		KindList: {
			"contains":    takes(mListContains, anyArg),
			"containsAll": takesMany(mListContainsAll, anyArg),
			"containsAny": takesMany(mListContainsAny, anyArg),
			"flat":        takes(mListFlat),
			"join":        takes(mListJoin, textArg),
			"reverse":     takes(mListReverse),
			"slice":       takesOptional(1, mListSlice, numberArg, maybeNumber),
			"sort":        takes(mListSort),
			"unique":      takes(mListUnique),
			// The aggregates the Average, Sum ... summaries use, so that
			// a custom summary such as values.mean().round(3) can too.
			"mean":   takes(aggregate(SummaryAverage)),
			"sum":    takes(aggregate(SummarySum)),
			"min":    takes(aggregate(SummaryMin)),
			"max":    takes(aggregate(SummaryMax)),
			"median": takes(aggregate(SummaryMedian)),
			"stddev": takes(aggregate(SummaryStddev)),
		},
		KindLink: {
			"asFile":  takes(mLinkAsFile),
			"linksTo": takes(mLinkLinksTo, linkTarget),
		},
		KindFile: {
			"asLink":      takesOptional(0, mFileAsLink, anyArg),
			"hasLink":     takes(mFileHasLink, linkTarget),
			"hasProperty": takes(mFileHasProperty, textArg),
			"hasTag":      takesMany(mFileHasTag, textArg),
			"inFolder":    takes(mFileInFolder, textArg),
		},
		KindObject: {
			"keys":   takes(mObjKeys),
			"values": takes(mObjValues),
		},
		KindRegexp: {
			"matches": takes(mRegexpMatches, param{want: "text", kinds: []Kind{KindString, KindNull}, text: true}),
		},
	}
}

// isMethodName says whether any type has a function by this name.
func isMethodName(name string) bool {
	if _, ok := anyMethods[name]; ok {
		return true
	}
	if _, ok := lambdas[name]; ok {
		return true
	}
	for _, m := range methods {
		if _, ok := m[name]; ok {
			return true
		}
	}
	return false
}

// ownerWords names the kinds of value that have functions, for the
// message of a function called on a kind it does not work on.
var ownerWords = []struct {
	kind  Kind
	words string
}{
	{KindString, "text"}, {KindNumber, "numbers"}, {KindDate, "dates"}, {KindList, "lists"},
	{KindLink, "links"}, {KindFile, "files"}, {KindObject, "objects"}, {KindRegexp, "regular expressions"},
}

// methodOwners words the kinds of value the function name works on, as in
// "text and lists".
func methodOwners(name string) string {
	var owners []string
	for _, o := range ownerWords {
		_, ok := methods[o.kind][name]
		if _, lambda := lambdas[name]; lambda && o.kind == KindList {
			ok = true
		}
		if ok {
			owners = append(owners, o.words)
		}
	}
	return words.List(owners)
}

// checkArity checks the number of arguments of a call against s.
func (e *evaluator) checkArity(n *callNode, name string, s spec) error {
	if msg := arityProblem(name, s, len(n.args)); msg != "" {
		return e.errf(n, "%s", msg)
	}
	return nil
}

// arityProblem words what is wrong with calling the function s by name
// with got arguments, "" when nothing is: "slice() takes 1 to 2
// arguments, got 0".
func arityProblem(name string, s spec, got int) string {
	most := len(s.params)
	if s.repeats {
		most = -1
	}
	if got >= s.required && (most < 0 || got <= most) {
		return ""
	}
	var want string
	switch {
	case most == 0:
		want = "no arguments"
	case most < 0:
		want = "at least " + words.CountAs(s.required, "argument", "arguments")
	case s.required == most:
		want = words.CountAs(s.required, "argument", "arguments")
	default:
		want = fmt.Sprintf("%d to %d arguments", s.required, most)
	}
	return fmt.Sprintf("%s() takes %s, got %d", name, want, got)
}

// methodArityProblem is arityProblem for a function called on a value,
// whatever its kind: a problem when the number of arguments fits the
// function of no kind, worded by the first kind's (contains() takes one
// argument on text and on lists alike).
func methodArityProblem(name string, got int) string {
	var specs []spec
	if s, ok := anyMethods[name]; ok {
		specs = append(specs, s)
	}
	if s, ok := lambdas[name]; ok {
		specs = append(specs, s)
	}
	for _, o := range ownerWords {
		if s, ok := methods[o.kind][name]; ok {
			specs = append(specs, s)
		}
	}
	for _, s := range specs {
		if arityProblem(name, s, got) == "" {
			return ""
		}
	}
	if len(specs) == 0 {
		return ""
	}
	return arityProblem(name, specs[0], got)
}

// checkArgs checks each argument against its parameter in s, turning the
// values a text parameter takes into text, and words the mistake when one
// does not fit: "repeat() expects a number from 0 to 1048576 here, got a
// string", at the argument.
func (e *evaluator) checkArgs(n *callNode, name string, s spec, args []Value) error {
	for i, a := range args {
		p := s.params[min(i, len(s.params)-1)]
		var got string // what a was, when it does not fit
		switch {
		case p.kinds == nil || slices.Contains(p.kinds, a.Kind()):
			if x, ok := a.(Number); ok && p.whole && !(float64(x) >= p.lo && float64(x) <= p.hi) { // NaN too
				got = FormatNumber(float64(x))
			}
		case p.text && hasText(a):
			args[i] = String(Display(a))
		default:
			got = kindName(a)
		}
		if got != "" {
			return e.errf(e.argNode(n, i), "%s() expects %s here, got %s", name, p.want, got)
		}
	}
	return nil
}

// hasText says whether a value stands for text where text is expected:
// numbers, booleans, dates, durations, links and rendered values do; null,
// lists, objects, files and regular expressions do not.
func hasText(v Value) bool {
	switch v.(type) {
	case String, Number, Bool, Date, Link, Rendered, Duration:
		return true
	}
	return false
}

// wholeOf is the whole number of an argument a wholeArg parameter took.
func wholeOf(v Value) int { return int(math.Trunc(float64(v.(Number)))) }

// textOf is the text of an argument a text parameter took.
func textOf(v Value) string { return string(v.(String)) }

func (e *evaluator) call(n *callNode) (Value, error) {
	switch fnNode := n.fn.(type) {
	case *identNode:
		name := fnNode.name
		if name == "if" {
			if err := e.checkArity(n, "if", ifSpec); err != nil {
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
				return nil, e.errf(n, "%q is called on a value, as in x.%s(...)", name, name)
			}
			return nil, e.errf(n, "unknown function %q", name)
		}
		args, err := e.args(n, name, s)
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
		if ls, ok := lambdas[name]; ok {
			if l, ok := recv.(List); ok {
				if err := e.checkArity(n, name, ls); err != nil {
					return nil, err
				}
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
				return nil, e.errf(n, "%s", wrongMethod(recv.Kind(), name))
			}
			return nil, e.errf(n, "unknown function %q", name)
		}
		args, err := e.args(n, name, s)
		if err != nil {
			return nil, err
		}
		return s.f(e, n, recv, args)
	}
	return nil, e.errf(n, "only a function name can be called with (...)")
}

// args checks the number of arguments of a call to the function s, then
// evaluates them and checks each against its parameter.
func (e *evaluator) args(n *callNode, name string, s spec) ([]Value, error) {
	if err := e.checkArity(n, name, s); err != nil {
		return nil, err
	}
	out := make([]Value, len(n.args))
	for i, a := range n.args {
		v, err := e.eval(a)
		if err != nil {
			return nil, err
		}
		out[i] = v
	}
	if err := e.checkArgs(n, name, s, out); err != nil {
		return nil, err
	}
	return out, nil
}

func (e *evaluator) argNode(n *callNode, i int) node {
	if i < len(n.args) {
		return n.args[i]
	}
	return n
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
	}
	s := Display(args[0]) // text or a link, by the spec
	if d, ok := parseDate(s, e.loc()); ok {
		return d, nil
	}
	return nil, e.errf(n.args[0], "%s", notReadableDate(s))
}

func fnDuration(e *evaluator, n *callNode, _ Value, args []Value) (Value, error) {
	switch v := args[0].(type) {
	case Null:
		return Null{}, nil
	case Duration:
		return v, nil
	case Number:
		return Duration{Millis: float64(v)}, nil
	}
	s := textOf(args[0]) // by the spec
	if d, ok := parseDuration(s); ok {
		return d, nil
	}
	return nil, e.errf(n.args[0], "%s", notReadableDuration(s))
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
	case Null:
		return Null{}, nil
	case Link:
		l = v
	case FileValue:
		l = Link{Target: v.F.Path(), From: from}
	default:
		l = parseLink(textOf(v), from) // text, by the spec
	}
	if len(args) == 2 {
		l.Display = Display(args[1])
	}
	return l, nil
}

// fnList wraps a single value in a list, as Functions.md says of list():
// "If the provided element is a list, returns it unmodified. Otherwise,
// wraps the provided element in a list". null is not a list, so a note
// without the property gets [null], one element; list(x).filter(value)
// drops it.
func fnList(_ *evaluator, _ *callNode, _ Value, args []Value) (Value, error) {
	if v, ok := args[0].(List); ok {
		return v, nil
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
	}
	if f, ok := numberInText(textOf(args[0])); ok { // text, by the spec
		return Number(f), nil
	}
	return nil, e.errf(n.args[0], "number() cannot read %q as a number", textOf(args[0]))
}

// numberInText reads text that holds a number, as number() does: digits
// with an optional sign, decimals and exponent, spaces around them
// allowed; not "", nor Go's hexadecimal or underscores. It is number(),
// a comparison of a number with text (formula.ppu > 5, where ppu is a
// toFixed() text, in the Bases syntax page's example) and the number
// summaries.
func numberInText(s string) (float64, bool) {
	s = strings.TrimSpace(s)
	if s == "" || strings.ContainsAny(s, "_xXpP") {
		return 0, false
	}
	f, err := strconv.ParseFloat(s, 64)
	return f, err == nil
}

// extreme is the argument of max() or min() (numbers or dates, or null,
// by the spec) that comes first by sign: 1 for the largest, -1 for the
// smallest. Numbers compare by size (NaN wins, as in Math.max) and dates by
// time; null is passed over, and none but null gives null. Functions.md
// types max() and min() on numbers only; on dates they give the latest and
// earliest date (JavaScript's Math.max would give the milliseconds), which
// is what max(due, file.mtime) means. Numbers and dates together are
// refused: which is larger has no answer.
func extreme(e *evaluator, n *callNode, name string, args []Value, sign int) (Value, error) {
	var best Value = Null{}
	for i, a := range args {
		if _, ok := a.(Null); ok {
			continue
		}
		if _, ok := best.(Null); ok {
			best = a
			continue
		}
		if a.Kind() != best.Kind() {
			return nil, e.errf(e.argNode(n, i), "%s() expects numbers or dates, not both", name)
		}
		switch v := a.(type) {
		case Number:
			b := best.(Number)
			if math.IsNaN(float64(v)) || sign*cmp.Compare(float64(v), float64(b)) > 0 && !math.IsNaN(float64(b)) {
				best = v
			}
		case Date:
			if sign*v.T.Compare(best.(Date).T) > 0 {
				best = v
			}
		}
	}
	return best, nil
}

func fnMax(e *evaluator, n *callNode, _ Value, args []Value) (Value, error) {
	return extreme(e, n, "max", args, 1)
}

func fnMin(e *evaluator, n *callNode, _ Value, args []Value) (Value, error) {
	return extreme(e, n, "min", args, -1)
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
	default:
		l = parseLink(textOf(v), from) // a path, by the spec
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
	return e.text(n, htmlEscaper.Replace(textOf(args[0])))
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
	s := textOf(args[0])
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
	s := textOf(args[0])
	if err := e.checkString(n, len(s)*8); err != nil {
		return nil, err
	}
	return e.text(n, periodic.ParseLayout(s).Format(v.(Date).T))
}

// String type.

func mStrContains(e *evaluator, n *callNode, v Value, args []Value) (Value, error) {
	s := textOf(args[0])
	return Bool(strings.Contains(string(v.(String)), s)), nil
}

func strAllAny(e *evaluator, n *callNode, v Value, args []Value, all bool) (Value, error) {
	for i := range args {
		s := textOf(args[i])
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
	s := textOf(args[0])
	return Bool(strings.HasPrefix(string(v.(String)), s)), nil
}

func mStrEndsWith(e *evaluator, n *callNode, v Value, args []Value) (Value, error) {
	s := textOf(args[0])
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
	repl := textOf(args[1])
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
		pat := textOf(args[0])
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
	k := wholeOf(args[0])
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
// negative positions count from the end, and both are clamped. args are a
// number and, optionally, a number or null (the end).
func sliceBounds(args []Value, length int) (int, int) {
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
	start, end := clamp(float64(args[0].(Number))), length
	if len(args) > 1 {
		if en, ok := args[1].(Number); ok {
			end = clamp(float64(en))
		}
	}
	if end < start {
		end = start
	}
	return start, end
}

func mStrSlice(_ *evaluator, _ *callNode, v Value, args []Value) (Value, error) {
	rs := []rune(string(v.(String)))
	start, end := sliceBounds(args, len(rs))
	return String(rs[start:end]), nil
}

func mStrSplit(e *evaluator, n *callNode, v Value, args []Value) (Value, error) {
	s := string(v.(String))
	limit := -1
	if len(args) > 1 {
		limit = wholeOf(args[1])
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
		sep := textOf(args[0])
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
	p := math.Pow(10, float64(wholeOf(args[0])))
	if math.IsInf(x*p, 0) {
		return Number(x), nil
	}
	return Number(jsRound(x*p) / p), nil
}

// mNumToFixed is JavaScript's toFixed: the exact decimal value of the number
// rounded to the given places, a tie going away from zero.
func mNumToFixed(e *evaluator, n *callNode, v Value, args []Value) (Value, error) {
	x := float64(v.(Number))
	p := wholeOf(args[0])
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

// mListFlat flattens every level: Functions.md says flat() "Flattens a
// nested list into a single list", and a list that still held lists would
// not be one. (JavaScript's flat() goes one level down unless told more.)
func mListFlat(e *evaluator, n *callNode, v Value, _ []Value) (Value, error) {
	size := flatSize(v.(List))
	if err := e.checkList(n, size); err != nil {
		return nil, err
	}
	return appendFlat(make(List, 0, size), v.(List)), nil
}

// flatSize is the number of items that are not lists in l and the lists
// it holds, at any depth.
func flatSize(l List) int {
	size := 0
	for _, el := range l {
		if sub, ok := el.(List); ok {
			size += flatSize(sub)
		} else {
			size++
		}
	}
	return size
}

func appendFlat(out, l List) List {
	for _, el := range l {
		if sub, ok := el.(List); ok {
			out = appendFlat(out, sub)
		} else {
			out = append(out, el)
		}
	}
	return out
}

func mListJoin(e *evaluator, n *callNode, v Value, args []Value) (Value, error) {
	sep := textOf(args[0])
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

func mListSlice(_ *evaluator, _ *callNode, v Value, args []Value) (Value, error) {
	l := v.(List)
	start, end := sliceBounds(args, len(l))
	return append(List{}, l[start:end]...), nil
}

// kindRank orders values of different kinds when sorting a mixed list:
// booleans, numbers, dates, durations, text, the rest, then null. Null
// goes last as JavaScript's sort puts undefined last, and as a view puts
// its empty values (SortOrder).
var kindRank = map[Kind]int{KindBoolean: 1, KindNumber: 2, KindDate: 3, KindDuration: 4, KindString: 5, KindNull: 10}

// Order is the order of sort(): values of one kind by their natural order
// (numbers by size, text alphabetically, dates by time), values of
// different kinds by kindRank, then by their text. It returns a negative
// number when a comes first, 0 when neither does. Functions.md says only
// "from smallest to largest"; the order across kinds is this package's
// choice.
func Order(env *Env, a, b Value) int {
	if env == nil {
		env = &Env{}
	}
	return (&evaluator{env: env}).order(a, b)
}

// SortOrder is the order of a view's sort and groupBy on one key: Order,
// reversed when descending, except that empty values (IsEmpty: null, "",
// an empty list or object) come last in both directions. Views.md says
// only that text sorts A to Z or Z to A, numbers 0 to 1 or 1 to 0, dates
// old to new or new to old; a note without the value belongs to neither
// end of those, so it is put after the notes that have one, as
// spreadsheets do.
func SortOrder(env *Env, a, b Value, descending bool) int {
	ea, eb := IsEmpty(a), IsEmpty(b)
	switch {
	case ea && eb:
		return 0
	case ea:
		return 1
	case eb:
		return -1
	}
	c := Order(env, a, b)
	if descending {
		return -c
	}
	return c
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
	return e.hasLink(f, args[0]), nil
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
	return e.hasLink(v.(FileValue).F, args[0]), nil
}

// hasLink says whether f links to target (a file, a link, or a path or link
// as text): one of f's links resolves to the same file, or, when the target
// does not resolve, has the same text. It is file.hasLink and link.linksTo;
// target is what linkTarget takes.
func (e *evaluator) hasLink(f File, target Value) Value {
	var want Value
	switch t := target.(type) {
	case Null:
		return Bool(false)
	case FileValue:
		want = FileValue{F: t.F}
	case Link:
		want = t
	default:
		want = parseLink(textOf(t), f.Path())
	}
	for _, l := range e.linkList(f.Links(), f.Path()) {
		if e.equal(l, want) {
			return Bool(true)
		}
	}
	return Bool(false)
}

func mFileHasProperty(e *evaluator, n *callNode, v Value, args []Value) (Value, error) {
	name := textOf(args[0])
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
		s := textOf(args[i])
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
	folder := textOf(args[0])
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
	s := textOf(args[0])
	return Bool(v.(*Regexp).re.MatchString(s)), nil
}

// Package bases implements the expression language of Obsidian Bases: the
// filters, formulas and summaries of a .base file, evaluated against notes
// that a caller describes through the File interface. It knows nothing of the
// database; the caller supplies each note's facts, a link resolver, `this`
// and the current time.
package bases

import (
	"math"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// Kind names a value's type, as isType() spells it.
type Kind string

// The kinds of value an expression can produce.
const (
	KindNull     Kind = "null"
	KindBoolean  Kind = "boolean"
	KindNumber   Kind = "number"
	KindString   Kind = "string"
	KindDate     Kind = "date"
	KindDuration Kind = "duration"
	KindList     Kind = "list"
	KindObject   Kind = "object"
	KindLink     Kind = "link"
	KindFile     Kind = "file"
	KindRegexp   Kind = "regexp"
	KindImage    Kind = "image"
	KindIcon     Kind = "icon"
	KindHTML     Kind = "html"
)

// Value is the result of evaluating an expression. The concrete types are
// Null, Bool, Number, String, Date, Duration, List, *Object, Link, FileValue,
// *Regexp and Rendered.
type Value interface {
	Kind() Kind
}

// Null is the value of a missing property, and of `null`.
type Null struct{}

// Bool is a boolean.
type Bool bool

// Number is a number; like JavaScript, every number is a float64.
type Number float64

// String is a piece of text.
type String string

// Date is a moment in time. HasTime is false for dates without a time of
// day (a YAML date, date("2024-01-01"), today()); they print without one.
type Date struct {
	T       time.Time
	HasTime bool
}

// Duration is a span of time: calendar months (a year is twelve), calendar
// days (a week is seven) and milliseconds, kept apart so that adding "1M" to
// January 31 gives the last day of February and adding "1d" keeps the time
// of day across a daylight saving change, as Moment.js does. Subtracting two
// dates gives milliseconds only.
type Duration struct {
	Months int
	Days   int
	Millis float64
}

// List is an ordered list of values.
type List []Value

// Object is a set of named values that keeps the order of its keys.
type Object struct {
	Keys   []string
	Fields map[string]Value
}

// Link is a link to a note or a URL. Target is the link text without
// brackets and display part; From is the path of the note the link was
// written in, which the resolver needs for relative links.
type Link struct {
	Target  string
	Display string
	From    string
}

// FileValue is a file of the vault. For `this`, Context is true: then a bare
// name after `this.` reads a note property (`this.status`) and `this.file`
// gives the file itself.
type FileValue struct {
	F       File
	Context bool
}

// Regexp is a regular expression literal such as /a+b/gi.
type Regexp struct {
	Source string
	Flags  string
	re     *regexp.Regexp
}

// Rendered is what icon(), image() and html() return: in Obsidian they draw
// in a view; here they carry their text (an icon's name, an image's path,
// the HTML source).
type Rendered struct {
	K    Kind
	Text string
}

func (Null) Kind() Kind      { return KindNull }
func (Bool) Kind() Kind      { return KindBoolean }
func (Number) Kind() Kind    { return KindNumber }
func (String) Kind() Kind    { return KindString }
func (Date) Kind() Kind      { return KindDate }
func (Duration) Kind() Kind  { return KindDuration }
func (List) Kind() Kind      { return KindList }
func (*Object) Kind() Kind   { return KindObject }
func (Link) Kind() Kind      { return KindLink }
func (FileValue) Kind() Kind { return KindFile }
func (*Regexp) Kind() Kind   { return KindRegexp }
func (r Rendered) Kind() Kind {
	return r.K
}

// NewObject returns an empty object; Set adds fields in order.
func NewObject() *Object {
	return &Object{Fields: map[string]Value{}}
}

// Set adds or replaces a field, keeping the first position of the key.
func (o *Object) Set(k string, v Value) {
	if _, ok := o.Fields[k]; !ok {
		o.Keys = append(o.Keys, k)
	}
	o.Fields[k] = v
}

// Get returns a field, or Null when there is none.
func (o *Object) Get(k string) Value {
	if v, ok := o.Fields[k]; ok {
		return v
	}
	return Null{}
}

// Truthy says whether a value counts as true in if(), filters, `&&`, `||`
// and `!`. It follows JavaScript for primitives (0, NaN and "" are false),
// except that an empty list and an empty object are false too: a filter
// such as `tags` should drop notes whose tags list is empty, which is what a
// user of Obsidian's "is not empty" expects.
func Truthy(v Value) bool {
	switch x := v.(type) {
	case nil, Null:
		return false
	case Bool:
		return bool(x)
	case Number:
		return x != 0 && !math.IsNaN(float64(x))
	case String:
		return x != ""
	case List:
		return len(x) > 0
	case *Object:
		return len(x.Keys) > 0
	case Duration:
		return x.Months != 0 || x.Days != 0 || x.Millis != 0
	case Rendered:
		return x.Text != ""
	}
	return true
}

// IsEmpty is the rule of isEmpty() and of the Empty and Filled summaries:
// null, "", an empty list and an empty object are empty; numbers, dates and
// the rest are not.
func IsEmpty(v Value) bool {
	switch x := v.(type) {
	case nil, Null:
		return true
	case String:
		return x == ""
	case List:
		return len(x) == 0
	case *Object:
		return len(x.Keys) == 0
	}
	return false
}

// RoundedNumber is f for a reader: two decimals (2.1666666666666665 is
// 2.17), or three significant digits below 1 (0.00123456 is 0.00123), as
// a summary line shows an average; data for scripts keeps the full number.
func RoundedNumber(f float64) string {
	a := math.Abs(f)
	switch {
	case math.IsNaN(f) || math.IsInf(f, 0) || a >= 1e21 || f == 0:
		return FormatNumber(f)
	case a >= 1:
		return FormatNumber(math.Round(f*100) / 100)
	}
	r, _ := strconv.ParseFloat(strconv.FormatFloat(f, 'g', 3, 64), 64)
	return FormatNumber(r)
}

// FormatNumber prints a number the way JavaScript's String(n) does: no
// trailing ".0", exponent notation only for very large or small numbers.
func FormatNumber(f float64) string {
	switch {
	case math.IsNaN(f):
		return "NaN"
	case math.IsInf(f, 1):
		return "Infinity"
	case math.IsInf(f, -1):
		return "-Infinity"
	case f == 0:
		return "0"
	}
	a := math.Abs(f)
	if a >= 1e21 || a < 1e-6 {
		s := strconv.FormatFloat(f, 'e', -1, 64)
		// Go writes e+07 and e-07; JavaScript writes e+7 and e-7.
		mant, exp, _ := strings.Cut(s, "e")
		sign := exp[0]
		exp = strings.TrimLeft(exp[1:], "0")
		return mant + "e" + string(sign) + exp
	}
	return strconv.FormatFloat(f, 'f', -1, 64)
}

// durationMillis is the length of a duration in milliseconds, counting a
// month as 30 days: used to compare durations and to turn them into numbers.
func durationMillis(d Duration) float64 {
	return float64(d.Months)*30*day + float64(d.Days)*day + d.Millis
}

const (
	second = 1000.0
	minute = 60 * second
	hour   = 60 * minute
	day    = 24 * hour
	week   = 7 * day
)

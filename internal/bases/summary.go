package bases

import (
	"fmt"
	"math"
	"sort"
	"strings"
)

// Summary names one of the default summaries of a view's column (Views.md,
// "Bases syntax" > Default Summary Formulas).
type Summary string

// The default summaries.
const (
	SummaryAverage   Summary = "Average"
	SummaryMin       Summary = "Min"
	SummaryMax       Summary = "Max"
	SummarySum       Summary = "Sum"
	SummaryRange     Summary = "Range"
	SummaryMedian    Summary = "Median"
	SummaryStddev    Summary = "Stddev"
	SummaryEarliest  Summary = "Earliest"
	SummaryLatest    Summary = "Latest"
	SummaryChecked   Summary = "Checked"
	SummaryUnchecked Summary = "Unchecked"
	SummaryEmpty     Summary = "Empty"
	SummaryFilled    Summary = "Filled"
	SummaryUnique    Summary = "Unique"
)

// Summaries lists the default summaries in the order the pages give them.
var Summaries = []Summary{
	SummaryAverage, SummaryMin, SummaryMax, SummarySum, SummaryRange, SummaryMedian, SummaryStddev,
	SummaryEarliest, SummaryLatest, SummaryChecked, SummaryUnchecked, SummaryEmpty, SummaryFilled, SummaryUnique,
}

// LookupSummary finds a default summary by name, ignoring case.
func LookupSummary(name string) (Summary, bool) {
	for _, s := range Summaries {
		if strings.EqualFold(string(s), strings.TrimSpace(name)) {
			return s, true
		}
	}
	return "", false
}

// Summarize computes a default summary over a column's values (one value
// per note of the result). The number summaries read only numbers (and
// text holding one, numbersOf) and the date ones only dates, skipping empty and other values; with nothing to
// read, Average, Min, Max, Median, Stddev, Range, Earliest, Latest and Sum
// are null: a sum of no number is not 0 (a column of text sums to
// nothing). Range is Max minus Min for numbers, and Latest minus Earliest
// when the column holds dates and no numbers: milliseconds, as two dates
// subtract (dateDifference).
// Stddev is the population standard deviation. Unique counts the distinct
// values among the filled ones, by the same equality as `==`.
func Summarize(env *Env, s Summary, values []Value) Value {
	if env == nil {
		env = &Env{}
	}
	e := &evaluator{env: env}
	return e.summarize(s, List(values))
}

// numbersOf are the numbers the number summaries read: numbers, and text
// that holds one (numberInText). The Bases syntax page's example averages
// formula.ppu, which is (price / age).toFixed(2), a text.
func numbersOf(values List) []float64 {
	var out []float64
	for _, v := range values {
		f := math.NaN()
		switch x := v.(type) {
		case Number:
			f = float64(x)
		case String:
			if n, ok := numberInText(string(x)); ok {
				f = n
			}
		}
		if !math.IsNaN(f) {
			out = append(out, f)
		}
	}
	return out
}

func datesOf(values List) []Date {
	var out []Date
	for _, v := range values {
		if d, ok := v.(Date); ok {
			out = append(out, d)
		}
	}
	return out
}

func (e *evaluator) summarize(s Summary, values List) Value {
	nums := numbersOf(values)
	switch s {
	case SummarySum:
		if len(nums) == 0 {
			return Null{}
		}
		sum := 0.0
		for _, x := range nums {
			sum += x
		}
		return Number(sum)
	case SummaryAverage:
		if len(nums) == 0 {
			return Null{}
		}
		sum := 0.0
		for _, x := range nums {
			sum += x
		}
		return Number(sum / float64(len(nums)))
	case SummaryMin, SummaryMax:
		if len(nums) == 0 {
			return Null{}
		}
		best := nums[0]
		for _, x := range nums[1:] {
			if s == SummaryMin && x < best || s == SummaryMax && x > best {
				best = x
			}
		}
		return Number(best)
	case SummaryRange:
		if len(nums) > 0 {
			lo, hi := nums[0], nums[0]
			for _, x := range nums {
				lo, hi = math.Min(lo, x), math.Max(hi, x)
			}
			return Number(hi - lo)
		}
		dates := datesOf(values)
		if len(dates) == 0 {
			return Null{}
		}
		lo, hi := dates[0], dates[0]
		for _, d := range dates {
			if d.T.Before(lo.T) {
				lo = d
			}
			if d.T.After(hi.T) {
				hi = d
			}
		}
		return dateDifference(hi, lo)
	case SummaryMedian:
		if len(nums) == 0 {
			return Null{}
		}
		sorted := append([]float64{}, nums...)
		sort.Float64s(sorted)
		m := len(sorted) / 2
		if len(sorted)%2 == 1 {
			return Number(sorted[m])
		}
		return Number((sorted[m-1] + sorted[m]) / 2)
	case SummaryStddev:
		if len(nums) == 0 {
			return Null{}
		}
		mean := 0.0
		for _, x := range nums {
			mean += x
		}
		mean /= float64(len(nums))
		ss := 0.0
		for _, x := range nums {
			ss += (x - mean) * (x - mean)
		}
		return Number(math.Sqrt(ss / float64(len(nums))))
	case SummaryEarliest, SummaryLatest:
		dates := datesOf(values)
		if len(dates) == 0 {
			return Null{}
		}
		best := dates[0]
		for _, d := range dates[1:] {
			if s == SummaryEarliest && d.T.Before(best.T) || s == SummaryLatest && d.T.After(best.T) {
				best = d
			}
		}
		return best
	case SummaryChecked, SummaryUnchecked:
		n := 0
		for _, v := range values {
			if b, ok := v.(Bool); ok && bool(b) == (s == SummaryChecked) {
				n++
			}
		}
		return Number(n)
	case SummaryEmpty, SummaryFilled:
		n := 0
		for _, v := range values {
			if IsEmpty(v) == (s == SummaryEmpty) {
				n++
			}
		}
		return Number(n)
	case SummaryUnique:
		seen := map[string]bool{}
		for _, v := range values {
			if !IsEmpty(v) {
				seen[e.identity(v)] = true
			}
		}
		return Number(len(seen))
	}
	return Null{}
}

// SummaryFormula is a custom summary: an expression over `values`, the
// column's values, such as values.mean().round(3).
type SummaryFormula struct {
	Name string
	Expr *Expr
}

// Eval runs the custom summary over a column's values.
func (s SummaryFormula) Eval(env *Env, values []Value) (Value, error) {
	v, err := s.Expr.EvalWith(env, nil, map[string]Value{"values": List(values)})
	if err != nil {
		return nil, fmt.Errorf("summary %q: %w", s.Name, err)
	}
	return v, nil
}

package bases

import (
	"testing"
	"time"
)

func TestSummaries(t *testing.T) {
	d := func(s string) Value { v, _ := parseDate(s, time.UTC); return v }
	nums := []Value{Number(4), Number(1), Null{}, String("x"), Number(7), Number(2)}
	dates := []Value{d("2025-03-01"), Null{}, d("2025-01-01"), d("2025-01-31")}
	checks := []Value{Bool(true), Bool(false), Bool(true), Null{}}
	mixed := []Value{String("a"), String(""), Null{}, List{}, String("a"), Number(1), List{String("a")}}
	for _, tc := range []struct {
		s      Summary
		values []Value
		want   string
	}{
		{SummaryAverage, nums, "number:3.5"},
		{SummaryMin, nums, "number:1"},
		{SummaryMax, nums, "number:7"},
		{SummarySum, nums, "number:14"},
		{SummaryRange, nums, "number:6"},
		{SummaryMedian, nums, "number:3"},
		{SummaryMedian, []Value{Number(5), Number(1), Number(3)}, "number:3"},
		{SummaryStddev, []Value{Number(2), Number(4), Number(4), Number(4), Number(5), Number(5), Number(7), Number(9)}, "number:2"},
		{SummaryEarliest, dates, "date:2025-01-01"},
		{SummaryLatest, dates, "date:2025-03-01"},
		{SummaryRange, dates, "number:5097600000"},
		{SummaryChecked, checks, "number:2"},
		{SummaryUnchecked, checks, "number:1"},
		{SummaryEmpty, mixed, "number:3"},
		{SummaryFilled, mixed, "number:4"},
		{SummaryUnique, mixed, "number:3"},
		{SummaryAverage, nil, "null:"},
		{SummarySum, nil, "null:"},
		{SummarySum, []Value{String("three")}, "null:"},
		{SummaryEarliest, nums, "null:"},
	} {
		if got := show(Summarize(nil, tc.s, tc.values)); got != tc.want {
			t.Errorf("%s(%v) = %s, want %s", tc.s, tc.values, got, tc.want)
		}
	}
}

// TestSummaryNames: every default summary is found by name, in any case,
// and the list method a custom summary uses gives the same answer as the
// default summary (one rule, two doors).
func TestSummaryNames(t *testing.T) {
	for _, s := range Summaries {
		if got, ok := LookupSummary(string(s)); !ok || got != s {
			t.Errorf("LookupSummary(%q) = %q, %v", s, got, ok)
		}
	}
	if s, ok := LookupSummary("average"); !ok || s != SummaryAverage {
		t.Errorf("LookupSummary(average) = %q, %v", s, ok)
	}
	values := []Value{Number(3), Number(10), Number(4), Null{}}
	for method, s := range map[string]Summary{"mean": SummaryAverage, "sum": SummarySum, "min": SummaryMin, "max": SummaryMax, "median": SummaryMedian, "stddev": SummaryStddev} {
		x := MustParse("values." + method + "()")
		got, err := x.EvalWith(nil, nil, map[string]Value{"values": List(values)})
		if err != nil {
			t.Fatal(err)
		}
		if want := Summarize(nil, s, values); show(got) != show(want) {
			t.Errorf("values.%s() = %s, %s = %s", method, show(got), s, show(want))
		}
	}
}

// TestOrder: the order a view sorts by is sort()'s.
func TestOrder(t *testing.T) {
	values := List{String("b"), Number(10), Null{}, Number(9), Bool(true), String("a")}
	x := MustParse("values.sort()")
	got, err := x.EvalWith(nil, nil, map[string]Value{"values": values})
	if err != nil {
		t.Fatal(err)
	}
	sorted := got.(List)
	for i := 1; i < len(sorted); i++ {
		if Order(nil, sorted[i-1], sorted[i]) > 0 {
			t.Errorf("Order puts %s after %s, sort() before", show(sorted[i-1]), show(sorted[i]))
		}
	}
	if Display(sorted) != "true, 9, 10, a, b, " {
		t.Errorf("sorted = %q", Display(sorted))
	}
}

package periodic

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Period is how long one periodic note covers.
type Period string

// The periods, as the Periodic Notes plugin names them in its settings.
const (
	Daily     Period = "daily"
	Weekly    Period = "weekly"
	Monthly   Period = "monthly"
	Quarterly Period = "quarterly"
	Yearly    Period = "yearly"
)

// Periods are every period, shortest first.
var Periods = []Period{Daily, Weekly, Monthly, Quarterly, Yearly}

// ParsePeriod reads a period's name, in any case; "" is Daily.
func ParsePeriod(s string) (Period, error) {
	s = strings.ToLower(strings.TrimSpace(s))
	if s == "" {
		return Daily, nil
	}
	for _, p := range Periods {
		if string(p) == s {
			return p, nil
		}
	}
	return "", fmt.Errorf("period must be daily, weekly, monthly, quarterly or yearly; got %s", quote(s))
}

// noun is the period's unit in words: day, week, month, quarter, year.
func (p Period) noun() string {
	switch p {
	case Weekly:
		return "week"
	case Monthly:
		return "month"
	case Quarterly:
		return "quarter"
	case Yearly:
		return "year"
	}
	return "day"
}

// Range is the days a period covers, both at midnight: Start is its first
// day and End its last.
type Range struct {
	Start, End time.Time
}

// Range is the period of p that holds day. A week starts on Sunday, as
// moment's default locale has it, or on Monday when isoWeeks is true (a
// format that numbers weeks by ISO 8601).
func (p Period) Range(day time.Time, isoWeeks bool) Range {
	y, m, d := day.Date()
	loc := day.Location()
	var start time.Time
	switch p {
	case Weekly:
		back := int(day.Weekday()) // days since Sunday
		if isoWeeks {
			back = (back + 6) % 7 // days since Monday
		}
		start = time.Date(y, m, d-back, 0, 0, 0, 0, loc)
		return Range{start, time.Date(y, m, d-back+6, 0, 0, 0, 0, loc)}
	case Monthly:
		start = time.Date(y, m, 1, 0, 0, 0, 0, loc)
		return Range{start, start.AddDate(0, 1, -1)}
	case Quarterly:
		start = time.Date(y, (m-1)/3*3+1, 1, 0, 0, 0, 0, loc)
		return Range{start, start.AddDate(0, 3, -1)}
	case Yearly:
		start = time.Date(y, time.January, 1, 0, 0, 0, 0, loc)
		return Range{start, time.Date(y, time.December, 31, 0, 0, 0, 0, loc)}
	}
	start = time.Date(y, m, d, 0, 0, 0, 0, loc)
	return Range{start, start}
}

// shift is a day in the period n periods from the one that holds day.
func (p Period) shift(day time.Time, n int) time.Time {
	start := p.Range(day, false).Start
	switch p {
	case Weekly:
		return day.AddDate(0, 0, 7*n)
	case Monthly:
		return start.AddDate(0, n, 0)
	case Quarterly:
		return start.AddDate(0, 3*n, 0)
	case Yearly:
		return start.AddDate(n, 0, 0)
	}
	return day.AddDate(0, 0, n)
}

// MaxDateChars bounds the date argument: the longest form is a date.
const MaxDateChars = 40

// ErrDate is a date that cannot be read; its message says what can.
var ErrDate = errors.New("date must be today, yesterday, tomorrow, a date such as 2026-11-28, or a whole number of periods from the current one, such as -1 for the previous one")

// Day reads the date argument of a periodic note, relative to today (in
// the time zone today is in), as a day of the period asked for: today,
// yesterday, tomorrow, an ISO date (2026-11-28), or a whole number of
// periods of p from the current one (-1, 0, +2). "" is today. Days are
// kept to the years 1 to 9999, which every format can write.
func (p Period) Day(s string, today time.Time) (time.Time, error) {
	s = strings.ToLower(strings.TrimSpace(s))
	y, m, d := today.Date()
	today = time.Date(y, m, d, 0, 0, 0, 0, today.Location())
	var day time.Time
	switch {
	case len(s) > MaxDateChars:
		return time.Time{}, fmt.Errorf("%w; got %d characters", ErrDate, len(s))
	case s == "" || s == "today":
		day = today
	case s == "yesterday":
		day = today.AddDate(0, 0, -1)
	case s == "tomorrow":
		day = today.AddDate(0, 0, 1)
	case strings.Count(s, "-") >= 2 && !strings.HasPrefix(s, "-"):
		t, err := time.ParseInLocation("2006-01-02", s, today.Location())
		if err != nil {
			return time.Time{}, notADay(s, today.Location())
		}
		day = t
	default:
		n, err := strconv.Atoi(s)
		if err != nil {
			return time.Time{}, fmt.Errorf("%w; got %s", ErrDate, quote(s))
		}
		// 4 million days is beyond year 9999 either way, and shifting
		// that far cannot overflow.
		if n > 4_000_000 || n < -4_000_000 {
			return time.Time{}, fmt.Errorf("%s %ss from now is beyond the years 1 to 9999", quote(s), p.noun())
		}
		day = p.shift(today, n)
	}
	if day.Year() < 1 || day.Year() > 9999 {
		return time.Time{}, fmt.Errorf("%s is beyond the years 1 to 9999", quote(s))
	}
	return day, nil
}

// quote quotes user text for a message, cut to 60 characters.
func quote(s string) string {
	if r := []rune(s); len(r) > 60 {
		s = string(r[:60]) + "…"
	}
	return strconv.Quote(s)
}

// notADay is the error for s, which is not a day of the calendar: written
// as year-month-day but with a month or day out of range (February 30),
// or not written that way at all.
func notADay(s string, loc *time.Location) error {
	var y, m, d int
	if n, err := fmt.Sscanf(s, "%4d-%2d-%2d", &y, &m, &d); err == nil && n == 3 && len(s) == len("2006-01-02") {
		switch {
		case m < 1 || m > 12:
			return fmt.Errorf("%s is not a day: a month is 01 to 12", quote(s))
		case d < 1:
			return fmt.Errorf("%s is not a day: days start at 01", quote(s))
		default:
			last := time.Date(y, time.Month(m)+1, 0, 0, 0, 0, 0, loc).Day()
			return fmt.Errorf("%s is not a day: %s %d has %d days", quote(s), time.Month(m), y, last)
		}
	}
	return fmt.Errorf("%s is not a date written as year-month-day, such as 2026-11-28", quote(s))
}

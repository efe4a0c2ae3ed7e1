package bases

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
	"unicode"
)

// parseDate reads a date the way date() and date-typed properties are
// written: "YYYY-MM-DD", optionally followed by " " or "T" and "HH:mm",
// "HH:mm:ss" or "HH:mm:ss.SSS", optionally followed by "Z" or an offset
// such as "+02:00". Without an offset the date is in loc.
func parseDate(s string, loc *time.Location) (Date, bool) {
	s = strings.TrimSpace(s)
	if len(s) < 10 || s[4] != '-' || s[7] != '-' {
		return Date{}, false
	}
	if len(s) == 10 {
		t, err := time.ParseInLocation("2006-01-02", s, loc)
		return Date{T: t}, err == nil
	}
	if s[10] != ' ' && s[10] != 'T' {
		return Date{}, false
	}
	body := s[:10] + "T" + s[11:]
	for _, layout := range []string{
		"2006-01-02T15:04:05.999999999Z07:00",
		"2006-01-02T15:04:05Z07:00",
		"2006-01-02T15:04Z07:00",
	} {
		if t, err := time.Parse(layout, body); err == nil {
			return Date{T: t, HasTime: true}, true
		}
	}
	for _, layout := range []string{
		"2006-01-02T15:04:05.999999999",
		"2006-01-02T15:04:05",
		"2006-01-02T15:04",
	} {
		if t, err := time.ParseInLocation(layout, body, loc); err == nil {
			return Date{T: t, HasTime: true}, true
		}
	}
	return Date{}, false
}

// durationUnitList is each unit Bases accepts, as a letter and a word, in
// the order messages list them. Single letters are case-sensitive (M is a
// month, m a minute); the words, also in the plural, are not.
var durationUnitList = []struct {
	letter, word string
	d            Duration
}{
	{"y", "year", Duration{Months: 12}},
	{"M", "month", Duration{Months: 1}},
	{"w", "week", Duration{Days: 7}},
	{"d", "day", Duration{Days: 1}},
	{"h", "hour", Duration{Millis: hour}},
	{"m", "minute", Duration{Millis: minute}},
	{"s", "second", Duration{Millis: second}},
	{"ms", "millisecond", Duration{Millis: 1}},
}

// durationUnits maps each unit, as a letter, a word and a plural, to
// months, days or milliseconds.
var durationUnits = func() map[string]Duration {
	m := map[string]Duration{}
	for _, u := range durationUnitList {
		m[u.letter], m[u.word], m[u.word+"s"] = u.d, u.d, u.d
	}
	return m
}()

// durationHelp says how a duration is written, with every unit, for the
// messages of text that does not read as one.
var durationHelp = func() string {
	var letters, names []string
	for _, u := range durationUnitList {
		letters = append(letters, u.letter)
		names = append(names, u.word)
	}
	return fmt.Sprintf(`write a number and a unit, as in "1d", "2 weeks" or "3h"; the units are %s, or the words %s`,
		strings.Join(letters, ", "), strings.Join(names, ", "))
}()

// notADuration is the message for text used as a duration that does not
// read as one.
func notADuration(s string) string {
	return fmt.Sprintf("%q is not a duration; %s", s, durationHelp)
}

// notReadableDuration is the message of duration() given text it cannot
// read.
func notReadableDuration(s string) string {
	return fmt.Sprintf("duration() cannot read %q; %s", s, durationHelp)
}

// notReadableDate is the message of date() given text it cannot read.
func notReadableDate(s string) string {
	return fmt.Sprintf("date() cannot read %q as a date; write it as YYYY-MM-DD or YYYY-MM-DD HH:mm:ss", s)
}

// dateOffset reads text added to (op "+") or taken from (op "-") a date as
// a duration. Taking away text that is not a duration is a mistake
// (problem says what is wrong); adding text joins the two as text, unless
// the text starts like a duration ("1 fortnight"), which is a mistake too.
// The parse-time check and evaluation both ask it, so a duration written
// in the expression and one read from a note are held to one rule.
func dateOffset(op, s string) (d Duration, ok bool, problem string) {
	if d, ok := parseDuration(s); ok {
		return d, true, ""
	}
	if op == "-" || startsLikeDuration(s) {
		return Duration{}, false, notADuration(s)
	}
	return Duration{}, false, ""
}

// startsLikeDuration says whether text begins with a number, as a duration
// does ("1d", "-2 weeks", ".5h").
func startsLikeDuration(s string) bool {
	s = strings.TrimLeft(strings.TrimSpace(s), "+-")
	return s != "" && (isDigit(s[0]) || s[0] == '.')
}

// parseDuration reads "1M", "4h", "1 day", "-2 weeks" or several such parts
// ("1d 4h", "1 day, 4 hours").
func parseDuration(s string) (Duration, bool) {
	var d Duration
	rest := strings.TrimSpace(s)
	if rest == "" {
		return d, false
	}
	for rest != "" {
		i := 0
		if rest[0] == '+' || rest[0] == '-' {
			i++
		}
		for i < len(rest) && (isDigit(rest[i]) || rest[i] == '.') {
			i++
		}
		n, err := strconv.ParseFloat(rest[:i], 64)
		if err != nil {
			return d, false
		}
		rest = strings.TrimLeft(rest[i:], " ")
		j := 0
		for j < len(rest) && unicode.IsLetter(rune(rest[j])) {
			j++
		}
		word := rest[:j]
		u, ok := durationUnits[word]
		if !ok && len(word) > 2 {
			u, ok = durationUnits[strings.ToLower(word)]
		}
		if !ok {
			return d, false
		}
		d = addDurations(d, scaleDuration(u, n))
		rest = strings.TrimLeft(rest[j:], " ,")
	}
	return d, true
}

func addDurations(a, b Duration) Duration {
	return Duration{Months: a.Months + b.Months, Days: a.Days + b.Days, Millis: a.Millis + b.Millis}
}

// scaleDuration multiplies a duration; fractions of months and days that
// the calendar cannot add are carried down as milliseconds (30-day months).
func scaleDuration(d Duration, k float64) Duration {
	months := float64(d.Months) * k
	days := float64(d.Days) * k
	wholeM := math.Trunc(months)
	days += (months - wholeM) * 30
	wholeD := math.Trunc(days)
	return Duration{
		Months: int(wholeM),
		Days:   int(wholeD),
		Millis: d.Millis*k + (days-wholeD)*day,
	}
}

// addToDate adds a duration to a date as Moment.js does: months first,
// keeping the day of the month unless the month is shorter (January 31 plus
// a month is the last day of February), then calendar days, then time.
func addToDate(d Date, dur Duration) (Date, bool) {
	t := d.T
	if dur.Months != 0 {
		y, m, dd := t.Date()
		total := int(m) - 1 + dur.Months
		ny := y + floorDiv(total, 12)
		nm := time.Month(total - floorDiv(total, 12)*12 + 1)
		last := time.Date(ny, nm+1, 0, 0, 0, 0, 0, t.Location()).Day()
		if dd > last {
			dd = last
		}
		hh, mi, ss := t.Clock()
		t = time.Date(ny, nm, dd, hh, mi, ss, t.Nanosecond(), t.Location())
	}
	if dur.Days != 0 {
		t = t.AddDate(0, 0, dur.Days)
	}
	if dur.Millis != 0 {
		if math.IsNaN(dur.Millis) || math.Abs(dur.Millis) > 8e15 {
			return Date{}, false
		}
		t = t.Add(time.Duration(dur.Millis * float64(time.Millisecond)))
	}
	if t.Year() < -9999 || t.Year() > 99999 {
		return Date{}, false
	}
	hasTime := d.HasTime || math.Mod(dur.Millis, day) != 0
	return Date{T: t, HasTime: hasTime}, true
}

// dateDifference is a minus b in milliseconds, as the Bases syntax page
// says two dates subtract: (now() + "1d") - now() returns 86400000. It is
// `-` between dates and the Range summary of a column of dates ("the
// difference between Latest and Earliest"). Counted from the Unix epoch
// so that dates centuries apart do not overflow a time.Duration.
func dateDifference(a, b Date) Number {
	return Number(a.T.UnixMilli() - b.T.UnixMilli())
}

func floorDiv(a, b int) int {
	q := a / b
	if (a%b != 0) && ((a < 0) != (b < 0)) {
		q--
	}
	return q
}

// formatDuration prints a duration in words ("1 month 2 days 4 hours"),
// in a form duration() reads back.
func formatDuration(d Duration) string {
	var parts []string
	add := func(n float64, unit string) {
		if n == 0 {
			return
		}
		s := FormatNumber(n) + " " + unit
		if n != 1 && n != -1 {
			s += "s"
		}
		parts = append(parts, s)
	}
	add(float64(d.Months/12), "year")
	add(float64(d.Months%12), "month")
	ms := d.Millis
	sign := 1.0
	if ms < 0 {
		sign, ms = -1, -ms
	}
	// Whole days of milliseconds (the difference of two dates) print as
	// days too.
	dd := math.Floor(ms / day)
	ms -= dd * day
	add(float64(d.Days)+sign*dd, "day")
	h := math.Floor(ms / hour)
	ms -= h * hour
	m := math.Floor(ms / minute)
	ms -= m * minute
	s := math.Floor(ms / second)
	ms -= s * second
	add(sign*h, "hour")
	add(sign*m, "minute")
	add(sign*s, "second")
	add(sign*math.Round(ms*1000)/1000, "millisecond")
	if len(parts) == 0 {
		return "0 seconds"
	}
	return strings.Join(parts, " ")
}

// relativeTime words the distance from now to t as Moment.js's fromNow
// does ("a few seconds ago", "3 days ago", "in 2 months").
func relativeTime(t, now time.Time) string {
	diff := t.Sub(now).Seconds()
	future := diff > 0
	s := math.Abs(diff)
	minutes, hours, days := math.Round(s/60), math.Round(s/3600), math.Round(s/86400)
	var w string
	switch {
	case s < 45:
		w = "a few seconds"
	case s < 90:
		w = "a minute"
	case minutes < 45:
		w = fmt.Sprintf("%.0f minutes", minutes)
	case minutes < 90:
		w = "an hour"
	case hours < 22:
		w = fmt.Sprintf("%.0f hours", hours)
	case hours < 36:
		w = "a day"
	case days < 26:
		w = fmt.Sprintf("%.0f days", days)
	case days < 46:
		w = "a month"
	case days < 320:
		w = fmt.Sprintf("%.0f months", math.Round(days/30.4375))
	case days < 548:
		w = "a year"
	default:
		w = fmt.Sprintf("%.0f years", math.Round(days/365.25))
	}
	if future {
		return "in " + w
	}
	return w + " ago"
}

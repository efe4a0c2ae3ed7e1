package periodic

import (
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

func date(y int, m time.Month, d int) time.Time { return time.Date(y, m, d, 0, 0, 0, 0, time.UTC) }

// TestTokens checks each token against values worked out by hand, on days
// where the locale's weeks (Sunday first, the week of January 1st is
// week 1) and ISO weeks (Monday first, the week of the first Thursday)
// part ways at the turn of the year.
func TestTokens(t *testing.T) {
	for _, tc := range []struct {
		day  time.Time
		want map[string]string
	}{
		{date(2020, 12, 31), map[string]string{ // a Thursday of a leap year
			"YYYY": "2020", "YY": "20", "Y": "2020", "M": "12", "Mo": "12th", "MM": "12", "MMM": "Dec", "MMMM": "December",
			"D": "31", "DD": "31", "Do": "31st", "DDD": "366", "DDDD": "366", "DDDo": "366th",
			"d": "4", "do": "4th", "dd": "Th", "ddd": "Thu", "dddd": "Thursday", "e": "4", "E": "4",
			"w": "1", "ww": "01", "wo": "1st", "gggg": "2021", "gg": "21",
			"W": "53", "WW": "53", "Wo": "53rd", "GGGG": "2020", "GG": "20",
			"Q": "4", "Qo": "4th",
		}},
		{date(2021, 1, 1), map[string]string{ // a Friday
			"YYYY": "2021", "YY": "21", "M": "1", "MM": "01", "MMM": "Jan", "MMMM": "January",
			"D": "1", "DD": "01", "Do": "1st", "DDD": "1", "DDDD": "001",
			"d": "5", "dd": "Fr", "ddd": "Fri", "dddd": "Friday", "e": "5", "E": "5",
			"w": "1", "ww": "01", "gggg": "2021", "W": "53", "WW": "53", "GGGG": "2020", "Q": "1", "Qo": "1st",
		}},
		{date(2021, 1, 3), map[string]string{ // a Sunday: the locale's second week, ISO's last of 2020
			"d": "0", "E": "7", "e": "0", "w": "2", "gggg": "2021", "W": "53", "GGGG": "2020", "Do": "3rd",
		}},
		{date(2026, 12, 28), map[string]string{ // a Monday: week 1 of 2027 in the locale, ISO week 53 of 2026
			"YYYY": "2026", "DDD": "362", "d": "1", "dd": "Mo", "ddd": "Mon", "dddd": "Monday", "E": "1", "e": "1",
			"w": "1", "ww": "01", "gggg": "2027", "gg": "27", "W": "53", "WW": "53", "GGGG": "2026", "Q": "4",
		}},
		{date(2026, 12, 26), map[string]string{ // the Saturday before: still 2026 both ways
			"w": "52", "gggg": "2026", "W": "52", "GGGG": "2026", "dddd": "Saturday", "d": "6", "E": "6",
		}},
		{date(2024, 12, 29), map[string]string{ // a Sunday: week 1 of 2025 in the locale, ISO week 52 of 2024
			"w": "1", "gggg": "2025", "W": "52", "GGGG": "2024", "DDD": "364",
		}},
		{date(2026, 11, 28), map[string]string{
			"Do": "28th", "DDD": "332", "w": "48", "W": "48", "Q": "4", "MMM": "Nov", "dddd": "Saturday",
		}},
		{date(2026, 3, 22), map[string]string{"Do": "22nd", "W": "12", "WW": "12", "Wo": "12th", "Mo": "3rd", "Qo": "1st"}},
		{date(2026, 4, 11), map[string]string{"Do": "11th", "DDD": "101", "DDDo": "101st", "Mo": "4th", "Qo": "2nd"}},
		{date(2026, 4, 23), map[string]string{"Do": "23rd", "DDDo": "113th"}},
		{date(987, 6, 5), map[string]string{"YYYY": "0987", "YY": "87", "YYYYY": "00987", "YYYYYY": "+000987", "y": "987"}},
	} {
		for format, want := range tc.want {
			if got := ParseLayout(format).Format(tc.day); got != want {
				t.Errorf("%s formatted %q = %q; want %q", tc.day.Format("2006-01-02"), format, got, want)
			}
		}
	}
}

// TestFormats checks whole formats: literal text, escapes, runs of a
// letter split as moment splits them, folders, and the time tokens at the
// midnight a note's period starts.
func TestFormats(t *testing.T) {
	day := date(2026, 11, 28)
	for format, want := range map[string]string{
		"YYYY-MM-DD":              "2026-11-28",
		"gggg-[W]ww":              "2026-W48",
		"YYYY-[Q]Q":               "2026-Q4",
		"YYYY/MM/YYYY-MM-DD dddd": "2026/11/2026-11-28 Saturday",
		"[Week of] MMM Do":        "Week of Nov 28th",
		"[Daily]/YYYY/[Q]Q/MMMM":  "Daily/2026/Q4/November",
		`\YYYY`:                   "YYYY",
		`YYYY\`:                   "2026",
		`[a]b]c`:                  "a]bc",
		`[a[b]`:                   "[amb",
		"YYY":                     "262026",
		"MMMMM":                   "November11",
		"ggg":                     "26g",
		"Y\nY":                    "20262026",
		"w|":                      "w|",
		"Qo [quarter]":            "4th quarter",
		"HH:mm:ss A":              "00:00:00 AM",
		"h a k":                   "12 am 24",
		"hmm Hmmss SSS":           "1200 00000 000",
		"NNNN N":                  "Anno Domini AD",
		"Z ZZ":                    "+00:00 +0000",
		"X":                       "1795824000",
		"[]YYYY[]":                "2026",
		"[YYYY-MM-DD] YYYY":       "YYYY-MM-DD 2026",
		"dddd, MMMM Do YYYY":      "Saturday, November 28th 2026",
		"[unclosed YYYY":          "[unclo066 2026", // s, e and d are tokens

		"":                            "",
		"ünï/çødé-DD":                 "ünï/çø6é-28", // d is the weekday
		"[[nested]] YYYY":             "[nested] 2026",
		`\[YYYY]`:                     "[2026]",
		"YYYY-MM-DD-[W]WW-[w]ww-GGGG": "2026-11-28-W48-w48-2026",
	} {
		if got := ParseLayout(format).Format(day); got != want {
			t.Errorf("%q = %q; want %q", format, got, want)
		}
	}
}

func TestISOWeeks(t *testing.T) {
	for format, want := range map[string]bool{
		"GGGG-[W]WW": true, "YYYY-[W]WW": true, "gggg-[W]ww": false, "GGGG-[W]ww": false, "YYYY-MM-DD": false, "[W]": false,
	} {
		if got := ParseLayout(format).ISOWeeks(); got != want {
			t.Errorf("ISOWeeks(%q) = %v; want %v", format, got, want)
		}
	}
}

// FuzzParseLayout: any format parses and formats without panicking, to
// text of bounded length, and any text in brackets is itself.
func FuzzParseLayout(f *testing.F) {
	for _, s := range []string{"YYYY-MM-DD", "gggg-[W]ww", "[a]b]c", `\\[x`, "Y\nY", "w|W|", "Do DDDo", "NNNNN SSSSSSSSS hmmss", "[" + strings.Repeat("Y", 50)} {
		f.Add(s)
	}
	days := []time.Time{date(1, 1, 1), date(2020, 12, 31), date(2026, 12, 28), date(9999, 12, 31)}
	f.Fuzz(func(t *testing.T, format string) {
		if !utf8.ValidString(format) {
			return
		}
		l := ParseLayout(format)
		for _, p := range l.parts {
			if p.tok != "" && tokens[p.tok] == nil {
				t.Fatalf("%q: part %q is no token", format, p.tok)
			}
		}
		for _, d := range days {
			// The longest a character formats to: x, milliseconds since 1970,
			// 15 characters in the year 1.
			if got := l.Format(d); utf8.RuneCountInString(got) > 15*utf8.RuneCountInString(format) {
				t.Fatalf("%q on %v formats to %d characters", format, d, len(got))
			}
		}
		if !strings.ContainsAny(format, "[]") {
			if got := ParseLayout("[" + format + "]").Format(days[1]); got != format {
				t.Fatalf("[%s] formats to %q", format, got)
			}
		}
	})
}

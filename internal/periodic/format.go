// Package periodic finds a vault's periodic notes (daily, weekly, monthly,
// quarterly and yearly) as Obsidian does: the folder and Moment.js format
// from the vault's own settings, formatted for the first day of the
// period, in English with Moment's default locale.
package periodic

import (
	"strconv"
	"strings"
	"time"
)

// Layout is a Moment.js format string split into tokens and literal text,
// by the rules of moment's format tokenizer:
//
//   - "[text]" is literal text, up to the last "]" before the next "[";
//   - a backslash makes the token after it literal;
//   - of the token patterns, the first that matches at a position is
//     taken (so "Do" before "DDDo", and a run of Ms is one token of at
//     most four);
//   - any other character is literal, except line breaks, which moment's
//     tokenizer never matches and so leaves out.
//
// Every token moment formats is implemented, in moment's default English
// locale whatever the machine's. It is the one Moment.js formatter of
// jarvis: periodic notes are named with it (after the first moment of their
// period, as Obsidian names them), and Bases' date.format() formats with
// it, so that a base and the periodic notes settings agree on a name.
type Layout struct {
	parts []part
}

// part is one token (tok) or literal text (lit).
type part struct {
	tok string
	lit string
}

// ParseLayout reads a Moment.js format. It never fails: text that is not a
// token is literal, as moment takes it.
func ParseLayout(format string) Layout {
	rs := []rune(format)
	var l Layout
	for i := 0; i < len(rs); {
		if n := bracketed(rs, i); n > 0 {
			l.literal(string(rs[i+1 : i+n-1]))
			i += n
			continue
		}
		if rs[i] == '\\' && i+1 < len(rs) {
			if n := tokenLen(rs, i+1); n > 0 {
				l.literal(strings.ReplaceAll(string(rs[i+1:i+1+n]), `\`, ""))
				i += 1 + n
				continue
			}
		}
		n := tokenLen(rs, i)
		if n == 0 {
			i++ // a line break: no pattern matches it
			continue
		}
		tok := string(rs[i : i+n])
		if _, known := tokens[tok]; known {
			l.parts = append(l.parts, part{tok: tok})
		} else {
			l.literal(strings.ReplaceAll(tok, `\`, ""))
		}
		i += n
	}
	return l
}

func (l *Layout) literal(s string) {
	if s == "" {
		return
	}
	if n := len(l.parts); n > 0 && l.parts[n-1].tok == "" {
		l.parts[n-1].lit += s
		return
	}
	l.parts = append(l.parts, part{lit: s})
}

// bracketed is the length of the "[literal]" at rs[i], or 0.
func bracketed(rs []rune, i int) int {
	if rs[i] != '[' {
		return 0
	}
	end := -1
	for j := i + 1; j < len(rs) && rs[j] != '['; j++ {
		if rs[j] == ']' {
			end = j
		}
	}
	if end < 0 {
		return 0
	}
	return end - i + 1
}

// tokenLen is the length of the token pattern of moment's tokenizer that
// matches first at rs[i]; 1 for any other character, and 0 for a line
// break.
func tokenLen(rs []rune, i int) int {
	at := func(j int) rune {
		if j < len(rs) {
			return rs[j]
		}
		return 0
	}
	run := func(c rune, most int) int {
		n := 0
		for n < most && at(i+n) == c {
			n++
		}
		return n
	}
	c := rs[i]
	switch {
	case (c == 'H' || c == 'h') && at(i+1) == 'm' && at(i+2) == 'm':
		if at(i+3) == 's' && at(i+4) == 's' {
			return 5
		}
		return 3
	case c == 'M' && at(i+1) == 'o':
		return 2
	case c == 'M':
		return run('M', 4)
	case c == 'D' && at(i+1) == 'o':
		return 2
	case c == 'D' && at(i+1) == 'D' && at(i+2) == 'D' && at(i+3) == 'o':
		return 4
	case c == 'D':
		return run('D', 4)
	case c == 'd' && at(i+1) == 'd':
		return run('d', 4)
	case c == 'd':
		if at(i+1) == 'o' {
			return 2
		}
		return 1
	case c == 'w' || c == 'W':
		if n := at(i + 1); n == 'o' || n == '|' || n == c {
			return 2
		}
		return 1
	case c == 'Q':
		if at(i+1) == 'o' {
			return 2
		}
		return 1
	case c == 'N':
		return run('N', 5)
	case c == 'Y' && run('Y', 6) >= 2:
		switch n := run('Y', 6); {
		case n >= 4:
			return n
		default:
			return 2
		}
	case c == 'y' && run('y', 4) >= 2:
		return run('y', 4)
	case c == 'y':
		if at(i+1) == 'o' {
			return 2
		}
		return 1
	case (c == 'g' || c == 'G') && run(c, 5) >= 2:
		switch n := run(c, 5); {
		case n >= 4:
			return n
		default:
			return 2
		}
	case c == 'h' || c == 'H' || c == 'k' || c == 'm' || c == 's' || c == 'z' || c == 'Z':
		return run(c, 2)
	case c == 'S':
		return run('S', 9)
	case c == '\n' || c == '\r' || c == '\u2028' || c == '\u2029':
		return 0
	}
	return 1
}

// Format is the layout applied to t, in English.
func (l Layout) Format(t time.Time) string {
	var b strings.Builder
	for _, p := range l.parts {
		if p.tok == "" {
			b.WriteString(p.lit)
			continue
		}
		b.WriteString(tokens[p.tok](t))
	}
	return b.String()
}

// ISOWeeks reports whether the layout numbers weeks by ISO 8601 (W, GGGG)
// and not by the locale (w, gggg): its weeks then start on Monday.
func (l Layout) ISOWeeks() bool {
	iso, locale := false, false
	for _, p := range l.parts {
		switch {
		case strings.HasPrefix(p.tok, "W"), strings.HasPrefix(p.tok, "GG"), p.tok == "E":
			iso = true
		case strings.HasPrefix(p.tok, "w"), strings.HasPrefix(p.tok, "gg"), p.tok == "e":
			locale = true
		}
	}
	return iso && !locale
}

var (
	monthNames = []string{"January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November", "December"}
	dayNames   = []string{"Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"}
)

// tokens are the formatting functions of moment's tokens, English locale.
var tokens = map[string]func(time.Time) string{}

func init() {
	num := func(f func(time.Time) int) func(time.Time) string {
		return func(t time.Time) string { return strconv.Itoa(f(t)) }
	}
	pad := func(f func(time.Time) int, width int, sign bool) func(time.Time) string {
		return func(t time.Time) string { return zeroFill(f(t), width, sign) }
	}
	ord := func(f func(time.Time) int) func(time.Time) string {
		return func(t time.Time) string { return ordinal(f(t)) }
	}
	month := func(t time.Time) int { return int(t.Month()) }
	day := func(t time.Time) int { return t.Day() }
	yday := func(t time.Time) int { return t.YearDay() }
	wday := func(t time.Time) int { return int(t.Weekday()) }
	isoDay := func(t time.Time) int { return (int(t.Weekday())+6)%7 + 1 }
	year := func(t time.Time) int { return t.Year() }
	week := func(t time.Time) int { w, _ := LocaleWeek(t); return w }
	weekYear := func(t time.Time) int { _, y := LocaleWeek(t); return y }
	isoWeek := func(t time.Time) int { _, w := t.ISOWeek(); return w }
	isoYear := func(t time.Time) int { y, _ := t.ISOWeek(); return y }
	quarter := func(t time.Time) int { return (int(t.Month())-1)/3 + 1 }
	hour := func(t time.Time) int { return t.Hour() }
	hour12 := func(t time.Time) int { return (t.Hour()+11)%12 + 1 }
	hour24 := func(t time.Time) int {
		if t.Hour() == 0 {
			return 24
		}
		return t.Hour()
	}
	minute := func(t time.Time) int { return t.Minute() }
	second := func(t time.Time) int { return t.Second() }
	mod100 := func(f func(time.Time) int) func(time.Time) int {
		return func(t time.Time) int { return f(t) % 100 }
	}
	for tok, f := range map[string]func(time.Time) string{
		"M": num(month), "Mo": ord(month), "MM": pad(month, 2, false),
		"MMM":  func(t time.Time) string { return monthNames[t.Month()-1][:3] },
		"MMMM": func(t time.Time) string { return monthNames[t.Month()-1] },
		"D":    num(day), "Do": ord(day), "DD": pad(day, 2, false),
		"DDD": num(yday), "DDDo": ord(yday), "DDDD": pad(yday, 3, false),
		"d": num(wday), "do": ord(wday),
		"dd":   func(t time.Time) string { return dayNames[t.Weekday()][:2] },
		"ddd":  func(t time.Time) string { return dayNames[t.Weekday()][:3] },
		"dddd": func(t time.Time) string { return dayNames[t.Weekday()] },
		// The locale's first day of the week is Sunday, as d counts.
		"e": num(wday), "E": num(isoDay),
		"w": num(week), "wo": ord(week), "ww": pad(week, 2, false),
		"W": num(isoWeek), "Wo": ord(isoWeek), "WW": pad(isoWeek, 2, false),
		"Q": num(quarter), "Qo": ord(quarter),
		"Y": pad(year, 4, false), "YY": pad(mod100(year), 2, false), "YYYY": pad(year, 4, false),
		"YYYYY": pad(year, 5, false), "YYYYYY": pad(year, 6, true),
		"gg": pad(mod100(weekYear), 2, false), "gggg": pad(weekYear, 4, false), "ggggg": pad(weekYear, 5, false),
		"GG": pad(mod100(isoYear), 2, false), "GGGG": pad(isoYear, 4, false), "GGGGG": pad(isoYear, 5, false),
		// Eras: every date jarvis names is Anno Domini.
		"N": era("AD"), "NN": era("AD"), "NNN": era("AD"), "NNNN": era("Anno Domini"), "NNNNN": era("AD"),
		"y": num(year), "yo": ord(year), "yy": pad(year, 2, false), "yyy": pad(year, 3, false), "yyyy": pad(year, 4, false),
		"H": num(hour), "HH": pad(hour, 2, false), "h": num(hour12), "hh": pad(hour12, 2, false),
		"k": num(hour24), "kk": pad(hour24, 2, false),
		"m": num(minute), "mm": pad(minute, 2, false), "s": num(second), "ss": pad(second, 2, false),
		"hmm": func(t time.Time) string { return strconv.Itoa(hour12(t)) + zeroFill(t.Minute(), 2, false) },
		"hmmss": func(t time.Time) string {
			return strconv.Itoa(hour12(t)) + zeroFill(t.Minute(), 2, false) + zeroFill(t.Second(), 2, false)
		},
		"Hmm": func(t time.Time) string { return strconv.Itoa(t.Hour()) + zeroFill(t.Minute(), 2, false) },
		"Hmmss": func(t time.Time) string {
			return strconv.Itoa(t.Hour()) + zeroFill(t.Minute(), 2, false) + zeroFill(t.Second(), 2, false)
		},
		"a":  func(t time.Time) string { return strings.ToLower(meridiem(t)) },
		"A":  meridiem,
		"x":  func(t time.Time) string { return strconv.FormatInt(t.UnixMilli(), 10) },
		"X":  func(t time.Time) string { return strconv.FormatInt(t.Unix(), 10) },
		"Z":  func(t time.Time) string { return offset(t, ":") },
		"ZZ": func(t time.Time) string { return offset(t, "") },
		// moment names no zone without moment-timezone.
		"z": func(time.Time) string { return "" }, "zz": func(time.Time) string { return "" },
	} {
		tokens[tok] = f
	}
	// Fractions of a second: moment keeps milliseconds, so S is the
	// tenths, SS the hundredths, SSS the milliseconds and each S beyond
	// adds a zero.
	for n := 1; n <= 9; n++ {
		tokens[strings.Repeat("S", n)] = func(t time.Time) string {
			ms := zeroFill(t.Nanosecond()/int(time.Millisecond), 3, false)
			if n <= 3 {
				return ms[:n]
			}
			return ms + strings.Repeat("0", n-3)
		}
	}
}

func era(name string) func(time.Time) string { return func(time.Time) string { return name } }

func meridiem(t time.Time) string {
	if t.Hour() < 12 {
		return "AM"
	}
	return "PM"
}

// offset is t's offset from UTC as moment writes it: +01:00, or +0100
// with sep "".
func offset(t time.Time, sep string) string {
	_, secs := t.Zone()
	sign := "+"
	if secs < 0 {
		sign, secs = "-", -secs
	}
	return sign + zeroFill(secs/3600, 2, false) + sep + zeroFill(secs/60%60, 2, false)
}

// zeroFill is moment's zeroFill: n with zeros in front to width digits,
// and a sign when negative or when sign is true.
func zeroFill(n, width int, sign bool) string {
	s := strconv.Itoa(max(n, -n))
	if len(s) < width {
		s = strings.Repeat("0", width-len(s)) + s
	}
	switch {
	case n < 0:
		return "-" + s
	case sign:
		return "+" + s
	}
	return s
}

// ordinal is n with its English ordinal suffix: 1st, 2nd, 3rd, 11th.
func ordinal(n int) string {
	suffix := "th"
	if n%100/10 != 1 {
		switch n % 10 {
		case 1:
			suffix = "st"
		case 2:
			suffix = "nd"
		case 3:
			suffix = "rd"
		}
	}
	return strconv.Itoa(n) + suffix
}

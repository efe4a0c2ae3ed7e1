package periodic

import "time"

// Moment's default locale (en) numbers weeks from Sunday (dow 0), the
// first week of a year being the one that holds January 1st (doy 6).
const (
	localeDow = 0
	localeDoy = 6
)

// LocaleWeek is moment's week() and weekYear() of t in its default
// locale: the week that holds January 1st is week 1, so the last days of
// December may be week 1 of the next year.
func LocaleWeek(t time.Time) (week, year int) {
	return weekOfYear(t, localeDow, localeDoy)
}

// weekOfYear is moment's weekOfYear: the week and week-numbering year of
// t for weeks starting on weekday dow whose first week holds day 7+dow-doy
// of January.
func weekOfYear(t time.Time, dow, doy int) (int, int) {
	y := t.Year()
	w := (t.YearDay()-firstWeekOffset(y, dow, doy)-1)/7 + 1
	if t.YearDay()-firstWeekOffset(y, dow, doy)-1 < 0 {
		w = 0 // the division rounds toward zero: the days before are week 0
	}
	switch {
	case w < 1:
		return w + weeksInYear(y-1, dow, doy), y - 1
	case w > weeksInYear(y, dow, doy):
		return w - weeksInYear(y, dow, doy), y + 1
	}
	return w, y
}

// firstWeekOffset is the day of year, less one, on which week 1 of year
// starts (0 or less: it may start in December).
func firstWeekOffset(year, dow, doy int) int {
	fwd := 7 + dow - doy // this day of January is always in week 1
	fwdlw := (7 + int(time.Date(year, time.January, fwd, 0, 0, 0, 0, time.UTC).Weekday()) - dow) % 7
	return -fwdlw + fwd - 1
}

func weeksInYear(year, dow, doy int) int {
	days := time.Date(year, time.December, 31, 0, 0, 0, 0, time.UTC).YearDay()
	return (days - firstWeekOffset(year, dow, doy) + firstWeekOffset(year+1, dow, doy)) / 7
}

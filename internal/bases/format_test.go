package bases

import (
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jarvis-mcp/jarvis/internal/periodic"
)

// TestFormatMatchesPeriodicNotes is the seam between the two callers of
// Moment.js formatting: date.format(layout) in a base and the name a
// periodic note gets from the same layout in the vault's settings must
// agree, since a base that builds a daily note's link by formatting a date
// has to find the note the settings name. The layouts cover brackets,
// escapes, ordinals, ISO and locale weeks, and English month and day
// names (moment's default locale, whatever the machine's).
func TestFormatMatchesPeriodicNotes(t *testing.T) {
	layouts := []string{
		"YYYY-MM-DD",
		"dddd, MMMM Do YYYY",
		"[Week of] MMM Do",
		"[Daily] YYYY [Q]Q MMMM",
		"gggg-[W]ww",
		"GGGG-[W]WW",
		"YYYY-[W]WW E",
		"Wo [week], wo [locale week]",
		"DDDo [day of the year], DDD DDDD",
		"Qo [quarter] Mo [month]",
		"ddd dd d do e",
		"[YYYY-MM-DD] YYYY",
		`\YYYY-MM`,
		"[a]b]c",
		"[unclosed YYYY",
		"YYY MMMMM ggg",
		"NNNN y yo",
		"HH:mm:ss.SSS A a h k",
	}
	days := []time.Time{
		time.Date(2020, 12, 31, 0, 0, 0, 0, time.UTC), // ISO week 53 of 2020, locale week 1 of 2021
		time.Date(2021, 1, 3, 0, 0, 0, 0, time.UTC),
		time.Date(2026, 11, 28, 0, 0, 0, 0, time.UTC),
		time.Date(2026, 4, 11, 0, 0, 0, 0, time.UTC), // 11th, 101st
		time.Date(2024, 12, 29, 0, 0, 0, 0, time.UTC),
	}
	env := &Env{Now: testNow}
	for _, layout := range layouts {
		for _, day := range days {
			iso := day.Format("2006-01-02")
			got, err := evalString(t, env, nil, `date("`+iso+`").format(`+strconv.Quote(layout)+`)`)
			if err != nil {
				t.Errorf("%q on %s: %v", layout, iso, err)
				continue
			}
			note, err := periodic.Locate(periodic.Daily, periodic.Settings{Format: layout}, day)
			if err != nil {
				t.Errorf("%q on %s: periodic note: %v", layout, iso, err)
				continue
			}
			want := strings.TrimSuffix(note.Path, ".md")
			if Display(got) != want {
				t.Errorf("%q on %s: date.format gives %q, the periodic note is named %q", layout, iso, Display(got), want)
			}
		}
	}
}

// TestFormatTimes checks the tokens a periodic note never shows, since its
// moment is midnight: the time of day and the fractions of a second.
func TestFormatTimes(t *testing.T) {
	runEval(t, []evalCase{
		{`date("2025-05-07 15:04:05.678").format("HH:mm:ss.SSS S SS SSSS")`, "string:15:04:05.678 6 67 6780"},
		{`date("2025-05-07 00:30:00").format("h:mm a, k [o'clock], hmm Hmm")`, "string:12:30 am, 24 o'clock, 1230 030"},
		{`date("2025-05-07 13:00:00").format("hh A")`, "string:01 PM"},
	})
}

package periodic

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jarvis-mcp/jarvis/internal/vault"
)

func TestRange(t *testing.T) {
	day := date(2026, 11, 28) // a Saturday
	for _, tc := range []struct {
		p          Period
		day        time.Time
		iso        bool
		start, end time.Time
	}{
		{Daily, day, false, day, day},
		{Weekly, day, false, date(2026, 11, 22), day},
		{Weekly, day, true, date(2026, 11, 23), date(2026, 11, 29)},
		{Weekly, date(2026, 11, 29), true, date(2026, 11, 23), date(2026, 11, 29)}, // a Sunday ends an ISO week
		{Weekly, date(2020, 12, 31), false, date(2020, 12, 27), date(2021, 1, 2)},
		{Monthly, date(2024, 2, 10), false, date(2024, 2, 1), date(2024, 2, 29)},
		{Quarterly, day, false, date(2026, 10, 1), date(2026, 12, 31)},
		{Quarterly, date(2026, 3, 31), false, date(2026, 1, 1), date(2026, 3, 31)},
		{Yearly, day, false, date(2026, 1, 1), date(2026, 12, 31)},
	} {
		r := tc.p.Range(tc.day, tc.iso)
		if !r.Start.Equal(tc.start) || !r.End.Equal(tc.end) {
			t.Errorf("%s of %s (iso %v) = %s to %s; want %s to %s", tc.p, tc.day.Format(time.DateOnly), tc.iso,
				r.Start.Format(time.DateOnly), r.End.Format(time.DateOnly), tc.start.Format(time.DateOnly), tc.end.Format(time.DateOnly))
		}
	}
}

// TestDay reads the date argument in the time zone of the clock: late in
// the evening west of Greenwich is still that day, whatever UTC says.
func TestDay(t *testing.T) {
	west := time.FixedZone("west", -10*3600)
	now := time.Date(2026, 11, 28, 23, 30, 0, 0, west) // 2026-11-29 in UTC
	in := func(y int, m time.Month, d int) time.Time { return time.Date(y, m, d, 0, 0, 0, 0, west) }
	for _, tc := range []struct {
		p    Period
		arg  string
		want time.Time
	}{
		{Daily, "", in(2026, 11, 28)},
		{Daily, "today", in(2026, 11, 28)},
		{Daily, " Yesterday ", in(2026, 11, 27)},
		{Daily, "TOMORROW", in(2026, 11, 29)},
		{Daily, "2020-02-29", in(2020, 2, 29)},
		{Daily, "-1", in(2026, 11, 27)},
		{Daily, "+3", in(2026, 12, 1)},
		{Weekly, "-1", in(2026, 11, 21)},
		{Monthly, "-1", in(2026, 10, 1)},
		{Monthly, "3", in(2027, 2, 1)},
		{Quarterly, "+2", in(2027, 4, 1)},
		{Yearly, "-26", in(2000, 1, 1)},
		{Yearly, "0", in(2026, 1, 1)},
	} {
		got, err := tc.p.Day(tc.arg, now)
		if err != nil || !got.Equal(tc.want) {
			t.Errorf("%s %q = %v, %v; want %v", tc.p, tc.arg, got, err, tc.want)
		}
	}
	for _, tc := range []struct {
		p    Period
		arg  string
		want string
	}{
		{Daily, "someday", "date must be today, yesterday, tomorrow"},
		{Daily, "2026-13-01", `"2026-13-01" is not a day: a month is 01 to 12`},
		{Daily, "2026-11-3", "is not a date written as year-month-day"},
		{Daily, "2026-02-30", `"2026-02-30" is not a day: February 2026 has 28 days`},
		{Daily, "2028-02-30", `February 2028 has 29 days`},
		{Daily, "1.5", "date must be"},
		{Daily, strings.Repeat("9", 41), "got 41 characters"},
		{Daily, "99999999999999999999", "date must be"},
		{Yearly, "-2026", "beyond the years 1 to 9999"},
		{Yearly, "8000", "beyond the years 1 to 9999"},
		{Monthly, "-4000001", "months from now is beyond"},
		{Daily, "-2026-01-01", "date must be"},
	} {
		if _, err := tc.p.Day(tc.arg, now); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s %q: error %v; want one saying %q", tc.p, tc.arg, err, tc.want)
		}
	}
}

func TestParsePeriod(t *testing.T) {
	for s, want := range map[string]Period{"": Daily, "Weekly": Weekly, " yearly ": Yearly, "quarterly": Quarterly} {
		if got, err := ParsePeriod(s); err != nil || got != want {
			t.Errorf("ParsePeriod(%q) = %q, %v", s, got, err)
		}
	}
	if _, err := ParsePeriod("fortnightly"); err == nil || !strings.Contains(err.Error(), "daily, weekly, monthly, quarterly or yearly") {
		t.Errorf("ParsePeriod(fortnightly): %v", err)
	}
}

// TestLocate names notes at the turn of the year: a week's note is named
// after its first day, Sunday for locale weeks, Monday for ISO ones.
func TestLocate(t *testing.T) {
	iso := Settings{Folder: "Weekly", Format: "GGGG-[W]WW"}
	for _, tc := range []struct {
		p    Period
		s    Settings
		day  time.Time
		want string
	}{
		{Weekly, Defaults(Weekly), date(2020, 12, 31), "2021-W01.md"},
		{Weekly, iso, date(2021, 1, 1), "Weekly/2020-W53.md"},
		{Weekly, iso, date(2026, 12, 28), "Weekly/2026-W53.md"},
		{Weekly, Defaults(Weekly), date(2026, 12, 28), "2027-W01.md"},
		{Weekly, iso, date(2026, 11, 29), "Weekly/2026-W48.md"},
		{Weekly, Defaults(Weekly), date(2026, 11, 29), "2026-W49.md"},
		{Daily, Settings{Folder: "/Journal/", Format: "YYYY/MM/YYYY-MM-DD"}, date(2021, 1, 1), "Journal/2021/01/2021-01-01.md"},
		{Monthly, Defaults(Monthly), date(2021, 1, 1), "2021-01.md"},
		{Quarterly, Defaults(Quarterly), date(2020, 12, 31), "2020-Q4.md"},
		{Yearly, Defaults(Yearly), date(2020, 12, 31), "2020.md"},
	} {
		n, err := Locate(tc.p, tc.s, tc.day)
		if err != nil || n.Path != tc.want {
			t.Errorf("%s %q on %s = %q, %v; want %q", tc.p, tc.s.Format, tc.day.Format(time.DateOnly), n.Path, err, tc.want)
		}
	}
}

// TestNotePath: a folder or format cannot lead out of the vault, nor make
// a path longer than a vault path may be; an absolute folder is read from
// the vault folder, as Obsidian reads it.
func TestNotePath(t *testing.T) {
	for _, tc := range [][3]string{
		{"Daily", "2026-11-28", "Daily/2026-11-28.md"},
		{"/Daily//", "2026-11-28.md", "Daily/2026-11-28.md"},
		{`Daily\Sub`, `a\b`, "Daily/Sub/a/b.md"},
		{"/etc", "passwd", "etc/passwd.md"},
		{"", "Cafe\u0301", "Café.md"},
	} {
		if got, err := NotePath(tc[0], tc[1]); err != nil || got != tc[2] {
			t.Errorf("NotePath(%q, %q) = %q, %v; want %q", tc[0], tc[1], got, err, tc[2])
		}
	}
	for _, tc := range [][2]string{{"../outside", "x"}, {"Daily", "../../etc/passwd"}, {"a/..", "b"}, {`..\..`, "x"}} {
		if got, err := NotePath(tc[0], tc[1]); !errors.Is(err, ErrOutside) {
			t.Errorf("NotePath(%q, %q) = %q, %v; want ErrOutside", tc[0], tc[1], got, err)
		}
	}
	if _, err := NotePath("", strings.Repeat("x", vault.MaxPathChars)); err == nil {
		t.Error("a path over the bound was taken")
	}
	if _, err := NotePath("", "a\x00b"); err == nil {
		t.Error("a NUL was taken")
	}
}

func TestFindByName(t *testing.T) {
	paths := []string{"Archive/2026-11-28.md", "Daily/2025/2026-11-28.md", "Daily/2026-11-28.md", "Other/x.md"}
	if got, ok := FindByName(paths, "/Daily/", "Daily/2026/11/2026-11-28.md"); !ok || got != "Daily/2025/2026-11-28.md" {
		t.Errorf("FindByName in Daily = %q, %v", got, ok)
	}
	if got, ok := FindByName(paths, "", "2026-11-28.md"); !ok || got != "Archive/2026-11-28.md" {
		t.Errorf("FindByName in the vault = %q, %v", got, ok)
	}
	if got, ok := FindByName(paths, "Journal", "Journal/2026-11-28.md"); ok {
		t.Errorf("FindByName outside the folder found %q", got)
	}
}

// settingsFiles are settings files by name; a name missing is a file that
// does not exist, an error value one that cannot be read.
type settingsFiles map[string]any

func (f settingsFiles) ReadSettings(name string) ([]byte, error) {
	switch v := f[name].(type) {
	case string:
		return []byte(v), nil
	case error:
		return nil, v
	}
	return nil, fs.ErrNotExist
}

func TestLoad(t *testing.T) {
	daily := `{"folder": " Journal ", "format": "DD.MM.YYYY", "template": "Templates/Day"}`
	plugin := `{"daily": {"enabled": true, "folder": "Periodic/Daily", "format": "YYYY-MM-DD dddd"},
		"weekly": {"enabled": true, "folder": "Periodic/Weekly", "format": ""},
		"monthly": {"enabled": false, "folder": "Months", "format": "MMMM YYYY"},
		"quarterly": "not an object"}`
	for _, tc := range []struct {
		name    string
		files   settingsFiles
		p       Period
		want    Settings // Source compared by its start
		warning string   // a warning says this, when not ""
	}{
		{"nothing", settingsFiles{}, Daily, Settings{Format: "YYYY-MM-DD", Source: "Obsidian's defaults"}, ""},
		{"nothing weekly", settingsFiles{}, Weekly, Settings{Format: "gggg-[W]ww", Source: "the Periodic Notes plugin's defaults"}, ""},
		{"daily notes", settingsFiles{DailyNotesFile: daily}, Daily,
			Settings{Folder: "Journal", Format: "DD.MM.YYYY", Template: "Templates/Day", Source: "the Daily notes settings"}, ""},
		{"daily notes say nothing of weeks", settingsFiles{DailyNotesFile: daily}, Weekly, Settings{Format: "gggg-[W]ww", Source: "the Periodic Notes plugin's defaults"}, ""},
		{"empty format", settingsFiles{DailyNotesFile: `{"folder": "Journal", "format": ""}`}, Daily,
			Settings{Folder: "Journal", Format: "YYYY-MM-DD", Source: "the Daily notes settings"}, ""},
		{"plugin first", settingsFiles{DailyNotesFile: daily, PeriodicNotesFile: plugin}, Daily,
			Settings{Folder: "Periodic/Daily", Format: "YYYY-MM-DD dddd", Source: "the Periodic Notes plugin's daily settings"}, ""},
		{"plugin weekly with the default format", settingsFiles{PeriodicNotesFile: plugin}, Weekly,
			Settings{Folder: "Periodic/Weekly", Format: "gggg-[W]ww", Source: "the Periodic Notes plugin's weekly settings"}, ""},
		{"plugin disabled for months", settingsFiles{PeriodicNotesFile: plugin}, Monthly, Settings{Format: "YYYY-MM", Source: "the Periodic Notes plugin's defaults"}, ""},
		{"plugin entry broken", settingsFiles{PeriodicNotesFile: plugin}, Quarterly,
			Settings{Format: "YYYY-[Q]Q", Source: "the Periodic Notes plugin's defaults"}, "the quarterly entry of .obsidian/plugins/periodic-notes/data.json was passed over"},
		{"broken daily notes", settingsFiles{DailyNotesFile: `{"folder": "Jour`}, Daily,
			Settings{Format: "YYYY-MM-DD", Source: "Obsidian's defaults"}, ".obsidian/daily-notes.json was passed over: it is not valid JSON"},
		{"daily notes of the wrong kind", settingsFiles{DailyNotesFile: `{"format": 5}`}, Daily,
			Settings{Format: "YYYY-MM-DD", Source: "Obsidian's defaults"}, "its format is a number"},
		{"daily notes not an object", settingsFiles{DailyNotesFile: `[1]`}, Daily,
			Settings{Format: "YYYY-MM-DD", Source: "Obsidian's defaults"}, "it holds an array"},
		{"broken plugin, daily notes used", settingsFiles{DailyNotesFile: daily, PeriodicNotesFile: "{{"}, Daily,
			Settings{Folder: "Journal", Format: "DD.MM.YYYY", Template: "Templates/Day", Source: "the Daily notes settings"}, "data.json was passed over: it is not valid JSON"},
		{"too big", settingsFiles{DailyNotesFile: vault.ErrSettingsTooBig}, Daily,
			Settings{Format: "YYYY-MM-DD", Source: "Obsidian's defaults"}, "over 256 KB"},
		{"a link out of the vault", settingsFiles{DailyNotesFile: vault.ErrOutside}, Daily,
			Settings{Format: "YYYY-MM-DD", Source: "Obsidian's defaults"}, "a link to a file outside the vault"},
		{"format too long", settingsFiles{DailyNotesFile: `{"format": "` + strings.Repeat("Y", MaxFormatChars+1) + `"}`}, Daily,
			Settings{Format: "YYYY-MM-DD", Source: "the Daily notes settings"}, "longer than 200 characters, so the default was used"},
	} {
		got, warnings := Load(tc.files, tc.p)
		checkCreator(t, tc.name, got)
		got.Creator, got.PluginUnset = "", false
		source := got.Source
		got.Source = ""
		wantSource := tc.want.Source
		tc.want.Source = ""
		if got != tc.want || !strings.HasPrefix(source, wantSource) {
			t.Errorf("%s: %+v from %q; want %+v from %q…", tc.name, got, source, tc.want, wantSource)
		}
		joined := strings.Join(warnings, "\n")
		if tc.warning == "" && joined != "" || !strings.Contains(joined, tc.warning) {
			t.Errorf("%s: warnings %q; want one saying %q", tc.name, joined, tc.warning)
		}
	}
}

// TestLoadPluginShapes reads the Periodic Notes plugin's settings in both
// of the shapes its versions write: an entry per period at the top (before
// 1.0), and calendar sets with an entry per unit (day, week, ...) and the
// set in use named by activeCalendarSet (1.0), where the older entries
// left from a migration are not read.
func TestLoadPluginShapes(t *testing.T) {
	plugin := func(dir string) settingsFiles {
		data, err := os.ReadFile(filepath.Join("testdata", "settings", dir, "data.json"))
		if err != nil {
			t.Fatal(err)
		}
		return settingsFiles{PeriodicNotesFile: string(data)}
	}
	legacy, sets := plugin("legacy"), plugin("calendar-sets")
	const defaults = "the Periodic Notes plugin's defaults"
	for _, tc := range []struct {
		name  string
		files settingsFiles
		p     Period
		want  Settings // Source compared by its start
	}{
		{"legacy daily", legacy, Daily, Settings{Folder: "Journal/Days", Format: "YYYY-MM-DD", Template: "Templates/Day", Source: "the Periodic Notes plugin's daily settings in"}},
		{"legacy weekly", legacy, Weekly, Settings{Folder: "Journal/Weeks", Format: "gggg-[W]ww", Source: "the Periodic Notes plugin's weekly settings in"}},
		{"legacy monthly", legacy, Monthly, Settings{Folder: "Journal/Months", Format: "YYYY-MM", Template: "Templates/Month", Source: "the Periodic Notes plugin's monthly settings"}},
		{"legacy quarterly disabled", legacy, Quarterly, Settings{Format: "YYYY-[Q]Q", Source: defaults}},
		{"legacy yearly", legacy, Yearly, Settings{Format: "YYYY", Source: "the Periodic Notes plugin's yearly settings"}},
		{"set daily", sets, Daily, Settings{Folder: "Work/Daily", Format: "YYYY-MM-DD dddd", Template: "Templates/Work day.md",
			Source: `the Periodic Notes plugin's daily settings (the calendar set "Work") in`}},
		{"set weekly", sets, Weekly, Settings{Folder: "Work/Weekly", Format: "GGGG-[W]WW", Template: "Templates/Work week.md",
			Source: `the Periodic Notes plugin's weekly settings (the calendar set "Work")`}},
		{"set monthly disabled", sets, Monthly, Settings{Format: "YYYY-MM", Source: defaults}},
		{"set quarterly", sets, Quarterly, Settings{Folder: "Work/Quarterly", Format: "YYYY-[Q]Q", Source: `the Periodic Notes plugin's quarterly settings (the calendar set "Work")`}},
		{"set yearly", sets, Yearly, Settings{Folder: "Work", Format: "[Year] YYYY", Source: `the Periodic Notes plugin's yearly settings (the calendar set "Work")`}},
		{"no active set named: Default", settingsFiles{PeriodicNotesFile: `{"calendarSets": [{"id": "Other", "day": {"enabled": true, "folder": "O"}},
			{"id": "Default", "day": {"enabled": true, "folder": "D", "format": "YYYYMMDD"}}]}`}, Daily,
			Settings{Folder: "D", Format: "YYYYMMDD", Source: `the Periodic Notes plugin's daily settings (the calendar set "Default")`}},
		{"active set missing: the first", settingsFiles{PeriodicNotesFile: `{"activeCalendarSet": "Gone", "calendarSets": [{"day": {"enabled": true, "folder": "F"}}]}`}, Daily,
			Settings{Folder: "F", Format: "YYYY-MM-DD", Source: `the Periodic Notes plugin's daily settings (the first calendar set)`}},
	} {
		got, warnings := Load(tc.files, tc.p)
		checkCreator(t, tc.name, got)
		got.Creator, got.PluginUnset = "", false
		source := got.Source
		got.Source = ""
		wantSource := tc.want.Source
		tc.want.Source = ""
		if got != tc.want || !strings.HasPrefix(source, wantSource) {
			t.Errorf("%s: %+v from %q; want %+v from %q…", tc.name, got, source, tc.want, wantSource)
		}
		if len(warnings) > 0 {
			t.Errorf("%s: warnings %q", tc.name, warnings)
		}
	}

	// A broken entry of the set in use is named in the warning.
	_, warnings := Load(settingsFiles{PeriodicNotesFile: `{"calendarSets": [{"id": "Default", "week": [1]}]}`}, Weekly)
	if want := `the week entry of the calendar set "Default" in .obsidian/plugins/periodic-notes/data.json was passed over: it holds an array, not the settings Obsidian writes`; len(warnings) != 1 || warnings[0] != want {
		t.Errorf("warnings %q; want %q", warnings, want)
	}
}

// checkCreator checks who the settings say makes the notes: the Periodic
// Notes plugin when its settings or defaults are used, Obsidian
// otherwise; and that the plugin's defaults are marked as a plugin not
// set up, since Obsidian alone makes no such notes.
func checkCreator(t *testing.T, name string, s Settings) {
	t.Helper()
	plugin := strings.HasPrefix(s.Source, "the Periodic Notes plugin")
	wantCreator := ByObsidian
	if plugin {
		wantCreator = ByPlugin
	}
	unset := s.Source == "the Periodic Notes plugin's defaults"
	if s.Creator != wantCreator || s.PluginUnset != unset {
		t.Errorf("%s: from %q, creator %q, plugin unset %v; want %q, %v", name, s.Source, s.Creator, s.PluginUnset, wantCreator, unset)
	}
}

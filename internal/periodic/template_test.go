package periodic

import (
	"strings"
	"testing"
	"time"
)

// TestFill: a template's placeholders are filled as the Templates plugin
// fills them; other braces are left alone.
func TestFill(t *testing.T) {
	day := time.Date(2026, 11, 27, 0, 0, 0, 0, time.UTC)
	now := time.Date(2026, 11, 28, 9, 5, 7, 0, time.UTC)
	f := TemplateFormats{Date: "YYYY-MM-DD", Time: "HH:mm"}
	for _, tc := range []struct{ in, want string }{
		{"# {{title}}\n\nWritten {{date}} at {{time}}.", "# 2026-11-27\n\nWritten 2026-11-27 at 09:05."},
		{"{{date:dddd, MMMM Do YYYY}}", "Friday, November 27th 2026"},
		{"{{ DATE : YYYY-[W]ww }} {{Time:HH:mm:ss}}", "2026-W48 09:05:07"},
		{"{{date:YYYY-MM-DD HH:mm}}", "2026-11-27 09:05"},
		{"{{yesterday}} {{unknown}} {{ title", "{{yesterday}} {{unknown}} {{ title"},
	} {
		if got := Fill(tc.in, day, now, "2026-11-27", f); got != tc.want {
			t.Errorf("Fill(%q)\n got %q\nwant %q", tc.in, got, tc.want)
		}
	}
	if got := Fill("{{date}} {{time}}", day, now, "x", TemplateFormats{Date: "DD.MM.YYYY", Time: "h:mm A"}); got != "27.11.2026 9:05 AM" {
		t.Errorf("the plugin's own formats: %q", got)
	}
}

func TestLoadTemplateFormats(t *testing.T) {
	for _, tc := range []struct {
		name  string
		files settingsFiles
		want  TemplateFormats
		warn  string
	}{
		{"none", settingsFiles{}, TemplateFormats{"YYYY-MM-DD", "HH:mm"}, ""},
		{"set", settingsFiles{TemplatesFile: `{"folder": "Templates", "dateFormat": "DD/MM/YYYY", "timeFormat": ""}`}, TemplateFormats{"DD/MM/YYYY", "HH:mm"}, ""},
		{"broken", settingsFiles{TemplatesFile: `{"dateFormat": `}, TemplateFormats{"YYYY-MM-DD", "HH:mm"}, "templates.json was passed over"},
		{"too long", settingsFiles{TemplatesFile: `{"dateFormat": "` + strings.Repeat("Y", MaxFormatChars+1) + `"}`}, TemplateFormats{"YYYY-MM-DD", "HH:mm"}, "longer than"},
	} {
		got, warns := LoadTemplateFormats(tc.files)
		if got != tc.want || (tc.warn == "") != (len(warns) == 0) || tc.warn != "" && !strings.Contains(strings.Join(warns, " "), tc.warn) {
			t.Errorf("%s: %+v %q; want %+v warning %q", tc.name, got, warns, tc.want, tc.warn)
		}
	}
}

// TestTemplateNote: the template a setting names, as Obsidian finds it:
// without its extension, with or without a leading slash.
func TestTemplateNote(t *testing.T) {
	for in, want := range map[string]string{
		"Templates/Daily":    "Templates/Daily.md",
		"/Templates/Daily":   "Templates/Daily.md",
		"Templates/Daily.md": "Templates/Daily.md",
		`Templates\Week`:     "Templates/Week.md",
		"Day.MD":             "Day.MD",
		"":                   "",
		"/":                  "",
	} {
		if got := TemplateNote(in); got != want {
			t.Errorf("TemplateNote(%q) = %q; want %q", in, got, want)
		}
	}
}

// TestNewNote: a new note's {{title}} is its file name without the
// extension; {{date}} its day, {{time}} the time now.
func TestNewNote(t *testing.T) {
	day := time.Date(2026, 11, 23, 0, 0, 0, 0, time.UTC)
	now := time.Date(2026, 11, 28, 23, 30, 0, 0, time.UTC)
	got := NewNote([]byte("# {{title}}\n{{date}} {{time}}\n"), "Weeks/2026-W48.md", day, now, TemplateFormats{Date: "YYYY-MM-DD", Time: "HH:mm"})
	if want := "# 2026-W48\n2026-11-23 23:30\n"; got != want {
		t.Errorf("NewNote = %q; want %q", got, want)
	}
}

package mcp_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jarvis-mcp/jarvis/internal/config"
	"github.com/jarvis-mcp/jarvis/internal/mcp"
	"github.com/jarvis-mcp/jarvis/internal/sharedtest"
)

// lateEvening is 23:30 on Saturday 2026-11-28 ten hours west of
// Greenwich, when it is already the 29th in UTC: the vault's owner's
// today is the 28th.
var lateEvening = time.Date(2026, 11, 28, 23, 30, 0, 0, time.FixedZone("west", -10*3600))

// periodicVault is a vault with daily notes settings, the Periodic Notes
// plugin's settings for weeks and months, and some of their notes.
func periodicVault(t *testing.T) config.Vault {
	t.Helper()
	dir := t.TempDir()
	sharedtest.WriteFile(t, dir, ".obsidian/daily-notes.json", `{"folder": "Journal", "format": "YYYY-MM-DD", "template": "Templates/Day"}`)
	sharedtest.WriteFile(t, dir, ".obsidian/plugins/periodic-notes/data.json", `{
		"daily": {"enabled": false, "folder": "Ignored", "format": "DD"},
		"weekly": {"enabled": true, "folder": "Weeks/", "format": "GGGG-[W]WW"},
		"monthly": {"enabled": true, "folder": "Months", "format": "YYYY-MM"},
		"quarterly": {"enabled": false}}`)
	sharedtest.WriteFile(t, dir, "Journal/2026-11-28.md", "---\ntitle: A Saturday\n---\n# Saturday\nGround coffee.\n")
	sharedtest.WriteFile(t, dir, "Journal/2025/2026-11-27.md", "Friday, filed away.\n")
	sharedtest.WriteFile(t, dir, "Archive/2026-11-26.md", "Not in the journal folder.\n")
	sharedtest.WriteFile(t, dir, "Weeks/2026-W48.md", "Week 48.\n")
	sharedtest.WriteFile(t, dir, "2026-Q4.md", "The last quarter.\n")
	return config.Vault{Name: "journal", Path: dir}
}

func periodicServer(t *testing.T, vaults ...config.Vault) *fake {
	return &fake{Vaults: vaults, Now: func() time.Time { return lateEvening }}
}

// TestPeriodicNote asks for each period's note, present and absent, and
// checks the days it covers, its path and which setting gave it.
func TestPeriodicNote(t *testing.T) {
	cs := connect(t, periodicServer(t, periodicVault(t)))
	for _, tc := range []struct {
		args        map[string]any
		start, end  string
		path        string
		exists      bool
		setting     string
		content     string // the note's content starts so, when it exists
		textSays    []string
		expectedRel string
	}{
		{args: map[string]any{}, start: "2026-11-28", end: "2026-11-28", path: "Journal/2026-11-28.md", exists: true,
			setting: "the Daily notes settings in .obsidian/daily-notes.json", content: "---\ntitle: A Saturday",
			textSays: []string{"# A Saturday", "Daily note for 2026-11-28: `Journal/2026-11-28.md`", "Ground coffee."}},
		{args: map[string]any{"date": "yesterday"}, start: "2026-11-27", end: "2026-11-27", path: "Journal/2025/2026-11-27.md", exists: true,
			setting: "the Daily notes settings", content: "Friday", expectedRel: "Journal/2026-11-27.md",
			textSays: []string{"The settings put this note at `Journal/2026-11-27.md` (folder \"Journal\", format \"YYYY-MM-DD\", from the Daily notes settings in .obsidian/daily-notes.json); there is none there, so the note named 2026-11-27 in folder \"Journal/2025\" was used."}},
		{args: map[string]any{"date": "-2"}, start: "2026-11-26", end: "2026-11-26", path: "Journal/2026-11-26.md", setting: "the Daily notes settings",
			textSays: []string{"not written yet", "Obsidian would create it there: folder \"Journal\", format \"YYYY-MM-DD\"", `with the template "Templates/Day"`}},
		{args: map[string]any{"date": "tomorrow", "period": "daily"}, start: "2026-11-29", end: "2026-11-29", path: "Journal/2026-11-29.md", setting: "the Daily notes settings"},
		{args: map[string]any{"period": "weekly"}, start: "2026-11-23", end: "2026-11-29", path: "Weeks/2026-W48.md", exists: true,
			setting: "the Periodic Notes plugin's weekly settings", content: "Week 48.", textSays: []string{"Weekly note for 2026-11-23 to 2026-11-29"}},
		{args: map[string]any{"period": "weekly", "date": "2021-01-01"}, start: "2020-12-28", end: "2021-01-03", path: "Weeks/2020-W53.md",
			setting: "the Periodic Notes plugin's weekly settings"},
		{args: map[string]any{"period": "monthly", "date": "-1"}, start: "2026-10-01", end: "2026-10-31", path: "Months/2026-10.md",
			setting: "the Periodic Notes plugin's monthly settings"},
		{args: map[string]any{"period": "quarterly"}, start: "2026-10-01", end: "2026-12-31", path: "2026-Q4.md", exists: true,
			setting: "the Periodic Notes plugin's defaults", content: "The last quarter."},
		{args: map[string]any{"period": "yearly", "date": "2020-06-01"}, start: "2020-01-01", end: "2020-12-31", path: "2020.md",
			setting: "the Periodic Notes plugin's defaults", textSays: []string{"the vault folder, format \"YYYY\"",
				"Obsidian alone makes no yearly notes; the Periodic Notes plugin would create it there with its defaults",
				"but it is not set up for yearly notes in this vault"}},
		{args: map[string]any{"period": "monthly", "date": "2020-06-01"}, start: "2020-06-01", end: "2020-06-30", path: "Months/2020-06.md",
			setting: "the Periodic Notes plugin's monthly settings", textSays: []string{"The Periodic Notes plugin would create it there: folder \"Months\""}},
	} {
		var out mcp.PeriodicNoteOutput
		text, isErr := call(t, cs, mcp.ToolPeriodicNote, tc.args, &out)
		if isErr {
			t.Errorf("%v: error %s", tc.args, text)
			continue
		}
		if out.Start != tc.start || out.End != tc.end || out.Path != tc.path || out.Exists != tc.exists || out.Expected != tc.expectedRel {
			t.Errorf("%v: %s to %s, %q (expected %q), exists %v; want %s to %s, %q (expected %q), exists %v",
				tc.args, out.Start, out.End, out.Path, out.Expected, out.Exists, tc.start, tc.end, tc.path, tc.expectedRel, tc.exists)
		}
		if !strings.HasPrefix(out.Setting, tc.setting) || !strings.HasPrefix(out.Content, tc.content) || (!tc.exists && out.Content != "") {
			t.Errorf("%v: setting %q, content %q; want %q…, %q…", tc.args, out.Setting, out.Content, tc.setting, tc.content)
		}
		if len(out.Warnings) > 0 {
			t.Errorf("%v: warnings %q", tc.args, out.Warnings)
		}
		for _, want := range tc.textSays {
			if !strings.Contains(text, want) {
				t.Errorf("%v: the text does not say %q:\n%s", tc.args, want, text)
			}
		}
		if !tc.exists && strings.Contains(text, "Obsidian would create it") && out.Period != "daily" {
			t.Errorf("%v: Obsidian alone makes only daily notes:\n%s", tc.args, text)
		}
		sharedtest.CheckWords(t, "periodic-note", text)
	}
}

// TestPeriodicNotePages reads a long daily note in pages, as read-note
// pages notes.
func TestPeriodicNotePages(t *testing.T) {
	v := periodicVault(t)
	body := strings.Repeat("A line of the day's notes.\n", 200)
	sharedtest.WriteFile(t, v.Path, "Journal/2026-11-28.md", body)
	cs := connect(t, periodicServer(t, v))
	var got strings.Builder
	offset := 0
	for range 10 {
		var out mcp.PeriodicNoteOutput
		text, isErr := call(t, cs, mcp.ToolPeriodicNote, map[string]any{"offset": offset, "max_chars": 1000}, &out)
		if isErr || out.Offset != offset || len([]rune(out.Content)) > 1000 || out.TotalChars != len(body) {
			t.Fatalf("offset %d: %+v, error %v: %s", offset, out, isErr, text)
		}
		got.WriteString(out.Content)
		if out.NextOffset == 0 {
			break
		}
		if !strings.Contains(text, "call periodic-note again with offset=") {
			t.Fatalf("the page does not say how to read on:\n%s", text)
		}
		offset = out.NextOffset
	}
	if got.String() != body {
		t.Fatalf("the pages join to %d characters; want the note's %d", got.Len(), len(body))
	}
	text, isErr := call(t, cs, mcp.ToolPeriodicNote, map[string]any{"offset": len(body) + 1}, nil)
	if !isErr || !strings.Contains(text, "past the end of the note") {
		t.Fatalf("an offset past the end: error %v, %s", isErr, text)
	}
}

// TestPeriodicNoteBrokenSettings: a settings file that cannot be used is
// passed over with a warning, never an error, and the next settings or
// the defaults are used.
func TestPeriodicNoteBrokenSettings(t *testing.T) {
	outside := t.TempDir()
	sharedtest.WriteFile(t, outside, "daily-notes.json", `{"folder": "Secret"}`)
	for _, tc := range []struct {
		name    string
		write   func(dir string)
		path    string
		warning string
	}{
		{"not JSON", func(dir string) {
			sharedtest.WriteFile(t, dir, ".obsidian/daily-notes.json", `{"folder": "Jour`)
		}, "2026-11-28.md", ".obsidian/daily-notes.json was passed over: it is not valid JSON"},
		{"a number for the folder", func(dir string) {
			sharedtest.WriteFile(t, dir, ".obsidian/daily-notes.json", `{"folder": 7}`)
		}, "2026-11-28.md", "its folder is a number"},
		{"broken plugin settings", func(dir string) {
			sharedtest.WriteFile(t, dir, ".obsidian/daily-notes.json", `{"folder": "Journal"}`)
			sharedtest.WriteFile(t, dir, ".obsidian/plugins/periodic-notes/data.json", `[`)
		}, "Journal/2026-11-28.md", "data.json was passed over: it is not valid JSON"},
		{"too big", func(dir string) {
			sharedtest.WriteFile(t, dir, ".obsidian/daily-notes.json", `{"folder": "Journal"`+strings.Repeat(" ", 300<<10)+`}`)
		}, "2026-11-28.md", "over 256 KB"},
		{"a link out of the vault", func(dir string) {
			if err := os.MkdirAll(filepath.Join(dir, ".obsidian"), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(filepath.Join(outside, "daily-notes.json"), filepath.Join(dir, ".obsidian", "daily-notes.json")); err != nil {
				sharedtest.NoSymlinks(t, err)
			}
		}, "2026-11-28.md", "a link to a file outside the vault"},
	} {
		dir := t.TempDir()
		tc.write(dir)
		cs := connect(t, periodicServer(t, config.Vault{Name: "v", Path: dir}))
		var out mcp.PeriodicNoteOutput
		text, isErr := call(t, cs, mcp.ToolPeriodicNote, nil, &out)
		if isErr || out.Path != tc.path || len(out.Warnings) != 1 || !strings.Contains(out.Warnings[0], tc.warning) {
			t.Errorf("%s: error %v, path %q, warnings %q; want %q and a warning saying %q\n%s", tc.name, isErr, out.Path, out.Warnings, tc.path, tc.warning, text)
		}
		if !strings.Contains(text, "> Warning: ") {
			t.Errorf("%s: the text does not show the warning:\n%s", tc.name, text)
		}
		sharedtest.CheckWords(t, "periodic-note", text)
	}
}

// TestPeriodicNoteHostile: settings and dates that would lead out of the
// vault, or past any bound, are refused and read nothing outside it.
func TestPeriodicNoteHostile(t *testing.T) {
	outside := t.TempDir()
	sharedtest.WriteFile(t, outside, "2026-11-28.md", "OUTSIDE secret")
	rel, err := filepath.Rel(t.TempDir(), outside) // ../<outside> from a sibling temp folder
	if err != nil {
		t.Fatal(err)
	}
	link := func(dir string) {
		if err := os.Symlink(filepath.Join(outside, "2026-11-28.md"), filepath.Join(dir, "2026-11-28.md")); err != nil {
			sharedtest.NoSymlinks(t, err)
		}
	}
	for _, tc := range []struct {
		name     string
		settings string
		args     map[string]any
		refusal  string // the error says so; "" when the answer is no note
		path     string // the path answered, without an error
	}{
		{"a folder with ..", `{"folder": "` + filepath.ToSlash(rel) + `"}`, nil, "leads outside the vault", ""},
		{"a format with ..", `{"format": "[../../../]YYYY-MM-DD"}`, nil, "leads outside the vault", ""},
		{"a format with a backslashed ..", `{"format": "[..\\\\..\\\\]YYYY-MM-DD"}`, nil, "leads outside the vault", ""},
		{"an absolute folder is in the vault", `{"folder": "` + filepath.ToSlash(outside) + `"}`, nil, "", strings.TrimPrefix(filepath.ToSlash(outside), "/") + "/2026-11-28.md"},
		{"a path too long", `{"folder": "` + strings.Repeat("a/", 400) + `", "format": "` + strings.Repeat("MMMM", 50) + `"}`, nil, "more than the 1000 a vault path may be", ""},
		{"a name too long for the disk", `{"format": "` + strings.Repeat("MMMM", 50) + `"}`, nil, "a name in it is over 255 bytes long", ""},
		{"a hidden folder", `{"folder": ".trash"}`, nil, `is left out of jarvis because of the hidden folder ".trash"`, ""},
		{"a note linked to outside", `{}`, nil, "leads outside the vault", ""},
		{"a date with a path", `{}`, map[string]any{"date": "2026-11-28/../../x"}, "is not a date", ""},
		{"a date too long", `{}`, map[string]any{"date": strings.Repeat("1", 41)}, "date", ""},
		{"a year too far", `{}`, map[string]any{"period": "yearly", "date": "-99999999"}, "beyond the years 1 to 9999", ""},
		{"an unknown period", `{}`, map[string]any{"period": "hourly"}, "period", ""},
	} {
		dir := t.TempDir()
		sharedtest.WriteFile(t, dir, ".obsidian/daily-notes.json", tc.settings)
		if strings.Contains(tc.name, "linked") {
			link(dir)
		}
		cs := connect(t, periodicServer(t, config.Vault{Name: "v", Path: dir}))
		var out mcp.PeriodicNoteOutput
		text, isErr := call(t, cs, mcp.ToolPeriodicNote, tc.args, &out)
		if strings.Contains(text, "OUTSIDE") || strings.Contains(out.Content, "OUTSIDE") {
			t.Errorf("%s: read a file outside the vault:\n%s", tc.name, text)
		}
		if tc.refusal != "" {
			if !isErr || !strings.Contains(text, tc.refusal) {
				t.Errorf("%s: error %v: %s; want an error saying %q", tc.name, isErr, text, tc.refusal)
			}
			continue
		}
		if isErr || out.Exists || out.Path != tc.path {
			t.Errorf("%s: error %v, exists %v, path %q; want %q absent: %s", tc.name, isErr, out.Exists, out.Path, tc.path, text)
		}
	}
}

// TestPeriodicNoteVaults: with several vaults the vault must be named.
func TestPeriodicNoteVaults(t *testing.T) {
	a, b := periodicVault(t), config.Vault{Name: "other", Path: t.TempDir()}
	cs := connect(t, periodicServer(t, a, b))
	text, isErr := call(t, cs, mcp.ToolPeriodicNote, nil, nil)
	if !isErr || !strings.Contains(text, `pass vault, one of "journal", "other"`) {
		t.Fatalf("without vault: error %v, %s", isErr, text)
	}
	var out mcp.PeriodicNoteOutput
	if text, isErr := call(t, cs, mcp.ToolPeriodicNote, map[string]any{"vault": "other"}, &out); isErr || out.Vault != "other" || out.Path != "2026-11-28.md" {
		t.Fatalf("vault other: error %v, %+v: %s", isErr, out, text)
	}
	if text, isErr := call(t, cs, mcp.ToolPeriodicNote, map[string]any{"vault": "nope"}, nil); !isErr || !strings.Contains(text, "there is no vault named") {
		t.Fatalf("an unknown vault: error %v, %s", isErr, text)
	}
}

package periodic

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"strings"
	"unicode/utf8"

	"github.com/jarvis-mcp/jarvis/internal/vault"
)

// SettingsReader reads a file of the vault's Obsidian settings folder by
// its name there; vault.Root.ReadSettings is one, bounded and kept inside
// the folder. A missing file matches fs.ErrNotExist.
type SettingsReader interface {
	ReadSettings(name string) ([]byte, error)
}

// The settings files read, beneath the vault's .obsidian folder.
const (
	DailyNotesFile    = "daily-notes.json"
	PeriodicNotesFile = "plugins/periodic-notes/data.json"
)

// MaxFormatChars bounds a format from the settings: Obsidian's are a few
// tokens, and a longer one is taken for a broken setting.
const MaxFormatChars = 200

// maxFolderChars bounds a folder from the settings, as paths are bounded.
const maxFolderChars = 1000

// Settings are where the notes of one period live and how they are named.
type Settings struct {
	Folder   string // vault-relative, "" for the vault folder
	Format   string // a Moment.js format
	Template string // the note new notes are made from, if any
	// Source says which setting decided Folder and Format, for the user.
	Source string
	// Creator is who makes such a note when the user opens it in
	// Obsidian: "Obsidian" for daily notes from its own settings or
	// defaults, "the Periodic Notes plugin" for the rest.
	Creator string
	// PluginUnset is true when the settings are the Periodic Notes
	// plugin's defaults for a period it is not set up for in this vault:
	// Obsidian alone makes no such notes.
	PluginUnset bool
}

// The creators of periodic notes, for Settings.Creator.
const (
	ByObsidian = "Obsidian"
	ByPlugin   = "the Periodic Notes plugin"
)

// Defaults are the settings of a period when the vault says nothing: the
// vault folder, and the format the daily notes core plugin and the
// Periodic Notes plugin start with. Obsidian itself has only daily notes:
// the other periods' defaults are the plugin's.
func Defaults(p Period) Settings {
	format := map[Period]string{Daily: "YYYY-MM-DD", Weekly: "gggg-[W]ww", Monthly: "YYYY-MM", Quarterly: "YYYY-[Q]Q", Yearly: "YYYY"}[p]
	if p != Daily {
		return Settings{Format: format, Source: "the Periodic Notes plugin's defaults", Creator: ByPlugin, PluginUnset: true}
	}
	return Settings{Format: format, Source: "Obsidian's defaults", Creator: ByObsidian}
}

// fileSettings are one period's settings as the files hold them: the
// daily notes core plugin's whole file, or one period's entry in the
// Periodic Notes plugin's. The plugin's 1.0 entries name the template
// templatePath, the older ones template.
type fileSettings struct {
	Enabled      bool   `json:"enabled"`
	Folder       string `json:"folder"`
	Format       string `json:"format"`
	Template     string `json:"template"`
	TemplatePath string `json:"templatePath"`
}

// pluginSettings is the Periodic Notes plugin's data.json, in either of its
// shapes: before 1.0 an entry per period at the top ({"daily": {...}}),
// from 1.0 calendar sets, each with an entry per period under the
// period's unit ({"calendarSets": [{"id": "Default", "day": {...}}]}) and
// the one in use named by activeCalendarSet.
type pluginSettings struct {
	ActiveCalendarSet string                       `json:"activeCalendarSet"`
	CalendarSets      []map[string]json.RawMessage `json:"calendarSets"`
	top               map[string]json.RawMessage
}

func (ps *pluginSettings) UnmarshalJSON(data []byte) error {
	if err := json.Unmarshal(data, &ps.top); err != nil {
		return err
	}
	type plain pluginSettings // without this method
	return json.Unmarshal(data, (*plain)(ps))
}

// defaultCalendarSet is the id of the calendar set the plugin makes first,
// and uses when its settings name none.
const defaultCalendarSet = "Default"

// entry is period p's entry and the calendar set it is in, in words ("" in
// the older shape): the entry of the calendar set in use when the
// settings have calendar sets (as the plugin reads them: the older entries
// are then only what it migrated from), the top-level entry otherwise; nil
// when there is none. The set in use is the one activeCalendarSet names,
// else the "Default" set, else the first.
func (ps *pluginSettings) entry(p Period) (json.RawMessage, string) {
	if len(ps.CalendarSets) == 0 {
		return ps.top[string(p)], ""
	}
	idOf := func(set map[string]json.RawMessage) string {
		var id string
		_ = json.Unmarshal(set["id"], &id) // no id, or not text: no name
		return id
	}
	active := ps.ActiveCalendarSet
	if active == "" {
		active = defaultCalendarSet
	}
	set := ps.CalendarSets[0]
	for _, s := range ps.CalendarSets {
		if idOf(s) == active {
			set = s
			break
		}
	}
	if id := idOf(set); id != "" {
		return set[p.noun()], "the calendar set " + quote(id)
	}
	return set[p.noun()], "the first calendar set"
}

// Load finds the settings of period p in the vault, as Obsidian's own
// lookup (obsidian-daily-notes-interface) does: the Periodic Notes
// plugin's when it is enabled for p, then, for daily notes, the daily
// notes core plugin's, then Defaults. A missing file is passed over; a
// file that cannot be read or is not valid, or a value out of bounds, is
// passed over too, and the warnings returned say so: a broken settings
// file never stops the lookup.
func Load(r SettingsReader, p Period) (Settings, []string) {
	var warnings []string
	read := func(name string, into any) bool {
		data, err := r.ReadSettings(name)
		if errors.Is(err, fs.ErrNotExist) {
			return false
		}
		if err == nil {
			err = json.Unmarshal(data, into)
		}
		if err != nil {
			warnings = append(warnings, fmt.Sprintf(".obsidian/%s was passed over: %s", name, settingsProblem(err)))
			return false
		}
		return true
	}
	var plugin pluginSettings
	if read(PeriodicNotesFile, &plugin) {
		if raw, set := plugin.entry(p); raw != nil {
			entry, source := "the "+string(p)+" entry of", "the Periodic Notes plugin's "+string(p)+" settings"
			if set != "" {
				entry, source = "the "+p.noun()+" entry of "+set+" in", source+" ("+set+")"
			}
			var f fileSettings
			if err := json.Unmarshal(raw, &f); err != nil {
				warnings = append(warnings, fmt.Sprintf("%s .obsidian/%s was passed over: %s", entry, PeriodicNotesFile, settingsProblem(err)))
			} else if f.Enabled {
				s, warn := f.settings(p, source+" in .obsidian/"+PeriodicNotesFile)
				s.Creator = ByPlugin
				return s, append(warnings, warn...)
			}
		}
	}
	if p == Daily {
		var f fileSettings
		if read(DailyNotesFile, &f) {
			s, warn := f.settings(p, "the Daily notes settings in .obsidian/"+DailyNotesFile)
			s.Creator = ByObsidian
			return s, append(warnings, warn...)
		}
	}
	return Defaults(p), warnings
}

// settings are f as Obsidian uses them: the folder trimmed, an empty
// format the default; a value out of bounds is left at its default, with
// a warning.
func (f fileSettings) settings(p Period, source string) (Settings, []string) {
	template := f.Template
	if template == "" {
		template = f.TemplatePath
	}
	s := Settings{Folder: strings.TrimSpace(f.Folder), Format: f.Format, Template: strings.TrimSpace(template), Source: source}
	var warnings []string
	if utf8.RuneCountInString(s.Format) > MaxFormatChars {
		warnings = append(warnings, fmt.Sprintf("the format in %s is longer than %d characters, so the default was used", source, MaxFormatChars))
		s.Format = ""
	}
	if s.Format == "" {
		s.Format = Defaults(p).Format
	}
	if utf8.RuneCountInString(s.Folder) > maxFolderChars {
		warnings = append(warnings, fmt.Sprintf("the folder in %s is longer than %d characters, so the vault folder was used", source, maxFolderChars))
		s.Folder = ""
	}
	return s, warnings
}

// settingsProblem words why a settings file could not be used.
func settingsProblem(err error) string {
	var syntax *json.SyntaxError
	var kind *json.UnmarshalTypeError
	switch {
	case errors.As(err, &syntax):
		return fmt.Sprintf("it is not valid JSON (at byte %d)", syntax.Offset)
	case errors.As(err, &kind) && kind.Field != "":
		return fmt.Sprintf("its %s is %s, not what Obsidian writes there", kind.Field, article(kind.Value))
	case errors.As(err, &kind):
		return fmt.Sprintf("it holds %s, not the settings Obsidian writes", article(kind.Value))
	case errors.Is(err, vault.ErrOutside):
		return "it is a link to a file outside the vault"
	case errors.Is(err, vault.ErrLeftOut):
		return "it is a link to a file outside the .obsidian folder"
	}
	return vault.ErrText(err)
}

// article is a JSON kind with its article: "a number", "an array".
func article(kind string) string {
	if strings.ContainsAny(kind[:min(1, len(kind))], "aeiou") {
		return "an " + kind
	}
	return "a " + kind
}

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
}

// Defaults are the settings of a period when the vault says nothing: the
// vault folder, and the format the daily notes core plugin and the
// Periodic Notes plugin start with.
func Defaults(p Period) Settings {
	format := map[Period]string{Daily: "YYYY-MM-DD", Weekly: "gggg-[W]ww", Monthly: "YYYY-MM", Quarterly: "YYYY-[Q]Q", Yearly: "YYYY"}[p]
	return Settings{Format: format, Source: "Obsidian's defaults"}
}

// fileSettings are one period's settings as the files hold them: the
// daily notes core plugin's whole file, or one period's entry in the
// Periodic Notes plugin's.
type fileSettings struct {
	Enabled  bool   `json:"enabled"`
	Folder   string `json:"folder"`
	Format   string `json:"format"`
	Template string `json:"template"`
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
	var plugin map[string]json.RawMessage
	if read(PeriodicNotesFile, &plugin) && plugin[string(p)] != nil {
		var f fileSettings
		if err := json.Unmarshal(plugin[string(p)], &f); err != nil {
			warnings = append(warnings, fmt.Sprintf("the %s entry of .obsidian/%s was passed over: %s", p, PeriodicNotesFile, settingsProblem(err)))
		} else if f.Enabled {
			s, warn := f.settings(p, "the Periodic Notes plugin's "+string(p)+" settings in .obsidian/"+PeriodicNotesFile)
			return s, append(warnings, warn...)
		}
	}
	if p == Daily {
		var f fileSettings
		if read(DailyNotesFile, &f) {
			s, warn := f.settings(p, "the Daily notes settings in .obsidian/"+DailyNotesFile)
			return s, append(warnings, warn...)
		}
	}
	return Defaults(p), warnings
}

// settings are f as Obsidian uses them: the folder trimmed, an empty
// format the default; a value out of bounds is left at its default, with
// a warning.
func (f fileSettings) settings(p Period, source string) (Settings, []string) {
	s := Settings{Folder: strings.TrimSpace(f.Folder), Format: f.Format, Template: strings.TrimSpace(f.Template), Source: source}
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

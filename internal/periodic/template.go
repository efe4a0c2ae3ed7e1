package periodic

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"regexp"
	"strings"
	"time"

	"github.com/jarvis-mcp/jarvis/internal/vault"
)

// TemplatesFile is the Templates core plugin's settings, beneath the
// vault's .obsidian folder.
const TemplatesFile = "templates.json"

// TemplateFormats are the formats {{date}} and {{time}} take when the
// template gives none: the Templates core plugin's settings, or its
// defaults.
type TemplateFormats struct {
	Date string `json:"dateFormat"`
	Time string `json:"timeFormat"`
}

// LoadTemplateFormats reads the Templates plugin's formats from r; a
// missing or broken file, or a format out of bounds, leaves its default,
// and the warning returned says so.
func LoadTemplateFormats(r SettingsReader) (TemplateFormats, []string) {
	defaults := TemplateFormats{Date: "YYYY-MM-DD", Time: "HH:mm"}
	data, err := r.ReadSettings(TemplatesFile)
	if errors.Is(err, fs.ErrNotExist) {
		return defaults, nil
	}
	var f TemplateFormats
	if err == nil {
		err = json.Unmarshal(data, &f)
	}
	if err != nil {
		return defaults, []string{fmt.Sprintf(".obsidian/%s was passed over: %s", TemplatesFile, settingsProblem(err))}
	}
	var warnings []string
	pick := func(got, def, what string) string {
		switch got = strings.TrimSpace(got); {
		case got == "":
			return def
		case len(got) > MaxFormatChars:
			warnings = append(warnings, fmt.Sprintf("the %s format in .obsidian/%s is longer than %d characters; %s is used", what, TemplatesFile, MaxFormatChars, def))
			return def
		}
		return got
	}
	return TemplateFormats{Date: pick(f.Date, defaults.Date, "date"), Time: pick(f.Time, defaults.Time, "time")}, warnings
}

// placeholder is what the Templates plugin replaces: {{date}}, {{time}}
// and {{title}}, in any case, with spaces inside the braces allowed, date
// and time with a Moment.js format after a colon.
var placeholder = regexp.MustCompile(`(?i)\{\{\s*(date|time|title)\s*(?::([^}]*))?\}\}`)

// Fill fills a template as the Templates plugin does when a periodic note
// is made from it: {{title}} is the note's name; {{date}} is its day in
// the date format, {{time}} the time now in the time format, each taking
// a format of its own after a colon ({{date:dddd D MMMM}}). Anything else
// is left as written.
func Fill(template string, day, now time.Time, title string, f TemplateFormats) string {
	// A date placeholder is the note's day at the time of day now, so
	// that {{date:YYYY-MM-DD HH:mm}} reads as Obsidian writes it.
	at := time.Date(day.Year(), day.Month(), day.Day(), now.Hour(), now.Minute(), now.Second(), now.Nanosecond(), now.Location())
	return placeholder.ReplaceAllStringFunc(template, func(m string) string {
		g := placeholder.FindStringSubmatch(m)
		format := strings.TrimSpace(g[2])
		switch strings.ToLower(g[1]) {
		case "title":
			return title
		case "date":
			if format == "" {
				format = f.Date
			}
			return ParseLayout(format).Format(at)
		default:
			if format == "" {
				format = f.Time
			}
			return ParseLayout(format).Format(now)
		}
	})
}

// TemplateNote is the vault-relative path of the template a setting
// names: Obsidian's settings name it without its extension
// ("Templates/Daily"), and may start it with a slash; ".md" is added
// when it is not there. "" when the setting names none.
func TemplateNote(setting string) string {
	rel := CleanFolder(setting)
	if rel == "" {
		return ""
	}
	if !strings.HasSuffix(strings.ToLower(rel), ".md") {
		rel += ".md"
	}
	return rel
}

// Title is the title Obsidian gives a new periodic note, which
// {{title}} is filled with: its file name without the extension.
func Title(notePath string) string {
	return strings.TrimSuffix(path.Base(notePath), ".md")
}

// NewNote is the text a new periodic note at notePath starts with: the
// template filled for day (the day the note was asked for) at the time
// now, as Obsidian fills it when it creates the note.
func NewNote(template []byte, notePath string, day, now time.Time, f TemplateFormats) string {
	return Fill(string(template), day, now, Title(notePath), f)
}

// TemplateReader reads a note as a template beneath the vault
// (vault.Root.ReadTemplate): its text, its metadata, and a warning instead
// of the text for a note too large to read.
type TemplateReader interface {
	ReadTemplate(rel string) ([]byte, fs.FileInfo, string, error)
}

// Template is the template new notes of some settings are made from, as
// ReadTemplate finds it.
type Template struct {
	// Path is its vault-relative path; "" when the settings name none.
	Path string
	// Text is what it holds, when it can be used.
	Text []byte
	// Problem says, for a user, why the template named cannot be used
	// ("there is no note at that path"); "" when it can.
	Problem string
}

// ReadTemplate reads the template s names from r. It is the one rule of
// whether a new periodic note starts from its template, so that what
// periodic-note says before a note is made and what it makes agree.
func ReadTemplate(r TemplateReader, s Settings) Template {
	t := Template{Path: TemplateNote(s.Template)}
	if t.Path == "" {
		return t
	}
	data, _, warn, err := r.ReadTemplate(t.Path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		t.Problem = "there is no note at that path"
	case errors.Is(err, vault.ErrOutside):
		t.Problem = "it is outside the vault"
	case errors.Is(err, vault.ErrLeftOut):
		t.Problem = "it is left out of jarvis " + vault.LeftOutWhy(err)
	case err != nil:
		t.Problem = vault.ErrText(err)
	case warn != "":
		t.Problem = fmt.Sprintf("it is larger than the %d MB a note may hold", vault.MaxNoteSize>>20)
	default:
		t.Text = data
	}
	return t
}

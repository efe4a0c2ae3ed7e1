package mcp

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"strings"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	mcpsdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/jarvis-mcp/jarvis/internal/config"
	"github.com/jarvis-mcp/jarvis/internal/periodic"
	"github.com/jarvis-mcp/jarvis/internal/vault"
	"github.com/jarvis-mcp/jarvis/internal/words"
)

// ToolPeriodicNote is the name of periodic-note.
const ToolPeriodicNote = "periodic-note"

// Clock is the current time, in the time zone of the vault's owner (the
// process's); tests set it.
type Clock func() time.Time

// PeriodicNoteInput is the input of periodic-note.
type PeriodicNoteInput struct {
	Period string `json:"period,omitempty" jsonschema:"daily, weekly, monthly, quarterly or yearly"`
	Date   string `json:"date,omitempty" jsonschema:"which period: today, yesterday, tomorrow, a date such as 2026-11-28 (the period that holds it), or a whole number of periods from the current one, such as -1 for the previous one"`
	Vault  string `json:"vault,omitempty" jsonschema:"the vault, a name from list-vaults; needed only when several vaults are served"`
	Paging
}

// PeriodicNoteOutput is what periodic-note returns.
type PeriodicNoteOutput struct {
	Vault  string `json:"vault"`
	Period string `json:"period"`
	Start  string `json:"start" jsonschema:"the first day of the period, YYYY-MM-DD"`
	End    string `json:"end" jsonschema:"the last day of the period, YYYY-MM-DD"`
	Path   string `json:"path" jsonschema:"the note's vault-relative path; where Obsidian would create it when it does not exist"`
	Exists bool   `json:"exists" jsonschema:"true when the note exists; content and title are then given"`
	// Expected is the path the settings give, when the note was found
	// elsewhere in its folder by its file name.
	Expected string `json:"expected_path,omitempty" jsonschema:"the path the settings give, when the note was found at another path in its folder by its file name"`
	Folder   string `json:"folder" jsonschema:"the folder of these notes, from the setting; empty for the vault folder"`
	Format   string `json:"format" jsonschema:"the Moment.js format their names are made with"`
	Template string `json:"template,omitempty" jsonschema:"the template new notes of this period are made from"`
	Setting  string `json:"setting" jsonschema:"which settings decided the folder and format, so that the user can change them"`
	Title    string `json:"title,omitempty"`
	Content  string `json:"content,omitempty" jsonschema:"the note's Markdown from offset on, at most max_chars characters"`
	Offset   int    `json:"offset" jsonschema:"character offset of content"`
	// NextOffset is where the next page starts, 0 when content reaches the
	// end.
	NextOffset int    `json:"next_offset" jsonschema:"offset to pass for the next page; 0 when this is the end"`
	TotalChars int    `json:"total_chars" jsonschema:"length of the whole note in characters"`
	Modified   string `json:"modified,omitempty" jsonschema:"last modification time, RFC 3339"`
	// Warnings say what was passed over, such as a settings file that is
	// not valid, whose defaults were used instead.
	Warnings []string `json:"warnings,omitempty" jsonschema:"settings passed over, such as a settings file that is not valid JSON, and what was used instead"`
}

func (t *tools) addPeriodicNote(s *mcpsdk.Server) {
	addTool(t, s, &mcpsdk.Tool{
		Name: ToolPeriodicNote,
		Description: `The user's daily, weekly, monthly, quarterly or yearly note (Obsidian's periodic notes): today's daily note by default, or the one for a date or a number of periods back or ahead (date=-1 for the previous one).
The note's path comes from the vault's own settings (the Periodic Notes plugin, the Daily notes settings, else Obsidian's defaults), with the date in the user's time zone. Returns the period's first and last day, the path, and whether the note exists: if it does, its text in pages like read-note (call again with offset=next_offset); if not, where Obsidian would create it and which setting decided that.`,
		Annotations: readOnly("Read a daily, weekly or monthly note"),
		InputSchema: inputSchema[PeriodicNoteInput](func(p map[string]*jsonschema.Schema) {
			p["period"].Enum = []any{}
			for _, per := range periodic.Periods {
				p["period"].Enum = append(p["period"].Enum, string(per))
			}
			p["period"].Default = mustJSON(string(periodic.Daily))
			textLength(p["period"], 0, len(periodic.Quarterly))
			textLength(p["date"], 0, periodic.MaxDateChars)
			p["date"].Default = mustJSON("today")
			textLength(p["vault"], 0, maxNameChars)
			pagingSchema(p)
		}),
		OutputSchema: outputSchema[PeriodicNoteOutput](nil),
	}, t.periodicNote)
}

func (t *tools) periodicNote(ctx context.Context, _ *mcpsdk.CallToolRequest, in PeriodicNoteInput) (*mcpsdk.CallToolResult, PeriodicNoteOutput, error) {
	var out PeriodicNoteOutput
	p, err := periodic.ParsePeriod(in.Period)
	if err != nil {
		return nil, out, err
	}
	if err := in.Paging.check(); err != nil {
		return nil, out, err
	}
	v, err := t.oneVault(in.Vault)
	if err != nil {
		return nil, out, err
	}
	now := time.Now
	if t.clock != nil {
		now = t.clock
	}
	day, err := p.Day(in.Date, now())
	if err != nil {
		return nil, out, err
	}
	root, err := vault.OpenRoot(v.Path, v.Exclude)
	if err != nil {
		return nil, out, fmt.Errorf("vault %q cannot be read (%s); list-vaults says more", v.Name, vault.ErrText(err))
	}
	settings, warnings := periodic.Load(root, p)
	note, err := periodic.Locate(p, settings, day)
	if err != nil {
		return nil, out, fmt.Errorf("the %s notes' folder %s and format %s, from %s, give a path jarvis will not read: %v. They can be changed in Obsidian's settings",
			p, quoteArg(settings.Folder), quoteArg(settings.Format), settings.Source, err)
	}
	out = PeriodicNoteOutput{Vault: v.Name, Period: string(p), Start: note.Range.Start.Format(time.DateOnly), End: note.Range.End.Format(time.DateOnly),
		Path: note.Path, Folder: settings.Folder, Format: settings.Format, Template: settings.Template, Setting: settings.Source}
	for i, w := range warnings {
		if i == maxWarnings {
			break
		}
		out.Warnings = append(out.Warnings, clip(w, maxTextChars))
	}
	rel, found, err := t.findPeriodic(ctx, v, root, note)
	if err != nil {
		return nil, out, err
	}
	if !found {
		return renderPeriodic(out), out, nil
	}
	if rel != note.Path {
		out.Path, out.Expected = rel, note.Path
	}
	data, st, err := readNote(v, rel)
	if err != nil {
		return nil, out, err
	}
	parsed, err := t.readStored(ctx, v.Name, rel, data)
	if err != nil {
		return nil, out, err
	}
	pg, err := t.page(data, in.Paging)
	if err != nil {
		return nil, out, err
	}
	out.Exists, out.Title, out.Modified = true, clip(parsed.Title, maxTitleChars), st.ModTime().UTC().Format(time.RFC3339)
	out.Content, out.Offset, out.NextOffset, out.TotalChars = pg.Content, pg.Offset, pg.NextOffset, pg.TotalChars
	return renderPeriodic(out), out, nil
}

// findPeriodic is where the note is: at the path its settings give, or
// else at the first path (in name order) with the same file name beneath
// the notes' folder. Obsidian's periodic notes are found that way, by the
// date their file name holds wherever they are in the folder; a note
// moved into a subfolder (an archive by year, say) is still that period's
// note. The exact name is compared, not the date it parses to: jarvis
// does not read formats backwards.
func (t *tools) findPeriodic(ctx context.Context, v config.Vault, root *vault.Root, note periodic.Note) (string, bool, error) {
	_, _, err := root.Stat(note.Path)
	switch {
	case err == nil:
		return note.Path, true, nil
	case errors.Is(err, vault.ErrOutside):
		return "", false, errOutside
	case errors.Is(err, vault.ErrLeftOut):
		return "", false, fmt.Errorf("the %s note's path %s is hidden or excluded from jarvis, so it cannot be read", note.Period, quoteArg(note.Path))
	case !errors.Is(err, fs.ErrNotExist):
		return "", false, &readError{msg: fmt.Sprintf("note %s cannot be read (%s)", quoteArg(note.Path), vault.ErrText(err)), err: err}
	}
	files, _, err := root.Scan(ctx)
	if err != nil {
		if ctx.Err() != nil {
			return "", false, ctx.Err()
		}
		return "", false, nil // the note is not at its path, which is the answer
	}
	paths := make([]string, 0, len(files))
	for _, f := range files {
		paths = append(paths, f.Path)
	}
	rel, ok := periodic.FindByName(paths, note.Settings.Folder, note.Path)
	return rel, ok, nil
}

// oneVault is the vault named, or the only one served when none is.
func (t *tools) oneVault(name string) (config.Vault, error) {
	if err := t.checkVault(name); err != nil {
		return config.Vault{}, err
	}
	if name == "" && len(t.vaults) > 1 {
		return config.Vault{}, fmt.Errorf("several vaults are served; pass vault, one of %s", strings.Join(quoted(config.Names(t.vaults)), ", "))
	}
	for _, v := range t.vaults {
		if name == "" || v.Name == name {
			return v, nil
		}
	}
	return config.Vault{}, errors.New("this server serves no vault, so there is no periodic note to find")
}

func quoted(names []string) []string {
	out := make([]string, len(names))
	for i, n := range names {
		out[i] = fmt.Sprintf("%q", n)
	}
	return out
}

func renderPeriodic(out PeriodicNoteOutput) *mcpsdk.CallToolResult {
	var b strings.Builder
	period := out.Start
	if out.End != out.Start {
		period = out.Start + " to " + out.End
	}
	kind := strings.ToUpper(out.Period[:1]) + out.Period[1:]
	where := fmt.Sprintf("folder %q", out.Folder)
	if out.Folder == "" {
		where = "the vault folder"
	}
	if !out.Exists {
		fmt.Fprintf(&b, "# %s note for %s: not written yet\nThere is no note at `%s` in vault %s. Obsidian would create it there: %s, format %q, from %s",
			kind, period, out.Path, out.Vault, where, out.Format, out.Setting)
		if out.Template != "" {
			fmt.Fprintf(&b, ", with the template %q", out.Template)
		}
		b.WriteString(".\n")
	} else {
		fmt.Fprintf(&b, "# %s\n%s note for %s: `%s` in vault %s, modified %s\n", out.Title, kind, period, out.Path, out.Vault, out.Modified)
		if out.Expected != "" {
			fmt.Fprintf(&b, "\nFound by its file name in its folder; the settings give `%s`: %s, format %q, from %s.\n", out.Expected, where, out.Format, out.Setting)
		}
	}
	for _, w := range out.Warnings {
		fmt.Fprintf(&b, "\n> Warning: %s.\n", w)
	}
	if !out.Exists {
		return textResult(b.String())
	}
	if out.Offset > 0 {
		fmt.Fprintf(&b, "\n(from character %d of %d)\n", out.Offset, out.TotalChars)
	}
	writeFenced(&b, out.Content)
	if out.NextOffset > 0 {
		fmt.Fprintf(&b, "\nThe note continues: call %s again with offset=%d (%s in all).\n", ToolPeriodicNote, out.NextOffset, words.Count(out.TotalChars, "character"))
	}
	return textResult(b.String())
}

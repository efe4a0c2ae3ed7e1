package mcp

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"strings"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	mcpsdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/jarvis-mcp/jarvis/internal/config"
	"github.com/jarvis-mcp/jarvis/internal/periodic"
	"github.com/jarvis-mcp/jarvis/internal/vault"
	"github.com/jarvis-mcp/jarvis/internal/words"
	"github.com/jarvis-mcp/jarvis/internal/write"
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
	// Append and ETag are in the schema only when some vault is writable.
	Append string `json:"append,omitempty" jsonschema:"text to add at the end of the note, in a writable vault; if the note does not exist yet, it is created from the period's template first"`
	ETag   string `json:"etag,omitempty" jsonschema:"with append, when the note exists: the etag periodic-note returned for it, so that a change made since is not lost"`
	Paging
}

// writes reports whether the call appends to the note: the one rule
// both the tool and CallWrites follow.
func (in PeriodicNoteInput) writes() bool { return in.Append != "" }

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
	// ETag, Written and Undo are in the schema only when some vault is
	// writable.
	ETag    string `json:"etag,omitempty" jsonschema:"a hash of the note's bytes as read: pass it with append"`
	Written string `json:"written,omitempty" jsonschema:"after append: appended when the text was added to the note, created when the note was made from its template with the text"`
	Undo    string `json:"undo,omitempty" jsonschema:"after append: how the user can revert the write"`
	// fromTemplate is the template a note created by append was made
	// from, for the text.
	fromTemplate string
	// creator and pluginUnset are periodic.Settings.Creator and
	// PluginUnset, for the words on a note not written yet.
	creator     string
	pluginUnset bool
	// templateUnusable is true when Template cannot be used, which a
	// warning says.
	templateUnusable bool
	// Warnings say what was passed over, such as a settings file that is
	// not valid, whose defaults were used instead.
	Warnings []string `json:"warnings,omitempty" jsonschema:"settings passed over, such as a settings file that is not valid JSON, and what was used instead"`
}

// periodicWrites are the arguments and answers of periodic-note that
// only a server with a writable vault has.
var periodicWrites = struct{ in, out []string }{in: []string{"append", "etag"}, out: []string{"etag", "written", "undo"}}

func (t *tools) addPeriodicNote(s *mcpsdk.Server) {
	description := `The user's daily, weekly, monthly, quarterly or yearly note (Obsidian's periodic notes): today's daily note by default, or the one for a date or a number of periods back or ahead (date=-1 for the previous one).
The note's path comes from the vault's own settings (the Periodic Notes plugin, the Daily notes settings, else the defaults: Obsidian's for daily notes, the Periodic Notes plugin's for the others), with the date in the user's time zone. Returns the period's first and last day, the path, and whether the note exists: if it does, its text in pages like read-note (call again with offset=next_offset); if not, where Obsidian would create it and which setting decided that.`
	annotations := readOnly("Read a daily, weekly or monthly note")
	writes := t.writes()
	if writes {
		description += `
In a writable vault, append adds text at the end of the note ("add this to today's daily note"): read the note with this tool first and pass the etag it returned; if the note changed since, nothing is written. If the note does not exist yet, it is created from the template its settings name, with {{date}}, {{time}} and {{title}} filled as Obsidian fills them, and the text at its end. The user can undo either with jarvis undo.`
		annotations = writeAnnotations("Read or add to a daily, weekly or monthly note", false)
	}
	drop := func(names []string) func(p map[string]*jsonschema.Schema) {
		return func(p map[string]*jsonschema.Schema) {
			if !writes {
				for _, n := range names {
					delete(p, n)
				}
			}
		}
	}
	addTool(t, s, &mcpsdk.Tool{
		Name:        ToolPeriodicNote,
		Description: description,
		Annotations: annotations,
		InputSchema: inputSchema[PeriodicNoteInput](func(p map[string]*jsonschema.Schema) {
			drop(periodicWrites.in)(p)
			p["period"].Enum = []any{}
			for _, per := range periodic.Periods {
				p["period"].Enum = append(p["period"].Enum, string(per))
			}
			p["period"].Default = mustJSON(string(periodic.Daily))
			textLength(p["period"], 0, len(periodic.Quarterly))
			textLength(p["date"], 0, periodic.MaxDateChars)
			p["date"].Default = mustJSON("today")
			textLength(p["vault"], 0, maxNameChars)
			boundWriteArgs(p) // append and etag, when writing is on
			pagingSchema(p)
		}),
		OutputSchema: outputSchema[PeriodicNoteOutput](drop(periodicWrites.out)),
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
		Path: note.Path, Folder: settings.Folder, Format: settings.Format, Template: settings.Template, Setting: settings.Source,
		creator: settings.Creator, pluginUnset: settings.PluginUnset}
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
	if !found && !in.writes() && t.writes() && settings.Template != "" {
		// Said before append makes the note, as it would find it.
		if tpl := periodic.ReadTemplate(root, settings); tpl.Problem != "" {
			out.Warnings = append(out.Warnings, clip(templateWarning(settings, tpl, false), maxTextChars))
			out.templateUnusable = true
		}
	}
	if in.writes() {
		w, err := t.appendPeriodic(ctx, v.Name, root, note, day, now(), rel, found, in)
		if err != nil {
			return nil, out, err
		}
		rel, found = w.path, true
		out.Written, out.Undo, out.fromTemplate, out.Warnings = w.written, w.undo, w.template, append(out.Warnings, w.warnings...)
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
	if t.writes() {
		out.ETag = write.ETag(data)
	}
	out.Content, out.Offset, out.NextOffset, out.TotalChars = pg.Content, pg.Offset, pg.NextOffset, pg.TotalChars
	return renderPeriodic(out), out, nil
}

// periodicWrite is what an append to a periodic note did.
type periodicWrite struct {
	path     string // the note's path
	written  string // "appended" or "created"
	template string // the template a created note was made from
	undo     string
	warnings []string
}

// appendPeriodic adds in.Append at the end of the period's note: through
// the write service as edit-note's append when the note exists (at rel,
// checked against in.ETag), else as one create of the note at its path,
// from its template filled for day at the time now, with the text
// appended. Either is journalled under periodic-note and in the index
// before it returns.
func (t *tools) appendPeriodic(ctx context.Context, vaultName string, root *vault.Root, note periodic.Note, day, now time.Time, rel string, exists bool, in PeriodicNoteInput) (periodicWrite, error) {
	if !t.writes() {
		return periodicWrite{}, errors.New(writingOff(ToolPeriodicNote + "'s append argument"))
	}
	name, err := t.writableVault(vaultName)
	if err != nil {
		return periodicWrite{}, err
	}
	appendText := []write.Edit{{Op: write.OpAppend, Text: in.Append}}
	r := write.Request{Tool: write.ToolEdit, By: ToolPeriodicNote, Vault: name, Path: rel, ETag: in.ETag, Edits: appendText}
	w := periodicWrite{written: "appended"}
	if !exists {
		if in.ETag != "" {
			return periodicWrite{}, fmt.Errorf("%v: there is no note at %s now; nothing was written. Call periodic-note again without etag to create it", write.ErrStale, quoteArg(note.Path))
		}
		text, template, warnings := t.newPeriodic(root, note, day, now)
		content, err := write.ApplyEdits([]byte(text), appendText)
		if err != nil {
			return periodicWrite{}, err
		}
		r = write.Request{Tool: write.ToolCreate, By: ToolPeriodicNote, Vault: name, Path: note.Path, Content: string(content)}
		w = periodicWrite{written: "created", template: template, warnings: warnings}
	}
	res, err := t.writer.Write(ctx, r)
	switch {
	case errors.Is(err, write.ErrExists):
		return periodicWrite{}, fmt.Errorf("the %s note %s was made since you read it: nothing was written; read it again with periodic-note and pass the etag it returns with append", note.Period, quoteArg(note.Path))
	case err != nil:
		return periodicWrite{}, writeError(err, ToolPeriodicNote)
	}
	w.path, w.undo, w.warnings = res.Path, t.undoHint(res), append(w.warnings, res.Warnings...)
	return w, nil
}

// newPeriodic is the text a new periodic note starts with: its template
// (periodic.ReadTemplate, beneath the vault) filled as Obsidian fills
// it, or nothing when it names none, and the template's path when it was
// used. A template that cannot be used is a warning (templateWarning):
// the note starts empty.
func (t *tools) newPeriodic(root *vault.Root, note periodic.Note, day, now time.Time) (string, string, []string) {
	tpl := periodic.ReadTemplate(root, note.Settings)
	if tpl.Path == "" {
		return "", "", nil
	}
	if tpl.Problem != "" {
		return "", "", []string{templateWarning(note.Settings, tpl, true)}
	}
	formats, warnings := periodic.LoadTemplateFormats(root)
	return periodic.NewNote(tpl.Text, note.Path, day, now, formats), tpl.Path, warnings
}

// templateWarning says that the template tpl of the settings s cannot be
// used, and why: before a note is made (periodic-note's answer on a note
// not written yet), or once it was made without it.
func templateWarning(s periodic.Settings, tpl periodic.Template, made bool) string {
	if made {
		return fmt.Sprintf("the template %s, from %s, was not used (%s), so the note was started empty", quoteArg(tpl.Path), s.Source, tpl.Problem)
	}
	return fmt.Sprintf("the template %s, from %s, cannot be used (%s), so a note created with append would start empty", quoteArg(tpl.Path), s.Source, tpl.Problem)
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
		return "", false, outside(note.Path, err)
	case errors.Is(err, vault.ErrLeftOut):
		return "", false, fmt.Errorf("the %s note's path %s is left out of jarvis %s, so it cannot be read", note.Period, quoteArg(note.Path), vault.LeftOutWhy(err))
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
		fmt.Fprintf(&b, "# %s note for %s: not written yet\nThere is no note at `%s` in vault %s. ", kind, period, out.Path, out.Vault)
		creator := cmp.Or(out.creator, periodic.ByObsidian)
		if out.pluginUnset {
			// Obsidian alone makes only daily notes: say whose defaults
			// these are, and that nothing here would use them yet.
			fmt.Fprintf(&b, "Obsidian alone makes no %s notes; %s would create it there with its defaults (%s, format %q), but it is not set up for %s notes in this vault",
				out.Period, creator, where, out.Format, out.Period)
		} else {
			fmt.Fprintf(&b, "%s would create it there: %s, format %q, from %s", strings.ToUpper(creator[:1])+creator[1:], where, out.Format, out.Setting)
		}
		if out.Template != "" {
			fmt.Fprintf(&b, ", with the template %q", out.Template)
			if out.templateUnusable {
				b.WriteString(", which cannot be used: see the warning")
			}
		}
		b.WriteString(".\n")
	} else {
		switch out.Written {
		case "appended":
			fmt.Fprintf(&b, "Appended the text to `%s`.\n", out.Path)
		case "created":
			if out.fromTemplate != "" {
				fmt.Fprintf(&b, "Created `%s` from the template `%s`, with the text at its end.\n", out.Path, out.fromTemplate)
			} else {
				why := " (no template is set for these notes)"
				if out.Template != "" {
					why = " (its template could not be used: see the warnings)"
				}
				fmt.Fprintf(&b, "Created `%s` holding the text alone%s.\n", out.Path, why)
			}
		}
		if out.Undo != "" {
			fmt.Fprintf(&b, "Undo: %s.\n", strings.TrimPrefix(out.Undo, "the user can revert it with "))
		}
		if out.Written != "" {
			b.WriteString("\n")
		}
		fmt.Fprintf(&b, "# %s\n%s note for %s: `%s` in vault %s, modified %s\n", out.Title, kind, period, out.Path, out.Vault, out.Modified)
		if out.ETag != "" {
			b.WriteString(etagLine(out.ETag, "append"))
		}
		if out.Expected != "" {
			// Said from the settings' side: where they put the note, that
			// none is there, and which note stood in for it.
			foundIn := fmt.Sprintf("folder %q", path.Dir(out.Path))
			if path.Dir(out.Path) == "." {
				foundIn = "the vault folder"
			}
			fmt.Fprintf(&b, "\nThe settings put this note at `%s` (%s, format %q, from %s); there is none there, so the note named %s in %s was used.\n",
				out.Expected, where, out.Format, out.Setting, strings.TrimSuffix(path.Base(out.Path), ".md"), foundIn)
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

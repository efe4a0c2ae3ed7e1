package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"slices"
	"strings"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	mcpsdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/jarvis-mcp/jarvis/internal/bases"
	"github.com/jarvis-mcp/jarvis/internal/config"
	"github.com/jarvis-mcp/jarvis/internal/query"
	"github.com/jarvis-mcp/jarvis/internal/vault"
	"github.com/jarvis-mcp/jarvis/internal/words"
)

// ToolQueryNotes is the name of query-notes.
const ToolQueryNotes = "query-notes"

// VaultFiles reads the files of a vault from the index as Bases sees
// them, leaving out those the exclude patterns keep out (query.Load).
type VaultFiles func(ctx context.Context, vault string, exclude []string) (*query.Vault, error)

// maxQueryRows is the most rows one query-notes answer holds, whatever
// the view's limit; total says how many passed.
const maxQueryRows = 200

// QueryNotesInput is the input of query-notes.
type QueryNotesInput struct {
	Vault string `json:"vault,omitempty" jsonschema:"the vault, a name from list-vaults; needed only when several vaults are served"`
	Base  string `json:"base,omitempty" jsonschema:"a .base file, or a note holding a base code block, by its vault-relative path; leave out for a query given by filter"`
	Block int    `json:"block,omitempty" jsonschema:"which base block of the note in base, from 1; the first by default"`
	View  string `json:"view,omitempty" jsonschema:"the view of the base to run, by name; the first by default"`
	// Filter is a Bases filter: an expression string, or an and/or/not
	// object as in a .base file.
	Filter     json.RawMessage `json:"filter,omitempty" jsonschema:"a query without a base file: a Bases filter, either an expression such as 'status == \"active\" && due <= today() + \"7d\"' or an object {\"and\"|\"or\"|\"not\": [filters]} as in a .base file"`
	Formulas   []QueryFormula  `json:"formulas,omitempty" jsonschema:"formulas, each read as formula.NAME, for a query given by filter"`
	Sort       []query.SortKey `json:"sort,omitempty" jsonschema:"sort keys in turn, for a query given by filter: each a property (status, note.due, file.mtime, formula.NAME) and ASC or DESC"`
	Properties []string        `json:"properties,omitempty" jsonschema:"the columns, for a query given by filter, such as file.name, status, formula.NAME; the file name by default"`
	Limit      int             `json:"limit,omitempty" jsonschema:"the most rows to return; with a base, lowers the view's own limit; 0 or left out returns every row the view allows"`
}

// QueryFormula is a named formula of a query.
type QueryFormula struct {
	Name       string `json:"name" jsonschema:"the formula's name, read as formula.NAME"`
	Expression string `json:"expression" jsonschema:"a Bases expression, such as price * quantity"`
}

// QueryNotesOutput is what query-notes returns.
type QueryNotesOutput struct {
	Vault   string        `json:"vault"`
	Base    string        `json:"base,omitempty" jsonschema:"the base file or note the query came from"`
	View    string        `json:"view,omitempty" jsonschema:"the view run"`
	Views   []string      `json:"views,omitempty" jsonschema:"every view of the base, to pass as view"`
	Columns []QueryColumn `json:"columns"`
	Rows    []QueryRow    `json:"rows" jsonschema:"the files that passed, in the view's order (group by group when it groups)"`
	Total   int           `json:"total" jsonschema:"how many files passed, before the limit"`
	// Truncated is set when the answer holds fewer rows than the limit
	// let through, to stay within its bounds.
	Truncated bool           `json:"truncated" jsonschema:"true when rows were left out to keep the answer small; a narrower filter or a lower limit returns them"`
	Groups    []QueryGroup   `json:"groups,omitempty" jsonschema:"the groups of a view with groupBy, in order, with each one's row count and summaries"`
	Summaries []QuerySummary `json:"summaries,omitempty" jsonschema:"the view's summaries of its columns, over the rows returned"`
	Warnings  []string       `json:"warnings,omitempty" jsonschema:"files passed over, such as those the filter failed on"`
}

// QueryColumn is one column of a view.
type QueryColumn struct {
	ID   string `json:"id" jsonschema:"the property: note.NAME, file.NAME or formula.NAME"`
	Name string `json:"name" jsonschema:"the name shown, the base's displayName when it has one"`
}

// QueryRow is one file of a view's answer.
type QueryRow struct {
	Vault string `json:"vault"`
	Path  string `json:"path" jsonschema:"the vault-relative path, for read-note"`
	Title string `json:"title,omitempty"`
	Group string `json:"group,omitempty" jsonschema:"the row's group, in a view with groupBy"`
	// Values are the columns' values by column id: text, numbers,
	// booleans, lists; dates as YYYY-MM-DD, links as [[Target]].
	Values map[string]any `json:"values" jsonschema:"the value of each column, by column id"`
}

// QueryGroup is one group of a view with groupBy.
type QueryGroup struct {
	Key       string         `json:"key"`
	Rows      int            `json:"rows"`
	Summaries []QuerySummary `json:"summaries,omitempty"`
}

// QuerySummary is a column's summary.
type QuerySummary struct {
	Column  string `json:"column"`
	Summary string `json:"summary"`
	Value   any    `json:"value"`
}

func (t *tools) addQueryNotes(s *mcpsdk.Server) {
	addTool(t, s, &mcpsdk.Tool{
		Name: ToolQueryNotes,
		Description: `Runs an Obsidian Base over the index: a .base file or a base code block in a note (base: its path; block: which one), one of its views (view: by name, the first by default), or a query given here (filter as a Bases filter expression or and/or/not object, with formulas, sort, properties, limit).
Use it to answer questions about notes' properties, such as "which active projects are due this week?": filter 'status == "active" && due <= today() + "7d"'. Filters see note properties by name, file.name, file.folder, file.tags, file.links, file.mtime and the functions of Bases (file.inFolder("X"), file.hasTag("x"), today()). Attachments are rows too when the filter lets them in.
Returns the rows in the view's order, each with its vault, path and title and the values of the view's columns, the total before the limit, groups and summaries when the view has them, and a Markdown table.`,
		Annotations: readOnly("Query notes by their properties (Obsidian Bases)"),
		InputSchema: inputSchema[QueryNotesInput](func(p map[string]*jsonschema.Schema) {
			textLength(p["vault"], 0, maxNameChars)
			textLength(p["base"], 0, maxPathChars)
			textLength(p["view"], 0, maxTitleChars)
			p["block"].Minimum, p["block"].Maximum = ptr(1.0), ptr(1000.0)
			// An and/or/not group has one key; its size is bounded as a
			// whole by the request's.
			p["filter"] = &jsonschema.Schema{Types: []string{"string", "object"}, Description: p["filter"].Description,
				MaxLength: ptr(maxWhereChars), MaxProperties: ptr(1)}
			maxItems(p["formulas"], 50)
			textLength(p["formulas"].Items.Properties["name"], 1, maxNameChars)
			textLength(p["formulas"].Items.Properties["expression"], 1, maxWhereChars)
			textLength(p["sort"].Items.Properties["property"], 1, maxNameChars)
			textLength(p["sort"].Items.Properties["direction"], 0, 4)
			textLength(p["properties"].Items, 1, maxNameChars)
			p["limit"].Minimum, p["limit"].Maximum = ptr(0.0), ptr(float64(maxQueryRows))
			maxItems(p["sort"], 10)
			maxItems(p["properties"], 50)
			p["sort"].Items.Properties["direction"].Enum = []any{"ASC", "DESC", "asc", "desc"}
		}),
		OutputSchema: outputSchema[QueryNotesOutput](nil),
	}, t.queryNotes)
}

func ptr[T any](v T) *T { return &v }

func (t *tools) queryNotes(ctx context.Context, _ *mcpsdk.CallToolRequest, in QueryNotesInput) (*mcpsdk.CallToolResult, QueryNotesOutput, error) {
	if t.vaultFiles == nil {
		return nil, QueryNotesOutput{}, errors.New("query-notes is not available in this server")
	}
	now := time.Now
	if t.clock != nil {
		now = t.clock
	}
	out, err := QueryNotes(ctx, t.vaults, t.vaultFiles, now(), in)
	var ie *indexError
	if errors.As(err, &ie) {
		t.log.Warn("query-notes could not read the index", "err", ie.err)
	}
	// While a vault's first index is being built, its files are not all
	// there yet: the answer says so, and to ask again.
	why := t.unready(ctx, in.Vault, t.state(in.Vault)).For(0)
	if errors.Is(err, errNoFiles) && len(why) > 0 {
		return nil, out, errors.New(strings.Join(why, "; "))
	}
	if err != nil {
		return nil, out, err
	}
	out.Warnings = append(why, out.Warnings...)
	return t.fitQuery(out)
}

// QueryNotes runs what a query-notes input asks over the vaults served,
// at the time now: the tool's answer before it is bounded, and what
// `jarvis query` prints. Its errors are worded for the reader of either.
func QueryNotes(ctx context.Context, vaults []config.Vault, files VaultFiles, now time.Time, in QueryNotesInput) (QueryNotesOutput, error) {
	var out QueryNotesOutput
	v, err := queryVault(vaults, in.Vault)
	if err != nil {
		return out, err
	}
	vf, err := files(ctx, v.Name, v.Exclude)
	if err != nil {
		if ctx.Err() != nil {
			return out, ctx.Err()
		}
		return out, &indexError{msg: fmt.Sprintf("the index of vault %q cannot be read; health-status or `jarvis doctor` says why", v.Name), err: err}
	}
	if len(vf.Files) == 0 {
		return out, fmt.Errorf("%w: vault %q has no files in the index yet", errNoFiles, v.Name)
	}
	req, err := queryRequest(v, vf, in)
	if err != nil {
		return out, err
	}
	req.Now = now
	res, err := query.Run(ctx, vf, req)
	if err != nil {
		return out, err
	}
	return queryOutput(v.Name, in.Base, req.Base, res), nil
}

// errNoFiles means the index holds no file of the vault queried.
var errNoFiles = errors.New("nothing to query")

// indexError is an index that could not be read, worded for the reader,
// with the cause for the log.
type indexError struct {
	msg string
	err error
}

func (e *indexError) Error() string { return e.msg }
func (e *indexError) Unwrap() error { return e.err }

// queryVault is the vault named, or the only one served when none is.
func queryVault(vaults []config.Vault, name string) (config.Vault, error) {
	var names []string
	for _, v := range vaults {
		if v.Name == name || (name == "" && len(vaults) == 1) {
			return v, nil
		}
		names = append(names, v.Name)
	}
	switch {
	case len(vaults) == 0:
		return config.Vault{}, errors.New("no vault is served, so there is nothing to query")
	case name == "":
		return config.Vault{}, fmt.Errorf("several vaults are served; pass vault, one of %s", words.QuotedOr(names))
	}
	return config.Vault{}, noVaultNamed(name, vaults, "")
}

// queryRequest reads the base the input names, or the query it gives.
func queryRequest(v config.Vault, files *query.Vault, in QueryNotesInput) (query.Request, error) {
	adhoc := len(strings.TrimSpace(string(in.Filter))) > 0 || len(in.Formulas) > 0 || len(in.Sort) > 0 || len(in.Properties) > 0
	if in.Base == "" {
		if !adhoc {
			return query.Request{}, errors.New("pass base (a .base file, or a note with a base block) or filter (a Bases filter such as 'status == \"active\"')")
		}
		if in.View != "" || in.Block != 0 {
			return query.Request{}, errors.New("view and block choose within a base; pass them with base")
		}
		var formulas map[string]string
		for _, f := range in.Formulas {
			if formulas == nil {
				formulas = map[string]string{}
			}
			formulas[f.Name] = f.Expression
		}
		b, err := query.AdHoc{Filter: in.Filter, Formulas: formulas, Sort: in.Sort, Properties: in.Properties, Limit: in.Limit}.Base()
		if err != nil {
			return query.Request{}, err
		}
		return query.Request{Base: b}, nil
	}
	if adhoc {
		return query.Request{}, errors.New("filter, formulas, sort and properties make a query of their own; pass them without base, or run the base's views as they are")
	}
	root, err := vault.OpenRoot(v.Path, v.Exclude)
	if err != nil {
		return query.Request{}, fmt.Errorf("vault %q cannot be read (%s); list-vaults says more", v.Name, vault.ErrText(err))
	}
	src, err := query.ReadBase(root, files, in.Base, in.Block)
	switch {
	case errors.Is(err, vault.ErrOutside):
		return query.Request{}, outside(in.Base, err)
	case errors.Is(err, vault.ErrLeftOut):
		return query.Request{}, keptOut(err)
	case errors.Is(err, fs.ErrNotExist):
		return query.Request{}, fmt.Errorf("there is no file %s in vault %q; give the vault-relative path of a .base file or of a note with a base block", quoteArg(in.Base), v.Name)
	case errors.Is(err, query.ErrNoBlock) && in.Block == 0:
		if embedded := embeddedBases(files, in.Base); len(embedded) > 0 {
			return query.Request{}, fmt.Errorf("note %s has no ```base block, but it embeds %s: pass base %q to run it", quoteArg(in.Base), words.Quoted(embedded), embedded[0])
		}
		return query.Request{}, err
	case err != nil:
		return query.Request{}, err
	}
	view, err := query.FindView(src.Base, in.View)
	if err != nil {
		return query.Request{}, err
	}
	if in.Limit > 0 && (view.Limit == 0 || in.Limit < view.Limit) {
		view.Limit = in.Limit
	}
	return query.Request{Base: src.Base, View: view.Name, This: src.This}, nil
}

// embeddedBases are the paths of the .base files the note rel embeds
// (![[Projects.base]]), as the vault's links resolve them.
func embeddedBases(files *query.Vault, rel string) []string {
	f, ok := files.File(rel)
	if !ok {
		return nil
	}
	var out []string
	for _, target := range f.Embeds() {
		if b, ok := files.Resolve(rel, target); ok && strings.EqualFold(path.Ext(b.Path()), ".base") && !slices.Contains(out, b.Path()) {
			out = append(out, b.Path())
		}
	}
	return out
}

// queryOutput is the answer of a view run.
func queryOutput(vaultName, base string, b *bases.Base, res *query.Result) QueryNotesOutput {
	out := QueryNotesOutput{Vault: vaultName, Base: base, View: res.View, Total: res.Total, Rows: []QueryRow{}, Warnings: res.Warnings}
	if base != "" {
		for _, v := range b.Views {
			out.Views = append(out.Views, v.Name)
		}
	}
	for _, c := range res.Columns {
		out.Columns = append(out.Columns, QueryColumn(c))
	}
	row := func(r query.Row, group string) QueryRow {
		qr := QueryRow{Vault: vaultName, Path: r.File.Path(), Title: r.File.Title, Group: group, Values: map[string]any{}}
		for i, c := range res.Columns {
			qr.Values[c.ID] = bases.ToAny(r.Values[i])
		}
		return qr
	}
	if res.Groups != nil {
		for _, g := range res.Groups {
			key := bases.Display(g.Key)
			out.Groups = append(out.Groups, QueryGroup{Key: key, Rows: len(g.Rows), Summaries: summaries(g.Summaries)})
			for _, r := range g.Rows {
				out.Rows = append(out.Rows, row(r, key))
			}
		}
	} else {
		for _, r := range res.Rows {
			out.Rows = append(out.Rows, row(r, ""))
		}
	}
	out.Summaries = summaries(res.Summaries)
	return out
}

func summaries(s []query.Summary) []QuerySummary {
	var out []QuerySummary
	for _, x := range s {
		out = append(out, QuerySummary{Column: x.Column, Summary: x.Summary, Value: bases.ToAny(x.Value)})
	}
	return out
}

// fitQuery bounds the answer: at most maxQueryRows rows, then as many as
// fit the answer ceiling with the table, the last ones left out and the
// answer saying so.
func (t *tools) fitQuery(out QueryNotesOutput) (*mcpsdk.CallToolResult, QueryNotesOutput, error) {
	if len(out.Rows) > maxQueryRows {
		out.Rows, out.Truncated = out.Rows[:maxQueryRows], true
	}
	for {
		res := renderQuery(out)
		data, err := json.Marshal(out)
		if err != nil {
			return nil, out, fmt.Errorf("encode the answer: %w", err)
		}
		res.StructuredContent = json.RawMessage(data)
		if answerTokens(res) <= t.answerTokens-cutNoteTokens || len(out.Rows) == 0 {
			res.StructuredContent = nil // the SDK encodes out itself
			return res, out, nil
		}
		out.Rows, out.Truncated = out.Rows[:len(out.Rows)*3/4], true
	}
}

// renderQuery is the answer as text: a heading, the Markdown table and
// what else the view gives.
func renderQuery(out QueryNotesOutput) *mcpsdk.CallToolResult {
	var b strings.Builder
	title := "Query"
	if out.Base != "" {
		title = out.Base
		if out.View != "" {
			title += " — " + out.View
		}
	}
	fmt.Fprintf(&b, "# %s\n%s of vault %s %s the filter", title, words.Count(out.Total, "file"), out.Vault, words.Agree(out.Total, "passes", "pass"))
	if len(out.Rows) < out.Total {
		fmt.Fprintf(&b, "; %d shown", len(out.Rows))
	}
	b.WriteString(".\n\n")
	b.WriteString(MarkdownTable(out))
	if lines := SummaryLines(out); len(lines) > 0 {
		b.WriteString("\n" + strings.Join(lines, "\n") + "\n")
	}
	if out.Truncated {
		fmt.Fprintf(&b, "\nOnly the first %s are given to keep the answer small; a narrower filter or a lower limit returns the rest.\n", words.Count(len(out.Rows), "row"))
	}
	for _, w := range out.Warnings {
		fmt.Fprintf(&b, "\n> Warning: %s\n", clip(w, maxSnippet))
	}
	if len(out.Views) > 1 {
		fmt.Fprintf(&b, "\nViews of this base: %s.\n", strings.Join(quoted(out.Views), ", "))
	}
	return textResult(b.String())
}

// SummaryLines are the summaries of a query-notes answer as lines, the
// view's then each group's ("Average of priority: 1.75", "Average of
// priority in group done: 3"): what the tool and `jarvis query` print. A summary with
// nothing to summarize (a Sum over no number) is left out.
func SummaryLines(out QueryNotesOutput) []string {
	var lines []string
	for _, s := range out.Summaries {
		if s.Value != nil {
			lines = append(lines, fmt.Sprintf("%s of %s: %s", s.Summary, s.Column, summaryCell(s.Value)))
		}
	}
	for _, g := range out.Groups {
		for _, s := range g.Summaries {
			if s.Value != nil {
				lines = append(lines, fmt.Sprintf("%s of %s in group %s: %s", s.Summary, s.Column, g.Key, summaryCell(s.Value)))
			}
		}
	}
	return lines
}

// summaryCell is a summary's value in a line: a number rounded to two
// decimals, which --json keeps whole.
func summaryCell(v any) string {
	if f, ok := v.(float64); ok {
		return bases.RoundedNumber(f)
	}
	return cell(v)
}

// MarkdownTable is the rows of a query-notes answer as a Markdown table:
// the path, then each column; a Group column first when the view groups.
// `jarvis query` prints the same table.
func MarkdownTable(out QueryNotesOutput) string {
	var b strings.Builder
	head := []string{"Path"}
	if len(out.Groups) > 0 {
		head = append([]string{"Group"}, head...)
	}
	for _, c := range out.Columns {
		head = append(head, escapeCell(c.Name))
	}
	b.WriteString("| " + strings.Join(head, " | ") + " |\n|")
	b.WriteString(strings.Repeat(" --- |", len(head)) + "\n")
	for _, r := range out.Rows {
		cells := []string{escapeCell(r.Path)}
		if len(out.Groups) > 0 {
			cells = append([]string{escapeCell(r.Group)}, cells...)
		}
		for _, c := range out.Columns {
			cells = append(cells, cell(r.Values[c.ID]))
		}
		b.WriteString("| " + strings.Join(cells, " | ") + " |\n")
	}
	return b.String()
}

// listSeparator stands between the items of a list in a table cell: not
// ", ", which names such as "Müller, Hans" hold.
const listSeparator = "; "

// cell is a value as a table cell, the same in `jarvis query` and
// query-notes: lists as their items joined by listSeparator, an item
// that holds ";" or starts with a quote in double quotes, so that items
// stay apart; on one line, with "|" escaped.
func cell(v any) string {
	switch x := v.(type) {
	case nil:
		return ""
	case []any:
		parts := make([]string, len(x))
		for i, el := range x {
			parts[i] = cell(el)
			if strings.Contains(parts[i], ";") || strings.HasPrefix(parts[i], `"`) {
				parts[i] = `"` + strings.ReplaceAll(parts[i], `"`, `\"`) + `"`
			}
		}
		return strings.Join(parts, listSeparator)
	case float64:
		return bases.FormatNumber(x)
	case string:
		return escapeCell(clip(x, maxTextChars))
	}
	data, err := json.Marshal(v)
	if err != nil {
		return ""
	}
	return escapeCell(clip(string(data), maxTextChars))
}

func escapeCell(s string) string {
	return strings.NewReplacer("|", `\|`, "\n", " ", "\r", " ").Replace(s)
}

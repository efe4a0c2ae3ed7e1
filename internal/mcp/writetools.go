package mcp

import (
	"context"
	"errors"
	"fmt"
	"path"
	"slices"
	"strconv"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
	mcpsdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/jarvis-mcp/jarvis/internal/graph"
	"github.com/jarvis-mcp/jarvis/internal/words"
	"github.com/jarvis-mcp/jarvis/internal/write"
)

// The names of the write tools, offered only for vaults made writable.
const (
	ToolCreateNote = write.ToolCreate
	ToolEditNote   = write.ToolEdit
	ToolMoveNote   = write.ToolMove
	ToolDeleteNote = write.ToolDelete
)

// writeToolNames are the write tools, offered only when a vault is
// writable.
var writeToolNames = []string{ToolCreateNote, ToolEditNote, ToolMoveNote, ToolDeleteNote}

// NoteWriter changes the notes of the vaults made writable (the write
// tools): each write checked against the etag its caller read, atomic,
// confined to the vault, journalled for jarvis undo, and in the index
// before it returns.
type NoteWriter interface {
	// Writable names the vaults whose notes may be written; with none,
	// no write tool is offered.
	Writable() []string
	Write(ctx context.Context, r write.Request) (write.Result, error)
}

// CreateNoteTool, EditNoteTool, MoveNoteTool and DeleteNoteTool are the
// write tools; each is listed only when some vault is writable. Those
// that change a note find, as read-note does, the notes a path where no
// note is may have meant, through the link graph.
func CreateNoteTool(w NoteWriter) Tool {
	return Tool{ToolCreateNote, func(t *tools) { t.writer = w }, (*tools).addCreateNote}
}

// EditNoteTool is edit-note.
func EditNoteTool(w NoteWriter, g LinkGraph) Tool {
	return Tool{ToolEditNote, func(t *tools) { t.writer, t.graph = w, g }, (*tools).addEditNote}
}

// MoveNoteTool is move-note.
func MoveNoteTool(w NoteWriter, g LinkGraph) Tool {
	return Tool{ToolMoveNote, func(t *tools) { t.writer, t.graph = w, g }, (*tools).addMoveNote}
}

// DeleteNoteTool is delete-note.
func DeleteNoteTool(w NoteWriter, g LinkGraph) Tool {
	return Tool{ToolDeleteNote, func(t *tools) { t.writer, t.graph = w, g }, (*tools).addDeleteNote}
}

// writes reports whether the write tools are offered: some vault is
// writable.
func (t *tools) writes() bool {
	return t.writer != nil && len(t.writer.Writable()) > 0
}

// boundWriteArgs bounds the arguments the write tools (and periodic-note's
// append) share, wherever schema p has them, so that the SDK refuses an
// oversized one before the write service sees it. Text is bounded by
// MaxArgumentBytes, the most a call's arguments may take in all (bytes,
// so at least as many characters); the service checks its own bounds
// (write.MaxEditText), with the note's own size, as it plans the write.
func boundWriteArgs(p map[string]*jsonschema.Schema) {
	bound := func(name string, hi int) {
		if s := p[name]; s != nil {
			textLength(s, 0, hi)
		}
	}
	bound("path", maxPathChars)
	bound("to", maxPathChars)
	bound("vault", maxNameChars)
	bound("etag", write.ETagLen)
	bound("content", MaxArgumentBytes)
	bound("append", MaxArgumentBytes)
	if edits := p["edits"]; edits != nil && edits.Items != nil {
		e := edits.Items.Properties
		e["op"].Enum = nil
		for _, op := range write.Ops() {
			e["op"].Enum = append(e["op"].Enum, op)
		}
		textLength(e["op"], 0, len(write.OpReplaceSection))
		// The example a refusal shows must be accepted when pasted, and
		// append takes its text.
		edits.Items.Examples = []any{map[string]any{"op": write.OpAppend, "text": "..."}}
		for _, name := range []string{"text", "find", "replace"} {
			textLength(e[name], 0, MaxArgumentBytes)
		}
		textLength(e["heading"], 0, maxHeadingChars)
		// find occurs at most once per byte of the note.
		e["count"].Minimum, e["count"].Maximum = ptr(1.0), ptr(float64(write.MaxEditText))
		e["properties"].MaxProperties = ptr(write.MaxProperties)
	}
}

// writeAnnotations are a write tool's: it changes only the user's own
// notes, in the vault; destructive when it may change or remove what is
// there.
func writeAnnotations(title string, destructive bool) *mcpsdk.ToolAnnotations {
	closed := false
	return &mcpsdk.ToolAnnotations{Title: title, DestructiveHint: &destructive, OpenWorldHint: &closed}
}

// CreateNoteInput is the input of create-note.
type CreateNoteInput struct {
	Path    string `json:"path" jsonschema:"where the new note goes: a vault-relative path ending in .md, such as Projects/Apollo.md; missing folders are made"`
	Content string `json:"content" jsonschema:"the note's Markdown, frontmatter included if any; one call takes at most 64 KB of arguments, so a longer note is created with part of it and grown with edit-note's append"`
	Vault   string `json:"vault,omitempty" jsonschema:"the vault, a name from list-vaults; needed only when several vaults are writable"`
	DryRun  bool   `json:"dry_run,omitempty" jsonschema:"true to get the diff of what would be written, and write nothing"`
}

// EditNoteInput is the input of edit-note.
type EditNoteInput struct {
	Path   string       `json:"path" jsonschema:"the note's vault-relative path, as read-note and search results give it"`
	ETag   string       `json:"etag" jsonschema:"the etag read-note (or the last write) returned for the note: the edit is refused if the note changed since"`
	Edits  []write.Edit `json:"edits" jsonschema:"the edits, applied in order as one change: if one fails, nothing is written"`
	Vault  string       `json:"vault,omitempty" jsonschema:"the vault, a name from list-vaults; needed only when several vaults are writable"`
	DryRun bool         `json:"dry_run,omitempty" jsonschema:"true to get the diff of what would be written, and write nothing"`
}

// MoveNoteInput is the input of move-note.
type MoveNoteInput struct {
	Path   string `json:"path" jsonschema:"the note's vault-relative path"`
	To     string `json:"to" jsonschema:"its new vault-relative path, ending in .md: a new name, a new folder, or both; a folder ending in / keeps the name"`
	ETag   string `json:"etag" jsonschema:"the etag read-note returned for the note"`
	Vault  string `json:"vault,omitempty" jsonschema:"the vault, a name from list-vaults; needed only when several vaults are writable"`
	DryRun bool   `json:"dry_run,omitempty" jsonschema:"true to get the diff of the move and of every note whose links would change, and write nothing"`
}

// DeleteNoteInput is the input of delete-note.
type DeleteNoteInput struct {
	Path  string `json:"path" jsonschema:"the note's vault-relative path"`
	ETag  string `json:"etag" jsonschema:"the etag read-note returned for the note"`
	Vault string `json:"vault,omitempty" jsonschema:"the vault, a name from list-vaults; needed only when several vaults are writable"`
}

// WriteOutput is what every write tool returns.
type WriteOutput struct {
	Vault  string `json:"vault"`
	Path   string `json:"path" jsonschema:"the note's path after the write"`
	ETag   string `json:"etag" jsonschema:"the note's etag after the write, to send with the next write of it; in a dry run, its etag now"`
	DryRun bool   `json:"dry_run"`
	Diff   string `json:"diff,omitempty" jsonschema:"the unified diff of every file the write changes, or would in a dry run"`
	// Relinked are the notes whose links changed with a move.
	Relinked []string `json:"relinked,omitempty" jsonschema:"move-note: the notes whose links to the note were rewritten"`
	Trash    string   `json:"trash,omitempty" jsonschema:"delete-note: where the note was put, in the vault's .trash folder"`
	Undo     string   `json:"undo,omitempty" jsonschema:"how the user can revert this write"`
	// LinkedFrom are the notes whose links led to a note deleted.
	LinkedFrom []string `json:"linked_from,omitempty" jsonschema:"delete-note: notes whose links led to the note, which now lead to no note"`
	// MoreLinkedFrom is set when more notes linked to it than are named.
	MoreLinkedFrom bool `json:"more_linked_from,omitempty" jsonschema:"delete-note: more notes linked to it than linked_from names"`
	// Warnings say what the write could not do beside it.
	Warnings []string `json:"warnings,omitempty" jsonschema:"what the write could not do beside it: a link it could not rewrite, an index it could not update"`
}

func (t *tools) addCreateNote(s *mcpsdk.Server) {
	addTool(t, s, &mcpsdk.Tool{
		Name: ToolCreateNote,
		Description: `Create a new note in a writable vault. It never replaces a note: if a file is at the path, it is refused, and edit-note changes an existing note.
Use dry_run to show the user what would be written first.`,
		Annotations: writeAnnotations("Create a note", false),
		InputSchema: inputSchema[CreateNoteInput](boundWriteArgs),
	}, func(ctx context.Context, _ *mcpsdk.CallToolRequest, in CreateNoteInput) (*mcpsdk.CallToolResult, WriteOutput, error) {
		return t.write(ctx, write.Request{Tool: ToolCreateNote, Vault: in.Vault, Path: in.Path, Content: in.Content, DryRun: in.DryRun})
	})
}

func (t *tools) addEditNote(s *mcpsdk.Server) {
	addTool(t, s, &mcpsdk.Tool{
		Name: ToolEditNote,
		Description: `Change a note of a writable vault: append or prepend text, replace exact text, replace a section under a heading, set or remove frontmatter properties, or replace the whole text. Read the note with read-note first and pass its etag: if the note changed since, nothing is written and you are told to read it again.
Every edit keeps the rest of the note byte for byte, and the user can undo it.`,
		Annotations: writeAnnotations("Edit a note", true),
		InputSchema: inputSchema[EditNoteInput](func(p map[string]*jsonschema.Schema) {
			// A list of edits is required: not null, not empty, and no
			// longer than one call applies.
			p["edits"].Types, p["edits"].Type = nil, "array"
			p["edits"].MinItems = ptr(1)
			maxItems(p["edits"], write.MaxEdits)
			boundWriteArgs(p)
		}),
	}, func(ctx context.Context, _ *mcpsdk.CallToolRequest, in EditNoteInput) (*mcpsdk.CallToolResult, WriteOutput, error) {
		return t.write(ctx, write.Request{Tool: ToolEditNote, Vault: in.Vault, Path: in.Path, ETag: in.ETag, Edits: in.Edits, DryRun: in.DryRun})
	})
}

func (t *tools) addMoveNote(s *mcpsdk.Server) {
	addTool(t, s, &mcpsdk.Tool{
		Name: ToolMoveNote,
		Description: `Rename or move a note of a writable vault, and rewrite every link to it across the vault as Obsidian does (wikilinks, embeds, Markdown and frontmatter links, keeping each link's form). All the files change together or none does.
Use dry_run to list the notes whose links would change.`,
		Annotations: writeAnnotations("Move a note", true),
		InputSchema: inputSchema[MoveNoteInput](boundWriteArgs),
	}, func(ctx context.Context, _ *mcpsdk.CallToolRequest, in MoveNoteInput) (*mcpsdk.CallToolResult, WriteOutput, error) {
		return t.write(ctx, write.Request{Tool: ToolMoveNote, Vault: in.Vault, Path: in.Path, To: in.To, ETag: in.ETag, DryRun: in.DryRun})
	})
}

func (t *tools) addDeleteNote(s *mcpsdk.Server) {
	addTool(t, s, &mcpsdk.Tool{
		Name:        ToolDeleteNote,
		Description: `Delete a note of a writable vault by moving it to the vault's .trash folder, as Obsidian's "move to Obsidian trash" does; the user can bring it back with jarvis undo. Links to it are left as they are.`,
		Annotations: writeAnnotations("Delete a note", true),
		InputSchema: inputSchema[DeleteNoteInput](boundWriteArgs),
	}, func(ctx context.Context, _ *mcpsdk.CallToolRequest, in DeleteNoteInput) (*mcpsdk.CallToolResult, WriteOutput, error) {
		return t.write(ctx, write.Request{Tool: ToolDeleteNote, Vault: in.Vault, Path: in.Path, ETag: in.ETag})
	})
}

// write runs one write request for a tool (writeRequest), and is the one
// place that finishes a write tool's refusal: as a sentence, with a full
// stop (refusal).
func (t *tools) write(ctx context.Context, r write.Request) (*mcpsdk.CallToolResult, WriteOutput, error) {
	res, out, err := t.writeRequest(ctx, r)
	return res, out, refusal(err)
}

// refusalError is a write tool's refusal, its text ending as a sentence.
type refusalError struct{ err error }

func (e *refusalError) Error() string {
	text := strings.TrimRight(e.err.Error(), " ")
	if strings.HasSuffix(text, ".") || strings.HasSuffix(text, "?") || strings.HasSuffix(text, "!") {
		return text
	}
	return text + "."
}

func (e *refusalError) Unwrap() error { return e.err }

// refusal is err, worded to end as a sentence; nil for nil.
func refusal(err error) error {
	if err == nil {
		return nil
	}
	return &refusalError{err: err}
}

// writeRequest runs one write request for a tool: the vault it names (the
// one writable vault when it names none), the write, and its answer.
func (t *tools) writeRequest(ctx context.Context, r write.Request) (*mcpsdk.CallToolResult, WriteOutput, error) {
	out := WriteOutput{Vault: r.Vault, Path: r.Path, DryRun: r.DryRun}
	name, err := t.writableVault(r.Vault)
	if err != nil {
		return nil, out, err
	}
	r.Vault, out.Vault = name, name
	given := r.Path
	if r.Path, err = t.writeSource(ctx, r); err != nil {
		return nil, out, err
	}
	var linkers []string
	var moreLinkers bool
	if r.Tool == ToolDeleteNote {
		// Read before the write: once the note is in .trash, the index
		// no longer holds the links that led to it.
		linkers, moreLinkers = t.linkedFrom(ctx, r.Vault, r.Path)
	}
	res, err := t.writer.Write(ctx, r)
	if errors.Is(err, write.ErrNotFound) {
		return nil, out, t.missingNote(ctx, r, err)
	}
	if err != nil {
		err = writeError(err, ToolReadNote)
		if r.Path != given {
			err = fmt.Errorf("%s is the note %s: %w", quoteArg(given), quoteArg(r.Path), err)
		}
		return nil, out, err
	}
	out.Path, out.ETag, out.Diff, out.Relinked, out.Trash, out.Warnings = res.Path, res.ETag, res.Diff, nonNil(res.Relinked), res.Trash, res.Warnings
	if len(out.Relinked) == 0 {
		out.Relinked = nil
	}
	out.Undo = t.undoHint(res)
	out.LinkedFrom, out.MoreLinkedFrom = linkers, moreLinkers
	return textResult(renderWrite(r, out)), out, nil
}

// maxLinkedFrom bounds the notes a delete-note answer names as linking to
// the note deleted.
const maxLinkedFrom = 20

// linkedFrom are the other notes whose links lead to the note at rel, as
// the link graph holds them, at most maxLinkedFrom; more is set when there
// are others. None when the graph cannot say.
func (t *tools) linkedFrom(ctx context.Context, vault, rel string) (notes []string, more bool) {
	if t.graph == nil {
		return nil, false
	}
	page, err := t.graph.BacklinksUpTo(ctx, vault, rel, 10*maxLinkedFrom)
	if err != nil {
		return nil, false
	}
	for _, e := range page.Edges {
		switch {
		case e.Source == rel || slices.Contains(notes, e.Source):
		case len(notes) == maxLinkedFrom:
			more = true
		default:
			notes = append(notes, e.Source)
		}
	}
	return notes, more || page.Total > len(page.Edges)
}

// writeSource is the path of the note a write that changes one (edit,
// move, delete) names, found as read-note finds it (locate): the path
// itself when a note is there, else the one note its title, file name or
// alias names. The etag the write is checked against is still that of
// the note found. Several notes of that name are refused with their
// paths; a name that is no note's, without an extension, gets read-note's
// answer; anything else is left to the write service to refuse.
func (t *tools) writeSource(ctx context.Context, r write.Request) (string, error) {
	if r.Tool != ToolEditNote && r.Tool != ToolMoveNote && r.Tool != ToolDeleteNote {
		return r.Path, nil
	}
	v, rel, others, err := t.locate(ctx, r.Vault, r.Path)
	switch {
	case err != nil:
		if _, folder := t.folderOf(r.Vault, r.Path); !folder && path.Ext(r.Path) == "" {
			return "", fmt.Errorf("%v; nothing was written", err)
		}
		return r.Path, nil
	case v.Name != r.Vault || rel == r.Path:
		return r.Path, nil
	case len(others) > 0:
		paths := []string{quoteArg(rel)}
		for i, o := range others {
			if i == maxAlsoMatches {
				paths = append(paths, fmt.Sprintf("%d more", len(others)-i))
				break
			}
			paths = append(paths, quoteArg(o.Path))
		}
		return "", fmt.Errorf("%s names %s: %s; pass the path of the one meant. Nothing was written", quoteArg(r.Path), words.Count(len(others)+1, "note"), words.List(paths))
	}
	return rel, nil
}

// missingNote is the answer to a write refused because no note is at
// r.Path (err): what read-note answers for that path (locate), so that a
// path a little off gets the same closest names that read-note gives. (A
// path that leads to a note by the rules of links was written to that
// note: writeSource.)
//
// A write carries the etag of the note as it was read. When one of the
// closest names holds that very text, the path was mistyped and that is
// the note meant; when none does, the note read may have been renamed or
// moved since, and the names close to its path may be other notes.
func (t *tools) missingNote(ctx context.Context, r write.Request, err error) error {
	if _, _, _, lerr := t.locate(ctx, r.Vault, r.Path); lerr != nil {
		var nf *graph.NotFoundError
		_, ferr := use(t.graph, "the link graph", func(g LinkGraph) (graph.Match, error) { return g.FindNote(ctx, r.Vault, r.Path) })
		if !write.IsETag(r.ETag) || !errors.As(ferr, &nf) || len(nf.Suggestions) == 0 {
			return fmt.Errorf("%v; nothing was written", lerr)
		}
		for _, s := range nf.Suggestions {
			if t.holds(s, r.ETag) {
				return fmt.Errorf("there is no note at %s; the note read with that etag is %s, in vault %q: pass its path. Nothing was written", write.PathText(r.Path), write.PathText(s.Path), s.Vault)
			}
		}
		return fmt.Errorf("%v; none of these holds the text read with that etag: if the note read was renamed or moved since, search-vault finds it by name. Nothing was written", lerr)
	}
	// The index still holds the path, but the note is not there now.
	return fmt.Errorf("%v (renamed or moved?); search-vault finds notes by name", err)
}

// undoHint says how the user reverts the write res, for a write's
// answer; "" when it was not journalled.
func (t *tools) undoHint(res write.Result) string {
	if res.Journal == 0 {
		return ""
	}
	return "the user can revert it with " + t.inv.Command("undo", strconv.FormatInt(res.Journal, 10))
}

// writableVault is the vault a write names, checked: named and writable,
// or the only writable vault when none is named.
func (t *tools) writableVault(name string) (string, error) {
	writable := t.writer.Writable()
	if name == "" {
		if len(writable) == 1 {
			return writable[0], nil
		}
		return "", fmt.Errorf("several vaults are writable (%s): say which with vault", words.Quoted(writable))
	}
	if slices.Contains(writable, name) {
		return name, nil
	}
	if err := t.checkVault(name); err != nil {
		return "", err
	}
	return "", fmt.Errorf("vault %q is read-only: the write tools may change only %s; %s", name, words.Quoted(writable), allowWriting)
}

// allowWriting says how the user makes a vault writable, for a write
// refused in a read-only one.
const allowWriting = "the user can allow writing with `write: true` on the vault in jarvis's config file, or by starting jarvis mcp with --write"

// writeError words a failed write for the model: what happened and what
// to do next, reading the note with reader (the tool that gives its etag).
func writeError(err error, reader string) error {
	var twin *write.TwinError
	var mismatch *write.MismatchError
	switch {
	case errors.As(err, &mismatch) && mismatch.Of != "":
		return fmt.Errorf("%v: nothing was written; pass the path of the note meant, or read %s with %s for its own etag", err, write.PathText(mismatch.Path), reader)
	case errors.Is(err, write.ErrStale):
		return fmt.Errorf("%v: nothing was written; read it again with %s and make the change on what it says now, with the etag %[2]s returns", err, reader)
	case errors.Is(err, write.ErrNoETag):
		return fmt.Errorf("%v. Nothing was written: read the note with %s, which returns its etag", err, reader)
	case errors.Is(err, write.ErrBadETag):
		return fmt.Errorf("%v; read the note with %s to get one. Nothing was written", err, reader)
	case errors.As(err, &twin) && twin.InFolder() != "":
		what := "write it"
		if twin.From != "" {
			what = "move it"
		}
		return fmt.Errorf("%v: nothing was written; choose another path, or %s into the existing folder: `%s`", err, what, twin.InFolder())
	case errors.Is(err, write.ErrExists):
		return fmt.Errorf("%v: nothing was written; to change an existing note use edit-note, or choose another path", err)
	}
	return err
}

// renderWrite is the text of a write's answer, its paths named as the
// journal names them (write.PathText).
func renderWrite(r write.Request, out WriteOutput) string {
	var b strings.Builder
	switch {
	case out.DryRun && r.Tool == ToolMoveNote:
		fmt.Fprintf(&b, "Dry run of move-note, to move %s to %s: nothing was written.\n", write.PathText(r.Path), write.PathText(out.Path))
	case out.DryRun:
		fmt.Fprintf(&b, "Dry run of %s on %s: nothing was written.\n", r.Tool, write.PathText(out.Path))
	case r.Tool == ToolDeleteNote:
		fmt.Fprintf(&b, "Moved %s to %s.\n", write.PathText(r.Path), write.PathText(out.Trash))
	case r.Tool == ToolMoveNote:
		fmt.Fprintf(&b, "Moved %s to %s", write.PathText(r.Path), write.PathText(out.Path))
		if n := len(out.Relinked); n > 0 {
			fmt.Fprintf(&b, " and rewrote the links to it in %s", words.Count(n, "note"))
		}
		b.WriteString(".\n")
	default:
		fmt.Fprintf(&b, "Wrote %s.\n", write.PathText(out.Path))
	}
	if out.ETag != "" {
		fmt.Fprintf(&b, "etag: %s\n", out.ETag)
	}
	if out.Undo != "" {
		fmt.Fprintf(&b, "Undo: %s.\n", strings.TrimPrefix(out.Undo, "the user can revert it with "))
	}
	if n := len(out.LinkedFrom); n > 0 {
		who := words.Agree(n, "One note", words.Count(n, "note"))
		if out.MoreLinkedFrom {
			who = fmt.Sprintf("More than %d notes", n)
		}
		then := "those links now lead to no note (an undo brings it back)"
		if out.DryRun {
			then = "those links would lead to no note"
		}
		fmt.Fprintf(&b, "\n%s linked to it; %s:\n", who, then)
		for _, p := range out.LinkedFrom {
			fmt.Fprintf(&b, "- %s\n", write.PathText(p))
		}
	}
	if len(out.Relinked) > 0 {
		b.WriteString("\nLinks rewritten in:\n")
		for _, p := range out.Relinked {
			fmt.Fprintf(&b, "- %s\n", write.PathText(p))
		}
	}
	for _, w := range out.Warnings {
		fmt.Fprintf(&b, "\nWarning: %s.\n", w)
	}
	if out.Diff != "" {
		fmt.Fprintf(&b, "\n```diff\n%s```\n", out.Diff)
	}
	return b.String()
}

// holds reports whether the note at ref holds, on disk now, the text
// whose etag is etag.
func (t *tools) holds(ref graph.Ref, etag string) bool {
	for _, v := range t.vaults {
		if v.Name != ref.Vault {
			continue
		}
		data, _, err := readNote(v, ref.Path)
		return err == nil && write.ETag(data) == etag
	}
	return false
}

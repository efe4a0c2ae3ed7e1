package write

import "errors"

// The writers a Request names: the write tools.
const (
	ToolCreate = "create-note"
	ToolEdit   = "edit-note"
	ToolMove   = "move-note"
	ToolDelete = "delete-note"
)

// More errors of a Request, beside those of the file layer.
var (
	// ErrNotFound means there is no note at the path to change.
	ErrNotFound = errors.New("no such note")
	// ErrNoETag means a change of an existing note came without the etag
	// its writer read.
	ErrNoETag = errors.New("the etag is missing")
	// ErrBadETag means the etag given is not one jarvis gives: it was
	// given, so it is not missing, and it cannot be the note's.
	ErrBadETag = errors.New("is not an etag jarvis gives")
	// ErrNoChange means the edits leave the note as it is: nothing is
	// written or journalled.
	ErrNoChange = errors.New("nothing to change")
)

// Request is one write a tool asks for.
type Request struct {
	// Tool is the write: ToolCreate, ToolEdit, ToolMove or ToolDelete.
	Tool string
	// By names the tool that asked for the write, for the journal, when
	// it is not Tool itself: periodic-note creates its note as
	// create-note does and appends to it as edit-note does.
	By    string
	Vault string
	// Path is the note written, vault-relative.
	Path string
	// To is where move-note moves it.
	To string
	// ETag is the etag of the note as the caller read it; "" to create.
	ETag string
	// Content is create-note's text.
	Content string
	// Edits are edit-note's edits, applied in order as one change.
	Edits []Edit
	// DryRun asks for the diff and writes nothing.
	DryRun bool
}

// Result is what a write did, or would do in a dry run.
type Result struct {
	Vault string
	// Path is the note's path after the write (a move's new path).
	Path string
	// ETag is the note's etag after the write; in a dry run, its etag
	// now, which the write must be sent with.
	ETag string
	// Diff is the unified diff of every file the write changes (or would,
	// in a dry run).
	Diff string
	// Relinked are the notes whose links to the moved note change.
	Relinked []string
	// Trash is where delete-note put the note.
	Trash string
	// Journal is the write's number: jarvis undo N reverts it. 0 in a dry
	// run.
	Journal int64
	// Warnings say what the write could not do beside it: a link it could
	// not rewrite, a journal or index it could not update.
	Warnings []string
}

// notFoundError is an ErrNotFound naming the path, said once: "there is
// no note at A.md".
type notFoundError struct{ path string }

func (e *notFoundError) Error() string        { return "there is no note at " + e.path }
func (e *notFoundError) Is(target error) bool { return target == ErrNotFound }

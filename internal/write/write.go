// Package write changes a vault's notes for the write tools (create-note,
// edit-note, move-note, delete-note) and jarvis undo, so that no note is
// lost: every write is checked against the bytes the writer read (an
// etag), confined to the vault folder without following links, atomic
// (a file is written beside the note, synced and renamed over it), and
// journalled with the bytes it replaced so that it can be undone.
//
// The pieces, each in its own file:
//
//   - etag.go: ETag, the hash a reader is given and a writer must send back.
//   - files.go: Vault, the folder open for writing: the rules of what may
//     be written (CheckPath), Read, and Apply, which carries out a Change
//     of one or many files all or nothing.
//   - edit.go: the edits of edit-note applied to a note's text (Apply
//     Edits), and Diff for dry runs.
//   - links.go: the changes a move makes to the notes linking to the
//     note moved (Relink).
//   - journal.go: the write journal in the database, History and Undo.
package write

import "errors"

// Errors a writer branches on; each is wrapped with the words for its
// reader.
var (
	// ErrStale means the note changed since its etag was read: nothing
	// was written.
	ErrStale = errors.New("the note changed since it was read")
	// ErrExists means a note was to be created where a file already is.
	ErrExists = errors.New("a file already exists there")
	// ErrNotWritable means the path may not be written: outside the
	// vault, through a link, hidden, excluded, in the trash, not a note,
	// or a name a system refuses. The wrapping error says which.
	ErrNotWritable = errors.New("the path cannot be written")
	// ErrTooLarge means a note or an edit is over the bounds.
	ErrTooLarge = errors.New("too large")
)

// FileChange is one file's part of a Change. Exactly one of its forms:
//
//   - Path with After set: write After to Path (creating it when Before
//     is "");
//   - Path with Delete: move the file to the vault's trash;
//   - Path with MoveTo: rename the file (with After set, write After at
//     the new path).
//   - Path with After and Trashed: bring back the note a delete put at
//     Trashed (a path beneath TrashDir): renamed back to Path when the
//     file there still holds After, else After written at Path as a new
//     note (the trash copy gone or changed since is left as it is).
//
// Before is the etag the file must have now ("" when it must not exist);
// a file whose etag differs makes the whole Change fail with ErrStale.
type FileChange struct {
	Path   string
	Before string
	After  []byte
	Delete bool
	MoveTo string
	// Trashed is where the delete being undone put the note.
	Trashed string
}

// Change is what one write does to the vault: one file for an edit, the
// note and every note linking to it for a move. Apply carries it out all
// or nothing.
type Change struct {
	// Tool names the writer, for the journal: "edit-note", "undo".
	Tool string
	// Summary says what the write does in a few words, for the journal
	// and jarvis history; "" lets the journal say it from Files
	// (Describe).
	Summary string
	Files   []FileChange
	// RemoveFolders are folders to remove once the files are written,
	// each only when it is then empty, the last first: the folders the
	// write being undone made (Applied.Folders), outermost first.
	RemoveFolders []string
}

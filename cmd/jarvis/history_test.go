package main

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/jarvis-mcp/jarvis/internal/health"
	"github.com/jarvis-mcp/jarvis/internal/write"
)

// TestHistoryLinesUp: the numbers of writes 9 and 10 end in one column,
// so their dates start in one; a write of one file says what it did once,
// the most of its summary and its file's line; a move lists the notes it
// relinked beneath it, and the note moved, so that every file it changed
// is listed.
func TestHistoryLinesUp(t *testing.T) {
	at := time.Date(2025, 3, 1, 9, 30, 0, 0, time.Local)
	entries := []write.Entry{
		{ID: 10, At: at, Tool: "edit-note", Vault: "notes", Summary: "edited Water.md",
			Files: []write.EntryFile{{Change: write.Edited, Path: "Water.md", PathAfter: "Water.md"}}},
		{ID: 9, At: at, Tool: "delete-note", Vault: "notes", Summary: "deleted Old.md",
			Files: []write.EntryFile{{Change: write.Deleted, Path: "Old.md", PathAfter: ".trash/Old.md"}}},
		{ID: 8, At: at, Tool: "move-note", Vault: "notes", Summary: "moved A.md to B/A.md and updated the links in 1 note",
			Files: []write.EntryFile{{Change: write.Moved, Path: "A.md", PathAfter: "B/A.md"}, {Change: write.Edited, Path: "Index.md", PathAfter: "Index.md"}}},
		{ID: 7, At: at, Tool: "undo", Vault: "notes", Summary: "undid write 6 (deleted C.md)",
			Files: []write.EntryFile{{Change: write.Created, Path: "C.md", PathAfter: "C.md"}}},
	}
	var b bytes.Buffer
	printHistory(&b, entries, map[int64]bool{10: true, 9: true, 8: true, 7: true}, "/db", health.Invocation{})
	when := at.Format("2006-01-02 15:04")
	want := "10  " + when + `  edit-note in "notes": edited Water.md
 9  ` + when + `  delete-note in "notes": deleted Old.md (to .trash/Old.md)
 8  ` + when + `  move-note in "notes": moved A.md to B/A.md and updated the links in 1 note
    moved   A.md to B/A.md
    edited  Index.md
 7  ` + when + `  undo in "notes": undid write 6 (deleted C.md)
    created C.md
`
	got, _, _ := strings.Cut(b.String(), "\n\n")
	if got+"\n" != want {
		t.Errorf("history lists\n%s\nwant\n%s", got, want)
	}
	if !strings.Contains(b.String(), "4 writes listed. Run `jarvis undo` to revert the last, or `jarvis undo 7` for write 7.") {
		t.Errorf("history's footer: %q", b.String())
	}
}

// TestHistoryQuotesNamesThatNeedIt: a note whose name starts with a space
// is named in quotes, in the summary the journal keeps and in the lines
// beneath a write, so that it is not taken for another note.
func TestHistoryQuotesNamesThatNeedIt(t *testing.T) {
	ch := write.Change{Tool: "move-note", Files: []write.FileChange{
		{Path: " lead.md", Before: "x", MoveTo: "Done/ lead.md"},
		{Path: "Index.md", Before: "y", After: []byte("[[Done/ lead]]")},
	}}
	e := write.Entry{ID: 1, At: time.Now(), Tool: "move-note", Vault: "notes", Summary: write.Describe(ch),
		Files: []write.EntryFile{{Change: write.Moved, Path: " lead.md", PathAfter: "Done/ lead.md"}, {Change: write.Edited, Path: "Index.md", PathAfter: "Index.md"}}}
	var b bytes.Buffer
	printHistory(&b, []write.Entry{e}, map[int64]bool{1: true}, "/db", health.Invocation{})
	for _, want := range []string{`moved " lead.md" to "Done/ lead.md" and updated the links in 1 note`, `   moved   " lead.md" to "Done/ lead.md"`, "   edited  Index.md"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("history does not say %q:\n%s", want, b.String())
		}
	}
}

// TestHistoryListsAnUndoneDeleteAsRestored: the undo of a delete, which
// brought the note back from the trash (the journal keeps its place
// there as the path before), is listed as a restore from the trash, not
// as a note created.
func TestHistoryListsAnUndoneDeleteAsRestored(t *testing.T) {
	e := write.Entry{ID: 10, At: time.Now(), Tool: "undo", Vault: "life", Summary: "undid write 9 (deleted Projects/Bike Repair.md)",
		Files: []write.EntryFile{{Change: write.Created, Path: ".trash/Bike Repair.md", PathAfter: "Projects/Bike Repair.md"}}}
	var b bytes.Buffer
	printHistory(&b, []write.Entry{e}, map[int64]bool{10: true}, "/db", health.Invocation{})
	if want := "restored Projects/Bike Repair.md (from .trash/Bike Repair.md)"; !strings.Contains(b.String(), want) {
		t.Errorf("history does not say %q:\n%s", want, b.String())
	}
	if strings.Contains(b.String(), "created") {
		t.Errorf("history says the restored note was created:\n%s", b.String())
	}
}

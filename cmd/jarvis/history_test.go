package main

import (
	"bytes"
	"path/filepath"
	"strconv"
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
	printHistory(&b, historyPage{entries: entries, undoable: map[int64]bool{10: true, 9: true, 8: true, 7: true}}, "/db", health.Invocation{})
	when := at.Format("2006-01-02 15:04")
	want := "10  " + when + `  edit-note in "notes": edited Water.md
 9  ` + when + `  delete-note in "notes": moved Old.md to the vault's .trash
 8  ` + when + `  move-note in "notes": moved A.md to B/A.md and updated the links in 1 note
    moved   A.md to B/A.md
    edited  Index.md
 7  ` + when + `  undo in "notes": undid write 6 (deleted C.md): restored C.md
`
	got, _, _ := strings.Cut(b.String(), "\n\n")
	if got+"\n" != want {
		t.Errorf("history lists\n%s\nwant\n%s", got, want)
	}
	if !strings.Contains(b.String(), "4 writes listed. Run `jarvis undo` to revert the last, or `jarvis undo 9` for write 9.") {
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
	printHistory(&b, historyPage{entries: []write.Entry{e}, undoable: map[int64]bool{1: true}}, "/db", health.Invocation{})
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
	printHistory(&b, historyPage{entries: []write.Entry{e}, undoable: map[int64]bool{10: true}}, "/db", health.Invocation{})
	if want := "restored Projects/Bike Repair.md (from .trash/Bike Repair.md)"; !strings.Contains(b.String(), want) {
		t.Errorf("history does not say %q:\n%s", want, b.String())
	}
	if strings.Contains(b.String(), "created") {
		t.Errorf("history says the restored note was created:\n%s", b.String())
	}
}

// TestHistoryMarksUndoneWrites: after a move (1), its undo (2), redo (3)
// and undo again (4), and writes 5 to 9, the move is marked with its
// latest state, each undo reads as its own report did, and the footer
// offers the newest tool's write that can be undone, not an undo.
func TestHistoryMarksUndoneWrites(t *testing.T) {
	at := time.Date(2025, 3, 1, 9, 30, 0, 0, time.Local)
	move := []write.EntryFile{{Change: write.Moved, Path: "A.md", PathAfter: "B/A.md"}}
	back := []write.EntryFile{{Change: write.Moved, Path: "B/A.md", PathAfter: "A.md"}}
	entries := []write.Entry{}
	undoable := map[int64]bool{}
	for id := int64(9); id >= 5; id-- {
		name := "N" + strconv.FormatInt(id, 10) + ".md"
		entries = append(entries, write.Entry{ID: id, At: at, Tool: "create-note", Vault: "notes", Summary: "created " + name,
			Files: []write.EntryFile{{Change: write.Created, Path: name, PathAfter: name}}})
		undoable[id] = true
	}
	undoable[4] = true
	entries = append(entries,
		write.Entry{ID: 4, At: at, Tool: "undo", Vault: "notes", Summary: "undid write 1 (moved A.md to B/A.md)", Files: back},
		write.Entry{ID: 3, At: at, Tool: "undo", Vault: "notes", Summary: "redid write 1 (moved A.md to B/A.md)", Files: move},
		write.Entry{ID: 2, At: at, Tool: "undo", Vault: "notes", Summary: "undid write 1 (moved A.md to B/A.md)", Files: back},
		write.Entry{ID: 1, At: at, Tool: "move-note", Vault: "notes", Summary: "moved A.md to B/A.md", Files: move},
	)
	var b bytes.Buffer
	printHistory(&b, historyPage{entries: entries, undoable: undoable}, "/db", health.Invocation{})
	for _, want := range []string{
		`4  ` + at.Format("2006-01-02 15:04") + `  undo in "notes": undid write 1 (moved A.md to B/A.md) again by reverting write 3, its redo: moved B/A.md back to A.md` + "\n",
		// Each undo a later undo reverted says so, not only write 1.
		`3  ` + at.Format("2006-01-02 15:04") + `  undo in "notes": redid write 1 (moved A.md to B/A.md) by reverting write 2, its undo: moved A.md back to B/A.md (undone by write 4)` + "\n",
		`2  ` + at.Format("2006-01-02 15:04") + `  undo in "notes": reverted write 1 (which moved A.md to B/A.md): moved B/A.md back to A.md (undone by write 3)` + "\n",
		`1  ` + at.Format("2006-01-02 15:04") + `  move-note in "notes": moved A.md to B/A.md (undone by write 4)` + "\n",
		"9 writes listed. Run `jarvis undo` to revert the last, or `jarvis undo 8` for write 8.",
	} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("history does not say %q:\n%s", want, b.String())
		}
	}
	// Redone last, the move says so.
	b.Reset()
	printHistory(&b, historyPage{entries: entries[len(entries)-3:], undoable: map[int64]bool{3: true}}, "/db", health.Invocation{})
	for _, want := range []string{"moved A.md to B/A.md (redone by write 3)\n", "moved B/A.md back to A.md (undone by write 3)\n"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("history does not say %q:\n%s", want, b.String())
		}
	}
}

// TestHistoryAndUndoOfAMissingDatabase: a --db that names no database
// (mistyped) is refused, and nothing is made there: opening it would
// create an empty database, and "no writes yet" would hide the typo.
func TestHistoryAndUndoOfAMissingDatabase(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "nonexist.db")
	for _, args := range [][]string{{"history"}, {"undo"}, {"undo", "1"}} {
		r := readCLI(t, nil, append(args, "--db", db)...)
		want := "jarvis: " + db + " does not exist: there is no database there (check --db)\n"
		if r.code != 1 || r.stdout != "" || r.stderr != want {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want exit 1 and %q", args, r.code, r.stdout, r.stderr, want)
		}
		if left, _ := filepath.Glob(filepath.Join(dir, "*")); len(left) > 0 {
			t.Fatalf("%v made %v", args, left)
		}
	}
}

// TestHistoryExampleIsNotTheLastOnceMore: when the last write redid (or
// undid) write 2, the footer does not offer `jarvis undo 2`, which would
// do what the plain undo does; it offers the write before, or none.
func TestHistoryExampleIsNotTheLastOnceMore(t *testing.T) {
	at := time.Date(2026, 11, 29, 8, 0, 0, 0, time.UTC)
	edit := []write.EntryFile{{Change: write.Edited, Path: "A.md", PathAfter: "A.md"}}
	entries := []write.Entry{
		{ID: 4, At: at, Tool: "undo", Vault: "notes", Summary: "redid write 2 (edited A.md)", Files: edit},
		{ID: 3, At: at, Tool: "undo", Vault: "notes", Summary: "undid write 2 (edited A.md)", Files: edit},
		{ID: 2, At: at, Tool: "edit-note", Vault: "notes", Summary: "edited A.md", Files: edit},
		{ID: 1, At: at, Tool: "create-note", Vault: "notes", Summary: "created B.md", Files: []write.EntryFile{{Change: write.Created, Path: "B.md", PathAfter: "B.md"}}},
	}
	var b bytes.Buffer
	printHistory(&b, historyPage{entries: entries, undoable: map[int64]bool{4: true, 2: true, 1: true}}, "/db", health.Invocation{})
	if out := b.String(); strings.Contains(out, "`jarvis undo 2`") || !strings.Contains(out, "or `jarvis undo 1` for write 1.") {
		t.Errorf("history footer:\n%s", out)
	}
}

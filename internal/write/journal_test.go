package write

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"maps"
	"path"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/jarvis-mcp/jarvis/internal/store"
)

// openJournalDB is a migrated database in a temporary folder.
func openJournalDB(t *testing.T) *store.DB {
	t.Helper()
	db, err := store.Open(context.Background(), filepath.Join(t.TempDir(), "jarvis.db"), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// memVault is a vault's files in memory, with Apply's contract as
// write.go states it, for testing the journal apart from the file layer.
type memVault struct {
	files map[string][]byte
	trash map[string][]byte
}

func newMemVault(files map[string]string) *memVault {
	v := &memVault{files: map[string][]byte{}, trash: map[string][]byte{}}
	for p, s := range files {
		v.files[p] = []byte(s)
	}
	return v
}

func testETag(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

func (v *memVault) current(p string) (string, bool, error) {
	b, ok := v.files[p]
	if !ok {
		return "", false, nil
	}
	return testETag(b), true, nil
}

func (v *memVault) apply(ch Change) (Applied, error) {
	for _, f := range ch.Files {
		etag, ok, _ := v.current(f.Path)
		switch {
		case f.Before == "" && ok:
			return Applied{}, ErrExists
		case f.Before != "" && etag != f.Before:
			return Applied{}, ErrStale
		}
	}
	var out Applied
	for _, f := range ch.Files {
		prev := v.files[f.Path]
		switch KindOf(f) {
		case Deleted:
			trashed := ".trash/" + path.Base(f.Path)
			v.trash[trashed] = prev
			delete(v.files, f.Path)
			out.Files = append(out.Files, AppliedFile{Path: f.Path, Final: trashed, Previous: prev})
		case Moved:
			after := prev
			if f.After != nil {
				after = f.After
			}
			delete(v.files, f.Path)
			v.files[f.MoveTo] = after
			out.Files = append(out.Files, AppliedFile{Path: f.Path, Final: f.MoveTo, Previous: prev, ETag: testETag(after)})
		default:
			if t, ok := v.trash[f.Trashed]; ok && string(t) == string(f.After) {
				delete(v.trash, f.Trashed) // brought back from the trash
			}
			v.files[f.Path] = f.After
			out.Files = append(out.Files, AppliedFile{Path: f.Path, Final: f.Path, Previous: prev, ETag: testETag(f.After)})
		}
	}
	return out, nil
}

func (v *memVault) snapshot() map[string]string {
	out := map[string]string{}
	for p, b := range v.files {
		out[p] = string(b)
	}
	return out
}

// write applies ch to v and records it, returning its number.
func (j Journal) write(t *testing.T, v *memVault, ch Change) int64 {
	t.Helper()
	applied, err := v.apply(ch)
	if err != nil {
		t.Fatalf("apply %+v: %v", ch, err)
	}
	id, err := j.Record(context.Background(), "notes", ch, applied)
	if err != nil {
		t.Fatal(err)
	}
	return id
}

// undo reverts write id in v and records the undo.
func (j Journal) undo(t *testing.T, v *memVault, id int64) int64 {
	t.Helper()
	ch, err := j.UndoChange(context.Background(), id, v.current)
	if err != nil {
		t.Fatalf("undo write %d: %v", id, err)
	}
	return j.write(t, v, ch)
}

func TestJournalUndoesEachKindOfWrite(t *testing.T) {
	etagOf := func(s string) string { return testETag([]byte(s)) }
	cases := []struct {
		name    string
		files   map[string]string
		change  Change
		summary string
		entry   []EntryFile
	}{
		{
			name:    "create",
			files:   map[string]string{"A.md": "a"},
			change:  Change{Tool: "create-note", Files: []FileChange{{Path: "Inbox/Idea.md", After: []byte("# Idea\n")}}},
			summary: "created Inbox/Idea.md",
			entry:   []EntryFile{{Change: Created, Path: "Inbox/Idea.md", PathAfter: "Inbox/Idea.md"}},
		},
		{
			name:    "edit",
			files:   map[string]string{"A.md": "status: active\n"},
			change:  Change{Tool: "edit-note", Files: []FileChange{{Path: "A.md", Before: etagOf("status: active\n"), After: []byte("status: done\n")}}},
			summary: "edited A.md",
			entry:   []EntryFile{{Change: Edited, Path: "A.md", PathAfter: "A.md"}},
		},
		{
			name:    "edit of an empty note",
			files:   map[string]string{"Empty.md": ""},
			change:  Change{Tool: "edit-note", Files: []FileChange{{Path: "Empty.md", Before: etagOf(""), After: []byte("now something\n")}}},
			summary: "edited Empty.md",
			entry:   []EntryFile{{Change: Edited, Path: "Empty.md", PathAfter: "Empty.md"}},
		},
		{
			name:    "delete",
			files:   map[string]string{"Old.md": "keep me\n", "B.md": "b"},
			change:  Change{Tool: "delete-note", Files: []FileChange{{Path: "Old.md", Before: etagOf("keep me\n"), Delete: true}}},
			summary: "deleted Old.md",
			entry:   []EntryFile{{Change: Deleted, Path: "Old.md", PathAfter: ".trash/Old.md"}},
		},
		{
			name: "move with two linking notes",
			files: map[string]string{
				"Apollo.md": "# Apollo\n[[Apollo#Goals]]\n",
				"Index.md":  "see [[Apollo]]\n",
				"Log.md":    "![[Apollo]] and [x](Apollo.md)\n",
			},
			change: Change{Tool: "move-note", Files: []FileChange{
				{Path: "Apollo.md", Before: etagOf("# Apollo\n[[Apollo#Goals]]\n"), MoveTo: "Projects/Apollo 11.md", After: []byte("# Apollo\n[[Apollo 11#Goals]]\n")},
				{Path: "Index.md", Before: etagOf("see [[Apollo]]\n"), After: []byte("see [[Apollo 11]]\n")},
				{Path: "Log.md", Before: etagOf("![[Apollo]] and [x](Apollo.md)\n"), After: []byte("![[Apollo 11]] and [x](Projects/Apollo%2011.md)\n")},
			}},
			summary: "moved Apollo.md to Projects/Apollo 11.md and updated the links in 2 notes",
			entry: []EntryFile{
				{Change: Moved, Path: "Apollo.md", PathAfter: "Projects/Apollo 11.md"},
				{Change: Edited, Path: "Index.md", PathAfter: "Index.md"},
				{Change: Edited, Path: "Log.md", PathAfter: "Log.md"},
			},
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			j := Journal{DB: openJournalDB(t)}
			v := newMemVault(c.files)
			before := v.snapshot()
			id := j.write(t, v, c.change)
			written := v.snapshot()

			h, err := j.History(context.Background(), 10)
			if err != nil {
				t.Fatal(err)
			}
			if len(h) != 1 || h[0].ID != id || h[0].Tool != c.change.Tool || h[0].Vault != "notes" || h[0].Summary != c.summary {
				t.Fatalf("history = %+v, want write %d by %s in notes saying %q", h, id, c.change.Tool, c.summary)
			}
			if !reflect.DeepEqual(h[0].Files, c.entry) {
				t.Errorf("files = %+v, want %+v", h[0].Files, c.entry)
			}

			undo := j.undo(t, v, id)
			if got := v.snapshot(); !maps.Equal(got, before) {
				t.Fatalf("after undo the vault is %q, want %q as before the write", got, before)
			}
			h, _ = j.History(context.Background(), 10)
			if len(h) != 2 || h[0].ID != undo || h[0].Tool != "undo" || !strings.HasPrefix(h[0].Summary, "undid write ") {
				t.Fatalf("history after undo = %+v, want the undo first", h)
			}

			j.undo(t, v, undo)
			if got := v.snapshot(); !maps.Equal(got, written) {
				t.Fatalf("after undoing the undo the vault is %q, want %q as the write left it", got, written)
			}
		})
	}
}

func TestUndoRefusesWhenTheNoteChangedSince(t *testing.T) {
	etagOf := func(s string) string { return testETag([]byte(s)) }
	cases := []struct {
		name   string
		files  map[string]string
		change Change
		// since changes the vault after the write.
		since      func(v *memVault)
		path       string
		gone, back bool
	}{
		{
			name:   "edited again",
			files:  map[string]string{"A.md": "one\n"},
			change: Change{Tool: "edit-note", Files: []FileChange{{Path: "A.md", Before: etagOf("one\n"), After: []byte("two\n")}}},
			since:  func(v *memVault) { v.files["A.md"] = []byte("three\n") },
			path:   "A.md",
		},
		{
			name:   "created then deleted",
			files:  map[string]string{},
			change: Change{Tool: "create-note", Files: []FileChange{{Path: "New.md", After: []byte("new\n")}}},
			since:  func(v *memVault) { delete(v.files, "New.md") },
			path:   "New.md",
			gone:   true,
		},
		{
			name:   "deleted then made again",
			files:  map[string]string{"Old.md": "old\n"},
			change: Change{Tool: "delete-note", Files: []FileChange{{Path: "Old.md", Before: etagOf("old\n"), Delete: true}}},
			since:  func(v *memVault) { v.files["Old.md"] = []byte("another\n") },
			path:   "Old.md",
			back:   true,
		},
		{
			name:  "a linking note edited after the move",
			files: map[string]string{"A.md": "a\n", "L.md": "[[A]]\n", "M.md": "[[A]]\n"},
			change: Change{Tool: "move-note", Files: []FileChange{
				{Path: "A.md", Before: etagOf("a\n"), MoveTo: "B.md"},
				{Path: "L.md", Before: etagOf("[[A]]\n"), After: []byte("[[B]]\n")},
				{Path: "M.md", Before: etagOf("[[A]]\n"), After: []byte("[[B]]\n")},
			}},
			since: func(v *memVault) { v.files["M.md"] = []byte("[[B]] and more\n") },
			path:  "M.md",
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			j := Journal{DB: openJournalDB(t)}
			v := newMemVault(c.files)
			id := j.write(t, v, c.change)
			c.since(v)
			was := v.snapshot()
			_, err := j.UndoChange(context.Background(), id, v.current)
			var ce *ChangedError
			if !errors.As(err, &ce) || !errors.Is(err, ErrStale) {
				t.Fatalf("undo = %v, want a ChangedError that is ErrStale", err)
			}
			if ce.Path != c.path || ce.Write != id || ce.Gone != c.gone || ce.Back != c.back {
				t.Errorf("error = %+v, want %s (gone %v, back %v) in write %d", ce, c.path, c.gone, c.back, id)
			}
			if !strings.Contains(err.Error(), c.path) || !strings.Contains(err.Error(), "since write") {
				t.Errorf("error %q does not name the file and the write", err)
			}
			if got := v.snapshot(); !maps.Equal(got, was) {
				t.Errorf("vault changed: %q, was %q", got, was)
			}
		})
	}
}

func TestJournalKeepsWithinItsBounds(t *testing.T) {
	edit := func(v *memVault, p, s string) Change {
		etag, ok, _ := v.current(p)
		if !ok {
			etag = ""
		}
		return Change{Tool: "edit-note", Files: []FileChange{{Path: p, Before: etag, After: []byte(s)}}}
	}
	ids := func(t *testing.T, j Journal) []int64 {
		h, err := j.History(context.Background(), 100)
		if err != nil {
			t.Fatal(err)
		}
		var out []int64
		for _, e := range h {
			out = append(out, e.ID)
		}
		return out
	}
	t.Run("writes", func(t *testing.T) {
		j := Journal{DB: openJournalDB(t), Bounds: Bounds{Writes: 3, Bytes: 1 << 20, Age: time.Hour}}
		v := newMemVault(map[string]string{"A.md": ""})
		for i := range 5 {
			j.write(t, v, edit(v, "A.md", strings.Repeat("x", i+1)))
		}
		if got, want := ids(t, j), []int64{5, 4, 3}; !reflect.DeepEqual(got, want) {
			t.Errorf("kept %v, want the 3 newest %v", got, want)
		}
		var files int
		if err := j.DB.(*store.DB).QueryRow(`SELECT count(*) FROM write_files`).Scan(&files); err != nil || files != 3 {
			t.Errorf("write_files holds %d rows (%v), want the 3 of the writes kept", files, err)
		}
		if _, err := j.Lookup(context.Background(), 1); !errors.Is(err, ErrNoWrite) {
			t.Errorf("lookup of a dropped write = %v, want ErrNoWrite", err)
		}
	})
	t.Run("bytes", func(t *testing.T) {
		j := Journal{DB: openJournalDB(t), Bounds: Bounds{Writes: 100, Bytes: 10, Age: time.Hour}}
		v := newMemVault(map[string]string{"A.md": "1234", "B.md": "1234", "C.md": "1234", "D.md": strings.Repeat("y", 50)})
		for _, p := range []string{"A.md", "B.md", "C.md"} {
			j.write(t, v, edit(v, p, "changed"))
		}
		// 4 bytes each: the two newest fit in 10, the oldest does not.
		if got, want := ids(t, j), []int64{3, 2}; !reflect.DeepEqual(got, want) {
			t.Errorf("kept %v, want %v", got, want)
		}
		// A write over the bound alone is kept, and drops every other.
		j.write(t, v, edit(v, "D.md", "short"))
		if got, want := ids(t, j), []int64{4}; !reflect.DeepEqual(got, want) {
			t.Errorf("kept %v, want only the newest %v", got, want)
		}
	})
	t.Run("age", func(t *testing.T) {
		now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
		j := Journal{DB: openJournalDB(t), Bounds: Bounds{Writes: 100, Bytes: 1 << 20, Age: 48 * time.Hour},
			Now: func() time.Time { return now }}
		v := newMemVault(map[string]string{"A.md": ""})
		for range 4 {
			j.write(t, v, edit(v, "A.md", now.String()))
			now = now.Add(24 * time.Hour)
		}
		// Written at days 0, 1, 2, 3: at day 3, days 0 is past 48 hours.
		if got, want := ids(t, j), []int64{4, 3, 2}; !reflect.DeepEqual(got, want) {
			t.Errorf("kept %v, want %v", got, want)
		}
	})
}

func TestJournalDefaults(t *testing.T) {
	if (Journal{}).bounds() != JournalBounds {
		t.Error("a journal without bounds does not keep JournalBounds")
	}
	if b := JournalBounds; b.Writes != 1000 || b.Bytes != 64<<20 || b.Age != 90*24*time.Hour {
		t.Errorf("JournalBounds = %+v, want 1,000 writes, 64 MiB, 90 days as the README says", b)
	}
}

func TestRecordRefusesAMismatchedApplied(t *testing.T) {
	db := openJournalDB(t)
	ch := Change{Tool: "edit-note", Files: []FileChange{{Path: "A.md", Before: "x", After: []byte("y")}}}
	if _, err := Record(context.Background(), db, "notes", ch, Applied{}); err == nil {
		t.Fatal("recorded a change without what was applied")
	}
	if h, _ := History(context.Background(), db, 10); len(h) != 0 {
		t.Errorf("history = %+v, want nothing recorded", h)
	}
}

// TestUndoReportSaysWhatHistoryRecords: the report of an undo, of the
// undo of that undo and of the undo of the redo describes the write as
// the history then shows it (one rule, UndoSaid): an undo of an undo
// says it redid the write, not that it undid it.
func TestUndoReportSaysWhatHistoryRecords(t *testing.T) {
	ctx := context.Background()
	j := Journal{DB: openJournalDB(t)}
	v := newMemVault(map[string]string{"alpha.md": "a\n"})
	id := j.write(t, v, Change{Tool: "edit-note", Summary: "edited alpha.md", Files: []FileChange{{Path: "alpha.md", Before: testETag([]byte("a\n")), After: []byte("b\n")}}})
	want := []string{
		`Reverted write 1 in "notes" (which edited alpha.md): restored the earlier alpha.md. This undo is write 2: run CMD again to redo it.`,
		`Redid write 1 in "notes" (edited alpha.md) by reverting write 2, its undo: restored alpha.md as write 1 left it. This redo is write 3: run CMD to undo it again.`,
		`Undid write 1 in "notes" (edited alpha.md) again by reverting write 3, its redo: restored the earlier alpha.md. This undo is write 4: run CMD again to redo it.`,
	}
	for _, w := range want {
		undo := j.undo(t, v, id)
		done, err := j.Lookup(ctx, undo)
		if err != nil {
			t.Fatal(err)
		}
		got := UndoReport(done, id, "CMD", "")
		if got != w {
			t.Errorf("undo of write %d says %q, want %q", id, got, w)
		}
		id = undo
	}
}

// TestUndoReportSaysWhatTheUndoDid: the report of an undo says what the
// undo did (the move back, the note restored from the trash), with the
// write it reverted, not the words of that write as if the undo had done
// it; and the journal records the restore as one from the trash.
func TestUndoReportSaysWhatTheUndoDid(t *testing.T) {
	ctx := context.Background()
	j := Journal{DB: openJournalDB(t)}
	v := newMemVault(map[string]string{
		"Areas/Nutrition.md": "n\n", "A.md": "[[Nutrition]]\n", "B.md": "[[Nutrition]]\n", "Projects/Bike Repair.md": "b\n",
	})
	etag := func(p string) string { e, _, _ := v.current(p); return e }
	move := Change{Tool: "move-note", Files: []FileChange{
		{Path: "Areas/Nutrition.md", Before: etag("Areas/Nutrition.md"), MoveTo: "Areas/Health/Sports Nutrition.md"},
		{Path: "A.md", Before: etag("A.md"), After: []byte("[[Sports Nutrition]]\n")},
		{Path: "B.md", Before: etag("B.md"), After: []byte("[[Sports Nutrition]]\n")},
	}}
	del := Change{Tool: "delete-note", Files: []FileChange{{Path: "Projects/Bike Repair.md", Before: etag("Projects/Bike Repair.md"), Delete: true}}}
	cases := []struct {
		ch   Change
		want string
	}{
		{move, `Reverted write 1 in "notes" (which moved Areas/Nutrition.md to Areas/Health/Sports Nutrition.md and updated the links in 2 notes): ` +
			`moved Areas/Health/Sports Nutrition.md back to Areas/Nutrition.md and restored the links in 2 notes. This undo is write 2: run CMD again to redo it.`},
		{del, `Reverted write 3 in "notes" (which deleted Projects/Bike Repair.md): restored Projects/Bike Repair.md (from .trash/Bike Repair.md). ` +
			`This undo is write 4: run CMD again to redo it.`},
		// Undoing a create moves the note to the trash; it is not gone.
		{Change{Tool: "create-note", Files: []FileChange{{Path: "new idea.md", After: []byte("i\n")}}},
			`Reverted write 5 in "notes" (which created new idea.md): moved new idea.md to the vault's .trash. This undo is write 6: run CMD again to redo it.`},
	}
	for _, c := range cases {
		id := j.write(t, v, c.ch)
		undo := j.undo(t, v, id)
		done, err := j.Lookup(ctx, undo)
		if err != nil {
			t.Fatal(err)
		}
		if got := UndoReport(done, id, "CMD", ""); got != c.want {
			t.Errorf("undo of write %d says\n%q, want\n%q", id, got, c.want)
		}
	}
	done, err := j.Lookup(ctx, 4)
	if err != nil {
		t.Fatal(err)
	}
	want := []EntryFile{{Change: Created, Path: ".trash/Bike Repair.md", PathAfter: "Projects/Bike Repair.md"}}
	if !reflect.DeepEqual(done.Files, want) {
		t.Errorf("the undo of the delete is journalled as %+v, want %+v", done.Files, want)
	}
	if got := v.snapshot()["Projects/Bike Repair.md"]; got != "b\n" {
		t.Errorf("restored note holds %q", got)
	}
	// Undoing the undo deletes the note again.
	j.undo(t, v, 4)
	if _, ok := v.snapshot()["Projects/Bike Repair.md"]; ok {
		t.Error("undoing the restore left the note in place")
	}
}

// TestPathTextQuotesWhatWouldNotReadAsOneName: a path is quoted when
// the sentences naming it would read it wrong: a space at either end of
// a name, or a word those sentences join paths with.
func TestPathTextQuotesWhatWouldNotReadAsOneName(t *testing.T) {
	cases := []struct{ name, path, want string }{
		{"plain", "Notes/Idea.md", "Notes/Idea.md"},
		{"inner spaces", "Notes/My idea.md", "Notes/My idea.md"},
		{"word holding to", "Notes/Tomato.md", "Notes/Tomato.md"},
		{"leading space", " lead.md", `" lead.md"`},
		{"to inside", "Q to R.md", `"Q to R.md"`},
		{"to first", "to do.md", `"to do.md"`},
		{"to in a folder", "Q to R/x.md", `"Q to R/x.md"`},
		{"and inside", "Pros and cons.md", `"Pros and cons.md"`},
		{"comma", "A, B.md", `"A, B.md"`},
		{"quote", `say "hi".md`, `"say \"hi\".md"`},
	}
	for _, c := range cases {
		if got := PathText(c.path); got != c.want {
			t.Errorf("%s: PathText(%q) = %s, want %s", c.name, c.path, got, c.want)
		}
	}
	ch := Change{Files: []FileChange{{Path: "Q to R.md", Before: "x", MoveTo: "S to T.md"}}}
	if got, want := Describe(ch), `moved "Q to R.md" to "S to T.md"`; got != want {
		t.Errorf("Describe = %q, want %q", got, want)
	}
}

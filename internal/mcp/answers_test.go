package mcp_test

import (
	"context"
	"encoding/json"
	"github.com/jarvis-mcp/jarvis/internal/config"
	"github.com/jarvis-mcp/jarvis/internal/query"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jarvis-mcp/jarvis/internal/mcp"
	"github.com/jarvis-mcp/jarvis/internal/sharedtest"
)

// TestWriteWithAMalformedETag: an etag given that is not one jarvis
// gives is said to be that, not missing, with how to get one.
func TestWriteWithAMalformedETag(t *testing.T) {
	cs, _ := writableExample(t)
	text, isErr := call(t, cs, mcp.ToolEditNote, map[string]any{"path": "Water.md", "etag": "0000", "edits": appendEdit}, nil)
	want := `"0000" is not an etag jarvis gives`
	if !isErr || !strings.Contains(text, want) || !strings.Contains(text, "read the note with read-note to get one") || strings.Contains(text, "missing") {
		t.Fatalf("edit-note with etag 0000: %v %q; want %q and how to get one, not that it is missing", isErr, text, want)
	}
	sharedtest.CheckWords(t, "malformed etag", text)
}

// TestTooLongAWriteSaysHowToWriteInParts: arguments over the 64 KB a call
// takes are refused, for a write, with how to write a longer note in
// parts (create it with part, then edit-note's append), and for
// periodic-note's append with how to append in parts, each said once; a
// read is told to shorten them.
func TestTooLongAWriteSaysHowToWriteInParts(t *testing.T) {
	cs, _ := writableExample(t)
	long := strings.Repeat("word ", 20000)
	for _, c := range []struct {
		tool string
		args map[string]any
		want string
	}{
		{mcp.ToolCreateNote, map[string]any{"path": "Long.md", "content": long}, "create it with part of its text, then add the rest with edit-note's append"},
		{mcp.ToolEditNote, map[string]any{"path": "Water.md", "etag": "x", "edits": []any{map[string]any{"op": "append", "text": long}}}, "create it with part of its text, then add the rest with edit-note's append"},
		{mcp.ToolPeriodicNote, map[string]any{"append": long}, "append the text in parts"},
		{mcp.ToolReadNote, map[string]any{"path": "Water.md", "heading": long}, "shorten them"},
	} {
		text, isErr := call(t, cs, c.tool, c.args, nil)
		if !isErr || !strings.Contains(text, "65536") || strings.Count(text, c.want) != 1 || strings.Count(text, "append") > 1 {
			t.Errorf("%s with 100 KB of arguments: %v %q; want %q, said once", c.tool, isErr, text, c.want)
		}
		sharedtest.CheckWords(t, c.tool, text)
	}
}

// TestWriteArgumentOnAReadOnlyServer: periodic-note's append (and etag),
// which only a server with a writable vault takes, are refused on one
// without as create-note is there, saying writing is off and how to turn
// it on, not as an unknown argument.
func TestWriteArgumentOnAReadOnlyServer(t *testing.T) {
	cs := connect(t, realBackend(t, filepath.Join(t.TempDir(), "j.db"), true, exampleVault(t)))
	create, isErr := call(t, cs, mcp.ToolCreateNote, map[string]any{"path": "New.md", "content": "x"}, nil)
	if !isErr || !strings.Contains(create, "is off in this server") {
		t.Fatalf("create-note on a read-only server: %v %q", isErr, create)
	}
	_, how, _ := strings.Cut(create, "is off in this server")
	for _, args := range []map[string]any{{"append": "- bought beans"}, {"etag": "0123"}, {"period": "weekly", "append": "x", "etag": "0123"}} {
		text, isErr := call(t, cs, mcp.ToolPeriodicNote, args, nil)
		if !isErr || !strings.HasSuffix(text, how) || !strings.Contains(text, "--write") || strings.Contains(text, "unknown argument") {
			t.Errorf("periodic-note %v on a read-only server: %v %q; want it to end as create-note's refusal does: %q", args, isErr, text, how)
		}
		sharedtest.CheckWords(t, "periodic-note", text)
	}
	// Any other unknown argument is still one.
	if text, _ := call(t, cs, mcp.ToolPeriodicNote, map[string]any{"apend": "x"}, nil); !strings.Contains(text, `there is no argument "apend"`) {
		t.Errorf("periodic-note with apend: %q", text)
	}
}

// TestMistypedVaultName: a vault name no vault has is answered, by the
// tools that read every vault and by query-notes alike (one wording), as
// a question when one name is meant (the only vault, or the one it is a
// typo of), else with every name.
func TestMistypedVaultName(t *testing.T) {
	dir := t.TempDir()
	vault := func(name string) config.Vault { return config.Vault{Name: name, Path: filepath.Join(dir, name)} }
	for _, c := range []struct {
		vaults []config.Vault
		typed  string
		want   string
	}{
		{[]config.Vault{vault("garden")}, "gardn", `there is no vault named "gardn"; did you mean "garden"? It is the only vault served`},
		{[]config.Vault{vault("garden")}, "work", `did you mean "garden"?`},
		{[]config.Vault{vault("garden"), vault("work")}, "wrok", `did you mean "work"? The vaults are "garden" and "work"`},
		{[]config.Vault{vault("garden"), vault("work"), vault("home")}, "recipes", `use one of "garden", "work" or "home"`},
	} {
		cs := connect(t, &fake{Vaults: c.vaults, Files: func(context.Context, string, []string) (*query.Vault, error) {
			t.Fatal("query-notes read a vault that does not exist")
			return nil, nil
		}})
		for _, call1 := range []struct {
			tool string
			args map[string]any
		}{
			{mcp.ToolSearchVault, map[string]any{"query": "x", "vault": c.typed}},
			{mcp.ToolQueryNotes, map[string]any{"filter": "true", "vault": c.typed}},
		} {
			text, isErr := call(t, cs, call1.tool, call1.args, nil)
			if !isErr || !strings.Contains(text, c.want) {
				t.Errorf("%s with vault %q among %v: %v %q; want %q", call1.tool, c.typed, config.Names(c.vaults), isErr, text, c.want)
			}
			sharedtest.CheckWords(t, call1.tool, text)
		}
	}
}

// TestWriteToolsTakeANoteName: edit-note, move-note and delete-note find
// the note a name (title, file name, alias) stands for as read-note does,
// checked against that note's etag; a name several notes have is refused
// with their paths, and a name no note has gets read-note's answer, not
// that the path cannot be written.
func TestWriteToolsTakeANoteName(t *testing.T) {
	cs, dir := writableExample(t)
	const note = "Methods/French press.md"
	var moved mcp.WriteOutput
	text, isErr := call(t, cs, mcp.ToolMoveNote, map[string]any{"path": "French press", "to": "Methods/Press pot.md", "etag": etagOf(t, cs, note)}, &moved)
	if isErr || moved.Path != "Methods/Press pot.md" || !strings.Contains(text, "Moved "+note+" to Methods/Press pot.md") {
		t.Fatalf("move-note of a note by its name: %v %q %+v", isErr, text, moved)
	}
	var edited mcp.WriteOutput
	if text, isErr := call(t, cs, mcp.ToolEditNote, map[string]any{"path": "Press pot", "etag": moved.ETag, "edits": appendEdit}, &edited); isErr || edited.Path != "Methods/Press pot.md" {
		t.Fatalf("edit-note of a note by its name: %v %q", isErr, text)
	}
	before := sharedtest.TreeHash(t, dir)
	etag := etagOf(t, cs, "Water.md")
	for _, c := range []struct {
		tool       string
		args       map[string]any
		want, deny string
	}{
		{mcp.ToolEditNote, map[string]any{"path": "Index", "etag": etag, "edits": appendEdit}, `"Index" names 2 notes: `, "cannot be written"},
		{mcp.ToolDeleteNote, map[string]any{"path": "Index", "etag": etag}, `"Beans/Index.md"`, "cannot be written"},
		{mcp.ToolMoveNote, map[string]any{"path": "Frnch pres", "to": "Methods/X.md", "etag": etag}, "nothing was written", "cannot be written"},
		{mcp.ToolDeleteNote, map[string]any{"path": "Press pot", "etag": etag}, `"Press pot" is the note "Methods/Press pot.md": `, "cannot be written"},
	} {
		text, isErr := call(t, cs, c.tool, c.args, nil)
		if !isErr || !strings.Contains(text, c.want) || strings.Contains(text, c.deny) {
			t.Errorf("%s %v: %v %q; want %q", c.tool, c.args, isErr, text, c.want)
		}
		sharedtest.CheckWords(t, c.tool, text)
	}
	if sharedtest.TreeHash(t, dir) != before {
		t.Fatal("a refused write changed the vault")
	}
}

// TestReadNoteTextGivesItsETagAndLinks: read-note's text lists the links
// the note makes and where each leads, and, when writing is on, the etag
// the write tools take, worded as periodic-note's is; read-only, no etag.
func TestReadNoteTextGivesItsETagAndLinks(t *testing.T) {
	cs, _ := writableExample(t)
	const note = "Methods/French press.md"
	var read mcp.ReadNoteOutput
	text, isErr := call(t, cs, mcp.ToolReadNote, map[string]any{"path": note}, &read)
	if isErr || !strings.Contains(text, "etag: "+read.ETag+" (pass it with ") {
		t.Fatalf("read-note with writing on: %v; want its etag %s in the text:\n%s", isErr, read.ETag, text)
	}
	for _, want := range []string{"- line 14: link `Pour over#^bloom` leads to `Methods/Pour over.md`", "- line 16: link `Roast levels#Medium` leads to `Beans/Roast levels.md`"} {
		if !strings.Contains(text, want) {
			t.Errorf("read-note's text does not list the link %q:\n%s", want, text)
		}
	}
	sharedtest.CheckWords(t, "read-note", text)

	ro := connect(t, realBackend(t, filepath.Join(t.TempDir(), "j.db"), true, exampleVault(t)))
	if text, _ := call(t, ro, mcp.ToolReadNote, map[string]any{"path": note}, nil); strings.Contains(text, "etag") || !strings.Contains(text, "leads to `Methods/Pour over.md`") {
		t.Errorf("read-note with writing off: want links and no etag:\n%s", text)
	}
}

// TestReadNoteOnFilesThatAreNotNotes: read-note given an attachment says
// what it is, how large, and which notes embed it, never its bytes; a base
// is shown as YAML, with query-notes named to run it; a text file in a
// fence of its type.
func TestReadNoteOnFilesThatAreNotNotes(t *testing.T) {
	v := exampleVault(t)
	for name, text := range map[string]string{"Brews.base": "# every brew\nviews:\n  - type: table\n", "Data/ratios.csv": "method,grams\npress,60\n"} {
		sharedtest.WriteFile(t, v.Path, name, text)
	}
	cs := connect(t, realBackend(t, filepath.Join(t.TempDir(), "j.db"), true, v))
	text, isErr := call(t, cs, mcp.ToolReadNote, map[string]any{"path": "brew-station.png"}, nil)
	want := "brew-station.png is an image attachment (132 bytes), embedded by Current setup.md; read-note reads the text of notes"
	if !isErr || !strings.Contains(text, want) || strings.Contains(text, "PNG") || strings.Contains(text, "```") {
		t.Errorf("read-note of an image: %v %q; want %q", isErr, text, want)
	}
	sharedtest.CheckWords(t, "read-note", text)
	for _, c := range []struct{ path, fence, want string }{
		{"Brews.base", "```yaml\n# every brew\n", `query-notes runs it, with base "Brews.base"`},
		{"Data/ratios.csv", "```csv\nmethod,grams\n", "not a note"},
	} {
		text, isErr := call(t, cs, mcp.ToolReadNote, map[string]any{"path": c.path}, nil)
		if isErr || !strings.Contains(text, c.fence) || !strings.Contains(text, c.want) || strings.Contains(text, "```markdown") {
			t.Errorf("read-note of %s: %v; want it in %q, saying %q:\n%s", c.path, isErr, c.fence, c.want, text)
		}
		sharedtest.CheckWords(t, "read-note", text)
	}
}

// TestQueryNotesOnANoteThatEmbedsABase: query-notes given a note with no
// base block of its own, which embeds a .base file, names that base to
// pass instead.
func TestQueryNotesOnANoteThatEmbedsABase(t *testing.T) {
	v := exampleVault(t)
	sharedtest.WriteFile(t, v.Path, "Bases/Brews.base", "views:\n  - type: table\n    name: All\n")
	sharedtest.WriteFile(t, v.Path, "Home.md", "# Home\n\n![[Brews.base]]\n")
	cs := connect(t, realBackend(t, filepath.Join(t.TempDir(), "j.db"), true, v))
	text, isErr := call(t, cs, mcp.ToolQueryNotes, map[string]any{"base": "Home.md"}, nil)
	want := `it embeds "Bases/Brews.base": pass base "Bases/Brews.base" to run it`
	if !isErr || !strings.Contains(text, want) {
		t.Fatalf("query-notes on a note that embeds a base: %v %q; want %q", isErr, text, want)
	}
	sharedtest.CheckWords(t, "query-notes", text)
	if text, isErr := call(t, cs, mcp.ToolQueryNotes, map[string]any{"base": "Bases/Brews.base"}, nil); isErr {
		t.Fatalf("the base named: %s", text)
	}
}

// TestDryRunOfAMoveNamesBothPaths: a dry run of move-note names the note
// and where it would go.
func TestDryRunOfAMoveNamesBothPaths(t *testing.T) {
	cs, _ := writableExample(t)
	text, isErr := call(t, cs, mcp.ToolMoveNote, map[string]any{"path": "Water.md", "to": "Gear/Water 2026.md", "etag": etagOf(t, cs, "Water.md"), "dry_run": true}, nil)
	if want := "move Water.md to Gear/Water 2026.md: nothing was written"; isErr || !strings.Contains(text, want) {
		t.Fatalf("dry run of a move: %v %q; want %q", isErr, text, want)
	}
}

// TestSearchGraphFromANoteNotWrittenYet: search-graph from a name no note
// has, which notes link to, says the note does not exist yet and which
// notes link to it.
func TestSearchGraphFromANoteNotWrittenYet(t *testing.T) {
	v := exampleVault(t)
	sharedtest.WriteFile(t, v.Path, "Reading.md", "# Reading\n\nNext: [[Missing book]].\n")
	sharedtest.WriteFile(t, v.Path, "Gear/Wishlist.md", "# Wishlist\n\n- [[missing book|that book]]\n")
	sharedtest.WriteFile(t, v.Path, "Later.md", "# Later\n\n[[Later book]]\n")
	// A link written with folders waits for the same name.
	sharedtest.WriteFile(t, v.Path, "Plans.md", "# Plans\n\n[[Books/Missing book#Chapter 1]] and [[Books/Missing book]]\n")
	cs := connect(t, realBackend(t, filepath.Join(t.TempDir(), "j.db"), true, v))
	text, isErr := call(t, cs, mcp.ToolSearchGraph, map[string]any{"query_note_path": "Missing book"}, nil)
	want := `no note "Missing book" exists yet; 3 notes link to it: Gear/Wishlist.md, Plans.md and Reading.md. Start from one of them`
	if !isErr || !strings.Contains(text, want) {
		t.Fatalf("search-graph from a note not written yet: %v %q; want %q", isErr, text, want)
	}
	sharedtest.CheckWords(t, "search-graph", text)
	text, isErr = call(t, cs, mcp.ToolSearchGraph, map[string]any{"query_note_path": "Later book"}, nil)
	if want := `no note "Later book" exists yet; 1 note links to it: Later.md. Start from it, or create the note`; !isErr || !strings.Contains(text, want) {
		t.Errorf("search-graph from a note one note links to: %v %q; want %q", isErr, text, want)
	}
	if text, _ := call(t, cs, mcp.ToolSearchGraph, map[string]any{"query_note_path": "Nothing links here"}, nil); strings.Contains(text, "exists yet") {
		t.Errorf("search-graph from a name nothing links to: %q", text)
	}
}

// TestNullEditsAreRefusedWithATypedExample: edits null is refused saying
// it must not be null, with an example that edit-note accepts when
// pasted, and the other ops named.
func TestNullEditsAreRefusedWithATypedExample(t *testing.T) {
	cs, _ := writableExample(t)
	text, isErr := call(t, cs, mcp.ToolEditNote, map[string]any{"path": "Water.md", "etag": etagOf(t, cs, "Water.md"), "edits": nil}, nil)
	for _, want := range []string{"not null", `such as [{"op": "append", "text": "..."}]`, "prepend, replace, replace_section, set_properties and content"} {
		if !isErr || !strings.Contains(text, want) {
			t.Errorf("edit-note with edits null: %v %q; want %q", isErr, text, want)
		}
	}
	if strings.Contains(text, "a null") {
		t.Errorf("edit-note with edits null: %q", text)
	}
	_, pasted, ok := strings.Cut(text, "such as ")
	if end := strings.Index(pasted, "}]"); ok && end >= 0 {
		var edits []map[string]any
		if err := json.Unmarshal([]byte(pasted[:end+2]), &edits); err != nil {
			t.Fatalf("the example in %q is not JSON: %v", text, err)
		}
		again, isErr := call(t, cs, mcp.ToolEditNote, map[string]any{"path": "Water.md", "etag": etagOf(t, cs, "Water.md"), "edits": edits}, nil)
		if isErr {
			t.Errorf("edit-note with the example pasted: %q", again)
		}
	} else {
		t.Errorf("edit-note with edits null: no example in %q", text)
	}
	sharedtest.CheckWords(t, "edit-note", text)
}

// TestWriteAnswersQuoteNamesThatWouldMisread: the write tools' answers
// name paths as the history does (write.PathText), so a name holding
// " to " or starting with a space is quoted, not read as two paths or
// lost in a double space.
func TestWriteAnswersQuoteNamesThatWouldMisread(t *testing.T) {
	cs, _ := writableExample(t)
	var created mcp.WriteOutput
	text, isErr := call(t, cs, mcp.ToolCreateNote, map[string]any{"path": "Q to R.md", "content": "q\n"}, &created)
	if want := `Wrote "Q to R.md".`; isErr || !strings.Contains(text, want) {
		t.Fatalf("create-note Q to R.md: %v %q; want %q", isErr, text, want)
	}
	text, isErr = call(t, cs, mcp.ToolMoveNote, map[string]any{"path": "Q to R.md", "to": "S to T.md", "etag": created.ETag}, nil)
	if want := `Moved "Q to R.md" to "S to T.md".`; isErr || !strings.Contains(text, want) {
		t.Fatalf("move-note Q to R.md: %v %q; want %q", isErr, text, want)
	}
	text, isErr = call(t, cs, mcp.ToolCreateNote, map[string]any{"path": " lead.md", "content": "l\n"}, nil)
	if want := `Wrote " lead.md".`; isErr || !strings.Contains(text, want) {
		t.Fatalf("create-note \" lead.md\": %v %q; want %q", isErr, text, want)
	}
}

// TestMoveIntoAFolderKeepsTheName: move-note's to may be a folder ending
// in "/": the note goes into it under its own name.
func TestMoveIntoAFolderKeepsTheName(t *testing.T) {
	cs, dir := writableExample(t)
	text, isErr := call(t, cs, mcp.ToolMoveNote, map[string]any{"path": "Water.md", "to": "Archive/Old/", "etag": etagOf(t, cs, "Water.md")}, nil)
	if isErr || !strings.Contains(text, "Archive/Old/Water.md") {
		t.Fatalf("move into a folder: %v %q", isErr, text)
	}
	if _, err := os.Stat(filepath.Join(dir, "Archive", "Old", "Water.md")); err != nil {
		t.Errorf("the note is not in the folder: %v", err)
	}
}

// TestTwoLinksOnOneLine: [[Ideas]] and [[Essays/Ideas]] side by side are
// one line with their count in search-graph, and in read-note's
// backlinks, not the same line twice.
func TestTwoLinksOnOneLine(t *testing.T) {
	v := config.Vault{Name: "w", Path: t.TempDir()}
	sharedtest.WriteFile(t, v.Path, "Essays/Ideas.md", "# Ideas\n\nAbout walking.\n")
	sharedtest.WriteFile(t, v.Path, "Essays/On Walking.md", "# On Walking\n\nSee [[Ideas]] and [[Essays/Ideas]] for more.\n")
	cs := connect(t, realBackend(t, filepath.Join(t.TempDir(), "j.db"), true, v))
	text, isErr := call(t, cs, mcp.ToolSearchGraph, map[string]any{"query_note_path": "Essays/Ideas.md"}, nil)
	if want := "- `Essays/On Walking.md` line 3 → `Essays/Ideas.md` (2 links)\n"; isErr || !strings.Contains(text, want) {
		t.Fatalf("search-graph: %v; want %q in:\n%s", isErr, want, text)
	}
	text, isErr = call(t, cs, mcp.ToolReadNote, map[string]any{"path": "Essays/Ideas.md"}, nil)
	if want := "- `Essays/On Walking.md` line 3 (2 links)\n"; isErr || !strings.Contains(text, want) {
		t.Fatalf("read-note: %v; want %q in:\n%s", isErr, want, text)
	}
}

// TestReadNoteOnLargeAttachment: an attachment over the size read-note
// reads is still named for what it is, with its size, and no word of how
// the index keeps it.
func TestReadNoteOnLargeAttachment(t *testing.T) {
	v := exampleVault(t)
	sharedtest.WriteFile(t, v.Path, "Photos/huge.jpg", "")
	if err := os.Truncate(filepath.Join(v.Path, "Photos", "huge.jpg"), 50<<20); err != nil {
		t.Fatal(err)
	}
	cs := connect(t, realBackend(t, filepath.Join(t.TempDir(), "j.db"), true, v))
	text, isErr := call(t, cs, mcp.ToolReadNote, map[string]any{"path": "Photos/huge.jpg"}, nil)
	want := "huge.jpg is an image attachment (50 MB), which no note embeds or links to; read-note reads the text of notes"
	if !isErr || !strings.Contains(text, want) || strings.Contains(text, "indexed by name") {
		t.Errorf("read-note of a large image: %v %q; want %q", isErr, text, want)
	}
	sharedtest.CheckWords(t, "read-note", text)
}

// TestGraphCountsLinksEitherWay: a walk of incoming links lists every link
// among the notes it reached, the start note's own links to them too; the
// count says so (trial 26 read "14 links" of a walk "in" as links in).
func TestGraphCountsLinksEitherWay(t *testing.T) {
	v := config.Vault{Name: "w", Path: t.TempDir()}
	sharedtest.WriteFile(t, v.Path, "Book.md", "# Book\n\nBy [[Author]].\n")
	sharedtest.WriteFile(t, v.Path, "Author.md", "# Author\n\nWrote [[Book]].\n")
	cs := connect(t, realBackend(t, filepath.Join(t.TempDir(), "j.db"), true, v))
	text, isErr := call(t, cs, mcp.ToolSearchGraph, map[string]any{"query_note_path": "Book", "direction": "in", "depth": 1}, nil)
	if want := "2 nodes, 2 links among them (either way)."; isErr || !strings.Contains(text, want) || !strings.Contains(text, "`Book.md` line 3 → `Author.md`") {
		t.Fatalf("search-graph in: %v; want %q and the start note's own link in:\n%s", isErr, want, text)
	}
}

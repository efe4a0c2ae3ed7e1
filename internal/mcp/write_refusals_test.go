package mcp_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	mcpsdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/jarvis-mcp/jarvis/internal/index"
	"github.com/jarvis-mcp/jarvis/internal/mcp"
	"github.com/jarvis-mcp/jarvis/internal/sharedtest"
)

// writableExample is a session with a server over a copy of the example
// vault, made writable and indexed, and the vault's folder.
func writableExample(t *testing.T) (*mcpsdk.ClientSession, string) {
	t.Helper()
	v := exampleVault(t)
	v.Write = true
	return connect(t, realBackend(t, filepath.Join(t.TempDir(), "j.db"), true, v)), v.Path
}

// etagOf is the etag read-note gives for the note at p.
func etagOf(t *testing.T, cs *mcpsdk.ClientSession, p string) string {
	t.Helper()
	var read mcp.ReadNoteOutput
	if text, isErr := call(t, cs, mcp.ToolReadNote, map[string]any{"path": p}, &read); isErr {
		t.Fatalf("read-note %s: %s", p, text)
	}
	return read.ETag
}

// appendEdit is an edits list of one append.
var appendEdit = []any{map[string]any{"op": "append", "text": "more\n"}}

// TestWriteToolsGivenAFolder: edit-note, move-note and delete-note given
// a folder's path say it is a folder and that the tool changes one note,
// not that the path lacks ".md"; move-note to a folder says to give the
// note's new path in it. Nothing changes.
func TestWriteToolsGivenAFolder(t *testing.T) {
	cs, dir := writableExample(t)
	before := sharedtest.TreeHash(t, dir)
	etag := etagOf(t, cs, "Water.md")
	for _, c := range []struct {
		tool string
		args map[string]any
		want string
	}{
		{mcp.ToolDeleteNote, map[string]any{"path": "Methods", "etag": etag}, `"Methods" is a folder, not a note: delete-note deletes one note, and folders are not deleted`},
		{mcp.ToolDeleteNote, map[string]any{"path": "Methods/", "etag": etag}, `"Methods" is a folder, not a note: delete-note deletes one note`},
		{mcp.ToolEditNote, map[string]any{"path": "Beans", "etag": etag, "edits": appendEdit}, `"Beans" is a folder, not a note: edit-note changes one note`},
		{mcp.ToolMoveNote, map[string]any{"path": "Gear", "to": "Kit", "etag": etag}, `"Gear" is a folder, not a note: move-note moves one note, and folders are not moved`},
		{mcp.ToolMoveNote, map[string]any{"path": "Water.md", "to": "Gear", "etag": etag}, `"Gear" is a folder: to is the note's new path, name included, such as "Gear/Water.md"`},
	} {
		text, isErr := call(t, cs, c.tool, c.args, nil)
		if !isErr || !strings.Contains(text, c.want) || strings.Contains(text, "extension") {
			t.Errorf("%s %v: %v %q; want it refused saying %q", c.tool, c.args, isErr, text, c.want)
		}
		sharedtest.CheckWords(t, c.tool, text)
	}
	if sharedtest.TreeHash(t, dir) != before {
		t.Fatal("a refused write changed the vault")
	}
}

// TestWriteToolsOnAMissingNoteSuggest: a write to a path where no note
// is names the closest notes as read-note does for that path, in the
// same words, or the note a link written so would lead to.
func TestWriteToolsOnAMissingNoteSuggest(t *testing.T) {
	cs, dir := writableExample(t)
	before := sharedtest.TreeHash(t, dir)
	etag := etagOf(t, cs, "Water.md")
	const typo = "Methods/Frnch press.md"
	readText, isErr := call(t, cs, mcp.ToolReadNote, map[string]any{"path": typo, "vault": "coffee"}, nil)
	if !isErr || !strings.Contains(readText, `"Methods/French press.md"`) {
		t.Fatalf("read-note of a misspelt path: %v %q; want the closest note named", isErr, readText)
	}
	for _, c := range []struct {
		tool string
		args map[string]any
	}{
		{mcp.ToolEditNote, map[string]any{"path": typo, "etag": etag, "edits": appendEdit}},
		{mcp.ToolMoveNote, map[string]any{"path": typo, "to": "Methods/Press.md", "etag": etag}},
		{mcp.ToolDeleteNote, map[string]any{"path": typo, "etag": etag}},
	} {
		text, isErr := call(t, cs, c.tool, c.args, nil)
		if !isErr || !strings.Contains(text, readText) {
			t.Errorf("%s of a misspelt path: %v %q; want read-note's answer %q", c.tool, isErr, text, readText)
		}
		sharedtest.CheckWords(t, c.tool, text)
	}
	// With the etag of the note meant, a mistyped path is answered with
	// that note; with another's, the closest names are not taken for it.
	text, _ := call(t, cs, mcp.ToolEditNote, map[string]any{"path": typo, "etag": etagOf(t, cs, "Methods/French press.md"), "edits": appendEdit}, nil)
	if want := `there is no note at Methods/Frnch press.md; the note read with that etag is Methods/French press.md, in vault "coffee": pass its path`; !strings.Contains(text, want) {
		t.Errorf("a typo with the etag of the note meant: %q; want %q", text, want)
	}
	text, _ = call(t, cs, mcp.ToolEditNote, map[string]any{"path": typo, "etag": etag, "edits": appendEdit}, nil)
	if want := "none of these holds the text read with that etag"; !strings.Contains(text, want) {
		t.Errorf("a typo with another note's etag: %q; want %q", text, want)
	}
	// A note's name without its folder is the note a link to it leads
	// to, whose etag the write is checked against.
	text, isErr = call(t, cs, mcp.ToolEditNote, map[string]any{"path": "French press.md", "etag": etag, "edits": appendEdit}, nil)
	if !isErr || !strings.Contains(text, `"French press.md" is the note "Methods/French press.md": `) || !strings.Contains(text, "is that of Water.md as it is now") {
		t.Errorf("edit-note of a note in another folder: %v %q", isErr, text)
	}
	sharedtest.CheckWords(t, "edit-note", text)
	if sharedtest.TreeHash(t, dir) != before {
		t.Fatal("a refused write changed the vault")
	}
}

// TestEditNoteSchemaTakesAListOfEdits: edits is a required array of at
// least one edit, not null, in the schema the client is given.
func TestEditNoteSchemaTakesAListOfEdits(t *testing.T) {
	cs, _ := writableExample(t)
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tool := range res.Tools {
		if tool.Name != mcp.ToolEditNote {
			continue
		}
		data, err := json.Marshal(tool.InputSchema)
		if err != nil {
			t.Fatal(err)
		}
		var schema struct {
			Required   []string `json:"required"`
			Properties map[string]struct {
				Type     any  `json:"type"`
				MinItems *int `json:"minItems"`
			} `json:"properties"`
		}
		if err := json.Unmarshal(data, &schema); err != nil {
			t.Fatal(err)
		}
		edits := schema.Properties["edits"]
		if edits.Type != "array" || edits.MinItems == nil || *edits.MinItems != 1 || !strings.Contains(strings.Join(schema.Required, " "), "edits") {
			t.Errorf("edit-note's edits: type %v, minItems %v, required %v; want a required array of 1 or more", edits.Type, edits.MinItems, schema.Required)
		}
		text, isErr := call(t, cs, mcp.ToolEditNote, map[string]any{"path": "Water.md", "etag": etagOf(t, cs, "Water.md"), "edits": nil}, nil)
		if !isErr || !strings.Contains(text, "edits") {
			t.Errorf("edit-note with edits null: %v %q", isErr, text)
		}
		return
	}
	t.Fatal("edit-note is not listed")
}

// TestANoteBesideAFolderOfOtherCase: create-note inbox/x.md beside a
// folder Inbox is refused pointing at that folder, not at edit-note, for
// no note is there.
func TestANoteBesideAFolderOfOtherCase(t *testing.T) {
	cs, dir := writableExample(t)
	if err := os.MkdirAll(filepath.Join(dir, "Inbox"), 0o755); err != nil {
		t.Fatal(err)
	}
	text, isErr := call(t, cs, mcp.ToolCreateNote, map[string]any{"path": "inbox/x.md", "content": "x\n"}, nil)
	if !isErr || !strings.Contains(text, "or write it into the existing folder: `Inbox/x.md`") || strings.Contains(text, "edit-note") {
		t.Errorf("create-note inbox/x.md beside Inbox/: %v %q", isErr, text)
	}
	sharedtest.CheckWords(t, mcp.ToolCreateNote, text)
	if _, isErr := call(t, cs, mcp.ToolCreateNote, map[string]any{"path": "Inbox/x.md", "content": "x\n"}, nil); isErr {
		t.Error("the suggested path Inbox/x.md is refused")
	}
}

// TestNamesThatDifferOnlyInCaseAreOneNote: create-note and move-note to a
// name that differs only in case from a note's are refused, naming it,
// in a dry run too; the note itself renamed in other capitals is a move.
func TestNamesThatDifferOnlyInCaseAreOneNote(t *testing.T) {
	cs, dir := writableExample(t)
	before := sharedtest.TreeHash(t, dir)
	for _, c := range []struct {
		tool string
		args map[string]any
	}{
		{mcp.ToolCreateNote, map[string]any{"path": "water.md", "content": "x\n"}},
		{mcp.ToolCreateNote, map[string]any{"path": "water.md", "content": "x\n", "dry_run": true}},
		{mcp.ToolMoveNote, map[string]any{"path": "Brewing ratios.md", "to": "WATER.md", "etag": etagOf(t, cs, "Brewing ratios.md")}},
	} {
		text, isErr := call(t, cs, c.tool, c.args, nil)
		if !isErr || !strings.Contains(text, `the vault already has the note "Water.md"`) {
			t.Errorf("%s %v: %v %q; want it refused naming Water.md", c.tool, c.args, isErr, text)
		}
		sharedtest.CheckWords(t, c.tool, text)
	}
	if sharedtest.TreeHash(t, dir) != before {
		t.Fatal("a refused write changed the vault")
	}
	var moved mcp.WriteOutput
	if text, isErr := call(t, cs, mcp.ToolMoveNote, map[string]any{"path": "Water.md", "to": "water.md", "etag": etagOf(t, cs, "Water.md")}, &moved); isErr || moved.Path != "water.md" {
		t.Fatalf("renaming Water.md to water.md: %v %s", isErr, text)
	}
	if _, isErr := call(t, cs, mcp.ToolReadNote, map[string]any{"path": "water.md"}, nil); isErr {
		t.Error("water.md cannot be read after the rename")
	}
}

// TestANoteRenamedOnDiskSinceIndexed: edit-note and read-note of a path
// the index holds but whose note was renamed on disk since say so once,
// in plain words, and point to search-vault to find the note by name,
// not the system's "no such file or directory".
func TestANoteRenamedOnDiskSinceIndexed(t *testing.T) {
	cs, dir := writableExample(t)
	etag := etagOf(t, cs, "Water.md")
	if err := os.Rename(filepath.Join(dir, "Water.md"), filepath.Join(dir, "Water notes.md")); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		tool string
		args map[string]any
		want string
	}{
		{mcp.ToolEditNote, map[string]any{"path": "Water.md", "etag": etag, "edits": appendEdit},
			"there is no note at Water.md (renamed or moved?); search-vault finds notes by name"},
		{mcp.ToolReadNote, map[string]any{"path": "Water.md"},
			"note Water.md is gone from disk (renamed, moved or deleted?); search-vault finds notes by name"},
	} {
		text, isErr := call(t, cs, c.tool, c.args, nil)
		// Never other notes of a close name: the note read was renamed.
		if !isErr || !strings.Contains(text, c.want) || strings.Count(text, "no such") > 0 || strings.Count(text, "no note") > 1 || strings.Contains(text, "closest") {
			t.Errorf("%s of a renamed note: %v %q; want %q", c.tool, isErr, text, c.want)
		}
		sharedtest.CheckWords(t, c.tool, text)
	}
}

// TestWriteToolsNameTheNoteAnEtagIsOf: edit-note, move-note and
// delete-note given the etag of another note as it is now say which note
// it is of, not that the note changed; nothing changes.
func TestWriteToolsNameTheNoteAnEtagIsOf(t *testing.T) {
	cs, dir := writableExample(t)
	before := sharedtest.TreeHash(t, dir)
	etag := etagOf(t, cs, "Water.md")
	want := "is that of Water.md as it is now, not of Beans/Index.md"
	for _, c := range []struct {
		tool string
		args map[string]any
	}{
		{mcp.ToolDeleteNote, map[string]any{"path": "Beans/Index.md", "etag": etag}},
		{mcp.ToolEditNote, map[string]any{"path": "Beans/Index.md", "etag": etag, "edits": appendEdit}},
		{mcp.ToolMoveNote, map[string]any{"path": "Beans/Index.md", "to": "Home.md", "etag": etag}},
	} {
		text, isErr := call(t, cs, c.tool, c.args, nil)
		if !isErr || !strings.Contains(text, want) || strings.Contains(text, "changed since it was read") {
			t.Errorf("%s: %v %q; want it refused saying %q", c.tool, isErr, text, want)
		}
		sharedtest.CheckWords(t, c.tool, text)
	}
	if sharedtest.TreeHash(t, dir) != before {
		t.Fatal("a refused write changed the vault")
	}
}

// TestWriteToolRefusalsEndAsSentences: a write tool's refusal ends with a
// full stop, whichever layer worded it.
func TestWriteToolRefusalsEndAsSentences(t *testing.T) {
	cs, _ := writableExample(t)
	etag := etagOf(t, cs, "Water.md")
	for _, args := range []map[string]any{
		{"path": "Index.md", "etag": etag},                          // names two notes
		{"path": "Beans/Index.md", "etag": strings.Repeat("0", 32)}, // an etag never issued
		{"path": "Beans/Index.md", "etag": etag},                    // another note's etag
		{"path": "Beans/Index.md", "etag": etag, "vault": "nowhere"},
	} {
		text, isErr := call(t, cs, mcp.ToolDeleteNote, args, nil)
		if !isErr || !strings.HasSuffix(text, ".") || strings.HasSuffix(text, "..") {
			t.Errorf("delete-note %v: %v %q; want a refusal that ends with one full stop", args, isErr, text)
		}
	}
}

// TestVaultFolderGoneSaidAlike: with the vault's folder renamed under a
// running server, read-note and edit-note say the same thing of it, in
// index.FolderTrouble's words: that it does not exist, and why it may not.
func TestVaultFolderGoneSaidAlike(t *testing.T) {
	cs, dir := writableExample(t)
	etag := etagOf(t, cs, "Methods/Pour over.md")
	if err := os.Rename(dir, dir+"-moved"); err != nil {
		t.Fatal(err)
	}
	want := index.FolderTrouble(dir)
	if !strings.Contains(want, "it was deleted or renamed") {
		t.Fatalf("FolderTrouble of a folder that is gone: %q", want)
	}
	read, _ := call(t, cs, mcp.ToolReadNote, map[string]any{"path": "Methods/Pour over.md"}, nil)
	edit, _ := call(t, cs, mcp.ToolEditNote, map[string]any{"path": "Methods/Pour over.md", "etag": etag, "edits": appendEdit}, nil)
	for tool, text := range map[string]string{"read-note": read, "edit-note": edit} {
		if !strings.Contains(text, want) {
			t.Errorf("%s with the vault folder gone: %q; want %q", tool, text, want)
		}
	}
}

// TestHealthWithVaultFolderGone: while the vault's folder is gone and the
// index still answers for it, health-status says what still answers
// rather than that jarvis is broken, and the vault check says what to do.
func TestHealthWithVaultFolderGone(t *testing.T) {
	v := exampleVault(t)
	cs := connect(t, realBackend(t, filepath.Join(t.TempDir(), "j.db"), true, v))
	if err := os.Rename(v.Path, v.Path+"-moved"); err != nil {
		t.Fatal(err)
	}
	text, _ := call(t, cs, mcp.ToolHealthStatus, map[string]any{}, nil)
	want := `Search still answers, with vault "coffee" as it was last indexed.`
	if !strings.HasPrefix(text, want) || !strings.Contains(text, "fail  vault coffee:") || !strings.Contains(text, "put the folder back if it was moved") {
		t.Errorf("health-status with the vault folder gone:\n%s\nwant it to open with %q", text, want)
	}
	if text, _ := call(t, cs, mcp.ToolSearchVault, map[string]any{"query": "pour over"}, nil); !strings.Contains(text, "as they were last indexed") {
		t.Errorf("search with the vault folder gone does not answer from the index:\n%s", text)
	}
}

package mcp_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/jarvis-mcp/jarvis/internal/mcp"
	"github.com/jarvis-mcp/jarvis/internal/sharedtest"
)

var writeTools = []string{mcp.ToolCreateNote, mcp.ToolDeleteNote, mcp.ToolEditNote, mcp.ToolMoveNote}

// TestWriteToolsOnlyWhenAllowed: without a writable vault tools/list has
// no write tool; with one it has the four, each saying it is not read-only
// and, but for create-note, destructive, with schemas kept in a golden
// file.
func TestWriteToolsOnlyWhenAllowed(t *testing.T) {
	v := exampleVault(t)
	readOnlyServer := connect(t, realBackend(t, filepath.Join(t.TempDir(), "j.db"), false, v))
	res, err := readOnlyServer.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tool := range res.Tools {
		if slices.Contains(writeTools, tool.Name) {
			t.Errorf("%s is listed with no writable vault", tool.Name)
		}
	}
	// Called anyway, it says how the user turns writing on.
	if text, isErr := call(t, readOnlyServer, mcp.ToolEditNote, map[string]any{"path": "Water.md"}, nil); !isErr || !strings.Contains(text, "--write") {
		t.Errorf("edit-note on a server with no writable vault: %v %s", isErr, text)
	}

	v.Write = true
	cs := connect(t, realBackend(t, filepath.Join(t.TempDir(), "j.db"), false, v))
	res, err = cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var listed []any
	for _, tool := range res.Tools {
		if !slices.Contains(writeTools, tool.Name) {
			continue
		}
		listed = append(listed, tool)
		a := tool.Annotations
		destructive := tool.Name != mcp.ToolCreateNote
		if a == nil || a.ReadOnlyHint || a.DestructiveHint == nil || *a.DestructiveHint != destructive || a.OpenWorldHint == nil || *a.OpenWorldHint {
			t.Errorf("%s: annotations %+v; want not read-only, destructive %v, closed-world", tool.Name, a, destructive)
		}
	}
	if len(listed) != len(writeTools) {
		t.Fatalf("%d write tools listed; want %v", len(listed), writeTools)
	}
	got, err := json.MarshalIndent(listed, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	checkGolden(t, "write-tools.golden.json", "the write tools changed", got)
}

// TestWritesAreReadBackAtOnce: over one writable vault, each write tool
// works on what read-note gave, refuses a stale etag leaving the note as
// it was, writes nothing in a dry run, and its change is in every answer
// that follows, in this session and another, before the watcher could
// have seen it.
func TestWritesAreReadBackAtOnce(t *testing.T) {
	v := exampleVault(t)
	v.Write = true
	b := realBackend(t, filepath.Join(t.TempDir(), "j.db"), true, v)
	cs, other := connect(t, b), connect(t, b)
	const note = "Methods/French press.md"
	before := sharedtest.TreeHash(t, v.Path)

	var read mcp.ReadNoteOutput
	if _, isErr := call(t, cs, mcp.ToolReadNote, map[string]any{"path": note}, &read); isErr || read.ETag == "" {
		t.Fatalf("read-note gives no etag: %+v", read)
	}

	// A dry run writes nothing and shows the diff.
	var dry mcp.WriteOutput
	edit := map[string]any{"path": note, "etag": read.ETag, "dry_run": true,
		"edits": []any{map[string]any{"op": "append", "text": "Zanzibarite grounds bloom twice.\n"}}}
	if text, isErr := call(t, cs, mcp.ToolEditNote, edit, &dry); isErr || !strings.Contains(dry.Diff, "+Zanzibarite grounds bloom twice.") || dry.Undo != "" {
		t.Fatalf("dry run: %+v\n%s", dry, text)
	}
	if after := sharedtest.TreeHash(t, v.Path); after != before {
		t.Fatal("a dry run changed the vault")
	}

	// The edit, then a search in the other session finds its words.
	delete(edit, "dry_run")
	var done mcp.WriteOutput
	if text, isErr := call(t, cs, mcp.ToolEditNote, edit, &done); isErr || done.ETag == "" || done.ETag == read.ETag || done.Undo == "" {
		t.Fatalf("edit: %+v\n%s", done, text)
	}
	var found mcp.SearchOutput
	call(t, other, mcp.ToolSearchVault, map[string]any{"query": "zanzibarite"}, &found)
	if len(found.Results) == 0 || found.Results[0].Path != note {
		t.Fatalf("the other session does not find the edit at once: %+v", found.Results)
	}

	// The etag read before the edit is stale now: refused, nothing changes.
	edited := sharedtest.TreeHash(t, v.Path)
	text, isErr := call(t, cs, mcp.ToolEditNote, map[string]any{"path": note, "etag": read.ETag,
		"edits": []any{map[string]any{"op": "append", "text": "lost\n"}}}, nil)
	if !isErr || !strings.Contains(text, "changed since it was read") || !strings.Contains(text, "read-note") {
		t.Fatalf("a stale etag: %v %s", isErr, text)
	}
	if sharedtest.TreeHash(t, v.Path) != edited {
		t.Fatal("a refused edit changed the vault")
	}

	// An etag jarvis never gave is not taken for a change of the note.
	if text, isErr := call(t, cs, mcp.ToolEditNote, map[string]any{"path": note, "etag": "abc",
		"edits": []any{map[string]any{"op": "append", "text": "lost\n"}}}, nil); !isErr || !strings.Contains(text, "is not an etag jarvis gives") || strings.Contains(text, "changed since") {
		t.Fatalf("a made-up etag: %v %s", isErr, text)
	}

	// create-note: found at once; refused where a note is.
	var created mcp.WriteOutput
	if text, isErr := call(t, cs, mcp.ToolCreateNote, map[string]any{"path": "Methods/Siphon.md", "content": "# Siphon\nVacuum brewing with [[French press]] grounds.\n"}, &created); isErr || created.ETag == "" {
		t.Fatalf("create: %+v %s", created, text)
	}
	call(t, other, mcp.ToolSearchVault, map[string]any{"query": "vacuum brewing"}, &found)
	if len(found.Results) == 0 || found.Results[0].Path != "Methods/Siphon.md" {
		t.Fatalf("the new note is not found at once: %+v", found.Results)
	}
	if text, isErr := call(t, cs, mcp.ToolCreateNote, map[string]any{"path": note, "content": "x"}, nil); !isErr || !strings.Contains(text, "edit-note") {
		t.Fatalf("create over a note: %v %s", isErr, text)
	}

	// move-note: the links to the note follow it.
	call(t, cs, mcp.ToolReadNote, map[string]any{"path": note}, &read)
	var moved mcp.WriteOutput
	if text, isErr := call(t, cs, mcp.ToolMoveNote, map[string]any{"path": note, "to": "Immersion/Press pot.md", "etag": read.ETag}, &moved); isErr || moved.Path != "Immersion/Press pot.md" || len(moved.Relinked) == 0 {
		t.Fatalf("move: %+v %s", moved, text)
	}
	var siphon mcp.ReadNoteOutput
	call(t, other, mcp.ToolReadNote, map[string]any{"path": "Methods/Siphon.md"}, &siphon)
	if !strings.Contains(siphon.Content, "[[Press pot]]") {
		t.Fatalf("a link to the moved note was not rewritten: %s", siphon.Content)
	}
	var pot mcp.ReadNoteOutput
	if _, isErr := call(t, other, mcp.ToolReadNote, map[string]any{"path": "Immersion/Press pot.md"}, &pot); isErr || pot.BacklinkCount == 0 {
		t.Fatalf("the moved note has no backlinks in the index: %+v", pot)
	}

	// delete-note: to the trash, gone from search.
	var gone mcp.WriteOutput
	if text, isErr := call(t, cs, mcp.ToolDeleteNote, map[string]any{"path": "Methods/Siphon.md", "etag": siphon.ETag}, &gone); isErr || !strings.HasPrefix(gone.Trash, ".trash/") {
		t.Fatalf("delete: %+v %s", gone, text)
	}
	if _, err := os.Stat(filepath.Join(v.Path, filepath.FromSlash(gone.Trash))); err != nil {
		t.Fatalf("the deleted note is not in the trash: %v", err)
	}
	call(t, other, mcp.ToolSearchVault, map[string]any{"query": "vacuum brewing"}, &found)
	for _, r := range found.Results {
		if r.Path == "Methods/Siphon.md" {
			t.Fatalf("the deleted note is still found: %+v", found.Results)
		}
	}

	// delete-note of a note others link to names them: their links now
	// lead to no note.
	call(t, cs, mcp.ToolReadNote, map[string]any{"path": "Immersion/Press pot.md"}, &pot)
	var linked mcp.WriteOutput
	text, isErr = call(t, cs, mcp.ToolDeleteNote, map[string]any{"path": "Immersion/Press pot.md", "etag": pot.ETag}, &linked)
	if isErr || len(linked.LinkedFrom) == 0 || !strings.Contains(text, "linked to it; those links now lead to no note") {
		t.Fatalf("delete of a linked note: %+v\n%s", linked, text)
	}
	for _, p := range moved.Relinked {
		if p != "Methods/Siphon.md" && !slices.Contains(linked.LinkedFrom, p) {
			t.Errorf("%s linked to the note deleted and is not named: %q", p, linked.LinkedFrom)
		}
	}
}

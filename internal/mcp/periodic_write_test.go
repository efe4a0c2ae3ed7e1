package mcp_test

import (
	"context"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jarvis-mcp/jarvis/internal/config"
	"github.com/jarvis-mcp/jarvis/internal/container"
	"github.com/jarvis-mcp/jarvis/internal/mcp"
	"github.com/jarvis-mcp/jarvis/internal/sharedtest"
	"github.com/jarvis-mcp/jarvis/internal/write"
)

// periodicWriter is the real server over vaults, indexed, whose clock
// says it is lateEvening; its database is returned for jarvis undo.
func periodicWriter(t *testing.T, vaults ...config.Vault) (backend, container.MCPDeps) {
	t.Helper()
	cfg := config.Config{DBPath: filepath.Join(t.TempDir(), "j.db"), Vaults: vaults, Embedder: config.Embedder{Provider: config.ProviderLexical}}
	var deps container.MCPDeps
	app := container.NewMCPApp(cfg, quiet(), &deps, container.WithClock(func() time.Time { return lateEvening }))
	if err := container.Err(app); err != nil {
		t.Fatal(err)
	}
	if err := app.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { app.Stop(context.Background()) })
	if err := deps.Live.All(context.Background()); err != nil {
		t.Fatal(err)
	}
	return real{deps}, deps
}

// undoLast reverts the last write as `jarvis undo` does: the journal's
// change for it, applied through the vault's file layer.
func undoLast(t *testing.T, deps container.MCPDeps, v config.Vault) {
	t.Helper()
	ctx := context.Background()
	last, err := write.History(ctx, deps.DB, 1)
	if err != nil || len(last) == 0 {
		t.Fatalf("history: %v %v", last, err)
	}
	files, err := write.OpenVault(v.Path, v.Exclude)
	if err != nil {
		t.Fatal(err)
	}
	ch, err := write.UndoChange(ctx, deps.DB, last[0].ID, func(rel string) (string, bool, error) {
		_, etag, err := files.Read(ctx, rel)
		if errors.Is(err, fs.ErrNotExist) {
			return "", false, nil
		}
		return etag, err == nil, err
	})
	if err != nil {
		t.Fatalf("undo: %v", err)
	}
	if _, err := files.Apply(ctx, ch); err != nil {
		t.Fatalf("undo: %v", err)
	}
}

// lastTool is the tool the journal's last write names.
func lastTool(t *testing.T, deps container.MCPDeps) string {
	t.Helper()
	last, err := write.History(context.Background(), deps.DB, 1)
	if err != nil || len(last) == 0 {
		t.Fatalf("history: %v %v", last, err)
	}
	return last[0].Tool
}

func readFile(t *testing.T, dir, rel string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(rel)))
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// TestPeriodicNoteAppends: in a writable vault periodic-note gives the
// note's etag, appends as edit-note's append does only with that etag,
// refuses a missing or stale one leaving the vault as it was, and its
// write is found by search at once, journalled as periodic-note, and
// undone by jarvis undo.
func TestPeriodicNoteAppends(t *testing.T) {
	v := periodicVault(t)
	v.Write = true
	b, deps := periodicWriter(t, v)
	cs, other := connect(t, b), connect(t, b)
	const rel = "Journal/2026-11-28.md"
	original := readFile(t, v.Path, rel)
	before := sharedtest.TreeHash(t, v.Path)

	var read mcp.PeriodicNoteOutput
	if text, isErr := call(t, cs, mcp.ToolPeriodicNote, nil, &read); isErr || read.ETag != write.ETag([]byte(original)) || !strings.Contains(text, "etag: "+read.ETag) {
		t.Fatalf("periodic-note gives no etag: %+v\n%s", read, text)
	}

	const line = "- Cupped a quokkaberry roast.\n"
	for _, tc := range []struct{ name, etag, says string }{
		{"no etag", "", "etag"},
		{"another note's etag", write.ETag([]byte("other")), "changed since it was read"},
	} {
		text, isErr := call(t, cs, mcp.ToolPeriodicNote, map[string]any{"append": line, "etag": tc.etag}, nil)
		if !isErr || !strings.Contains(text, tc.says) || !strings.Contains(text, "periodic-note") || !strings.Contains(strings.ToLower(text), "nothing was written") {
			t.Errorf("%s: error %v: %s", tc.name, isErr, text)
		}
		sharedtest.CheckWords(t, tc.name, text)
		if sharedtest.TreeHash(t, v.Path) != before {
			t.Fatalf("%s: a refused append changed the vault", tc.name)
		}
	}

	var done mcp.PeriodicNoteOutput
	text, isErr := call(t, cs, mcp.ToolPeriodicNote, map[string]any{"append": line, "etag": read.ETag}, &done)
	if isErr || done.Written != "appended" || done.Path != rel || !done.Exists || done.Undo == "" {
		t.Fatalf("append: %+v\n%s", done, text)
	}
	sharedtest.CheckWords(t, "append", text)
	// The one rule of appending: periodic-note's is edit-note's.
	want, err := write.ApplyEdits([]byte(original), []write.Edit{{Op: write.OpAppend, Text: line}})
	if err != nil {
		t.Fatal(err)
	}
	if got := readFile(t, v.Path, rel); got != string(want) || done.ETag != write.ETag(want) || done.Content != got {
		t.Fatalf("the note after the append:\n%q\nwant\n%q (etag %s)", got, want, done.ETag)
	}
	if tool := lastTool(t, deps); tool != mcp.ToolPeriodicNote {
		t.Errorf("the journal names %q; want periodic-note", tool)
	}

	var found mcp.SearchOutput
	call(t, other, mcp.ToolSearchVault, map[string]any{"query": "quokkaberry"}, &found)
	if len(found.Results) == 0 || found.Results[0].Path != rel {
		t.Fatalf("the other session does not find the append at once: %+v", found.Results)
	}

	// The etag read before the append is stale now.
	appended := sharedtest.TreeHash(t, v.Path)
	if text, isErr := call(t, cs, mcp.ToolPeriodicNote, map[string]any{"append": "lost\n", "etag": read.ETag}, nil); !isErr || !strings.Contains(text, "changed since it was read") {
		t.Fatalf("a stale etag: %v %s", isErr, text)
	}
	if sharedtest.TreeHash(t, v.Path) != appended {
		t.Fatal("a stale append changed the vault")
	}

	undoLast(t, deps, v)
	if got := readFile(t, v.Path, rel); got != original {
		t.Fatalf("jarvis undo left %q; want %q", got, original)
	}
}

// TestPeriodicNoteCreates: appending to a note not written yet creates
// it from the template its settings name, filled for its day, the time
// now and its title, with the text at its end; without a template, or
// with one that is not there (a warning), the note holds the text alone.
// The new note is found at once and jarvis undo takes it away.
func TestPeriodicNoteCreates(t *testing.T) {
	v := periodicVault(t)
	v.Write = true
	sharedtest.WriteFile(t, v.Path, "Templates/Day.md", "---\ntags: [daily]\n---\n# {{title}}\nWritten {{date}} at {{time}}, a {{date:dddd}}. {{unknown}}\n")
	b, deps := periodicWriter(t, v)
	cs := connect(t, b)
	const line = "- Planted the marrowgold beans.\n"

	var out mcp.PeriodicNoteOutput
	text, isErr := call(t, cs, mcp.ToolPeriodicNote, map[string]any{"date": "tomorrow", "append": line}, &out)
	const rel = "Journal/2026-11-29.md"
	want := "---\ntags: [daily]\n---\n# 2026-11-29\nWritten 2026-11-29 at 23:30, a Sunday. {{unknown}}\n" + line
	if isErr || out.Written != "created" || out.Path != rel || out.Undo == "" || len(out.Warnings) > 0 {
		t.Fatalf("create: %+v\n%s", out, text)
	}
	if got := readFile(t, v.Path, rel); got != want || out.ETag != write.ETag([]byte(want)) {
		t.Fatalf("the new note:\n%q\nwant\n%q", got, want)
	}
	if !strings.Contains(text, "Created `"+rel+"` from the template `Templates/Day.md`") {
		t.Errorf("the text does not say what was made:\n%s", text)
	}
	sharedtest.CheckWords(t, "create", text)
	if tool := lastTool(t, deps); tool != mcp.ToolPeriodicNote {
		t.Errorf("the journal names %q; want periodic-note", tool)
	}
	var found mcp.SearchOutput
	call(t, cs, mcp.ToolSearchVault, map[string]any{"query": "marrowgold"}, &found)
	if len(found.Results) == 0 || found.Results[0].Path != rel {
		t.Fatalf("the new note is not found at once: %+v", found.Results)
	}
	undoLast(t, deps, v)
	if _, err := os.Stat(filepath.Join(v.Path, filepath.FromSlash(rel))); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("jarvis undo left the created note: %v", err)
	}

	// An etag for a note that is not there is stale: nothing is made.
	before := sharedtest.TreeHash(t, v.Path)
	if text, isErr := call(t, cs, mcp.ToolPeriodicNote, map[string]any{"date": "tomorrow", "append": line, "etag": out.ETag}, nil); !isErr || !strings.Contains(text, "changed since it was read") {
		t.Fatalf("an etag for a missing note: %v %s", isErr, text)
	}
	if sharedtest.TreeHash(t, v.Path) != before {
		t.Fatal("a refused append changed the vault")
	}

	// The weekly settings name no template: the text alone.
	text, isErr = call(t, cs, mcp.ToolPeriodicNote, map[string]any{"period": "weekly", "date": "-1", "append": line}, &out)
	if isErr || out.Written != "created" || readFile(t, v.Path, "Weeks/2026-W47.md") != line || len(out.Warnings) > 0 {
		t.Fatalf("create without a template: %+v\n%s", out, text)
	}
	if !strings.Contains(text, "Created `Weeks/2026-W47.md` holding the text alone (no template is set for these notes)") {
		t.Errorf("the text does not say what was made:\n%s", text)
	}

	// A template named but missing: a warning, and the text alone.
	if err := os.Remove(filepath.Join(v.Path, "Templates", "Day.md")); err != nil {
		t.Fatal(err)
	}
	text, isErr = call(t, cs, mcp.ToolPeriodicNote, map[string]any{"date": "2026-12-01", "append": line}, &out)
	if isErr || out.Written != "created" || readFile(t, v.Path, "Journal/2026-12-01.md") != line ||
		len(out.Warnings) != 1 || !strings.Contains(out.Warnings[0], "Templates/Day.md") || !strings.Contains(out.Warnings[0], "started empty") {
		t.Fatalf("create with a missing template: %+v\n%s", out, text)
	}
	sharedtest.CheckWords(t, "missing template", text)
}

// TestPeriodicNoteAppendReadOnly: append in a read-only vault is refused
// in the write tools' words, saying how the user allows writing, and
// changes nothing; with no writable vault, periodic-note is read-only and
// takes no append at all.
func TestPeriodicNoteAppendReadOnly(t *testing.T) {
	ro, rw := periodicVault(t), periodicVault(t)
	ro.Name, rw.Name, rw.Write = "kept", "open", true
	b, _ := periodicWriter(t, ro, rw)
	cs := connect(t, b)
	before := sharedtest.TreeHash(t, ro.Path)
	var read mcp.PeriodicNoteOutput
	call(t, cs, mcp.ToolPeriodicNote, map[string]any{"vault": "kept"}, &read)
	text, isErr := call(t, cs, mcp.ToolPeriodicNote, map[string]any{"vault": "kept", "append": "x\n", "etag": read.ETag}, nil)
	if !isErr || !strings.Contains(text, `vault "kept" is read-only`) || !strings.Contains(text, "`write: true`") || !strings.Contains(text, "--write") {
		t.Fatalf("append in a read-only vault: %v %s", isErr, text)
	}
	text, isErr = call(t, cs, mcp.ToolPeriodicNote, map[string]any{"vault": "kept", "date": "tomorrow", "append": "x\n"}, nil)
	if !isErr || !strings.Contains(text, "read-only") {
		t.Fatalf("create in a read-only vault: %v %s", isErr, text)
	}
	if sharedtest.TreeHash(t, ro.Path) != before {
		t.Fatal("a refused append changed the read-only vault")
	}

	b, _ = periodicWriter(t, periodicVault(t))
	cs = connect(t, b)
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tool := range res.Tools {
		if tool.Name != mcp.ToolPeriodicNote {
			continue
		}
		schema, _ := json.Marshal(tool.InputSchema)
		if tool.Annotations == nil || !tool.Annotations.ReadOnlyHint || strings.Contains(string(schema), "append") {
			t.Fatalf("periodic-note with no writable vault: %+v %s", tool.Annotations, schema)
		}
	}
	if text, isErr := call(t, cs, mcp.ToolPeriodicNote, map[string]any{"append": "x\n"}, nil); !isErr || !strings.Contains(text, "append argument is off in this server") {
		t.Fatalf("append with no writable vault: %v %s", isErr, text)
	}
}

// TestPeriodicNoteWritableSchema: with a writable vault periodic-note is
// not read-only and not destructive (it only adds), and its schema, with
// append and etag, is kept in a golden file; the read-only one is in
// tools.golden.json.
func TestPeriodicNoteWritableSchema(t *testing.T) {
	v := periodicVault(t)
	v.Write = true
	b, _ := periodicWriter(t, v)
	res, err := connect(t, b).ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var got []byte
	for _, tool := range res.Tools {
		if tool.Name != mcp.ToolPeriodicNote {
			continue
		}
		a := tool.Annotations
		if a == nil || a.ReadOnlyHint || a.DestructiveHint == nil || *a.DestructiveHint || a.OpenWorldHint == nil || *a.OpenWorldHint {
			t.Errorf("annotations %+v; want not read-only, not destructive, closed-world", a)
		}
		if got, err = json.MarshalIndent(tool, "", "  "); err != nil {
			t.Fatal(err)
		}
	}
	checkGolden(t, "periodic-note-writable.golden.json", "periodic-note's writable schema changed", got)
}

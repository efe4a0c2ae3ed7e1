package mcp_test

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	mcpsdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/jarvis-mcp/jarvis/internal/config"
	"github.com/jarvis-mcp/jarvis/internal/mcp"
	"github.com/jarvis-mcp/jarvis/internal/sharedtest"
)

// keptOutVault is the example vault with an excluded Archive folder, a
// hidden folder and a file outside, each holding a secret word, and notes
// and folders in the vault that are symbolic links to them.
func keptOutVault(t *testing.T) config.Vault {
	t.Helper()
	v := exampleVault(t)
	v.Exclude = []string{"Archive"}
	outside := t.TempDir()
	sharedtest.WriteFile(t, outside, "secret.md", "# Outside\nzanzibarsecret outside\n")
	sharedtest.WriteFile(t, v.Path, "Archive/secret.md", "# Archived\nzanzibarsecret archived\n")
	sharedtest.WriteFile(t, v.Path, ".obsidian/secret.md", "# Hidden\nzanzibarsecret hidden\n")
	for name, target := range map[string]string{
		"peek.md":        "Archive/secret.md",
		"peek-hidden.md": ".obsidian/secret.md",
		"peek-out.md":    filepath.Join(outside, "secret.md"),
		"hidden":         ".obsidian",
		"old":            "Archive",
	} {
		if err := os.Symlink(target, filepath.Join(v.Path, name)); err != nil {
			sharedtest.NoSymlinks(t, err)
		}
	}
	return v
}

func TestLinksToKeptOutFilesAreNeitherIndexedNorRead(t *testing.T) {
	v := keptOutVault(t)
	ctx := context.Background()
	for _, indexed := range []bool{true, false} {
		cs := connect(t, realBackend(t, filepath.Join(t.TempDir(), "j.db"), indexed, v))
		for _, p := range []string{"peek.md", "peek", "peek-hidden.md", "peek-out.md", "hidden/secret.md", "old/secret.md"} {
			text, isErr := call(t, cs, mcp.ToolReadNote, map[string]any{"path": p}, nil)
			if !isErr || strings.Contains(text, "zanzibarsecret") {
				t.Errorf("indexed %v: read-note %q = %q; want it refused", indexed, p, text)
			}
			res, err := cs.ReadResource(ctx, &mcpsdk.ReadResourceParams{URI: mcp.NoteURI(v.Name, p)})
			if err == nil {
				t.Errorf("indexed %v: resources/read %q = %v; want it refused", indexed, p, res.Contents[0].Text)
			}
		}
		for _, tool := range []string{mcp.ToolSearchVault, mcp.ToolSearchSemantic, mcp.ToolSearchCombined} {
			text, _ := call(t, cs, tool, map[string]any{"query": "zanzibarsecret"}, nil)
			if strings.Contains(text, "peek") || strings.Contains(text, "secret.md") {
				t.Errorf("indexed %v: %s found a kept-out note: %s", indexed, tool, text)
			}
		}
		text, _ := call(t, cs, mcp.ToolSearchGraph, map[string]any{"query_note_path": "peek"}, nil)
		if strings.Contains(text, "zanzibarsecret") || strings.Contains(text, "Archived") {
			t.Errorf("indexed %v: search-graph from peek = %s", indexed, text)
		}
	}
}

// TestReadNoteSwapRace swaps a note between a real file and symbolic links
// to a file outside the vault and to an excluded one, while clients read
// it through read-note and as a resource: no answer may hold their text.
func TestReadNoteSwapRace(t *testing.T) {
	v := keptOutVault(t)
	sharedtest.WriteFile(t, v.Path, "Swap/note.md", "# Swap\npublic text\n")
	outside := filepath.Dir(filepath.Dir(v.Path)) // the temp folder holding the vault's parent
	sharedtest.WriteFile(t, outside, "outside.md", "zanzibarsecret beyond\n")
	cs := connect(t, realBackend(t, filepath.Join(t.TempDir(), "j.db"), false, v))
	ctx := context.Background()

	seconds := 5
	if s := os.Getenv("JARVIS_SWAP_SECONDS"); s != "" {
		var err error
		if seconds, err = strconv.Atoi(s); err != nil {
			t.Fatal(err)
		}
	}
	deadline := time.Now().Add(time.Duration(seconds) * time.Second)
	var wg sync.WaitGroup
	var swaps, reads, served, leaks atomic.Int64
	wg.Go(func() {
		note := filepath.Join(v.Path, "Swap/note.md")
		tmp := filepath.Join(v.Path, "Swap/tmp")
		targets := []string{filepath.Join(outside, "outside.md"), "../Archive/secret.md", "../.obsidian/secret.md"}
		for i := 0; time.Now().Before(deadline); i++ {
			_ = os.WriteFile(tmp, []byte("# Swap\npublic text\n"), 0o644)
			_ = os.Rename(tmp, note)
			_ = os.Symlink(targets[i%len(targets)], tmp)
			_ = os.Rename(tmp, note)
			swaps.Add(1)
		}
	})
	check := func(text string, ok bool) {
		reads.Add(1)
		if ok {
			served.Add(1)
		}
		if strings.Contains(text, "zanzibarsecret") {
			leaks.Add(1)
		}
	}
	wg.Go(func() {
		for time.Now().Before(deadline) {
			res, err := cs.CallTool(ctx, &mcpsdk.CallToolParams{Name: mcp.ToolReadNote, Arguments: map[string]any{"path": "Swap/note.md"}})
			if err != nil {
				t.Errorf("read-note: %v", err)
				return
			}
			var text strings.Builder
			for _, c := range res.Content {
				if tc, ok := c.(*mcpsdk.TextContent); ok {
					text.WriteString(tc.Text)
				}
			}
			check(text.String(), !res.IsError)
		}
	})
	wg.Go(func() {
		for time.Now().Before(deadline) {
			res, err := cs.ReadResource(ctx, &mcpsdk.ReadResourceParams{URI: mcp.NoteURI(v.Name, "Swap/note.md")})
			if err != nil {
				check("", false)
				continue
			}
			check(res.Contents[0].Text, true)
		}
	})
	wg.Wait()
	t.Logf("%d swaps, %d reads, %d served", swaps.Load(), reads.Load(), served.Load())
	if leaks.Load() > 0 {
		t.Fatalf("%d of %d answers held text from outside the vault or an excluded file", leaks.Load(), reads.Load())
	}
	if served.Load() == 0 || swaps.Load() == 0 {
		t.Fatalf("the race did not run: %d swaps, %d answers served", swaps.Load(), served.Load())
	}
}

// TestNoteNamesInEitherNormalForm reads notes whose names hold accents,
// written on disk in one Unicode normal form and asked for in the other.
func TestNoteNamesInEitherNormalForm(t *testing.T) {
	v := exampleVault(t)
	const nfc, nfd = "Caf\u00e9 cr\u00e8me", "Cafe\u0301 cre\u0300me"
	sharedtest.WriteFile(t, v.Path, "Drinks/"+nfd+".md", "# Decomposed\nwritten on a Mac\n")
	sharedtest.WriteFile(t, v.Path, "Drinks/Cr\u00eape.md", "# Composed\nwritten elsewhere\n")
	for _, indexed := range []bool{true, false} {
		cs := connect(t, realBackend(t, filepath.Join(t.TempDir(), "j.db"), indexed, v))
		asks := map[string]string{
			"Drinks/" + nfc + ".md": "Decomposed",
			"Drinks/" + nfc:         "Decomposed",
			"Drinks/Cre\u0302pe.md": "Composed",
		}
		if indexed { // titles are looked up in the index
			asks[nfc] = "Decomposed"
			asks["cre\u0302pe"] = "Composed"
		}
		for ask, want := range asks {
			text, isErr := call(t, cs, mcp.ToolReadNote, map[string]any{"path": ask}, nil)
			if isErr || !strings.Contains(text, want) {
				t.Errorf("indexed %v: read-note %q = %q; want the %s note", indexed, ask, text, want)
			}
			if !strings.HasSuffix(ask, ".md") {
				continue
			}
			res, err := cs.ReadResource(context.Background(), &mcpsdk.ReadResourceParams{URI: mcp.NoteURI(v.Name, ask)})
			if err != nil || !strings.Contains(res.Contents[0].Text, want) {
				t.Errorf("indexed %v: resources/read %q: %v", indexed, ask, err)
			}
		}
	}
}

// TestReadNoteSaysALinkLeadsOut: read-note on a path written inside the
// vault that a symbolic link leads out of says so, rather than asking for
// a path relative to the vault folder, which it was; a path written
// outside is still asked for in that form.
func TestReadNoteSaysALinkLeadsOut(t *testing.T) {
	v := keptOutVault(t)
	cs := connect(t, realBackend(t, filepath.Join(t.TempDir(), "j.db"), true, v))
	for _, tc := range []struct{ path, want string }{
		{"peek-out.md", `"peek-out.md" is, or passes through, a symbolic link that leads outside the vault, where jarvis does not read`},
		{"../secret.md", "give a path relative to the vault folder"},
	} {
		text, isErr := call(t, cs, mcp.ToolReadNote, map[string]any{"path": tc.path}, nil)
		if !isErr || !strings.Contains(text, tc.want) {
			t.Errorf("read-note %q: %v %q; want %q", tc.path, isErr, text, tc.want)
		}
		if tc.path == "peek-out.md" && strings.Contains(text, "give a path relative") {
			t.Errorf("read-note %q asks for the form it was given in: %q", tc.path, text)
		}
		sharedtest.CheckWords(t, "read-note", text)
	}
}

// TestReadNoteSaysAPathNoFileCanHave: a path holding a NUL character or
// a name longer than a disk allows names no note (it may still be a title
// or an alias, looked up next), and is not said to lead outside the vault
// or to be excluded, which it does not and is not. (A path over 1000
// characters is refused by the tool's schema first.)
func TestReadNoteSaysAPathNoFileCanHave(t *testing.T) {
	v := exampleVault(t)
	cs := connect(t, realBackend(t, filepath.Join(t.TempDir(), "j.db"), true, v))
	for _, tc := range []struct{ path, want string }{
		{"Water.md\x00.txt", "no note matches"},
		{strings.Repeat("x", 997) + ".md", "no note matches"},
	} {
		text, isErr := call(t, cs, mcp.ToolReadNote, map[string]any{"path": tc.path}, nil)
		if !isErr || !strings.Contains(text, tc.want) || strings.Contains(text, "excluded") || strings.Contains(text, "outside") {
			t.Errorf("read-note %.20q: %v %q; want %q", tc.path, isErr, text, tc.want)
		}
	}
}

// TestReadNoteReadsABlockOrSectionAsALinkWritesIt: read-note given a path
// in a link's form, Note#Heading or Note#^block, or a heading of ^block,
// answers with that part of the note, as the link shows it.
func TestReadNoteReadsABlockOrSectionAsALinkWritesIt(t *testing.T) {
	v := exampleVault(t)
	sharedtest.WriteFile(t, v.Path, "Kitchen Renovation.md", "---\ntags: [home]\n---\n# Kitchen Renovation\n\nIntro words.\n\n## Tasks\n\n- [ ] call the plumber\n- [ ] move the gas line ^gasline\n\nA paragraph\nover two lines. ^para\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\n^table\n")
	cs := connect(t, realBackend(t, filepath.Join(t.TempDir(), "j.db"), true, v))
	for _, tc := range []struct {
		args      map[string]any
		want, not string
	}{
		{map[string]any{"path": "Kitchen Renovation#^gasline"}, "- [ ] move the gas line ^gasline", "call the plumber"},
		{map[string]any{"path": "Kitchen Renovation", "heading": "^gasline"}, "- [ ] move the gas line ^gasline", "call the plumber"},
		{map[string]any{"path": "Kitchen Renovation#^para"}, "A paragraph\nover two lines. ^para", "gas line"},
		{map[string]any{"path": "Kitchen Renovation#^table"}, "| 1 | 2 |", "paragraph"},
		{map[string]any{"path": "Kitchen Renovation#Tasks"}, "call the plumber", "Intro words"},
	} {
		var out mcp.ReadNoteOutput
		text, isErr := call(t, cs, mcp.ToolReadNote, tc.args, &out)
		if isErr || !strings.Contains(out.Content, tc.want) || strings.Contains(out.Content, tc.not) || out.Path != "Kitchen Renovation.md" {
			t.Errorf("read-note %v: %v, content %q (%.200s)", tc.args, isErr, out.Content, text)
		}
	}
	text, isErr := call(t, cs, mcp.ToolReadNote, map[string]any{"path": "Kitchen Renovation#^nosuch"}, nil)
	if !isErr || !strings.Contains(text, "the note has no block ^nosuch; its blocks are ^gasline, ^para, ^table") {
		t.Errorf("a block the note lacks: %v %q", isErr, text)
	}
}

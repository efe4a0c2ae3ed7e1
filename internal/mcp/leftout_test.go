package mcp_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/jarvis-mcp/jarvis/internal/config"
	"github.com/jarvis-mcp/jarvis/internal/mcp"
	"github.com/jarvis-mcp/jarvis/internal/sharedtest"
)

// obsidianExcludedVault is a writable vault whose config has no exclude
// patterns and whose Obsidian settings exclude Archive/ and Templates/,
// with daily notes made from a template kept in Templates/.
func obsidianExcludedVault(t *testing.T) config.Vault {
	t.Helper()
	dir := t.TempDir()
	sharedtest.WriteFile(t, dir, ".obsidian/app.json", `{"userIgnoreFilters":["Archive/","Templates/"]}`)
	sharedtest.WriteFile(t, dir, ".obsidian/daily-notes.json", `{"format":"YYYY-MM-DD","folder":"Journal","template":"Templates/Journal du jour"}`)
	sharedtest.WriteFile(t, dir, "Templates/Journal du jour.md", "# {{title}}\n## Idées\n")
	sharedtest.WriteFile(t, dir, "Archive/Vieille idée.md", "# Vieille idée\n")
	sharedtest.WriteFile(t, dir, "Notes/Idée.md", "# Idée\n")
	return config.Vault{Name: "roman", Path: dir, Write: true}.WithObsidianExclude()
}

// TestLeftOutPathsNameTheRule: read-note, create-note and periodic-note
// refuse a path Obsidian's excluded files leave out by naming that
// setting and its filter, not every rule there is.
func TestLeftOutPathsNameTheRule(t *testing.T) {
	v := obsidianExcludedVault(t)
	cs := connect(t, realBackend(t, filepath.Join(t.TempDir(), "j.db"), true, v))
	const rule = `because of Obsidian's excluded files ("Archive/", in .obsidian/app.json)`
	for _, c := range []struct {
		tool string
		args map[string]any
		want string
	}{
		{mcp.ToolReadNote, map[string]any{"vault": "roman", "path": "Archive/Vieille idée.md"},
			"that file is left out of jarvis " + rule + ", so it cannot be read; search-vault finds the notes that can"},
		{mcp.ToolCreateNote, map[string]any{"vault": "roman", "path": "Archive/Nouvelle idée.md", "content": "# x\n"},
			`"Archive/Nouvelle idée.md" is left out of the vault ` + rule + ": jarvis does not write what it does not index; choose a path elsewhere"},
	} {
		text, isErr := call(t, cs, c.tool, c.args, nil)
		if !isErr || !strings.Contains(text, c.want) || strings.Contains(text, "node_modules") {
			t.Errorf("%s %v: %v %q; want it refused saying %q", c.tool, c.args, isErr, text, c.want)
		}
		sharedtest.CheckWords(t, c.tool, text)
	}

	sharedtest.WriteFile(t, v.Path, ".obsidian/daily-notes.json", `{"format":"YYYY-MM-DD","folder":"Archive"}`)
	ps := connect(t, periodicServer(t, v))
	text, isErr := call(t, ps, mcp.ToolPeriodicNote, map[string]any{"vault": "roman", "date": "2026-11-29"}, nil)
	if want := `the daily note's path "Archive/2026-11-29.md" is left out of jarvis ` + rule + ", so it cannot be read"; !isErr || !strings.Contains(text, want) {
		t.Errorf("periodic-note in an excluded folder: %v %q; want it refused saying %q", isErr, text, want)
	}
}

// TestPeriodicNoteTemplateInObsidiansExcludedFiles: a template kept in a
// folder Obsidian's excluded files list is used, as Obsidian uses it: the
// answer on a note not written yet names it without a warning, and the
// append makes the note from it. A template the config's own exclude
// patterns keep out is not read, and the answer says so before the
// append, naming the pattern, as the append then does.
func TestPeriodicNoteTemplateInObsidiansExcludedFiles(t *testing.T) {
	v := obsidianExcludedVault(t)
	b, _ := periodicWriter(t, v)
	cs := connect(t, b)
	var out mcp.PeriodicNoteOutput
	text, isErr := call(t, cs, mcp.ToolPeriodicNote, map[string]any{"vault": "roman", "date": "2026-11-29"}, &out)
	if isErr || out.Exists || len(out.Warnings) > 0 || !strings.Contains(text, `with the template "Templates/Journal du jour"`) || strings.Contains(text, "cannot be used") {
		t.Fatalf("preview: %+v\n%s", out, text)
	}
	text, isErr = call(t, cs, mcp.ToolPeriodicNote, map[string]any{"vault": "roman", "date": "2026-11-29", "append": "- Idée\n"}, &out)
	const rel = "Journal/2026-11-29.md"
	if isErr || out.Written != "created" || len(out.Warnings) > 0 || readFile(t, v.Path, rel) != "# 2026-11-29\n## Idées\n- Idée\n" {
		t.Fatalf("create: %+v\n%s\nthe note:\n%q", out, text, readFile(t, v.Path, rel))
	}
	if !strings.Contains(text, "Created `"+rel+"` from the template `Templates/Journal du jour.md`") {
		t.Errorf("the text does not say what was made:\n%s", text)
	}

	kept := v
	kept.Path = t.TempDir()
	sharedtest.CopyTree(t, v.Path, kept.Path)
	kept.Exclude = append([]string{"Templates/**"}, v.Exclude...)
	b, _ = periodicWriter(t, kept)
	cs = connect(t, b)
	const why = `the template "Templates/Journal du jour.md", from the Daily notes settings in .obsidian/daily-notes.json, cannot be used (it is left out of jarvis because of the vault's exclude pattern "Templates/**" (in the config file)), so a note created with append would start empty`
	text, isErr = call(t, cs, mcp.ToolPeriodicNote, map[string]any{"vault": "roman", "date": "2026-11-30"}, &out)
	if isErr || len(out.Warnings) != 1 || out.Warnings[0] != why || !strings.Contains(text, `with the template "Templates/Journal du jour", which cannot be used: see the warning`) {
		t.Fatalf("preview of an unusable template: %+v\n%s", out, text)
	}
	sharedtest.CheckWords(t, "preview", text)
	text, isErr = call(t, cs, mcp.ToolPeriodicNote, map[string]any{"vault": "roman", "date": "2026-11-30", "append": "- Idée\n"}, &out)
	if isErr || out.Written != "created" || len(out.Warnings) != 1 || !strings.Contains(out.Warnings[0], `was not used (it is left out of jarvis because of the vault's exclude pattern "Templates/**" (in the config file)), so the note was started empty`) {
		t.Fatalf("create without its template: %+v\n%s", out, text)
	}
}

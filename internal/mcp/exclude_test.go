package mcp_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	mcpsdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/jarvis-mcp/jarvis/internal/mcp"
	"github.com/jarvis-mcp/jarvis/internal/vault"
)

// TestExcludedNoteIsNowhere is the seam of the exclusion rule: a note
// indexed before its folder was excluded (the index still holds it, as
// until the next sync, or as another process with other rules keeps it)
// is left out by the scan and by every tool and resource of a server
// whose vault excludes it, each answering by the same rule.
func TestExcludedNoteIsNowhere(t *testing.T) {
	v := exampleVault(t)
	secret := filepath.Join(v.Path, "Secret", "Plan.md")
	if err := os.MkdirAll(filepath.Dir(secret), 0o755); err != nil {
		t.Fatal(err)
	}
	// word is searched for; hidden, never asked for, is only in the note.
	const word, hidden = "zanzibarroastery", "quietmarketplace"
	text := "# Plan\n\nThe " + word + " plan: water, beans and [[Water]] for the " + hidden + ".\n"
	if err := os.WriteFile(secret, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	db := filepath.Join(t.TempDir(), "j.db")
	// Indexed without the pattern, the note is found.
	before := connect(t, realBackend(t, db, true, v))
	if got := callJSON(t, before, mcp.ToolSearchVault, map[string]any{"query": word}); !strings.Contains(got, "Secret/Plan.md") {
		t.Fatalf("the note is not indexed: %s", got)
	}

	v.Exclude = []string{"Secret"}
	files, _, err := vault.Scan(context.Background(), v.Path, v.Exclude)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		if f.Path == "Secret/Plan.md" {
			t.Fatal("the scan lists the excluded note")
		}
	}
	cs := connect(t, realBackend(t, db, false, v))
	for _, c := range []struct {
		tool string
		args map[string]any
	}{
		{mcp.ToolSearchVault, map[string]any{"query": word}},
		{mcp.ToolSearchVault, map[string]any{"query": "Plan", "search_content": false}},
		{mcp.ToolSearchSemantic, map[string]any{"query": word + " plan"}},
		{mcp.ToolSearchCombined, map[string]any{"query": word}},
		{mcp.ToolBuildContext, map[string]any{"query": word + " water"}},
		{mcp.ToolBuildContext, map[string]any{"query": "water", "paths": []string{"Water.md"}}},
		{mcp.ToolReadNote, map[string]any{"vault": "coffee", "path": "Secret/Plan.md"}},
		{mcp.ToolReadNote, map[string]any{"path": "Water.md"}},
		{mcp.ToolRelatedNotes, map[string]any{"path": "Water.md"}},
		{mcp.ToolSearchGraph, map[string]any{"query_note_path": "Water.md", "depth": 2}},
		{mcp.ToolSearchGraph, map[string]any{"query_note_path": "Secret/Plan.md"}},
	} {
		if got := callJSON(t, cs, c.tool, c.args); strings.Contains(got, "Secret/Plan") || strings.Contains(got, hidden) {
			t.Errorf("%s %v answers with the excluded note: %s", c.tool, c.args, clipLog(got))
		}
	}
	ctx := context.Background()
	for page, cursor := 0, ""; page == 0 || cursor != ""; page++ {
		res, err := cs.ListResources(ctx, &mcpsdk.ListResourcesParams{Cursor: cursor})
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range res.Resources {
			if strings.Contains(r.URI, "Secret") {
				t.Errorf("resources/list lists %s", r.URI)
			}
		}
		cursor = res.NextCursor
	}
	if _, err := cs.ReadResource(ctx, &mcpsdk.ReadResourceParams{URI: mcp.NoteURI("coffee", "Secret/Plan.md")}); err == nil {
		t.Error("resources/read reads the excluded note")
	}
}

// callJSON calls a tool and returns its whole result as JSON: text,
// structured content and links.
func callJSON(t *testing.T, cs *mcpsdk.ClientSession, name string, args map[string]any) string {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcpsdk.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("%s: protocol error %v", name, err)
	}
	data, err := json.Marshal(res)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

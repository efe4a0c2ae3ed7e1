package mcp_test

import (
	"bytes"
	"context"
	"log/slog"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jarvis-mcp/jarvis/internal/config"
	"github.com/jarvis-mcp/jarvis/internal/index"
	"github.com/jarvis-mcp/jarvis/internal/mcp"
)

// TestAnswerWording: counts agree with their nouns, and states read as
// words: "the best 1 note", "being indexed" (not "index indexing"),
// "none for help" (not "help in none").
func TestAnswerWording(t *testing.T) {
	v := exampleVault(t)
	b := realBackend(t, filepath.Join(t.TempDir(), "j.db"), true, v)
	cs := connect(t, b)
	text, _ := call(t, cs, mcp.ToolSearchVault, map[string]any{"query": "coffee", "limit": 1}, nil)
	if !strings.Contains(text, "the best 1 note (more matched)") {
		t.Errorf("search with limit 1:\n%s", text)
	}
	deps := startServer(t, config.Config{DBPath: filepath.Join(t.TempDir(), "j.db"), Vaults: []config.Vault{v},
		Embedder: config.Embedder{Provider: config.ProviderLexical}})
	building := connect(t, indexState{deps, index.State{State: index.StateIndexing, Vault: v.Name}})
	text, _ = call(t, building, mcp.ToolListVaults, nil, nil)
	if !strings.Contains(text, "; being indexed") || strings.Contains(text, "index indexing") {
		t.Errorf("list-vaults:\n%s", text)
	}
	text, _ = call(t, building, mcp.ToolHealthStatus, nil, nil)
	if !strings.Contains(text, "Vectors for semantic search are not loaded for "+v.Name+".") {
		t.Errorf("health-status:\n%s", text)
	}
}

// TestSessionsAreLoggedAtDebug: the SDK's line for each session connected
// (with an empty id over stdio) is not among the INFO lines a user reads.
func TestSessionsAreLoggedAtDebug(t *testing.T) {
	var logged bytes.Buffer
	log := slog.New(slog.NewTextHandler(&logged, &slog.HandlerOptions{Level: slog.LevelInfo}))
	b := realBackend(t, filepath.Join(t.TempDir(), "j.db"), true, exampleVault(t))
	cs := connectWith(t, b, mcp.Options{Version: "test", Logger: log})
	if _, err := cs.ListTools(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(logged.String(), "session") {
		t.Fatalf("logged at INFO:\n%s", logged.String())
	}
}

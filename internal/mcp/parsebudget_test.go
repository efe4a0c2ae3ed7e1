package mcp_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	mcpsdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/jarvis-mcp/jarvis/internal/config"
	"github.com/jarvis-mcp/jarvis/internal/mcp"
	"github.com/jarvis-mcp/jarvis/internal/sharedtest"
	"github.com/jarvis-mcp/jarvis/internal/vault"
)

// slowVault is a vault holding Slow.md, a slowNote of mb MB.
func slowVault(t *testing.T, mb int) config.Vault {
	t.Helper()
	root := t.TempDir()
	if err := os.WriteFile(filepath.Join(root, "Slow.md"), sharedtest.SlowMarkdown(mb<<20), 0o644); err != nil {
		t.Fatal(err)
	}
	return config.Vault{Name: "v", Path: root}
}

// TestReadNoteOverItsParseBudget reads a note the parser gives up on: the
// text comes back, with the parser's warning instead of its links.
func TestReadNoteOverItsParseBudget(t *testing.T) {
	v := slowVault(t, 1)
	cs := connect(t, &fake{Vaults: []config.Vault{v}, Parse: vault.NewParser().Parse})
	var out mcp.ReadNoteOutput
	sharedtest.Within(t, "reading the note", func() {
		if text, isErr := call(t, cs, mcp.ToolReadNote, map[string]any{"path": "Slow.md"}, &out); isErr {
			t.Errorf("read-note failed: %s", text)
		}
	})
	if !strings.HasPrefix(out.Content, "[a](b \"x\n") || len(out.Links) != 0 {
		t.Errorf("content %.20q, %d links; want the text and no links", out.Content, len(out.Links))
	}
	if len(out.Warnings) != 1 || !strings.Contains(out.Warnings[0], "too complex to parse") {
		t.Errorf("warnings %q", out.Warnings)
	}
}

// TestReadNoteStopsParsingWhenCancelled cancels a read-note whose parse
// would take minutes: the parse ends with the request's context.
func TestReadNoteStopsParsingWhenCancelled(t *testing.T) {
	v := slowVault(t, 3)
	p := vault.NewParser()
	parsed := make(chan error, 1)
	started := make(chan struct{})
	cs := connect(t, &fake{Vaults: []config.Vault{v}, Parse: func(ctx context.Context, path string, src []byte) (vault.Note, error) {
		close(started)
		n, err := p.Parse(ctx, path, src)
		parsed <- err
		return n, err
	}})
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		_, _ = cs.CallTool(ctx, &mcpsdk.CallToolParams{Name: mcp.ToolReadNote, Arguments: map[string]any{"path": "Slow.md"}})
	}()
	<-started
	cancel()
	select {
	case err := <-parsed:
		if !errors.Is(err, context.Canceled) {
			t.Errorf("parse ended with %v, want context.Canceled", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("still parsing 30 s after the call was cancelled")
	}
}

// TestStdioCloseStopsParsing closes stdin while a read-note parses a note
// whose parse, budget and all, outlasts the drain grace: the request is
// cancelled, its parse stops and the server ends.
func TestStdioCloseStopsParsing(t *testing.T) {
	v := slowVault(t, 6)
	p := vault.NewParser()
	parsed := make(chan error, 1)
	started := make(chan struct{})
	b := &fake{Vaults: []config.Vault{v}, Parse: func(ctx context.Context, path string, src []byte) (vault.Note, error) {
		close(started)
		n, err := p.Parse(ctx, path, src)
		parsed <- err
		return n, err
	}}
	peer := startStdio(t, b, mcp.StdioTransport)
	peer.initialize()
	peer.send(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"read-note","arguments":{"path":"Slow.md"}}}`)
	<-started
	peer.in.Close()
	select {
	case err := <-parsed:
		if !errors.Is(err, context.Canceled) {
			t.Errorf("parse ended with %v, want context.Canceled", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("still parsing 30 s after stdin closed")
	}
	select {
	case <-peer.done:
	case <-time.After(30 * time.Second):
		t.Fatal("the server did not end after stdin closed")
	}
}

// TestReadNoteTakesTheStoredParse reads a note the index stored from the
// same content: the stored note answers and the note is not parsed again.
// Once the file changes, its hash no longer matches and it is parsed.
func TestReadNoteTakesTheStoredParse(t *testing.T) {
	v := slowVault(t, 0)
	path := filepath.Join(v.Path, "Slow.md")
	if err := os.WriteFile(path, []byte("# Stored\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256([]byte("# Stored\n"))
	var parsed int
	cs := connect(t, &fake{Vaults: []config.Vault{v},
		StoredNote: func(_ context.Context, vaultName, rel, hash string) (vault.Note, bool, error) {
			if vaultName != "v" || rel != "Slow.md" || hash != hex.EncodeToString(sum[:]) {
				return vault.Note{}, false, nil
			}
			return vault.Note{Title: "From the index", Headings: []vault.Heading{{Level: 1, Text: "Stored", Line: 1}}}, true, nil
		},
		Parse: func(ctx context.Context, rel string, src []byte) (vault.Note, error) {
			parsed++
			return vault.NewParser().Parse(ctx, rel, src)
		},
	})
	var out mcp.ReadNoteOutput
	if text, isErr := call(t, cs, mcp.ToolReadNote, map[string]any{"path": "Slow.md"}, &out); isErr {
		t.Fatal(text)
	}
	if out.Title != "From the index" || parsed != 0 {
		t.Errorf("title %q after %d parses; want the stored note, not parsed", out.Title, parsed)
	}
	if err := os.WriteFile(path, []byte("# Edited\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if text, isErr := call(t, cs, mcp.ToolReadNote, map[string]any{"path": "Slow.md"}, &out); isErr {
		t.Fatal(text)
	}
	if out.Title != "Slow" || parsed != 1 || len(out.Headings) != 1 || out.Headings[0].Text != "Edited" {
		t.Errorf("title %q, headings %+v after %d parses; want the edited note parsed", out.Title, out.Headings, parsed)
	}
}

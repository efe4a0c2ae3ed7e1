package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	mcpsdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/jarvis-mcp/jarvis/internal/config"
	"github.com/jarvis-mcp/jarvis/internal/container"
	"github.com/jarvis-mcp/jarvis/internal/mcp"
	"github.com/jarvis-mcp/jarvis/internal/sharedtest"
)

// liveServer runs the server as `jarvis mcp` does, background index and
// watcher included, over in-memory transports.
func liveServer(t *testing.T, v config.Vault) *mcpsdk.ClientSession {
	t.Helper()
	cfg := config.Config{DBPath: filepath.Join(t.TempDir(), "j.db"), Vaults: []config.Vault{v}, Embedder: config.Embedder{Provider: config.ProviderLexical}}
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	var deps container.MCPDeps
	app := container.NewMCPApp(cfg, log, &deps)
	if err := container.Err(app); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	if err := app.Start(ctx); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		keepIndexed(ctx, deps, cfg.Vaults, cfg.DBPath, true, log)
	}()
	t.Cleanup(func() {
		cancel()
		<-done
		app.Stop(context.Background())
	})
	server := deps.NewServer("test", log)
	st, ct := mcpsdk.NewInMemoryTransports()
	ss, err := server.Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ss.Close() })
	cs, err := mcpsdk.NewClient(&mcpsdk.Implementation{Name: "test", Version: "1"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

func callTool(t *testing.T, cs *mcpsdk.ClientSession, name string, args map[string]any, out any) bool {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcpsdk.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	if res.IsError {
		return false
	}
	data, _ := json.Marshal(res.StructuredContent)
	if err := json.Unmarshal(data, out); err != nil {
		t.Fatal(err)
	}
	return true
}

// eventually polls check until it holds or the deadline passes. The
// deadline is generous for a loaded CI machine; the latency itself is
// measured by BenchmarkMCPEditVisible.
func eventually(t *testing.T, what string, check func() bool) {
	t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for !check() {
		if time.Now().After(deadline) {
			t.Fatalf("%s did not happen within 15 s", what)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func copyExampleVault(t *testing.T) config.Vault {
	t.Helper()
	src := filepath.Join("..", "..", "examples", "vault")
	dst := filepath.Join(t.TempDir(), "vault")
	sharedtest.CopyTree(t, src, dst)
	return config.Vault{Name: "coffee", Path: dst}
}

func TestMCPKeepsTheIndexLive(t *testing.T) {
	v := copyExampleVault(t)
	cs := liveServer(t, v)
	find := func(q string) []string {
		var out mcp.SearchOutput
		if !callTool(t, cs, mcp.ToolSearchVault, map[string]any{"query": q}, &out) {
			return nil
		}
		var paths []string
		for _, r := range out.Results {
			paths = append(paths, r.Path)
		}
		return paths
	}
	eventually(t, "the first background index", func() bool { return len(find("french press")) > 0 })

	t.Run("an edit becomes searchable", func(t *testing.T) {
		p := filepath.Join(v.Path, "Water.md")
		data, _ := os.ReadFile(p)
		if err := os.WriteFile(p, append(data, "\nZanzibarite is a mineral I made up.\n"...), 0o644); err != nil {
			t.Fatal(err)
		}
		eventually(t, "the edit showing in search-vault", func() bool {
			got := find("zanzibarite")
			return len(got) == 1 && got[0] == "Water.md"
		})
	})

	t.Run("a rename keeps links resolved", func(t *testing.T) {
		// Moved to another folder, the note keeps its name: links written
		// [[Kettle]] must follow it to its new path.
		if err := os.MkdirAll(filepath.Join(v.Path, "Archive"), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Rename(filepath.Join(v.Path, "Gear", "Kettle.md"), filepath.Join(v.Path, "Archive", "Kettle.md")); err != nil {
			t.Fatal(err)
		}
		eventually(t, "links to the moved note resolving to its new path", func() bool {
			var g mcp.GraphOutput
			if !callTool(t, cs, mcp.ToolSearchGraph, map[string]any{"query_note_path": "Archive/Kettle.md", "depth": 1, "direction": "in"}, &g) {
				return false
			}
			for _, e := range g.Edges {
				if e.To >= 0 && e.To < len(g.Nodes) && g.Nodes[e.To].Path == "Archive/Kettle.md" {
					return true
				}
			}
			return false
		})
	})

	t.Run("500 files rewritten at once settle", func(t *testing.T) {
		dir := filepath.Join(v.Path, "Burst")
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		for i := range 500 {
			body := fmt.Sprintf("# Burst %d\n\nburstword%d links to [[Water]].\n", i, i)
			if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("Note %03d.md", i)), []byte(body), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		eventually(t, "all 500 new notes indexed", func() bool {
			var out mcp.ListVaultsOutput
			if !callTool(t, cs, mcp.ToolListVaults, nil, &out) || len(out.Vaults) != 1 {
				return false
			}
			return out.Vaults[0].Notes == 17+500 && out.Vaults[0].IndexState == "ready"
		})
		if got := find("burstword499"); len(got) != 1 || !strings.HasSuffix(got[0], "Note 499.md") {
			t.Fatalf("last burst note: %v", got)
		}
		var h mcp.HealthOutput
		callTool(t, cs, mcp.ToolHealthStatus, nil, &h)
		for _, c := range h.Checks {
			if c.Status == "fail" {
				t.Fatalf("after the burst: %+v", c)
			}
		}
	})
}

// TestMCPWatchesAVaultFolderThatComesBack: the vault folder renamed away
// (a git checkout, a sync client, a remount) and back is watched again
// without a restart. While it is away, answers say why, once,
// and the notes indexed stay searchable; once it is back, an edit is
// indexed.
func TestMCPWatchesAVaultFolderThatComesBack(t *testing.T) {
	v := copyExampleVault(t)
	cs := liveServer(t, v)
	search := func(q string) (mcp.SearchOutput, bool) {
		var out mcp.SearchOutput
		ok := callTool(t, cs, mcp.ToolSearchVault, map[string]any{"query": q}, &out)
		return out, ok
	}
	eventually(t, "the first background index", func() bool {
		out, ok := search("french press")
		return ok && len(out.Results) > 0
	})
	if err := os.Rename(v.Path, v.Path+"-away"); err != nil {
		t.Fatal(err)
	}
	eventually(t, "answers saying the vault's changes are not seen", func() bool {
		out, ok := search("french press")
		// Once: in the answer's note, with its fix, not again as a
		// degradation.
		return ok && out.Index.Unwatched["coffee"] != "" && !strings.Contains(out.DegradedReason, "is gone") &&
			strings.Contains(strings.Join(out.Notes, "\n"), `the folder of vault "coffee" (`+v.Path+`) does not exist`)
	})
	if out, _ := search("french press"); len(out.Results) == 0 {
		t.Errorf("notes dropped while the vault folder was away: %+v", out)
	}
	if err := os.Rename(v.Path+"-away", v.Path); err != nil {
		t.Fatal(err)
	}
	eventually(t, "answers no longer degraded once the folder is back", func() bool {
		out, ok := search("french press")
		return ok && !out.Degraded && len(out.Results) > 0
	})
	p := filepath.Join(v.Path, "Water.md")
	data, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, append(data, "\nZanzibarite is a mineral I made up.\n"...), 0o644); err != nil {
		t.Fatal(err)
	}
	eventually(t, "an edit after the return showing in search-vault", func() bool {
		out, ok := search("zanzibarite")
		return ok && len(out.Results) == 1 && out.Results[0].Path == "Water.md"
	})
}

//go:build unix

package main

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	mcpsdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/jarvis-mcp/jarvis/internal/embed/embedtest"
	"github.com/jarvis-mcp/jarvis/internal/embed/hub"
	"github.com/jarvis-mcp/jarvis/internal/embed/hub/hubtest"
	"github.com/jarvis-mcp/jarvis/internal/mcp"
	"github.com/jarvis-mcp/jarvis/internal/sharedtest"
)

// TestSetupEntryRunsWithOnlyHomeAndPath is the user whose shell moves the
// cache and config folders (XDG_CACHE_HOME, XDG_CONFIG_HOME): the model is
// pulled into that cache, the config file found in that config folder
// names it as the embedder, and `jarvis setup claude` writes the entry.
// Claude Desktop starts the entry's command with HOME and PATH and the
// entry's "env", nothing else; started so, the server must answer
// search-semantic with the pulled model.
func TestSetupEntryRunsWithOnlyHomeAndPath(t *testing.T) {
	h := hubtest.New(t)
	h.Add("jarvis-test/tiny-bert", "main", repoFiles(t, embedtest.TinyBERT(t, "mean_norm_f32"))...)
	bin := buildJarvis(t)
	root := t.TempDir()
	home := filepath.Join(root, "home")
	cache, confDir := filepath.Join(root, "elsewhere", "cache"), filepath.Join(root, "elsewhere", "config")
	vault := filepath.Join(root, "Notes")
	sharedtest.WriteFile(t, vault, "Coffee.md", "# Coffee\nGrind the beans coarse for a French press.\n")
	sharedtest.WriteFile(t, vault, "Tea.md", "# Tea\nSteep green tea for two minutes, then [[Coffee]].\n")
	sharedtest.WriteFile(t, filepath.Join(confDir, "jarvis"), "config.yaml",
		"database: "+filepath.Join(root, "j.db")+"\nvaults:\n  - path: "+vault+"\nembedder:\n  provider: jarvis-test/tiny-bert\n")
	if err := os.MkdirAll(home, 0o755); err != nil {
		t.Fatal(err)
	}
	path := "PATH=" + os.Getenv("PATH")
	shell := []string{"HOME=" + home, path, "XDG_CACHE_HOME=" + cache, "XDG_CONFIG_HOME=" + confDir,
		hub.EnvEndpoint + "=" + h.URL, hub.EnvToken + "=hf_not_copied"}
	run := func(args ...string) string {
		t.Helper()
		cmd := exec.Command(bin, args...)
		cmd.Env = shell
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("jarvis %s: %v\n%s", strings.Join(args, " "), err, out)
		}
		return string(out)
	}
	run("model", "pull", "jarvis-test/tiny-bert")
	if _, err := os.Stat(filepath.Join(cache, "jarvis", "models", "jarvis-test--tiny-bert")); err != nil {
		t.Fatalf("the model was not pulled into XDG_CACHE_HOME: %v", err)
	}
	run("index")
	run("setup", "claude")

	// Claude Desktop's config file, where setup wrote it on Linux; on
	// macOS it is under HOME.
	claude, err := claudeDesktopConfigPath(runtime.GOOS, func(k string) string {
		return map[string]string{"XDG_CONFIG_HOME": confDir}[k]
	}, home)
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(claude)
	if err != nil {
		t.Fatal(err)
	}
	var file struct {
		MCPServers map[string]serverEntry `json:"mcpServers"`
	}
	if err := json.Unmarshal(data, &file); err != nil {
		t.Fatalf("%s: %v", claude, err)
	}
	entry, ok := file.MCPServers["jarvis"]
	if !ok {
		t.Fatalf("no jarvis entry in %s:\n%s", claude, data)
	}
	if strings.Contains(string(data), "hf_not_copied") {
		t.Fatalf("HF_TOKEN was copied into %s", claude)
	}

	// As Claude Desktop starts it: HOME, PATH and the entry's env only.
	cmd := exec.Command(entry.Command, entry.Args...)
	cmd.Env = []string{"HOME=" + home, path}
	for k, v := range entry.Env {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	cs, err := mcpsdk.NewClient(&mcpsdk.Implementation{Name: "test", Version: "1"}, nil).
		Connect(context.Background(), &mcpsdk.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	var out mcp.SearchOutput
	deadline := time.Now().Add(60 * time.Second)
	for {
		if !callTool(t, cs, mcp.ToolSearchSemantic, map[string]any{"query": "green tea"}, &out) {
			t.Fatal("search-semantic answered with an error")
		}
		if !out.Degraded && len(out.Results) > 0 || time.Now().After(deadline) {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	if out.Degraded || len(out.Results) == 0 || !strings.HasPrefix(out.Embedder, "local/jarvis-test/tiny-bert/") {
		t.Fatalf("search-semantic, from the entry %+v: degraded %v (%s), %d results, embedder %q; want answers from the pulled model",
			entry, out.Degraded, out.DegradedReason, len(out.Results), out.Embedder)
	}
}

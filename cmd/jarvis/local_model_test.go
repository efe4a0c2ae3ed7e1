package main

import (
	"context"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
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

// repoFiles are the files of a model folder as a fake hub serves them,
// the weights through LFS as on the real hub.
func repoFiles(t *testing.T, dir string) []hubtest.File {
	t.Helper()
	var files []hubtest.File
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		files = append(files, hubtest.File{Path: filepath.ToSlash(rel), Data: data, LFS: strings.HasSuffix(p, ".safetensors")})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

// serve starts `jarvis mcp` as its own process, as a client does, with
// env and args, and returns the session.
func serve(t *testing.T, env []string, args ...string) (*mcpsdk.ClientSession, *exec.Cmd) {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe)
	cmd.Env = append(env, "JARVIS_TEST_ARGS="+strings.Join(append([]string{"mcp"}, args...), "\x1f"))
	cs, err := mcpsdk.NewClient(&mcpsdk.Implementation{Name: "test", Version: "1"}, nil).
		Connect(context.Background(), &mcpsdk.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs, cmd
}

// TestLocalModelFromPullToSearch is the path a new user takes: pull a
// model from the hub (a stand-in on loopback), index with it, serve, and
// search-semantic answers with that model's vectors, naming it.
func TestLocalModelFromPullToSearch(t *testing.T) {
	h := hubtest.New(t)
	h.Add("jarvis-test/tiny-bert", "main", repoFiles(t, embedtest.TinyBERT(t, "mean_norm_f32"))...)
	root := t.TempDir()
	models := filepath.Join(root, "models")
	vars := map[string]string{hub.EnvModels: models, hub.EnvEndpoint: h.URL}

	code, stdout, stderr := jarvis(t, vars, "model", "pull", "jarvis-test/tiny-bert")
	if code != 0 {
		t.Fatalf("pull: exit %d\n%s%s", code, stdout, stderr)
	}
	if !strings.Contains(stdout, "jarvis now uses jarvis-test/tiny-bert") {
		t.Fatalf("pull with no embedder configured does not say the model is now used:\n%s", stdout)
	}

	vault := t.TempDir()
	sharedtest.WriteFile(t, vault, "Coffee.md", "# Coffee\nGrind the beans coarse for a French press.\n")
	sharedtest.WriteFile(t, vault, "Tea.md", "# Tea\nSteep green tea for two minutes, then [[Coffee]].\n")
	db := filepath.Join(root, "j.db")
	code, stdout, stderr = jarvis(t, vars, "index", "--vault", vault, "--db", db)
	if code != 0 {
		t.Fatalf("index: exit %d\n%s%s", code, stdout, stderr)
	}
	if n := countVectors(t, db); n == 0 {
		t.Fatal("index stored no vectors with the pulled model")
	}

	env := append(cleanEnv(root), hub.EnvModels+"="+models)
	cs, _ := serve(t, env, "--vault", vault, "--db", db, "--watch=false")
	var out mcp.SearchOutput
	deadline := time.Now().Add(30 * time.Second)
	for {
		if !callTool(t, cs, mcp.ToolSearchSemantic, map[string]any{"query": "green tea"}, &out) {
			t.Fatal("search-semantic answered with an error")
		}
		if !out.Degraded && len(out.Results) > 0 || time.Now().After(deadline) {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	if out.Degraded || len(out.Results) == 0 {
		t.Fatalf("search-semantic: degraded %v (%s), %d results", out.Degraded, out.DegradedReason, len(out.Results))
	}
	if !strings.HasPrefix(out.Embedder, "local/jarvis-test/tiny-bert/") {
		t.Fatalf("search-semantic's embedder is %q; want the pulled model named", out.Embedder)
	}
}

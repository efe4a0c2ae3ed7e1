package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	mcpsdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/jarvis-mcp/jarvis/internal/embed/embedtest"
	"github.com/jarvis-mcp/jarvis/internal/embed/hub"
	"github.com/jarvis-mcp/jarvis/internal/embed/hub/hubtest"
	"github.com/jarvis-mcp/jarvis/internal/mcp"
	"github.com/jarvis-mcp/jarvis/internal/sharedtest"
)

// cleanEnv is this process's environment without the user's jarvis
// settings: HOME and the XDG folders in dir, no JARVIS_* variables.
func cleanEnv(dir string) []string {
	home := filepath.Join(dir, "home")
	var env []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		if strings.HasPrefix(k, "JARVIS_") || strings.HasPrefix(k, "XDG_") || k == "HOME" || k == "OPENAI_API_KEY" {
			continue
		}
		env = append(env, kv)
	}
	return append(env, "HOME="+home, "XDG_CONFIG_HOME="+filepath.Join(home, "config"),
		"XDG_DATA_HOME="+filepath.Join(home, "data"), "XDG_CACHE_HOME="+filepath.Join(home, "cache"))
}

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

// slowStub is an Ollama stand-in that takes delay over every request and
// records every text it was asked to embed.
type slowStub struct {
	*httptest.Server
	delay time.Duration
	mu    sync.Mutex
	texts map[string]int
}

func newSlowStub(t *testing.T, delay time.Duration) *slowStub {
	t.Helper()
	s := &slowStub{delay: delay, texts: map[string]int{}}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			Input []string `json:"input"`
		}
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		select {
		case <-time.After(s.delay):
		case <-r.Context().Done():
			return
		}
		vecs := make([][]float32, len(req.Input))
		s.mu.Lock()
		for i, text := range req.Input {
			s.texts[text]++
			vecs[i] = []float32{float32(len(text) % 7), 1, float32(strings.Count(text, "e"))}
		}
		s.mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]any{"embeddings": vecs})
	}))
	t.Cleanup(s.Close)
	return s
}

// passages counts the texts embedded, queries (which hold "query") left
// out, and the most times any one was; reset starts the count afresh.
func (s *slowStub) passages(reset bool) (n, most int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for text, k := range s.texts {
		if strings.Contains(text, "query") {
			continue
		}
		n++
		most = max(most, k)
	}
	if reset {
		clear(s.texts)
	}
	return n, most
}

// TestServerEmbedsInTheBackground: `jarvis mcp` on a vault with no vectors
// and a slow embedder answers at once, from the vectors made so far and
// saying how much of the vault that covers; list-vaults shows progress
// advancing; killed in the middle and started again, it goes on from
// where it was without embedding any passage twice.
func TestServerEmbedsInTheBackground(t *testing.T) {
	stub := newSlowStub(t, 400*time.Millisecond)
	root := t.TempDir()
	vault := filepath.Join(root, "vault")
	const notes = 700
	for i := range notes {
		sharedtest.WriteFile(t, vault, fmt.Sprintf("n%03d.md", i), fmt.Sprintf("# Note %d\nThe kettle note number %d, with steep tea and coffee beans.\n", i, i))
	}
	db := filepath.Join(root, "j.db")
	if code, _, stderr := jarvis(t, nil, "index", "--vault", vault, "--db", db, "--no-embed"); code != 0 {
		t.Fatalf("index --no-embed: exit %d: %s", code, stderr)
	}
	env := append(cleanEnv(root), "JARVIS_EMBEDDER=ollama", "JARVIS_EMBED_URL="+stub.URL)
	args := []string{"--vault", vault, "--db", db, "--watch=false"}

	cs, cmd := serve(t, env, args...)
	started := time.Now()
	var out mcp.SearchOutput
	if !callTool(t, cs, mcp.ToolSearchSemantic, map[string]any{"query": "query tea"}, &out) {
		t.Fatal("search-semantic failed while embedding")
	}
	if took := time.Since(started); took > 10*time.Second {
		t.Errorf("the first search took %v; the server must not wait for embedding", took)
	}
	if out.VectorsSearched >= out.Passages && out.Passages > 0 {
		t.Fatalf("the first answer covered %d of %d passages; embedding cannot be done yet", out.VectorsSearched, out.Passages)
	}

	// Progress advances, and answers come from the vectors made so far.
	var seen []int
	var partial mcp.SearchOutput
	eventually(t, "embedding progress and a partial answer", func() bool {
		var lv mcp.ListVaultsOutput
		callTool(t, cs, mcp.ToolListVaults, nil, &lv)
		if e := lv.Index.Embedding; e.State == "embedding" && (len(seen) == 0 || seen[len(seen)-1] != e.Done) {
			seen = append(seen, e.Done)
		}
		callTool(t, cs, mcp.ToolSearchSemantic, map[string]any{"query": "query kettle"}, &partial)
		return len(seen) >= 2 && partial.VectorsSearched > 0
	})
	if partial.Degraded || partial.VectorsSearched >= partial.Passages {
		t.Fatalf("mid-way: degraded %v, %d of %d passages", partial.Degraded, partial.VectorsSearched, partial.Passages)
	}
	if !strings.Contains(strings.Join(partial.Notes, " "), "still being made") {
		t.Errorf("a partial answer does not say so: notes %q", partial.Notes)
	}

	// doctor, another process, sees the vectors being made and how fast.
	_, stdout, _ := jarvis(t, map[string]string{"JARVIS_EMBEDDER": "ollama", "JARVIS_EMBED_URL": stub.URL}, "doctor", "--vault", vault, "--db", db)
	if line := lineOf(t, stdout, "embedder"); !strings.Contains(line, "vectors are being made") || !strings.Contains(line, "left") {
		t.Errorf("doctor while the server embeds: %s", line)
	}

	// Killed mid-way: what was stored stays, and a restart goes on.
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	cs.Close() // the transport waits for the process, once
	if cmd.ProcessState == nil {
		t.Fatal("the killed server was not waited for")
	}
	stored := countVectors(t, db)
	if stored == 0 || stored >= notes {
		t.Fatalf("%d vectors stored when killed; want some of %d", stored, notes)
	}
	// Passages of the batch in flight when killed were embedded but not
	// stored: those are made again, and only those.
	if n, most := stub.passages(true); n < stored || most != 1 {
		t.Fatalf("before the kill %d passages were embedded, one of them %d times; %d were stored", n, most, stored)
	}
	cs, _ = serve(t, env, args...)
	eventually(t, "embedding to finish after the restart", func() bool {
		var lv mcp.ListVaultsOutput
		callTool(t, cs, mcp.ToolListVaults, nil, &lv)
		return lv.Index.Embedding.State == "done"
	})
	if n := countVectors(t, db); n != notes {
		t.Fatalf("%d vectors after the restart finished; want %d", n, notes)
	}
	if n, most := stub.passages(false); n != notes-stored || most != 1 {
		t.Fatalf("after the restart %d passages were embedded, one of them %d times; want each of the %d not stored before, once", n, most, notes-stored)
	}
	if !callTool(t, cs, mcp.ToolSearchSemantic, map[string]any{"query": "query tea"}, &out) || out.VectorsSearched != notes || len(out.Notes) != 0 {
		t.Fatalf("after embedding: %d passages compared, notes %q", out.VectorsSearched, out.Notes)
	}
}

// TestDoctorOnLocalModels: doctor tells a model never pulled from one whose
// files were damaged since, and gives the command that fixes each.
func TestDoctorOnLocalModels(t *testing.T) {
	h := hubtest.New(t)
	h.Add("jarvis-test/tiny-bert", "main", repoFiles(t, embedtest.TinyBERT(t, "mean_norm_f32"))...)
	root := t.TempDir()
	models := filepath.Join(root, "models")
	vault := t.TempDir()
	sharedtest.WriteFile(t, vault, "Tea.md", "# Tea\nSteep green tea for two minutes.\n")
	db := filepath.Join(root, "j.db")

	missing := map[string]string{hub.EnvModels: models, "JARVIS_EMBEDDER": "all-MiniLM-L6-v2"}
	_, stdout, _ := jarvis(t, missing, "doctor", "--vault", vault, "--db", db)
	if line := lineOf(t, stdout, "embedder"); !strings.Contains(stdout, "jarvis model pull all-MiniLM-L6-v2") {
		t.Errorf("doctor with a model never pulled does not say to pull it:\n%s\n%s", line, stdout)
	}

	vars := map[string]string{hub.EnvModels: models, hub.EnvEndpoint: h.URL}
	if code, _, stderr := jarvis(t, vars, "model", "pull", "jarvis-test/tiny-bert"); code != 0 {
		t.Fatalf("pull: %s", stderr)
	}
	if code, _, stderr := jarvis(t, vars, "index", "--vault", vault, "--db", db); code != 0 {
		t.Fatalf("index: %s", stderr)
	}
	_, stdout, _ = jarvis(t, vars, "doctor", "--vault", vault, "--db", db)
	if line := lineOf(t, stdout, "embedder"); !strings.Contains(line, "its 1 passage has a vector") || !strings.Contains(line, "local jarvis-test/tiny-bert") {
		t.Errorf("doctor on a healthy local model: %s", line)
	}
	weights := filepath.Join(models, "jarvis-test--tiny-bert", "model.safetensors")
	data, err := os.ReadFile(weights)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(weights, data[:len(data)-10], 0o644); err != nil {
		t.Fatal(err)
	}
	_, stdout, _ = jarvis(t, vars, "doctor", "--vault", vault, "--db", db)
	if !strings.Contains(stdout, "jarvis model rm jarvis-test/tiny-bert") || !strings.Contains(stdout, "jarvis model pull jarvis-test/tiny-bert") {
		t.Errorf("doctor on damaged model files does not say to pull again:\n%s", stdout)
	}
}

// TestEditWhileEmbeddingGoesFirst: a note written while the server works
// through a long backlog of vectors gets its own within seconds, before
// the backlog is done.
func TestEditWhileEmbeddingGoesFirst(t *testing.T) {
	stub := newSlowStub(t, 300*time.Millisecond)
	root := t.TempDir()
	vault := filepath.Join(root, "vault")
	const notes = 1500
	for i := range notes {
		sharedtest.WriteFile(t, vault, fmt.Sprintf("n%04d.md", i), fmt.Sprintf("# Note %d\nThe kettle note number %d.\n", i, i))
	}
	db := filepath.Join(root, "j.db")
	if code, _, stderr := jarvis(t, nil, "index", "--vault", vault, "--db", db, "--no-embed"); code != 0 {
		t.Fatalf("index --no-embed: exit %d: %s", code, stderr)
	}
	env := append(cleanEnv(root), "JARVIS_EMBEDDER=ollama", "JARVIS_EMBED_URL="+stub.URL)
	cs, _ := serve(t, env, "--vault", vault, "--db", db)
	eventually(t, "embedding to start", func() bool {
		var lv mcp.ListVaultsOutput
		callTool(t, cs, mcp.ToolListVaults, nil, &lv)
		return lv.Index.Embedding.Done > 0
	})
	sharedtest.WriteFile(t, vault, "Fresh.md", "# Fresh\nA zebra and a quokka walk into the vault.\n")
	written := time.Now()
	hasVector := func() bool {
		raw := openRaw(t, db)
		defer raw.Close()
		var n int
		_ = raw.QueryRow(`SELECT count(*) FROM chunks c JOIN files f ON f.id = c.file_id
			WHERE f.path = 'Fresh.md' AND EXISTS (SELECT 1 FROM vectors x WHERE x.hash = c.hash)`).Scan(&n)
		return n > 0
	}
	eventually(t, "the new note's vector", hasVector)
	took := time.Since(written)
	if n := countVectors(t, db); n >= notes {
		t.Fatalf("the new note got its vector only after the whole backlog (%d vectors)", n)
	}
	t.Logf("the edited note had its vector %v after it was written, with %d of %d older passages done", took.Round(100*time.Millisecond), countVectors(t, db)-1, notes)
}

// TestServerWithAModelNotPulled: a configured local model that is not on
// this machine leaves every tool working; semantic search answers by
// keywords saying the embedder is not available, and health-status gives
// the pull command.
func TestServerWithAModelNotPulled(t *testing.T) {
	root := t.TempDir()
	vault := filepath.Join(root, "vault")
	sharedtest.WriteFile(t, vault, "Tea.md", "# Tea\nSteep green tea for two minutes.\n")
	env := append(cleanEnv(root), "JARVIS_EMBEDDER=potion-base-8M", hub.EnvModels+"="+filepath.Join(root, "models"))
	cs, _ := serve(t, env, "--vault", vault, "--db", filepath.Join(root, "j.db"), "--watch=false")
	var out mcp.SearchOutput
	eventually(t, "the first index pass", func() bool {
		var lv mcp.ListVaultsOutput
		callTool(t, cs, mcp.ToolListVaults, nil, &lv)
		return lv.Index.State == "ready" && lv.Index.Embedding.State == "failed"
	})
	if !callTool(t, cs, mcp.ToolSearchSemantic, map[string]any{"query": "green tea"}, &out) {
		t.Fatal("search-semantic failed")
	}
	if !out.Degraded || !strings.Contains(out.DegradedReason, "embedder is not available") || len(out.Results) == 0 {
		t.Fatalf("degraded %v (%q), %d results", out.Degraded, out.DegradedReason, len(out.Results))
	}
	eventually(t, "health-status to name the fix", func() bool {
		var hs mcp.HealthOutput
		callTool(t, cs, mcp.ToolHealthStatus, nil, &hs)
		for _, c := range hs.Checks {
			if c.Name == "embedder" && strings.Contains(c.Fix, "jarvis model pull potion-base-8M") {
				return true
			}
		}
		return false
	})
}

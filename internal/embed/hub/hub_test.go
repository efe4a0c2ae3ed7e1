package hub

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/jarvis-mcp/jarvis/internal/embed/hub/hubtest"
)

const potionRev = "bf8b056651a2c21b8d2565580b8569da283cab23"

// testClient is a client of the fake hub h with time limits short enough
// for tests.
func testClient(h *hubtest.Hub) *Client {
	c := NewClient(func(k string) string {
		if k == EnvEndpoint {
			return h.URL
		}
		return ""
	})
	c.HeaderTimeout = 2 * time.Second
	c.StallTimeout = 2 * time.Second
	c.RetryWait = time.Millisecond
	return c
}

// subfolders lists the folders in dir: installed models and staging.
func subfolders(dir string) []string {
	entries, _ := os.ReadDir(dir)
	var names []string
	for _, e := range entries {
		if e.IsDir() {
			names = append(names, e.Name())
		}
	}
	return names
}

// pullCtx bounds a test's pull so that a hang fails the test instead of
// the whole run.
func pullCtx(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	t.Cleanup(cancel)
	return ctx
}

func TestHubCatalogue(t *testing.T) {
	sha := regexp.MustCompile(`^[0-9a-f]{40}$`)
	names := map[string]bool{}
	for _, m := range Catalogue() {
		t.Run(m.Name, func(t *testing.T) {
			if names[strings.ToLower(m.Name)] {
				t.Fatalf("name %s twice", m.Name)
			}
			names[strings.ToLower(m.Name)] = true
			if !isRepoName(m.Repo) || !sha.MatchString(m.Revision) {
				t.Fatalf("repo %q revision %q: want owner/name pinned to a commit", m.Repo, m.Revision)
			}
			if _, ok := rules[m.Layout]; !ok || m.Kind != m.Layout.Kind() {
				t.Fatalf("layout %q kind %q", m.Layout, m.Kind)
			}
			if m.Dimensions <= 0 || m.Size <= 0 || m.GoodFor == "" {
				t.Fatalf("incomplete entry %+v", m)
			}
			for _, q := range []string{m.Name, strings.ToUpper(m.Name), m.Repo} {
				if got, ok := Lookup(q); !ok || got.Name != m.Name {
					t.Fatalf("Lookup(%q) = %v, %v", q, got.Name, ok)
				}
			}
		})
	}
	for _, want := range []string{"potion-base-8M", "potion-retrieval-32M", "static-retrieval-mrl-en-v1", "all-MiniLM-L6-v2", "bge-small-en-v1.5", "e5-small-v2"} {
		if !names[strings.ToLower(want)] {
			t.Errorf("catalogue lacks %s", want)
		}
	}
	e5, _ := Lookup("e5-small-v2")
	bge, _ := Lookup("bge-small-en-v1.5")
	if e5.QueryPrefix != "query: " || e5.PassagePrefix != "passage: " || bge.QueryPrefix == "" || bge.PassagePrefix != "" {
		t.Errorf("prefixes: e5 %q/%q, bge %q/%q", e5.QueryPrefix, e5.PassagePrefix, bge.QueryPrefix, bge.PassagePrefix)
	}
}

func TestHubPullListRemove(t *testing.T) {
	h := hubtest.New(t)
	h.Add("minishlab/potion-base-8M", potionRev, hubtest.Model2VecFiles()...)
	dir := t.TempDir()
	c := testClient(h)

	var last [2]int64
	calls := 0
	res, err := c.Pull(pullCtx(t), dir, "potion-base-8M", PullOptions{Progress: func(done, total int64) {
		calls++
		if done < last[0] || done > total {
			t.Errorf("progress went %d -> %d of %d", last[0], done, total)
		}
		last = [2]int64{done, total}
	}})
	if err != nil {
		t.Fatal(err)
	}
	folder := filepath.Join(dir, "minishlab--potion-base-8M")
	if res.Path != folder || res.AlreadyInstalled {
		t.Fatalf("result %+v", res)
	}
	if calls == 0 || last[0] != last[1] || last[1] != 20_000+int64(len(hubtest.Model2VecFiles()[1].Data)+len(hubtest.Model2VecFiles()[4].Data)) {
		t.Errorf("last progress %v after %d calls", last, calls)
	}
	for _, f := range hubtest.Model2VecFiles() {
		got, err := os.ReadFile(filepath.Join(folder, filepath.FromSlash(f.Path)))
		wanted := f.Path == "config.json" || f.Path == "model.safetensors" || f.Path == "tokenizer.json"
		switch {
		case wanted && (err != nil || string(got) != string(f.Data)):
			t.Errorf("%s not installed as served: %v", f.Path, err)
		case !wanted && err == nil:
			t.Errorf("%s was downloaded, though no embedder reads it", f.Path)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, stagingDir)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("staging folder left behind: %v", err)
	}

	m, err := ReadManifest(folder)
	if err != nil {
		t.Fatal(err)
	}
	if m.Name != "potion-base-8M" || m.Repo != "minishlab/potion-base-8M" || m.Revision != potionRev || m.Commit != potionRev ||
		m.Kind != KindStatic || m.Layout != LayoutModel2Vec || m.Dimensions != 256 || len(m.Files) != 3 || m.InstalledAt.IsZero() {
		t.Errorf("manifest %+v", m)
	}
	for _, f := range m.Files {
		if (f.Path == "model.safetensors") != (f.SHA256 != "") || (f.SHA256 == "") == (f.GitSHA1 == "") {
			t.Errorf("file %+v: LFS files are checked by sha256, the others by git blob id", f)
		}
	}

	list, err := ListInstalled(dir)
	if err != nil || len(list) != 1 || list[0].Name != "potion-base-8M" || list[0].ByHand {
		t.Fatalf("ListInstalled = %+v, %v", list, err)
	}
	for _, name := range []string{"potion-base-8M", "POTION-BASE-8M", "minishlab/potion-base-8M"} {
		if p, err := Resolve(dir, name); err != nil || p != folder {
			t.Errorf("Resolve(%q) = %q, %v", name, p, err)
		}
	}

	before := h.Requests()
	again, err := c.Pull(pullCtx(t), dir, "potion-base-8M", PullOptions{})
	if err != nil || !again.AlreadyInstalled || h.Requests() != before {
		t.Fatalf("second pull: %+v, %v, %d requests", again, err, h.Requests()-before)
	}

	removed, err := Remove(dir, "potion-base-8M")
	if err != nil || removed != folder {
		t.Fatalf("Remove = %q, %v", removed, err)
	}
	if _, err := os.Stat(folder); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("folder still there: %v", err)
	}
	if list, _ := ListInstalled(dir); len(list) != 0 {
		t.Fatalf("still listed: %+v", list)
	}
	if _, err := Remove(dir, "potion-base-8M"); !errors.Is(err, ErrNotInstalled) {
		t.Fatalf("second Remove: %v", err)
	}
	if _, err := Resolve(dir, "potion-base-8M"); !errors.Is(err, ErrNotInstalled) || !strings.Contains(err.Error(), "jarvis model pull potion-base-8M") {
		t.Fatalf("Resolve after Remove: %v", err)
	}
}

func TestHubEndpointAndToken(t *testing.T) {
	h := hubtest.New(t)
	h.Add("minishlab/potion-base-8M", potionRev, hubtest.Model2VecFiles()...)
	h.Gate("minishlab/potion-base-8M", "hf_secret")
	env := map[string]string{EnvEndpoint: h.URL + "/", EnvToken: "hf_secret"}
	c := NewClient(func(k string) string { return env[k] })
	if c.Endpoint != h.URL {
		t.Fatalf("endpoint %q, want %q", c.Endpoint, h.URL)
	}
	c.RetryWait = time.Millisecond
	if _, err := c.Pull(pullCtx(t), t.TempDir(), "potion-base-8M", PullOptions{}); err != nil {
		t.Fatal(err)
	}
	if len(h.Authorizations()) == 0 || h.Authorizations()[0] != "Bearer hf_secret" {
		t.Fatalf("Authorization sent: %q", h.Authorizations())
	}
	if d := NewClient(func(string) string { return "" }); d.Endpoint != DefaultEndpoint || d.Token != "" {
		t.Fatalf("default client %q %q", d.Endpoint, d.Token)
	}
}

func TestHubResumesCutDownload(t *testing.T) {
	const cut = 7_000
	size := int64(len(hubtest.Model2VecFiles()[2].Data))

	t.Run("second pull", func(t *testing.T) {
		h := hubtest.New(t)
		h.Add("minishlab/potion-base-8M", potionRev, hubtest.Model2VecFiles()...)
		h.CutAfter("model.safetensors", cut)
		dir := t.TempDir()
		c := testClient(h)
		c.Retries = 0
		_, err := c.Pull(pullCtx(t), dir, "potion-base-8M", PullOptions{})
		if err == nil || !strings.Contains(err.Error(), "run the pull again to resume") {
			t.Fatalf("cut pull: %v", err)
		}
		if _, err := os.Stat(filepath.Join(dir, "minishlab--potion-base-8M")); !errors.Is(err, os.ErrNotExist) {
			t.Fatalf("a cut download installed something: %v", err)
		}
		part := filepath.Join(dir, stagingDir, "minishlab--potion-base-8M", "model.safetensors.part")
		if st, err := os.Stat(part); err != nil || st.Size() != cut {
			t.Fatalf("partial file: %v, %v", st, err)
		}
		res, err := c.Pull(pullCtx(t), dir, "potion-base-8M", PullOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if got := h.Served("model.safetensors"); got != size {
			t.Errorf("served %d bytes of a %d-byte file: the bytes before the cut came twice", got, size)
		}
		if !slices.Contains(h.Ranges(), "model.safetensors=bytes=7000-") {
			t.Errorf("no resuming Range request: %q", h.Ranges())
		}
		// config.json came whole before the cut; only the rest comes now.
		if res.Downloaded != size-cut+int64(len(hubtest.Model2VecFiles()[4].Data)) {
			t.Errorf("second pull downloaded %d bytes", res.Downloaded)
		}
	})

	t.Run("retry within one pull", func(t *testing.T) {
		h := hubtest.New(t)
		h.Add("minishlab/potion-base-8M", potionRev, hubtest.Model2VecFiles()...)
		h.CutAfter("model.safetensors", cut)
		dir := t.TempDir()
		if _, err := testClient(h).Pull(pullCtx(t), dir, "potion-base-8M", PullOptions{}); err != nil {
			t.Fatal(err)
		}
		if got := h.Served("model.safetensors"); got != size {
			t.Errorf("served %d bytes of a %d-byte file", got, size)
		}
		if !slices.Contains(h.Ranges(), "model.safetensors=bytes=7000-") {
			t.Errorf("no resuming Range request: %q", h.Ranges())
		}
		got, _ := os.ReadFile(filepath.Join(dir, "minishlab--potion-base-8M", "model.safetensors"))
		if string(got) != string(hubtest.Model2VecFiles()[2].Data) {
			t.Error("resumed file differs from the served one")
		}
	})
}

func TestHubWrongHashInstallsNothing(t *testing.T) {
	h := hubtest.New(t)
	h.Add("minishlab/potion-base-8M", potionRev, hubtest.Model2VecFiles()...)
	h.Corrupt("model.safetensors", true)
	dir := t.TempDir()
	_, err := testClient(h).Pull(pullCtx(t), dir, "potion-base-8M", PullOptions{})
	if !errors.Is(err, ErrHash) || !strings.Contains(err.Error(), "nothing was installed") {
		t.Fatalf("err = %v", err)
	}
	if folders := subfolders(dir); len(folders) != 0 {
		t.Fatalf("models folder holds %v after a bad download", folders)
	}

	// A corrupt small file, checked by its git blob id, is refused too.
	h.Corrupt("model.safetensors", false)
	h.Corrupt("tokenizer.json", true)
	if _, err := testClient(h).Pull(pullCtx(t), dir, "potion-base-8M", PullOptions{}); !errors.Is(err, ErrHash) {
		t.Fatalf("corrupt tokenizer.json: %v", err)
	}
}

func TestHubOnePullAtATime(t *testing.T) {
	h := hubtest.New(t)
	h.Add("minishlab/potion-base-8M", potionRev, hubtest.Model2VecFiles()...)
	dir := t.TempDir()
	unlock, err := lockModels(dir, "another")
	if err != nil {
		t.Fatal(err)
	}
	_, err = testClient(h).Pull(pullCtx(t), dir, "potion-base-8M", PullOptions{})
	if !errors.Is(err, ErrBusy) || !strings.Contains(err.Error(), "another jarvis is pulling") {
		t.Fatalf("pull while another holds the lock: %v", err)
	}
	unlock()
	if _, err := testClient(h).Pull(pullCtx(t), dir, "potion-base-8M", PullOptions{}); err != nil {
		t.Fatalf("pull after the other finished: %v", err)
	}
}

func TestHubErrors(t *testing.T) {
	h := hubtest.New(t)
	h.Add("minishlab/potion-base-8M", potionRev, hubtest.Model2VecFiles()...)
	h.Add("someone/gated-model", "main", hubtest.BERTFiles()...)
	h.Gate("someone/gated-model", "right")

	cases := []struct {
		name, model, rev string
		token            string
		want             error
		says             []string
	}{
		{name: "repository not found", model: "nobody/nothing", want: ErrNotFound,
			says: []string{"model nobody/nothing at revision main not found on the hub at " + h.URL, "check the name", EnvToken}},
		{name: "revision not found", model: "potion-base-8M", rev: "v9", want: ErrNotFound,
			says: []string{"revision v9 not found", "check the revision"}},
		{name: "gated without token", model: "someone/gated-model", want: ErrAccess,
			says: []string{"HTTP 401", "gated or private", "set " + EnvToken}},
		{name: "gated with a wrong token", model: "someone/gated-model", token: "wrong", want: ErrAccess,
			says: []string{"HTTP 403", "check that the token in " + EnvToken}},
		{name: "not a model name", model: "no such thing", want: ErrUnknownModel, says: []string{"owner/name"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := testClient(h)
			c.Token = tc.token
			dir := t.TempDir()
			_, err := c.Pull(pullCtx(t), dir, tc.model, PullOptions{Revision: tc.rev})
			if !errors.Is(err, tc.want) {
				t.Fatalf("err = %v, want %v", err, tc.want)
			}
			for _, s := range tc.says {
				if !strings.Contains(err.Error(), s) {
					t.Errorf("error %q does not say %q", err, s)
				}
			}
			if folders := subfolders(dir); len(folders) != 0 {
				t.Errorf("models folder holds %v", folders)
			}
		})
	}
}

func TestHubTimeouts(t *testing.T) {
	t.Run("never answers", func(t *testing.T) {
		h := hubtest.New(t)
		h.Silent(true)
		c := testClient(h)
		c.HeaderTimeout = 300 * time.Millisecond
		start := time.Now()
		_, err := c.Pull(pullCtx(t), t.TempDir(), "potion-base-8M", PullOptions{})
		if !errors.Is(err, ErrTimeout) || !strings.Contains(err.Error(), "did not answer within 300ms") {
			t.Fatalf("err = %v", err)
		}
		if d := time.Since(start); d > 3*time.Second {
			t.Fatalf("took %s", d)
		}
	})
	t.Run("stalls mid-file", func(t *testing.T) {
		h := hubtest.New(t)
		h.Add("minishlab/potion-base-8M", potionRev, hubtest.Model2VecFiles()...)
		h.Stall(true)
		c := testClient(h)
		c.StallTimeout = 300 * time.Millisecond
		c.Retries = 1
		start := time.Now()
		_, err := c.Pull(pullCtx(t), t.TempDir(), "potion-base-8M", PullOptions{})
		if !errors.Is(err, ErrTimeout) || !strings.Contains(err.Error(), "sent nothing for 300ms") {
			t.Fatalf("err = %v", err)
		}
		if d := time.Since(start); d > 3*time.Second {
			t.Fatalf("took %s", d)
		}
	})
}

// TestHubOffline: a pull that reaches no hub (a closed port, a name that
// resolves to nothing) says which host could not be reached and why in
// words, that the machine may be offline or behind a proxy, and how to
// install the model by hand; never Go's error text, which stays
// reachable for a debug log.
func TestHubOffline(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	for _, tc := range []struct {
		endpoint, host, why string
	}{
		{"http://" + addr, addr, "the connection was refused"},
		{"https://huggingface.co.invalid", "huggingface.co.invalid", "its name could not be looked up"},
	} {
		c := NewClient(func(k string) string {
			if k == EnvEndpoint {
				return tc.endpoint
			}
			return ""
		})
		dir := t.TempDir()
		_, err = c.Pull(pullCtx(t), dir, "bge-small-en-v1.5", PullOptions{})
		if !errors.Is(err, ErrOffline) {
			t.Fatalf("err = %v", err)
		}
		for _, s := range []string{"cannot reach the model host " + tc.host + ": " + tc.why, "offline", "HTTPS_PROXY", "by hand",
			filepath.Join(dir, "BAAI--bge-small-en-v1.5"), "config.json, model.safetensors, tokenizer.json or vocab.txt", "its path wherever a model name goes"} {
			if !strings.Contains(err.Error(), s) {
				t.Errorf("error %q does not say %q", err, s)
			}
		}
		for _, raw := range []string{"dial tcp", "lookup ", "connect:", "no such host"} {
			if strings.Contains(err.Error(), raw) {
				t.Errorf("error %q holds Go's words %q", err, raw)
			}
		}
		var op *net.OpError
		if !errors.As(err, &op) {
			t.Errorf("error %q: Go's error is not kept beneath it", err)
		}
		// A repository of no known layout: its files are not named, and
		// the sentence still reads.
		_, err = c.Pull(pullCtx(t), dir, "foo/bar", PullOptions{})
		if want := "download the model files from the hub repository foo/bar (revision main) on a machine"; !errors.Is(err, ErrOffline) || !strings.Contains(err.Error(), want) {
			t.Errorf("pull foo/bar offline: error %q does not say %q", err, want)
		}
	}
}

func TestHubOtherRepositories(t *testing.T) {
	h := hubtest.New(t)
	h.Add("someone/tiny-bert", "main", hubtest.BERTFiles()...)
	h.SetCommit("main", strings.Repeat("ab", 20))
	h.Add("someone/onnx-only", "main",
		hubtest.File{Path: "config.json", Data: []byte(`{"model_type":"bert"}`)},
		hubtest.File{Path: "onnx/model.onnx", Data: hubtest.RandomBytes(5, 100), LFS: true},
		hubtest.File{Path: "pytorch_model.bin", Data: hubtest.RandomBytes(6, 100), LFS: true})
	h.Add("someone/gpt", "main",
		hubtest.File{Path: "config.json", Data: []byte(`{"model_type":"gpt2"}`)},
		hubtest.File{Path: "model.safetensors", Data: hubtest.RandomBytes(7, 100), LFS: true},
		hubtest.File{Path: "tokenizer.json", Data: []byte(`{}`)})
	h.Add("someone/static", "v1",
		hubtest.File{Path: "modules.json", Data: []byte(`[{"idx":0,"name":"0","path":"0_StaticEmbedding","type":"sentence_transformers.models.StaticEmbedding"}]`)},
		hubtest.File{Path: "config_sentence_transformers.json", Data: []byte(`{}`)},
		hubtest.File{Path: "0_StaticEmbedding/model.safetensors", Data: hubtest.RandomBytes(8, 4_000), LFS: true},
		hubtest.File{Path: "0_StaticEmbedding/tokenizer.json", Data: []byte(`{"model":{"type":"WordPiece"}}`)})
	dir := t.TempDir()
	c := testClient(h)

	res, err := c.Pull(pullCtx(t), dir, "someone/tiny-bert", PullOptions{})
	if err != nil {
		t.Fatal(err)
	}
	m := res.Manifest
	var paths []string
	for _, f := range m.Files {
		paths = append(paths, f.Path)
	}
	want := []string{"config.json", "model.safetensors", "vocab.txt", "tokenizer_config.json", "special_tokens_map.json", "modules.json", "sentence_bert_config.json", "1_Pooling/config.json"}
	if m.Name != "someone/tiny-bert" || m.Layout != LayoutBERT || m.Kind != KindTransformer || m.Dimensions != 16 ||
		m.Revision != "main" || m.Commit != strings.Repeat("ab", 20) || !slices.Equal(paths, want) {
		t.Errorf("manifest %+v, files %v", m, paths)
	}
	if _, err := os.Stat(filepath.Join(res.Path, "1_Pooling", "config.json")); err != nil {
		t.Error(err)
	}
	if p, err := Resolve(dir, "someone/tiny-bert"); err != nil || p != res.Path {
		t.Errorf("Resolve = %q, %v", p, err)
	}

	res, err = c.Pull(pullCtx(t), dir, "someone/static", PullOptions{Revision: "v1"})
	if err != nil || res.Layout != LayoutStaticEmbedding || len(res.Files) != 4 {
		t.Fatalf("static: %+v, %v", res.Manifest, err)
	}

	for _, tc := range []struct{ repo, says string }{
		{"someone/onnx-only", "only onnx/model.onnx, pytorch_model.bin"},
		{"someone/gpt", "model type is gpt2"},
	} {
		_, err := c.Pull(pullCtx(t), dir, tc.repo, PullOptions{})
		if !errors.Is(err, ErrUnsupported) || !strings.Contains(err.Error(), tc.says) {
			t.Errorf("%s: err = %v, want it to say %q", tc.repo, err, tc.says)
		}
	}
	list, _ := ListInstalled(dir)
	if len(list) != 2 {
		t.Errorf("installed %d models, want the two usable ones: %+v", len(list), list)
	}
}

// writeModel2Vec puts the files of a tiny model2vec model in dir, as a
// person copying them by hand would.
func writeModel2Vec(t *testing.T, dir string) {
	t.Helper()
	for _, f := range hubtest.Model2VecFiles() {
		if f.Path == "onnx/model.onnx" {
			continue
		}
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, f.Path), f.Data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func TestHubResolve(t *testing.T) {
	dir := t.TempDir()
	elsewhere := filepath.Join(t.TempDir(), "my model")
	writeModel2Vec(t, elsewhere)
	byHand := filepath.Join(dir, "sentence-transformers--all-MiniLM-L6-v2")
	if err := os.MkdirAll(byHand, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, f := range hubtest.BERTFiles() {
		p := filepath.Join(byHand, filepath.FromSlash(f.Path))
		_ = os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, f.Data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	halfCopied := filepath.Join(dir, "intfloat--e5-small-v2")
	if err := os.MkdirAll(halfCopied, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(halfCopied, "config.json"), []byte(`{"model_type":"bert"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	notAModel := t.TempDir()
	if err := os.WriteFile(filepath.Join(notAModel, "pytorch_model.bin"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}

	t.Chdir(filepath.Dir(elsewhere))
	cases := []struct {
		name, give, want string
		err              error
		says             string
	}{
		{name: "absolute path", give: elsewhere, want: elsewhere},
		{name: "relative path", give: "./my model", want: elsewhere},
		{name: "existing folder without ./", give: "my model", want: elsewhere},
		{name: "placed by hand, by name", give: "all-MiniLM-L6-v2", want: byHand},
		{name: "placed by hand, by repo", give: "sentence-transformers/all-MiniLM-L6-v2", want: byHand},
		{name: "known, not installed", give: "bge-small-en-v1.5", err: ErrNotInstalled, says: "run `jarvis model pull bge-small-en-v1.5`"},
		{name: "copied by hand, files missing", give: "e5-small-v2", err: ErrUnsupported, says: filepath.Join(dir, "intfloat--e5-small-v2") + ": it has no model.safetensors"},
		{name: "repo, not installed", give: "someone/thing", err: ErrNotInstalled, says: filepath.Join(dir, "someone--thing")},
		{name: "not a model folder", give: notAModel, err: ErrUnsupported, says: "pytorch_model.bin"},
		{name: "missing path", give: "./nowhere", err: os.ErrNotExist},
		{name: "nonsense", give: "what?", err: ErrUnknownModel, says: "jarvis model list"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Resolve(dir, tc.give)
			if tc.err != nil {
				if !errors.Is(err, tc.err) || !strings.Contains(err.Error(), tc.says) {
					t.Fatalf("Resolve(%q) = %q, %v; want %v saying %q", tc.give, got, err, tc.err, tc.says)
				}
				return
			}
			if err != nil || got != tc.want {
				t.Fatalf("Resolve(%q) = %q, %v; want %q", tc.give, got, err, tc.want)
			}
		})
	}

	list, err := ListInstalled(dir)
	if err != nil || len(list) != 1 || !list[0].ByHand || list[0].Name != "all-MiniLM-L6-v2" || list[0].Layout != LayoutBERT {
		t.Fatalf("ListInstalled = %+v, %v", list, err)
	}
	if l, err := LayoutOf(elsewhere); err != nil || l != LayoutModel2Vec {
		t.Fatalf("LayoutOf = %q, %v", l, err)
	}
}

func TestHubDefault(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "models")
	if _, ok := Default(dir); ok {
		t.Fatal("default before any was set")
	}
	writeModel2Vec(t, filepath.Join(dir, "minishlab--potion-base-8M"))
	if err := SetDefault(dir, "potion-base-8M"); err != nil {
		t.Fatal(err)
	}
	if name, ok := Default(dir); !ok || name != "potion-base-8M" {
		t.Fatalf("Default = %q, %v", name, ok)
	}
	if err := SetDefault(dir, " "); err == nil {
		t.Fatal("an empty default was accepted")
	}
	if _, err := Remove(dir, "minishlab/potion-base-8M"); err != nil {
		t.Fatal(err)
	}
	if name, ok := Default(dir); ok {
		t.Fatalf("removing the default model left default %q", name)
	}
}

func TestHubDir(t *testing.T) {
	home := t.TempDir()
	env := func(kv ...string) func(string) string {
		m := map[string]string{"HOME": home}
		for i := 0; i+1 < len(kv); i += 2 {
			m[kv[i]] = kv[i+1]
		}
		return func(k string) string { return m[k] }
	}
	if d, err := Dir(env(EnvModels, "/srv/models")); err != nil || d != filepath.Clean("/srv/models") {
		t.Errorf("JARVIS_MODELS: %q, %v", d, err)
	}
	if d, err := Dir(env(EnvModels, "~/m")); err != nil || d != filepath.Join(home, "m") {
		t.Errorf("JARVIS_MODELS with ~: %q, %v", d, err)
	}
	if d, _ := Dir(env()); !strings.HasPrefix(d, home) || !strings.HasSuffix(d, filepath.Join("jarvis", "models")) {
		t.Errorf("default %q is not under HOME %q", d, home)
	}
}

func TestHubDetectLayout(t *testing.T) {
	cases := []struct {
		name   string
		have   []string
		config string
		want   Layout
		says   string
	}{
		{name: "model2vec", have: []string{"config.json", "model.safetensors", "tokenizer.json"}, config: `{"model_type":"model2vec"}`, want: LayoutModel2Vec},
		{name: "model2vec by architecture", have: []string{"config.json", "model.safetensors", "tokenizer.json"}, config: `{"architectures":["StaticModel"]}`, want: LayoutModel2Vec},
		{name: "model2vec without tokenizer", have: []string{"config.json", "model.safetensors", "vocab.txt"}, config: `{"model_type":"model2vec"}`, says: "needs tokenizer.json"},
		{name: "static embedding", have: []string{"modules.json", "0_StaticEmbedding/model.safetensors", "0_StaticEmbedding/tokenizer.json"}, want: LayoutStaticEmbedding},
		{name: "static embedding without modules.json", have: []string{"0_StaticEmbedding/model.safetensors", "0_StaticEmbedding/tokenizer.json"}, says: "needs modules.json"},
		{name: "bert with vocab.txt", have: []string{"config.json", "model.safetensors", "vocab.txt"}, config: `{"model_type":"bert"}`, want: LayoutBERT},
		{name: "bert without tokenizer", have: []string{"config.json", "model.safetensors"}, config: `{"model_type":"bert"}`, says: "tokenizer.json or vocab.txt"},
		{name: "no config", have: []string{"model.safetensors", "tokenizer.json"}, says: "no config.json"},
		{name: "bad config", have: []string{"config.json", "model.safetensors"}, config: `{`, says: "cannot be read"},
		{name: "roberta", have: []string{"config.json", "model.safetensors", "tokenizer.json"}, config: `{"model_type":"roberta"}`, says: "model type is roberta"},
		{name: "gguf only", have: []string{"model-q4.gguf"}, says: "only model-q4.gguf"},
		{name: "nothing", have: []string{"README.md"}, says: "no model.safetensors"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var config []byte
			if tc.config != "" {
				config = []byte(tc.config)
			}
			got, err := DetectLayout(tc.have, config)
			if tc.says != "" {
				if !errors.Is(err, ErrUnsupported) || !strings.Contains(err.Error(), tc.says) {
					t.Fatalf("DetectLayout = %q, %v; want an error saying %q", got, err, tc.says)
				}
				return
			}
			if err != nil || got != tc.want {
				t.Fatalf("DetectLayout = %q, %v; want %q", got, err, tc.want)
			}
		})
	}
}

// TestHostileListings: a hub (or something posing as one) that lists a
// file of absurd size, or sends the next page of its listing, and with it
// the token, to another host, is refused before anything is written.
func TestHostileListings(t *testing.T) {
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		t.Errorf("the listing's next page was fetched from another host, with Authorization %q", r.Header.Get("Authorization"))
	}))
	defer other.Close()
	hub := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case strings.Contains(r.URL.Path, "/api/models/someone/next-elsewhere/"):
			w.Header().Set("Link", "<"+other.URL+"/api/page2>; rel=\"next\"")
			w.Write([]byte(`[{"type":"file","path":"config.json","size":2,"oid":"x"}]`))
		case strings.Contains(r.URL.Path, "/api/models/someone/huge/"):
			w.Write([]byte(`[{"type":"file","path":"config.json","size":2,"oid":"aa"},
				{"type":"file","path":"model.safetensors","size":9000000000000,"oid":"bb","lfs":{"oid":"cc","size":9000000000000}},
				{"type":"file","path":"tokenizer.json","size":2,"oid":"dd"}]`))
		case strings.HasSuffix(r.URL.Path, "/config.json"):
			w.Write([]byte(`{"model_type":"model2vec"}`))
		default:
			http.NotFound(w, r)
		}
	}))
	defer hub.Close()
	env := map[string]string{EnvEndpoint: hub.URL, EnvToken: "hf_secret"}
	c := NewClient(func(k string) string { return env[k] })
	c.RetryWait = time.Millisecond
	dir := t.TempDir()
	if _, err := c.Pull(pullCtx(t), dir, "someone/next-elsewhere", PullOptions{}); err == nil || !strings.Contains(err.Error(), "another host") {
		t.Errorf("a listing whose next page is on another host: %v", err)
	}
	if _, err := c.Pull(pullCtx(t), dir, "someone/huge", PullOptions{}); err == nil || !strings.Contains(err.Error(), "jarvis runs models up to") {
		t.Errorf("a listing of a 9 TB file: %v", err)
	}
	if got := subfolders(dir); len(got) != 0 {
		t.Errorf("refused pulls left %v", got)
	}
}

// TestHubPinnedCommitGone: when the commit the catalogue pins is not on
// the hub (a mirror keeping only branches, a rewritten repository), pull
// installs the current main, checked against its hashes, and says so; a
// revision asked for by name is never swapped.
func TestHubPinnedCommitGone(t *testing.T) {
	h := hubtest.New(t)
	h.Add("minishlab/potion-base-8M", "main", hubtest.Model2VecFiles()...)
	dir := t.TempDir()
	res, err := testClient(h).Pull(pullCtx(t), dir, "potion-base-8M", PullOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(res.Note, "installed its current main instead") || res.Revision != "main" {
		t.Errorf("note %q, revision %q", res.Note, res.Revision)
	}
	if _, err := testClient(h).Pull(pullCtx(t), t.TempDir(), "potion-base-8M", PullOptions{Revision: potionRev}); !errors.Is(err, ErrNotFound) {
		t.Errorf("a revision asked for that is not there: %v; want ErrNotFound", err)
	}
}

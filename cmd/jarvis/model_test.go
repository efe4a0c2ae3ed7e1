package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/jarvis-mcp/jarvis/internal/embed/hub"
	"github.com/jarvis-mcp/jarvis/internal/embed/hub/hubtest"
	"github.com/jarvis-mcp/jarvis/internal/sharedtest"
)

const potionRevision = "bf8b056651a2c21b8d2565580b8569da283cab23"

// modelEnv is the environment of a model command: a models folder of its
// own and the fake hub as HF_ENDPOINT.
func modelEnv(t *testing.T, h *hubtest.Hub) (vars map[string]string, dir string) {
	dir = filepath.Join(t.TempDir(), "models")
	return map[string]string{hub.EnvModels: dir, hub.EnvEndpoint: h.URL}, dir
}

func modelList(t *testing.T, vars map[string]string) modelListOutput {
	t.Helper()
	code, stdout, stderr := jarvis(t, vars, "model", "list", "--json")
	if code != 0 {
		t.Fatalf("model list: exit %d: %s", code, stderr)
	}
	var out modelListOutput
	if err := json.Unmarshal([]byte(stdout), &out); err != nil {
		t.Fatalf("model list --json: %v\n%s", err, stdout)
	}
	return out
}

func listed(out modelListOutput, name string) modelListing {
	for _, m := range out.Models {
		if m.Name == name {
			return m
		}
	}
	return modelListing{}
}

func TestModelPullListRemove(t *testing.T) {
	h := hubtest.New(t)
	h.Add("minishlab/potion-base-8M", potionRevision, hubtest.Model2VecFiles()...)
	vars, dir := modelEnv(t, h)
	folder := filepath.Join(dir, "minishlab--potion-base-8M")

	code, stdout, stderr := jarvis(t, vars, "model", "pull", "potion-base-8M")
	if code != 0 {
		t.Fatalf("pull: exit %d: %s", code, stderr)
	}
	for _, s := range []string{"installed potion-base-8M (minishlab/potion-base-8M at bf8b056651a2", folder,
		"no embedder was configured, so jarvis now uses potion-base-8M", "jarvis index"} {
		if !strings.Contains(stdout, s) {
			t.Errorf("pull output does not say %q:\n%s", s, stdout)
		}
	}
	if name, ok := hub.Default(dir); !ok || name != "potion-base-8M" {
		t.Errorf("after a pull with no embedder configured the default model is %q, %v", name, ok)
	}
	if stderr != "" {
		t.Errorf("pull wrote to stderr, which is no terminal: %q", stderr)
	}
	if h.Requests() == 0 {
		t.Fatal("HF_ENDPOINT was not used")
	}
	if _, err := os.Stat(filepath.Join(folder, "model.safetensors")); err != nil {
		t.Fatal(err)
	}

	out := modelList(t, vars)
	potion := listed(out, "potion-base-8M")
	if out.ModelsDir != dir || !potion.Installed || potion.Path != folder || potion.Kind != "static" || potion.Dimensions != 256 ||
		potion.Revision != potionRevision || potion.GoodFor == "" {
		t.Errorf("listed %+v in %s", potion, out.ModelsDir)
	}
	if e5 := listed(out, "e5-small-v2"); e5.Installed || e5.QueryPrefix != "query: " || e5.Kind != "transformer" {
		t.Errorf("e5-small-v2 listed as %+v", e5)
	}
	_, text, _ := jarvis(t, vars, "model", "list")
	// The footer says what pull itself does: with no embedder configured,
	// the model pulled becomes the one used (trial 26: it said only
	// --embedder, as the README did not).
	for _, s := range []string{"NAME", "GOOD FOR", "bge-small-en-v1.5", "models folder: " + dir,
		"while no embedder is configured, the model pulled becomes the one used"} {
		if !strings.Contains(text, s) {
			t.Errorf("model list does not show %q:\n%s", s, text)
		}
	}
	for _, line := range strings.Split(text, "\n") {
		if strings.HasPrefix(line, "potion-base-8M ") && !strings.Contains(line, " yes ") {
			t.Errorf("potion-base-8M not shown installed: %q", line)
		}
	}

	if code, stdout, _ := jarvis(t, vars, "model", "pull", "minishlab/potion-base-8M"); code != 0 || !strings.Contains(stdout, "already installed") {
		t.Errorf("second pull: exit %d: %s", code, stdout)
	}

	if err := hub.SetDefault(dir, "potion-base-8M"); err != nil {
		t.Fatal(err)
	}
	if !listed(modelList(t, vars), "potion-base-8M").Default {
		t.Error("the default model is not listed as default")
	}

	code, stdout, stderr = jarvis(t, vars, "model", "rm", "potion-base-8M")
	if code != 0 || !strings.Contains(stdout, "removed potion-base-8M") {
		t.Fatalf("rm: exit %d: %s%s", code, stdout, stderr)
	}
	if _, err := os.Stat(folder); !os.IsNotExist(err) {
		t.Fatalf("folder left after rm: %v", err)
	}
	if m := listed(modelList(t, vars), "potion-base-8M"); m.Installed || m.Default {
		t.Errorf("after rm: %+v", m)
	}
	if code, _, stderr := jarvis(t, vars, "model", "rm", "potion-base-8M"); code != 1 || !strings.Contains(stderr, "not installed") {
		t.Errorf("rm of a model not installed: exit %d: %s", code, stderr)
	}
}

func TestModelPullFailures(t *testing.T) {
	h := hubtest.New(t)
	h.Add("minishlab/potion-base-8M", potionRevision, hubtest.Model2VecFiles()...)
	h.Corrupt("model.safetensors", true)
	h.Add("someone/onnx-only", "main", hubtest.File{Path: "model.onnx", Data: []byte("onnx"), LFS: true})
	vars, dir := modelEnv(t, h)

	for _, tc := range []struct {
		name string
		args []string
		says string
	}{
		{"not on the hub", []string{"nobody/nothing"}, "not found on the hub at " + h.URL},
		{"bad hash", []string{"potion-base-8M"}, "nothing was installed"},
		{"no layout jarvis runs", []string{"someone/onnx-only"}, "only model.onnx"},
		{"unknown revision", []string{"potion-base-8M", "--revision", "v0"}, "check the revision"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, stdout, stderr := jarvis(t, vars, append([]string{"model", "pull"}, tc.args...)...)
			if code != 1 || !strings.Contains(stderr, tc.says) || stdout != "" {
				t.Errorf("exit %d, stdout %q, stderr %q; want exit 1 saying %q", code, stdout, stderr, tc.says)
			}
		})
	}
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if e.IsDir() {
			t.Errorf("failed pulls left folder %s in the models folder", e.Name())
		}
	}
}

func TestModelUsage(t *testing.T) {
	h := hubtest.New(t)
	vars, _ := modelEnv(t, h)
	for _, tc := range []struct {
		args []string
		code int
		says string
	}{
		{[]string{"model"}, 2, "needs a subcommand"},
		{[]string{"model", "frob"}, 2, `no subcommand "frob"`},
		{[]string{"model", "pull"}, 2, "needs a model name"},
		{[]string{"model", "pull", "a/b", "c/d"}, 2, "takes one model name"},
		{[]string{"model", "pull", "no such model"}, 2, "owner/name"},
		{[]string{"model", "pull", "--bogus", "x/y"}, 2, "-bogus"},
		{[]string{"model", "rm"}, 2, "needs a model name"},
		{[]string{"model", "list", "extra"}, 2, "no positional arguments"},
	} {
		code, _, stderr := jarvis(t, vars, tc.args...)
		if code != tc.code || !strings.Contains(stderr, tc.says) {
			t.Errorf("%v: exit %d, stderr %q; want %d saying %q", tc.args, code, stderr, tc.code, tc.says)
		}
	}
	if h.Requests() != 0 {
		t.Errorf("usage errors reached the hub %d times", h.Requests())
	}
	for _, args := range [][]string{{"model", "--help"}, {"help", "model"}, {"model", "pull", "--help"}, {"model", "list", "-h"}, {"model", "rm", "--help"}} {
		code, stdout, _ := jarvis(t, vars, args...)
		if code != 0 || !strings.Contains(stdout, "JARVIS_MODELS") || !strings.Contains(stdout, "HF_TOKEN") {
			t.Errorf("%v: exit %d:\n%s", args, code, stdout)
		}
	}
	if _, stdout, _ := jarvis(t, vars, "--help"); !strings.Contains(stdout, "model ") {
		t.Errorf("overview does not list the model command:\n%s", stdout)
	}
}

// TestModelPullProgress checks that a pull draws its progress on a
// terminal, and leaves stdout to the result.
func TestModelPullProgress(t *testing.T) {
	h := hubtest.New(t)
	h.Add("minishlab/potion-base-8M", potionRevision, hubtest.Model2VecFiles()...)
	vars, _ := modelEnv(t, h)
	var out, errb bytes.Buffer
	e := &env{stdout: &out, stderr: &errb, stderrIsTerminal: true, getenv: func(k string) string { return vars[k] }}
	if code := run(context.Background(), e, []string{"model", "pull", "potion-base-8M"}); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	if !strings.Contains(errb.String(), "downloading potion-base-8M") {
		t.Errorf("no progress bar on the terminal: %q", errb.String())
	}
	if strings.Contains(out.String(), "downloading") || !strings.Contains(out.String(), "installed potion-base-8M") {
		t.Errorf("stdout %q", out.String())
	}
}

// TestModelPullKeepsAConfiguredEmbedder: a pull never changes the embedder
// the user chose; it says how to use the new model instead.
func TestModelPullKeepsAConfiguredEmbedder(t *testing.T) {
	h := hubtest.New(t)
	h.Add("minishlab/potion-base-8M", potionRevision, hubtest.Model2VecFiles()...)
	vars, dir := modelEnv(t, h)
	vars["JARVIS_EMBEDDER"] = "lexical"
	code, stdout, stderr := jarvis(t, vars, "model", "pull", "potion-base-8M")
	if code != 0 {
		t.Fatalf("pull: exit %d: %s", code, stderr)
	}
	for _, s := range []string{"the embedder stays lexical (from env JARVIS_EMBEDDER)", "--embedder potion-base-8M", "JARVIS_EMBEDDER=potion-base-8M"} {
		if !strings.Contains(stdout, s) {
			t.Errorf("pull output does not say %q:\n%s", s, stdout)
		}
	}
	if name, ok := hub.Default(dir); ok {
		t.Errorf("a pull with an embedder configured made %q the default", name)
	}
}

// TestSearchWithALocalModelNotPulled: a search whose model is not
// installed answers by keywords and says so once, with the pull that
// mends it, not in brackets within brackets nor twice over; related says
// it in the same words.
func TestSearchWithALocalModelNotPulled(t *testing.T) {
	vars, _ := modelEnv(t, hubtest.New(t))
	db := filepath.Join(t.TempDir(), "j.db")
	code, stdout, stderr := jarvis(t, vars, "search", "--vault", "../../examples/vault", "--db", db, "--embedder", "all-MiniLM-L6-v2", "links")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	all := stdout + stderr
	if n := strings.Count(all, "not available"); n != 1 || strings.Count(all, "jarvis model pull all-MiniLM-L6-v2") != 1 {
		t.Errorf("want the embedder said to be not available once, with the pull:\n%s", all)
	}
	if strings.Contains(all, "no embedder available") || strings.Contains(all, "brought up to date") {
		t.Errorf("the note repeats itself:\n%s", all)
	}
	// jarvis related says it in the same words, not "the health check".
	code, stdout, stderr = jarvis(t, vars, "related", "--vault", "../../examples/vault", "--db", db, "--embedder", "all-MiniLM-L6-v2", "Water")
	if code != 0 || !strings.Contains(stdout+stderr, "the embedder is not available: model all-MiniLM-L6-v2 is not installed: run `jarvis model pull all-MiniLM-L6-v2`") {
		t.Errorf("related: exit %d\n%s%s", code, stdout, stderr)
	}
}

// TestIndexWithALocalModelNotPulled: a local model runs in jarvis, so an
// index run whose model is not installed says to pull it or to index
// without vectors, and never sends the user to an embedding server.
func TestIndexWithALocalModelNotPulled(t *testing.T) {
	vars, _ := modelEnv(t, hubtest.New(t))
	db := filepath.Join(t.TempDir(), "j.db")
	code, _, stderr := jarvis(t, vars, "index", "--vault", "../../examples/vault", "--db", db, "--embedder", "all-MiniLM-L6-v2")
	if code != 3 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, s := range []string{"`jarvis model pull all-MiniLM-L6-v2`", "--embedder all-MiniLM-L6-v2 --no-embed` to index without vectors"} {
		if !strings.Contains(stderr, s) {
			t.Errorf("stderr does not say %q:\n%s", s, stderr)
		}
	}
	if strings.Contains(stderr, "server") {
		t.Errorf("stderr speaks of a server for a local model:\n%s", stderr)
	}
	// doctor says it once: the pull in the fix line, not in the detail too.
	_, stdout, _ := jarvis(t, vars, "doctor", "--vault", "../../examples/vault", "--db", db, "--embedder", "all-MiniLM-L6-v2")
	if n := strings.Count(stdout, "jarvis model pull all-MiniLM-L6-v2"); n != 1 {
		t.Errorf("doctor names the pull %d times:\n%s", n, stdout)
	}
}

// TestForgetFixWithALocalModelNotPulled: doctor's fix that drops another
// vault repeats --embedder, yet works when pasted though the model is not
// installed: dropping a vault makes no vectors, so it cannot fail for
// want of them.
func TestForgetFixWithALocalModelNotPulled(t *testing.T) {
	vars, _ := modelEnv(t, hubtest.New(t))
	db := filepath.Join(t.TempDir(), "j.db")
	mustIndex(t, vars, "--vault", namedVault(t, "old"), "--db", db, "--no-embed")
	flags := []string{"--vault", namedVault(t, "help"), "--db", db, "--embedder", "all-MiniLM-L6-v2"}
	mustIndex(t, vars, append(flags, "--no-embed")...)
	d := readCLI(t, vars, append([]string{"doctor"}, flags...)...)
	var forget []string
	for _, args := range sharedtest.SuggestedCommands(d.stdout) {
		if args[0] == "index" && slices.Contains(args, "--forget") {
			forget = args
		}
	}
	if forget == nil {
		t.Fatalf("doctor suggests no --forget:\n%s", d.stdout)
	}
	if r := readCLI(t, vars, forget...); r.code != 0 || !strings.Contains(r.stderr, `dropped vault "old"`) {
		t.Errorf("jarvis %s, suggested by doctor, exits %d:\n%s%s", strings.Join(forget, " "), r.code, r.stdout, r.stderr)
	}
}

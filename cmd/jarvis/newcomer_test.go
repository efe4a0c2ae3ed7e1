package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	mcpsdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/jarvis-mcp/jarvis/internal/sharedtest"
)

// waitIndexed waits until the server's background index run and its
// embedding are done, as list-vaults reports them.
func waitIndexed(t *testing.T, cs *mcpsdk.ClientSession) {
	t.Helper()
	for range 3000 {
		res, err := cs.CallTool(context.Background(), &mcpsdk.CallToolParams{Name: "list-vaults"})
		if err != nil {
			t.Fatal(err)
		}
		if m, ok := res.StructuredContent.(map[string]any); ok {
			if idx, ok := m["index"].(map[string]any); ok && idx["state"] == "ready" {
				if e, ok := idx["embedding"].(map[string]any); ok && (e["state"] == "done" || e["state"] == "failed") {
					return
				}
			}
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatal("the server's background index did not finish")
}

// TestSearchOfAMistypedVaultMakesNothing: a search whose only vault
// folder does not exist is a usage error naming the folder, suggests no
// command that would fail, and creates no database.
func TestSearchOfAMistypedVaultMakesNothing(t *testing.T) {
	vault := messageVault(t)
	typo := vault + "-typo"
	home := t.TempDir()
	vars := map[string]string{"HOME": home}
	s := readCLI(t, vars, "search", "coffee", "--vault", typo)
	if s.code != 2 {
		t.Errorf("search of a missing vault folder exits %d, want 2:\n%s%s", s.code, s.stdout, s.stderr)
	}
	if !strings.Contains(s.stderr, typo) || !strings.Contains(s.stderr, "does not exist") {
		t.Errorf("search of a missing vault folder does not say so:\n%s", s.stderr)
	}
	if cmds := sharedtest.SuggestedCommands(s.stdout + s.stderr); len(cmds) > 0 {
		t.Errorf("search of a missing vault folder suggests %q", cmds)
	}
	var made []string
	filepath.WalkDir(home, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			made = append(made, p)
		}
		return nil
	})
	if len(made) > 0 {
		t.Errorf("search of a missing vault folder made %q", made)
	}

	// Beside a vault that can be read, it answers from that one and names
	// the missing one, without an index command that would refuse.
	db := filepath.Join(t.TempDir(), "j.db")
	both := readCLI(t, vars, "search", "coffee", "--vault", typo, "--vault", vault, "--db", db)
	if both.code != 0 || !strings.Contains(both.stdout, "Coffee.md") || !strings.Contains(both.stdout, typo) {
		t.Errorf("search of a missing and a present vault (exit %d):\n%s%s", both.code, both.stdout, both.stderr)
	}
	runSuggestions(t, vars, both)
}

// TestDoctorNamesNoIndexWhileAVaultIsMissing: doctor does not suggest the
// index command, which refuses to run, while a vault folder is missing.
func TestDoctorNamesNoIndexWhileAVaultIsMissing(t *testing.T) {
	typo := messageVault(t) + "-typo"
	db := filepath.Join(t.TempDir(), "j.db")
	d := readCLI(t, nil, "doctor", "--vault", typo, "--db", db)
	if d.code != 2 {
		t.Errorf("doctor with a missing vault folder exits %d, want 2", d.code)
	}
	for _, c := range sharedtest.SuggestedCommands(d.stdout) {
		if c[0] == "index" {
			t.Errorf("doctor with a missing vault folder suggests `jarvis %s`:\n%s", strings.Join(c, " "), d.stdout)
		}
	}
	if !strings.Contains(d.stdout, "first fix the vault problem above") {
		t.Errorf("doctor does not say to fix the vault first:\n%s", d.stdout)
	}
}

// TestNoVaultNamesTheConfigFileRead: with --config naming a file that
// lists no vault, the message names that file, not the default one, in
// every command and in doctor.
func TestNoVaultNamesTheConfigFileRead(t *testing.T) {
	file := filepath.Join(t.TempDir(), "mine.yaml")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"search", "coffee", "--config", file},
		{"index", "--config", file},
		{"doctor", "--config", file},
	} {
		r := readCLI(t, nil, args...)
		out := r.stdout + r.stderr
		if r.code != 2 || !strings.Contains(out, "list vaults in "+file) || strings.Contains(out, "config.yaml") {
			t.Errorf("jarvis %s (exit %d) does not name the config file read:\n%s", strings.Join(args, " "), r.code, out)
		}
	}
}

// TestAVaultOfOnlyAttachments: right after an index of a vault that holds
// images and no Markdown note, search (CLI and MCP) and doctor say so,
// rather than that vectors are missing or that the topic is not covered.
func TestAVaultOfOnlyAttachments(t *testing.T) {
	vault := filepath.Join(t.TempDir(), "pictures")
	sharedtest.WriteFile(t, vault, "a.png", "\x89PNG")
	sharedtest.WriteFile(t, vault, "b.png", "\x89PNG")
	db := filepath.Join(t.TempDir(), "j.db")
	flags := []string{"--vault", vault, "--db", db}
	mustIndex(t, nil, flags...)
	const want = `Vault "pictures" holds no Markdown notes, only 2 attachments`
	for _, mode := range []string{"combined", "semantic", "keyword"} {
		s := readCLI(t, nil, append([]string{"search", "grind", "--mode", mode}, flags...)...)
		if s.code != 0 || !strings.Contains(s.stdout, want) {
			t.Errorf("search --mode %s (exit %d) does not say the vault holds no notes:\n%s%s", mode, s.code, s.stdout, s.stderr)
		}
		for _, wrong := range []string{"no vectors", "jarvis index", "may not cover"} {
			if strings.Contains(s.stdout, wrong) {
				t.Errorf("search --mode %s says %q:\n%s", mode, wrong, s.stdout)
			}
		}
	}
	d := readCLI(t, nil, append([]string{"doctor"}, flags...)...)
	if !strings.Contains(d.stdout, `no passage to embed: vault "pictures" holds no Markdown notes, only 2 attachments`) || strings.Contains(d.stdout, "nothing indexed yet") {
		t.Errorf("doctor's embedder check does not say the vault holds no notes:\n%s", d.stdout)
	}

	cs, _ := serve(t, []string{"HOME=" + t.TempDir()}, flags...)
	waitIndexed(t, cs)
	for _, tool := range []string{"search-vault", "search-semantic", "search-combined"} {
		_, out := readTool(t, cs, tool, map[string]any{"query": "grind"})
		if got := mustJSON(out); !strings.Contains(got, "holds no Markdown notes, only 2 attachments") || strings.Contains(got, "no vectors") {
			t.Errorf("%s over a vault of only attachments: %s", tool, got)
		}
	}
}

// TestThresholdOutsideSemanticMode: --threshold, which only semantic
// search applies, is refused in the other modes, naming the mode it needs.
func TestThresholdOutsideSemanticMode(t *testing.T) {
	vault := messageVault(t)
	db := filepath.Join(t.TempDir(), "j.db")
	for _, mode := range []string{"combined", "keyword"} {
		r := readCLI(t, nil, "search", "coffee", "--mode", mode, "--threshold", "0.99", "--vault", vault, "--db", db)
		if r.code != 2 || !strings.Contains(r.stderr, "--threshold applies to semantic search only: add --mode semantic") {
			t.Errorf("--threshold in %s mode (exit %d):\n%s%s", mode, r.code, r.stdout, r.stderr)
		}
	}
	if r := readCLI(t, nil, "search", "coffee", "--threshold", "0.99", "--vault", vault, "--db", db); r.code != 2 {
		t.Errorf("--threshold in the default mode exits %d", r.code)
	}
	// With --names-only, adding --mode semantic would be refused too.
	r := readCLI(t, nil, "search", "coffee", "--names-only", "--threshold", "0.5", "--vault", vault, "--db", db)
	if r.code != 2 || strings.Contains(r.stderr, "--mode semantic") || !strings.Contains(r.stderr, "leave one of them out") {
		t.Errorf("--names-only with --threshold (exit %d):\n%s", r.code, r.stderr)
	}
}

// TestAThresholdTooHighIsNamed: a semantic search whose threshold leaves
// out every passage says so, with the best similarity found, rather than
// blaming the topic; at the terminal and in the MCP tool alike.
func TestAThresholdTooHighIsNamed(t *testing.T) {
	vault := messageVault(t)
	db := filepath.Join(t.TempDir(), "j.db")
	flags := []string{"--vault", vault, "--db", db}
	mustIndex(t, nil, flags...)
	r := readCLI(t, nil, append([]string{"search", "coffee beans", "--mode", "semantic", "--threshold", "0.999"}, flags...)...)
	if !strings.Contains(r.stdout, "No passage is as similar to the query as --threshold 0.999 asks: the most similar, in Coffee.md, scores 0.") ||
		!strings.Contains(r.stdout, "Give a lower --threshold, such as 0.") || strings.Contains(r.stdout, "may not cover") {
		t.Errorf("search with a threshold above every passage:\n%s%s", r.stdout, r.stderr)
	}

	cs, _ := serve(t, []string{"HOME=" + t.TempDir()}, flags...)
	waitIndexed(t, cs)
	_, out := readTool(t, cs, "search-semantic", map[string]any{"query": "coffee beans", "similarity_threshold": 0.999})
	if got := mustJSON(out); !strings.Contains(got, "as similarity_threshold 0.999 asks: the most similar, in Coffee.md") || strings.Contains(got, "may not cover") {
		t.Errorf("search-semantic with a threshold above every passage: %s", got)
	}
}

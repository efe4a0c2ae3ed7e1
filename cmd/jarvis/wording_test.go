package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"

	"github.com/jarvis-mcp/jarvis/internal/health"
	"github.com/jarvis-mcp/jarvis/internal/index"
	"github.com/jarvis-mcp/jarvis/internal/search/vectors"
	"github.com/jarvis-mcp/jarvis/internal/sharedtest"
)

// TestIndexSummaryCountsOne: a vault of one note, one link and one file
// with a problem is summed up in the singular, and the fix it names
// repeats the flags of the run.
func TestIndexSummaryCountsOne(t *testing.T) {
	var b bytes.Buffer
	out := indexOutput{
		Vaults: []index.Result{{Name: "one", Path: "/v", Notes: 1, Attachments: 1, Passages: 1,
			Links: 1, ResolvedLinks: 1, Warnings: 1, Problems: index.ProblemCounts{Indexed: 1}}},
		Embeddings: vectors.SyncResult{Embedder: "lexical", Vectors: 1, Chunks: 1, Embedded: 1},
	}
	printIndexSummary(&b, out, "/tmp/j.db", health.Invocation{"--vault", "/v"})
	got := b.String()
	for _, want := range []string{
		"  1 note, 1 attachment, 1 passage\n",
		"  1 link: 1 resolved, 0 unresolved\n",
		"  1 file indexed with a problem: run `jarvis doctor --vault /v` for details\n",
		"vectors: 1 of 1 passage (1 embedded now) with lexical\n",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("summary lacks %q:\n%s", want, got)
		}
	}
}

// TestIndexSummarySaysWhatItFinished: a run after an interrupted one says
// how many notes it finished from that run, and an ordinary run says
// nothing of it.
func TestIndexSummarySaysWhatItFinished(t *testing.T) {
	for _, tt := range []struct {
		res  index.Result
		want string
	}{
		{index.Result{Notes: 300, Added: 200, Resumed: 100}, "  notes: 200 added, 0 updated, 0 deleted, 0 unchanged, 100 finished from the interrupted run\n"},
		{index.Result{Notes: 300, Unchanged: 300}, "  notes: 0 added, 0 updated, 0 deleted, 300 unchanged\n"},
		{index.Result{Notes: 1, Unchanged: 1, Excluded: 2}, "  notes: 0 added, 0 updated, 0 deleted, 2 now excluded, 1 unchanged\n"},
		{index.Result{Notes: 3, Unchanged: 2, Retried: 1}, "  notes: 0 added, 0 updated, 0 deleted, 2 unchanged, 1 tried again but still cannot be read\n"},
	} {
		var b bytes.Buffer
		printIndexSummary(&b, indexOutput{Vaults: []index.Result{tt.res}}, "/tmp/j.db", nil)
		if !strings.Contains(b.String(), tt.want) {
			t.Errorf("summary lacks %q:\n%s", tt.want, b.String())
		}
	}
}

// TestIndexSummaryNoLinks: a vault without links says so, not "0 links: 0
// resolved, 0 unresolved".
func TestIndexSummaryNoLinks(t *testing.T) {
	var b bytes.Buffer
	printIndexSummary(&b, indexOutput{Vaults: []index.Result{{Name: "v", Path: "/v", Notes: 2}}}, "/tmp/j.db", nil)
	got := b.String()
	if !strings.Contains(got, "  no links\n") || strings.Contains(got, "0 resolved") {
		t.Errorf("summary of a vault without links:\n%s", got)
	}
}

// TestGoRunRefusalInstallsAsTheREADME: setup's refusal of a `go run`
// build suggests the README's install line, with -buildvcs=true, and then
// the command as the user gave it.
func TestGoRunRefusalInstallsAsTheREADME(t *testing.T) {
	readme, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(readme), "\n"+installCommand+" ") {
		t.Errorf("README.md does not give the install line %q", installCommand)
	}
	err = goRunRefused("/cache/jarvis", []string{"--vault", "/notes/My Vault"})
	want := "install it from the clone with `CGO_ENABLED=0 go install -buildvcs=true ./cmd/jarvis`, then run `jarvis setup claude --vault '/notes/My Vault'`"
	if runtime.GOOS == "windows" {
		want = strings.ReplaceAll(want, "'", `"`)
	}
	if err == nil || !strings.Contains(err.Error(), want) || !errors.Is(err, errUsage) {
		t.Fatalf("refusal %v\nwant it to say %s", err, want)
	}
}

// TestSearchFilterKeepingNothingNamesFlags: jarvis search whose
// --path-prefix keeps no note says so with the flag to check, not the MCP
// argument or tool a terminal user cannot call.
func TestSearchFilterKeepingNothingNamesFlags(t *testing.T) {
	example, _ := filepath.Abs("../../examples/vault")
	db := filepath.Join(t.TempDir(), "j.db")
	code, stdout, stderr := jarvis(t, nil, "search", "--vault", example, "--db", db, "--path-prefix", "Nope/", "x")
	want := `There are no notes whose path starts with "Nope/", so nothing was searched. Check --path-prefix: paths start at the vault's top folder`
	if code != 0 || !strings.HasPrefix(stdout, want) || strings.Contains(stdout, "list-vaults") || strings.Contains(stdout, "path_prefix") {
		t.Fatalf("exit %d, stdout %q, stderr %q; want it to start %q", code, stdout, stderr, want)
	}
}

// TestMCPAtATerminalSaysItWaits: jarvis mcp started by hand, stdin a
// terminal, says on stderr what it waits for, how an assistant starts it
// (setup with the flags given) and how to stop it; stdout, the protocol's,
// stays empty. Started by a client it says nothing.
func TestMCPAtATerminalSaysItWaits(t *testing.T) {
	example, _ := filepath.Abs("../../examples/vault")
	db := filepath.Join(t.TempDir(), "j.db")
	want := "jarvis: waiting for an MCP client on stdin and stdout; an assistant such as Claude Desktop starts jarvis mcp by itself once " +
		"`jarvis setup claude --vault " + health.Quote(example) + " --db " + health.Quote(db) + "` has added it. Press Ctrl-D or Ctrl-C to stop.\n"
	for _, terminal := range []bool{true, false} {
		code, stdout, stderr := jarvisIn(t, nil, func(e *env) {
			e.stdin, e.stdinIsTerminal = io.NopCloser(strings.NewReader("")), terminal
		}, "mcp", "--vault", example, "--db", db, "--watch=false", "--log-file", filepath.Join(t.TempDir(), "log"))
		if code != 0 || stdout != "" {
			t.Fatalf("terminal %v: exit %d, stdout %q, stderr %q", terminal, code, stdout, stderr)
		}
		if terminal && stderr != want {
			t.Errorf("at a terminal, stderr:\n%q\nwant:\n%q", stderr, want)
		}
		if !terminal && stderr != "" {
			t.Errorf("started by a client, stderr %q; want nothing", stderr)
		}
	}
}

// firstWrite is a writer that closes written at its first write.
type firstWrite struct {
	sharedtest.SyncBuffer
	once    sync.Once
	written chan struct{}
}

func (w *firstWrite) Write(p []byte) (int, error) {
	n, err := w.SyncBuffer.Write(p)
	w.once.Do(func() { close(w.written) })
	return n, err
}

// TestMCPInterruptedIsNoError: Ctrl-C stops jarvis mcp serving a client
// on stdio; that is how a server is stopped, so nothing is logged as an
// error, and it exits 130 with a plain line saying what happened.
func TestMCPInterruptedIsNoError(t *testing.T) {
	example, _ := filepath.Abs("../../examples/vault")
	in, client := io.Pipe()
	defer client.Close()
	out := &firstWrite{written: make(chan struct{})}
	var stderr sharedtest.SyncBuffer
	e := &env{stdin: in, stdout: out, stderr: &stderr, getenv: func(string) string { return "" }}
	ctx, interrupt := context.WithCancel(context.Background())
	defer interrupt()
	exited := make(chan int, 1)
	go func() {
		exited <- run(ctx, e, []string{"mcp", "--vault", example, "--db", filepath.Join(t.TempDir(), "j.db"), "--watch=false"})
	}()
	go client.Write([]byte(initializeBody + "\n"))
	select {
	case <-out.written: // serving: the client has its answer
	case code := <-exited:
		t.Fatalf("jarvis mcp exited with %d before answering: %s", code, stderr.String())
	}
	interrupt()
	code := <-exited
	log := stderr.String()
	if code != 130 || strings.Contains(log, "level=ERROR") ||
		!strings.HasSuffix(log, "jarvis: interrupted; the server stopped with the index consistent (any index work cut short is finished at the next start)\n") {
		t.Fatalf("exit %d, stderr:\n%s\nwant 130, no error logged, and the interruption said plainly", code, log)
	}
}

// TestInterruptedCommandsExit130: whatever error a command returns once
// the user has interrupted it (a query stopped midway, vectors not made,
// doctor's report of checks cut short) is the interruption, said plainly
// in that command's words, with 130; a command that says it itself, as
// model pull does, is left to.
func TestInterruptedCommandsExit130(t *testing.T) {
	ctx, interrupt := context.WithCancel(context.Background())
	interrupt()
	for _, c := range commands() {
		for _, err := range []error{errors.New("interrupted (9)"), fmt.Errorf("embed: %w", errNoVectors), &exitError{code: 1}} {
			var stderr bytes.Buffer
			code := exitCode(ctx, &env{stderr: &stderr}, c, err)
			want := "jarvis: interrupted\n"
			if c.interrupted != "" {
				want = "jarvis: interrupted; " + c.interrupted + "\n"
			}
			if code != 130 || stderr.String() != want {
				t.Errorf("%s, %v: exit %d, %q; want 130, %q", c.name, err, code, stderr.String(), want)
			}
		}
	}
	var stderr bytes.Buffer
	own := &exitError{code: 130, err: errors.New("interrupted; nothing was installed")}
	if code := exitCode(ctx, &env{stderr: &stderr}, command{name: "model"}, own); code != 130 || stderr.String() != "jarvis: interrupted; nothing was installed\n" {
		t.Errorf("model's own interruption: exit %d, %q", code, stderr.String())
	}
}

// TestREADMETestStepsAreCIs: the README's steps to run the tests are the
// ones .ci/run takes: the npm ci of test/interop, then go test ./....
func TestREADMETestStepsAreCIs(t *testing.T) {
	readme, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	ci, err := os.ReadFile(filepath.Join("..", "..", ".ci", "run"))
	if err != nil {
		t.Fatal(err)
	}
	_, quick, _ := strings.Cut(string(readme), "## Quick start")
	quick, _, _ = strings.Cut(quick, "\n## ")
	for _, step := range []string{"npm ci --prefix test/interop", "go test ./..."} {
		if !strings.Contains(quick, "\n"+step+" ") {
			t.Errorf("the README's Quick start does not give the step %q", step)
		}
		if !strings.Contains(string(ci), "\n"+step) {
			t.Errorf(".ci/run does not take the step %q", step)
		}
	}
	if strings.Index(quick, "npm ci") > strings.Index(quick, "\ngo test ./...") {
		t.Error("the README's Quick start runs the tests before installing what they need")
	}
}

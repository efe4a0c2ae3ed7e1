package sharedtest

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
)

func TestSkippedLine(t *testing.T) {
	for _, tc := range []struct {
		name            string
		shared, interop bool
		want            []string // "" for no line
	}{
		{"everything there", true, true, nil},
		{"no shared data", false, true, []string{"the tests on the Obsidian Help vault and the retrieval datasets", "put the shared folder beside the checkout"}},
		{"no Node packages", true, false, []string{"the MCP interop and conformance suites", "`npm ci --prefix test/interop`"}},
		{"neither", false, false, []string{"retrieval datasets (", ") and the MCP interop"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := skippedLine(tc.shared, tc.interop)
			if tc.want == nil {
				if got != "" {
					t.Fatalf("line %q; want none", got)
				}
				return
			}
			if !strings.HasPrefix(got, "jarvis: on this machine go test skips ") || !strings.HasSuffix(got, "; with CI=true these are failures.\n") || strings.Count(got, "\n") != 1 {
				t.Errorf("line %q is not one line saying what go test skipped", got)
			}
			for _, w := range tc.want {
				if !strings.Contains(got, w) {
					t.Errorf("line %q lacks %q", got, w)
				}
			}
		})
	}
}

// terminalBuffer is a terminal that records what is written to it.
type terminalBuffer struct{ strings.Builder }

func (*terminalBuffer) Close() error { return nil }

// TestTellOncePerRun: of the test binaries of one go test run (one work
// folder), only the first writes the line; another run writes it again,
// and without a terminal nothing is written.
func TestTellOncePerRun(t *testing.T) {
	var term terminalBuffer
	open := func() (io.WriteCloser, error) { return &term, nil }
	run := t.TempDir()
	tell(open, run, "line\n")
	tell(open, run, "line\n")
	if term.String() != "line\n" {
		t.Fatalf("two binaries of one run wrote %q; want the line once", term.String())
	}
	tell(open, t.TempDir(), "line\n")
	if term.String() != "line\nline\n" {
		t.Fatalf("a second run wrote %q in all; want the line again", term.String())
	}
	tell(func() (io.WriteCloser, error) { return nil, errors.New("no terminal") }, t.TempDir(), "line\n")
	tell(open, "", "alone\n")
	if term.String() != "line\nline\nalone\n" {
		t.Fatalf("wrote %q; want nothing without a terminal, and the line from a binary not run by go test", term.String())
	}
}

// TestUncacheLeavesTheFolder: uncache changes into a link and back; the
// test binary's folder and $PWD are as they were.
func TestUncacheLeavesTheFolder(t *testing.T) {
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	pwd := os.Getenv("PWD")
	run := t.TempDir()
	uncache(run)
	if got, _ := os.Getwd(); got != wd {
		t.Errorf("folder %s after uncache; want %s", got, wd)
	}
	if got := os.Getenv("PWD"); got != pwd {
		t.Errorf("$PWD %q after uncache; want %q", got, pwd)
	}
	if runtime.GOOS != "windows" {
		if _, err := os.Lstat(filepath.Join(run, "jarvis-cwd-"+strconv.Itoa(os.Getpid()))); err != nil {
			t.Errorf("no link in the run's folder: %v", err)
		}
	}
}

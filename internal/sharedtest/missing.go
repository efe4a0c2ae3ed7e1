package sharedtest

import (
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
)

// Missing ends a test whose data or tools are not on this machine: a
// failure under CI=true, where everything must be there; elsewhere a
// skip, and a line to the person at the terminal (see tellSkipped).
func Missing(tb testing.TB, what string, err error) {
	tb.Helper()
	if os.Getenv("CI") == "true" {
		tb.Fatalf("%s (CI=true): %v", what, err)
	}
	tellSkipped(terminal, goTestDir())
	tb.Skipf("%s: %v", what, err)
}

// Interop is test/interop, the MCP interop and conformance suites, or
// ends the test (Missing) when its Node packages are not installed.
func Interop(tb testing.TB) string {
	tb.Helper()
	dir := interopDir()
	if _, err := os.Stat(filepath.Join(dir, "node_modules", "@modelcontextprotocol")); err != nil {
		Missing(tb, "Node packages for the interop tests are not installed; run `npm ci --prefix test/interop` in "+repoRoot(), err)
	}
	return dir
}

// repoRoot is the repository this package is in.
func repoRoot() string {
	_, file, _, _ := runtime.Caller(0)
	// file is <repo>/internal/sharedtest/missing.go
	return filepath.Join(filepath.Dir(file), "..", "..")
}

func interopDir() string { return filepath.Join(repoRoot(), "test", "interop") }

// skippedLine names the suites go test skips on this machine, and why,
// in one line; "" when none is. Each test binary can tell them all, as
// they depend on the machine, not on the package: ../shared (or
// $JARVIS_SHARED), and the Node packages of test/interop.
func skippedLine(shared, interop bool) string {
	var parts []string
	if !shared {
		parts = append(parts, "the tests on the Obsidian Help vault and the retrieval datasets ("+
			Root()+" is missing: put the shared folder beside the checkout)")
	}
	if !interop {
		parts = append(parts, "the MCP interop and conformance suites (run `npm ci --prefix test/interop` first; they need Node and npm)")
	}
	if len(parts) == 0 {
		return ""
	}
	return "jarvis: on this machine go test skips " + strings.Join(parts, " and ") + "; with CI=true these are failures.\n"
}

// told makes the line one per test binary; tell makes it one per go test
// run.
var told sync.Once

// tellSkipped writes skippedLine, once per go test run, to the terminal
// open gives, and keeps the result of this test binary out of the test
// cache (uncache). In package-list mode (go test ./...) the go command
// shows nothing a passing package's test binary writes, to stdout or
// stderr, so the line goes to the terminal itself: where there is none
// (CI, an editor) open fails and nothing is said; go test -v shows the
// skips.
func tellSkipped(open func() (io.WriteCloser, error), dir string) {
	told.Do(func() {
		line := skippedLine(exists(Root()), exists(filepath.Join(interopDir(), "node_modules", "@modelcontextprotocol")))
		if line == "" {
			return
		}
		uncache(dir)
		tell(open, dir, line)
	})
}

// tell writes line to the terminal open gives, unless another test binary
// of the same go test run has: the binaries of a run's packages run at
// once, and the first to create the marker file in dir (the go command's
// work folder, removed when it exits) writes it. Without dir (a binary
// not run by go test) the line is written.
func tell(open func() (io.WriteCloser, error), dir, line string) {
	if dir != "" {
		f, err := os.OpenFile(filepath.Join(dir, "jarvis-skipped"), os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o644)
		if err != nil {
			return // another binary of this run has told, or none can
		}
		f.Close()
	}
	w, err := open()
	if err != nil {
		return
	}
	defer w.Close()
	io.WriteString(w, line)
}

// uncache keeps the result of a test binary that skipped for want of data
// out of the go command's test cache, so that the next go test ./...
// runs it again: it says the line again, and runs the tests once the data
// is there. (The cache is keyed on the files a test used only inside the
// module, so ../shared appearing would not make it run again.) The go
// command replays the folders a test binary changed into, as its test log
// names them (os.Getwd after each change, which gives $PWD when that is
// the same folder), to decide whether a cached result holds. So this
// changes into a link to the folder it is in already, made in the run's
// work folder dir, and back: the folder never changes, so tests running
// beside it are not disturbed, and next time the link is gone with the
// work folder, so the result does not hold.
func uncache(dir string) {
	if dir == "" {
		return
	}
	wd, err := os.Getwd()
	if err != nil {
		return
	}
	link := filepath.Join(dir, "jarvis-cwd-"+strconv.Itoa(os.Getpid()))
	if os.Symlink(wd, link) != nil {
		return
	}
	pwd, had := os.LookupEnv("PWD")
	os.Setenv("PWD", link)
	if os.Chdir(link) == nil {
		os.Setenv("PWD", wd)
		os.Chdir(wd)
	}
	if had {
		os.Setenv("PWD", pwd)
	} else {
		os.Unsetenv("PWD")
	}
}

func exists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

// terminal opens the terminal the tests were started from.
func terminal() (io.WriteCloser, error) {
	name := "/dev/tty"
	if runtime.GOOS == "windows" {
		name = "CONOUT$"
	}
	return os.OpenFile(name, os.O_WRONLY, 0)
}

// goTestDir is the work folder of the go command that runs this test
// binary ($WORK/b001/pkg.test), shared by the binaries of one go test run
// and removed when it ends; "" when the binary was not built by go test
// (go test -c, then run by hand), whose one binary tells once anyway.
func goTestDir() string {
	exe, err := os.Executable()
	if err != nil {
		return ""
	}
	work := filepath.Dir(filepath.Dir(exe))
	if !strings.HasPrefix(filepath.Base(work), "go-build") {
		return ""
	}
	return work
}

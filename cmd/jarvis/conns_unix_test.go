//go:build unix

package main

import (
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jarvis-mcp/jarvis/internal/sharedtest"
)

// TestMCPHTTPUnderAFileLimit runs `jarvis mcp --http` allowed 256 open
// files, and opens 400 connections to it that send nothing or a request
// without the token, kept alive: more than it has descriptors for. A
// client with the token is served all the same.
func TestMCPHTTPUnderAFileLimit(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	vault := t.TempDir()
	sharedtest.WriteFile(t, vault, "Note.md", "# Note\nSome text.\n")
	args := []string{"mcp", "--http", "127.0.0.1:0", "--vault", vault, "--db", filepath.Join(t.TempDir(), "j.db"), "--watch=false"}
	// ulimit -n sets the hard limit too, which the Go runtime cannot
	// raise the soft one past.
	cmd := exec.Command("sh", "-c", `ulimit -n 256 && exec "$0"`, exe)
	cmd.Env = []string{"HOME=" + t.TempDir(), "PATH=" + os.Getenv("PATH"), envHTTPToken + "=" + connsToken,
		"JARVIS_TEST_ARGS=" + strings.Join(args, "\x1f")}
	var stderr sharedtest.SyncBuffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
	})
	var addr string
	for deadline := time.Now().Add(10 * time.Second); addr == ""; time.Sleep(20 * time.Millisecond) {
		if m := servingURL.FindStringSubmatch(stderr.String()); m != nil {
			addr = strings.TrimSuffix(strings.TrimPrefix(m[1], "http://"), "/mcp")
		} else if time.Now().After(deadline) {
			t.Fatalf("jarvis mcp is not serving after 10s: %s", stderr.String())
		}
	}
	for i := range 400 {
		c, err := net.DialTimeout("tcp", addr, 10*time.Second)
		if err != nil {
			t.Fatalf("connection %d: %v", i, err)
		}
		t.Cleanup(func() { c.Close() })
		if i%4 != 0 {
			fmt.Fprintf(c, "GET /mcp HTTP/1.1\r\nHost: %s\r\n\r\n", addr)
		}
	}
	if code := authorizedInitialize(t, addr); code != http.StatusOK {
		t.Fatalf("a client with the token: HTTP %d; log:\n%s", code, stderr.String())
	}
}

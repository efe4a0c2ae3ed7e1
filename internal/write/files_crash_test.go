package write

import (
	"bufio"
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jarvis-mcp/jarvis/internal/vault"
)

// crashEnv names the vault folder a re-run of the test binary writes to
// until it is killed.
const crashEnv = "JARVIS_WRITE_CRASH_VAULT"

// version is the n-th complete content of the crash test's note: it grows
// with n, and its first line says which it is.
func version(n int) []byte {
	return fmt.Appendf(nil, "version %d\r\n%s", n, strings.Repeat(fmt.Sprintf("line of version %d\n", n), n%2000))
}

// TestCrashLeavesOneWholeVersion kills a process writing a note in a loop
// at random moments, and wants the note afterwards to be one complete
// version and nothing left that the index would take for a note.
func TestCrashLeavesOneWholeVersion(t *testing.T) {
	if dir := os.Getenv(crashEnv); dir != "" {
		writeForever(dir)
		return
	}
	dir := t.TempDir()
	note := filepath.Join(dir, "note.md")
	if err := os.WriteFile(note, version(0), 0o644); err != nil {
		t.Fatal(err)
	}
	last := 0
	for round := range 25 {
		cmd := exec.Command(os.Args[0], "-test.run=^TestCrashLeavesOneWholeVersion$")
		cmd.Env = append(os.Environ(), crashEnv+"="+dir)
		out, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		cmd.Stderr = os.Stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		// The helper says when it has written once; it is killed some
		// random time into writing after that.
		line, err := bufio.NewReader(out).ReadString('\n')
		if err != nil || line != "writing\n" {
			cmd.Process.Kill()
			cmd.Wait()
			t.Fatalf("round %d: the writer did not start: %q, %v", round, line, err)
		}
		time.Sleep(time.Duration(rand.IntN(40_000)) * time.Microsecond)
		if err := cmd.Process.Kill(); err != nil {
			t.Fatal(err)
		}
		cmd.Wait()

		b, err := os.ReadFile(note)
		if err != nil {
			t.Fatalf("round %d: %v", round, err)
		}
		first, _, _ := strings.Cut(string(b), "\r\n")
		n, err := strconv.Atoi(strings.TrimPrefix(first, "version "))
		if err != nil || string(b) != string(version(n)) {
			t.Fatalf("round %d: the note is not one whole version (%d bytes, first line %q)", round, len(b), first)
		}
		if n <= last && round > 0 {
			t.Logf("round %d: killed before a write completed (still version %d)", round, n)
		}
		last = n
		files, warnings, err := vault.Scan(context.Background(), dir, nil)
		if err != nil || len(files) != 1 || files[0].Path != "note.md" || len(warnings) != 0 {
			t.Fatalf("round %d: the index would see %+v (warnings %v, %v), want note.md alone", round, files, warnings, err)
		}
	}
	if last < 25 {
		t.Errorf("only %d writes completed in 25 rounds: the writer hardly ran", last)
	}
}

// writeForever is the crash test's writer: it reads the note and writes
// its next version with the etag it read, until it is killed.
func writeForever(dir string) {
	v, err := OpenVault(dir, nil)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	ctx := context.Background()
	for i := 0; ; i++ {
		data, tag, err := v.Read(ctx, "note.md")
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(2)
		}
		first, _, _ := strings.Cut(string(data), "\r\n")
		n, _ := strconv.Atoi(strings.TrimPrefix(first, "version "))
		if _, err := v.Apply(ctx, Change{Tool: "crash-test", Files: []FileChange{{Path: "note.md", Before: tag, After: version(n + 1)}}}); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(2)
		}
		if i == 0 {
			fmt.Println("writing")
		}
	}
}

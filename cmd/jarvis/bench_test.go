//go:build unix

package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/jarvis-mcp/jarvis/internal/vaultgen"
)

// BenchmarkIndexProcess runs `jarvis index` as its own process over a
// generated 10,000-note vault, as a user would, and reports the wall time
// and the peak resident memory of the process for a first (full) run and
// a second (no-op) run.
func BenchmarkIndexProcess(b *testing.B) {
	root := filepath.Join(b.TempDir(), "vault")
	if _, err := vaultgen.Generate(root, vaultgen.Options{Notes: 10000, Seed: 1}); err != nil {
		b.Fatal(err)
	}
	exe, err := os.Executable()
	if err != nil {
		b.Fatal(err)
	}
	runOnce := func(db string) (maxRSSKB int64) {
		cmd := exec.Command(exe)
		cmd.Env = append(os.Environ(), "JARVIS_TEST_ARGS="+strings.Join([]string{"index", "--vault", root, "--db", db, "--json"}, "\x1f"))
		if out, err := cmd.CombinedOutput(); err != nil {
			b.Fatalf("jarvis index: %v\n%s", err, out)
		}
		return cmd.ProcessState.SysUsage().(*syscall.Rusage).Maxrss // KB on Linux
	}
	for _, mode := range []string{"full", "noop"} {
		b.Run(mode, func(b *testing.B) {
			dir := b.TempDir()
			var peak int64
			i := 0
			for b.Loop() {
				b.StopTimer()
				i++
				db := filepath.Join(dir, strings.Repeat("x", i)+".db")
				if mode == "noop" {
					runOnce(db)
				}
				b.StartTimer()
				peak = max(peak, runOnce(db))
			}
			b.ReportMetric(float64(peak)/1024, "peak-RSS-MB")
		})
	}
}

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
	runOnce := func(db string, embed bool) (maxRSSKB int64) {
		args := []string{"index", "--vault", root, "--db", db, "--json"}
		if !embed {
			args = append(args, "--no-embed")
		}
		cmd := exec.Command(exe)
		cmd.Env = append(os.Environ(), "JARVIS_TEST_ARGS="+strings.Join(args, "\x1f"))
		if out, err := cmd.CombinedOutput(); err != nil {
			b.Fatalf("jarvis index: %v\n%s", err, out)
		}
		return cmd.ProcessState.SysUsage().(*syscall.Rusage).Maxrss // KB on Linux
	}
	// full and noop exclude embeddings (--no-embed), as the index targets
	// do; full+embed is a first run that also embeds every chunk with the
	// lexical embedder.
	for _, mode := range []string{"full", "noop", "full+embed"} {
		b.Run(mode, func(b *testing.B) {
			dir := b.TempDir()
			var peak int64
			i := 0
			for b.Loop() {
				b.StopTimer()
				i++
				db := filepath.Join(dir, strings.Repeat("x", i)+".db")
				if mode == "noop" {
					runOnce(db, false)
				}
				b.StartTimer()
				peak = max(peak, runOnce(db, mode == "full+embed"))
			}
			b.ReportMetric(float64(peak)/1024, "peak-RSS-MB")
		})
	}
}

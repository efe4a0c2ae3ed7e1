//go:build linux

package main

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	mcpsdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/jarvis-mcp/jarvis/internal/embed/embedtest"
	"github.com/jarvis-mcp/jarvis/internal/mcp"
	"github.com/jarvis-mcp/jarvis/internal/vaultgen"
)

// BenchmarkLocalModelVault measures a local model over a generated vault,
// as a user runs it: `jarvis index` embedding every chunk (its own
// process, after a run that only parsed), then `jarvis mcp` answering
// search-semantic over stdio. The model has the real shape and vocabulary
// and random weights: the cost is the real model's, the rankings are not.
// JARVIS_BENCH_NOTES (default 10000) sizes the vault; JARVIS_BENCH_MODEL is
// static (potion-base-8M's shape, the default), minilm or bge-small.
func BenchmarkLocalModelVault(b *testing.B) {
	notes := 10000
	if n, err := strconv.Atoi(os.Getenv("JARVIS_BENCH_NOTES")); err == nil && n > 0 {
		notes = n
	}
	var model string
	switch os.Getenv("JARVIS_BENCH_MODEL") {
	case "", "static":
		model = embedtest.RandomStatic(b, 256)
	case "minilm":
		model = embedtest.RandomBERT(b, embedtest.MiniLML6)
	case "bge-small":
		model = embedtest.RandomBERT(b, embedtest.BGESmall)
	default:
		b.Fatalf("JARVIS_BENCH_MODEL %q: give static, minilm or bge-small", os.Getenv("JARVIS_BENCH_MODEL"))
	}
	root := filepath.Join(b.TempDir(), "vault")
	if _, err := vaultgen.Generate(root, vaultgen.Options{Notes: notes, Seed: 1}); err != nil {
		b.Fatal(err)
	}
	db := filepath.Join(b.TempDir(), "j.db")
	exe, err := os.Executable()
	if err != nil {
		b.Fatal(err)
	}
	env := append(cleanEnv(b.TempDir()), "JARVIS_EMBEDDER="+model)
	index := func(args ...string) (took time.Duration, peakKB int64) {
		cmd := exec.Command(exe)
		cmd.Env = append(env, "JARVIS_TEST_ARGS="+strings.Join(append([]string{"index", "--vault", root, "--db", db, "--json"}, args...), "\x1f"))
		t0 := time.Now()
		if out, err := cmd.CombinedOutput(); err != nil {
			b.Fatalf("jarvis index: %v\n%s", err, out)
		}
		return time.Since(t0), cmd.ProcessState.SysUsage().(*syscall.Rusage).Maxrss
	}
	b.StopTimer()
	index("--no-embed")
	took, peak := index()
	embedded := countVectors(b, db)

	cmd := exec.Command(exe)
	cmd.Env = append(env, "JARVIS_TEST_ARGS="+strings.Join([]string{"mcp", "--vault", root, "--db", db, "--watch=false"}, "\x1f"))
	cs, err := mcpsdk.NewClient(&mcpsdk.Implementation{Name: "bench", Version: "1"}, nil).
		Connect(context.Background(), &mcpsdk.CommandTransport{Command: cmd}, nil)
	if err != nil {
		b.Fatal(err)
	}
	defer cs.Close()
	waitReady(b, cs)
	queries := []string{"how do we roll back a failed deployment", "retry logic for background jobs",
		"notes about the quarterly budget review", "what did we decide about the database migration"}
	var lat []time.Duration
	b.StartTimer()
	for i := 0; b.Loop(); i++ {
		t0 := time.Now()
		res, err := cs.CallTool(context.Background(), &mcpsdk.CallToolParams{Name: mcp.ToolSearchSemantic,
			Arguments: map[string]any{"query": queries[i%len(queries)]}})
		if err != nil || res.IsError {
			b.Fatalf("search-semantic: %v %+v", err, res)
		}
		lat = append(lat, time.Since(t0))
	}
	b.StopTimer()
	// Reported after the loop, which starts the metrics afresh.
	b.ReportMetric(took.Seconds(), "embed-s")
	b.ReportMetric(float64(embedded)/took.Seconds(), "chunks-per-s")
	b.ReportMetric(float64(embedded), "chunks")
	b.ReportMetric(float64(peak)/1024, "index-peak-RSS-MB")
	slices.Sort(lat)
	b.ReportMetric(float64(lat[len(lat)/2])/1e6, "semantic-p50-ms")
	b.ReportMetric(float64(lat[len(lat)*95/100])/1e6, "semantic-p95-ms")
	rss, hwm := procMemory(b, cmd.Process.Pid)
	b.ReportMetric(rss, "server-RSS-MB")
	b.ReportMetric(hwm, "server-peak-RSS-MB")
}

// procMemory reads a process's resident memory now and at its peak, in
// MB, from /proc (Linux).
func procMemory(b *testing.B, pid int) (rss, peak float64) {
	data, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "status"))
	if err != nil {
		b.Logf("no /proc: memory not measured: %v", err)
		return 0, 0
	}
	for _, line := range strings.Split(string(data), "\n") {
		f := strings.Fields(line)
		if len(f) < 2 {
			continue
		}
		kb, _ := strconv.ParseFloat(f[1], 64)
		switch f[0] {
		case "VmRSS:":
			rss = kb / 1024
		case "VmHWM:":
			peak = kb / 1024
		}
	}
	return rss, peak
}

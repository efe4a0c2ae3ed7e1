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
	"testing"
	"time"

	mcpsdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/jarvis-mcp/jarvis/internal/mcp"
	"github.com/jarvis-mcp/jarvis/internal/vaultgen"
)

// startServer runs `jarvis mcp` as its own process over stdio, the way a
// client starts it, and returns the session, the process and how long
// initialize took.
func startServer(b *testing.B, vaultDir, db string) (*mcpsdk.ClientSession, *exec.Cmd, time.Duration) {
	b.Helper()
	exe, err := os.Executable()
	if err != nil {
		b.Fatal(err)
	}
	cmd := exec.Command(exe)
	cmd.Env = append(os.Environ(), "JARVIS_TEST_ARGS="+strings.Join([]string{"mcp", "--vault", vaultDir, "--db", db}, "\x1f"))
	t0 := time.Now()
	cs, err := mcpsdk.NewClient(&mcpsdk.Implementation{Name: "bench", Version: "1"}, nil).
		Connect(context.Background(), &mcpsdk.CommandTransport{Command: cmd}, nil)
	if err != nil {
		b.Fatal(err)
	}
	return cs, cmd, time.Since(t0)
}

func waitReady(b *testing.B, cs *mcpsdk.ClientSession) {
	b.Helper()
	deadline := time.Now().Add(3 * time.Hour)
	for time.Now().Before(deadline) {
		res, err := cs.CallTool(context.Background(), &mcpsdk.CallToolParams{Name: mcp.ToolListVaults})
		if err != nil {
			b.Fatal(err)
		}
		if m, ok := res.StructuredContent.(map[string]any); ok {
			// Ready, and the vectors made: embedding runs after indexing.
			if idx, ok := m["index"].(map[string]any); ok && idx["state"] == "ready" {
				if e, ok := idx["embedding"].(map[string]any); ok && (e["state"] == "done" || e["state"] == "failed") {
					return
				}
			}
		}
		time.Sleep(200 * time.Millisecond)
	}
	b.Fatal("the background index did not finish")
}

// toolCall is one tools/call a benchmark makes.
type toolCall struct {
	name string
	args map[string]any
}

// timeCall makes one tools/call and returns how long its round trip took;
// an error or an error result fails the benchmark.
func timeCall(b *testing.B, cs *mcpsdk.ClientSession, name string, args map[string]any) time.Duration {
	b.Helper()
	t0 := time.Now()
	res, err := cs.CallTool(context.Background(), &mcpsdk.CallToolParams{Name: name, Arguments: args})
	if err != nil || res.IsError {
		b.Fatalf("%s: %v %+v", name, err, res)
	}
	return time.Since(t0)
}

// timeRounds makes every call once a round for as long as b.Loop goes on
// and returns each tool's round trips.
func timeRounds(b *testing.B, cs *mcpsdk.ClientSession, calls []toolCall) map[string][]time.Duration {
	lat := map[string][]time.Duration{}
	for b.Loop() {
		for _, c := range calls {
			lat[c.name] = append(lat[c.name], timeCall(b, cs, c.name, c.args))
		}
	}
	return lat
}

// reportLatencies reports each tool's p50 and p95 in milliseconds.
func reportLatencies(b *testing.B, lat map[string][]time.Duration) {
	for name, ls := range lat {
		slices.Sort(ls)
		b.ReportMetric(float64(ls[len(ls)/2])/1e6, name+"-p50-ms")
		b.ReportMetric(float64(ls[len(ls)*95/100])/1e6, name+"-p95-ms")
	}
}

// cpuTicks is the user+system CPU time of a process in clock ticks.
func cpuTicks(b *testing.B, pid int) int64 {
	b.Helper()
	data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		b.Fatal(err)
	}
	f := strings.Fields(string(data[strings.LastIndexByte(string(data), ')')+2:]))
	u, _ := strconv.ParseInt(f[11], 10, 64)
	s, _ := strconv.ParseInt(f[12], 10, 64)
	return u + s
}

// BenchmarkMCP measures `jarvis mcp` over stdio on a generated vault of
// 10,000 notes: initialize with no index yet, a tools/call round trip for
// each tool once indexed (p50 and p95 per tool), and the CPU the idle
// server uses over JARVIS_IDLE_SECONDS (60 by default) with the watcher on.
func BenchmarkMCP(b *testing.B) {
	root := filepath.Join(b.TempDir(), "vault")
	if _, err := vaultgen.Generate(root, vaultgen.Options{Notes: 10000, Seed: 1}); err != nil {
		b.Fatal(err)
	}
	db := filepath.Join(b.TempDir(), "j.db")
	cs, cmd, initTook := startServer(b, root, db)
	defer cs.Close()
	// Tools answer while the first index runs.
	if _, err := cs.CallTool(context.Background(), &mcpsdk.CallToolParams{Name: mcp.ToolSearchVault, Arguments: map[string]any{"query": "deployment"}}); err != nil {
		b.Fatal(err)
	}
	waitReady(b, cs)

	first, err := cs.CallTool(context.Background(), &mcpsdk.CallToolParams{Name: mcp.ToolSearchVault, Arguments: map[string]any{"query": "deployment pipeline"}})
	if err != nil || first.IsError {
		b.Fatalf("search: %v %+v", err, first)
	}
	note := first.StructuredContent.(map[string]any)["results"].([]any)[0].(map[string]any)["path"].(string)
	calls := []toolCall{
		{mcp.ToolSearchVault, map[string]any{"query": "deployment pipeline"}},
		{mcp.ToolSearchSemantic, map[string]any{"query": "how do we roll back a failed deployment"}},
		{mcp.ToolSearchCombined, map[string]any{"query": "retry logic for background jobs"}},
		{mcp.ToolSearchGraph, map[string]any{"query_note_path": note, "depth": 2}},
		{mcp.ToolReadNote, map[string]any{"path": note}},
		{mcp.ToolListVaults, nil},
		{mcp.ToolHealthStatus, nil},
	}
	lat := timeRounds(b, cs, calls)
	b.ReportMetric(float64(initTook)/1e6, "initialize-ms")
	reportLatencies(b, lat)

	idle := 60
	if s, err := strconv.Atoi(os.Getenv("JARVIS_IDLE_SECONDS")); err == nil && s > 0 {
		idle = s
	}
	b.StopTimer()
	before := cpuTicks(b, cmd.Process.Pid)
	time.Sleep(time.Duration(idle) * time.Second)
	after := cpuTicks(b, cmd.Process.Pid)
	// Linux clock ticks are 1/100 s.
	b.ReportMetric(float64(after-before)/100/float64(idle)*100, "idle-cpu-%")
}

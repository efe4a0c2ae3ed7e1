//go:build linux

package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	mcpsdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/jarvis-mcp/jarvis/internal/mcp"
	"github.com/jarvis-mcp/jarvis/internal/vaultgen"
)

// BenchmarkScale measures jarvis as a user runs it on generated vaults of
// growing size (seed 1), each figure a separate metric so that the growth
// from one size to the next can be read off:
//
//   - index-cpu-s, index-s, index-peak-RSS-MB: a first `jarvis index` with
//     the lexical embedder (notes, chunks, vectors), its own process;
//   - noop-s: the same command again with nothing changed;
//   - ready-s: from starting `jarvis mcp` on that index to every tool at
//     full quality (index fresh, vectors in memory);
//   - idle-RSS-MB: the server's resident memory once ready;
//   - <tool>-p50-ms / -p95-ms: tools/call round trips over stdio, the graph
//     tools on the note with the most incoming links, once the health
//     checks the first health-status starts have finished;
//   - soak-RSS-MB, soak-peak-RSS-MB: the server's memory after
//     JARVIS_SCALE_SOAK seconds (0 by default) of mixed queries.
//
// JARVIS_SCALE_NOTES lists the sizes (default 1000,10000; the issue's
// figures use 1000,10000,100000). JARVIS_SCALE_DIR, when set, keeps the
// generated vaults there between runs: a 100k-note vault takes about a
// minute to write.
//
//	JARVIS_SCALE_NOTES=1000,10000,100000 JARVIS_SCALE_DIR=/tmp/scale \
//	  go test -run '^$' -bench Scale -benchtime 20x -timeout 2h ./cmd/jarvis/
func BenchmarkScale(b *testing.B) {
	sizes := []int{1000, 10000}
	if s := os.Getenv("JARVIS_SCALE_NOTES"); s != "" {
		sizes = nil
		for _, f := range strings.Split(s, ",") {
			n, err := strconv.Atoi(strings.TrimSpace(f))
			if err != nil || n <= 0 {
				b.Fatalf("JARVIS_SCALE_NOTES=%q: give note counts separated by commas", s)
			}
			sizes = append(sizes, n)
		}
	}
	soak := 0
	if s, err := strconv.Atoi(os.Getenv("JARVIS_SCALE_SOAK")); err == nil && s > 0 {
		soak = s
	}
	for _, n := range sizes {
		b.Run(fmt.Sprintf("notes=%d", n), func(b *testing.B) { benchScale(b, n, time.Duration(soak)*time.Second) })
	}
}

// scaleVault returns a generated vault of n notes, reusing the one kept in
// JARVIS_SCALE_DIR when there is one.
func scaleVault(b *testing.B, n int) string {
	b.Helper()
	dir := os.Getenv("JARVIS_SCALE_DIR")
	if dir == "" {
		root := filepath.Join(b.TempDir(), "vault")
		if _, err := vaultgen.Generate(root, vaultgen.Options{Notes: n, Seed: 1}); err != nil {
			b.Fatal(err)
		}
		return root
	}
	root := filepath.Join(dir, fmt.Sprintf("vault-%d-seed1", n))
	done := root + ".done"
	if _, err := os.Stat(done); err == nil {
		return root
	}
	if err := os.RemoveAll(root); err != nil {
		b.Fatal(err)
	}
	if _, err := vaultgen.Generate(root, vaultgen.Options{Notes: n, Seed: 1}); err != nil {
		b.Fatal(err)
	}
	if err := os.WriteFile(done, nil, 0o644); err != nil {
		b.Fatal(err)
	}
	return root
}

func benchScale(b *testing.B, n int, soak time.Duration) {
	root := scaleVault(b, n)
	db := filepath.Join(b.TempDir(), "j.db")
	exe, err := os.Executable()
	if err != nil {
		b.Fatal(err)
	}
	env := cleanEnv(b.TempDir())
	index := func() (wall, cpu time.Duration, peakKB int64) {
		cmd := exec.Command(exe)
		cmd.Env = append(env, "JARVIS_TEST_ARGS="+strings.Join([]string{"index", "--vault", root, "--db", db, "--json"}, "\x1f"))
		t0 := time.Now()
		if out, err := cmd.CombinedOutput(); err != nil {
			b.Fatalf("jarvis index: %v\n%s", err, out)
		}
		ru := cmd.ProcessState.SysUsage().(*syscall.Rusage)
		return time.Since(t0), time.Duration(ru.Utime.Nano() + ru.Stime.Nano()), ru.Maxrss
	}
	indexWall, indexCPU, indexPeak := index()
	noop, _, _ := index()
	hub := largestHub(b, db)

	cmd := exec.Command(exe)
	cmd.Env = append(env, "JARVIS_TEST_ARGS="+strings.Join([]string{"mcp", "--vault", root, "--db", db, "--watch=false"}, "\x1f"))
	t0 := time.Now()
	cs, err := mcpsdk.NewClient(&mcpsdk.Implementation{Name: "bench", Version: "1"}, nil).
		Connect(context.Background(), &mcpsdk.CommandTransport{Command: cmd}, nil)
	if err != nil {
		b.Fatal(err)
	}
	defer cs.Close()
	waitReady(b, cs) // the index fresh and every vector in memory
	ready := time.Since(t0)
	idleRSS, _ := procMemory(b, cmd.Process.Pid)

	calls := []toolCall{
		{mcp.ToolSearchVault, map[string]any{"query": "deployment pipeline review"}},
		{mcp.ToolSearchSemantic, map[string]any{"query": "how do we roll back a failed deployment"}},
		{mcp.ToolSearchCombined, map[string]any{"query": "retry logic for background jobs"}},
		{mcp.ToolSearchGraph, map[string]any{"query_note_path": hub, "depth": 2}},
		{mcp.ToolReadNote, map[string]any{"path": hub}},
		{mcp.ToolListVaults, nil},
		{mcp.ToolHealthStatus, nil},
	}
	for _, c := range calls { // first calls warm the page cache, as a user's would
		timeCall(b, cs, c.name, c.args)
	}
	// The first health-status starts the slow checks (an integrity check
	// of the whole database among them: seconds of one core at 100k) in
	// the background; the figures are of a server past them.
	waitChecked(b, cs)
	lat := timeRounds(b, cs, calls)
	b.StopTimer()
	// Reported after the loop, which starts the metrics afresh.
	b.ReportMetric(indexWall.Seconds(), "index-s")
	b.ReportMetric(indexCPU.Seconds(), "index-cpu-s")
	b.ReportMetric(float64(indexPeak)/1024, "index-peak-RSS-MB")
	b.ReportMetric(noop.Seconds(), "noop-s")
	b.ReportMetric(ready.Seconds(), "ready-s")
	b.ReportMetric(idleRSS, "idle-RSS-MB")
	reportLatencies(b, lat)
	if soak > 0 {
		mixed := []struct {
			name string
			args func(i int) map[string]any
		}{
			{mcp.ToolSearchVault, func(i int) map[string]any { return map[string]any{"query": soakWords[i%len(soakWords)]} }},
			{mcp.ToolSearchSemantic, func(i int) map[string]any {
				return map[string]any{"query": soakWords[i%len(soakWords)] + " " + soakWords[(i*7+3)%len(soakWords)]}
			}},
			{mcp.ToolSearchCombined, func(i int) map[string]any {
				return map[string]any{"query": soakWords[(i*3+1)%len(soakWords)] + " notes", "limit": 1 + i%50}
			}},
			{mcp.ToolSearchGraph, func(i int) map[string]any { return map[string]any{"query_note_path": hub, "depth": 1 + i%3} }},
			{mcp.ToolReadNote, func(int) map[string]any { return map[string]any{"path": hub} }},
			{mcp.ToolListVaults, func(int) map[string]any { return nil }},
		}
		end := time.Now().Add(soak)
		for i := 0; time.Now().Before(end); i++ {
			m := mixed[i%len(mixed)]
			timeCall(b, cs, m.name, m.args(i/len(mixed)))
		}
		rss, hwm := procMemory(b, cmd.Process.Pid)
		b.ReportMetric(rss, "soak-RSS-MB")
		b.ReportMetric(hwm, "soak-peak-RSS-MB")
	}
}

// soakWords vary the soak's queries so that no answer is the same twice.
var soakWords = []string{"deployment", "budget", "migration", "garden", "recipe", "roadmap", "meeting",
	"onboarding", "latency", "incident", "travel", "reading", "kubernetes", "design review", "retro",
	"hiring", "release notes", "sourdough", "postmortem", "database index"}

// waitChecked waits until health-status reports every check run, none
// under way.
func waitChecked(b *testing.B, cs *mcpsdk.ClientSession) {
	b.Helper()
	deadline := time.Now().Add(10 * time.Minute)
	for time.Now().Before(deadline) {
		res, err := cs.CallTool(context.Background(), &mcpsdk.CallToolParams{Name: mcp.ToolHealthStatus})
		if err != nil {
			b.Fatal(err)
		}
		text := res.Content[0].(*mcpsdk.TextContent).Text
		if !strings.Contains(text, "not checked yet") && !strings.Contains(text, "checking again") {
			return
		}
		time.Sleep(500 * time.Millisecond)
	}
	b.Fatal("the health checks did not finish")
}

// largestHub is the note with the most incoming links.
func largestHub(b *testing.B, db string) string {
	b.Helper()
	raw := openRaw(b, db)
	defer raw.Close()
	var path string
	err := raw.QueryRow(`SELECT f.path FROM links l JOIN files f ON f.id = l.target_id
		GROUP BY l.target_id ORDER BY count(*) DESC, f.path LIMIT 1`).Scan(&path)
	if err != nil {
		b.Fatal(err)
	}
	return path
}

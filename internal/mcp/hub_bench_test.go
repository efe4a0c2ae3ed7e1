//go:build linux

package mcp_test

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"syscall"
	"testing"
	"time"

	mcpsdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/jarvis-mcp/jarvis/internal/config"
	"github.com/jarvis-mcp/jarvis/internal/mcp"
)

// BenchmarkHub measures read-note and search-graph (depth 2) on the note
// with the most incoming links, over an index built beforehand: the
// database JARVIS_BENCH_DB (a copy: the server may write to it) of the
// vault folder JARVIS_BENCH_VAULT, whose name is the folder's. The calls go
// through the SDK on in-memory transports, so validating and encoding the
// answers (and the client's decoding them) is part of each figure. The
// CPU time per call moves less than the latency on a machine shared with
// other work.
//
// The vaults BenchmarkScale generates (cmd/jarvis, JARVIS_SCALE_DIR) and
// an index of one:
//
//	jarvis index --vault $DIR/vault-100000-seed1 --db /tmp/idx.db && cp /tmp/idx.db /tmp/hub.db
//	JARVIS_BENCH_DB=/tmp/hub.db JARVIS_BENCH_VAULT=$DIR/vault-100000-seed1 \
//	  go test -run '^$' -bench Hub -benchtime 200x ./internal/mcp/
func BenchmarkHub(b *testing.B) {
	dbPath, root := os.Getenv("JARVIS_BENCH_DB"), os.Getenv("JARVIS_BENCH_VAULT")
	if dbPath == "" || root == "" {
		b.Skip("JARVIS_BENCH_DB and JARVIS_BENCH_VAULT name an index and its vault")
	}
	hub := largestHub(b, dbPath)
	v := config.Vault{Name: filepath.Base(root), Path: root}
	server := realBackend(b, dbPath, false, v).server(mcp.Options{Version: "bench", Logger: quiet()})
	st, ct := mcpsdk.NewInMemoryTransports()
	ss, err := server.Connect(context.Background(), st, nil)
	if err != nil {
		b.Fatal(err)
	}
	defer ss.Close()
	cs, err := mcpsdk.NewClient(&mcpsdk.Implementation{Name: "bench", Version: "1"}, nil).Connect(context.Background(), ct, nil)
	if err != nil {
		b.Fatal(err)
	}
	defer cs.Close()
	for _, c := range []struct {
		name string
		args map[string]any
	}{
		{mcp.ToolReadNote, map[string]any{"path": hub}},
		{mcp.ToolSearchGraph, map[string]any{"query_note_path": hub, "depth": 2}},
	} {
		b.Run(c.name, func(b *testing.B) {
			var lat []time.Duration
			var size int
			cpu0 := cpuTime()
			for b.Loop() {
				t0 := time.Now()
				res, err := cs.CallTool(context.Background(), &mcpsdk.CallToolParams{Name: c.name, Arguments: c.args})
				lat = append(lat, time.Since(t0))
				if err != nil || res.IsError {
					b.Fatalf("%s: %v %+v", c.name, err, res)
				}
				size = len(res.Content[0].(*mcpsdk.TextContent).Text)
			}
			cpu := cpuTime() - cpu0
			slices.Sort(lat)
			b.ReportMetric(float64(cpu)/1e6/float64(len(lat)), "cpu-ms/op")
			b.ReportMetric(float64(lat[len(lat)/2])/1e6, "p50-ms")
			b.ReportMetric(float64(lat[len(lat)*95/100])/1e6, "p95-ms")
			b.ReportMetric(float64(size), "text-bytes")
		})
	}
}

// cpuTime is the CPU time this process has used.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

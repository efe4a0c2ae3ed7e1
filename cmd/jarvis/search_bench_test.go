//go:build linux

package main

import (
	"context"
	"os"
	"os/exec"
	"strings"
	"testing"

	mcpsdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/jarvis-mcp/jarvis/internal/mcp"
)

// BenchmarkSearchOverIndex measures the search tools of BenchmarkScale
// over stdio, on an index made beforehand (indexing 100k notes takes
// minutes): JARVIS_BENCH_DB names the index, JARVIS_BENCH_VAULT the vault
// it was made from. The server brings the index up to date first, which
// may write to it: give it a copy. Skipped when unset.
//
//	cp /work/scale/idx-100k.db /tmp/kw-100k.db
//	JARVIS_BENCH_DB=/tmp/kw-100k.db JARVIS_BENCH_VAULT=/work/scale/vault-100000-seed1 \
//	  go test -run '^$' -bench SearchOverIndex -benchtime 20x -timeout 30m ./cmd/jarvis/
func BenchmarkSearchOverIndex(b *testing.B) {
	db, root := os.Getenv("JARVIS_BENCH_DB"), os.Getenv("JARVIS_BENCH_VAULT")
	if db == "" || root == "" {
		b.Skip("JARVIS_BENCH_DB and JARVIS_BENCH_VAULT are not set")
	}
	exe, err := os.Executable()
	if err != nil {
		b.Fatal(err)
	}
	cmd := exec.Command(exe)
	cmd.Env = append(cleanEnv(b.TempDir()), "JARVIS_TEST_ARGS="+strings.Join([]string{"mcp", "--vault", root, "--db", db, "--watch=false"}, "\x1f"))
	cs, err := mcpsdk.NewClient(&mcpsdk.Implementation{Name: "bench", Version: "1"}, nil).
		Connect(context.Background(), &mcpsdk.CommandTransport{Command: cmd}, nil)
	if err != nil {
		b.Fatal(err)
	}
	defer cs.Close()
	waitReady(b, cs)
	calls := []toolCall{
		{mcp.ToolSearchVault, map[string]any{"query": "deployment pipeline review"}},
		{mcp.ToolSearchCombined, map[string]any{"query": "retry logic for background jobs"}},
		{mcp.ToolSearchSemantic, map[string]any{"query": "how do we roll back a failed deployment"}},
	}
	for _, c := range calls { // the first calls warm the caches, as a user's would
		timeCall(b, cs, c.name, c.args)
	}
	lat := timeRounds(b, cs, calls)
	b.StopTimer()
	reportLatencies(b, lat)
}

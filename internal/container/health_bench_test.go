package container

import (
	"go.uber.org/fx"

	"context"
	"io"
	"log/slog"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/jarvis-mcp/jarvis/internal/config"
	"github.com/jarvis-mcp/jarvis/internal/health"
	"github.com/jarvis-mcp/jarvis/internal/search/vectors"
	"github.com/jarvis-mcp/jarvis/internal/vaultgen"
)

// BenchmarkHealthStatus measures the server's health-status checks on a
// generated vault of 10,000 notes, indexed with its vectors: "call" is one
// call after the first (what a client asking again and again costs), and
// "16 at once" sixteen callers at the same moment, reporting the slowest.
// The time of each check on the first call is logged with -v.
func BenchmarkHealthStatus(b *testing.B) {
	ctx := context.Background()
	root := filepath.Join(b.TempDir(), "vault")
	if _, err := vaultgen.Generate(root, vaultgen.Options{Notes: 10000, Seed: 1}); err != nil {
		b.Fatal(err)
	}
	cfg := config.Config{DBPath: filepath.Join(b.TempDir(), "j.db"), Vaults: []config.Vault{{Name: "v", Path: root}}}
	log := slog.New(slog.NewTextHandler(io.Discard, nil))

	var ideps IndexDeps
	iapp := NewIndexApp(cfg, log, &ideps)
	if err := Err(iapp); err != nil {
		b.Fatal(err)
	}
	if _, err := ideps.Indexer.Index(ctx, cfg.Vaults[0], nil); err != nil {
		b.Fatal(err)
	}
	if _, err := ideps.Vectors.Sync(ctx, vectors.SyncOptions{}); err != nil {
		b.Fatal(err)
	}
	if err := iapp.Stop(ctx); err != nil {
		b.Fatal(err)
	}

	var deps MCPDeps
	var svc services
	app := fx.New(mcpOptions(cfg, log), fx.Populate(&deps, &svc))
	if err := Err(app); err != nil {
		b.Fatal(err)
	}
	if err := app.Start(ctx); err != nil {
		b.Fatal(err)
	}
	defer app.Stop(ctx)

	for _, c := range deps.Checks {
		t0 := time.Now()
		rs := c.Run(ctx)
		b.Logf("%-17s %8s  %v", c.Name, time.Since(t0).Round(time.Millisecond), statuses(rs))
	}
	if rep := svc.Health.Report(ctx); rep.Status != health.Healthy {
		b.Fatalf("not healthy: %+v", rep)
	}

	b.Run("call", func(b *testing.B) {
		for b.Loop() {
			svc.Health.Report(ctx)
		}
	})
	b.Run("16 at once", func(b *testing.B) {
		var worst time.Duration
		for b.Loop() {
			var wg sync.WaitGroup
			took := make([]time.Duration, 16)
			for i := range took {
				wg.Add(1)
				go func() {
					defer wg.Done()
					t0 := time.Now()
					svc.Health.Report(ctx)
					took[i] = time.Since(t0)
				}()
			}
			wg.Wait()
			worst = max(worst, slices.Max(took))
		}
		b.ReportMetric(float64(worst)/1e6, "slowest-ms")
	})
}

func statuses(rs []health.Result) []string {
	var out []string
	for _, r := range rs {
		out = append(out, string(r.Status))
	}
	return out
}

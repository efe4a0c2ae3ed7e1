package query_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jarvis-mcp/jarvis/internal/bases"
	"github.com/jarvis-mcp/jarvis/internal/config"
	"github.com/jarvis-mcp/jarvis/internal/index"
	"github.com/jarvis-mcp/jarvis/internal/query"
	"github.com/jarvis-mcp/jarvis/internal/store"
	"github.com/jarvis-mcp/jarvis/internal/vault"
	"github.com/jarvis-mcp/jarvis/internal/vaultgen"
)

// BenchmarkQueryScale measures what query-notes and a search's where do
// with the index of a generated vault (seed 1, whose notes carry status,
// priority, due, rating, progress, tags and dates in their frontmatter),
// in process, each a sub-benchmark with its p50 and p95 in milliseconds
// (the first call, which fills the snapshot, not counted):
//
//   - filter: query-notes with a property filter (status == "active"),
//     the files from the snapshot (query.Files) then query.Run;
//   - base: a base with two formulas and a sort on one, the same way;
//   - where: query.Where, the part of a search with where that reads the
//     vault (the search itself is measured by BenchmarkScale);
//   - held: the live heap a vault's snapshot holds (heap-MB);
//   - load: query.Load, reading the vault from SQLite, which each of the
//     three paid on every call before the snapshot;
//   - filter-uncached: Load then Run, the property filter as it was.
//
// JARVIS_SCALE_NOTES lists the sizes (default 10000); JARVIS_SCALE_DIR,
// when set, keeps the vaults (vault-N-seed1, shared with BenchmarkScale)
// and their indexes (query-N.db) between runs:
//
//	JARVIS_SCALE_NOTES=10000,100000 JARVIS_SCALE_DIR=/tmp/scale \
//	  go test -run '^$' -bench QueryScale -benchtime 50x -timeout 1h ./internal/query/
func BenchmarkQueryScale(b *testing.B) {
	sizes := []int{10000}
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
	for _, n := range sizes {
		b.Run(fmt.Sprintf("notes=%d", n), func(b *testing.B) { benchQueryScale(b, n) })
	}
}

func benchQueryScale(b *testing.B, n int) {
	ctx := context.Background()
	db, name := scaleIndex(b, n)
	now := time.Date(2026, 6, 1, 12, 0, 0, 0, time.UTC)
	filter, err := query.AdHoc{Filter: json.RawMessage(`"status == \"active\""`), Properties: []string{"file.name", "status"}}.Base()
	if err != nil {
		b.Fatal(err)
	}
	base, err := query.AdHoc{
		Filter:     json.RawMessage(`{"and": ["file.hasTag(\"project\") || rating >= 3", "file.inFolder(\"Projects\") || due < date(\"2026-01-01\") || rating"]}`),
		Formulas:   map[string]string{"age": `(now() - file.mtime) / 86400000`, "score": `if(rating, rating * 2, 0) + if(status == "active", 1, 0)`},
		Sort:       []query.SortKey{{Property: "formula.score", Direction: "DESC"}, {Property: "file.name"}},
		Properties: []string{"file.name", "status", "rating", "formula.score", "formula.age"},
		Limit:      50,
	}.Base()
	if err != nil {
		b.Fatal(err)
	}
	files := func() (*query.Vault, error) { return query.Files(ctx, db, name, nil) }
	cold := func() (*query.Vault, error) { return query.Load(ctx, db, name, nil) }
	passed := map[*bases.Base]int{} // how many files each base lets through
	runBase := func(load func() (*query.Vault, error), bs *bases.Base) func() error {
		return func() error {
			v, err := load()
			if err != nil {
				return err
			}
			res, err := query.Run(ctx, v, query.Request{Base: bs, Now: now})
			if err == nil && res.Total == 0 {
				err = errors.New("no file passed")
			}
			if err == nil {
				passed[bs] = res.Total
			}
			return err
		}
	}
	ops := []struct {
		name string
		op   func() error
		base *bases.Base
	}{
		{"filter", runBase(files, filter), filter},
		{"base", runBase(files, base), base},
		{"where", func() error {
			ids, err := query.Where(ctx, db, []string{name}, nil, `status == "active" && file.hasTag("project")`, now)
			if err == nil && len(ids) == 0 {
				err = errors.New("no note passed")
			}
			return err
		}, nil},
		{"load", func() error { _, err := cold(); return err }, nil},
		{"held", nil, nil}, // the heap a snapshot holds, reported alone
		{"filter-uncached", runBase(cold, filter), filter},
	}
	for _, o := range ops {
		if o.op == nil {
			b.Run(o.name, func(b *testing.B) {
				for b.Loop() {
					b.ReportMetric(heldMB(b, cold), "heap-MB")
				}
			})
			continue
		}
		b.Run(o.name, func(b *testing.B) {
			if err := o.op(); err != nil { // reads the vault into the snapshot
				b.Fatal(err)
			}
			var lat []time.Duration
			for b.Loop() {
				t0 := time.Now()
				if err := o.op(); err != nil {
					b.Fatal(err)
				}
				lat = append(lat, time.Since(t0))
			}
			b.StopTimer()
			slices.Sort(lat)
			b.ReportMetric(float64(lat[len(lat)/2])/1e6, "p50-ms")
			b.ReportMetric(float64(lat[len(lat)*95/100])/1e6, "p95-ms")
			if o.base != nil {
				b.ReportMetric(float64(passed[o.base]), "passed")
			}
		})
	}
}

// heldMB is the live heap, in MB, that one vault as load reads it holds
// once collected.
func heldMB(b *testing.B, load func() (*query.Vault, error)) float64 {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	v, err := load()
	if err != nil {
		b.Fatal(err)
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	runtime.KeepAlive(v)
	return float64(int64(after.HeapAlloc)-int64(before.HeapAlloc)) / (1 << 20)
}

// scaleIndex returns the index of a generated vault of n notes and the
// vault's name, reusing those kept in JARVIS_SCALE_DIR.
func scaleIndex(b *testing.B, n int) (*store.DB, string) {
	b.Helper()
	ctx := context.Background()
	dir := os.Getenv("JARVIS_SCALE_DIR")
	if dir == "" {
		dir = b.TempDir()
	}
	root := filepath.Join(dir, fmt.Sprintf("vault-%d-seed1", n))
	if _, err := os.Stat(root + ".done"); err != nil {
		if err := os.RemoveAll(root); err != nil {
			b.Fatal(err)
		}
		if _, err := vaultgen.Generate(root, vaultgen.Options{Notes: n, Seed: 1}); err != nil {
			b.Fatal(err)
		}
		if err := os.WriteFile(root+".done", nil, 0o644); err != nil {
			b.Fatal(err)
		}
	}
	path := filepath.Join(dir, fmt.Sprintf("query-%d.db", n))
	_, statErr := os.Stat(path)
	db, err := store.Open(ctx, path, store.Options{})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { db.Close() })
	if statErr != nil {
		ix := index.New(db, vault.NewParser(), slog.New(slog.NewTextHandler(io.Discard, nil)))
		if _, err := ix.Index(ctx, config.Vault{Name: "scale", Path: root}, nil); err != nil {
			b.Fatal(err)
		}
	}
	// An index `jarvis index --vault DIR --db query-N.db` made names the
	// vault after its folder.
	var name string
	if err := db.QueryRowContext(ctx, `SELECT name FROM vaults ORDER BY id LIMIT 1`).Scan(&name); err != nil {
		b.Fatal(err)
	}
	return db, name
}

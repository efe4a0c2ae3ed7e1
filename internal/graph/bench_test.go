package graph_test

import (
	"context"
	"database/sql"
	"errors"
	"path/filepath"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/jarvis-mcp/jarvis/internal/graph"
	"github.com/jarvis-mcp/jarvis/internal/store"
	"github.com/jarvis-mcp/jarvis/internal/vaultgen"
)

// generatedDB indexes a vaultgen vault of n notes (seed 1) into a fresh
// database and returns it with 200 start notes spread over the vault (every
// n/200th note by path: every folder, hubs and leaves alike).
func generatedDB(b *testing.B, n int) (*store.DB, []string) {
	b.Helper()
	root := filepath.Join(b.TempDir(), "vault")
	if _, err := vaultgen.Generate(root, vaultgen.Options{Notes: n, Seed: 1}); err != nil {
		b.Fatal(err)
	}
	db := indexVault(b, "gen", root)
	rows, err := db.QueryContext(context.Background(), `SELECT path FROM files WHERE kind = 'note' ORDER BY path`)
	if err != nil {
		b.Fatal(err)
	}
	defer rows.Close()
	var starts []string
	for i := 0; rows.Next(); i++ {
		var p string
		if err := rows.Scan(&p); err != nil {
			b.Fatal(err)
		}
		if i%(n/200) == 0 {
			starts = append(starts, p)
		}
	}
	return db, starts
}

// latencies collects the duration of each call and the process's CPU time,
// and reports p50 and p95 of the former and the mean of the latter: on a
// machine shared with other work the CPU time per call moves less than the
// wall time does.
type latencies struct {
	d   []time.Duration
	cpu time.Duration
	t0  time.Time
}

func (l *latencies) start() { l.t0 = time.Now() }
func (l *latencies) stop()  { l.d = append(l.d, time.Since(l.t0)) }

func (l *latencies) report(b *testing.B) {
	slices.Sort(l.d)
	ms := func(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
	b.ReportMetric(ms(l.d[len(l.d)/2]), "p50-ms")
	b.ReportMetric(ms(l.d[len(l.d)*95/100]), "p95-ms")
	b.ReportMetric(ms(l.cpu)/float64(len(l.d)), "cpu-ms/op")
}

// BenchmarkTraverse measures Traverse in both directions from 200 notes of
// a generated 10k-note vault, at depths 1 to 3 with the default node cap.
// Start notes are given by path, as a caller passing back a result would.
func BenchmarkTraverse(b *testing.B) {
	db, starts := generatedDB(b, 10_000)
	g := graph.New(db)
	ctx := context.Background()
	for _, depth := range []int{1, 2, 3} {
		b.Run("depth="+strconv.Itoa(depth), func(b *testing.B) {
			var l latencies
			nodes, edges := 0, 0
			cpu0 := cpuTime()
			for b.Loop() {
				l.start()
				sg, err := g.Traverse(ctx, graph.Query{Vault: "gen", Start: starts[len(l.d)%len(starts)], Depth: depth, Direction: graph.Both})
				l.stop()
				if err != nil {
					b.Fatal(err)
				}
				nodes += len(sg.Nodes)
				edges += len(sg.Edges)
			}
			l.cpu = cpuTime() - cpu0
			l.report(b)
			b.ReportMetric(float64(nodes)/float64(len(l.d)), "nodes/op")
			b.ReportMetric(float64(edges)/float64(len(l.d)), "edges/op")
		})
	}
}

// BenchmarkTraversePageCache is BenchmarkTraverse at depth 2 over the same
// database opened with a 64 MiB page cache instead of SQLite's default
// 2 MiB (the store sets none): it measures how much of a traversal is
// spent rereading pages.
func BenchmarkTraversePageCache(b *testing.B) {
	db, starts := generatedDB(b, 10_000)
	big, err := sql.Open("sqlite", "file:"+filepath.ToSlash(db.Path)+"?_pragma=busy_timeout(10000)&_pragma=cache_size(-65536)")
	if err != nil {
		b.Fatal(err)
	}
	defer big.Close()
	for _, c := range []struct {
		name string
		db   *sql.DB
	}{{"cache=2MiB", db.DB}, {"cache=64MiB", big}} {
		g := graph.New(c.db)
		b.Run(c.name, func(b *testing.B) {
			var l latencies
			cpu0 := cpuTime()
			for b.Loop() {
				l.start()
				_, err := g.Traverse(context.Background(), graph.Query{Vault: "gen", Start: starts[len(l.d)%len(starts)], Depth: 2, Direction: graph.Both})
				l.stop()
				if err != nil {
					b.Fatal(err)
				}
			}
			l.cpu = cpuTime() - cpu0
			l.report(b)
		})
	}
}

// BenchmarkFindNote measures FindNote on the same vault: by exact path (an
// index probe), by title and by a misspelt title (a scan of every file, then
// the suggestions).
func BenchmarkFindNote(b *testing.B) {
	db, starts := generatedDB(b, 10_000)
	g := graph.New(db)
	ctx := context.Background()
	titles := make([]string, len(starts))
	for i, p := range starts {
		m, err := g.FindNote(ctx, "gen", p)
		if err != nil {
			b.Fatal(err)
		}
		titles[i] = m.Title
	}
	for _, c := range []struct {
		name string
		ref  func(i int) string
		miss bool
	}{
		{"by=path", func(i int) string { return starts[i] }, false},
		{"by=title", func(i int) string { return titles[i] }, false},
		{"by=misspelt-title", func(i int) string { return titles[i] + "x" }, true},
	} {
		b.Run(c.name, func(b *testing.B) {
			var l latencies
			cpu0 := cpuTime()
			for b.Loop() {
				l.start()
				_, err := g.FindNote(ctx, "gen", c.ref(len(l.d)%len(starts)))
				l.stop()
				if c.miss != errors.Is(err, graph.ErrNoteNotFound) {
					b.Fatalf("%s: err = %v", c.name, err)
				}
			}
			l.cpu = cpuTime() - cpu0
			l.report(b)
		})
	}
}

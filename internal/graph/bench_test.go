package graph_test

import (
	"context"
	"database/sql"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
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

// hubDB indexes a generated vault of n notes (seed 1) into which two hubs
// were written: every note links to "Hubs/Large hub.md" and every
// n/small-th note to "Hubs/Small hub.md", on a line added at its end. The
// hubs link to a few notes themselves.
func hubDB(b *testing.B, n, small int) *store.DB {
	b.Helper()
	root := filepath.Join(b.TempDir(), "vault")
	if _, err := vaultgen.Generate(root, vaultgen.Options{Notes: n, Seed: 1}); err != nil {
		b.Fatal(err)
	}
	var notes []string
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(p, ".md") {
			notes = append(notes, p)
		}
		return err
	})
	if err != nil {
		b.Fatal(err)
	}
	slices.Sort(notes)
	for i, p := range notes {
		line := "\n\nFiled under [[Large hub]]"
		if i%(n/small) == 0 {
			line += " and [[Small hub]]"
		}
		f, err := os.OpenFile(p, os.O_APPEND|os.O_WRONLY, 0)
		if err != nil {
			b.Fatal(err)
		}
		_, err = f.WriteString(line + ".\n")
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			b.Fatal(err)
		}
	}
	for _, name := range []string{"Large hub", "Small hub"} {
		body := "# " + name + "\n\nWhere notes are filed. See [[" + strings.TrimSuffix(filepath.Base(notes[0]), ".md") +
			"]] and [[" + strings.TrimSuffix(filepath.Base(notes[len(notes)/2]), ".md") + "]].\n"
		if err := os.MkdirAll(filepath.Join(root, "Hubs"), 0o755); err != nil {
			b.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(root, "Hubs", name+".md"), []byte(body), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	return indexVault(b, "gen", root)
}

// BenchmarkHub measures what read-note and search-graph ask of the graph
// about a hub, on two hubs of one generated 20,000-note vault: one linked
// from 1,000 notes, one from every note. A page of 50 backlinks with
// their count (BacklinksUpTo), and a walk to depth 2 in both directions
// with 100 nodes and 100 edges at most (search-graph's bounds). The answer
// is the same size for both hubs, and so should the cost be: reading
// every link to the hub would make the larger one cost 20 times more.
func BenchmarkHub(b *testing.B) {
	db := hubDB(b, 20_000, 1_000)
	g := graph.New(db)
	ctx := context.Background()
	for _, hub := range []struct{ name, path string }{
		{"links=1k", "Hubs/Small hub.md"},
		{"links=20k", "Hubs/Large hub.md"},
	} {
		var total int
		if err := db.QueryRowContext(ctx, `SELECT count(*) FROM links l JOIN files t ON t.id = l.target_id
			WHERE t.path = ? AND l.source_id <> l.target_id`, hub.path).Scan(&total); err != nil {
			b.Fatal(err)
		}
		b.Run("page/"+hub.name, func(b *testing.B) {
			var l latencies
			cpu0 := cpuTime()
			for b.Loop() {
				l.start()
				page, err := g.BacklinksUpTo(ctx, "gen", hub.path, 50)
				l.stop()
				if err != nil {
					b.Fatal(err)
				}
				if len(page.Edges) != 50 || page.Total != total {
					b.Fatalf("%d of %d backlinks; want 50 of %d", len(page.Edges), page.Total, total)
				}
			}
			l.cpu = cpuTime() - cpu0
			l.report(b)
			b.ReportMetric(float64(total), "backlinks")
		})
		b.Run("depth=2/"+hub.name, func(b *testing.B) {
			var l latencies
			nodes, edges := 0, 0
			cpu0 := cpuTime()
			for b.Loop() {
				l.start()
				sg, err := g.Traverse(ctx, graph.Query{Vault: "gen", Start: hub.path, Depth: 2, Direction: graph.Both, MaxNodes: 100, MaxEdges: 100})
				l.stop()
				if err != nil {
					b.Fatal(err)
				}
				nodes += len(sg.Nodes)
				edges += len(sg.Edges)
			}
			l.cpu = cpuTime() - cpu0
			l.report(b)
			b.ReportMetric(float64(total), "backlinks")
			b.ReportMetric(float64(nodes)/float64(len(l.d)), "nodes/op")
			b.ReportMetric(float64(edges)/float64(len(l.d)), "edges/op")
		})
	}
}

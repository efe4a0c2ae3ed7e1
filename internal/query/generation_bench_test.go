package query_test

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/jarvis-mcp/jarvis/internal/store"
)

// BenchmarkGenerationTriggers measures what the triggers of migration
// 0013 (a vault's generation, which tells query.Files that its snapshot
// is stale) add to writing file rows. Each iteration writes 1,000 note
// rows as the indexer does (an upsert returning the id), updates each
// once and deletes them, in one transaction, into two databases in turn:
// one with the triggers, one with them dropped, so that both see the
// same load on a shared machine. It reports the median microseconds per
// row written of each, and their ratio.
func BenchmarkGenerationTriggers(b *testing.B) {
	ctx := context.Background()
	open := func(triggers bool) *store.DB {
		db, err := store.Open(ctx, filepath.Join(b.TempDir(), "jarvis.db"), store.Options{})
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { db.Close() })
		if !triggers {
			for _, t := range []string{"vaults_generation_insert", "files_generation_insert", "files_generation_update",
				"files_generation_delete", "links_generation_resolve"} {
				if _, err := db.ExecContext(ctx, "DROP TRIGGER "+t); err != nil {
					b.Fatal(err)
				}
			}
		}
		if _, err := db.ExecContext(ctx, `INSERT INTO vaults (id, name, path) VALUES (1, 'bench', '/bench')`); err != nil {
			b.Fatal(err)
		}
		return db
	}
	const rows = 1000
	write := func(db *store.DB) time.Duration {
		t0 := time.Now()
		tx, err := db.BeginTx(ctx, nil)
		if err != nil {
			b.Fatal(err)
		}
		defer tx.Rollback()
		ids := make([]int64, rows)
		for i := range ids {
			err := tx.QueryRowContext(ctx, `INSERT INTO files (vault_id, path, kind, size, mtime_ns, hash, title, word_count, frontmatter)
				VALUES (1, ?, 'note', 100, 1, 'h', 't', 10, '{"status":"active"}')
				ON CONFLICT (vault_id, path) DO UPDATE SET size = excluded.size RETURNING id`,
				fmt.Sprintf("n/%d.md", i)).Scan(&ids[i])
			if err != nil {
				b.Fatal(err)
			}
		}
		for _, id := range ids {
			if _, err := tx.ExecContext(ctx, `UPDATE files SET size = 200, mtime_ns = 2 WHERE id = ?`, id); err != nil {
				b.Fatal(err)
			}
		}
		if _, err := tx.ExecContext(ctx, `DELETE FROM files WHERE vault_id = 1`); err != nil {
			b.Fatal(err)
		}
		if err := tx.Commit(); err != nil {
			b.Fatal(err)
		}
		return time.Since(t0)
	}
	with, without := open(true), open(false)
	var tWith, tWithout []time.Duration
	i := 0
	for b.Loop() {
		if i%2 == 0 {
			tWith = append(tWith, write(with))
			tWithout = append(tWithout, write(without))
		} else {
			tWithout = append(tWithout, write(without))
			tWith = append(tWith, write(with))
		}
		i++
	}
	b.StopTimer()
	slices.Sort(tWith)
	slices.Sort(tWithout)
	perRow := func(d time.Duration) float64 { return float64(d.Microseconds()) / (3 * rows) }
	a, c := tWith[len(tWith)/2], tWithout[len(tWithout)/2]
	b.ReportMetric(perRow(a), "µs/row-with")
	b.ReportMetric(perRow(c), "µs/row-without")
	b.ReportMetric(float64(a)/float64(c), "ratio")
}

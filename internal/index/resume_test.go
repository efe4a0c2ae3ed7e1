package index

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jarvis-mcp/jarvis/internal/config"
	"github.com/jarvis-mcp/jarvis/internal/health"
	"github.com/jarvis-mcp/jarvis/internal/store"
	"github.com/jarvis-mcp/jarvis/internal/vaultgen"
	"github.com/jarvis-mcp/jarvis/internal/words"
)

// resumeNotes is the size of the generated vault the resume tests index:
// several batches of resumeBatch notes.
const (
	resumeNotes = 120
	resumeBatch = 20
)

// interruptAt cancels an index run when its progress reaches a point.
type interruptAt struct {
	name string
	// stop reports whether to cancel the run at this progress report.
	stop func(phase Phase, done, total Counts) bool
}

// TestInterruptedRunIsResumed cuts a first index run off at several points
// (after some batches of notes, after every note is read, as links are
// resolved) and runs it again: the next run reads only the notes the cut-off
// run did not store, counts the ones it stored as finished rather than
// updated, and leaves the database a clean run leaves. In between, doctor
// says the run has not finished and how far it got, never that an earlier
// version read the notes.
func TestInterruptedRunIsResumed(t *testing.T) {
	root := filepath.Join(t.TempDir(), "gen")
	sum, err := vaultgen.Generate(root, vaultgen.Options{Notes: resumeNotes, Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	clean, _ := testIndexer(t, filepath.Join(t.TempDir(), "clean.db"))
	mustIndex(t, clean, "gen", root)
	want := dump(t, clean.db.(*store.DB).DB)

	for _, at := range []interruptAt{
		{"after two batches", func(p Phase, done, _ Counts) bool { return p == PhaseWrite && done.Notes >= 2*resumeBatch }},
		{"after reading every note", func(p Phase, done, total Counts) bool { return p == PhaseWrite && done == total && total.Files() > 0 }},
		{"as links are resolved", func(p Phase, _, _ Counts) bool { return p == PhaseLinks }},
	} {
		t.Run(at.name, func(t *testing.T) {
			dbPath := filepath.Join(t.TempDir(), "j.db")
			ix, parsed := testIndexer(t, dbPath)
			ix.BatchSize = resumeBatch
			stored := interrupt(t, ix, root, at)
			if stored == 0 || stored > sum.Notes {
				t.Fatalf("the run was cut off with %d notes stored", stored)
			}

			// What list-vaults counts: the notes stored, not the rows
			// reserved for the notes still to read.
			stats, err := Stats(context.Background(), ix.db)
			if err != nil || len(stats) != 1 || stats[0].Notes != stored {
				t.Fatalf("statistics after the cut-off run: %+v, %v; want %d notes", stats, err, stored)
			}

			fresh := doctorFreshness(t, dbPath, root)
			for _, bad := range []string{"earlier version", "none changed", "never finished"} {
				if strings.Contains(fresh.Detail, bad) {
					t.Errorf("doctor after the cut-off run says %q: %+v", bad, fresh)
				}
			}
			// Doctor says what is stored as list-vaults does.
			wantDetail := "the first index run has not finished: the index holds " + stats[0].Counts.Words() + " so far; "
			if left := sum.Notes - stored; left > 0 {
				wantDetail += words.CountAs(left, "note is", "notes are") + " still to index; "
			}
			wantDetail += "links are still to resolve"
			if fresh.Status != health.Warn || fresh.Detail != wantDetail || !strings.Contains(fresh.Fix, "does not read the stored notes again") {
				t.Errorf("doctor after the cut-off run:\n got %+v\nwant detail %q", fresh, wantDetail)
			}

			parsed.Store(0)
			res := mustIndex(t, ix, "gen", root)
			if res.Added != sum.Notes-stored || res.Resumed != stored || res.Updated != 0 || res.Unchanged != 0 || res.Deleted != 0 {
				t.Errorf("the run after: %+v; want %d added and %d finished from the cut-off run", res, sum.Notes-stored, stored)
			}
			if n := int(parsed.Load()); n != sum.Notes-stored {
				t.Errorf("the run after read %d notes; want the %d the cut-off run did not store", n, sum.Notes-stored)
			}
			if got := dump(t, ix.db.(*store.DB).DB); got != want {
				t.Fatalf("the resumed index differs from a clean one:\n%s", firstDiff(got, want))
			}
			if fresh := doctorFreshness(t, dbPath, root); fresh.Status != health.OK {
				t.Errorf("doctor after the resumed run: %+v", fresh)
			}
			if stats, err := Stats(context.Background(), ix.db); err != nil || len(stats) != 1 || stats[0].Notes != sum.Notes {
				t.Errorf("statistics after the resumed run: %+v, %v; want %d notes", stats, err, sum.Notes)
			}
			if res := mustIndex(t, ix, "gen", root); res.Unchanged != sum.Notes || res.Resumed != 0 {
				t.Errorf("a third run: %+v; want every note unchanged", res)
			}
		})
	}
}

// TestInterruptedRereadIsResumed cuts off the run that reads every note
// again for a new parser version: the next run reads only the notes it did
// not, and doctor does not say an earlier version read the notes the
// cut-off run read with this one.
func TestInterruptedRereadIsResumed(t *testing.T) {
	root := filepath.Join(t.TempDir(), "gen")
	sum, err := vaultgen.Generate(root, vaultgen.Options{Notes: resumeNotes, Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	dbPath := filepath.Join(t.TempDir(), "j.db")
	ix, parsed := testIndexer(t, dbPath)
	ix.BatchSize = resumeBatch
	mustIndex(t, ix, "gen", root)
	if _, err := ix.db.ExecContext(context.Background(), `UPDATE vaults SET parser = '1'`); err != nil {
		t.Fatal(err)
	}
	if fresh := doctorFreshness(t, dbPath, root); !strings.Contains(fresh.Detail, "read by an earlier version") {
		t.Errorf("doctor before the new version's run: %+v", fresh)
	}
	stored := interrupt(t, ix, root, interruptAt{"after two batches", func(p Phase, done, _ Counts) bool {
		return p == PhaseWrite && done.Notes >= 2*resumeBatch
	}})
	fresh := doctorFreshness(t, dbPath, root)
	stats, err := Stats(context.Background(), ix.db)
	if err != nil || len(stats) != 1 {
		t.Fatalf("statistics after the cut-off run: %+v, %v", stats, err)
	}
	wantDetail := "the last index run has not finished (the last complete run ended "
	wantRest := "): the index holds " + stats[0].Counts.Words() + " so far; " +
		words.CountAs(sum.Notes-stored, "note is", "notes are") + " still to index; links are still to resolve"
	if fresh.Status != health.Warn || !strings.HasPrefix(fresh.Detail, wantDetail) || !strings.HasSuffix(fresh.Detail, wantRest) {
		t.Errorf("doctor after the cut-off run:\n got %+v\nwant %q...%q", fresh, wantDetail, wantRest)
	}
	parsed.Store(0)
	res := mustIndex(t, ix, "gen", root)
	if res.Updated != sum.Notes-stored || res.Resumed != stored || res.Added != 0 || res.Unchanged != 0 {
		t.Errorf("the run after: %+v; want %d updated and %d finished from the cut-off run", res, sum.Notes-stored, stored)
	}
	if n := int(parsed.Load()); n != sum.Notes-stored {
		t.Errorf("the run after read %d notes; want the %d the cut-off run did not read", n, sum.Notes-stored)
	}
}

// interrupt runs a first index of root with ix, cancelling it at the point
// at, and returns how many notes it stored.
func interrupt(t *testing.T, ix *Indexer, root string, at interruptAt) int {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	stopped := false
	_, err := ix.Index(ctx, config.Vault{Name: "gen", Path: root}, func(p Phase, done, total Counts) {
		if !stopped && at.stop(p, done, total) {
			stopped = true
			cancel()
		}
	})
	if !stopped || !errors.Is(err, context.Canceled) {
		t.Fatalf("the run was not cut off %s: %v", at.name, err)
	}
	var stored int
	if err := ix.db.QueryRowContext(context.Background(), `SELECT count(*) FROM files
		WHERE kind = 'note' AND mtime_ns >= 0 AND NOT EXISTS (SELECT 1 FROM search_notes WHERE file_id = files.id)`).Scan(&stored); err != nil {
		t.Fatal(err)
	}
	return stored
}

// doctorFreshness is doctor's freshness result for the vault gen at root.
func doctorFreshness(t *testing.T, dbPath, root string) health.Result {
	t.Helper()
	h := store.NewHandle(dbPath, store.Options{ReadOnly: true})
	defer h.Close()
	rep := health.Run(context.Background(), Checks(h, config.Config{Vaults: []config.Vault{{Name: "gen", Path: root}}}), time.Minute)
	for _, r := range rep.Checks {
		if r.Name == "index freshness gen" {
			return r
		}
	}
	t.Fatalf("no freshness check in %+v", rep.Checks)
	return health.Result{}
}

package vaultgen

import (
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"sync/atomic"
)

// write creates the planned folders and files under dir. Notes are rendered
// and written by one goroutine per CPU; each note has its own random
// stream, so the output does not depend on scheduling.
func (g *generator) write(dir string) (Summary, error) {
	var sum Summary
	for _, f := range g.folders[1:] {
		if err := os.MkdirAll(filepath.Join(dir, filepath.FromSlash(f.path)), 0o755); err != nil {
			return sum, err
		}
		sum.Folders++
	}

	stats := make([]noteStat, len(g.notes))
	sizes := make([]int, len(g.notes))
	errs := make([]error, len(g.notes))
	var next atomic.Int64
	var failed atomic.Bool
	var wg sync.WaitGroup
	for range runtime.GOMAXPROCS(0) {
		wg.Go(func() {
			w := newWriter(g)
			for !failed.Load() {
				i := int(next.Add(1) - 1)
				if i >= len(g.notes) {
					return
				}
				data, st := w.note(i)
				stats[i], sizes[i] = st, len(data)
				path := filepath.Join(dir, filepath.FromSlash(g.notes[i].linkPath+".md"))
				if err := os.WriteFile(path, data, 0o644); err != nil {
					errs[i] = err
					failed.Store(true)
				}
			}
		})
	}
	wg.Wait()
	for i := range g.notes {
		if errs[i] != nil {
			return sum, errs[i]
		}
		sum.Notes++
		sum.Links += stats[i].links
		sum.BrokenLinks += stats[i].broken
		sum.Bytes += int64(sizes[i])
	}

	for k, a := range g.attachments {
		r := rand.New(rand.NewPCG(g.cfg.seed, streamAttachment+uint64(k)))
		data := g.attachmentBytes(a, r)
		if err := os.WriteFile(filepath.Join(dir, filepath.FromSlash(a.path(g))), data, 0o644); err != nil {
			return sum, err
		}
		sum.Attachments++
		sum.Bytes += int64(len(data))
	}
	return sum, nil
}

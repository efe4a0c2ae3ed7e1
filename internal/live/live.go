// Package live keeps the index current while jarvis serves: it indexes in
// the background at start, so the server answers at once whatever the
// vault size, and again whenever the watcher reports a change. It tells the
// tools how fresh the index is.
package live

import (
	"context"
	"log/slog"
	"sync"
	"time"

	"github.com/jarvis-mcp/jarvis/internal/config"
	"github.com/jarvis-mcp/jarvis/internal/index"
)

// IndexFunc brings one vault's index up to date, reporting progress.
type IndexFunc func(ctx context.Context, v config.Vault, progress index.Progress) (index.Result, error)

// SyncFunc brings the vectors of semantic search in step with the index.
type SyncFunc func(ctx context.Context) error

// Live runs index passes one at a time and records their state.
type Live struct {
	vaults []config.Vault
	index  IndexFunc
	sync   SyncFunc
	log    *slog.Logger

	run sync.Mutex // one index pass at a time: SQLite has one writer

	mu         sync.Mutex
	state      index.State
	syncFailed bool // the last vector sync failed; RetrySync tries again
}

// New returns a Live over the given vaults. sync may be nil.
func New(vaults []config.Vault, idx IndexFunc, sync SyncFunc, log *slog.Logger) *Live {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Live{vaults: vaults, index: idx, sync: sync, log: log, state: index.State{State: index.StateIndexing}}
}

// State returns the current state; safe from any goroutine.
func (l *Live) State() index.State {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.state
}

func (l *Live) set(f func(*index.State)) {
	l.mu.Lock()
	f(&l.state)
	l.mu.Unlock()
}

// All indexes every vault, then syncs the vectors. It is what runs at
// start and after a change the watcher could not pin to one vault.
func (l *Live) All(ctx context.Context) error {
	return l.pass(ctx, l.vaults)
}

// Vault re-indexes one vault by name, then syncs the vectors.
func (l *Live) Vault(ctx context.Context, name string) error {
	for _, v := range l.vaults {
		if v.Name == name {
			return l.pass(ctx, []config.Vault{v})
		}
	}
	return nil
}

func (l *Live) pass(ctx context.Context, vaults []config.Vault) error {
	l.run.Lock()
	defer l.run.Unlock()
	began := time.Now()
	for _, v := range vaults {
		l.set(func(s *index.State) { s.State, s.Vault, s.Done, s.Total = index.StateIndexing, v.Name, 0, 0 })
		res, err := l.index(ctx, v, func(done, total int) {
			l.set(func(s *index.State) { s.Done, s.Total = done, total })
		})
		if err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			l.log.Warn("index run failed", "vault", v.Name, "err", err)
			l.set(func(s *index.State) { s.State, s.Error = index.StateFailed, err.Error() })
			return err
		}
		if res.Added+res.Updated+res.Deleted > 0 {
			l.log.Info("index updated", "vault", v.Name, "added", res.Added, "updated", res.Updated, "deleted", res.Deleted)
		}
	}
	if err := l.syncVectors(ctx); err != nil && ctx.Err() != nil {
		return ctx.Err()
	}
	l.set(func(s *index.State) {
		*s = index.State{State: index.StateReady, LastIndexed: time.Now()}
	})
	l.log.Debug("index pass done", "vaults", len(vaults), "took", time.Since(began))
	return nil
}

// syncVectors runs the vector sync and records whether it failed. A
// failure is not the pass's: keyword search and the graph are current, and
// semantic search answers from what it has and says so.
func (l *Live) syncVectors(ctx context.Context) error {
	if l.sync == nil {
		return nil
	}
	err := l.sync(ctx)
	if err != nil && ctx.Err() == nil {
		l.log.Warn("vectors not brought up to date", "err", err)
	}
	l.mu.Lock()
	l.syncFailed = err != nil && ctx.Err() == nil
	l.mu.Unlock()
	return err
}

// RetrySync syncs the vectors again if the last sync failed, such as while
// a remote embedder was down; otherwise it does nothing. The server calls
// it now and then, so that notes changed meanwhile get their vectors once
// the embedder is back, without waiting for the next edit.
func (l *Live) RetrySync(ctx context.Context) {
	l.mu.Lock()
	failed := l.syncFailed
	l.mu.Unlock()
	if !failed {
		return
	}
	l.run.Lock()
	defer l.run.Unlock()
	if l.syncVectors(ctx) == nil {
		l.log.Info("vectors brought up to date after an earlier failure")
	}
}

// MarkUnavailable records that the index cannot be used at all, such as a
// database that does not open.
func (l *Live) MarkUnavailable(err error) {
	l.set(func(s *index.State) { s.State, s.Error = index.StateUnavailable, err.Error() })
}

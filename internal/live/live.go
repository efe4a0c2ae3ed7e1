// Package live keeps the index current while jarvis serves: it indexes in
// the background at start, so the server answers at once whatever the
// vault size, and again whenever the watcher reports a change. It tells the
// tools how fresh the index is.
package live

import (
	"context"
	"errors"
	"log/slog"
	"maps"
	"sync"
	"time"

	"github.com/jarvis-mcp/jarvis/internal/config"
	"github.com/jarvis-mcp/jarvis/internal/index"
	"github.com/jarvis-mcp/jarvis/internal/store"
)

// IndexFunc brings one vault's index up to date, reporting progress.
type IndexFunc func(ctx context.Context, v config.Vault, progress index.Progress) (index.Result, error)

// SyncFunc brings the vectors of semantic search in step with the index,
// telling progress how far it has got. When replan delivers, it plans its
// work again before going on (notes changed meanwhile go first).
type SyncFunc func(ctx context.Context, replan <-chan struct{}, progress func(done, total int)) error

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
	// passWanted is set when the database file was replaced or deleted:
	// RetrySync then runs a whole pass.
	passWanted bool
	// background is set while EmbedInBackground runs: passes then hand
	// the vector sync to it through kick instead of running it themselves.
	background bool
	kick       chan struct{}
	rate       rate
	// unwatched is what the watcher said of vaults whose changes it does
	// not see; passes replace the state, so it is kept apart.
	unwatched map[string]string

	// Done, when set, is called after each index pass and each vector
	// sync ends: what was said of the index before may no longer hold
	// (the server's health checks look again). Set it before Start.
	Done func()
}

// done calls Done, if set.
func (l *Live) done() {
	if l.Done != nil {
		l.Done()
	}
}

// New returns a Live over the given vaults. sync may be nil.
func New(vaults []config.Vault, idx IndexFunc, sync SyncFunc, log *slog.Logger) *Live {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Live{vaults: vaults, index: idx, sync: sync, log: log, state: index.State{State: index.StateIndexing},
		kick: make(chan struct{}, 1)}
}

// State returns the current state; safe from any goroutine.
func (l *Live) State() index.State {
	l.mu.Lock()
	defer l.mu.Unlock()
	st := l.state
	if len(l.unwatched) > 0 {
		st.Unwatched = maps.Clone(l.unwatched)
	}
	return st
}

// Watching records what the watcher says of a vault: why its changes are
// not seen, or "" once they are again. It is the watcher's Status.
func (l *Live) Watching(vault, problem string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if problem == "" {
		delete(l.unwatched, vault)
		return
	}
	if l.unwatched == nil {
		l.unwatched = map[string]string{}
	}
	l.unwatched[vault] = problem
}

func (l *Live) set(f func(*index.State)) {
	l.mu.Lock()
	f(&l.state)
	l.mu.Unlock()
}

// Start is the server's first pass: it indexes every vault, as All does,
// while load (when not nil) reads what the vector store already holds, so
// that over an indexed vault semantic search is at full quality once both
// are done rather than after one and then the other. It returns when both
// have.
func (l *Live) Start(ctx context.Context, load func(context.Context) error) error {
	var wg sync.WaitGroup
	if load != nil {
		wg.Go(func() {
			if err := load(ctx); err != nil && ctx.Err() == nil {
				l.log.Debug("stored vectors not loaded at start; the first sync loads them", "err", err)
			}
		})
	}
	defer wg.Wait()
	return l.All(ctx)
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
	// A vault that fails (its folder gone) does not keep the others from
	// being indexed: their answers still come, and say why it is missing.
	var failed error
	why := map[string]string{}
	for i, v := range vaults {
		next := config.Names(vaults[i+1:])
		if len(next) == 0 {
			next = nil
		}
		l.set(func(s *index.State) {
			s.State, s.Vault, s.Next, s.Phase, s.Done, s.Total = index.StateIndexing, v.Name, next, index.PhaseScan, index.Counts{}, index.Counts{}
		})
		res, err := l.index(ctx, v, func(phase index.Phase, done, total index.Counts) {
			// The state counts the notes and attachments the run writes,
			// in the words list-vaults says them in; the other phases are
			// not counted there.
			l.set(func(s *index.State) {
				s.Phase = phase
				if phase == index.PhaseWrite {
					s.Done, s.Total = done, total
				}
			})
		})
		if err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			l.log.Warn("index run failed", "vault", v.Name, "err", err)
			failed = errors.Join(failed, err)
			why[v.Name] = failedWhy(v, err)
			continue
		}
		if res.Added+res.Updated+res.Deleted > 0 {
			l.log.Info("index updated", "vault", v.Name, "added", res.Added, "updated", res.Updated, "deleted", res.Deleted)
		}
	}
	l.mu.Lock()
	background := l.background
	l.mu.Unlock()
	// A database this user may not update takes no vectors either, and
	// the pass indexed nothing new to make them for: no sync is run, and
	// answers do not say vectors are being made.
	syncs := l.sync != nil && store.Classify(failed) != store.KindAccess
	done := func(s *index.State) {
		*s = index.State{State: index.StateReady, LastIndexed: time.Now(), Embedding: s.Embedding}
		if failed != nil {
			s.State, s.Error, s.Failed = index.StateFailed, failed.Error(), why
		}
		if background && syncs {
			// The sync asked for below makes the vectors from here on:
			// answers say they are being made, not to run an index.
			embedding(&s.Embedding)
		}
	}
	switch {
	case !syncs:
		l.set(done)
	case background:
		l.set(done)
		l.requestSync()
	default:
		if err := l.syncVectors(ctx); err != nil && ctx.Err() != nil {
			return ctx.Err()
		}
		l.set(done)
	}
	l.done()
	l.log.Debug("index pass done", "vaults", len(vaults), "took", time.Since(began))
	return failed
}

// syncVectors runs the vector sync and records whether it failed. A
// failure is not the pass's: keyword search and the graph are current, and
// semantic search answers from what it has and says so.
func (l *Live) syncVectors(ctx context.Context) error {
	if l.sync == nil {
		return nil
	}
	began := time.Now()
	l.set(func(s *index.State) { embedding(&s.Embedding) })
	l.rate.start(began)
	err := l.sync(ctx, l.kick, l.progress)
	if err != nil && ctx.Err() == nil {
		l.log.Warn("vectors not brought up to date", "err", err)
	}
	l.mu.Lock()
	l.syncFailed = err != nil && ctx.Err() == nil
	e := &l.state.Embedding
	switch {
	case ctx.Err() != nil:
	case err != nil:
		why := err.Error()
		if store.Classify(err) != store.KindOther {
			// The database's trouble, in the words every answer uses.
			why = store.Said(err)
		}
		e.State, e.Error, e.ETASeconds = index.EmbedFailed, why, 0
	default:
		e.State, e.Error, e.Done, e.ETASeconds = index.EmbedDone, "", e.Total, 0
	}
	l.mu.Unlock()
	l.done()
	if err == nil && l.rate.done > 0 {
		l.log.Info("vectors made", "texts", l.rate.done, "took", time.Since(began).Round(time.Millisecond))
	}
	return err
}

// failedWhy says why indexing vault v failed with err, in words for a
// reader: its folder's problem when it has one, else the database's
// trouble when it is that (store.Said), else that health-status says.
func failedWhy(v config.Vault, err error) string {
	if p := index.FolderProblem(v.Path); p != "" {
		return "its folder " + p
	}
	switch store.Classify(err) {
	case store.KindOther:
	case store.KindBusy:
		// A lock of the moment the run failed: health-status says the
		// lock only while it is still held (store's database check).
		return "the database was locked by another program then; health-status says whether it still is"
	default:
		return store.Said(err) + "; health-status says how to fix it"
	}
	return "the index run stopped with an error; health-status says what is wrong"
}

// embedding marks e as a sync under way that has not counted its work
// yet.
func embedding(e *index.Embedding) {
	if e.State != index.EmbedRunning {
		*e = index.Embedding{State: index.EmbedRunning}
	}
}

// progress records how far the running sync has got, with its throughput
// and the time left at that rate.
func (l *Live) progress(done, total int) {
	now := time.Now()
	l.mu.Lock()
	defer l.mu.Unlock()
	l.rate.observe(now, done)
	e := &l.state.Embedding
	e.State, e.Done, e.Total, e.Error = index.EmbedRunning, done, total, ""
	e.PerSecond = l.rate.perSecond()
	e.ETASeconds = 0
	if e.PerSecond > 0 && total > done {
		e.ETASeconds = int(float64(total-done)/e.PerSecond + 0.5)
	}
}

// rate measures a sync's throughput over the last minute or so, so that an
// ETA follows the embedder's current speed rather than its first batch's.
type rate struct {
	t0    time.Time // start of the window
	done0 int       // texts done at t0
	last  time.Time
	done  int
	// prev is the rate of the window before, blended in while the
	// current one is young.
	prev float64
}

// rateWindow is how long a window of rate measures before it starts
// again.
const rateWindow = time.Minute

func (r *rate) start(now time.Time) { *r = rate{t0: now, last: now} }

func (r *rate) observe(now time.Time, done int) {
	if done < r.done { // a new plan counted again from zero
		r.done0 -= r.done - done
	}
	r.last, r.done = now, done
	if now.Sub(r.t0) > rateWindow {
		r.prev = r.perSecond()
		r.t0, r.done0 = now, done
	}
}

func (r *rate) perSecond() float64 {
	el := r.last.Sub(r.t0).Seconds()
	if el <= 0 {
		return r.prev
	}
	cur := float64(r.done-r.done0) / el
	if r.prev > 0 && el < rateWindow.Seconds()/2 {
		return (r.prev + cur) / 2
	}
	return cur
}

// requestSync asks the background worker for a sync, or, when one is
// running, to plan again so that what just changed goes first.
func (l *Live) requestSync() {
	select {
	case l.kick <- struct{}{}:
	default: // one is already asked for
	}
}

// EmbedInBackground starts a worker that runs vector syncs until ctx
// ends, one whenever a pass asks for one (or RetrySync does), so that
// indexing never waits for embedding: with a neural embedder a large vault
// takes minutes, and the server answers meanwhile from the vectors made so
// far. It returns a function that waits for the worker to stop.
func (l *Live) EmbedInBackground(ctx context.Context) (wait func()) {
	l.mu.Lock()
	l.background = true
	l.mu.Unlock()
	done := make(chan struct{})
	go func() {
		defer close(done)
		defer func() {
			l.mu.Lock()
			l.background = false
			l.mu.Unlock()
		}()
		for {
			select {
			case <-ctx.Done():
				return
			case <-l.kick:
				l.syncVectors(ctx)
			}
		}
	}()
	return func() { <-done }
}

// FileChanged is told that the database file was replaced (reopened) or
// deleted. A replaced file, such as a rebuild's, holds a whole index:
// the vectors are synced at once, which loads them into memory. For both,
// the next RetrySync runs a whole pass, which makes a new file in place of
// a deleted one and indexes every vault into it.
func (l *Live) FileChanged(reopened bool) {
	l.mu.Lock()
	l.passWanted = true
	background := l.background
	l.mu.Unlock()
	if reopened && background {
		l.requestSync()
	}
}

// RetrySync syncs the vectors again if the last sync failed, such as while
// a remote embedder was down, and runs a whole pass if the database file
// changed (FileChanged); otherwise it does nothing. The server calls it
// now and then, so that notes changed meanwhile get their vectors once
// the embedder is back, without waiting for the next edit.
func (l *Live) RetrySync(ctx context.Context) {
	l.mu.Lock()
	failed, background, pass := l.syncFailed, l.background, l.passWanted
	l.passWanted = false
	l.mu.Unlock()
	if pass {
		if err := l.All(ctx); err != nil && ctx.Err() == nil {
			l.log.Warn("index pass after the database file changed failed", "err", err)
		}
		return
	}
	if !failed {
		return
	}
	if background {
		l.requestSync()
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

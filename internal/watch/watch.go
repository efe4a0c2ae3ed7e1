// Package watch tells the caller which files of a vault changed, so that
// `jarvis mcp` can keep the index current while it serves. It does not index
// anything itself: it gathers file system events into bursts, one vault at a
// time, and calls back once per burst with the paths that changed; the caller
// runs the indexer, which is incremental and idempotent.
//
// fsnotify is not recursive, so the watcher adds every folder the indexer
// reads, adds folders as they appear and drops them as they go.
//
// A vault folder that disappears (deleted, renamed, its drive unmounted) is
// logged and no longer watched; nothing is reported for it, so an unmounted
// drive does not empty the index. The watcher looks for it again, less often
// the longer it is away, and once it is back watches it again and asks for a
// rescan. Options.Status hears of both.
package watch

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/bmatcuk/doublestar/v4"
	"github.com/fsnotify/fsnotify"

	"github.com/jarvis-mcp/jarvis/internal/config"
	"github.com/jarvis-mcp/jarvis/internal/vault"
)

// Defaults for Options.
const (
	DefaultQuiet   = 300 * time.Millisecond
	DefaultMaxWait = 2 * time.Second
	DefaultReturn  = time.Second
)

// maxReturn bounds the wait between two looks for a vault folder that is
// gone: one that comes back is watched again within a minute.
const maxReturn = time.Minute

// Change is one settled burst of changes to one vault.
type Change struct {
	// Vault is the vault's name.
	Vault string
	// Paths are the vault-relative, slash-separated paths that were created,
	// written, removed or renamed (both names of a rename), sorted and without
	// repeats. A removed or renamed folder appears as one path standing for
	// everything that was under it; a new folder appears as the files found
	// in it. Paths is nil when events were lost, because the kernel's queue
	// overflowed or some folders could not be watched: rescan the whole vault.
	Paths []string
}

// Options tune how changes are gathered. The zero value is ready to use.
type Options struct {
	// Quiet is how long a vault must be free of events before its changes
	// are delivered (DefaultQuiet when zero), so that a save which touches a
	// file several times, or a sync client writing many, arrives as one
	// Change.
	Quiet time.Duration
	// MaxWait bounds the time from a burst's first event to its delivery
	// (DefaultMaxWait when zero), so that a stream of events that never
	// pauses still reaches the index.
	MaxWait time.Duration
	// Fallback, when positive, is the interval at which a vault with folders
	// that could not be watched (the system's watch limit was reached) gets a
	// full rescan, and those folders are tried again. Zero turns it off. No
	// timer runs while every folder is watched.
	Fallback time.Duration
	// Return is how long after a vault folder is found gone the watcher
	// first looks for it again (DefaultReturn when zero); the wait doubles
	// after each look that does not find it, up to a minute.
	Return time.Duration
	// Status, when set, is told that a vault's changes are no longer seen,
	// with why (its folder is gone), and with "" once they are seen again.
	// It is called from New and from Run's goroutine, never at once.
	Status func(vault, problem string)
	// DBPath is the database file. Should it lie inside a vault, writes to it
	// and to its -wal, -shm and -journal files are ignored, since every
	// index run would otherwise trigger the next.
	DBPath string

	// failWatch, when set in tests, makes adding the watch of a folder fail
	// with the error it returns for that folder.
	failWatch func(dir string) error
}

// Watcher watches the folders of some vaults. Create it with New and call
// Run once.
type Watcher struct {
	fw      *fsnotify.Watcher
	opts    Options
	log     *slog.Logger
	vaults  []*vaultState
	dbFiles map[string]bool
	started atomic.Bool

	// The fields below belong to New and then to Run's goroutine.

	// watched holds the absolute paths of the folders with a watch.
	watched map[string]bool
	// unwatched holds the folders whose watch could not be added.
	unwatched map[string]bool
	// limitHit, limitErr and limitWarned make the watch-limit warning
	// appear once, after New's walk has counted the unwatched folders.
	limitHit, limitWarned bool
	limitErr              error
}

// vaultState is one vault and the changes gathered for it.
type vaultState struct {
	name   string
	root   string
	filter filter

	pending map[string]struct{}
	rescan  bool
	// first and last are the times of the first and the latest event of the
	// burst being gathered.
	first, last time.Time
	// busy is true while the callback runs for this vault.
	busy bool
	// gone is true while the vault folder is away; the watcher looks for
	// it at nextLook, and waits wait longer each time it is not there.
	gone     bool
	nextLook time.Time
	wait     time.Duration
}

// New starts watching the folders of vaults. A vault folder that is missing
// is logged, told to Options.Status and looked for until it appears, as one
// that goes later is; New fails only on an invalid exclude pattern or
// when the system refuses a watcher (on Linux, fs.inotify.max_user_instances
// is reached). The watches catch changes from the moment New returns; they
// are delivered once Run is called.
func New(vaults []config.Vault, opts Options, log *slog.Logger) (*Watcher, error) {
	for _, v := range vaults {
		for _, pat := range v.Exclude {
			if _, obsidian := vault.ObsidianFilter(pat); !obsidian && !doublestar.ValidatePattern(pat) {
				return nil, fmt.Errorf("vault %q: exclude pattern %q is not a valid glob", v.Name, pat)
			}
		}
	}
	if opts.Quiet <= 0 {
		opts.Quiet = DefaultQuiet
	}
	if opts.MaxWait <= 0 {
		opts.MaxWait = DefaultMaxWait
	}
	if opts.Return <= 0 {
		opts.Return = DefaultReturn
	}
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	fw, err := fsnotify.NewWatcher()
	if err != nil {
		return nil, fmt.Errorf("start file watcher: %w", err)
	}
	w := &Watcher{
		fw:        fw,
		opts:      opts,
		log:       log,
		dbFiles:   map[string]bool{},
		watched:   map[string]bool{},
		unwatched: map[string]bool{},
	}
	if opts.DBPath != "" {
		if db, err := filepath.Abs(opts.DBPath); err == nil {
			for _, suffix := range []string{"", "-wal", "-shm", "-journal"} {
				w.dbFiles[db+suffix] = true
			}
		}
	}
	for _, v := range vaults {
		vs := &vaultState{
			name:    v.Name,
			root:    filepath.Clean(v.Path),
			filter:  filter{exclude: v.Exclude},
			pending: map[string]struct{}{},
		}
		w.vaults = append(w.vaults, vs)
		st, err := os.Stat(vs.root)
		if err == nil && !st.IsDir() {
			err = errors.New("not a folder")
		}
		if err != nil {
			w.lost(vs, time.Now(), fmt.Sprintf("the vault folder %s cannot be found (%v)", vs.root, err))
			continue
		}
		w.watchTree(vs, vs.root, false)
	}
	if w.limitHit {
		w.warnLimit()
	}
	log.Debug("watching vaults", "vaults", len(vaults), "folders", len(w.watched), "unwatched", len(w.unwatched))
	return w, nil
}

// Run delivers changes to onChange until ctx is done,
// then closes the watches, waits for a running callback to return and
// returns nil. Callbacks for one vault run one at a time, in their own
// goroutine, so events keep being read while the index is updated; those
// that arrive meanwhile are delivered next. Callbacks for different vaults
// may run at the same time. Run may be called only once.
func (w *Watcher) Run(ctx context.Context, onChange func(ctx context.Context, c Change)) error {
	if !w.started.CompareAndSwap(false, true) {
		return errors.New("watcher is already running")
	}
	var callbacks sync.WaitGroup
	defer callbacks.Wait()
	defer w.fw.Close()

	// done gets each vault whose callback returned; with one callback per
	// vault at a time, a send never blocks.
	done := make(chan *vaultState, len(w.vaults))

	// The timer runs only while a burst is pending and the ticker only while
	// some folder is unwatched: an idle watcher wakes for nothing.
	timer := time.NewTimer(time.Hour)
	timer.Stop()
	defer timer.Stop()
	var timerC <-chan time.Time
	var armed time.Time
	var fallback *time.Ticker
	var fallbackC <-chan time.Time
	defer func() {
		if fallback != nil {
			fallback.Stop()
		}
	}()

	for {
		if ctx.Err() != nil {
			return nil
		}
		// Deliver what is due, then sleep until the next deadline or event.
		now := time.Now()
		var next time.Time
		for _, vs := range w.vaults {
			if vs.gone && !vs.nextLook.After(now) {
				w.lookFor(vs, now)
			}
			if vs.gone && (next.IsZero() || vs.nextLook.Before(next)) {
				next = vs.nextLook
			}
			due, ok := vs.due(w.opts)
			if !ok {
				continue
			}
			if due.After(now) {
				if next.IsZero() || due.Before(next) {
					next = due
				}
				continue
			}
			c := vs.take()
			vs.busy = true
			if c.Paths == nil {
				w.log.Debug("vault changed: rescan", "vault", c.Vault)
			} else {
				w.log.Debug("vault changed", "vault", c.Vault, "paths", len(c.Paths))
			}
			callbacks.Go(func() {
				defer func() { done <- vs }()
				onChange(ctx, c)
			})
		}
		switch {
		case next.IsZero() && timerC != nil:
			timer.Stop()
			timerC, armed = nil, time.Time{}
		case !next.IsZero() && (timerC == nil || next.Before(armed)):
			// A later deadline keeps the armed timer: it fires early,
			// delivers nothing and is armed again here.
			timer.Reset(next.Sub(now))
			timerC, armed = timer.C, next
		}

		wantFallback := w.opts.Fallback > 0 && len(w.unwatched) > 0
		switch {
		case wantFallback && fallback == nil:
			fallback = time.NewTicker(w.opts.Fallback)
			fallbackC = fallback.C
		case !wantFallback && fallback != nil:
			fallback.Stop()
			fallback, fallbackC = nil, nil
		}

		select {
		case <-ctx.Done():
			return nil
		case ev, ok := <-w.fw.Events:
			if !ok {
				return nil
			}
			w.handleEvent(ev, time.Now())
		case err, ok := <-w.fw.Errors:
			if !ok {
				return nil
			}
			w.handleError(err, time.Now())
		case vs := <-done:
			vs.busy = false
		case <-timerC:
			timerC, armed = nil, time.Time{}
		case <-fallbackC:
			w.retryUnwatched(time.Now())
		}
	}
}

// handleEvent records one fsnotify event: it keeps the set of watches in
// step with the folders and adds the path to its vault's pending changes.
func (w *Watcher) handleEvent(ev fsnotify.Event, now time.Time) {
	// A permission or timestamp change leaves the content alone.
	if ev.Op&^fsnotify.Chmod == 0 {
		return
	}
	name := filepath.Clean(ev.Name)
	if w.dbFiles[name] {
		return
	}
	dir := w.watched[name] || w.unwatched[name]
	if ev.Has(fsnotify.Remove) || ev.Has(fsnotify.Rename) {
		// Dropping the watches before the Create of a rename's new name
		// arrives matters: Linux gives the moved folder the same watch,
		// which fsnotify would otherwise keep under the old name.
		w.forget(name)
	}
	if ev.Has(fsnotify.Create) {
		if st, err := os.Lstat(name); err == nil && st.IsDir() {
			dir = true
		}
	}
	for _, vs := range w.vaults {
		rel, ok := vs.rel(name)
		if !ok {
			continue
		}
		if rel == "." {
			if (ev.Has(fsnotify.Remove) || ev.Has(fsnotify.Rename)) && !vs.gone {
				w.lost(vs, now, fmt.Sprintf("the vault folder %s is gone (deleted, renamed or unmounted)", vs.root))
			}
			continue
		}
		if vs.gone {
			continue // events queued before its watches went
		}
		if vs.filter.ignores(rel, dir) {
			continue
		}
		if dir && ev.Has(fsnotify.Create) {
			// Files may have been written in the new folder before its
			// watch was added: report what it holds now.
			for _, f := range w.watchTree(vs, name, true) {
				vs.add(f, now)
			}
			continue
		}
		vs.add(rel, now)
	}
}

// handleError deals with an error from fsnotify. An overflow means events
// were lost, new folders among them, so every vault is walked for folders
// to watch and rescanned; any other error is logged and watching goes on.
func (w *Watcher) handleError(err error, now time.Time) {
	if !errors.Is(err, fsnotify.ErrEventOverflow) {
		w.log.Warn("file watcher error; watching goes on", "err", err)
		return
	}
	w.log.Warn("file system events were lost (the kernel queue overflowed); rescanning every vault")
	for p := range w.watched {
		// Stat, not Lstat: a vault folder may be a link to a folder.
		if st, err := os.Stat(p); err != nil || !st.IsDir() {
			w.forget(p)
		}
	}
	for _, vs := range w.vaults {
		if vs.gone {
			continue // looked for on its own schedule
		}
		if st, err := os.Stat(vs.root); err == nil && st.IsDir() {
			w.watchTree(vs, vs.root, false)
		} else {
			w.lost(vs, now, fmt.Sprintf("the vault folder %s is gone (deleted, renamed or unmounted)", vs.root))
			continue
		}
		vs.markRescan(now)
	}
}

// lost records that the folder of vs is gone: its watches go (on Linux
// they would follow the folder to where it was moved), the caller hears
// why, and the folder is looked for again after Return.
func (w *Watcher) lost(vs *vaultState, now time.Time, why string) {
	vs.gone = true
	// What was gathered is not delivered: a pass over a folder that is
	// not there learns nothing, and the rescan at its return covers it.
	vs.pending, vs.rescan = map[string]struct{}{}, false
	vs.wait = w.opts.Return
	vs.nextLook = now.Add(vs.wait)
	for p := range w.watched {
		if _, ok := vs.rel(p); ok {
			w.forget(p)
		}
	}
	w.log.Warn("vault folder is gone; its changes are not seen until it is back, which jarvis watches for",
		"vault", vs.name, "path", vs.root, "why", why)
	if w.opts.Status != nil {
		w.opts.Status(vs.name, why+": changes to its notes are not seen until it is back")
	}
}

// lookFor looks for the folder of a vault that is gone. Back, it is
// watched again and rescanned, since anything may have changed while it was
// away; not back, it is looked for again after twice the last wait.
func (w *Watcher) lookFor(vs *vaultState, now time.Time) {
	if st, err := os.Stat(vs.root); err != nil || !st.IsDir() {
		vs.wait = min(2*vs.wait, maxReturn)
		vs.nextLook = now.Add(vs.wait)
		return
	}
	vs.gone = false
	w.watchTree(vs, vs.root, false)
	vs.markRescan(now)
	w.log.Info("vault folder is back; watching it again", "vault", vs.name, "path", vs.root)
	if w.opts.Status != nil {
		w.opts.Status(vs.name, "")
	}
}

// retryUnwatched runs at each Fallback tick: every vault with unwatched
// folders gets a rescan, and the folders are tried again, since other
// programs may have released watches or the limit may have been raised.
func (w *Watcher) retryUnwatched(now time.Time) {
	for _, vs := range w.vaults {
		for p := range w.unwatched {
			if _, ok := vs.rel(p); ok {
				vs.markRescan(now)
				break
			}
		}
	}
	// A folder that fails again is added back, so walk a copy.
	for _, p := range slices.Collect(maps.Keys(w.unwatched)) {
		delete(w.unwatched, p)
		if st, err := os.Stat(p); err != nil || !st.IsDir() {
			continue
		}
		for _, vs := range w.vaults {
			if _, ok := vs.rel(p); ok {
				w.watchTree(vs, p, false)
				break
			}
		}
	}
	if len(w.unwatched) == 0 {
		w.log.Info("every vault folder is watched now")
	}
}

// rel is the slash-separated path of name inside the vault, "." for the
// vault folder itself; ok is false when name lies outside it.
func (vs *vaultState) rel(name string) (string, bool) {
	if name == vs.root {
		return ".", true
	}
	prefix := vs.root
	if !strings.HasSuffix(prefix, string(filepath.Separator)) {
		prefix += string(filepath.Separator)
	}
	if !strings.HasPrefix(name, prefix) {
		return "", false
	}
	return filepath.ToSlash(name[len(prefix):]), true
}

// add records a change to rel at now.
func (vs *vaultState) add(rel string, now time.Time) {
	vs.touch(now)
	vs.pending[rel] = struct{}{}
}

// markRescan records that the whole vault must be rescanned.
func (vs *vaultState) markRescan(now time.Time) {
	vs.touch(now)
	vs.rescan = true
}

func (vs *vaultState) touch(now time.Time) {
	if !vs.rescan && len(vs.pending) == 0 {
		vs.first = now
	}
	vs.last = now
}

// due is when the gathered changes are to be delivered: after Quiet without
// events, and at the latest MaxWait after the first. ok is false when there
// is nothing to deliver or a callback is still running.
func (vs *vaultState) due(o Options) (time.Time, bool) {
	if vs.busy || (!vs.rescan && len(vs.pending) == 0) {
		return time.Time{}, false
	}
	d := vs.last.Add(o.Quiet)
	if latest := vs.first.Add(o.MaxWait); latest.Before(d) {
		d = latest
	}
	return d, true
}

// take returns the gathered changes and starts a new burst.
func (vs *vaultState) take() Change {
	c := Change{Vault: vs.name}
	if !vs.rescan {
		c.Paths = make([]string, 0, len(vs.pending))
		for p := range vs.pending {
			c.Paths = append(c.Paths, p)
		}
		slices.Sort(c.Paths)
	}
	vs.rescan = false
	vs.pending = map[string]struct{}{} // a new map lets a big burst's memory go
	return c
}

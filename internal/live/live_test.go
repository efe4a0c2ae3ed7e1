package live

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/jarvis-mcp/jarvis/internal/config"
	"github.com/jarvis-mcp/jarvis/internal/index"
	"github.com/jarvis-mcp/jarvis/internal/store"
)

// TestRetrySyncOnlyAfterAFailure: a pass whose vector sync fails still
// leaves the index ready; RetrySync then tries the sync again, and once it
// has succeeded does nothing more.
func TestRetrySyncOnlyAfterAFailure(t *testing.T) {
	ctx := context.Background()
	indexed, synced := 0, 0
	failing := true
	l := New([]config.Vault{{Name: "v", Path: t.TempDir()}},
		func(context.Context, config.Vault, index.Progress) (index.Result, error) {
			indexed++
			return index.Result{}, nil
		},
		func(context.Context, <-chan struct{}, func(int, int)) error {
			synced++
			if failing {
				return errors.New("embedder down")
			}
			return nil
		}, nil)

	if err := l.All(ctx); err != nil {
		t.Fatalf("a pass whose sync failed: %v; want no error, the index is current", err)
	}
	if st := l.State(); st.State != index.StateReady || indexed != 1 || synced != 1 {
		t.Fatalf("after the pass: %+v, %d index runs, %d syncs", st, indexed, synced)
	}
	l.RetrySync(ctx) // still failing
	failing = false
	l.RetrySync(ctx) // succeeds
	l.RetrySync(ctx) // nothing to do
	if synced != 3 || indexed != 1 {
		t.Fatalf("%d syncs and %d index runs after three retries; want 3 and 1", synced, indexed)
	}
}

// TestStartLoadsBesideTheFirstPass: the load of stored vectors runs while
// the first pass indexes, not after it, and Start returns only once both
// are done; a load that fails costs the pass nothing.
func TestStartLoadsBesideTheFirstPass(t *testing.T) {
	ctx := context.Background()
	for _, loadErr := range []error{nil, errors.New("no database yet")} {
		loading := make(chan struct{})
		loaded := false
		l := New([]config.Vault{{Name: "v", Path: t.TempDir()}},
			func(context.Context, config.Vault, index.Progress) (index.Result, error) {
				<-loading // the pass waits for the load to have begun
				return index.Result{}, nil
			}, nil, nil)
		err := l.Start(ctx, func(context.Context) error {
			close(loading)
			loaded = true
			return loadErr
		})
		if err != nil || !loaded {
			t.Fatalf("Start = %v, loaded %v; want the pass done and the load with it", err, loaded)
		}
		if st := l.State(); st.State != index.StateReady {
			t.Fatalf("after Start: %+v", st)
		}
	}
}

// TestWatchingOutlivesPasses: what the watcher says of a vault stays in the
// state through index passes, which replace the rest of it, until the
// watcher says the vault is watched again; State hands out a copy.
func TestWatchingOutlivesPasses(t *testing.T) {
	l := New([]config.Vault{{Name: "v", Path: t.TempDir()}},
		func(context.Context, config.Vault, index.Progress) (index.Result, error) { return index.Result{}, nil }, nil, nil)
	l.Watching("v", "the vault folder is gone")
	if err := l.All(context.Background()); err != nil {
		t.Fatal(err)
	}
	st := l.State()
	if st.State != index.StateReady || st.Unwatched["v"] != "the vault folder is gone" {
		t.Fatalf("after a pass: %+v", st)
	}
	st.Unwatched["v"] = "changed by a reader"
	if got := l.State().Unwatched["v"]; got != "the vault folder is gone" {
		t.Errorf("a reader changed the state: %q", got)
	}
	l.Watching("v", "")
	if st := l.State(); len(st.Unwatched) != 0 {
		t.Errorf("after the watcher is back: %+v", st.Unwatched)
	}
}

// TestFailedVaultLeavesTheOthersIndexed: a vault whose index run fails
// (its folder gone) does not keep the vaults after it from being indexed;
// the pass reports the failure, and the state says it failed.
func TestFailedVaultLeavesTheOthersIndexed(t *testing.T) {
	var indexed []string
	l := New([]config.Vault{{Name: "gone"}, {Name: "here"}},
		func(_ context.Context, v config.Vault, _ index.Progress) (index.Result, error) {
			if v.Name == "gone" {
				return index.Result{}, errors.New("the vault folder does not exist")
			}
			indexed = append(indexed, v.Name)
			return index.Result{}, nil
		}, nil, nil)
	if err := l.All(context.Background()); err == nil {
		t.Fatal("the pass reported no failure")
	}
	if st := l.State(); len(indexed) != 1 || st.State != index.StateFailed || st.Error == "" || len(st.Failed) != 1 || st.Failed["gone"] == "" {
		t.Fatalf("indexed %v, state %+v; want the other vault indexed and the state failed", indexed, st)
	}
}

// TestStateSaysVectorsAreBeingMadeOnceAsked: from the end of a pass that
// hands the vector sync to the background worker, until the sync counts
// its work, the state says vectors are being made (Busy), so that
// semantic search does not tell the user to run an index meanwhile.
func TestStateSaysVectorsAreBeingMadeOnceAsked(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	started, release := make(chan struct{}), make(chan struct{})
	l := New([]config.Vault{{Name: "v", Path: t.TempDir()}},
		func(context.Context, config.Vault, index.Progress) (index.Result, error) { return index.Result{}, nil },
		func(context.Context, <-chan struct{}, func(int, int)) error {
			close(started)
			<-release // not a count reported yet
			return nil
		}, nil)
	// Passes hand the sync over; the worker is not started until the
	// pass has ended, so the state between the two is seen.
	l.mu.Lock()
	l.background = true
	l.mu.Unlock()
	if err := l.All(ctx); err != nil {
		t.Fatal(err)
	}
	if st := l.State(); st.State != index.StateReady || st.Embedding.State != index.EmbedRunning || !st.Busy() {
		t.Fatalf("after the pass, before the sync: %+v; want vectors being made", st)
	}
	wait := l.EmbedInBackground(ctx)
	<-started
	if st := l.State(); st.Embedding.State != index.EmbedRunning || !st.Busy() {
		t.Fatalf("during the sync: %+v; want vectors being made", st)
	}
	close(release)
	cancel()
	wait()
}

// TestDoneAfterEachPassAndSync: Done is called once a pass's index is
// current and again once its vectors are: each time what was said of the
// index before may have changed.
func TestDoneAfterEachPassAndSync(t *testing.T) {
	var events []string
	l := New([]config.Vault{{Name: "v", Path: t.TempDir()}},
		func(context.Context, config.Vault, index.Progress) (index.Result, error) {
			events = append(events, "index")
			return index.Result{}, nil
		},
		func(context.Context, <-chan struct{}, func(int, int)) error {
			events = append(events, "sync")
			return nil
		}, nil)
	l.Done = func() { events = append(events, "done") }
	if err := l.All(context.Background()); err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(events, " "); got != "index sync done done" {
		t.Fatalf("events %q; want the pass's index and sync, each followed by Done", got)
	}
}

// TestFailedOnALockSaysItWasThen: a vault whose run met a lock held by
// another program pointed to health-status "to fix it", where every check
// was ok once the lock was gone; the reason says the lock was then, and
// that health-status says whether it still is.
func TestFailedOnALockSaysItWasThen(t *testing.T) {
	l := New([]config.Vault{{Name: "help", Path: t.TempDir()}},
		func(context.Context, config.Vault, index.Progress) (index.Result, error) {
			return index.Result{}, fmt.Errorf("record vault: %w", store.ErrBusy)
		}, nil, nil)
	l.All(context.Background())
	why := l.State().Failed["help"]
	if !strings.Contains(why, "locked by another program then") || !strings.Contains(why, "health-status says whether it still is") || strings.Contains(why, "how to fix it") {
		t.Errorf("failed on a lock: %q", why)
	}
}

// TestNoVectorsMadeWhereTheDatabaseTakesNoUpdates: a pass that failed
// because this user may not update the database (its folder takes no new
// files) indexed nothing and can store no vectors; health-status said
// vectors were being made, and its freshness fix said to wait for that.
// No sync is run or asked for, and the state says none is under way.
func TestNoVectorsMadeWhereTheDatabaseTakesNoUpdates(t *testing.T) {
	synced := 0
	l := New([]config.Vault{{Name: "v", Path: t.TempDir()}},
		func(context.Context, config.Vault, index.Progress) (index.Result, error) {
			return index.Result{}, fmt.Errorf("record vault: %w", store.ErrAccess)
		},
		func(context.Context, <-chan struct{}, func(int, int)) error {
			synced++
			return nil
		}, nil)
	for _, background := range []bool{false, true} {
		l.mu.Lock()
		l.background = background
		l.mu.Unlock()
		if err := l.All(context.Background()); !errors.Is(err, store.ErrAccess) {
			t.Fatalf("pass = %v; want the access error", err)
		}
		st := l.State()
		if st.State != index.StateFailed || st.Embedding.State == index.EmbedRunning || synced != 0 || len(l.kick) != 0 {
			t.Fatalf("background %v: state %+v, %d syncs, %d asked for; want a failed pass and no vectors being made", background, st, synced, len(l.kick))
		}
	}
}

// TestStateNamesTheVaultsAPassComesToNext: while a pass indexes a vault,
// the state names those it indexes after it, and an answer over a vault
// already indexed in the pass sees no run under way (index.State.For).
func TestStateNamesTheVaultsAPassComesToNext(t *testing.T) {
	var l *Live
	seen := map[string]index.State{}
	l = New([]config.Vault{{Name: "a"}, {Name: "b"}, {Name: "c"}},
		func(_ context.Context, v config.Vault, _ index.Progress) (index.Result, error) {
			seen[v.Name] = l.State()
			return index.Result{}, nil
		}, nil, nil)
	if err := l.All(context.Background()); err != nil {
		t.Fatal(err)
	}
	if got := seen["a"].Next; !slices.Equal(got, []string{"b", "c"}) {
		t.Errorf("indexing a, next %v; want [b c]", got)
	}
	if got := seen["c"].Next; got != nil {
		t.Errorf("indexing the last vault, next %v; want none", got)
	}
	if st := seen["b"].For("a"); st.State != index.StateReady || st.Vault != "" {
		t.Errorf("over vault a, indexed before b: %+v; want ready", st)
	}
	if st := seen["b"].For("c"); st.State != index.StateIndexing || st.Vault != "b" || !slices.Equal(st.Next, []string{"c"}) {
		t.Errorf("over vault c, which waits for b: %+v; want indexing b, then c", st)
	}
	if st := l.State(); st.Next != nil || st.State != index.StateReady {
		t.Errorf("after the pass: %+v", st)
	}
}

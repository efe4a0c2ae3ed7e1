package watch

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/fsnotify/fsnotify"

	"github.com/jarvis-mcp/jarvis/internal/config"

	"github.com/jarvis-mcp/jarvis/internal/sharedtest"
)

// testOptions keep tests quick; deadlines in assertions are far longer, for
// busy CI machines.
var testOptions = Options{Quiet: 50 * time.Millisecond, MaxWait: 300 * time.Millisecond}

const deadline = 3 * time.Second

// recorder collects the Changes a Watcher delivers.
type recorder struct {
	mu      sync.Mutex
	changes []Change
	notify  chan struct{}
}

func newRecorder() *recorder { return &recorder{notify: make(chan struct{}, 1)} }

func (r *recorder) onChange(_ context.Context, c Change) {
	r.mu.Lock()
	r.changes = append(r.changes, c)
	r.mu.Unlock()
	select {
	case r.notify <- struct{}{}:
	default:
	}
}

func (r *recorder) snapshot() []Change {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.changes)
}

// waitFor waits until cond holds for the changes delivered so far.
func (r *recorder) waitFor(t *testing.T, timeout time.Duration, what string, cond func([]Change) bool) {
	t.Helper()
	end := time.After(timeout)
	for {
		if cond(r.snapshot()) {
			return
		}
		select {
		case <-r.notify:
		case <-end:
			t.Fatalf("no %s within %s; got %v", what, timeout, summary(r.snapshot()))
		}
	}
}

// waitForPaths waits until every path in want was reported for vault.
func (r *recorder) waitForPaths(t *testing.T, vault string, want ...string) {
	t.Helper()
	r.waitFor(t, deadline, fmt.Sprintf("change to %v in %s", want, vault), func(cs []Change) bool {
		got := reported(cs, vault)
		for _, p := range want {
			if !got[p] {
				return false
			}
		}
		return true
	})
}

// reported is the set of paths reported for vault.
func reported(cs []Change, vault string) map[string]bool {
	got := map[string]bool{}
	for _, c := range cs {
		if c.Vault == vault {
			for _, p := range c.Paths {
				got[p] = true
			}
		}
	}
	return got
}

// eventually polls until cond holds, for what is not a Change: a log
// line, a status.
func eventually(t *testing.T, timeout time.Duration, what string, cond func() bool) {
	t.Helper()
	for end := time.Now().Add(timeout); !cond(); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(end) {
			t.Fatalf("no %s within %s", what, timeout)
		}
	}
}

func rescans(cs []Change, vault string) int {
	n := 0
	for _, c := range cs {
		if c.Vault == vault && c.Paths == nil {
			n++
		}
	}
	return n
}

func summary(cs []Change) string {
	var b strings.Builder
	for _, c := range cs {
		if c.Paths == nil {
			fmt.Fprintf(&b, "[%s: rescan] ", c.Vault)
			continue
		}
		ps := c.Paths
		if len(ps) > 5 {
			ps = append(ps[:5:5], fmt.Sprintf("... %d in all", len(c.Paths)))
		}
		fmt.Fprintf(&b, "[%s: %s] ", c.Vault, strings.Join(ps, " "))
	}
	return b.String()
}

// logBuffer is a log destination that the watcher writes while a test reads.
type logBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (l *logBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.Write(p)
}

func (l *logBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.String()
}

func newLog() (*slog.Logger, *logBuffer) {
	lb := &logBuffer{}
	return slog.New(slog.NewTextHandler(lb, &slog.HandlerOptions{Level: slog.LevelDebug})), lb
}

// start creates a Watcher and runs it until the test ends.
func start(t *testing.T, vaults []config.Vault, opts Options, log *slog.Logger) (*Watcher, *recorder) {
	t.Helper()
	if log == nil {
		log, _ = newLog()
	}
	w, err := New(vaults, opts, log)
	if err != nil {
		t.Fatal(err)
	}
	rec := newRecorder()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- w.Run(ctx, rec.onChange) }()
	t.Cleanup(func() {
		cancel()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("Run: %v", err)
			}
		case <-time.After(5 * time.Second):
			t.Error("Run did not return after its context ended")
		}
	})
	return w, rec
}

func newVault(t *testing.T, name string, exclude ...string) config.Vault {
	t.Helper()
	return config.Vault{Name: name, Path: t.TempDir(), Exclude: exclude}
}

func TestNoteLifecycle(t *testing.T) {
	v := newVault(t, "notes")
	sharedtest.WriteFile(t, v.Path, "Existing.md", "old")
	_, rec := start(t, []config.Vault{v}, testOptions, nil)

	sharedtest.WriteFile(t, v.Path, "Created.md", "new note")
	rec.waitForPaths(t, "notes", "Created.md")

	sharedtest.WriteFile(t, v.Path, "Existing.md", "edited")
	rec.waitForPaths(t, "notes", "Existing.md")

	if err := os.Rename(filepath.Join(v.Path, "Created.md"), filepath.Join(v.Path, "Renamed.md")); err != nil {
		t.Fatal(err)
	}
	rec.waitForPaths(t, "notes", "Renamed.md")

	if err := os.Remove(filepath.Join(v.Path, "Existing.md")); err != nil {
		t.Fatal(err)
	}
	// Existing.md was reported for the edit already: wait for a change
	// after the rename that names it again.
	n := len(rec.snapshot())
	rec.waitFor(t, deadline, "change for the removal", func(cs []Change) bool {
		return len(cs) > n && reported(cs[n:], "notes")["Existing.md"]
	})
	if rescans(rec.snapshot(), "notes") != 0 {
		t.Errorf("got a rescan with every folder watched: %v", summary(rec.snapshot()))
	}
}

func TestRenameReportsBothNames(t *testing.T) {
	v := newVault(t, "notes")
	sharedtest.WriteFile(t, v.Path, "Before.md", "x")
	_, rec := start(t, []config.Vault{v}, testOptions, nil)

	if err := os.Rename(filepath.Join(v.Path, "Before.md"), filepath.Join(v.Path, "After.md")); err != nil {
		t.Fatal(err)
	}
	rec.waitForPaths(t, "notes", "Before.md", "After.md")
}

func TestNewNestedFolderAndFileInside(t *testing.T) {
	v := newVault(t, "notes")
	_, rec := start(t, []config.Vault{v}, testOptions, nil)

	// MkdirAll and the write follow each other at once, before the watcher
	// can add a watch to the new folders: the file is found by listing them.
	sharedtest.WriteFile(t, v.Path, "Projects/2026/Q1/Plan.md", "plan")
	rec.waitForPaths(t, "notes", "Projects/2026/Q1/Plan.md")

	// By now the new folders are watched.
	sharedtest.WriteFile(t, v.Path, "Projects/2026/Q1/Later.md", "later")
	sharedtest.WriteFile(t, v.Path, "Projects/Top.md", "top")
	rec.waitForPaths(t, "notes", "Projects/2026/Q1/Later.md", "Projects/Top.md")
}

func TestFolderRenameAndRemove(t *testing.T) {
	v := newVault(t, "notes")
	sharedtest.WriteFile(t, v.Path, "Old/Sub/Note.md", "x")
	_, rec := start(t, []config.Vault{v}, testOptions, nil)

	if err := os.Rename(filepath.Join(v.Path, "Old"), filepath.Join(v.Path, "New")); err != nil {
		t.Fatal(err)
	}
	rec.waitForPaths(t, "notes", "Old", "New/Sub/Note.md")

	// The renamed folders are watched under their new names.
	sharedtest.WriteFile(t, v.Path, "New/Sub/Added.md", "y")
	rec.waitForPaths(t, "notes", "New/Sub/Added.md")

	if err := os.RemoveAll(filepath.Join(v.Path, "New")); err != nil {
		t.Fatal(err)
	}
	rec.waitForPaths(t, "notes", "New")

	// A folder created again under a removed folder's name is watched.
	sharedtest.WriteFile(t, v.Path, "New/Again.md", "z")
	rec.waitForPaths(t, "notes", "New/Again.md")
	sharedtest.WriteFile(t, v.Path, "New/Again2.md", "z")
	rec.waitForPaths(t, "notes", "New/Again2.md")
}

func TestVaultFolderBehindSymlink(t *testing.T) {
	dir := t.TempDir()
	real := filepath.Join(dir, "Real")
	sharedtest.WriteFile(t, real, "Sub/Old.md", "x")
	link := filepath.Join(dir, "Vault")
	if err := os.Symlink(real, link); err != nil {
		t.Skipf("cannot make a symbolic link: %v", err)
	}
	_, rec := start(t, []config.Vault{{Name: "notes", Path: link}}, testOptions, nil)

	sharedtest.WriteFile(t, link, "Top.md", "x")
	sharedtest.WriteFile(t, link, "Sub/New.md", "x")
	rec.waitForPaths(t, "notes", "Top.md", "Sub/New.md")
}

func TestBurstSettlesIntoFewCallbacks(t *testing.T) {
	v := newVault(t, "notes")
	_, rec := start(t, []config.Vault{v}, testOptions, nil)

	const n = 500
	want := make([]string, n)
	for i := range n {
		want[i] = fmt.Sprintf("Burst/Note %03d.md", i)
	}
	if err := os.Mkdir(filepath.Join(v.Path, "Burst"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, rel := range want {
		sharedtest.WriteFile(t, v.Path, rel, "burst "+rel)
	}
	rec.waitFor(t, 10*time.Second, "all 500 paths", func(cs []Change) bool {
		got := reported(cs, "notes")
		for _, p := range want {
			if !got[p] {
				return false
			}
		}
		return true
	})
	// Let any straggling callback arrive before counting.
	time.Sleep(4 * testOptions.MaxWait)
	cs := rec.snapshot()
	t.Logf("500 writes gave %d callbacks", len(cs))
	if len(cs) >= 20 {
		t.Errorf("500 writes gave %d callbacks, want fewer than 20", len(cs))
	}
	for _, c := range cs {
		if !slices.IsSorted(c.Paths) || len(slices.Compact(slices.Clone(c.Paths))) != len(c.Paths) {
			t.Errorf("paths are not sorted and unique: %v", summary([]Change{c}))
		}
	}
}

func TestMaxWaitBoundsAStream(t *testing.T) {
	v := newVault(t, "notes")
	// Quiet is longer than the gaps and the stream, so only MaxWait can
	// deliver before the stream ends.
	opts := Options{Quiet: 5 * time.Second, MaxWait: 300 * time.Millisecond}
	_, rec := start(t, []config.Vault{v}, opts, nil)

	begin := time.Now()
	var firstAt time.Duration
	for i := 0; time.Since(begin) < 2*time.Second; i++ {
		sharedtest.WriteFile(t, v.Path, fmt.Sprintf("Stream %d.md", i), "x")
		if firstAt == 0 && len(rec.snapshot()) > 0 {
			firstAt = time.Since(begin)
		}
		time.Sleep(20 * time.Millisecond)
	}
	if firstAt == 0 {
		t.Fatalf("no change delivered during a 2s stream of writes with MaxWait %s", opts.MaxWait)
	}
	t.Logf("first change after %s", firstAt)
}

func TestIgnoredChanges(t *testing.T) {
	v := newVault(t, "notes", "Archive/**", "*.excalidraw.md", "Private")
	db := filepath.Join(v.Path, "jarvis.db")
	opts := testOptions
	opts.DBPath = db
	sharedtest.WriteFile(t, v.Path, ".obsidian/app.json", "{}")
	sharedtest.WriteFile(t, v.Path, "Archive/Old.md", "x")
	sharedtest.WriteFile(t, v.Path, "Deep/Private/Secret.md", "x")
	_, rec := start(t, []config.Vault{v}, opts, nil)

	ignored := []string{
		".obsidian/workspace.json",
		".obsidian/app.json",
		".trash/Deleted.md",
		".git/index",
		"node_modules/pkg/index.js",
		"Archive/Old.md",
		"Archive/2025/New.md",
		"Deep/Private/Secret.md",
		"Private/Other.md",
		"Drawing.excalidraw.md",
		"jarvis.db",
		"jarvis.db-wal",
		".#Note.md",
		".Note.md.swp",
		"~$Report.docx",
		"download.tmp",
		"Note.md~",
	}
	for _, rel := range ignored {
		sharedtest.WriteFile(t, v.Path, rel, "changed")
	}
	kept := []string{"Sentinel.md", "Attachments/diagram.png", "Draft.tmp.md", "Archive.md"}
	for _, rel := range kept {
		sharedtest.WriteFile(t, v.Path, rel, "changed")
	}
	rec.waitForPaths(t, "notes", kept...)
	got := reported(rec.snapshot(), "notes")
	for _, rel := range ignored {
		if got[rel] {
			t.Errorf("change to %s was reported", rel)
		}
	}
	for p := range got {
		if !slices.Contains(kept, p) && p != "Attachments" {
			t.Errorf("unexpected path %q reported", p)
		}
	}
}

func TestTwoVaultsReportedSeparately(t *testing.T) {
	a, b := newVault(t, "work"), newVault(t, "home")
	opts := testOptions
	opts.Fallback = 50 * time.Millisecond // must stay idle: every folder is watched
	_, rec := start(t, []config.Vault{a, b}, opts, nil)

	sharedtest.WriteFile(t, a.Path, "Meeting.md", "a")
	sharedtest.WriteFile(t, b.Path, "Groceries.md", "b")
	rec.waitForPaths(t, "work", "Meeting.md")
	rec.waitForPaths(t, "home", "Groceries.md")
	time.Sleep(4 * opts.Fallback)
	cs := rec.snapshot()
	if got := reported(cs, "work"); got["Groceries.md"] {
		t.Errorf("work got home's change: %v", summary(cs))
	}
	if got := reported(cs, "home"); got["Meeting.md"] {
		t.Errorf("home got work's change: %v", summary(cs))
	}
	if rescans(cs, "work")+rescans(cs, "home") != 0 {
		t.Errorf("got a rescan with every folder watched: %v", summary(cs))
	}
}

func TestCallbacksForOneVaultDoNotOverlap(t *testing.T) {
	v := newVault(t, "notes")
	w, err := New([]config.Vault{v}, testOptions, nil)
	if err != nil {
		t.Fatal(err)
	}
	var running, most atomic.Int32
	rec := newRecorder()
	onChange := func(ctx context.Context, c Change) {
		n := running.Add(1)
		if n > most.Load() {
			most.Store(n)
		}
		time.Sleep(150 * time.Millisecond) // a slow index run
		running.Add(-1)
		rec.onChange(ctx, c)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- w.Run(ctx, onChange) }()

	var want []string
	for i := range 40 {
		rel := fmt.Sprintf("Slow %d.md", i)
		want = append(want, rel)
		sharedtest.WriteFile(t, v.Path, rel, "x")
		time.Sleep(25 * time.Millisecond)
	}
	rec.waitFor(t, 10*time.Second, "every path", func(cs []Change) bool {
		got := reported(cs, "notes")
		for _, p := range want {
			if !got[p] {
				return false
			}
		}
		return true
	})
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if m := most.Load(); m != 1 {
		t.Errorf("%d callbacks for one vault ran at once", m)
	}
}

func TestOverflowAsksForRescan(t *testing.T) {
	a, b := newVault(t, "work"), newVault(t, "home")
	w, rec := start(t, []config.Vault{a, b}, testOptions, nil)

	// fsnotify reports an overflowed kernel queue on its Errors channel.
	w.fw.Errors <- fsnotify.ErrEventOverflow
	rec.waitFor(t, deadline, "rescan of both vaults", func(cs []Change) bool {
		return rescans(cs, "work") > 0 && rescans(cs, "home") > 0
	})
	sharedtest.WriteFile(t, a.Path, "After.md", "x")
	rec.waitForPaths(t, "work", "After.md")
}

func TestOtherErrorsAreLoggedAndWatchingGoesOn(t *testing.T) {
	v := newVault(t, "notes")
	log, logs := newLog()
	w, rec := start(t, []config.Vault{v}, testOptions, log)

	w.fw.Errors <- errors.New("something odd")
	sharedtest.WriteFile(t, v.Path, "Still.md", "x")
	rec.waitForPaths(t, "notes", "Still.md")
	if !strings.Contains(logs.String(), "something odd") {
		t.Errorf("error not logged; log:\n%s", logs)
	}
}

func TestWatchLimitFallsBackToRescans(t *testing.T) {
	v := newVault(t, "notes")
	sharedtest.WriteFile(t, v.Path, "Deep/Er/Note.md", "x")
	var limited atomic.Bool
	limited.Store(true)
	opts := testOptions
	opts.Fallback = 200 * time.Millisecond
	opts.failWatch = func(dir string) error {
		if limited.Load() && strings.Contains(filepath.ToSlash(dir), "/Deep") {
			return fmt.Errorf("add watch: %w", syscall.ENOSPC)
		}
		return nil
	}
	log, logs := newLog()
	_, rec := start(t, []config.Vault{v}, opts, log)

	if n := strings.Count(logs.String(), "limit on file watches is reached"); n != 1 {
		t.Errorf("the watch-limit warning appears %d times, want once; log:\n%s", n, logs)
	}
	if !strings.Contains(logs.String(), "max_user_watches") || !strings.Contains(logs.String(), "unwatched_folders=2") {
		t.Errorf("the warning does not say what to raise or count the 2 unwatched folders; log:\n%s", logs)
	}
	// Changes in the unwatched folders arrive as periodic rescans, even
	// while nothing else happens.
	rec.waitFor(t, deadline, "fallback rescans", func(cs []Change) bool { return rescans(cs, "notes") >= 2 })
	// Folders that were watched still report paths.
	sharedtest.WriteFile(t, v.Path, "Top.md", "x")
	rec.waitForPaths(t, "notes", "Top.md")

	// Once watches can be added again, the next tick watches the folders
	// and the rescans stop.
	limited.Store(false)
	rec.waitFor(t, deadline, "recovery", func([]Change) bool {
		return strings.Contains(logs.String(), "every vault folder is watched now")
	})
	sharedtest.WriteFile(t, v.Path, "Deep/Er/New.md", "x")
	rec.waitForPaths(t, "notes", "Deep/Er/New.md")
	before := rescans(rec.snapshot(), "notes")
	time.Sleep(5 * opts.Fallback)
	if after := rescans(rec.snapshot(), "notes"); after != before {
		t.Errorf("rescans went on with every folder watched: %d, then %d", before, after)
	}
}

func TestVaultFolderGone(t *testing.T) {
	parent := t.TempDir()
	gone := config.Vault{Name: "usb", Path: filepath.Join(parent, "Vault")}
	sharedtest.WriteFile(t, gone.Path, "Note.md", "x")
	stays := newVault(t, "home")
	log, logs := newLog()
	_, rec := start(t, []config.Vault{gone, stays}, testOptions, log)

	if err := os.RemoveAll(gone.Path); err != nil {
		t.Fatal(err)
	}
	eventually(t, deadline, "warning", func() bool {
		return strings.Contains(logs.String(), "vault folder is gone")
	})
	sharedtest.WriteFile(t, stays.Path, "Still.md", "x")
	rec.waitForPaths(t, "home", "Still.md")
}

// statusLog records what a Watcher tells Options.Status.
type statusLog struct {
	mu   sync.Mutex
	last map[string]string
	seen []string
}

func (l *statusLog) status(vault, problem string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.last == nil {
		l.last = map[string]string{}
	}
	l.last[vault] = problem
	l.seen = append(l.seen, vault+": "+problem)
}

func (l *statusLog) of(vault string) string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.last[vault]
}

// TestVaultFolderRenamedAwayAndBack: a vault folder renamed away (a git
// checkout, a sync client, a remount) and back is watched again: the
// watcher says its changes are not seen while it is away, asks for a
// rescan once it is back, and reports the edits made after.
func TestVaultFolderRenamedAwayAndBack(t *testing.T) {
	parent := t.TempDir()
	v := config.Vault{Name: "notes", Path: filepath.Join(parent, "Vault")}
	sharedtest.WriteFile(t, v.Path, "Sub/Note.md", "x")
	var st statusLog
	opts := testOptions
	opts.Return, opts.Status = 20*time.Millisecond, st.status
	_, rec := start(t, []config.Vault{v}, opts, nil)

	if err := os.Rename(v.Path, v.Path+"-away"); err != nil {
		t.Fatal(err)
	}
	eventually(t, deadline, "word that the folder is gone", func() bool {
		return strings.Contains(st.of("notes"), "is gone")
	})
	// Written while away: under the old name on Linux the folder keeps
	// its watches unless they are dropped.
	sharedtest.WriteFile(t, v.Path+"-away", "Sub/Away.md", "x")
	time.Sleep(5 * opts.Return)
	if err := os.Rename(v.Path+"-away", v.Path); err != nil {
		t.Fatal(err)
	}
	rec.waitFor(t, 5*deadline, "rescan once the folder is back", func(cs []Change) bool {
		return rescans(cs, "notes") > 0
	})
	if got := st.of("notes"); got != "" {
		t.Errorf("status %q once the folder is back, want none", got)
	}
	if got := reported(rec.snapshot(), "notes"); got["Sub/Away.md"] {
		t.Errorf("a change made while the folder was away was reported under its path: %v", summary(rec.snapshot()))
	}
	sharedtest.WriteFile(t, v.Path, "Sub/After.md", "x")
	rec.waitForPaths(t, "notes", "Sub/After.md")
}

// TestVaultFolderMissingAtStart: a vault folder missing when the watcher
// starts is looked for until it appears, then watched.
func TestVaultFolderMissingAtStart(t *testing.T) {
	v := config.Vault{Name: "late", Path: filepath.Join(t.TempDir(), "Vault")}
	var st statusLog
	opts := testOptions
	opts.Return, opts.Status = 20*time.Millisecond, st.status
	_, rec := start(t, []config.Vault{v}, opts, nil)
	if !strings.Contains(st.of("late"), "cannot be found") {
		t.Fatalf("status %q for a missing folder", st.of("late"))
	}
	sharedtest.WriteFile(t, v.Path, "First.md", "x")
	rec.waitFor(t, 5*deadline, "rescan once the folder appears", func(cs []Change) bool {
		return rescans(cs, "late") > 0
	})
	sharedtest.WriteFile(t, v.Path, "Second.md", "x")
	rec.waitForPaths(t, "late", "Second.md")
	if st.of("late") != "" {
		t.Errorf("status %q once the folder is there", st.of("late"))
	}
}

func TestNew(t *testing.T) {
	t.Run("invalid exclude glob", func(t *testing.T) {
		v := newVault(t, "notes", "Archive/[")
		if _, err := New([]config.Vault{v}, Options{}, nil); err == nil {
			t.Fatal("New accepted an invalid glob")
		}
	})
	t.Run("missing vault folder", func(t *testing.T) {
		v := config.Vault{Name: "missing", Path: filepath.Join(t.TempDir(), "nope")}
		log, logs := newLog()
		w, err := New([]config.Vault{v}, Options{}, log)
		if err != nil {
			t.Fatal(err)
		}
		defer w.fw.Close()
		if !strings.Contains(logs.String(), "vault folder is gone") {
			t.Errorf("missing folder not logged; log:\n%s", logs)
		}
	})
	t.Run("Run twice", func(t *testing.T) {
		w, err := New([]config.Vault{newVault(t, "notes")}, Options{}, nil)
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		if err := w.Run(ctx, func(context.Context, Change) {}); err != nil {
			t.Fatal(err)
		}
		if err := w.Run(ctx, func(context.Context, Change) {}); err == nil {
			t.Fatal("second Run did not fail")
		}
	})
}

func TestRunReturnsOnCancelWithoutLeaks(t *testing.T) {
	before := runtime.NumGoroutine()
	v := newVault(t, "notes")
	w, err := New([]config.Vault{v}, testOptions, nil)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	called := make(chan struct{}, 1)
	done := make(chan error, 1)
	go func() {
		done <- w.Run(ctx, func(ctx context.Context, c Change) {
			select {
			case called <- struct{}{}:
			default:
			}
			<-ctx.Done() // a callback still running at shutdown
		})
	}()
	sharedtest.WriteFile(t, v.Path, "Note.md", "x")
	select {
	case <-called:
	case <-time.After(deadline):
		t.Fatal("no callback")
	}
	sharedtest.WriteFile(t, v.Path, "Pending.md", "x") // gathered, never delivered
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(deadline):
		t.Fatal("Run did not return after cancel")
	}
	// Goroutines take a moment to finish after their last channel operation.
	var after int
	for end := time.Now().Add(deadline); time.Now().Before(end); time.Sleep(20 * time.Millisecond) {
		if after = runtime.NumGoroutine(); after <= before {
			return
		}
	}
	t.Errorf("%d goroutines before, %d after Run returned", before, after)
}

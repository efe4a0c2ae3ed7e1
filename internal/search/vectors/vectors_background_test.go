package vectors

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jarvis-mcp/jarvis/internal/embed"
)

// gated is an embedder that announces each call on started and waits for
// a word on proceed before answering, so a test can look at the store
// between batches. It records the texts it was given, in order.
type gated struct {
	letters
	started chan []string
	proceed chan struct{}
	// query is a text answered at once, ungated: the query of a search
	// made while a batch waits.
	query string
	mu    sync.Mutex
	seen  []string
}

func newGated(model string) *gated {
	return &gated{letters: letters{Name: model}, started: make(chan []string), proceed: make(chan struct{})}
}

func (g *gated) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	if len(texts) == 1 && texts[0] == g.query {
		return g.letters.Embed(ctx, texts)
	}
	g.mu.Lock()
	g.seen = append(g.seen, texts...)
	g.mu.Unlock()
	select {
	case g.started <- texts:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	select {
	case <-g.proceed:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	return g.letters.Embed(ctx, texts)
}

func gatedSource(g *gated) EmbedderSource {
	src := sourceFor(&g.letters)
	src.Restore = func([]byte) (embed.Embedder, error) { return g, nil }
	return src
}

// touch sets a note's modification time.
func touch(t *testing.T, db DB, path string, mtime int64) {
	t.Helper()
	if _, err := db.ExecContext(context.Background(), `UPDATE files SET mtime_ns = ? WHERE path = ?`, mtime, path); err != nil {
		t.Fatal(err)
	}
}

// TestSyncEmbedsNewestNotesFirst: the note written last is the one most
// likely to be asked about, so it gets its vectors first.
func TestSyncEmbedsNewestNotesFirst(t *testing.T) {
	ctx := context.Background()
	db, add := testDB(t)
	add("old.md", "alpha")
	add("newest.md", "gamma")
	add("middle.md", "beta")
	touch(t, db, "old.md", 10)
	touch(t, db, "newest.md", 30)
	touch(t, db, "middle.md", 20)
	g := newGated("m")
	v := NewVectors(db, gatedSource(g), quietLog())
	v.BatchSize = 1
	done := make(chan error)
	go func() { _, err := v.Sync(ctx, SyncOptions{}); done <- err }()
	var order []string
	for range 3 {
		texts := <-g.started
		order = append(order, strings.Join(texts, "|"))
		g.proceed <- struct{}{}
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	for i, want := range []string{"newest", "middle", "old"} {
		if !strings.Contains(order[i], want) {
			t.Fatalf("embedding order %q: want %s at %d", order, want, i)
		}
	}
}

// TestSyncServesWhileEmbedding: a serving store adds each stored batch to
// memory at once, so search answers from the vectors made so far, and
// Coverage says how far that is.
func TestSyncServesWhileEmbedding(t *testing.T) {
	ctx := context.Background()
	db, add := testDB(t)
	add("a.md", "apple")
	add("b.md", "banana")
	add("c.md", "cherry")
	g := newGated("m")
	g.query = "whatever"
	v := servingVectors(db, gatedSource(g), quietLog())
	v.BatchSize = 1
	done := make(chan error)
	go func() { _, err := v.Sync(ctx, SyncOptions{}); done <- err }()
	<-g.started
	if got, total := v.Coverage(); got != 0 || total != 3 {
		t.Fatalf("before the first batch: coverage %d of %d, want 0 of 3", got, total)
	}
	g.proceed <- struct{}{}
	<-g.started // the first batch is stored and in memory before the second starts
	if got, total := v.Coverage(); got != 1 || total != 3 {
		t.Fatalf("after one batch: coverage %d of %d, want 1 of 3", got, total)
	}
	hits, err := v.Nearest(ctx, mustEmbedQuery(t, v, "whatever"), nil, 10, nil, -1)
	if err != nil {
		t.Fatal(err)
	}
	if len(hits) != 1 {
		t.Fatalf("search while embedding found %d chunks, want the 1 with a vector", len(hits))
	}
	g.proceed <- struct{}{}
	<-g.started
	g.proceed <- struct{}{}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if got, total := v.Coverage(); got != 3 || total != 3 {
		t.Fatalf("after the run: coverage %d of %d, want 3 of 3", got, total)
	}
}

// TestSyncReplansForNewChunks: a note written while a long run is under
// way is embedded next, not after everything planned before it.
func TestSyncReplansForNewChunks(t *testing.T) {
	ctx := context.Background()
	db, add := testDB(t)
	for _, p := range []string{"one.md", "two.md", "three.md", "four.md"} {
		add(p, "text of "+p)
	}
	g := newGated("m")
	v := servingVectors(db, gatedSource(g), quietLog())
	v.BatchSize = 1
	replan := make(chan struct{}, 1)
	done := make(chan error)
	var progress []int
	go func() {
		_, err := v.Sync(ctx, SyncOptions{Replan: replan, Progress: func(d, total int) { progress = append(progress, total) }})
		done <- err
	}()
	<-g.started
	add("edited.md", "written while embedding")
	touch(t, db, "edited.md", 1000)
	replan <- struct{}{}
	g.proceed <- struct{}{}
	next := <-g.started
	if !strings.Contains(strings.Join(next, ""), "written while embedding") {
		t.Fatalf("after the replan the next batch was %q, want the edited note", next)
	}
	g.proceed <- struct{}{}
	for range 3 {
		<-g.started
		g.proceed <- struct{}{}
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if got, total := v.Coverage(); got != 5 || total != 5 {
		t.Fatalf("coverage %d of %d, want 5 of 5", got, total)
	}
	if progress[len(progress)-1] != 5 {
		t.Fatalf("progress totals %v: the last should count the new note", progress)
	}
}

// slowLetters takes a while over each call.
type slowLetters struct {
	letters
	each time.Duration
}

func (s *slowLetters) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	select {
	case <-time.After(s.each):
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	return s.letters.Embed(ctx, texts)
}

// TestSyncLetsOtherWritersIn: a long embedding run gives the writer lock
// up now and then, so an index run (in this process or another) is not
// held up until every chunk has a vector.
func TestSyncLetsOtherWritersIn(t *testing.T) {
	ctx := context.Background()
	db, add := testDB(t)
	const n = 40
	for i := range n {
		add(strings.Repeat("n", i+1)+".md", "chunk")
	}
	s := &slowLetters{letters: letters{Name: "m"}, each: 100 * time.Millisecond}
	src := sourceFor(&s.letters)
	src.Restore = func([]byte) (embed.Embedder, error) { return s, nil }
	v := NewVectors(db, src, quietLog())
	v.BatchSize = 1
	done := make(chan error, 1)
	go func() { _, err := v.Sync(ctx, SyncOptions{}); done <- err }()
	time.Sleep(200 * time.Millisecond)
	wait, cancel := context.WithTimeout(ctx, 20*time.Second)
	defer cancel()
	unlock, err := db.LockWriters(wait)
	if err != nil {
		t.Fatal(err)
	}
	embedded := s.Calls.Load()
	unlock()
	if embedded >= n {
		t.Fatalf("the writer lock came free only after all %d chunks were embedded", n)
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}

package vectors

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"iter"
	"time"

	"github.com/jarvis-mcp/jarvis/internal/embed"
	"github.com/jarvis-mcp/jarvis/internal/store"
	"github.com/jarvis-mcp/jarvis/internal/vault"
	"github.com/jarvis-mcp/jarvis/internal/words"
)

// ErrRunTimeout means a Sync stopped embedding when its RunTimeout ran
// out; what it stored before stays, and the next Sync goes on from there.
var ErrRunTimeout = errors.New("embedding took longer than the run allows")

// runTimeoutError is ErrRunTimeout with how far the run got.
type runTimeoutError struct {
	limit           time.Duration
	embedded, total int
	err             error // what the embedder said when stopped; may be nil
}

func (e *runTimeoutError) Error() string {
	msg := fmt.Sprintf("embedding stopped at the run limit of %s with %d of %s embedded (the next run goes on from there)", e.limit, e.embedded, words.Count(e.total, "text"))
	if e.err != nil {
		msg += ": " + e.err.Error()
	}
	return msg
}

func (e *runTimeoutError) Is(target error) bool { return target == ErrRunTimeout }
func (e *runTimeoutError) Unwrap() error        { return e.err }

// SyncOptions change what Sync does.
type SyncOptions struct {
	// Reembed drops every stored vector and embeds all chunks again; the
	// lexical embedder is fitted again on the current text first.
	Reembed bool
	// Progress is told how many of the chunks that need vectors are done.
	// total grows when the plan is made again after a change.
	Progress func(done, total int)
	// Replan, when it delivers, makes Sync plan again before its next
	// batch: chunks added since (an edit while serving) are newest and go
	// first, rather than after everything planned before them.
	Replan <-chan struct{}
}

// SyncResult says what a Sync did.
type SyncResult struct {
	Embedder string `json:"embedder"` // the fingerprint
	Embedded int    `json:"embedded"` // texts embedded in this run
	Vectors  int    `json:"vectors"`  // chunks with a vector now
	Chunks   int    `json:"chunks"`   // chunks in the database
	// Shared counts the chunks that got their vector in this run from
	// another chunk of the same text, with no embedding of their own; the
	// rest of Vectors beyond Embedded and Shared had one before the run.
	Shared int `json:"shared"`
	// Refitted says that the lexical embedder's word statistics were
	// taken again in this run, the passages having changed much since
	// they were: every passage is embedded again.
	Refitted bool `json:"refitted,omitempty"`
}

// Sync embeds every chunk that has no vector from the configured embedder,
// newest notes first, removes vectors no chunk uses, and brings the
// in-memory collections in step. Each batch commits on its own and, when
// the store serves queries, joins the collections at once: an interrupted
// run keeps what it embedded, the next run goes on from there, and search
// answers from the vectors made so far while the rest are being made.
//
// The writer lock is held a slice of time at a time (holdWriters), never
// for the whole run: with a neural embedder a large vault takes minutes,
// and an index run, here or in another process, must not wait for it.
func (v *Vectors) Sync(ctx context.Context, opts SyncOptions) (SyncResult, error) {
	res, got, err := v.run(ctx, opts)
	if got.emb != nil {
		// Memory is brought in step after the writer lock is given back:
		// loading writes nothing, and other processes need not wait on it.
		// After a failed embedding, what is stored still serves.
		if aerr := v.adopt(ctx, got.emb, got.rowID); aerr != nil {
			if err != nil {
				v.loadFailed(ctx, aerr)
			} else {
				err = aerr
			}
		}
	}
	return res, err
}

// loadFailed logs a failure to load the stored vectors into memory: a
// warning, but for a load cut off because the run was cancelled (the
// server closing), which says nothing of the vectors.
func (v *Vectors) loadFailed(ctx context.Context, err error) {
	if ctx.Err() != nil && errors.Is(err, ctx.Err()) {
		v.log.Debug("load stored vectors: cut off", "err", err)
		return
	}
	v.log.Warn("load stored vectors", "err", err)
}

// synced is the embedder a sync used and the embedders row its vectors
// are stored under; emb is nil when there is nothing to serve.
type synced struct {
	emb   embed.Embedder
	rowID int64
}

// holdWriters is how long a sync keeps the writer lock before giving
// others a turn, and yieldWriters how long it then waits before taking it
// again: longer than a waiting writer's poll (store's lockPoll), so that
// the waiter gets it.
const (
	holdWriters  = time.Second
	yieldWriters = 75 * time.Millisecond
)

// lockWriters takes the database's writer lock when it has one: another
// jarvis (one per MCP client, all on the default database) would otherwise
// embed the same chunks, or refit the embedder under this one.
func (v *Vectors) lockWriters(ctx context.Context) (func(), error) {
	if l, ok := v.db.(writerLocker); ok {
		return l.LockWriters(ctx)
	}
	return func() {}, nil
}

// run syncs once more when the embedder turned out to have changed.
func (v *Vectors) run(ctx context.Context, opts SyncOptions) (SyncResult, synced, error) {
	embedCtx := ctx
	if v.src.RunTimeout > 0 {
		var cancel context.CancelFunc
		embedCtx, cancel = context.WithTimeout(ctx, v.src.RunTimeout)
		defer cancel()
	}
	res, got, err := v.sync(ctx, embedCtx, opts)
	if errors.Is(err, errEmbedderChanged) {
		// Its old vectors are gone; embed everything with it as it is now.
		opts.Reembed = false
		res, got, err = v.sync(ctx, embedCtx, opts)
	}
	return res, got, err
}

// errEmbedderChanged means a remote embedder answered with vectors of
// another dimension than those stored for it: the server now runs another
// build of the model. The stored vectors have been dropped.
var errEmbedderChanged = errors.New("the embedder's vectors changed dimension")

// sync does the work of Sync. The embedder is called with embedCtx, which
// ends at the run's time limit; everything else uses ctx, so that what was
// embedded is still stored after the limit.
func (v *Vectors) sync(ctx, embedCtx context.Context, opts SyncOptions) (SyncResult, synced, error) {
	var res SyncResult
	p, err := v.prepare(ctx, opts.Reembed, &res)
	if err != nil {
		return res, synced{}, err
	}
	emb, rowID, plan, changes := p.emb, p.rowID, p.plan, p.changes
	if p.inStep {
		res.Embedder, res.Vectors = emb.Fingerprint(), res.Chunks
		return res, synced{emb, rowID}, nil
	}
	if rowID != 0 && len(plan) > 0 {
		// What is stored serves while the rest is made: a neural
		// embedder's first batch can take seconds.
		if err := v.absorb(ctx, emb, rowID, nil, nil); err != nil {
			v.loadFailed(ctx, err)
		}
	}
	total := len(plan)
	if opts.Progress != nil && total > 0 {
		opts.Progress(0, total)
	}
	// A remote embedder learns its dimension from its first answer, so
	// only then can it be checked against the vectors stored for it.
	var stored string
	if rowID != 0 {
		if stored, err = v.storedFingerprint(ctx, rowID); err != nil {
			return res, synced{}, fmt.Errorf("read stored embedder: %w", err)
		}
	}
	// outOfTime is the run's time limit ending, as against the caller
	// giving up.
	outOfTime := func() bool { return embedCtx.Err() != nil && ctx.Err() == nil }
	started := time.Now()
	replan := false
	for len(plan) > 0 || replan {
		if replan {
			replan = false
			if changes, err = v.chunkChanges(ctx); err != nil {
				return res, synced{emb, rowID}, err
			}
			if plan, err = v.plan(ctx, rowID); err != nil {
				return res, synced{emb, rowID}, err
			}
			total = res.Embedded + len(plan)
			if opts.Progress != nil {
				opts.Progress(res.Embedded, total)
			}
			continue
		}
		unlock, err := v.lockWriters(ctx)
		if err != nil {
			return res, synced{emb, rowID}, err
		}
		began := time.Now()
		for len(plan) > 0 && time.Since(began) < holdWriters {
			select {
			case <-opts.Replan:
				replan = true
			default:
			}
			if replan {
				break
			}
			ids := plan[:min(batchFor(emb, v.BatchSize), len(plan))]
			plan = plan[len(ids):]
			var batch []pending
			if batch, err = v.stillMissing(ctx, rowID, ids); err != nil {
				break
			}
			if len(batch) == 0 {
				continue
			}
			var blobs [][]byte
			if outOfTime() {
				err = &runTimeoutError{limit: v.src.RunTimeout, embedded: res.Embedded, total: total}
			} else if rowID, blobs, err = v.embedBatch(ctx, embedCtx, emb, rowID, stored, batch); err != nil && outOfTime() {
				err = &runTimeoutError{limit: v.src.RunTimeout, embedded: res.Embedded, total: total, err: err}
			}
			if err != nil {
				break
			}
			if stored == "" {
				stored = emb.Fingerprint()
			}
			res.Embedded += len(batch)
			v.recordProgress(ctx, rowID, res.Embedded, total, started)
			if aerr := v.absorb(ctx, emb, rowID, batch, blobs); aerr != nil {
				v.log.Warn("add new vectors to memory", "err", aerr)
			}
			if opts.Progress != nil {
				opts.Progress(min(res.Embedded, total), total)
			}
		}
		unlock()
		if err != nil {
			if !errors.Is(err, errEmbedderChanged) && rowID != 0 {
				// The embedder failed (a server that is down): what is
				// stored still serves, and the next sync goes on.
				return res, synced{emb, rowID}, err
			}
			return res, synced{}, err
		}
		if len(plan) > 0 && !replan {
			select {
			case <-ctx.Done():
				return res, synced{emb, rowID}, ctx.Err()
			case <-time.After(yieldWriters):
			}
		}
	}
	if rowID != 0 {
		unlock, err := v.lockWriters(ctx)
		if err != nil {
			return res, synced{emb, rowID}, err
		}
		_, err = v.db.ExecContext(ctx, `DELETE FROM vectors WHERE embedder_id = ?
			AND hash NOT IN (SELECT hash FROM chunks)`, rowID)
		if err == nil {
			// Every chunk of the plan has its vector and none is left
			// over: in step as of the plan's count of changes.
			_, err = v.db.ExecContext(ctx, `UPDATE embedders SET synced_changes = ? WHERE id = ?`, changes, rowID)
		}
		unlock()
		if err != nil {
			return res, synced{}, fmt.Errorf("remove unused vectors: %w", err)
		}
	}
	res.Embedder = emb.Fingerprint()
	res.Vectors, err = v.countCovered(ctx, rowID)
	res.Shared = max(0, res.Vectors-res.Embedded-p.covered)
	return res, synced{emb, rowID}, err
}

// recordProgress stores how far this sync has got, for other processes
// to report (doctor); a failure to store it costs the sync nothing.
func (v *Vectors) recordProgress(ctx context.Context, rowID int64, done, total int, started time.Time) {
	rate := float64(done) / max(time.Since(started).Seconds(), 1e-3)
	_, err := v.db.ExecContext(ctx, `INSERT INTO embedding_progress (embedder_id, done, total, per_second, updated_ms)
		VALUES (?, ?, ?, ?, ?) ON CONFLICT (embedder_id) DO UPDATE SET done = excluded.done, total = excluded.total,
		per_second = excluded.per_second, updated_ms = excluded.updated_ms`, rowID, done, total, rate, time.Now().UnixMilli())
	if err != nil {
		v.log.Debug("record embedding progress", "err", err)
	}
}

// progress is what the sync making an embedder's vectors last recorded.
type progress struct {
	Done, Total int
	PerSecond   float64
	Updated     time.Time
}

// storedProgress reads the progress recorded for embedders row rowID; ok
// is false when there is none.
func (v *Vectors) storedProgress(ctx context.Context, rowID int64) (p progress, ok bool) {
	var ms int64
	err := v.db.QueryRowContext(ctx, `SELECT done, total, per_second, updated_ms FROM embedding_progress WHERE embedder_id = ?`, rowID).
		Scan(&p.Done, &p.Total, &p.PerSecond, &ms)
	if err != nil {
		return progress{}, false
	}
	p.Updated = time.UnixMilli(ms)
	return p, true
}

// batchFor is the batch size for emb: n, or less when the embedder says
// a batch of n would take it long (a transformer on the CPU).
func batchFor(emb embed.Embedder, n int) int {
	if h, ok := emb.(interface{ BatchHint() int }); ok && h.BatchHint() > 0 {
		return min(n, h.BatchHint())
	}
	return n
}

// prepared is what a sync sets out from.
type prepared struct {
	emb   embed.Embedder
	rowID int64
	plan  []int64
	// covered counts the chunks that had a vector when the plan was made.
	covered int
	// changes is chunk_changes when the plan was made; inStep says the
	// embedder's last finished sync was made at that count, so that
	// nothing needs embedding or removing.
	changes int64
	inStep  bool
}

// prepare, under the writer lock, drops every vector when asked to, picks
// (or fits) the embedder and plans which chunks to embed: none, without
// reading any, when no chunk changed since its last finished sync.
func (v *Vectors) prepare(ctx context.Context, reembed bool, res *SyncResult) (prepared, error) {
	unlock, err := v.lockWriters(ctx)
	if err != nil {
		return prepared{}, err
	}
	defer unlock()
	if reembed {
		if err := v.dropAll(ctx); err != nil {
			return prepared{}, err
		}
	}
	if res.Chunks, err = v.countChunks(ctx); err != nil {
		return prepared{}, err
	}
	var p prepared
	if p.changes, err = v.chunkChanges(ctx); err != nil {
		return prepared{}, err
	}
	if p.emb, p.rowID, res.Refitted, err = v.prepareEmbedder(ctx, res.Chunks); err != nil {
		return prepared{}, err
	}
	v.setChunks(res.Chunks)
	if p.rowID != 0 {
		var synced sql.NullInt64
		err := v.db.QueryRowContext(ctx, `SELECT synced_changes FROM embedders WHERE id = ?`, p.rowID).Scan(&synced)
		if err != nil {
			return prepared{}, fmt.Errorf("read stored embedder: %w", err)
		}
		if p.inStep = synced.Valid && synced.Int64 == p.changes; p.inStep {
			return p, nil
		}
	}
	if p.rowID != 0 {
		if p.covered, err = v.countCovered(ctx, p.rowID); err != nil {
			return prepared{}, err
		}
	}
	if p.plan, err = v.plan(ctx, p.rowID); err != nil {
		return prepared{}, err
	}
	if p.rowID != 0 && len(p.plan) > 0 {
		// The run is under way before its first batch: should it stop
		// there, doctor finds it stopped rather than never started.
		v.recordProgress(ctx, p.rowID, 0, len(p.plan), time.Now())
	}
	return p, nil
}

// dropAll drops every stored vector, for --reembed. The configured
// embedder's row stays when it is not fitted (a fitted one is fitted
// afresh), so that the run making its vectors again has a row to record
// its progress under from the start: a run stopped before its first batch
// then says so, rather than that no vector was ever made.
func (v *Vectors) dropAll(ctx context.Context) error {
	var keep int64
	if v.src.Fit == nil {
		s, err := v.stored(ctx)
		if err != nil {
			return err
		}
		keep = s.id
	}
	for _, q := range []string{`DELETE FROM embedders WHERE id != ?`, `DELETE FROM vectors WHERE embedder_id = ?`,
		`UPDATE embedders SET synced_changes = NULL WHERE id = ?`} {
		if _, err := v.db.ExecContext(ctx, q, keep); err != nil {
			return fmt.Errorf("drop stored vectors: %w", err)
		}
	}
	return nil
}

// chunkChanges reads the count of changes made to chunks (migration 0008).
func (v *Vectors) chunkChanges(ctx context.Context) (int64, error) {
	var n int64
	if err := v.db.QueryRowContext(ctx, `SELECT n FROM chunk_changes WHERE id = 1`).Scan(&n); err != nil {
		return 0, fmt.Errorf("read chunk changes: %w", err)
	}
	return n, nil
}

// adopt makes emb, with the vectors of row rowID, the embedder queries
// use, and brings memory in step when the store serves queries; `jarvis
// index` stores vectors and is done.
func (v *Vectors) adopt(ctx context.Context, emb embed.Embedder, rowID int64) error {
	v.mu.Lock()
	v.embedder, v.rowID, v.embedderErr = emb, rowID, nil
	serving := v.serving
	v.mu.Unlock()
	if serving {
		return v.Refresh(ctx)
	}
	return nil
}

// writerLocker is a database that keeps writers in several processes
// apart (store.DB): two jarvis servers on one database would otherwise
// both embed the same chunks, or refit the embedder under each other.
type writerLocker interface {
	LockWriters(ctx context.Context) (func(), error)
}

// pending is one distinct text that needs a vector.
type pending struct {
	hash, text string
	// chunks are the planned chunks with this text, to join memory as
	// soon as the vector is stored. Others with the same text (the plan
	// names one chunk a text) join at the sync's end.
	chunks []plannedChunk
}

// plannedChunk is a chunk of a batch: where its vector goes in memory.
type plannedChunk struct {
	id, fileID, vaultID int64
}

func (v *Vectors) countChunks(ctx context.Context) (int, error) {
	return v.count(ctx, "count chunks", `SELECT count(*) FROM chunks`)
}

// countCovered counts the chunks with a vector under rowID.
func (v *Vectors) countCovered(ctx context.Context, rowID int64) (int, error) {
	return v.count(ctx, "count vectors", `SELECT count(*) FROM chunks c WHERE `+withVector, rowID)
}

// count runs a query for one number; doing names it in the error.
func (v *Vectors) count(ctx context.Context, doing, query string, args ...any) (int, error) {
	var n int
	if err := v.db.QueryRowContext(ctx, query, args...).Scan(&n); err != nil {
		return 0, fmt.Errorf("%s: %w", doing, err)
	}
	return n, nil
}

// prepareEmbedder returns the embedder to sync with and its embedders row
// (0 when the row is made on the first stored batch, as remote embedders
// learn their dimension from their first answer).
func (v *Vectors) prepareEmbedder(ctx context.Context, chunks int) (embed.Embedder, int64, bool, error) {
	if v.src.Restore == nil {
		return nil, 0, false, ErrNoEmbedder
	}
	s, err := v.stored(ctx)
	if err != nil {
		return nil, 0, false, err
	}
	var emb embed.Embedder
	var restoreErr error
	if s.id != 0 || v.src.Fit == nil {
		emb, restoreErr = v.restore(s)
	}
	if v.src.Fit != nil && (s.id == 0 || restoreErr != nil || (v.src.Stale != nil && v.src.Stale(emb, chunks))) {
		emb, state, err := v.src.Fit(ctx, v.corpus(ctx))
		if err != nil {
			return nil, 0, false, fmt.Errorf("fit %s embedder: %w", v.src.Provider, err)
		}
		if s.id != 0 {
			v.log.Info("embedder statistics refitted: the passages changed too much since they were taken",
				"provider", v.src.Provider, "chunks", chunks)
		}
		id, err := v.insertEmbedder(ctx, emb, state)
		if err != nil {
			return nil, 0, false, err
		}
		switch {
		case s.id == id:
			// The new statistics fingerprint as the old ones did; the
			// vectors made with the old ones must still go.
			if _, err := v.db.ExecContext(ctx, `DELETE FROM vectors WHERE embedder_id = ?`, id); err != nil {
				return nil, 0, false, fmt.Errorf("drop old vectors: %w", err)
			}
		case s.id != 0:
			if err := v.dropEmbedder(ctx, s.id); err != nil {
				return nil, 0, false, fmt.Errorf("drop old vectors: %w", err)
			}
		}
		return emb, id, s.id != 0, nil
	}
	if restoreErr != nil {
		err := fmt.Errorf("%w: %w", ErrNoEmbedder, restoreErr)
		v.setEmbedderErr(err)
		return nil, 0, false, err
	}
	if s.id != 0 && emb.Dimension() != 0 && emb.Fingerprint() != s.fingerprint {
		// The same provider and model now embed differently (a new
		// dimension, another server build): the stored vectors are
		// incomparable with its answers.
		v.log.Warn("embedder changed since its vectors were stored; embedding again",
			"was", s.fingerprint, "now", emb.Fingerprint())
		if err := v.dropEmbedder(ctx, s.id); err != nil {
			return nil, 0, false, fmt.Errorf("drop stale vectors: %w", err)
		}
		s.id = 0
	}
	return emb, s.id, false, nil
}

// dropEmbedder deletes embedders row id, and with it every vector stored
// under it.
func (v *Vectors) dropEmbedder(ctx context.Context, id int64) error {
	_, err := v.db.ExecContext(ctx, `DELETE FROM embedders WHERE id = ?`, id)
	return err
}

func (v *Vectors) insertEmbedder(ctx context.Context, emb embed.Embedder, state []byte) (int64, error) {
	var id int64
	err := v.db.QueryRowContext(ctx, `INSERT INTO embedders (fingerprint, provider, model, dimension, state, created_ms)
		VALUES (?, ?, ?, ?, ?, ?)
		ON CONFLICT (fingerprint) DO UPDATE SET state = excluded.state, synced_changes = NULL
		RETURNING id`,
		emb.Fingerprint(), v.src.Provider, v.src.Model, emb.Dimension(), state, time.Now().UnixMilli()).Scan(&id)
	if err != nil {
		return 0, fmt.Errorf("record embedder %s: %w", emb.Fingerprint(), err)
	}
	return id, nil
}

// corpus yields the embed text of every chunk, for fitting.
func (v *Vectors) corpus(ctx context.Context) iter.Seq[string] {
	return func(yield func(string) bool) {
		rows, err := v.db.QueryContext(ctx, `SELECT f.title, c.heading, c.text FROM chunks c JOIN files f ON f.id = c.file_id`)
		if err != nil {
			v.log.Warn("read chunks to fit the embedder", "err", err)
			return
		}
		defer rows.Close()
		for rows.Next() {
			var title, heading, text string
			if err := rows.Scan(&title, &heading, &text); err != nil {
				v.log.Warn("read chunks to fit the embedder", "err", err)
				return
			}
			if !yield(vault.EmbedText(title, heading, text)) {
				return
			}
		}
	}
}

// plan lists the chunks with no vector under rowID, one per distinct
// text, newest notes first: the note just written is the one most likely
// to be asked about.
func (v *Vectors) plan(ctx context.Context, rowID int64) ([]int64, error) {
	rows, err := v.db.QueryContext(ctx, `SELECT c.id, c.hash FROM chunks c JOIN files f ON f.id = c.file_id
		WHERE NOT `+withVector+` ORDER BY f.mtime_ns DESC, c.id`, rowID)
	if err != nil {
		return nil, fmt.Errorf("list chunks to embed: %w", err)
	}
	defer rows.Close()
	seen := map[string]bool{}
	var ids []int64
	for rows.Next() {
		var id int64
		var hash string
		if err := rows.Scan(&id, &hash); err != nil {
			return nil, fmt.Errorf("list chunks to embed: %w", err)
		}
		if !seen[hash] {
			seen[hash] = true
			ids = append(ids, id)
		}
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("list chunks to embed: %w", err)
	}
	return ids, nil
}

// stillMissing reads the texts of the given chunks that still have no
// vector under rowID, one per distinct text: since the plan was made,
// another process may have embedded some, or an index run deleted them.
func (v *Vectors) stillMissing(ctx context.Context, rowID int64, ids []int64) ([]pending, error) {
	args := make([]any, 0, len(ids)+1)
	args = append(args, rowID)
	for _, id := range ids {
		args = append(args, id)
	}
	rows, err := v.db.QueryContext(ctx, `SELECT c.id, c.file_id, f.vault_id, c.hash, f.title, c.heading, c.text
		FROM chunks c JOIN files f ON f.id = c.file_id
		WHERE NOT `+withVector+` AND c.id IN (`+store.Placeholders(len(ids))+`)`, args...)
	if err != nil {
		return nil, fmt.Errorf("read chunks to embed: %w", err)
	}
	defer rows.Close()
	seen := map[string]int{}
	var out []pending
	for rows.Next() {
		var c plannedChunk
		var hash, title, heading, text string
		if err := rows.Scan(&c.id, &c.fileID, &c.vaultID, &hash, &title, &heading, &text); err != nil {
			return nil, fmt.Errorf("read chunks to embed: %w", err)
		}
		if i, ok := seen[hash]; ok {
			out[i].chunks = append(out[i].chunks, c) // the same text twice: one vector serves both
			continue
		}
		seen[hash] = len(out)
		out = append(out, pending{hash: hash, text: vault.EmbedText(title, heading, text), chunks: []plannedChunk{c}})
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("read chunks to embed: %w", err)
	}
	return out, nil
}

// embedBatch embeds one batch and stores it in one transaction, creating
// the embedder's row first when it has none, and returns the vectors as
// stored, for memory to hold what a load would. stored is the fingerprint
// of rowID: when the embedder's answer no longer matches it, the row and
// its vectors are dropped and errEmbedderChanged returned.
func (v *Vectors) embedBatch(ctx, embedCtx context.Context, emb embed.Embedder, rowID int64, stored string, batch []pending) (int64, [][]byte, error) {
	texts := make([]string, len(batch))
	for i, p := range batch {
		texts[i] = p.text
	}
	vecs, err := emb.Embed(embedCtx, texts)
	if err != nil {
		// Provider and model, not the fingerprint: a remote embedder that
		// never answered knows no dimension, and "/0" would mislead.
		return rowID, nil, fmt.Errorf("embed with %s/%s: %w", emb.Provider(), emb.Model(), err)
	}
	if len(vecs) != len(batch) {
		return rowID, nil, fmt.Errorf("embed with %s: %d vectors for %d texts", emb.Fingerprint(), len(vecs), len(batch))
	}
	if rowID != 0 && stored != "" && emb.Fingerprint() != stored {
		v.log.Warn("embedder changed since its vectors were stored; embedding every chunk again",
			"was", stored, "now", emb.Fingerprint())
		if err := v.dropEmbedder(ctx, rowID); err != nil {
			return rowID, nil, fmt.Errorf("drop stale vectors: %w", err)
		}
		return 0, nil, errEmbedderChanged
	}
	if rowID == 0 {
		if rowID, err = v.insertEmbedder(ctx, emb, nil); err != nil {
			return 0, nil, err
		}
	}
	tx, err := v.db.BeginTx(ctx, nil)
	if err != nil {
		return rowID, nil, fmt.Errorf("store vectors: %w", err)
	}
	defer tx.Rollback()
	stmt, err := tx.PrepareContext(ctx, `INSERT OR REPLACE INTO vectors (embedder_id, hash, vector) VALUES (?, ?, ?)`)
	if err != nil {
		return rowID, nil, fmt.Errorf("store vectors: %w", err)
	}
	defer stmt.Close()
	encode := encodeVector
	if v.src.Provider == embed.ProviderLexical {
		encode = encodeInt8Vector // see vectorcodec.go
	}
	blobs := make([][]byte, len(batch))
	for i, p := range batch {
		blobs[i] = encode(vecs[i])
		if _, err := stmt.ExecContext(ctx, rowID, p.hash, blobs[i]); err != nil {
			return rowID, nil, fmt.Errorf("store vectors: %w", err)
		}
	}
	if err := tx.Commit(); err != nil {
		return rowID, nil, fmt.Errorf("store vectors: %w", err)
	}
	return rowID, blobs, nil
}

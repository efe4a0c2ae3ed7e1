package search

import (
	"context"
	"database/sql"
	"encoding/binary"
	"errors"
	"fmt"
	"iter"
	"log/slog"
	"math"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/philippgille/chromem-go"

	"github.com/jarvis-mcp/jarvis/internal/embed"
	"github.com/jarvis-mcp/jarvis/internal/vault"
)

// ErrNoEmbedder means no embedder is configured or it could not be built;
// semantic search is unavailable until it is.
var ErrNoEmbedder = errors.New("no embedder available")

// DB is the part of *sql.DB the vector store needs.
type DB interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
	BeginTx(ctx context.Context, opts *sql.TxOptions) (*sql.Tx, error)
}

// EmbedderSource builds the configured embedder. Remote embedders ignore
// the stored state; the lexical embedder is restored from it, or fitted on
// the vault's own text when there is none yet.
type EmbedderSource struct {
	// Provider and Model name the configured embedder; vectors made by an
	// embedder of another provider or model are never used.
	Provider, Model string
	// Restore builds the embedder from the state stored with its vectors
	// (nil when there is none).
	Restore func(state []byte) (embed.Embedder, error)
	// Fit builds an embedder from the texts it will embed and returns the
	// state to store with it. Nil for embedders that learn nothing from the
	// corpus.
	Fit func(ctx context.Context, texts iter.Seq[string]) (embed.Embedder, []byte, error)
	// Stale, when set, reports whether a fitted embedder no longer suits a
	// corpus of n texts, so that the next sync fits again. A state that
	// cannot be restored is always fitted again.
	Stale func(emb embed.Embedder, n int) bool
	// RunTimeout bounds the embedder's work in one Sync, every batch
	// together; 0 sets no bound. Batches stored before it ran out stay
	// stored.
	RunTimeout time.Duration
}

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
	msg := fmt.Sprintf("embedding stopped at the run limit of %s with %d of %d texts embedded (the next run goes on from there)", e.limit, e.embedded, e.total)
	if e.err != nil {
		msg += ": " + e.err.Error()
	}
	return msg
}

func (e *runTimeoutError) Is(target error) bool { return target == ErrRunTimeout }
func (e *runTimeoutError) Unwrap() error        { return e.err }

// Vectors keeps chunk embeddings in SQLite, the source of truth, and serves
// nearest-neighbour queries from chromem-go collections built from it, one
// per vault. Stored vectors are loaded, never embedded again.
type Vectors struct {
	db  DB
	src EmbedderSource
	log *slog.Logger

	// BatchSize is how many texts go to the embedder in one call and into
	// the database in one transaction.
	BatchSize int

	mu       sync.RWMutex
	serving  bool           // set by Load: Sync then keeps memory in step
	embedder embed.Embedder // nil until Sync or Load found one
	rowID    int64          // the embedders row of the embedder in use
	// loaded names the vectors in cols: their embedders row and its stored
	// fingerprint, as a deleted row's id can be given to the next one.
	loaded string
	mem    *chromem.DB
	cols   map[string]*collection // by vault name
}

// collection is one vault's vectors in memory, with what chromem-go does
// not keep for us: which note each chunk belongs to.
type collection struct {
	c      *chromem.Collection
	chunks map[int64]chunkRef // by chunk id
	flat   *flat              // the same vectors, for the sparse scan
}

type chunkRef struct {
	fileID int64
	hash   string
}

// lexicalDrift is how far the number of chunks may move from the number the
// lexical embedder's document frequencies were taken over before the next
// index run fits them again: beyond it, new words would weigh as if they
// were rare. Re-embedding is cheap for the lexical embedder (thousands of
// chunks a second), so the bound is tight.
const lexicalDrift = 0.25

// lexicalSlack keeps small vaults from refitting on every new note.
const lexicalSlack = 200

// LexicalSource is the default embedder as jarvis uses it: restored from
// the document frequencies stored with its vectors, fitted on the vault's
// own chunks when there are none, and refitted when the vault has grown or
// shrunk past lexicalDrift.
func LexicalSource() EmbedderSource {
	return EmbedderSource{
		Provider: embed.ProviderLexical,
		Model:    embed.NewLexical().Model(),
		Restore: func(state []byte) (embed.Embedder, error) {
			if state == nil {
				return embed.NewLexical(), nil
			}
			return embed.NewLexicalFromState(state)
		},
		Fit: func(ctx context.Context, texts iter.Seq[string]) (embed.Embedder, []byte, error) {
			f := embed.NewLexicalFitter()
			for t := range texts {
				if err := ctx.Err(); err != nil {
					return nil, nil, err
				}
				f.Add(t)
			}
			l := f.Lexical()
			return l, l.State(), nil
		},
		Stale: func(emb embed.Embedder, n int) bool {
			l, ok := emb.(*embed.Lexical)
			if !ok {
				return false
			}
			d := l.Documents()
			diff := n - d
			if diff < 0 {
				diff = -diff
			}
			return diff > lexicalSlack && float64(diff) > lexicalDrift*float64(max(d, 1))
		},
	}
}

// NewVectors returns a vector store over db. Nothing is loaded until Load
// or Sync is called.
func NewVectors(db DB, src EmbedderSource, log *slog.Logger) *Vectors {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Vectors{db: db, src: src, log: log, BatchSize: 256, mem: chromem.NewDB(), cols: map[string]*collection{}}
}

// SyncOptions change what Sync does.
type SyncOptions struct {
	// Reembed drops every stored vector and embeds all chunks again; the
	// lexical embedder is fitted again on the current text first.
	Reembed bool
	// Progress is told how many of the chunks that need vectors are done.
	Progress func(done, total int)
}

// SyncResult says what a Sync did.
type SyncResult struct {
	Embedder string `json:"embedder"` // the fingerprint
	Embedded int    `json:"embedded"` // texts embedded in this run
	Vectors  int    `json:"vectors"`  // chunks with a vector now
	Chunks   int    `json:"chunks"`   // chunks in the database
}

// Sync embeds every chunk that has no vector from the configured embedder,
// removes vectors no chunk uses, and brings the in-memory collections in
// step. Each batch commits on its own, so an interrupted run keeps what it
// embedded and the next run continues.
func (v *Vectors) Sync(ctx context.Context, opts SyncOptions) (SyncResult, error) {
	res, got, err := v.lockedSync(ctx, opts)
	if got.emb != nil {
		// Memory is brought in step after the writer lock is given back:
		// loading writes nothing, and other processes need not wait on it.
		// After a failed embedding, what is stored still serves.
		if aerr := v.adopt(ctx, got.emb, got.rowID); aerr != nil {
			if err != nil {
				v.log.Warn("load stored vectors", "err", aerr)
			} else {
				err = aerr
			}
		}
	}
	return res, err
}

// synced is the embedder a sync used and the embedders row its vectors
// are stored under; emb is nil when there is nothing to serve.
type synced struct {
	emb   embed.Embedder
	rowID int64
}

// lockedSync runs sync under the database's writer lock, once more when
// the embedder turned out to have changed.
func (v *Vectors) lockedSync(ctx context.Context, opts SyncOptions) (SyncResult, synced, error) {
	if l, ok := v.db.(writerLocker); ok {
		unlock, err := l.LockWriters(ctx)
		if err != nil {
			return SyncResult{}, synced{}, err
		}
		defer unlock()
	}
	// The run's time counts from here: waiting for another process's
	// writes is not the embedder's.
	embedCtx := ctx
	if v.src.RunTimeout > 0 {
		var cancel context.CancelFunc
		embedCtx, cancel = context.WithTimeout(ctx, v.src.RunTimeout)
		defer cancel()
	}
	res, got, err := v.sync(ctx, embedCtx, opts)
	if errors.Is(err, errEmbedderChanged) {
		// Its old vectors are gone; embed everything with it as it is now.
		res, got, err = v.sync(ctx, embedCtx, SyncOptions{Progress: opts.Progress})
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
	if opts.Reembed {
		if _, err := v.db.ExecContext(ctx, `DELETE FROM embedders`); err != nil {
			return res, synced{}, fmt.Errorf("drop stored vectors: %w", err)
		}
	}
	chunks, err := v.countChunks(ctx)
	if err != nil {
		return res, synced{}, err
	}
	res.Chunks = chunks
	emb, rowID, err := v.prepareEmbedder(ctx, chunks)
	if err != nil {
		return res, synced{}, err
	}
	total, err := v.countMissing(ctx, rowID)
	if err != nil {
		return res, synced{}, err
	}
	if opts.Progress != nil && total > 0 {
		opts.Progress(0, total)
	}
	// A remote embedder learns its dimension from its first answer, so
	// only then can it be checked against the vectors stored for it.
	var stored string
	if rowID != 0 {
		if err := v.db.QueryRowContext(ctx, `SELECT fingerprint FROM embedders WHERE id = ?`, rowID).Scan(&stored); err != nil {
			return res, synced{}, fmt.Errorf("read stored embedder: %w", err)
		}
	}
	// outOfTime is the run's time limit ending, as against the caller
	// giving up.
	outOfTime := func() bool { return embedCtx.Err() != nil && ctx.Err() == nil }
	var after int64 // chunk id the next batch starts after
	for res.Embedded < total {
		// Read one batch at a time, onwards from the last chunk read: the
		// texts of a large vault would otherwise all sit in memory at once.
		batch, last, err := v.missing(ctx, rowID, after, v.BatchSize)
		if err != nil {
			return res, synced{}, err
		}
		if last == 0 {
			break
		}
		after = last
		if len(batch) == 0 {
			continue
		}
		if outOfTime() {
			err = &runTimeoutError{limit: v.src.RunTimeout, embedded: res.Embedded, total: total}
		} else if rowID, err = v.embedBatch(ctx, embedCtx, emb, rowID, stored, batch); err != nil && outOfTime() {
			err = &runTimeoutError{limit: v.src.RunTimeout, embedded: res.Embedded, total: total, err: err}
		}
		if err != nil {
			if !errors.Is(err, errEmbedderChanged) && rowID != 0 {
				// The embedder failed (a server that is down): what is
				// stored still serves, and the next sync goes on.
				return res, synced{emb, rowID}, err
			}
			return res, synced{}, err
		}
		res.Embedded += len(batch)
		if opts.Progress != nil {
			opts.Progress(min(res.Embedded, total), total)
		}
	}
	if rowID != 0 {
		if _, err := v.db.ExecContext(ctx, `DELETE FROM vectors WHERE embedder_id = ?
			AND hash NOT IN (SELECT hash FROM chunks)`, rowID); err != nil {
			return res, synced{}, fmt.Errorf("remove unused vectors: %w", err)
		}
	}
	res.Embedder = emb.Fingerprint()
	res.Vectors, err = v.countCovered(ctx, rowID)
	return res, synced{emb, rowID}, err
}

// adopt makes emb, with the vectors of row rowID, the embedder queries
// use, and brings memory in step when the store serves queries; `jarvis
// index` stores vectors and is done.
func (v *Vectors) adopt(ctx context.Context, emb embed.Embedder, rowID int64) error {
	v.mu.Lock()
	v.embedder, v.rowID = emb, rowID
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
}

func (v *Vectors) countChunks(ctx context.Context) (int, error) {
	var n int
	if err := v.db.QueryRowContext(ctx, `SELECT count(*) FROM chunks`).Scan(&n); err != nil {
		return 0, fmt.Errorf("count chunks: %w", err)
	}
	return n, nil
}

func (v *Vectors) countCovered(ctx context.Context, rowID int64) (int, error) {
	var n int
	err := v.db.QueryRowContext(ctx, `SELECT count(*) FROM chunks c
		WHERE EXISTS (SELECT 1 FROM vectors x WHERE x.embedder_id = ? AND x.hash = c.hash)`, rowID).Scan(&n)
	if err != nil {
		return 0, fmt.Errorf("count vectors: %w", err)
	}
	return n, nil
}

// storedEmbedder is the newest embedders row of the configured provider and
// model, or a zero value when there is none.
type storedEmbedder struct {
	id          int64
	fingerprint string
	state       []byte
}

func (v *Vectors) stored(ctx context.Context) (storedEmbedder, error) {
	var s storedEmbedder
	err := v.db.QueryRowContext(ctx, `SELECT id, fingerprint, state FROM embedders
		WHERE provider = ? AND model = ? ORDER BY id DESC LIMIT 1`, v.src.Provider, v.src.Model).
		Scan(&s.id, &s.fingerprint, &s.state)
	if errors.Is(err, sql.ErrNoRows) {
		return storedEmbedder{}, nil
	}
	if err != nil {
		return s, fmt.Errorf("read stored embedder: %w", err)
	}
	return s, nil
}

// prepareEmbedder returns the embedder to sync with and its embedders row
// (0 when the row is made on the first stored batch, as remote embedders
// learn their dimension from their first answer).
func (v *Vectors) prepareEmbedder(ctx context.Context, chunks int) (embed.Embedder, int64, error) {
	if v.src.Restore == nil {
		return nil, 0, ErrNoEmbedder
	}
	s, err := v.stored(ctx)
	if err != nil {
		return nil, 0, err
	}
	var emb embed.Embedder
	var restoreErr error
	if s.id != 0 || v.src.Fit == nil {
		emb, restoreErr = v.restore(s)
	}
	if v.src.Fit != nil && (s.id == 0 || restoreErr != nil || (v.src.Stale != nil && v.src.Stale(emb, chunks))) {
		emb, state, err := v.src.Fit(ctx, v.corpus(ctx))
		if err != nil {
			return nil, 0, fmt.Errorf("fit %s embedder: %w", v.src.Provider, err)
		}
		if s.id != 0 {
			v.log.Info("embedder statistics refitted: the vault changed too much since they were taken",
				"provider", v.src.Provider, "chunks", chunks)
		}
		id, err := v.insertEmbedder(ctx, emb, state)
		if err != nil {
			return nil, 0, err
		}
		switch {
		case s.id == id:
			// The new statistics fingerprint as the old ones did; the
			// vectors made with the old ones must still go.
			if _, err := v.db.ExecContext(ctx, `DELETE FROM vectors WHERE embedder_id = ?`, id); err != nil {
				return nil, 0, fmt.Errorf("drop old vectors: %w", err)
			}
		case s.id != 0:
			if _, err := v.db.ExecContext(ctx, `DELETE FROM embedders WHERE id = ?`, s.id); err != nil {
				return nil, 0, fmt.Errorf("drop old vectors: %w", err)
			}
		}
		return emb, id, nil
	}
	if restoreErr != nil {
		return nil, 0, fmt.Errorf("%w: %v", ErrNoEmbedder, restoreErr)
	}
	if s.id != 0 && emb.Dimension() != 0 && emb.Fingerprint() != s.fingerprint {
		// The same provider and model now embed differently (a new
		// dimension, another server build): the stored vectors are
		// incomparable with its answers.
		v.log.Warn("embedder changed since its vectors were stored; embedding again",
			"was", s.fingerprint, "now", emb.Fingerprint())
		if _, err := v.db.ExecContext(ctx, `DELETE FROM embedders WHERE id = ?`, s.id); err != nil {
			return nil, 0, fmt.Errorf("drop stale vectors: %w", err)
		}
		s.id = 0
	}
	return emb, s.id, nil
}

// restore builds the embedder of a stored row, or reuses the one in use
// when it is that same embedder: the server syncs after every change, and
// rebuilding the lexical embedder's frequency tables each time is waste.
func (v *Vectors) restore(s storedEmbedder) (embed.Embedder, error) {
	v.mu.RLock()
	cur := v.embedder
	v.mu.RUnlock()
	if cur != nil && s.id != 0 && cur.Fingerprint() == s.fingerprint {
		return cur, nil
	}
	return v.src.Restore(s.state)
}

func (v *Vectors) insertEmbedder(ctx context.Context, emb embed.Embedder, state []byte) (int64, error) {
	var id int64
	err := v.db.QueryRowContext(ctx, `INSERT INTO embedders (fingerprint, provider, model, dimension, state, created_ms)
		VALUES (?, ?, ?, ?, ?, ?)
		ON CONFLICT (fingerprint) DO UPDATE SET state = excluded.state
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

// countMissing counts the distinct chunk texts with no vector under rowID.
func (v *Vectors) countMissing(ctx context.Context, rowID int64) (int, error) {
	var n int
	err := v.db.QueryRowContext(ctx, `SELECT count(DISTINCT c.hash) FROM chunks c
		WHERE NOT EXISTS (SELECT 1 FROM vectors x WHERE x.embedder_id = ? AND x.hash = c.hash)`, rowID).Scan(&n)
	if err != nil {
		return 0, fmt.Errorf("count chunks to embed: %w", err)
	}
	return n, nil
}

// missing lists up to n distinct chunk texts with no vector under rowID,
// from chunks after the given id, and the id of the last chunk it read (0
// when there were none).
func (v *Vectors) missing(ctx context.Context, rowID, after int64, n int) ([]pending, int64, error) {
	rows, err := v.db.QueryContext(ctx, `SELECT c.id, c.hash, f.title, c.heading, c.text
		FROM chunks c JOIN files f ON f.id = c.file_id
		WHERE c.id > ? AND NOT EXISTS (SELECT 1 FROM vectors x WHERE x.embedder_id = ? AND x.hash = c.hash)
		ORDER BY c.id LIMIT ?`, after, rowID, n)
	if err != nil {
		return nil, 0, fmt.Errorf("list chunks to embed: %w", err)
	}
	defer rows.Close()
	seen := map[string]bool{}
	var out []pending
	var last int64
	for rows.Next() {
		var hash, title, heading, text string
		if err := rows.Scan(&last, &hash, &title, &heading, &text); err != nil {
			return nil, 0, fmt.Errorf("list chunks to embed: %w", err)
		}
		if seen[hash] {
			continue // the same text twice in this batch: one vector serves both
		}
		seen[hash] = true
		out = append(out, pending{hash: hash, text: vault.EmbedText(title, heading, text)})
	}
	if err := rows.Err(); err != nil {
		return nil, 0, fmt.Errorf("list chunks to embed: %w", err)
	}
	return out, last, nil
}

// embedBatch embeds one batch and stores it in one transaction, creating
// the embedder's row first when it has none. stored is the fingerprint of
// rowID: when the embedder's answer no longer matches it, the row and its
// vectors are dropped and errEmbedderChanged returned.
func (v *Vectors) embedBatch(ctx, embedCtx context.Context, emb embed.Embedder, rowID int64, stored string, batch []pending) (int64, error) {
	texts := make([]string, len(batch))
	for i, p := range batch {
		texts[i] = p.text
	}
	vecs, err := emb.Embed(embedCtx, texts)
	if err != nil {
		// Provider and model, not the fingerprint: a remote embedder that
		// never answered knows no dimension, and "/0" would mislead.
		return rowID, fmt.Errorf("embed with %s/%s: %w", emb.Provider(), emb.Model(), err)
	}
	if len(vecs) != len(batch) {
		return rowID, fmt.Errorf("embed with %s: %d vectors for %d texts", emb.Fingerprint(), len(vecs), len(batch))
	}
	if rowID != 0 && stored != "" && emb.Fingerprint() != stored {
		v.log.Warn("embedder changed since its vectors were stored; embedding every chunk again",
			"was", stored, "now", emb.Fingerprint())
		if _, err := v.db.ExecContext(ctx, `DELETE FROM embedders WHERE id = ?`, rowID); err != nil {
			return rowID, fmt.Errorf("drop stale vectors: %w", err)
		}
		return 0, errEmbedderChanged
	}
	if rowID == 0 {
		if rowID, err = v.insertEmbedder(ctx, emb, nil); err != nil {
			return 0, err
		}
	}
	tx, err := v.db.BeginTx(ctx, nil)
	if err != nil {
		return rowID, fmt.Errorf("store vectors: %w", err)
	}
	defer tx.Rollback()
	stmt, err := tx.PrepareContext(ctx, `INSERT OR REPLACE INTO vectors (embedder_id, hash, vector) VALUES (?, ?, ?)`)
	if err != nil {
		return rowID, fmt.Errorf("store vectors: %w", err)
	}
	defer stmt.Close()
	for i, p := range batch {
		if _, err := stmt.ExecContext(ctx, rowID, p.hash, encodeVector(vecs[i])); err != nil {
			return rowID, fmt.Errorf("store vectors: %w", err)
		}
	}
	if err := tx.Commit(); err != nil {
		return rowID, fmt.Errorf("store vectors: %w", err)
	}
	return rowID, nil
}

// Serve makes the store keep vectors in memory for queries: every later
// Sync brings the collections in step. Load does it too.
func (v *Vectors) Serve() {
	v.mu.Lock()
	v.serving = true
	v.mu.Unlock()
}

// Load builds the in-memory collections from the vectors stored for the
// configured embedder, without embedding anything. With no stored vectors,
// semantic search stays unavailable and says so.
func (v *Vectors) Load(ctx context.Context) error {
	s, err := v.stored(ctx)
	if err != nil {
		return err
	}
	if v.src.Restore == nil {
		return ErrNoEmbedder
	}
	emb, err := v.restore(s)
	if err != nil {
		return fmt.Errorf("%w: %v", ErrNoEmbedder, err)
	}
	v.mu.Lock()
	v.embedder, v.rowID, v.serving = emb, s.id, true
	v.mu.Unlock()
	return v.Refresh(ctx)
}

// Refresh brings the in-memory collections in step with the database:
// vectors of new chunks are added, those of deleted chunks removed. Only
// the difference is read, so a refresh after a small edit is cheap.
func (v *Vectors) Refresh(ctx context.Context) error {
	v.mu.RLock()
	rowID := v.rowID
	v.mu.RUnlock()
	type row struct {
		id, file int64
		vault    string
		hash     string
	}
	rows, err := v.db.QueryContext(ctx, `SELECT c.id, c.file_id, va.name, c.hash
		FROM chunks c JOIN files f ON f.id = c.file_id JOIN vaults va ON va.id = f.vault_id
		WHERE EXISTS (SELECT 1 FROM vectors x WHERE x.embedder_id = ? AND x.hash = c.hash)`, rowID)
	if err != nil {
		return fmt.Errorf("load vectors: %w", err)
	}
	current := map[string]map[int64]chunkRef{}
	for rows.Next() {
		var r row
		if err := rows.Scan(&r.id, &r.file, &r.vault, &r.hash); err != nil {
			rows.Close()
			return fmt.Errorf("load vectors: %w", err)
		}
		if current[r.vault] == nil {
			current[r.vault] = map[int64]chunkRef{}
		}
		current[r.vault][r.id] = chunkRef{fileID: r.file, hash: r.hash}
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return fmt.Errorf("load vectors: %w", err)
	}

	// The stored row's fingerprint, not the embedder's own: a remote
	// embedder's names no dimension until it has answered once.
	var storedFP string
	if err := v.db.QueryRowContext(ctx, `SELECT fingerprint FROM embedders WHERE id = ?`, rowID).Scan(&storedFP); err != nil && !errors.Is(err, sql.ErrNoRows) {
		return fmt.Errorf("load vectors: %w", err)
	}

	v.mu.Lock()
	defer v.mu.Unlock()
	if v.rowID != rowID {
		return nil // a Sync or Load replaced the embedder meanwhile; it refreshes itself
	}
	if key := fmt.Sprintf("%d %s", rowID, storedFP); v.loaded != key {
		// Another embedder, or the same one refitted: its vectors differ
		// from those in memory even where a chunk's hash does not.
		for name := range v.cols {
			if err := v.mem.DeleteCollection(name); err != nil {
				return fmt.Errorf("drop vectors of vault %q: %w", name, err)
			}
			delete(v.cols, name)
		}
		v.loaded = key
	}
	for name := range v.cols {
		if _, ok := current[name]; !ok {
			if err := v.mem.DeleteCollection(name); err != nil {
				return fmt.Errorf("drop vectors of vault %q: %w", name, err)
			}
			delete(v.cols, name)
		}
	}
	for name, want := range current {
		col := v.cols[name]
		if col == nil {
			c, err := v.mem.CreateCollection(name, nil, refuseToEmbed)
			if err != nil {
				return fmt.Errorf("vectors of vault %q: %w", name, err)
			}
			col = &collection{c: c, chunks: map[int64]chunkRef{}, flat: newFlat()}
			v.cols[name] = col
		}
		var gone []string
		for id, ref := range col.chunks {
			if w, ok := want[id]; !ok || w.hash != ref.hash {
				gone = append(gone, strconv.FormatInt(id, 10))
				delete(col.chunks, id)
				col.flat.remove(id)
			}
		}
		if err := deleteDocs(ctx, col.c, gone); err != nil {
			return fmt.Errorf("vectors of vault %q: %w", name, err)
		}
		var add []int64
		for id := range want {
			if _, ok := col.chunks[id]; !ok {
				add = append(add, id)
			}
		}
		if err := v.addDocs(ctx, col, rowID, add, want); err != nil {
			return fmt.Errorf("vectors of vault %q: %w", name, err)
		}
	}
	return nil
}

// addDocs reads the vectors of the given chunks and adds them to col.
func (v *Vectors) addDocs(ctx context.Context, col *collection, rowID int64, ids []int64, want map[int64]chunkRef) error {
	const page = 500
	for start := 0; start < len(ids); start += page {
		part := ids[start:min(start+page, len(ids))]
		args := make([]any, 0, len(part)+1)
		args = append(args, rowID)
		for _, id := range part {
			args = append(args, id)
		}
		rows, err := v.db.QueryContext(ctx, `SELECT c.id, x.vector FROM chunks c
			JOIN vectors x ON x.embedder_id = ? AND x.hash = c.hash
			WHERE c.id IN (`+placeholders(len(part))+`)`, args...)
		if err != nil {
			return fmt.Errorf("read vectors: %w", err)
		}
		for rows.Next() {
			var id int64
			var blob []byte
			if err := rows.Scan(&id, &blob); err != nil {
				rows.Close()
				return fmt.Errorf("read vectors: %w", err)
			}
			vec, err := decodeVector(blob)
			if err != nil {
				rows.Close()
				return fmt.Errorf("vector of chunk %d: %w", id, err)
			}
			// Scaled here, chromem-go keeps this slice rather than a
			// normalised copy, and the sparse scan reads the same memory.
			vec = unitLength(vec)
			doc := chromem.Document{ID: strconv.FormatInt(id, 10), Embedding: vec}
			if err := col.c.AddDocument(ctx, doc); err != nil {
				rows.Close()
				return fmt.Errorf("add vector of chunk %d: %w", id, err)
			}
			if err := col.flat.add(id, vec); err != nil {
				rows.Close()
				return err
			}
			col.chunks[id] = want[id]
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return fmt.Errorf("read vectors: %w", err)
		}
	}
	return nil
}

// refuseToEmbed is every collection's embedding function. chromem-go falls
// back to calling OpenAI when a collection has none; jarvis embeds queries
// and documents itself and must never send a note anywhere by accident.
func refuseToEmbed(context.Context, string) ([]float32, error) {
	return nil, errors.New("vectors are embedded by jarvis before they reach the collection")
}

// deleteDocs removes documents by id. chromem-go's Delete removes every
// document when it is given no ids, or an empty non-nil filter; this never
// calls it with either.
func deleteDocs(ctx context.Context, c *chromem.Collection, ids []string) error {
	if len(ids) == 0 {
		return nil
	}
	return c.Delete(ctx, nil, nil, ids...)
}

// Embedder returns the embedder vectors are loaded for, or nil.
func (v *Vectors) Embedder() embed.Embedder {
	v.mu.RLock()
	defer v.mu.RUnlock()
	return v.embedder
}

// Count is how many chunk vectors are loaded, over every vault.
func (v *Vectors) Count() int {
	v.mu.RLock()
	defer v.mu.RUnlock()
	n := 0
	for _, col := range v.cols {
		n += col.c.Count()
	}
	return n
}

// hit is one chunk found by a vector query.
type hit struct {
	vault  string
	chunk  int64
	fileID int64
	sim    float32
}

// nearest returns the chunks most similar to query in the given vaults (all
// when names is empty), best first, ties broken by chunk id so the order
// never changes between runs. keep filters by note; n bounds the result
// before filtering only as a first guess: the query widens until n kept
// chunks are found or every chunk has been considered.
func (v *Vectors) nearest(ctx context.Context, query []float32, names []string, n int, keep func(fileID int64) bool, minSim float32) ([]hit, error) {
	v.mu.RLock()
	defer v.mu.RUnlock()
	var out []hit
	for name, col := range v.cols {
		if len(names) > 0 && !slices.Contains(names, name) {
			continue
		}
		if col.flat.dim != 0 && len(query) != col.flat.dim {
			return nil, fmt.Errorf("%w: the query has %d dimensions, the stored vectors %d", ErrDimensionMismatch, len(query), col.flat.dim)
		}
		hits, err := queryCollection(ctx, col, name, query, n, keep, minSim)
		if err != nil {
			return nil, fmt.Errorf("search vectors of vault %q: %w", name, err)
		}
		out = append(out, hits...)
	}
	sortHits(out)
	return out, nil
}

// queryCollection asks one collection for its best n chunks that pass keep
// and reach minSim: by the sparse scan when the query allows it, else
// through chromem-go.
func queryCollection(ctx context.Context, col *collection, name string, query []float32, n int, keep func(int64) bool, minSim float32) ([]hit, error) {
	total := col.c.Count()
	if total == 0 || n <= 0 {
		return nil, nil
	}
	if sq, ok := sparseOf(query); ok {
		return scanCollection(col, name, sq, n, keep, minSim)
	}
	return chromemQuery(ctx, col, name, query, n, keep, minSim)
}

// chromemQuery answers queryCollection through chromem-go. chromem-go
// refuses n above its document count and returns equal scores in no fixed
// order; this clamps n and widens the query while the last score it got
// ties with the cut-off or too few chunks passed keep.
func chromemQuery(ctx context.Context, col *collection, name string, query []float32, n int, keep func(int64) bool, minSim float32) ([]hit, error) {
	total := col.c.Count()
	ask := min(n, total)
	for {
		res, err := col.c.QueryEmbedding(ctx, query, ask, nil, nil)
		if err != nil {
			return nil, err
		}
		var hits []hit
		for _, r := range res {
			id, err := strconv.ParseInt(r.ID, 10, 64)
			if err != nil {
				continue
			}
			ref, ok := col.chunks[id]
			if !ok || r.Similarity < minSim || (keep != nil && !keep(ref.fileID)) {
				continue
			}
			hits = append(hits, hit{vault: name, chunk: id, fileID: ref.fileID, sim: r.Similarity})
		}
		sortHits(hits)
		done := ask >= total || len(res) == 0 || res[len(res)-1].Similarity < minSim
		if !done && len(hits) >= n {
			// Enough kept; stop unless the n-th ties with the last score
			// seen, when an equal chunk may have been left out.
			done = hits[n-1].sim > res[len(res)-1].Similarity
		}
		if done {
			return hits, nil
		}
		ask = min(ask*4, total)
	}
}

// scanCollection answers queryCollection for a sparse query by scoring
// every chunk of the collection itself.
func scanCollection(col *collection, name string, q sparseQuery, n int, keep func(int64) bool, minSim float32) ([]hit, error) {
	top, err := col.flat.nearest(q, n, func(id int64, sim float32) bool {
		if sim < minSim {
			return false
		}
		ref, ok := col.chunks[id]
		return ok && (keep == nil || keep(ref.fileID))
	})
	if err != nil {
		return nil, err
	}
	hits := make([]hit, len(top))
	for i, s := range top {
		hits[i] = hit{vault: name, chunk: s.id, fileID: col.chunks[s.id].fileID, sim: s.sim}
	}
	return hits, nil
}

func sortHits(h []hit) {
	slices.SortFunc(h, func(a, b hit) int {
		if a.sim != b.sim {
			if a.sim > b.sim {
				return -1
			}
			return 1
		}
		switch {
		case a.vault != b.vault:
			if a.vault < b.vault {
				return -1
			}
			return 1
		case a.chunk < b.chunk:
			return -1
		case a.chunk > b.chunk:
			return 1
		}
		return 0
	})
}

// encodeVector stores a vector as little-endian float32s.
func encodeVector(v []float32) []byte {
	b := make([]byte, 4*len(v))
	for i, f := range v {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(f))
	}
	return b
}

// unitLength scales v in place to length 1, unless it is within
// chromem-go's tolerance of it already (or all zeros), and returns it.
func unitLength(v []float32) []float32 {
	var sq float64
	for _, x := range v {
		sq += float64(x) * float64(x)
	}
	n := math.Sqrt(sq)
	if n == 0 || math.Abs(n-1) < 1e-6 {
		return v
	}
	for i := range v {
		v[i] = float32(float64(v[i]) / n)
	}
	return v
}

func decodeVector(b []byte) ([]float32, error) {
	if len(b)%4 != 0 || len(b) == 0 {
		return nil, fmt.Errorf("stored vector has %d bytes, not a whole number of float32s", len(b))
	}
	v := make([]float32, len(b)/4)
	for i := range v {
		v[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
	}
	return v, nil
}

// placeholders returns "?, ?, ?" for n parameters.
func placeholders(n int) string {
	if n <= 0 {
		return ""
	}
	b := make([]byte, 0, 3*n)
	for i := range n {
		if i > 0 {
			b = append(b, ", "...)
		}
		b = append(b, '?')
	}
	return string(b)
}

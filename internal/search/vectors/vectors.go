// Package vectors is the vector store of semantic search: chunk embeddings
// kept in SQLite, the source of truth, and served from memory by one index
// a vault behind the vectorIndex interface: chromem-go up to ChromemMax
// vectors, a compact index above it. Sync embeds what has no vector yet;
// Nearest answers nearest-neighbour queries.
package vectors

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"iter"
	"log/slog"
	"sync"
	"time"

	"github.com/jarvis-mcp/jarvis/internal/embed"
)

// ErrNoEmbedder means no embedder is configured or it could not be built;
// semantic search is unavailable until it is.
var ErrNoEmbedder = errors.New("no embedder available")

// ErrDimensionMismatch means the embedder answers with vectors of another
// length than those stored: it changed (another build of the model), and
// the vectors are being made again. Callers fall back to keyword search.
var ErrDimensionMismatch = errors.New("the embedder's vectors no longer match the stored ones")

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

// Vectors keeps chunk embeddings in SQLite, the source of truth, and serves
// nearest-neighbour queries from collections built from it, one per vault.
// A vault of up to ChromemMax vectors is served by chromem-go, holding the
// float32 vectors and scoring them exactly; a larger one by a compact index:
// the column index for the lexical embedder's vectors, the dense index for
// a neural embedder's. Stored vectors are loaded, never embedded again.
type Vectors struct {
	db  DB
	src EmbedderSource
	log *slog.Logger

	// BatchSize is how many texts go to the embedder in one call and into
	// the database in one transaction.
	BatchSize int

	// ChromemMax is the most vectors a vault may hold and be served by
	// chromem-go (DefaultChromemMax unless changed before the first load).
	// A vault that grows past it moves to the compact index; one served by
	// the compact index moves back when it shrinks below nine tenths of it.
	ChromemMax int

	// refreshing keeps Refresh calls apart: a load at start and a sync's
	// would otherwise both read every vector.
	refreshing sync.Mutex

	mu       sync.RWMutex
	serving  bool           // set by Load: Sync then keeps memory in step
	embedder embed.Embedder // nil until Sync or Load found one
	rowID    int64          // the embedders row of the embedder in use
	// loaded names the vectors in cols: their embedders row and its stored
	// fingerprint, as a deleted row's id can be given to the next one.
	loaded string
	// refreshedAt is chunk_changes when Refresh last brought memory in
	// step, or -1: a Refresh at the same count and key has nothing to do.
	refreshedAt int64
	cols        map[string]*collection // by vault name
	// chunkTotal is how many chunks the database held when last counted.
	chunkTotal int
	// embedderErr is why the embedder could not be built, until one is.
	embedderErr error
	// loading is set while Load reads the stored vectors into memory;
	// loadErr is why the last Load failed, nil once one succeeds.
	loading bool
	loadErr error
	// reading is the stored fingerprint of the embedder Load is building,
	// until it is in use: a status line names it while its model loads.
	reading string
}

// collection is one vault's vectors in memory, with which note each chunk
// belongs to.
type collection struct {
	chunks map[int64]chunkRef // by chunk id
	index  vectorIndex
}

// vectorIndex holds one vault's vectors and answers nearest-neighbour
// queries over all of them. Its implementations: chromemIndex (chromem-go,
// exact float32), columnIndex (the lexical embedder's vectors in one byte a
// dimension, columns.go) and denseIndex (a neural embedder's in two bytes a
// dimension, dense.go). Their contract, tested against an exact float64
// cosine for all three (TestVectorIndexContract):
//
//   - similarity is the cosine of the query and the stored vector, each
//     taken to unit length, to within the index's precision; an all-zero
//     stored vector has similarity 0 to every query, and an all-zero query
//     finds nothing;
//   - nearest returns the n best chunks that pass keep (nil keeps all)
//     and reach minSim, best first, equal scores by lowest chunk id;
//   - add replaces the vector a chunk had and does not keep vec, so that
//     a caller may reuse it; a vector of another dimension than those
//     held is refused, and a query of another dimension fails with
//     ErrDimensionMismatch.
type vectorIndex interface {
	add(id, fileID int64, vec []float32) error
	remove(id int64)
	len() int
	nearest(ctx context.Context, query []float32, n int, keep func(fileID int64) bool, minSim float32) ([]scored, error)
	// kind names the index as Stores reports it.
	kind() string
}

// The names of the vector stores, as Stores reports them.
const (
	// StoreChromem is chromem-go: float32 vectors, exact scores.
	StoreChromem = "chromem-go"
	// StoreColumn is the compact index of the lexical embedder's
	// vectors: one byte a dimension, scores within about 5e-4 of exact.
	StoreColumn = "column"
	// StoreDense is the compact index of a neural embedder's vectors:
	// two bytes a dimension, scores within about 1e-5 of exact.
	StoreDense = "dense"
)

// StoreWords says where a vault's vectors are held, in words for a
// reader rather than the store's name (kind, as Stores reports it): the
// one table of these names that health-status and list-vaults show.
func StoreWords(kind string) string {
	switch kind {
	case StoreChromem:
		return "in memory"
	case StoreColumn, StoreDense:
		return "in memory, compacted for a large vault"
	case "", "none":
		return "not loaded"
	}
	return kind
}

// DefaultChromemMax is ChromemMax unless set otherwise: the largest vault
// of lexical vectors (768 dimensions) whose chromem-go query stays under
// 10 ms at the median on two cores (docs/benchmarks.md, "Vector store
// choice"). A vault of 384-dimension vectors would stay under it up to
// about 12,000.
const DefaultChromemMax = 8000

// chunkRef is what memory keeps of a chunk beside its vector: its note,
// and its hash as hashKey condenses it.
type chunkRef struct {
	fileID int64
	hash   uint64
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
	return &Vectors{db: db, src: src, log: log, BatchSize: 256, ChromemMax: DefaultChromemMax, refreshedAt: -1,
		cols: map[string]*collection{}}
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

// withVector is the condition that chunk c has a vector under the
// embedders row given as its one parameter.
const withVector = `EXISTS (SELECT 1 FROM vectors x WHERE x.embedder_id = ? AND x.hash = c.hash)`

// storedFingerprint reads the fingerprint stored in embedders row id.
func (v *Vectors) storedFingerprint(ctx context.Context, id int64) (string, error) {
	var fp string
	err := v.db.QueryRowContext(ctx, `SELECT fingerprint FROM embedders WHERE id = ?`, id).Scan(&fp)
	return fp, err
}

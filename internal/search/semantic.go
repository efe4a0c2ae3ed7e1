package search

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"strings"
	"unicode/utf8"

	"github.com/jarvis-mcp/jarvis/internal/embed"
	"github.com/jarvis-mcp/jarvis/internal/search/fulltext"
	"github.com/jarvis-mcp/jarvis/internal/search/notes"
	"github.com/jarvis-mcp/jarvis/internal/search/vectors"
	"github.com/jarvis-mcp/jarvis/internal/store"
)

// ErrNoVectors means semantic search has nothing to search: no embedder,
// or no vectors stored for it yet. Callers fall back to keyword search.
var ErrNoVectors = errors.New("no vectors to search")

// VectorsReading is VectorsAbsent's reason while the stored vectors are
// being read into memory.
const VectorsReading = "the notes' stored vectors are being read into memory"

// VectorsAbsent says why vec holds no vector to search when the reason is
// not that none were made: the stored ones are being read into memory,
// or cannot be read (the database's trouble, in store.Said's words).
// "" when neither. Semantic search and related-notes say it alike.
func VectorsAbsent(vec *vectors.Vectors) (why string, stored bool) {
	switch loading, err := vec.Loading(); {
	case loading:
		return VectorsReading, true
	case err != nil && store.Classify(err) != store.KindOther:
		return "the stored vectors cannot be read (" + store.Said(err) + ")", true
	}
	return "", false
}

// Semantic ranks notes by the cosine similarity of their best chunk to the
// query, as measured by the embedder the vectors were made with.
type Semantic struct {
	vec *vectors.Vectors
	db  notes.Querier
	// Floors are the least similarity a chunk needs to be a result at
	// all, by kind of embedder: below it a chunk is no more like the query
	// than text it has nothing in common with, and a query about nothing
	// in the vault finds nothing. DefaultSimilarityFloors when built with
	// NewSemantic.
	Floors map[EmbedderKind]float64
}

// DefaultSimilarityFloors are the similarity floors of semantic search.
//
// Lexical 0.18: the median similarity of the STS-B sentence pairs people
// rated unrelated (0 of 5) is 0.178; a chunk no more like the query than
// that is not a result. On the Obsidian Help vault, invented words
// ("florbizzle quantamax") and subjects the vault lacks ("kubernetes pod
// autoscaling") reach 0.10 to 0.17 with their best chunk, from hashing
// collisions and shared letter runs alone, while the best chunk of 90% of
// the 60 real queries is above 0.19. The margins are thin (on the example
// vault a real question reaches 0.184 and a missing subject asked in full
// 0.170): the lexical embedder's scale leaves little room between weak
// matches and noise. docs/benchmarks.md, "Ranking", has the figures.
//
// Neural 0, no floor: where unrelated text lands differs from model to
// model (about 0.1 for OpenAI's text-embedding-3, 0.3 to 0.5 for several
// Ollama models), and none can be measured here. Set a floor per model
// (config wiring to come).
var DefaultSimilarityFloors = map[EmbedderKind]float64{KindLexical: 0.18, KindNeural: 0}

// NewSemantic returns semantic search over vec, reading note details from db.
func NewSemantic(vec *vectors.Vectors, db notes.Querier) *Semantic {
	return &Semantic{vec: vec, db: db, Floors: maps.Clone(DefaultSimilarityFloors)}
}

// Kind is the kind of embedder queries are embedded with: KindLexical for
// the built-in embedder (or none), KindNeural for any other.
func (s *Semantic) Kind() EmbedderKind {
	if e := s.vec.Embedder(); e != nil && e.Provider() != embed.ProviderLexical {
		return KindNeural
	}
	return KindLexical
}

// Floor is the similarity floor for the kind of embedder in use (Floors).
func (s *Semantic) Floor() float64 { return s.Floors[s.Kind()] }

// SemanticQuery is one semantic search.
type SemanticQuery struct {
	Text   string
	Filter notes.Filter
	// Limit is the most notes returned: semantic search's default
	// (Limits) when 0. It is not capped: the Service applies MaxLimit,
	// and asks for one more to tell whether more matched.
	Limit int
	// Threshold drops notes whose best chunk is less similar than this
	// (0 to 1). It applies before Limit: a threshold never empties a result
	// that has notes above it.
	Threshold float64

	// evidence asks for notes below the similarity floor too, each marked
	// belowFloor: combined search weighs them for notes keyword search
	// found, and shows none that only this list holds.
	evidence bool
}

// Embedder is the fingerprint of the embedder queries are embedded with
// (or will be, while its stored vectors load), or "" when semantic search
// is unavailable.
func (s *Semantic) Embedder() string {
	return s.vec.Fingerprint()
}

// Search embeds the query and returns the notes whose chunks are nearest,
// one per note with its best chunk as the snippet.
func (s *Semantic) Search(ctx context.Context, q SemanticQuery) ([]notes.Result, error) {
	text := strings.TrimSpace(q.Text)
	if text == "" {
		return nil, notes.ErrEmptyQuery
	}
	if q.Limit <= 0 {
		q.Limit, _ = Limits(ModeSemantic)
	}
	emb := s.vec.Embedder()
	if emb == nil {
		if err := s.vec.EmbedderErr(); err != nil {
			return nil, err
		}
		return nil, ErrNoVectors
	}
	if s.vec.Count() == 0 {
		return nil, ErrNoVectors
	}
	qv, err := embed.Query(ctx, emb, text)
	if err != nil {
		return nil, fmt.Errorf("embed the query: %w", err)
	}
	if len(qv) == 0 || vectors.IsZero(qv) {
		// Nothing of the query is known to the embedder (a lexical
		// embedder given only punctuation): nothing is similar.
		return []notes.Result{}, nil
	}
	if q.Filter, err = q.Filter.Resolve(ctx, s.db); err != nil {
		return nil, err
	}
	if q.Filter.MatchesNothing() {
		return []notes.Result{}, nil
	}
	keep := q.Filter.Keep()
	// The floor applies before the limit, as a threshold does.
	floor := 0.0
	if kind := s.Kind(); kind == KindLexical && !fulltext.HasTerms(text) {
		// Symbols alone: the lexical embedder knows a symbol only as
		// itself, and its similarity to anything else is hashing noise,
		// which with so few features can beat the floor (an emoji in no
		// note of the Obsidian Help vault reaches 0.32) while a note
		// holding the symbol may not reach it. Holding one of them is
		// what qualifies a note, and similarity orders those that do.
		if keep, err = s.holdingSymbols(ctx, text, keep); err != nil {
			return nil, err
		}
	} else {
		floor = s.Floors[kind]
		if !q.evidence {
			q.Threshold = max(q.Threshold, floor)
		}
	}
	best, err := s.bestPerNote(ctx, qv, q, keep)
	if err != nil {
		return nil, err
	}
	res, err := s.describe(ctx, best)
	for i := range res {
		res[i].BelowFloor = res[i].Score < floor
	}
	return res, err
}

// bestPerNote asks for more chunks until Limit distinct notes are found or
// no chunk is left above the threshold.
func (s *Semantic) bestPerNote(ctx context.Context, query []float32, q SemanticQuery, keep func(int64) bool) ([]vectors.Hit, error) {
	n := q.Limit * 4
	for {
		hits, err := s.vec.Nearest(ctx, query, q.Filter.Scope(), n, keep, float32(q.Threshold))
		if err != nil {
			return nil, err
		}
		var best []vectors.Hit
		seen := map[noteKey]bool{}
		for _, h := range hits {
			k := noteKey{h.Vault, h.File}
			if seen[k] {
				continue
			}
			seen[k] = true
			best = append(best, h)
			if len(best) == q.Limit {
				return best, nil
			}
		}
		if len(hits) < n {
			return best, nil // every chunk that passes was seen
		}
		n *= 4
	}
}

// holdingSymbols narrows keep to the notes whose text holds one of the
// symbols of query.
func (s *Semantic) holdingSymbols(ctx context.Context, query string, keep func(int64) bool) (func(int64) bool, error) {
	symbols := fulltext.SymbolWords(query)
	if len(symbols) == 0 {
		return func(int64) bool { return false }, nil
	}
	conds := make([]string, len(symbols))
	args := make([]any, len(symbols))
	for i, sym := range symbols {
		conds[i] = `instr(text, ?) > 0`
		args[i] = sym
	}
	rows, err := s.db.QueryContext(ctx, `SELECT DISTINCT file_id FROM chunks WHERE `+strings.Join(conds, " OR "), args...)
	if err != nil {
		return nil, fmt.Errorf("find notes holding %q: %w", symbols, err)
	}
	defer rows.Close()
	ids := map[int64]bool{}
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			return nil, fmt.Errorf("find notes holding %q: %w", symbols, err)
		}
		ids[id] = true
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("find notes holding %q: %w", symbols, err)
	}
	return func(id int64) bool { return ids[id] && (keep == nil || keep(id)) }, nil
}

type noteKey struct {
	vault  string
	fileID int64
}

// describe turns chunk hits into results with the note's path and title and
// the chunk's text as the snippet.
func (s *Semantic) describe(ctx context.Context, hits []vectors.Hit) ([]notes.Result, error) {
	out := make([]notes.Result, 0, len(hits))
	if len(hits) == 0 {
		return out, nil
	}
	args := make([]any, len(hits))
	for i, h := range hits {
		args[i] = h.Chunk
	}
	rows, err := s.db.QueryContext(ctx, `SELECT c.id, v.name, f.path, f.title, c.heading, c.start_line, c.end_line, c.text
		FROM chunks c JOIN files f ON f.id = c.file_id JOIN vaults v ON v.id = f.vault_id
		WHERE c.id IN (`+store.Placeholders(len(hits))+`)`, args...)
	if err != nil {
		return nil, fmt.Errorf("read search results: %w", err)
	}
	defer rows.Close()
	byChunk := map[int64]notes.Result{}
	for rows.Next() {
		var id int64
		var r notes.Result
		var text string
		if err := rows.Scan(&id, &r.Vault, &r.Path, &r.Title, &r.Heading, &r.Line, &r.End, &text); err != nil {
			return nil, fmt.Errorf("read search results: %w", err)
		}
		r.Snippet = Excerpt(text, snippetChars)
		byChunk[id] = r
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("read search results: %w", err)
	}
	var files []int64
	for _, h := range hits {
		r, ok := byChunk[h.Chunk]
		if !ok {
			continue // the note was re-indexed since the vectors were loaded
		}
		r.Score, r.File = float64(h.Sim), h.File
		out = append(out, r)
		files = append(files, h.File)
	}
	if err := notes.HeadingsAbove(ctx, s.db, files, out); err != nil {
		return nil, fmt.Errorf("read search results: %w", err)
	}
	return out, nil
}

// snippetChars bounds a snippet: enough for a model to judge the passage,
// small enough that twenty results stay well inside a client's limits.
const snippetChars = 300

// Excerpt returns text's Markdown as its reader sees it, on one line
// (notes.Plain), cut at a word boundary to at most max runes, with "…"
// when it was cut.
func Excerpt(text string, max int) string {
	text = notes.Plain(text)
	if utf8.RuneCountInString(text) <= max {
		return text
	}
	cut, n := 0, 0
	for i := range text {
		if n == max {
			cut = i
			break
		}
		n++
	}
	if sp := strings.LastIndexByte(text[:cut], ' '); sp > cut/2 {
		cut = sp
	}
	return notes.Cut(text, 0, cut) + "…"
}

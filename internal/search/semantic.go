package search

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"
)

// ErrDimensionMismatch means the embedder answers with vectors of another
// length than those stored: it changed (another build of the model), and
// the vectors are being made again. Callers fall back to keyword search.
var ErrDimensionMismatch = errors.New("the embedder's vectors no longer match the stored ones")

// ErrNoVectors means semantic search has nothing to search: no embedder,
// or no vectors stored for it yet. Callers fall back to keyword search.
var ErrNoVectors = errors.New("no vectors to search")

// Semantic ranks notes by the cosine similarity of their best chunk to the
// query, as measured by the embedder the vectors were made with.
type Semantic struct {
	vec *Vectors
	db  DB
}

// NewSemantic returns semantic search over vec, reading note details from db.
func NewSemantic(vec *Vectors, db DB) *Semantic {
	return &Semantic{vec: vec, db: db}
}

// SemanticQuery is one semantic search.
type SemanticQuery struct {
	Text   string
	Filter Filter
	// Limit is the most notes returned; 10 when 0.
	Limit int
	// Threshold drops notes whose best chunk is less similar than this
	// (0 to 1). It applies before Limit: a threshold never empties a result
	// that has notes above it.
	Threshold float64
}

// Embedder is the fingerprint of the embedder queries are embedded with, or
// "" when semantic search is unavailable.
func (s *Semantic) Embedder() string {
	if e := s.vec.Embedder(); e != nil {
		return e.Fingerprint()
	}
	return ""
}

// Search embeds the query and returns the notes whose chunks are nearest,
// one per note with its best chunk as the snippet.
func (s *Semantic) Search(ctx context.Context, q SemanticQuery) ([]Result, error) {
	text := strings.TrimSpace(q.Text)
	if text == "" {
		return nil, ErrEmptyQuery
	}
	if q.Limit <= 0 {
		q.Limit = 10
	}
	emb := s.vec.Embedder()
	if emb == nil {
		return nil, ErrNoVectors
	}
	if s.vec.Count() == 0 {
		return nil, ErrNoVectors
	}
	vecs, err := emb.Embed(ctx, []string{text})
	if err != nil {
		return nil, fmt.Errorf("embed the query: %w", err)
	}
	if len(vecs) != 1 || len(vecs[0]) == 0 || isZero(vecs[0]) {
		// Nothing of the query is known to the embedder (a lexical
		// embedder given only punctuation): nothing is similar.
		return []Result{}, nil
	}
	if q.Filter, err = q.Filter.resolve(ctx, s.db); err != nil {
		return nil, err
	}
	if q.Filter.matchesNothing() {
		return []Result{}, nil
	}
	best, err := s.bestPerNote(ctx, vecs[0], q, q.Filter.keep())
	if err != nil {
		return nil, err
	}
	return s.describe(ctx, best)
}

// bestPerNote asks for more chunks until Limit distinct notes are found or
// no chunk is left above the threshold.
func (s *Semantic) bestPerNote(ctx context.Context, query []float32, q SemanticQuery, keep func(int64) bool) ([]hit, error) {
	n := q.Limit * 4
	for {
		hits, err := s.vec.nearest(ctx, query, q.Filter.scope(), n, keep, float32(q.Threshold))
		if err != nil {
			return nil, err
		}
		var best []hit
		seen := map[noteKey]bool{}
		for _, h := range hits {
			k := noteKey{h.vault, h.fileID}
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

type noteKey struct {
	vault  string
	fileID int64
}

// describe turns chunk hits into results with the note's path and title and
// the chunk's text as the snippet.
func (s *Semantic) describe(ctx context.Context, hits []hit) ([]Result, error) {
	out := make([]Result, 0, len(hits))
	if len(hits) == 0 {
		return out, nil
	}
	args := make([]any, len(hits))
	for i, h := range hits {
		args[i] = h.chunk
	}
	rows, err := s.db.QueryContext(ctx, `SELECT c.id, v.name, f.path, f.title, c.heading, c.start_line, c.text
		FROM chunks c JOIN files f ON f.id = c.file_id JOIN vaults v ON v.id = f.vault_id
		WHERE c.id IN (`+placeholders(len(hits))+`)`, args...)
	if err != nil {
		return nil, fmt.Errorf("read search results: %w", err)
	}
	defer rows.Close()
	byChunk := map[int64]Result{}
	for rows.Next() {
		var id int64
		var r Result
		var text string
		if err := rows.Scan(&id, &r.Vault, &r.Path, &r.Title, &r.Heading, &r.Line, &text); err != nil {
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
		r, ok := byChunk[h.chunk]
		if !ok {
			continue // the note was re-indexed since the vectors were loaded
		}
		r.Score = float64(h.sim)
		out = append(out, r)
		files = append(files, h.fileID)
	}
	if err := headingsAbove(ctx, s.db, files, out); err != nil {
		return nil, fmt.Errorf("read search results: %w", err)
	}
	return out, nil
}

// snippetChars bounds a snippet: enough for a model to judge the passage,
// small enough that twenty results stay well inside a client's limits.
const snippetChars = 300

// Excerpt returns text with runs of white space collapsed, cut at a word
// boundary to at most max runes, with "…" when it was cut.
func Excerpt(text string, max int) string {
	text = strings.Join(strings.Fields(text), " ")
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
	return text[:cut] + "…"
}

func isZero(v []float32) bool {
	for _, x := range v {
		if x != 0 {
			return false
		}
	}
	return true
}

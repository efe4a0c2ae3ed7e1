package related

import (
	"cmp"
	"context"
	"database/sql"
	"fmt"
	"math"
	"slices"

	"github.com/jarvis-mcp/jarvis/internal/search"
	"github.com/jarvis-mcp/jarvis/internal/search/notes"
	"github.com/jarvis-mcp/jarvis/internal/search/vectors"
	"github.com/jarvis-mcp/jarvis/internal/store"
	"github.com/jarvis-mcp/jarvis/internal/vault"
)

// SimilarNote is a note whose passages are close to those of another, as
// the embedder of the vectors measures closeness.
type SimilarNote struct {
	Path       string
	Title      string
	Similarity float64
	// Passage is its chunk most similar to one of the other note's, and
	// From that chunk of the other note.
	Passage ChunkPassage
	From    ChunkPassage
}

// ChunkPassage is one chunk of a note.
type ChunkPassage struct {
	// Heading is the heading path the chunk starts under, and Then the
	// headings of the later sections it runs into (see vault.SectionsOf).
	Heading   string
	Then      []string
	Line, End int // 1-based, inclusive
	Text      string
}

// HeadingLabel is the passage's sections as printed for a person or a
// model: "Silas Crowe, then Secrets" for one that runs into a later
// section.
func (p ChunkPassage) HeadingLabel() string {
	return vault.PassageSections{Path: p.Heading, Then: p.Then}.Label()
}

// maxSimilarChunks bounds how many of a note's chunks are compared with
// the rest of the vault: each is one scan of every vector, and the first
// chunks of a long note (its introduction and first sections) say most of
// what it is about.
const maxSimilarChunks = 8

// Similarity finds the notes whose passages are closest to a note's, in
// the vector store of semantic search.
type Similarity struct {
	vec *vectors.Vectors
	db  querier
	// floor is semantic search's similarity floor for the embedder in use.
	floor func() float64
}

// querier is what Similarity needs of the database.
type querier interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
}

// NewSimilarity compares passages through vec, reading them from db, and
// ignores pairs below the floor sem applies.
func NewSimilarity(vec *vectors.Vectors, db querier, sem *search.Semantic) *Similarity {
	return &Similarity{vec: vec, db: db, floor: sem.Floor}
}

// Similar returns at most limit notes of vault, other than the note of
// fileID, whose chunks are closest to that note's chunks, best first: a
// note's score is that of its closest pair of chunks. Pairs below the
// embedder's similarity floor do not count. It fails with
// search.ErrNoVectors, or the embedder's error, when there are no vectors
// to compare, or the note has none yet.
func (s *Similarity) Similar(ctx context.Context, vaultName string, fileID int64, limit int) ([]SimilarNote, error) {
	if s.vec.Embedder() == nil {
		if err := s.vec.EmbedderErr(); err != nil {
			return nil, err
		}
		return nil, search.ErrNoVectors
	}
	if s.vec.Count() == 0 {
		return nil, search.ErrNoVectors
	}
	own, vecs, err := s.noteVectors(ctx, fileID)
	if err != nil {
		return nil, fmt.Errorf("read the note's vectors: %w", err)
	}
	if len(vecs) == 0 {
		return nil, search.ErrNoVectors
	}
	floor := float32(s.floor())
	keep := func(f int64) bool { return f != fileID }
	type pair struct {
		sim         float32
		from, chunk int64
	}
	best := map[int64]pair{}
	queries := 0
	for _, v := range vecs {
		if v != nil {
			queries++
		}
	}
	if queries > 1 && queries*s.vec.CountIn(vaultName) > similarScanBudget {
		// One scan with the note's centroid names the candidates; their
		// chunks are then compared with the note's one by one.
		hits, err := s.vec.Nearest(ctx, centroid(vecs), []string{vaultName}, limit*4, keep, 0)
		if err != nil {
			return nil, err
		}
		var cands []int64
		for _, h := range hits {
			if !slices.Contains(cands, h.File) && len(cands) < 2*limit {
				cands = append(cands, h.File)
			}
		}
		err = s.vec.ChunkVectors(ctx, cands, func(chunk, file int64, v []float32) {
			for i, q := range vecs {
				if q == nil || len(q) != len(v) {
					continue
				}
				sim := dotProduct(q, v)
				if p, ok := best[file]; sim >= floor && (!ok || sim > p.sim) {
					best[file] = pair{sim, own[i].id, chunk}
				}
			}
		})
		if err != nil {
			return nil, fmt.Errorf("compare passages: %w", err)
		}
	} else {
		for i, v := range vecs {
			if v == nil {
				continue
			}
			hits, err := s.vec.Nearest(ctx, v, []string{vaultName}, limit*4, keep, floor)
			if err != nil {
				return nil, err
			}
			for _, h := range hits {
				if p, ok := best[h.File]; !ok || h.Sim > p.sim {
					best[h.File] = pair{h.Sim, own[i].id, h.Chunk}
				}
			}
		}
	}
	files := make([]int64, 0, len(best))
	for f := range best {
		files = append(files, f)
	}
	slices.SortFunc(files, func(a, b int64) int {
		return cmp.Or(cmp.Compare(best[b].sim, best[a].sim), cmp.Compare(a, b))
	})
	files = files[:min(len(files), limit)]
	ids := make([]int64, 0, len(files))
	for _, f := range files {
		ids = append(ids, best[f].chunk)
	}
	passages, err := s.passages(ctx, ids)
	if err != nil {
		return nil, fmt.Errorf("read similar passages: %w", err)
	}
	byID := map[int64]chunkText{}
	for _, c := range own {
		byID[c.id] = c
	}
	out := make([]SimilarNote, 0, len(files))
	for _, f := range files {
		p := best[f]
		c, ok := passages[p.chunk]
		if !ok {
			continue // re-indexed since the vectors were loaded
		}
		from := byID[p.from]
		out = append(out, SimilarNote{Path: c.path, Title: c.title, Similarity: float64(p.sim), Passage: c.ChunkPassage, From: from.ChunkPassage})
	}
	return out, nil
}

// similarScanBudget is how many vectors one Similar call may compare a
// note's chunks with, one scan each, before it scans once with their
// mean instead: 8 chunks of a note against a vault of 250,000 chunks.
// Beyond it, on a vault of 100,000 notes, eight scans of every vector
// would take the better part of a second.
var similarScanBudget = 2_000_000

// centroid is the mean of the vectors that are not nil, scaled to unit
// length.
func centroid(vecs [][]float32) []float32 {
	var sum []float32
	for _, v := range vecs {
		if v == nil {
			continue
		}
		if sum == nil {
			sum = make([]float32, len(v))
		}
		for i := range min(len(v), len(sum)) {
			sum[i] += v[i]
		}
	}
	var norm float64
	for _, x := range sum {
		norm += float64(x) * float64(x)
	}
	if norm > 0 {
		scale := float32(1 / math.Sqrt(norm))
		for i := range sum {
			sum[i] *= scale
		}
	}
	return sum
}

func dotProduct(a, b []float32) float32 {
	var s float32
	for i := range a {
		s += a[i] * b[i]
	}
	return s
}

// chunkText is a chunk with its note's path and title.
type chunkText struct {
	ChunkPassage
	id, file    int64
	path, title string
}

// nameSections sets each chunk's Heading and Then from its note's
// headings, as search names a passage's sections: the path stored with a
// chunk is that of its last section when a tiny one joined it.
func (s *Similarity) nameSections(ctx context.Context, chunks []*chunkText) error {
	ids := make([]any, 0, len(chunks))
	seen := map[int64]bool{}
	for _, c := range chunks {
		if !seen[c.file] {
			seen[c.file] = true
			ids = append(ids, c.file)
		}
	}
	byFile, err := notes.ReadHeadings(ctx, s.db, ids)
	if err != nil {
		return err
	}
	for _, c := range chunks {
		sec := vault.SectionsOf(byFile[c.file], c.Line, c.End)
		c.Heading, c.Then = sec.Path, sec.Then
	}
	return nil
}

// noteVectors reads the note's first maxSimilarChunks chunks and their
// vectors from the embedder in use (nil for a chunk without one); vecs is
// nil when no chunk has one.
func (s *Similarity) noteVectors(ctx context.Context, fileID int64) (own []chunkText, vecs [][]float32, err error) {
	rows, err := s.db.QueryContext(ctx, `SELECT c.id, c.start_line, c.end_line, c.text
		FROM chunks c WHERE c.file_id = ? ORDER BY c.ord LIMIT ?`, fileID, maxSimilarChunks)
	if err != nil {
		return nil, nil, err
	}
	for rows.Next() {
		c := chunkText{file: fileID}
		if err := rows.Scan(&c.id, &c.Line, &c.End, &c.Text); err != nil {
			rows.Close()
			return nil, nil, err
		}
		own = append(own, c)
	}
	if err := closeRows(rows); err != nil {
		return nil, nil, err
	}
	named := make([]*chunkText, len(own))
	for i := range own {
		named[i] = &own[i]
	}
	if err := s.nameSections(ctx, named); err != nil {
		return nil, nil, err
	}
	byChunk := map[int64][]float32{}
	err = s.vec.ChunkVectors(ctx, []int64{fileID}, func(chunk, _ int64, v []float32) { byChunk[chunk] = v })
	if err != nil {
		return nil, nil, err
	}
	vecs = make([][]float32, len(own))
	found := false
	for i, c := range own {
		vecs[i] = byChunk[c.id]
		found = found || vecs[i] != nil
	}
	if !found {
		vecs = nil
	}
	return own, vecs, nil
}

// passages reads chunks by id, with their notes' paths and titles.
func (s *Similarity) passages(ctx context.Context, ids []int64) (map[int64]chunkText, error) {
	out := map[int64]chunkText{}
	if len(ids) == 0 {
		return out, nil
	}
	args := make([]any, len(ids))
	for i, id := range ids {
		args[i] = id
	}
	rows, err := s.db.QueryContext(ctx, `SELECT c.id, c.file_id, f.path, f.title, c.start_line, c.end_line, c.text
		FROM chunks c JOIN files f ON f.id = c.file_id WHERE c.id IN (`+store.Placeholders(len(ids))+`)`, args...)
	if err != nil {
		return nil, err
	}
	var read []*chunkText
	for rows.Next() {
		c := new(chunkText)
		if err := rows.Scan(&c.id, &c.file, &c.path, &c.title, &c.Line, &c.End, &c.Text); err != nil {
			rows.Close()
			return nil, err
		}
		read = append(read, c)
	}
	if err := closeRows(rows); err != nil {
		return nil, err
	}
	if err := s.nameSections(ctx, read); err != nil {
		return nil, err
	}
	for _, c := range read {
		out[c.id] = *c
	}
	return out, nil
}

func closeRows(rows *sql.Rows) error {
	if err := rows.Err(); err != nil {
		rows.Close()
		return err
	}
	return rows.Close()
}

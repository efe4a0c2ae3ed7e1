package search

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/jarvis-mcp/jarvis/internal/config"
	"github.com/jarvis-mcp/jarvis/internal/embed"
	"github.com/jarvis-mcp/jarvis/internal/index"
	"github.com/jarvis-mcp/jarvis/internal/search/fulltext"
	"github.com/jarvis-mcp/jarvis/internal/search/notes"
	"github.com/jarvis-mcp/jarvis/internal/search/vectors"
	"github.com/jarvis-mcp/jarvis/internal/store"
	"github.com/jarvis-mcp/jarvis/internal/vault"
)

// Passage-level search: the chunks of the notes a combined search finds,
// each scored against the query on its own, for callers that assemble
// passages rather than list notes (the build-context tool).

// NoteRef names a note by vault and vault-relative path.
type NoteRef struct{ Vault, Path string }

// PassageQuery asks for the passages of the notes that best answer a
// query.
type PassageQuery struct {
	Text   string
	Filter notes.Filter
	// Notes is how many of the best notes of a combined search give their
	// passages: DefaultPassageNotes when 0.
	Notes int
	// Also are notes whose passages are candidates whatever the search
	// finds, such as the notes a caller starts from.
	Also []NoteRef
	// Links, when set, lists the notes a note links to. The notes linked
	// from the best Hop notes of the search (and from those in Also) give
	// their passages too: one hop along the links.
	Links LinkedFunc
	Hop   int
	// Index is the background index's state, as in Query.
	Index index.State
}

// DefaultPassageNotes is how many notes a passage search reads: the
// passages of 20 notes are some hundred, more than the largest budget of
// the build-context tool takes.
const DefaultPassageNotes = 20

// WeakShare is the least share of the best passage's score a passage
// needs not to be a weak match: below a quarter of the best, a passage
// answers the query much less than what else was found.
const WeakShare = 0.25

// PassageAnswer is what a passage search found, note by note, and how.
type PassageAnswer struct {
	Notes []NotePassages
	// Degraded, Reason, Embedder and Remarks are as in Answer; Remarks are
	// Answer's Notes.
	Degraded bool
	Reason   string
	Embedder string
	Remarks  []string
	// Unready, when the search found no note for a reason other than the
	// query (Answer.Unready), says why.
	Unready string
}

// NotePassages is one note's passages, in document order, with what is
// needed to cite them.
type NotePassages struct {
	Vault, Path, Title string
	// Rank is the note's place in the search's results, from 1; 0 for a
	// note it did not find.
	Rank int
	// Asked is set for a note of PassageQuery.Also.
	Asked bool
	// Via, for a note reached along a link, is the path of the note that
	// links to it.
	Via      string
	Headings []vault.Heading
	Passages []Passage
}

// Passage is one chunk of a note, scored against the query.
type Passage struct {
	// Heading is the chunk's heading path, as the index recorded it.
	Heading            string
	StartLine, EndLine int // 1-based, inclusive
	Text               string
	// Similarity is the chunk's semantic similarity to the query (0 when
	// semantic search was unavailable), Keyword the share of the query's
	// terms it holds, weighed by rarity (0 to 1), and Score the two
	// combined (see scorePassages).
	Similarity, Keyword, Score float64
	// Weak marks a passage that hardly answers the query.
	Weak bool
	// Parts are the chunk's paragraphs, each with its own keyword share,
	// for a caller with room for less than the whole chunk; nil when the
	// chunk is one paragraph.
	Parts []PassagePart

	id int64 // the chunk's id in the index; 0 when read from the file
}

// PassagePart is one paragraph of a passage.
type PassagePart struct {
	StartLine, EndLine int
	Text               string
	Keyword            float64
}

// Passages runs a combined search for q and returns the passages of the
// notes found, of q.Also and of the notes one link away, each scored. The
// fallbacks are those of Search: without semantic search passages are
// scored by keywords alone, and without the index the notes the file scan
// found are read and chunked from disk; the answer says which. A note the
// served vaults' rules keep out is never among them, whatever the index
// holds (see Search).
func (s *Service) Passages(ctx context.Context, q PassageQuery) (PassageAnswer, error) {
	n := q.Notes
	if n <= 0 {
		n = DefaultPassageNotes
	}
	a, err := s.Search(ctx, Query{Mode: ModeCombined, Text: q.Text, Limit: n, Filter: q.Filter, Index: q.Index, noSnippets: true})
	if err != nil {
		return PassageAnswer{}, err
	}
	ans := PassageAnswer{Degraded: a.Degraded, Reason: a.Reason, Embedder: a.Embedder, Remarks: a.Notes}
	if a.Unready {
		ans.Unready = a.Empty
	}
	byRef := map[NoteRef]*NotePassages{}
	ids := map[NoteRef]int64{}
	var order []*NotePassages
	add := func(ref NoteRef, title string, id int64) *NotePassages {
		if np := byRef[ref]; np != nil {
			return np
		}
		np := &NotePassages{Vault: ref.Vault, Path: ref.Path, Title: title}
		byRef[ref] = np
		order = append(order, np)
		if id != 0 {
			ids[ref] = id
		}
		return np
	}
	fromFiles := false
	for i, r := range a.Results {
		add(NoteRef{r.Vault, r.Path}, r.Title, r.File).Rank = i + 1
		fromFiles = fromFiles || r.File == 0
	}
	for _, ref := range q.Also {
		if !s.leftOut(ref) {
			add(ref, "", 0).Asked = true
		}
	}
	if !fromFiles {
		err := s.indexedPassages(ctx, q, byRef, order, add, ids)
		switch {
		case err == nil:
		case ctx.Err() != nil:
			return PassageAnswer{}, ctx.Err()
		default:
			s.log.Warn("read passages from the index; reading the note files", "err", err)
			fromFiles = true
			ans.Degraded, ans.Reason = true, s.noIndex(notes.ReaderModel, err)+"; read the notes' passages from the files on disk instead"
			order = slices.DeleteFunc(order, func(np *NotePassages) bool { return np.Via != "" })
			for _, np := range order {
				np.Passages, np.Headings = nil, nil
			}
		}
	}
	if fromFiles {
		if err := s.filePassages(ctx, order); err != nil {
			return PassageAnswer{}, err
		}
	}
	for _, np := range order {
		np.Passages = fulltext.WithinScan(np.Passages, func(p Passage) int { return len(p.Text) })
	}
	var sims map[int64]float64
	semantic := false
	if !fromFiles {
		var err error
		sims, err = s.similarities(ctx, q.Text, ids, order)
		switch {
		case err == nil:
			semantic = true
		case ctx.Err() != nil:
			return PassageAnswer{}, ctx.Err()
		case !ans.Degraded:
			ans.Degraded, ans.Reason = true, s.semanticFailed(err, q.Index, notes.ReaderModel)+"; passages ranked by keywords only"
		}
	}
	s.scorePassages(q.Text, order, sims, semantic)
	for _, np := range order {
		if len(np.Passages) > 0 {
			ans.Notes = append(ans.Notes, *np)
		}
	}
	return ans, nil
}

// indexedPassages fills in the notes' passages and headings from the
// index, after adding the notes one link away from the best.
func (s *Service) indexedPassages(ctx context.Context, q PassageQuery, byRef map[NoteRef]*NotePassages, order []*NotePassages,
	add func(NoteRef, string, int64) *NotePassages, ids map[NoteRef]int64) error {
	db := s.db
	for _, np := range order {
		if err := noteID(ctx, db, np, ids); err != nil {
			return err
		}
	}
	if q.Links != nil && q.Hop > 0 {
		var from []*NotePassages
		for _, np := range order {
			if np.Asked || (np.Rank > 0 && np.Rank <= q.Hop) {
				from = append(from, np)
			}
		}
		for _, src := range from {
			paths, err := q.Links(ctx, src.Vault, src.Path)
			if err != nil {
				if ctx.Err() != nil {
					return ctx.Err()
				}
				s.log.Warn("links of a note", "path", src.Path, "err", err)
				continue
			}
			for _, p := range paths {
				ref := NoteRef{src.Vault, p}
				if _, ok := ids[ref]; ok || p == src.Path || s.leftOut(ref) {
					continue
				}
				np := add(ref, "", 0)
				np.Via = src.Path
				if err := noteID(ctx, db, np, ids); err != nil {
					return err
				}
			}
		}
	}
	byID := map[int64]*NotePassages{}
	var args []any
	for ref, id := range ids {
		byID[id] = byRef[ref]
		args = append(args, id)
	}
	if len(args) == 0 {
		return nil
	}
	slices.SortFunc(args, func(a, b any) int { return int(a.(int64) - b.(int64)) })
	headings, err := notes.ReadHeadings(ctx, db, args)
	if err != nil {
		return fmt.Errorf("read headings: %w", err)
	}
	for id, hs := range headings {
		byID[id].Headings = hs
	}
	rows, err := db.QueryContext(ctx, `SELECT id, file_id, heading, start_line, end_line, text FROM chunks
		WHERE file_id IN (`+store.Placeholders(len(args))+`) ORDER BY file_id, ord`, args...)
	if err != nil {
		return fmt.Errorf("read passages: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var id int64
		var p Passage
		if err := rows.Scan(&p.id, &id, &p.Heading, &p.StartLine, &p.EndLine, &p.Text); err != nil {
			return fmt.Errorf("read passages: %w", err)
		}
		byID[id].Passages = append(byID[id].Passages, p)
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("read passages: %w", err)
	}
	return nil
}

// noteID looks up a note's id and title in the index when it is not known
// yet; a path that is no indexed note is dropped from ids and gives no
// passages.
func noteID(ctx context.Context, db notes.Querier, np *NotePassages, ids map[NoteRef]int64) error {
	ref := NoteRef{np.Vault, np.Path}
	if _, ok := ids[ref]; ok && np.Title != "" {
		return nil
	}
	var id int64
	var title string
	err := store.QueryRow(ctx, db, `SELECT f.id, f.title FROM files f JOIN vaults v ON v.id = f.vault_id
		WHERE v.name = ? AND f.path = ? AND f.kind = 'note'`, []any{np.Vault, np.Path}, &id, &title)
	switch {
	case err == nil:
		ids[ref], np.Title = id, title
	case errors.Is(err, sql.ErrNoRows):
	default:
		return fmt.Errorf("find note %s: %w", np.Path, err)
	}
	return nil
}

// filePassages reads and chunks the notes from disk, as the index would,
// when the index cannot be read.
func (s *Service) filePassages(ctx context.Context, order []*NotePassages) error {
	parser := vault.NewParser()
	roots := map[string]*vault.Root{}
	for _, np := range order {
		if err := ctx.Err(); err != nil {
			return err
		}
		root, ok := roots[np.Vault]
		if !ok {
			i := slices.IndexFunc(s.files, func(v config.Vault) bool { return v.Name == np.Vault })
			if i >= 0 {
				root, _ = vault.OpenRoot(s.files[i].Path, s.files[i].Exclude)
			}
			roots[np.Vault] = root
		}
		if root == nil {
			continue
		}
		data, _, _, err := root.ReadNote(np.Path)
		if err != nil {
			continue // gone since the scan, or not a note: no passages
		}
		// A note too complex to parse gives no passages, as in the index.
		note, err := parser.Parse(ctx, np.Path, data)
		if err != nil && !errors.Is(err, vault.ErrTooComplex) {
			return err
		}
		np.Title, np.Headings = note.Title, note.Headings
		for _, c := range note.Chunks {
			np.Passages = append(np.Passages, Passage{Heading: c.HeadingPath(), StartLine: c.StartLine, EndLine: c.EndLine, Text: c.Text})
		}
	}
	return nil
}

// similarities is the semantic similarity to the query of every chunk of
// the notes ids, by chunk id; a chunk without a vector has none. The
// query is embedded again here, as combined search keeps its vector to
// itself: microseconds for the lexical and static embedders, milliseconds
// for a transformer, against the tens of milliseconds a pack takes.
func (s *Service) similarities(ctx context.Context, text string, ids map[NoteRef]int64, order []*NotePassages) (map[int64]float64, error) {
	sem := s.semantic
	emb := sem.vec.Embedder()
	if emb == nil {
		if err := sem.vec.EmbedderErr(); err != nil {
			return nil, err
		}
		return nil, ErrNoVectors
	}
	if sem.vec.Count() == 0 {
		return nil, ErrNoVectors
	}
	text, _ = semanticText(strings.TrimSpace(text))
	qv, err := embed.Query(ctx, emb, text)
	if err != nil {
		return nil, fmt.Errorf("embed the query: %w", err)
	}
	out := map[int64]float64{}
	if len(qv) == 0 || vectors.IsZero(qv) {
		return out, nil
	}
	files := map[int64]bool{}
	for _, id := range ids {
		files[id] = true
	}
	n := 0
	for _, np := range order {
		n += len(np.Passages)
	}
	hits, err := sem.vec.Nearest(ctx, qv, nil, n, func(id int64) bool { return files[id] }, -1)
	if err != nil {
		return nil, err
	}
	for _, h := range hits {
		out[h.Chunk] = float64(h.Sim)
	}
	return out, nil
}

// scorePassages scores every passage against the query, simply:
//
//   - Keyword is the share of the query's terms the passage holds, in
//     the note's title, its heading path or its text (what the embedder
//     is given for it), each term weighed by its rarity among the
//     passages read, ln(1 + (N+1)/(df+1)): a word every passage holds
//     ("coffee" in a coffee vault) tells them apart no more than it
//     should.
//   - The semantic term is the chunk's similarity over the best
//     similarity among the passages, as combined search scales its lists.
//   - Score is their weighted mean, with the weights of combined search (1
//     for keywords; 0.5 for the lexical embedder's similarity, 1 for a
//     neural one's); keywords alone when semantic search is unavailable.
//
// A passage is weak when it holds no term of the query and its similarity
// is below the embedder's floor (the same floor that makes a chunk no
// result of semantic search), or when its score is below WeakShare of the
// best.
func (s *Service) scorePassages(text string, order []*NotePassages, sims map[int64]float64, semantic bool) {
	terms := fulltext.QueryTerms(text)
	type found struct {
		p     *Passage
		terms []bool
		parts [][]bool
	}
	var all []found
	df := make([]int, terms.Len())
	for _, np := range order {
		for i := range np.Passages {
			p := &np.Passages[i]
			f := found{p: p, terms: terms.In(vault.EmbedText(np.Title, p.Heading, p.Text))}
			for t, ok := range f.terms {
				if ok {
					df[t]++
				}
			}
			if paras := vault.Paragraphs(p.Text, p.StartLine); len(paras) > 1 {
				for _, para := range paras {
					p.Parts = append(p.Parts, PassagePart{StartLine: para.StartLine, EndLine: para.EndLine, Text: para.Text})
					f.parts = append(f.parts, terms.In(para.Text))
				}
			}
			all = append(all, f)
		}
	}
	idf := make([]float64, len(df))
	total := 0.0
	for t, d := range df {
		idf[t] = math.Log(1 + float64(len(all)+1)/float64(d+1))
		total += idf[t]
	}
	share := func(terms []bool) float64 {
		if total == 0 {
			return 0
		}
		got := 0.0
		for t, ok := range terms {
			if ok {
				got += idf[t]
			}
		}
		return got / total
	}
	bestSim := 0.0
	for _, f := range all {
		f.p.Similarity = max(0, sims[f.p.id])
		bestSim = max(bestSim, f.p.Similarity)
	}
	weight := s.combined.semanticWeight()
	floor := s.semantic.Floor()
	best := 0.0
	for _, f := range all {
		p := f.p
		p.Keyword = share(f.terms)
		for i, terms := range f.parts {
			p.Parts[i].Keyword = share(terms)
		}
		p.Score = p.Keyword
		if semantic && bestSim > 0 {
			p.Score = (p.Keyword + weight*p.Similarity/bestSim) / (1 + weight)
		}
		best = max(best, p.Score)
	}
	for _, f := range all {
		p := f.p
		p.Weak = p.Keyword == 0 && (!semantic || p.Similarity < floor) || p.Score < WeakShare*best
	}
}

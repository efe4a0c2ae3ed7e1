package search

import (
	"context"
	"errors"
	"maps"
	"slices"

	"github.com/jarvis-mcp/jarvis/internal/search/fulltext"
	"github.com/jarvis-mcp/jarvis/internal/search/notes"
	"github.com/jarvis-mcp/jarvis/internal/search/vectors"
)

// KeywordFunc runs a keyword search; combined search calls it for its
// keyword candidates.
type KeywordFunc func(ctx context.Context, text string, f notes.Filter, limit int) ([]notes.Result, error)

// SemanticFunc runs a semantic search. It returns ErrNoVectors when there
// is nothing to search, and combined search goes on with keywords alone.
type SemanticFunc func(ctx context.Context, text string, f notes.Filter, limit int) ([]notes.Result, error)

// LinkedFunc lists the notes a note links to or is linked from, as
// vault-relative paths in the same vault.
type LinkedFunc func(ctx context.Context, vault, path string) ([]string, error)

// EmbedderKind sorts embedders by how their similarities behave. A lexical
// embedder (the built-in one: shared words and word pieces) agrees with
// keyword search more often than not and gives unrelated text a
// similarity of 0.1 to 0.2 from hashing alone; a neural one (Ollama,
// OpenAI) finds paraphrases keyword search misses, on a scale that
// depends on the model.
type EmbedderKind string

// Embedder kinds.
const (
	KindLexical EmbedderKind = "lexical"
	KindNeural  EmbedderKind = "neural"
)

// Combined merges keyword and semantic results into one ranking: each
// note's score in each list, over that list's best, summed with a weight
// per list (see fuse). Both retrievers return a fixed number of
// candidates (Candidates) whatever the limit, so that asking for 10
// results gives the first 10 of what asking for 100 gives. The
// alternatives measured (docs/benchmarks.md, "Ranking") were z-scores,
// min-max scaling within the list, reciprocal-rank fusion and a boost for
// notes linked to the best hits; none did better, and none is kept.
type Combined struct {
	keyword  KeywordFunc
	semantic SemanticFunc

	// KeywordWeight scales the keyword list's terms.
	KeywordWeight float64
	// SemanticWeights scale the semantic list's terms, by the kind of
	// embedder behind it (Kind).
	SemanticWeights map[EmbedderKind]float64
	// Kind reports the kind of embedder semantic search uses; nil, or an
	// unknown kind, is taken as KindLexical.
	Kind func() EmbedderKind
	// Candidates is how many results each retriever contributes to the
	// fusion, whatever the limit (more only when the limit is higher).
	Candidates int
}

// DefaultCandidates is how many results each retriever contributes:
// MaxLimit, so that every limit ranks the same candidates. (At MaxLimit
// itself the Service asks for one more, to tell whether more matched,
// and each retriever contributes MaxLimit+1.)
const DefaultCandidates = MaxLimit

// DefaultSemanticWeights are the weights of semantic scores against
// keyword scores (1), by kind of embedder. Lexical 0.5: on the eval's two
// collections, 0.45 and 0.5 are where combined search stays above keyword
// search on Cranfield at both depths without losing a Help query (0.4
// loses one, 0.55 lowers Help MRR; docs/benchmarks.md, "Ranking"); the
// lexical embedder mostly agrees with keyword search, so its list is a
// second opinion rather than an equal. Neural 1, equal weight: the usual
// starting point of fusing BM25 with a dense retriever (Bruch et al.,
// 2023), as a neural embedder's ranking is good in its own right and errs
// differently from keywords'. No neural model runs here, so that weight
// is reasoned, not measured; `search: semantic_weight:` sets it.
var DefaultSemanticWeights = map[EmbedderKind]float64{KindLexical: 0.5, KindNeural: 1}

// NewCombined returns combined search over the given retrievers.
func NewCombined(keyword KeywordFunc, semantic SemanticFunc) *Combined {
	return &Combined{keyword: keyword, semantic: semantic, Candidates: DefaultCandidates,
		KeywordWeight: 1, SemanticWeights: maps.Clone(DefaultSemanticWeights)}
}

// semanticWeight is the weight of the semantic list for the embedder in
// use.
func (c *Combined) semanticWeight() float64 {
	kind := KindLexical
	if c.Kind != nil {
		kind = c.Kind()
	}
	w, ok := c.SemanticWeights[kind]
	if !ok {
		w = c.SemanticWeights[KindLexical]
	}
	return w
}

// CombinedQuery is one combined search.
type CombinedQuery struct {
	Text   string
	Filter notes.Filter
	// Limit is the most notes returned: combined search's default
	// (Limits) when 0. It is not capped: the Service applies MaxLimit,
	// and asks for one more to tell whether more matched.
	Limit int
}

// Combined retriever names, as results report them in Retrievers.
const (
	RetrieverKeyword  = "keyword"
	RetrieverSemantic = "semantic"
)

// Search runs both retrievers and fuses their results. When semantic
// search cannot run, the keyword results alone are ranked and its error is
// returned as semErr, for the caller to say why (Service does, for every
// mode in one place); an error from keyword search is returned as err.
func (c *Combined) Search(ctx context.Context, q CombinedQuery) (results []notes.Result, semErr, err error) {
	results, err = c.search(ctx, q, q.Text, &semErr)
	if err != nil {
		return nil, nil, err
	}
	return results, semErr, nil
}

// search fuses the keyword results for q with the semantic results for
// semText (the part of the query the embedder takes). When semantic search
// fails, its error is put in semErr and the keyword results alone are
// ranked.
func (c *Combined) search(ctx context.Context, q CombinedQuery, semText string, semErr *error) ([]notes.Result, error) {
	if q.Limit <= 0 {
		q.Limit, _ = Limits(ModeCombined)
	}
	depth := max(c.Candidates, q.Limit)
	kw, sem, err := c.retrieve(ctx, q, semText, depth, semErr)
	if err != nil {
		return nil, err
	}
	fused := c.fuse(kw, sem, depth)
	out := make([]notes.Result, 0, min(q.Limit, len(fused)))
	for _, f := range fused[:min(q.Limit, len(fused))] {
		r := f.result
		r.Score = f.score
		r.Retrievers = f.retrievers
		out = append(out, r)
	}
	return out, nil
}

type resultKey struct{ vault, path string }

type candidate struct {
	key        resultKey
	result     notes.Result
	score      float64
	retrievers []string // the lists that found it
	listed     []string // the lists that hold it, below the floor included
}

// fuse sums each note's terms over both lists, each weighted by its
// list's weight (fuseLists). A note missing from the keyword list scores
// 0 there; one missing from a full semantic list (as long as the depth
// asked) scores as that list's last candidate, the most it could have
// scored, and 0 when the list holds every note with a vector. The
// semantic list reaches below the similarity floor: a weak similarity is
// still evidence about a note keyword search found, but a note only
// semantic search found, and only below the floor, is no result, and a
// list with nothing above the floor is noise and weighs nothing. The
// keyword result supplies the snippet when there is one: its matches are
// marked.
func (c *Combined) fuse(kw, sem []notes.Result, depth int) []*candidate {
	lists := []*rankedList{{results: kw, name: RetrieverKeyword, weight: c.KeywordWeight},
		{results: sem, name: RetrieverSemantic, weight: c.semanticWeight()}}
	if len(sem) >= depth {
		lists[1].missing = max(0, sem[len(sem)-1].Score)
	}
	return fuseLists(lists)
}

// rankedList is one ranking fuseLists fuses.
type rankedList struct {
	results []notes.Result
	name    string
	weight  float64
	missing float64 // the score of a note the list does not hold

	best float64 // the highest score above the floor, at least 0
}

// fuseLists is the one fusion of rankings, of combined search's two
// retrievers and of a query with its alternatives: each note's terms are
// summed over the lists, each weighted by its list's weight. A term is the
// note's score over the best score in its list (score fusion, Convex):
// scores start at 0 (BM25 cannot be negative, and a similarity below 0
// counts as 0), so this is min-max scaling with the theoretical minimum,
// which Bruch et al. ("An Analysis of Fusion Functions for Hybrid
// Retrieval", 2023) found the most robust of the normalisations they
// compared. A note a list lacks scores the list's missing score there. A
// result BelowFloor is evidence about a note another list found, and no
// result alone. The first list to hold a note supplies its result. The
// fused score is over the weights of the lists that found anything: 1 for
// a note at the top of every list that ran.
func fuseLists(lists []*rankedList) []*candidate {
	byKey := map[resultKey]*candidate{}
	var order []*candidate
	for _, l := range lists {
		for _, r := range l.results {
			if !r.BelowFloor {
				l.best = max(l.best, r.Score)
			}
		}
	}
	scaled := func(l *rankedList, score float64) float64 {
		if l.best == 0 {
			return 0
		}
		return max(0, score) / l.best
	}
	for _, l := range lists {
		for _, r := range l.results {
			k := resultKey{r.Vault, r.Path}
			cand := byKey[k]
			if cand == nil {
				if r.BelowFloor {
					continue // semantic evidence only, for notes keyword search found
				}
				cand = &candidate{key: k, result: r}
				byKey[k] = cand
				order = append(order, cand)
			}
			cand.score += l.weight * scaled(l, r.Score)
			if !r.BelowFloor {
				cand.retrievers = append(cand.retrievers, l.name)
			}
			cand.listed = append(cand.listed, l.name)
		}
	}
	total := 0.0
	for _, l := range lists {
		if len(l.results) > 0 {
			total += l.weight
		}
	}
	for _, cand := range order {
		for _, l := range lists {
			if !slices.Contains(cand.listed, l.name) {
				cand.score += l.weight * scaled(l, l.missing)
			}
		}
		if total > 0 {
			cand.score /= total
		}
	}
	slices.SortStableFunc(order, func(a, b *candidate) int {
		switch {
		case a.score > b.score:
			return -1
		case a.score < b.score:
			return 1
		}
		return notes.CompareTies(a.result, b.result)
	})
	// A note named by the query comes first, as in keyword search, and
	// its score says so: the score shown is the one the list is in order
	// of.
	for _, cand := range order {
		cand.result.Score = cand.score
	}
	notes.RankNamesFirst(order, func(c **candidate) *notes.Result { return &(*c).result })
	for _, cand := range order {
		cand.score = cand.result.Score
	}
	return order
}

// retrieve runs both retrievers at once: each waits on its own work (the
// full-text index, the vector scan), and on two processors the answer
// comes in the time of the slower. A semantic failure is put in semErr and
// leaves the keyword list alone.
func (c *Combined) retrieve(ctx context.Context, q CombinedQuery, semText string, depth int, semErr *error) (kw, sem []notes.Result, err error) {
	if c.semantic == nil {
		*semErr = vectors.ErrNoEmbedder
		kw, err = c.keyword(ctx, q.Text, q.Filter, depth)
		return kw, nil, err
	}
	var sErr error
	done := make(chan struct{})
	go func() {
		defer close(done)
		sem, sErr = c.semantic(ctx, semText, q.Filter, depth)
	}()
	kw, err = c.keyword(ctx, q.Text, q.Filter, depth)
	<-done
	switch {
	case err != nil:
		return nil, nil, err
	case errors.Is(sErr, notes.ErrEmptyQuery):
		return nil, nil, sErr
	case sErr != nil:
		if ctx.Err() != nil {
			return nil, nil, sErr
		}
		*semErr = sErr
		sem = nil
	}
	return kw, sem, nil
}

// NewCombinedOver returns combined search over keyword and semantic
// search themselves.
func NewCombinedOver(kw *fulltext.Keyword, sem *Semantic) *Combined {
	c := NewCombined(keywordCandidates(kw), sem.candidates)
	c.Kind = sem.Kind
	return c
}

// keywordCandidates is keyword search as combined search asks it.
func keywordCandidates(k *fulltext.Keyword) KeywordFunc {
	return func(ctx context.Context, text string, f notes.Filter, limit int) ([]notes.Result, error) {
		return k.Search(ctx, fulltext.KeywordQuery{Text: text, Filter: f, Limit: limit, Bare: true})
	}
}

// candidates is semantic search as combined search asks it: below the
// similarity floor too, those results marked.
func (s *Semantic) candidates(ctx context.Context, text string, f notes.Filter, limit int) ([]notes.Result, error) {
	return s.Search(ctx, SemanticQuery{Text: text, Filter: f, Limit: limit, evidence: true})
}

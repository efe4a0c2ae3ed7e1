package search

import (
	"context"
	"errors"
	"fmt"
	"slices"
)

// DegradedNoVectors is why combined search ranked by keywords alone when
// semantic search had no vectors. A server still loading them says so
// instead.
const DegradedNoVectors = "semantic search has no vectors yet (run `jarvis index`); ranked by keywords only"

// KeywordFunc runs a keyword search; combined search calls it for its
// keyword candidates.
type KeywordFunc func(ctx context.Context, text string, f Filter, limit int) ([]Result, error)

// SemanticFunc runs a semantic search. It returns ErrNoVectors when there
// is nothing to search, and combined search goes on with keywords alone.
type SemanticFunc func(ctx context.Context, text string, f Filter, limit int) ([]Result, error)

// LinkedFunc lists the notes a note links to or is linked from, as
// vault-relative paths in the same vault.
type LinkedFunc func(ctx context.Context, vault, path string) ([]string, error)

// Combined merges keyword and semantic results into one ranking. By
// default it sums each note's scores, each list's divided by its best
// (convex fusion); reciprocal-rank fusion is the alternative. Both were
// measured on Cranfield and the Obsidian Help query set
// (docs/benchmarks.md): with the lexical embedder, whose ranking agrees
// with keyword search more often than a neural one would, rank fusion let
// the weaker list pull good keyword hits down, while a light semantic
// weight in the score sum beat keyword search alone on both sets. Notes
// linked to the best hits can be lifted too (LinkBoost).
type Combined struct {
	keyword  KeywordFunc
	semantic SemanticFunc
	linked   LinkedFunc // nil: no link boost

	// KeywordWeight and SemanticWeight scale each retriever's fusion
	// terms.
	KeywordWeight, SemanticWeight float64
	// Convex, when set, fuses by a weighted sum of scores instead of
	// ranks: each list's scores are divided by its best score (BM25 and
	// cosine have different scales) and summed with KeywordWeight and
	// SemanticWeight.
	Convex bool
	// RRFK damps the weight of top ranks in the fusion: a note's fused
	// score is the sum over retrievers of 1/(RRFK + rank). 60 is the value
	// of the original paper and works across collections without tuning.
	RRFK float64
	// LinkBoost is added to a candidate for each of the top LinkSeeds
	// results it is linked with: as is in convex fusion, scaled like a
	// rank-1 term in rank fusion. A note that
	// the best hits link to is more likely what the user means among
	// candidates that scored alike. 0 turns the boost off.
	LinkBoost float64
	// LinkSeeds is how many of the best fused results spread the boost.
	LinkSeeds int
	// Depth is how many candidates each retriever contributes, as a
	// multiple of the limit.
	Depth int
}

// DefaultLinkBoost is off: on the Obsidian Help query set, whose notes
// link to each other densely, every boost tried moved answers down more
// often than up (0.02 took recall@5 from 0.833 to 0.817); Cranfield has no
// links. docs/benchmarks.md has the figures.
const DefaultLinkBoost = 0

// DefaultSemanticWeight is the weight of semantic scores against keyword
// scores (1) in convex fusion, the best of those measured.
const DefaultSemanticWeight = 0.3

// NewCombined returns combined search over the given retrievers. linked
// may be nil to turn the link boost off.
func NewCombined(keyword KeywordFunc, semantic SemanticFunc, linked LinkedFunc) *Combined {
	return &Combined{keyword: keyword, semantic: semantic, linked: linked,
		Convex: true, RRFK: 60, LinkBoost: DefaultLinkBoost, LinkSeeds: 3, Depth: 3,
		KeywordWeight: 1, SemanticWeight: DefaultSemanticWeight}
}

// CombinedQuery is one combined search.
type CombinedQuery struct {
	Text   string
	Filter Filter
	// Limit is the most notes returned; 10 when 0.
	Limit int
}

// Combined retriever names, as results report them in Retrievers.
const (
	RetrieverKeyword  = "keyword"
	RetrieverSemantic = "semantic"
	RetrieverLinks    = "links"
)

// Search runs both retrievers and fuses their results. When semantic
// search is unavailable it answers from keywords alone and says why in
// degraded; an error from keyword search is returned as is.
func (c *Combined) Search(ctx context.Context, q CombinedQuery) (results []Result, degraded string, err error) {
	var semErr error
	results, err = c.search(ctx, q, q.Text, &semErr)
	switch {
	case err != nil:
		return nil, "", err
	case c.semantic == nil:
		degraded = "no embedder configured; ranked by keywords only"
	case semErr != nil:
		degraded = DegradedNoVectors
		if !errors.Is(semErr, ErrNoVectors) {
			degraded = "semantic search failed; ranked by keywords only"
		}
	}
	return results, degraded, nil
}

// search fuses the keyword results for q with the semantic results for
// semText (the part of the query the embedder takes). When semantic search
// fails, its error is put in semErr and the keyword results alone are
// ranked.
func (c *Combined) search(ctx context.Context, q CombinedQuery, semText string, semErr *error) ([]Result, error) {
	if q.Limit <= 0 {
		q.Limit = 10
	}
	depth := max(q.Limit*max(c.Depth, 1), 30)
	kw, sem, err := c.retrieve(ctx, q, semText, depth, semErr)
	if err != nil {
		return nil, err
	}
	fused := c.fuse(kw, sem)
	if c.linked != nil && c.LinkBoost > 0 && len(fused) > 1 {
		if err := c.boostLinked(ctx, fused); err != nil {
			return nil, err
		}
	}
	slices.SortStableFunc(fused, func(a, b *candidate) int {
		switch {
		case a.score > b.score:
			return -1
		case a.score < b.score:
			return 1
		}
		return compareKeys(a.key, b.key)
	})
	out := make([]Result, 0, min(q.Limit, len(fused)))
	for _, f := range fused[:min(q.Limit, len(fused))] {
		r := f.result
		r.Score = f.score
		r.Retrievers = f.retrievers
		out = append(out, r)
	}
	return out, nil
}

type resultKey struct{ vault, path string }

func compareKeys(a, b resultKey) int {
	if a.vault != b.vault {
		if a.vault < b.vault {
			return -1
		}
		return 1
	}
	switch {
	case a.path < b.path:
		return -1
	case a.path > b.path:
		return 1
	}
	return 0
}

type candidate struct {
	key        resultKey
	result     Result
	score      float64
	retrievers []string
}

// fuse sums 1/(k + rank) over the lists each note appears in. The keyword
// result supplies the snippet when there is one: its matches are marked.
func (c *Combined) fuse(kw, sem []Result) []*candidate {
	byKey := map[resultKey]*candidate{}
	var order []*candidate
	add := func(list []Result, name string, w float64) {
		top := 0.0
		for _, r := range list {
			top = max(top, r.Score)
		}
		for rank, r := range list {
			k := resultKey{r.Vault, r.Path}
			cand := byKey[k]
			if cand == nil {
				cand = &candidate{key: k, result: r}
				byKey[k] = cand
				order = append(order, cand)
			}
			if c.Convex {
				if top > 0 {
					cand.score += w * max(r.Score, 0) / top
				}
			} else {
				cand.score += w / (c.RRFK + float64(rank+1))
			}
			cand.retrievers = append(cand.retrievers, name)
		}
	}
	add(kw, RetrieverKeyword, c.KeywordWeight)
	add(sem, RetrieverSemantic, c.SemanticWeight)
	return order
}

// boostLinked adds LinkBoost/(k+1) to each candidate for every one of the
// best LinkSeeds candidates it shares a link with, in either direction.
func (c *Combined) boostLinked(ctx context.Context, fused []*candidate) error {
	ranked := slices.Clone(fused)
	slices.SortStableFunc(ranked, func(a, b *candidate) int {
		switch {
		case a.score > b.score:
			return -1
		case a.score < b.score:
			return 1
		}
		return compareKeys(a.key, b.key)
	})
	byKey := map[resultKey]*candidate{}
	for _, f := range fused {
		byKey[f.key] = f
	}
	bonus := c.LinkBoost / (c.RRFK + 1)
	if c.Convex {
		bonus = c.LinkBoost
	}
	boosted := map[resultKey]bool{}
	for _, seed := range ranked[:min(c.LinkSeeds, len(ranked))] {
		paths, err := c.linked(ctx, seed.key.vault, seed.key.path)
		if err != nil {
			return fmt.Errorf("links of %s: %w", seed.key.path, err)
		}
		seen := map[string]bool{}
		for _, p := range paths {
			if seen[p] || p == seed.key.path {
				continue
			}
			seen[p] = true
			if cand := byKey[resultKey{seed.key.vault, p}]; cand != nil {
				cand.score += bonus
				if !boosted[cand.key] {
					boosted[cand.key] = true
					cand.retrievers = append(cand.retrievers, RetrieverLinks)
				}
			}
		}
	}
	return nil
}

// retrieve runs both retrievers at once: each waits on its own work (the
// full-text index, the vector scan), and on two processors the answer
// comes in the time of the slower. A semantic failure is put in semErr and
// leaves the keyword list alone.
func (c *Combined) retrieve(ctx context.Context, q CombinedQuery, semText string, depth int, semErr *error) (kw, sem []Result, err error) {
	if c.semantic == nil {
		*semErr = ErrNoEmbedder
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
	case errors.Is(sErr, ErrEmptyQuery):
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
// search themselves; linked may be nil to turn the link boost off.
func NewCombinedOver(kw *Keyword, sem *Semantic, linked LinkedFunc) *Combined {
	return NewCombined(kw.candidates, sem.candidates, linked)
}

// candidates is keyword search as combined search asks it.
func (k *Keyword) candidates(ctx context.Context, text string, f Filter, limit int) ([]Result, error) {
	return k.Search(ctx, KeywordQuery{Text: text, Filter: f, Limit: limit, Bare: true})
}

// candidates is semantic search as combined search asks it.
func (s *Semantic) candidates(ctx context.Context, text string, f Filter, limit int) ([]Result, error) {
	return s.Search(ctx, SemanticQuery{Text: text, Filter: f, Limit: limit})
}

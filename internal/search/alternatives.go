package search

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/jarvis-mcp/jarvis/internal/search/notes"
)

// A search may be given alternatives: other phrasings of the query, or
// keywords, that the caller (a model, over MCP) proposes because it knows
// words the notes may use and the query lacks. Each is searched as the
// query is, in the same mode and with the same filter, and the rankings
// are fused by fuseLists, the query's list weighing AlternativeWeight
// times more than each alternative's.

// MaxAlternatives and MaxAlternativeChars bound the alternatives of one
// search, in every door that takes them: a few phrasings, each a phrase or
// a sentence, not a document.
const (
	MaxAlternatives     = 5
	MaxAlternativeChars = 500
)

// AlternativeWeight is the weight of each alternative's ranking against
// the query's, which weighs 1: the query is what was asked, an
// alternative a guess at other words for it. Measured on the eval
// (docs/benchmarks.md, "Alternatives").
const AlternativeWeight = 0.5

// ErrAlternatives means the alternatives of a query are too many or one
// is too long; CheckAlternatives's error wraps it and says which.
var ErrAlternatives = errors.New("the alternatives cannot be searched")

// CheckAlternatives refuses more than MaxAlternatives alternatives, or one
// longer than MaxAlternativeChars.
func CheckAlternatives(alts []string) error {
	if len(alts) > MaxAlternatives {
		return fmt.Errorf("%w: %d were given and a search takes at most %d", ErrAlternatives, len(alts), MaxAlternatives)
	}
	for i, a := range alts {
		if n := utf8.RuneCountInString(a); n > MaxAlternativeChars {
			return fmt.Errorf("%w: alternative %d is %d characters long; keep each under %d", ErrAlternatives, i+1, n, MaxAlternativeChars)
		}
	}
	return nil
}

// AlternativeHits is what one alternative added to an answer.
type AlternativeHits struct {
	Text string `json:"text"`
	// Found is how many of the notes returned the alternative found.
	Found int `json:"found"`
	// Added is how many of those the query itself did not find.
	Added int `json:"added"`
}

// Said says what the alternative added to the results shown, in the words
// of every answer that reports it (the tools' text, jarvis search).
func (h AlternativeHits) Said() string {
	switch {
	case h.Found == 0:
		return "found none of these notes"
	case h.Added == 0:
		return fmt.Sprintf("found %d of these notes, which the query found too", h.Found)
	}
	return fmt.Sprintf("found %d of these notes, %d of them missed by the query alone", h.Found, h.Added)
}

// distinctAlternatives are the alternatives worth searching: trimmed,
// without blank ones and without any that repeats the query or an earlier
// alternative (ignoring case).
func distinctAlternatives(query string, alts []string) []string {
	seen := []string{strings.ToLower(query)}
	var out []string
	for _, a := range alts {
		a = strings.TrimSpace(a)
		if a == "" || slices.Contains(seen, strings.ToLower(a)) {
			continue
		}
		seen = append(seen, strings.ToLower(a))
		out = append(out, a)
	}
	return out
}

// withAlternatives runs q and each of alts in q's mode, each for as many
// candidates as combined search takes from a retriever, and fuses the
// rankings. The answer is the query's own (its degradation, notes,
// embedder), with the fused results and what each alternative added
// among the first q.Limit of them.
func (s *Service) withAlternatives(ctx context.Context, q Query, alts []string) (Answer, error) {
	depth := max(DefaultCandidates, probe(q.Limit))
	texts := append([]string{q.Text}, alts...)
	lists := make([]*rankedList, 0, len(texts))
	var main Answer
	for i, text := range texts {
		sub := q
		sub.Text, sub.Limit, sub.noSnippets = text, depth, true
		a, err := s.run(ctx, sub)
		if i > 0 && errors.Is(err, notes.ErrEmptyQuery) {
			continue // an alternative of stop words alone finds nothing
		}
		if err != nil {
			return Answer{}, err
		}
		weight := 1.0
		if i == 0 {
			main = a
		} else {
			weight = AlternativeWeight
			for j := range a.Results {
				// Only the query's own words put a note first by its name.
				a.Results[j].ExactName = false
			}
		}
		lists = append(lists, &rankedList{results: a.Results, name: strconv.Itoa(i), weight: weight})
	}
	fused := fuseLists(lists)
	res := make([]notes.Result, len(fused))
	for i, c := range fused {
		res[i] = c.result
		res[i].Score = c.score
	}
	shown := fused[:min(q.Limit, len(fused))]
	if q.Mode == ModeCombined && !q.noSnippets {
		if err := s.fusedPassages(ctx, texts, shown, res); err != nil {
			if stop(ctx, err) {
				return Answer{}, err
			}
			s.log.Warn("read keyword passages", "err", err)
		}
	}
	main.Results = res
	for i, text := range alts {
		h := AlternativeHits{Text: text}
		name := strconv.Itoa(i + 1)
		for _, c := range shown {
			if slices.Contains(c.retrievers, name) {
				h.Found++
				if !slices.Contains(c.retrievers, "0") {
					h.Added++
				}
			}
		}
		main.Alternatives = append(main.Alternatives, h)
	}
	return main, nil
}

// fusedPassages reads the keyword passages of the combined results shown,
// each by the words of the query or alternative whose list supplied it, so
// that its marked matches are the words that found it.
func (s *Service) fusedPassages(ctx context.Context, texts []string, shown []*candidate, res []notes.Result) error {
	for i, text := range texts {
		name := strconv.Itoa(i)
		var mine []notes.Result
		var at []int
		for j, c := range shown {
			if c.listed[0] == name {
				mine = append(mine, res[j])
				at = append(at, j)
			}
		}
		if len(mine) == 0 {
			continue
		}
		if err := s.keywordPassages(ctx, Query{Text: text, Limit: len(mine)}, mine); err != nil {
			return err
		}
		for k, j := range at {
			res[j] = mine[k]
		}
	}
	return nil
}

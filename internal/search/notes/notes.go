// Package notes holds what every search shares: the Filter that says
// which notes a search may return, resolved once against the index, and
// the Result, one note found, with the heading path of its passage.
package notes

import (
	"cmp"
	"context"
	"database/sql"
	"errors"
	"slices"

	"github.com/jarvis-mcp/jarvis/internal/vault"
)

// ErrEmptyQuery means the query has no text to search for. Every kind of
// search returns it, so callers can ask for a query once.
var ErrEmptyQuery = errors.New("the query is empty")

// Result is one note found by a search, with the passage that matched best.
// Vault and Path are enough to read the note.
type Result struct {
	Vault string  `json:"vault"`
	Path  string  `json:"path"`
	Title string  `json:"title"`
	Score float64 `json:"score"`
	// Snippet is the best passage, with matched terms marked by ** for
	// keyword hits.
	Snippet string `json:"snippet"`
	// Heading is the heading path the passage starts under ("A > B"), a
	// value read-note's heading argument takes; empty before the first
	// heading.
	Heading string `json:"heading"`
	// Line is the 1-based line where the passage starts.
	Line int `json:"line"`
	// End is the passage's last line when known (0 when not), and Then
	// the headings of the later sections it runs into by then: a passage
	// that starts under one heading can hold the next, deeper one.
	End  int      `json:"-"`
	Then []string `json:"-"`
	// Retrievers names the searches that found the note ("keyword",
	// "semantic"); set by combined search.
	Retrievers []string `json:"retrievers,omitempty"`

	// File is the note's id in the index, so that a later step (the
	// passages of combined results) need not look it up; 0 when unknown.
	File int64 `json:"-"`
	// BelowFloor marks a semantic result less similar than the floor,
	// returned only as evidence for combined search.
	BelowFloor bool `json:"-"`
	// ExactName marks a keyword result whose title or an alias is the
	// query itself: it comes first in every mode that finds it by keyword.
	ExactName bool `json:"-"`
}

// HeadingLabel is the passage's sections as printed for a person or a
// model: "Silas Crowe, then Secrets" for one that runs into a later
// section (see vault.PassageSections.Label).
func (r Result) HeadingLabel() string {
	return vault.PassageSections{Path: r.Heading, Then: r.Then}.Label()
}

// Querier is what searches need of the database. *sql.DB, *sql.Conn,
// *sql.Tx and *store.DB all have it, and a test can pass any of them.
type Querier interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
}

// ExactFirst orders a result whose title or alias is the query before one
// whose is not, and leaves the rest to the caller's order.
func ExactFirst(a, b Result) int {
	switch {
	case a.ExactName && !b.ExactName:
		return -1
	case b.ExactName && !a.ExactName:
		return 1
	}
	return 0
}

// RankNamesFirst puts the results named by the query (ExactName) ahead of
// the others, keeping the order within each group, and raises the score of
// a named result that scores below the best of the others to that score:
// the name that puts a note first shows in its score, and the scores of a
// ranking never rise down the list. Every ranking that puts names first
// (keyword search, the fusion of combined search) does it here; result
// gives the Result of an item.
func RankNamesFirst[T any](items []T, result func(*T) *Result) {
	slices.SortStableFunc(items, func(a, b T) int { return ExactFirst(*result(&a), *result(&b)) })
	best, found := 0.0, false
	for i := range items {
		if r := result(&items[i]); !r.ExactName && (!found || r.Score > best) {
			best, found = r.Score, true
		}
	}
	for i := range items {
		if r := result(&items[i]); r.ExactName && found && r.Score < best {
			r.Score = best
		}
	}
}

// CompareTies orders two results that rank equal: by vault, then path,
// then the line of the passage. It is the one tie-break of every answer,
// in every mode; it reads nothing the index assigns (row ids follow the
// order notes were first indexed in, so ties broken by them come back in
// another order after an incremental index than after a rebuild).
func CompareTies(a, b Result) int {
	return cmp.Or(cmp.Compare(a.Vault, b.Vault), cmp.Compare(a.Path, b.Path), cmp.Compare(a.Line, b.Line))
}

// BreakTies orders each run of results that rank equal (the same score,
// and both or neither named by the query) by CompareTies, leaving the
// order of the runs as the search ranked them.
func BreakTies(rs []Result) {
	for i := 0; i < len(rs); {
		j := i + 1
		for j < len(rs) && rs[j].Score == rs[i].Score && rs[j].ExactName == rs[i].ExactName {
			j++
		}
		slices.SortStableFunc(rs[i:j], CompareTies)
		i = j
	}
}

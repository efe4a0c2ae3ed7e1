// Package search finds notes: keyword search over SQLite FTS5, semantic
// search over the chunk vectors of package vectors, and a combined ranking
// of both. Every kind returns the same Result, one per note, best passage
// first.
package search

import (
	"errors"
	"strconv"
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
	// Heading is the heading path of the passage ("A > B"); empty before the
	// first heading.
	Heading string `json:"heading"`
	// Line is the 1-based line where the passage starts.
	Line int `json:"line"`
	// Retrievers names the searches that found the note ("keyword",
	// "semantic"); set by combined search.
	Retrievers []string `json:"retrievers,omitempty"`

	// file is the note's id in the index, so that a later step (the
	// passages of combined results) need not look it up; 0 when unknown.
	file int64
	// belowFloor marks a semantic result less similar than the floor,
	// returned only as evidence for combined search.
	belowFloor bool
	// exactName marks a keyword result whose title or an alias is the
	// query itself: it comes first in every mode that finds it by keyword.
	exactName bool
}

// FormatScore writes a score for reading: 12.35, 0.456, 2.1e-05. A match
// never reads as 0.000, however small its score.
func FormatScore(x float64) string {
	switch {
	case x >= 1 || x <= -1:
		return strconv.FormatFloat(x, 'f', 2, 64)
	case x >= 0.001 || x <= -0.001:
		return strconv.FormatFloat(x, 'f', 3, 64)
	case x == 0:
		return "0"
	}
	return strconv.FormatFloat(x, 'g', 2, 64)
}

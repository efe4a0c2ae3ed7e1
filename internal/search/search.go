// Package search finds notes: keyword search over SQLite FTS5, semantic
// search over chromem-go vectors, and a combined ranking of both. Every
// kind returns the same Result, one per note, best passage first.
package search

import "errors"

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
	// "semantic", "graph"); set by combined search.
	Retrievers []string `json:"retrievers,omitempty"`
}

// Filter narrows a search. Zero values mean no restriction.
type Filter struct {
	// Vault is a vault name; empty searches every vault in Vaults.
	Vault string
	// Vaults are the vaults a search without Vault may look in: those the
	// caller serves. A database can hold vaults indexed by other runs;
	// empty means every vault in it.
	Vaults []string
	// PathPrefix keeps notes whose vault-relative path starts with it
	// ("Projects/" or "Projects").
	PathPrefix string
	// Tag keeps notes carrying the tag or one nested under it ("project"
	// keeps "#project/alpha"), written with or without '#'.
	Tag string
}

// scope is the vaults a filter allows, nil for every vault.
func (f Filter) scope() []string {
	if f.Vault != "" {
		return []string{f.Vault}
	}
	return f.Vaults
}

package index

import "time"

// State is how far keeping the index current has got: what the server's
// tools report with every answer, and list-vaults in full.
type State struct {
	// State is StateReady, StateIndexing, StateFailed or StateUnavailable.
	State string `json:"state"`
	// Done and Total count the files of the current run.
	Done  int `json:"done,omitempty"`
	Total int `json:"total,omitempty"`
	// Vault is the vault being indexed.
	Vault string `json:"vault,omitempty"`
	// Error says why the last run failed.
	Error string `json:"error,omitempty"`
	// LastIndexed is when the last run finished.
	LastIndexed time.Time `json:"last_indexed,omitzero"`
}

// The states of the index.
const (
	StateReady       = "ready"
	StateIndexing    = "indexing"
	StateFailed      = "failed"
	StateUnavailable = "unavailable"
)

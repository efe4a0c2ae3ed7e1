package index

import (
	"maps"
	"slices"
	"time"
)

// State is how far keeping the index current has got: what the server's
// tools report with every answer, and list-vaults in full.
type State struct {
	// State is StateReady, StateIndexing, StateFailed or StateUnavailable.
	State string `json:"state"`
	// Phase is the stage of the current run; Done and Total count the
	// notes and attachments it writes (PhaseWrite), as Progress is told
	// them.
	Phase Phase  `json:"phase,omitempty"`
	Done  Counts `json:"done,omitzero"`
	Total Counts `json:"total,omitzero"`
	// Vault is the vault being indexed, and Next the vaults the run
	// indexes after it, in turn.
	Vault string   `json:"vault,omitempty"`
	Next  []string `json:"next,omitempty"`
	// Error says why the last run failed.
	Error string `json:"error,omitempty"`
	// Failed holds, by vault name, why the last run failed to index a
	// vault, in words for a reader; the other vaults were indexed.
	Failed map[string]string `json:"failed,omitempty"`
	// LastIndexed is when the last run finished.
	LastIndexed time.Time `json:"last_indexed,omitzero"`
	// Embedding is how far making vectors for semantic search has got; it
	// runs after indexing, in the background while the server answers.
	Embedding Embedding `json:"embedding,omitzero"`
	// Unwatched holds, by vault name, why changes to a vault's notes are
	// not seen now (its folder is gone); answers may then miss changes
	// made since. Empty while the watcher sees every vault, or does not
	// run.
	Unwatched map[string]string `json:"unwatched,omitempty"`
	// Served is how many vaults the server answers for, for the words
	// that differ with one vault or several; 0 when not known.
	Served int `json:"-"`
}

// Embedding is the progress of making vectors for semantic search.
type Embedding struct {
	// State is EmbedRunning, EmbedDone or EmbedFailed; empty before the
	// first sync.
	State string `json:"state,omitempty"`
	// Done and Total count the distinct passages this run embeds.
	Done  int `json:"done,omitempty"`
	Total int `json:"total,omitempty"`
	// PerSecond is the measured throughput, texts a second.
	PerSecond float64 `json:"per_second,omitempty"`
	// ETASeconds is the time left at that rate.
	ETASeconds int `json:"eta_seconds,omitempty"`
	// Error says why the last sync failed.
	Error string `json:"error,omitempty"`
}

// Passages says how far e has got, in the words of Counts.Of: "5 of 40
// passages".
func (e Embedding) Passages() string {
	return Counts{Passages: e.Done}.Of(Counts{Passages: e.Total})
}

// Making reports whether vectors are being made now: a sync is under way
// and has counted passages it still has to embed. A sync that is still
// counting, or that finds every passage with its vector, makes none and
// is not said to.
func (e Embedding) Making() bool {
	return e.State == EmbedRunning && e.Total > 0 && e.Done < e.Total
}

// The states of embedding.
const (
	EmbedRunning = "embedding"
	EmbedDone    = "done"
	EmbedFailed  = "failed"
)

// The states of the index.
const (
	StateReady       = "ready"
	StateIndexing    = "indexing"
	StateFailed      = "failed"
	StateUnavailable = "unavailable"
)

// For is s as an answer over the vaults named sees it (every vault when
// none is named): what the index run does and did with other vaults is
// left out. A run under way over another vault is the answer's only while
// one of those named waits for it (Next); a failure, or a folder not
// watched, of another vault is not the answer's at all.
func (s State) For(names ...string) State {
	if len(names) == 0 {
		return s
	}
	named := func(name string) bool { return slices.Contains(names, name) }
	s.Next = slices.DeleteFunc(slices.Clone(s.Next), func(n string) bool { return !named(n) })
	if len(s.Next) == 0 {
		s.Next = nil
	}
	if s.State == StateIndexing && s.Vault != "" && !named(s.Vault) && len(s.Next) == 0 {
		// The run came to these vaults before this one, or indexes
		// another alone: what it does now changes nothing searched.
		s.State, s.Vault, s.Phase, s.Done, s.Total = StateReady, "", "", Counts{}, Counts{}
	}
	if len(s.Failed) > 0 {
		s.Failed = maps.Clone(s.Failed)
		maps.DeleteFunc(s.Failed, func(n, _ string) bool { return !named(n) })
		if len(s.Failed) == 0 {
			s.Failed = nil
			if s.State == StateFailed {
				s.State, s.Error = StateReady, ""
			}
		}
	}
	if len(s.Unwatched) > 0 {
		s.Unwatched = maps.Clone(s.Unwatched)
		maps.DeleteFunc(s.Unwatched, func(n, _ string) bool { return !named(n) })
		if len(s.Unwatched) == 0 {
			s.Unwatched = nil
		}
	}
	return s
}

// FailedFor says why the last run failed to index the vault named, and
// whether it did; a failure not pinned to a vault is every vault's.
func (s State) FailedFor(name string) (why string, failed bool) {
	if s.State != StateFailed {
		return "", false
	}
	if len(s.Failed) == 0 {
		return s.Error, true
	}
	why, failed = s.Failed[name]
	return why, failed
}

// Busy reports whether the index is being brought up to date or its
// vectors made: vectors may then not be loaded yet, nor every note
// indexed.
func (s State) Busy() bool {
	return s.State == StateIndexing || s.Embedding.State == EmbedRunning
}

package mcp

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/jarvis-mcp/jarvis/internal/config"
	"github.com/jarvis-mcp/jarvis/internal/contextpack"
	"github.com/jarvis-mcp/jarvis/internal/graph"
	"github.com/jarvis-mcp/jarvis/internal/health"
	"github.com/jarvis-mcp/jarvis/internal/index"
	"github.com/jarvis-mcp/jarvis/internal/metrics"
	"github.com/jarvis-mcp/jarvis/internal/related"
	"github.com/jarvis-mcp/jarvis/internal/search"
	"github.com/jarvis-mcp/jarvis/internal/vault"
)

// The services the tools use, each declared here as the tools use it and
// no wider. internal/container provides each with fx.As; tests give fakes.
// A tool is built from the services it needs (see Tool), and a service it
// was not given, or one that answers ErrUnavailable, makes it fall back by
// the one rule of fallback.

// KeywordSearch is full-text search with its filters and fallbacks
// (search-vault).
type KeywordSearch interface {
	Keyword(ctx context.Context, q search.Query) (search.Answer, error)
}

// SemanticSearch is search by the embedder's closeness, alone or fused
// with keyword search (search-semantic, search-combined), and what list-
// vaults says of it.
type SemanticSearch interface {
	Semantic(ctx context.Context, q search.Query) (search.Answer, error)
	Combined(ctx context.Context, q search.Query) (search.Answer, error)
	// Embedder is the fingerprint of the embedder in use, "" when none.
	Embedder() string
	// VectorStores names, by vault, the store that serves its vectors.
	VectorStores() map[string]string
	// VectorsAbsent says why vectors that are stored are not searched:
	// being read into memory, or unreadable (search.VectorsAbsent); ""
	// when neither.
	VectorsAbsent() (why string, stored bool)
	// Unreadable says why the latest keyword search could not read the
	// index and scanned the note files instead; "" when it could.
	Unreadable() string
}

// LinkGraph is the index's link graph (search-graph, read-note).
type LinkGraph interface {
	FindNote(ctx context.Context, vault, ref string) (graph.Match, error)
	Traverse(ctx context.Context, q graph.Query) (*graph.Subgraph, error)
	// BacklinksUpTo is at most limit links to a note from other notes,
	// and how many there are.
	BacklinksUpTo(ctx context.Context, vault, path string, limit int) (graph.BacklinkPage, error)
	Outlinks(ctx context.Context, vault, path string) ([]graph.Edge, error)
}

// NoteParser reads a note's headings, links, tags and frontmatter from its
// text, so read-note works without the database.
type NoteParser interface {
	Parse(ctx context.Context, path string, src []byte) (vault.Note, error)
}

// StoredNotes gives a note as the index stored it when the index read the
// very content whose SHA-256 is hash (hex), so that read-note does not
// parse a note the index already parsed.
type StoredNotes interface {
	StoredNote(ctx context.Context, vault, path, hash string) (vault.Note, bool, error)
}

// Notes lists the indexed notes of the served vaults (the resource list).
type Notes interface {
	List(ctx context.Context, after index.NoteName, n int) ([]index.NoteName, error)
}

// Vaults reads what the index holds of each served vault (list-vaults).
type Vaults interface {
	Stats(ctx context.Context) ([]index.VaultStats, error)
	// Outline is at most folders folders and tags tags of a vault, with
	// their note counts.
	Outline(ctx context.Context, vault string, folders, tags int) (index.Outline, error)
}

// Health runs every doctor check (health-status).
type Health interface {
	Report(ctx context.Context) health.Report
}

// ContextPack gathers the passages that best answer a query into a budget
// of tokens (build-context).
type ContextPack interface {
	Build(ctx context.Context, r contextpack.Request) (contextpack.Pack, error)
}

// RelatedNotes finds the notes related to one note, the links it could
// make and its unlinked mentions (related-notes).
type RelatedNotes interface {
	Find(ctx context.Context, q related.Query) (related.Answer, error)
}

// IndexState says how fresh the index is; every answer carries it.
type IndexState interface {
	State() index.State
}

// Metrics times every tool call; health-status reports what it holds.
type Metrics interface {
	Observe(tool string, took time.Duration, failed bool)
	Tools() []metrics.Tool
}

// ErrUnavailable marks a service that cannot answer now: it was not
// provided, could not be built, or what it reads (the database) cannot be
// opened. Tools answer from their fallback and say why.
var ErrUnavailable = errors.New("unavailable")

// Unavailable is the error of a service that cannot answer, with why.
func Unavailable(service, reason string) error {
	return &unavailableError{service: service, reason: reason}
}

type unavailableError struct{ service, reason string }

func (e *unavailableError) Error() string {
	if e.reason == "" {
		return e.service + " is not available"
	}
	return e.service + " is not available: " + e.reason
}

func (e *unavailableError) Is(target error) bool { return target == ErrUnavailable }

// use calls f with svc, or answers Unavailable when the tool was built
// without the service.
func use[S, R any](svc S, name string, f func(S) (R, error)) (R, error) {
	if any(svc) == nil {
		var zero R
		return zero, Unavailable(name, "not provided to this server")
	}
	return f(svc)
}

// Degradation is what every answer says of a fallback: whether it is less
// than the tool promises, and why. Output types embed it, so the two
// fields are named and described once.
type Degradation struct {
	Degraded       bool   `json:"degraded" jsonschema:"true when part of jarvis was unavailable and the answer came from a fallback"`
	DegradedReason string `json:"degraded_reason,omitempty" jsonschema:"what was unavailable and what was used instead"`
}

// degrade marks the answer as a fallback; reasons add up.
func (d *Degradation) degrade(reason string) {
	d.Degraded = true
	if d.DegradedReason == "" {
		d.DegradedReason = reason
	} else if reason != "" {
		d.DegradedReason += "; " + reason
	}
}

// line is the answer text's sentence about the fallback, "" when none.
func (d Degradation) line() string {
	if !d.Degraded {
		return ""
	}
	return fmt.Sprintf("\n> Degraded: %s.\n", d.DegradedReason)
}

// fallback is the one rule by which a tool reads a service's failure. It
// returns a non-nil error when the tool must stop with it (the call was
// cancelled), and otherwise why the tool answers from its fallback
// instead, worded for degraded_reason:
//   - a service that is unavailable (not provided, not built, its
//     database not open) says so with its reason;
//   - a note the index does not hold yet (graph.ErrNoteNotFound for a
//     note the tool found on disk) is "not indexed yet", whether the first
//     index is still running or a change has not been read yet;
//   - any other failure is logged and reported as the service having
//     failed, with health-status to say why.
//
// Errors the model can act on (a bad argument, a note that exists nowhere)
// are for the tool to turn into tool errors before it asks this.
func (t *tools) fallback(ctx context.Context, what string, err error) (string, error) {
	if ctx.Err() != nil {
		return "", ctx.Err()
	}
	switch {
	case errors.Is(err, graph.ErrNoteNotFound):
		if st := t.state(""); st.State == index.StateIndexing {
			return "the note is not indexed yet: " + strings.Join(t.unready(ctx, st.Vault, st).For(0), "; "), nil
		}
		return "the note is not indexed yet (it changed since the last index run)", nil
	case errors.Is(err, ErrUnavailable):
		var u *unavailableError
		if errors.As(err, &u) && u.reason != "" {
			return fmt.Sprintf("%s is unavailable (%s)", what, u.reason), nil
		}
		return what + " is unavailable", nil
	}
	t.log.Warn(what+" failed; answering from the fallback", "err", err)
	return what + " could not be read; health-status says why", nil
}

// unready is what index.Explain says of the vaults a lookup covers (the
// one named, or every one) from their folders and the index's state st:
// a tool that finds no note says why when the reason may not be the name
// it was given.
func (t *tools) unready(ctx context.Context, vaultName string, st index.State) index.Unready {
	var vs []config.Vault
	for _, v := range t.vaults {
		if vaultName == "" || v.Name == vaultName {
			vs = append(vs, v)
		}
	}
	covs := index.Cover(ctx, nil, vs)
	if t.stats != nil {
		// What the index holds decides: a vault indexed by an earlier
		// run is searched whole while this server's first pass runs,
		// not "not indexed yet".
		if stats, err := t.stats.Stats(ctx); err == nil {
			covs = index.CoverStats(vs, stats)
		}
	}
	return index.Explain(covs, st, nil)
}

package mcp_test

import (
	"context"
	"time"

	mcpsdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/jarvis-mcp/jarvis/internal/config"
	"github.com/jarvis-mcp/jarvis/internal/container"
	"github.com/jarvis-mcp/jarvis/internal/contextpack"
	"github.com/jarvis-mcp/jarvis/internal/graph"
	"github.com/jarvis-mcp/jarvis/internal/health"
	"github.com/jarvis-mcp/jarvis/internal/index"
	"github.com/jarvis-mcp/jarvis/internal/mcp"
	"github.com/jarvis-mcp/jarvis/internal/metrics"
	"github.com/jarvis-mcp/jarvis/internal/related"
	"github.com/jarvis-mcp/jarvis/internal/search"
	"github.com/jarvis-mcp/jarvis/internal/vault"
)

// backend is what a test serves: the services of `jarvis mcp` (real) or
// closures standing in for them (fake).
type backend interface {
	server(opts mcp.Options) *mcpsdk.Server
}

// real is the server as `jarvis mcp` builds it.
type real struct{ deps container.MCPDeps }

func (r real) server(opts mcp.Options) *mcpsdk.Server {
	opts.Vaults, opts.State, opts.Metrics = r.deps.Cfg.Vaults, r.deps.State, r.deps.Metrics
	return mcp.New(r.deps.Tools, r.deps.Resources, opts)
}

// searchFunc answers every mode of search.
type searchFunc = func(ctx context.Context, q search.Query) (search.Answer, error)

// fake is a server's services as closures. A nil field is a service the
// tools are built without, which they must fall back from.
type fake struct {
	Vaults   []config.Vault
	Search   searchFunc
	Embedder func() string
	// VectorsAbsent is why stored vectors are not searched
	// (search.VectorsAbsent); none when nil.
	VectorsAbsent func() (string, bool)
	// VectorStores names each vault's store of vectors in memory; none
	// when nil.
	VectorStores func() map[string]string

	FindNote  func(ctx context.Context, vault, ref string) (graph.Match, error)
	Traverse  func(ctx context.Context, q graph.Query) (*graph.Subgraph, error)
	Backlinks func(ctx context.Context, vault, path string, limit int) (graph.BacklinkPage, error)
	Outlinks  func(ctx context.Context, vault, path string) ([]graph.Edge, error)

	Related      func(ctx context.Context, q related.Query) (related.Answer, error)
	Stats        func(ctx context.Context) ([]index.VaultStats, error)
	Notes        func(ctx context.Context, after index.NoteName, n int) ([]index.NoteName, error)
	Health       func(ctx context.Context) health.Report
	State        func() index.State
	BuildContext func(ctx context.Context, r contextpack.Request) (contextpack.Pack, error)
	Parse        func(ctx context.Context, path string, src []byte) (vault.Note, error)
	StoredNote   func(ctx context.Context, vault, path, hash string) (vault.Note, bool, error)
	Metrics      *metrics.Recorder
	// Now is the clock of periodic-note; the real one when nil.
	Now func() time.Time
	// Files are the vault files query-notes reads.
	Files mcp.VaultFiles
}

func (f *fake) server(opts mcp.Options) *mcpsdk.Server {
	opts.Vaults = f.Vaults
	if f.State != nil {
		opts.State = stateFunc(f.State)
	}
	if f.Metrics != nil {
		opts.Metrics = f.Metrics
	}
	var (
		kw   mcp.KeywordSearch
		sem  mcp.SemanticSearch
		g    mcp.LinkGraph
		p    mcp.NoteParser
		sn   mcp.StoredNotes
		rel  mcp.RelatedNotes
		pack mcp.ContextPack
		st   mcp.Vaults
		h    mcp.Health
		ns   mcp.Notes
	)
	if f.Search != nil {
		kw, sem = fakeSearch{f}, fakeSearch{f}
	}
	if f.FindNote != nil || f.Traverse != nil || f.Backlinks != nil || f.Outlinks != nil {
		g = fakeGraph{f}
	}
	if f.Parse != nil {
		p = parseFunc(f.Parse)
	}
	if f.StoredNote != nil {
		sn = storedFunc(f.StoredNote)
	}
	if f.Related != nil {
		rel = relatedFunc(f.Related)
	}
	if f.BuildContext != nil {
		pack = packFunc(f.BuildContext)
	}
	if f.Stats != nil {
		st = statsFunc(f.Stats)
	}
	if f.Health != nil {
		h = healthFunc(f.Health)
	}
	if f.Notes != nil {
		ns = notesFunc(f.Notes)
	}
	tools := []mcp.Tool{
		mcp.SearchVaultTool(kw), mcp.SearchSemanticTool(sem), mcp.SearchCombinedTool(sem),
		mcp.SearchGraphTool(g, p), mcp.ReadNoteTool(g, p, sn), mcp.PeriodicNoteTool(p, sn, f.Now, nil), mcp.QueryNotesTool(f.Files, f.Now), mcp.RelatedNotesTool(rel, g),
		mcp.BuildContextTool(pack), mcp.ListVaultsTool(st, sem), mcp.HealthStatusTool(h, sem),
	}
	return mcp.New(tools, mcp.NoteResources(ns, st, sem), opts)
}

type fakeSearch struct{ f *fake }

func (s fakeSearch) Keyword(ctx context.Context, q search.Query) (search.Answer, error) {
	q.Mode = search.ModeKeyword
	return s.f.Search(ctx, q)
}

func (s fakeSearch) Semantic(ctx context.Context, q search.Query) (search.Answer, error) {
	q.Mode = search.ModeSemantic
	return s.f.Search(ctx, q)
}

func (s fakeSearch) Combined(ctx context.Context, q search.Query) (search.Answer, error) {
	q.Mode = search.ModeCombined
	return s.f.Search(ctx, q)
}

func (s fakeSearch) Embedder() string {
	if s.f.Embedder == nil {
		return ""
	}
	return s.f.Embedder()
}

func (s fakeSearch) VectorStores() map[string]string {
	if s.f.VectorStores == nil {
		return nil
	}
	return s.f.VectorStores()
}

func (s fakeSearch) Unreadable() string { return "" }

func (s fakeSearch) VectorsAbsent() (string, bool) {
	if s.f.VectorsAbsent == nil {
		return "", false
	}
	return s.f.VectorsAbsent()
}

type fakeGraph struct{ f *fake }

func (g fakeGraph) FindNote(ctx context.Context, vault, ref string) (graph.Match, error) {
	if g.f.FindNote == nil {
		return graph.Match{}, mcp.Unavailable("the fake graph", "no FindNote")
	}
	return g.f.FindNote(ctx, vault, ref)
}

func (g fakeGraph) Traverse(ctx context.Context, q graph.Query) (*graph.Subgraph, error) {
	if g.f.Traverse == nil {
		return nil, mcp.Unavailable("the fake graph", "no Traverse")
	}
	return g.f.Traverse(ctx, q)
}

func (g fakeGraph) BacklinksUpTo(ctx context.Context, vault, path string, limit int) (graph.BacklinkPage, error) {
	if g.f.Backlinks == nil {
		return graph.BacklinkPage{}, mcp.Unavailable("the fake graph", "no Backlinks")
	}
	return g.f.Backlinks(ctx, vault, path, limit)
}

func (g fakeGraph) Outlinks(ctx context.Context, vault, path string) ([]graph.Edge, error) {
	if g.f.Outlinks == nil {
		return nil, mcp.Unavailable("the fake graph", "no Outlinks")
	}
	return g.f.Outlinks(ctx, vault, path)
}

type stateFunc func() index.State

func (f stateFunc) State() index.State { return f() }

type storedFunc func(ctx context.Context, vault, path, hash string) (vault.Note, bool, error)

func (f storedFunc) StoredNote(ctx context.Context, vault, path, hash string) (vault.Note, bool, error) {
	return f(ctx, vault, path, hash)
}

type parseFunc func(ctx context.Context, path string, src []byte) (vault.Note, error)

func (f parseFunc) Parse(ctx context.Context, path string, src []byte) (vault.Note, error) {
	return f(ctx, path, src)
}

type relatedFunc func(ctx context.Context, q related.Query) (related.Answer, error)

func (f relatedFunc) Find(ctx context.Context, q related.Query) (related.Answer, error) {
	return f(ctx, q)
}

type packFunc func(ctx context.Context, r contextpack.Request) (contextpack.Pack, error)

func (f packFunc) Build(ctx context.Context, r contextpack.Request) (contextpack.Pack, error) {
	return f(ctx, r)
}

type statsFunc func(ctx context.Context) ([]index.VaultStats, error)

func (f statsFunc) Stats(ctx context.Context) ([]index.VaultStats, error) { return f(ctx) }

// Outline of a fake vault: no folders, no tags.
func (f statsFunc) Outline(context.Context, string, int, int) (index.Outline, error) {
	return index.Outline{}, nil
}

type healthFunc func(ctx context.Context) health.Report

func (f healthFunc) Report(ctx context.Context) health.Report { return f(ctx) }

type notesFunc func(ctx context.Context, after index.NoteName, n int) ([]index.NoteName, error)

func (f notesFunc) List(ctx context.Context, after index.NoteName, n int) ([]index.NoteName, error) {
	return f(ctx, after, n)
}

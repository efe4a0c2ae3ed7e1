package container

import (
	"context"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"go.uber.org/fx"

	"github.com/jarvis-mcp/jarvis/internal/config"
	"github.com/jarvis-mcp/jarvis/internal/graph"
	"github.com/jarvis-mcp/jarvis/internal/health"
	"github.com/jarvis-mcp/jarvis/internal/index"
	"github.com/jarvis-mcp/jarvis/internal/live"
	"github.com/jarvis-mcp/jarvis/internal/mcp"
	"github.com/jarvis-mcp/jarvis/internal/search"
	"github.com/jarvis-mcp/jarvis/internal/store"
	"github.com/jarvis-mcp/jarvis/internal/vault"
)

// services are the database-backed services of the server, built on first
// use: the server must start, and answer what it can from the files, even
// when the database cannot be opened. A failed open is retried on the next
// call, so a database fixed while the server runs is picked up.
type services struct {
	h      *store.Handle
	src    search.EmbedderSource
	log    *slog.Logger
	vaults []string // the vaults served; the database may hold others

	mu       sync.Mutex
	ready    bool
	db       *store.DB
	indexer  *index.Indexer
	vectors  *search.Vectors
	keyword  *search.Keyword
	semantic *search.Semantic
	combined *search.Combined
	graph    *graph.Graph
}

func (s *services) get(ctx context.Context) (*services, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.ready {
		return s, nil
	}
	db, err := s.h.DB(ctx)
	if err != nil {
		return nil, fmt.Errorf("the index is unavailable: %w", err)
	}
	s.db = db
	s.indexer = index.New(db, vault.NewParser(), s.log)
	s.vectors = search.NewVectors(db, s.src, s.log)
	s.vectors.Serve()
	s.keyword = search.NewKeyword(db)
	s.semantic = search.NewSemantic(s.vectors, db)
	s.graph = graph.New(db).Within(s.vaults)
	s.combined = newCombined(s.keyword, s.semantic, s.graph)
	s.ready = true
	return s, nil
}

// MCPDeps is what `jarvis mcp` works with.
type MCPDeps struct {
	fx.In
	Backend *mcp.Backend
	Live    *live.Live
	Checks  []health.Check `name:"ordered"`
}

// NewMCPApp builds the app of `jarvis mcp` and fills deps. Building it
// opens nothing: the database is opened by the first call that needs it,
// so the server answers initialize at once.
func NewMCPApp(cfg config.Config, log *slog.Logger, deps *MCPDeps) *fx.App {
	return fx.New(mcpOptions(cfg, log), fx.Populate(deps))
}

func mcpOptions(cfg config.Config, log *slog.Logger) fx.Option {
	return fx.Options(Base(cfg, log, store.Options{}), Health,
		fx.Provide(
			serverChecks,
			embedderSource,
			func(h *store.Handle, src search.EmbedderSource, log *slog.Logger) *services {
				return &services{h: h, src: src, log: log, vaults: config.Names(cfg.Vaults)}
			},
			newLive,
			newBackend,
		),
	)
}

func newLive(cfg config.Config, s *services, log *slog.Logger) *live.Live {
	var l *live.Live
	l = live.New(cfg.Vaults,
		func(ctx context.Context, v config.Vault, p index.Progress) (index.Result, error) {
			svc, err := s.get(ctx)
			if err != nil {
				l.MarkUnavailable(err)
				return index.Result{}, err
			}
			return svc.indexer.Index(ctx, v, p)
		},
		func(ctx context.Context) error {
			svc, err := s.get(ctx)
			if err != nil {
				return err
			}
			_, err = svc.vectors.Sync(ctx, search.SyncOptions{})
			return err
		}, log)
	return l
}

type backendIn struct {
	fx.In
	Cfg      config.Config
	Services *services
	Live     *live.Live
	Checks   []health.Check `name:"ordered"`
}

// perCheckTimeout bounds one health check run from the health-status tool.
const perCheckTimeout = 10 * time.Second

func newBackend(in backendIn) *mcp.Backend {
	s, l := in.Services, in.Live
	return &mcp.Backend{
		Vaults: in.Cfg.Vaults,
		Keyword: func(ctx context.Context, q search.KeywordQuery) ([]search.Result, error) {
			svc, err := s.get(ctx)
			if err != nil {
				return nil, err
			}
			return svc.keyword.Search(ctx, q)
		},
		Semantic: func(ctx context.Context, q search.SemanticQuery) ([]search.Result, error) {
			svc, err := s.get(ctx)
			if err != nil {
				return nil, err
			}
			return svc.semantic.Search(ctx, q)
		},
		Embedder: func() string {
			s.mu.Lock()
			ready := s.ready
			s.mu.Unlock()
			if !ready {
				return ""
			}
			return s.semantic.Embedder()
		},
		Combined: func(ctx context.Context, q search.CombinedQuery) ([]search.Result, string, error) {
			svc, err := s.get(ctx)
			if err != nil {
				return nil, "", err
			}
			return svc.combined.Search(ctx, q)
		},
		FindNote: func(ctx context.Context, vaultName, ref string) (graph.Match, error) {
			svc, err := s.get(ctx)
			if err != nil {
				return graph.Match{}, err
			}
			return svc.graph.FindNote(ctx, vaultName, ref)
		},
		Traverse: func(ctx context.Context, q graph.Query) (*graph.Subgraph, error) {
			svc, err := s.get(ctx)
			if err != nil {
				return nil, err
			}
			return svc.graph.Traverse(ctx, q)
		},
		Backlinks: func(ctx context.Context, vaultName, path string) ([]graph.Edge, error) {
			svc, err := s.get(ctx)
			if err != nil {
				return nil, err
			}
			return svc.graph.Backlinks(ctx, vaultName, path)
		},
		Outlinks: func(ctx context.Context, vaultName, path string) ([]graph.Edge, error) {
			svc, err := s.get(ctx)
			if err != nil {
				return nil, err
			}
			return svc.graph.Outlinks(ctx, vaultName, path)
		},
		Stats: func(ctx context.Context) ([]mcp.VaultStats, error) {
			svc, err := s.get(ctx)
			if err != nil {
				return nil, err
			}
			list, err := index.Stats(ctx, svc.db)
			if err != nil {
				return nil, err
			}
			out := make([]mcp.VaultStats, len(list))
			for i, v := range list {
				out[i] = mcp.VaultStats{Name: v.Name, Notes: v.Notes, Attachments: v.Attachments, Links: v.Links,
					UnresolvedLinks: v.UnresolvedLinks, Chunks: v.Chunks, LastIndexed: v.LastIndexed}
			}
			return out, nil
		},
		Notes: func(ctx context.Context, after mcp.NoteRef, n int) ([]mcp.NoteRef, error) {
			svc, err := s.get(ctx)
			if err != nil {
				return nil, err
			}
			list, err := index.ListNotes(ctx, svc.db, after.Vault, after.Path, n)
			if err != nil {
				return nil, err
			}
			out := make([]mcp.NoteRef, len(list))
			for i, nn := range list {
				out[i] = mcp.NoteRef{Vault: nn.Vault, Path: nn.Path, Title: nn.Title}
			}
			return out, nil
		},
		Health: func(ctx context.Context) health.Report {
			return health.Run(ctx, in.Checks, perCheckTimeout)
		},
		State: func() mcp.IndexState {
			st := l.State()
			return mcp.IndexState{State: st.State, Done: st.Done, Total: st.Total, Vault: st.Vault, Error: st.Error, LastIndexed: st.LastIndexed}
		},
		Parse: vault.NewParser().Parse,
	}
}

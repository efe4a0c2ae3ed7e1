package container

import (
	"context"
	"log/slog"
	"time"

	"go.uber.org/fx"

	"github.com/jarvis-mcp/jarvis/internal/config"
	"github.com/jarvis-mcp/jarvis/internal/contextpack"
	"github.com/jarvis-mcp/jarvis/internal/graph"
	"github.com/jarvis-mcp/jarvis/internal/health"
	"github.com/jarvis-mcp/jarvis/internal/index"
	"github.com/jarvis-mcp/jarvis/internal/live"
	"github.com/jarvis-mcp/jarvis/internal/mcp"
	"github.com/jarvis-mcp/jarvis/internal/related"
	"github.com/jarvis-mcp/jarvis/internal/search"
	"github.com/jarvis-mcp/jarvis/internal/store"
	"github.com/jarvis-mcp/jarvis/internal/vault"
)

// MCPDeps is what `jarvis mcp` works with.
type MCPDeps struct {
	fx.In
	Backend *mcp.Backend
	Live    *live.Live
	Vectors *search.Vectors
	Checks  []health.Check `name:"ordered"`
}

// NewMCPApp builds the app of `jarvis mcp` and fills deps. It is built
// from the same modules as the other commands, over the database handle
// rather than an open database: building it opens nothing, so the server
// answers initialize at once, and a database that cannot be opened makes
// each call that needs it fail and say why (and the tools fall back),
// until it can be: every call tries again.
func NewMCPApp(cfg config.Config, log *slog.Logger, deps *MCPDeps) *fx.App {
	return fx.New(mcpOptions(cfg, log), fx.Populate(deps))
}

func mcpOptions(cfg config.Config, log *slog.Logger) fx.Option {
	return fx.Options(Base(cfg, log, store.Options{}), OnFirstUse, Health, Indexing, Vectors, Searching, Relating, Serving,
		fx.Provide(serverChecks))
}

// Serving provides what the server adds: the background index and the
// tools' backend.
var Serving = fx.Module("serve",
	fx.Provide(newLive, newBackend),
)

func newLive(cfg config.Config, h *store.Handle, ix *index.Indexer, vec *search.Vectors, log *slog.Logger) *live.Live {
	// The server keeps its collections in memory: every sync brings them
	// in step.
	vec.Serve()
	var l *live.Live
	l = live.New(cfg.Vaults,
		func(ctx context.Context, v config.Vault, p index.Progress) (index.Result, error) {
			if _, err := h.DB(ctx); err != nil {
				l.MarkUnavailable(err)
				return index.Result{}, err
			}
			return ix.Index(ctx, v, p)
		},
		func(ctx context.Context, replan <-chan struct{}, progress func(done, total int)) error {
			_, err := vec.Sync(ctx, search.SyncOptions{Replan: replan, Progress: progress})
			return err
		}, log)
	return l
}

type backendIn struct {
	fx.In
	Cfg     config.Config
	Conn    store.Conn
	Search  *search.Service
	Vectors *search.Vectors
	Graph   *graph.Graph
	Parser  *vault.Parser
	Live    *live.Live
	Related *related.Service
	Context *contextpack.Builder
	Checks  []health.Check `name:"ordered"`
}

// perCheckTimeout bounds one health check run from the health-status tool.
const perCheckTimeout = 10 * time.Second

func newBackend(in backendIn) *mcp.Backend {
	l, conn := in.Live, in.Conn
	// While the first index pass runs, vectors are not missing but not
	// loaded yet, and search says so.
	in.Search.Busy = func() bool {
		st := l.State()
		return st.State == index.StateIndexing || st.Embedding.State == index.EmbedRunning
	}
	return &mcp.Backend{
		Vaults: in.Cfg.Vaults,
		Search: in.Search,
		Embedder: func() string {
			if e := in.Vectors.Embedder(); e != nil {
				return e.Fingerprint()
			}
			return ""
		},
		FindNote:  in.Graph.FindNote,
		Traverse:  in.Graph.Traverse,
		Backlinks: in.Graph.BacklinksUpTo,
		Outlinks:  in.Graph.Outlinks,
		Related:   in.Related.Find,
		Stats:     func(ctx context.Context) ([]index.VaultStats, error) { return index.Stats(ctx, conn) },
		Notes: func(ctx context.Context, after index.NoteName, n int) ([]index.NoteName, error) {
			return index.ListNotes(ctx, conn, after.Vault, after.Path, n)
		},
		Health: func(ctx context.Context) health.Report {
			return health.Run(ctx, in.Checks, perCheckTimeout)
		},
		BuildContext: in.Context.Build,
		State:        l.State,
		Parse:        in.Parser.Parse,
	}
}

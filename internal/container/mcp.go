package container

import (
	"context"
	"log/slog"
	"time"

	mcpsdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"go.uber.org/fx"

	"github.com/jarvis-mcp/jarvis/internal/config"
	"github.com/jarvis-mcp/jarvis/internal/health"
	"github.com/jarvis-mcp/jarvis/internal/index"
	"github.com/jarvis-mcp/jarvis/internal/live"
	"github.com/jarvis-mcp/jarvis/internal/mcp"
	"github.com/jarvis-mcp/jarvis/internal/metrics"
	"github.com/jarvis-mcp/jarvis/internal/search/vectors"
	"github.com/jarvis-mcp/jarvis/internal/store"
)

// toolsGroup collects every MCP tool, each built from the services it
// uses.
const toolsGroup = `group:"tools"`

// MCPDeps is what `jarvis mcp` works with: the tools and resources to
// serve, what every tool shares, and the background index.
type MCPDeps struct {
	fx.In
	Cfg       config.Config
	Tools     []mcp.Tool `group:"tools"`
	Resources mcp.Resources
	State     mcp.IndexState
	Metrics   mcp.Metrics
	Live      *live.Live
	Vectors   *vectors.Vectors
	Checks    []health.Check `name:"ordered"`
	// DB is the database, opened on first use.
	DB store.Conn
}

// NewServer is the MCP server of deps' tools and resources, serving the
// configured vaults within the configured answer ceiling.
func (d MCPDeps) NewServer(version string, log *slog.Logger) *mcpsdk.Server {
	opts := mcp.Options{Version: version, Logger: log, Vaults: d.Cfg.Vaults, State: d.State, Metrics: d.Metrics}
	if n := d.Cfg.MCP.AnswerTokens; n != nil {
		opts.AnswerTokens = *n
	}
	return mcp.New(d.Tools, d.Resources, opts)
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
	return fx.Options(Base(cfg, log, store.Options{}), OnFirstUse, fx.Supply(serving(true)), Embedding, Health, Indexing,
		Vectors, Searching, Relating, Serving, fx.Provide(serverChecks))
}

// Serving provides what the server adds: the background index, the
// metrics of tool calls, the services the tools use as the interfaces
// internal/mcp declares, and the tools themselves.
var Serving = fx.Module("serve",
	fx.Provide(
		fx.Annotate(newLive, fx.As(fx.Self()), fx.As(new(mcp.IndexState))),
		fx.Annotate(metrics.New, fx.As(new(mcp.Metrics))),
		fx.Annotate(newHealthRunner, fx.ParamTags(`name:"ordered"`), fx.As(new(mcp.Health))),
		fx.Annotate(newCatalog, fx.As(new(mcp.Vaults)), fx.As(new(mcp.Notes)), fx.As(new(mcp.StoredNotes))),
		mcp.NoteResources,
	),
	fx.Provide(
		asTool(mcp.SearchVaultTool),
		asTool(mcp.SearchSemanticTool),
		asTool(mcp.SearchCombinedTool),
		asTool(mcp.SearchGraphTool),
		asTool(mcp.ReadNoteTool),
		asTool(mcp.RelatedNotesTool),
		asTool(mcp.BuildContextTool),
		asTool(mcp.ListVaultsTool),
		asTool(mcp.HealthStatusTool),
	),
)

// asTool puts a tool's constructor in the tools group.
func asTool(constructor any) any {
	return fx.Annotate(constructor, fx.ResultTags(toolsGroup))
}

func newLive(cfg config.Config, h *store.Handle, ix *index.Indexer, vec *vectors.Vectors, log *slog.Logger) *live.Live {
	var l *live.Live
	// A database file replaced by another (a rebuild) or deleted: memory
	// forgets the old file's vectors, and the index is brought up to date.
	h.OnFileChange(func(reopened bool) {
		if reopened {
			log.Info("the database file was replaced; reading the new one", "db", h.Path())
			vec.Forget()
		} else {
			log.Warn("the database file was deleted; the next index pass makes a new one", "db", h.Path())
		}
		l.FileChanged(reopened)
	})
	l = live.New(cfg.Vaults,
		func(ctx context.Context, v config.Vault, p index.Progress) (index.Result, error) {
			if _, err := h.DB(ctx); err != nil {
				l.MarkUnavailable(err)
				return index.Result{}, err
			}
			return ix.Index(ctx, v, p)
		},
		func(ctx context.Context, replan <-chan struct{}, progress func(done, total int)) error {
			_, err := vec.Sync(ctx, vectors.SyncOptions{Replan: replan, Progress: progress})
			return err
		}, log)
	return l
}

// perCheckTimeout bounds one health check run from the health-status tool.
const perCheckTimeout = 10 * time.Second

func newHealthRunner(checks []health.Check) *health.Runner {
	return health.NewRunner(checks, perCheckTimeout)
}

// newCatalog is what the index holds of the served vaults, and of no other
// vault the database holds.
func newCatalog(db store.Conn, cfg config.Config) *index.Catalog {
	return index.NewCatalog(db, config.Names(cfg.Vaults))
}

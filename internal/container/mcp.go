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
	"github.com/jarvis-mcp/jarvis/internal/query"
	"github.com/jarvis-mcp/jarvis/internal/search/vectors"
	"github.com/jarvis-mcp/jarvis/internal/store"
	"github.com/jarvis-mcp/jarvis/internal/vault"
	"github.com/jarvis-mcp/jarvis/internal/write"
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
	opts := mcp.Options{Version: version, Logger: log, Vaults: d.Cfg.Vaults, State: d.State, Metrics: d.Metrics, Invocation: d.Cfg.Invocation()}
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
//
// A database this user may read but not write is opened read-only: the
// tools answer from the index as it is, and the background index says why
// it cannot bring it up to date. Extra options (WithProbe) apply on top.
func NewMCPApp(cfg config.Config, log *slog.Logger, deps *MCPDeps, extra ...fx.Option) *fx.App {
	return fx.New(mcpOptions(cfg, log), fx.Options(extra...), fx.Populate(deps))
}

func mcpOptions(cfg config.Config, log *slog.Logger) fx.Option {
	// The commands the server's answers name are pasted where the user
	// works, not in the server's working folder.
	cfg = cfg.Absolute()
	return fx.Options(Base(cfg, log, store.Options{ReadOnlyIfNeeded: true}), OnFirstUse, fx.Supply(serving(true)), Embedding, Health, Indexing,
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
		// What today is for periodic-note: the process's clock and time zone.
		func() mcp.Clock { return time.Now },
		// The write tools' service over the vaults made writable: each
		// write in the index, by the server's own pass of its vault,
		// before it returns.
		fx.Annotate(func(cfg config.Config, h *store.Handle, p *vault.Parser, l *live.Live, log *slog.Logger) *write.Service {
			return write.NewService(cfg.Vaults, h, p, l.Vault, log)
		}, fx.As(new(mcp.NoteWriter))),
		// The files of a vault as query-notes reads them, from the index,
		// through the snapshot the process keeps of them while current.
		func(db store.Conn) mcp.VaultFiles {
			return func(ctx context.Context, name string, exclude []string) (*query.Vault, error) {
				return query.Files(ctx, db, name, exclude)
			}
		},
	),
	fx.Provide(
		asTool(mcp.SearchVaultTool),
		asTool(mcp.SearchSemanticTool),
		asTool(mcp.SearchCombinedTool),
		asTool(mcp.SearchGraphTool),
		asTool(mcp.ReadNoteTool),
		asTool(mcp.PeriodicNoteTool),
		asTool(mcp.QueryNotesTool),
		asTool(mcp.RelatedNotesTool),
		asTool(mcp.BuildContextTool),
		asTool(mcp.ListVaultsTool),
		asTool(mcp.HealthStatusTool),
		asTool(mcp.CreateNoteTool),
		asTool(mcp.EditNoteTool),
		asTool(mcp.MoveNoteTool),
		asTool(mcp.DeleteNoteTool),
	),
)

// asTool puts a tool's constructor in the tools group.
func asTool(constructor any) any {
	return fx.Annotate(constructor, fx.ResultTags(toolsGroup))
}

func newLive(cfg config.Config, h *store.Handle, opts store.Options, ix *index.Indexer, vec *vectors.Vectors, checks checkStyle, log *slog.Logger) *live.Live {
	// A database error reaches list-vaults and health-status through the
	// index state in the words every command uses (store.Explain).
	explain := func(err error) error {
		if err != nil {
			log.Debug("database error", "err", err)
		}
		return store.Explained(h.Path(), err, cfg.Invocation(), opts.Probe)
	}
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
			db, err := h.DB(ctx)
			if err != nil {
				err = explain(err)
				l.MarkUnavailable(err)
				return index.Result{}, err
			}
			if why := db.NotWritable(); why != nil {
				// Read as it is; its writes would fail one by one.
				return index.Result{}, why
			}
			res, err := ix.Index(ctx, v, p)
			return res, explain(err)
		},
		func(ctx context.Context, replan <-chan struct{}, progress func(done, total int)) error {
			_, err := vec.Sync(ctx, vectors.SyncOptions{Replan: replan, Progress: progress})
			return explain(err)
		}, log)
	if checks.reuse != nil {
		// Checks that looked during a pass may say it has not finished.
		l.Done = checks.reuse.Stale
	}
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

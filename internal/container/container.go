// Package container wires jarvis's services together with fx. It is the only
// package that imports fx: every constructor it binds is plain Go, usable
// without it. Each command gets an app built from the modules it needs.
package container

import (
	"context"
	"log/slog"

	"go.uber.org/dig"
	"go.uber.org/fx"
	"go.uber.org/fx/fxevent"

	"github.com/jarvis-mcp/jarvis/internal/config"
	"github.com/jarvis-mcp/jarvis/internal/graph"
	"github.com/jarvis-mcp/jarvis/internal/health"
	"github.com/jarvis-mcp/jarvis/internal/index"
	"github.com/jarvis-mcp/jarvis/internal/mcp"
	"github.com/jarvis-mcp/jarvis/internal/search"
	"github.com/jarvis-mcp/jarvis/internal/search/fulltext"
	"github.com/jarvis-mcp/jarvis/internal/search/vectors"
	"github.com/jarvis-mcp/jarvis/internal/store"
	"github.com/jarvis-mcp/jarvis/internal/vault"
)

// checksGroup collects the health checks every service contributes.
const checksGroup = `group:"checks,flatten"`

// wiringLevel is the log level of fx's own events: below debug, so that
// --verbose shows what jarvis does rather than how it was assembled.
const wiringLevel = slog.LevelDebug - 4

// Base supplies what every command shares: the settled configuration, the
// logger (fx's own events go to it at wiringLevel) and the database handle,
// closed when the app stops.
func Base(cfg config.Config, log *slog.Logger, dbOpts store.Options) fx.Option {
	return fx.Options(
		fx.Supply(cfg, log, dbOpts),
		fx.WithLogger(func(log *slog.Logger) fxevent.Logger {
			l := &fxevent.SlogLogger{Logger: log}
			l.UseLogLevel(wiringLevel)
			// Commands report failures themselves, once.
			l.UseErrorLevel(wiringLevel)
			return l
		}),
		fx.Provide(newHandle),
	)
}

func newHandle(lc fx.Lifecycle, cfg config.Config, opts store.Options) *store.Handle {
	h := store.NewHandle(cfg.DBPath, opts)
	lc.Append(fx.StopHook(h.Close))
	return h
}

// openDB opens and migrates the database for the commands that cannot work
// without it. Opening is quick (it never indexes); constructors get no
// context, and the handle's own deadline-free open is what they run.
func openDB(h *store.Handle) (*store.DB, error) {
	return h.DB(context.Background())
}

// Opened gives the services the database, opened as the app is built: a
// command that cannot open it stops there and says why.
var Opened = fx.Provide(openDB, func(db *store.DB) store.Conn { return db })

// OnFirstUse gives the services the database handle, which opens it on
// the first call that needs it: the server starts, and answers what it
// can, whatever state the database is in.
var OnFirstUse = fx.Provide(func(h *store.Handle) store.Conn { return h })

// Indexing provides the parser and the indexer.
var Indexing = fx.Module("index",
	fx.Provide(
		fx.Annotate(vault.NewParser, fx.As(fx.Self()), fx.As(new(mcp.NoteParser))),
		newIndexer,
	),
)

// newIndexer is index.New, whose warnings name commands with the flags of
// cfg (a moved vault's --forget).
func newIndexer(db store.Conn, parser *vault.Parser, log *slog.Logger, cfg config.Config) *index.Indexer {
	ix := index.New(db, parser, log)
	ix.Invocation = cfg.Invocation()
	ix.Lists = cfg.Lists
	return ix
}

// checkStyle says how the health checks run. doctor looks once, and
// thoroughly. The server answers health-status again and again, from
// several clients at once: there the database gets PRAGMA quick_check
// rather than the full integrity check, and every check that reads much
// (the database, every file of a vault, every link, the embedder over the
// network) runs in the background through a health.Reuser, once at a time:
// a caller hears the last results with their age at once, and only before
// a check's first results waits for it, until it has run 300 ms at most.
type checkStyle struct {
	serving bool
	reuse   *health.Reuser // nil for doctor
}

// serverChecks is the server's check style. Its Reuser stops with the
// app, before the database it reads is closed (hooks stop in reverse).
func serverChecks(lc fx.Lifecycle, _ *store.Handle, cfg config.Config) checkStyle {
	u := health.NewReuser(cfg.Invocation())
	lc.Append(fx.StopHook(u.Close))
	return checkStyle{serving: true, reuse: u}
}

// slow applies the style to checks that read much.
func (s checkStyle) slow(checks []health.Check) []health.Check {
	if s.reuse == nil {
		return checks
	}
	out := make([]health.Check, len(checks))
	for i, c := range checks {
		out[i] = s.reuse.Wrap(c)
	}
	return out
}

// Health collects the checks of every service into one ordered list.
var Health = fx.Module("health",
	fx.Provide(
		fx.Annotate(func(h *store.Handle, cfg config.Config) []health.Check {
			checks := config.Checks(cfg, index.ReadFix)
			for i, c := range checks {
				if c.Name == "vault" {
					checks[i] = index.StillAnswering(h, cfg.Vaults, c)
				}
			}
			return checks
		}, fx.ResultTags(checksGroup)),
		fx.Annotate(func(h *store.Handle, cfg config.Config, s checkStyle, log *slog.Logger) []health.Check {
			return s.slow(store.Checks(h, cfg.Invocation(), store.CheckOptions{Quick: s.serving, Log: log}))
		}, fx.ResultTags(checksGroup)),
		fx.Annotate(func(h *store.Handle, cfg config.Config, s checkStyle) []health.Check {
			return s.slow(index.Checks(h, cfg))
		}, fx.ResultTags(checksGroup)),
		fx.Annotate(func(h *store.Handle, cfg config.Config, s checkStyle) []health.Check {
			return s.slow(graph.Checks(h, cfg.Vaults))
		}, fx.ResultTags(checksGroup)),
		fx.Annotate(func(h *store.Handle, cfg config.Config, src vectors.EmbedderSource, s checkStyle) []health.Check {
			return s.slow(vectors.Checks(h, src, cfg.Invocation()))
		}, fx.ResultTags(checksGroup)),
		fx.Annotate(func(cfg config.Config) []health.Check { return []health.Check{health.DiskSpace(cfg.DBPath)} },
			fx.ResultTags(checksGroup)),
		fx.Annotate(func(checks []health.Check) []health.Check {
			health.Sort(checks)
			return checks
		}, fx.ParamTags(`group:"checks"`), fx.ResultTags(`name:"ordered"`)),
	),
)

// IndexDeps is what `jarvis index` works with.
type IndexDeps struct {
	fx.In
	Indexer *index.Indexer
	Vectors *vectors.Vectors
	DB      *store.DB
}

// SearchDeps is what `jarvis search` works with: the indexer to refresh
// the index first, and every kind of search. The database is opened on
// first use (Handle.DB): search answers from the note files when it
// cannot be read, as the server does.
type SearchDeps struct {
	fx.In
	Handle   *store.Handle
	Indexer  *index.Indexer
	Vectors  *vectors.Vectors
	Search   *search.Service
	Keyword  *fulltext.Keyword
	Semantic *search.Semantic
	Combined *search.Combined
}

// DoctorDeps is what `jarvis doctor` works with.
type DoctorDeps struct {
	fx.In
	Checks []health.Check `name:"ordered"`
}

// Err is the error that stopped an app from being built, without the chain
// of constructors fx and dig wrap around it.
func Err(app *fx.App) error {
	if err := app.Err(); err != nil {
		return dig.RootCause(err)
	}
	return nil
}

// WithProbe makes the database's permission checks ask probe rather than
// the system (store.Options.Probe): a test running as root, whom the
// system lets do anything, sees what a user would.
func WithProbe(probe store.Probe) fx.Option {
	if probe == nil {
		return fx.Options()
	}
	return fx.Decorate(func(o store.Options) store.Options {
		o.Probe = probe
		return o
	})
}

// WithClock makes the tools that ask what time it is (periodic-note,
// query-notes) ask clock: a test fixes today, and the time a note is
// created from its template.
func WithClock(clock mcp.Clock) fx.Option {
	return fx.Decorate(func(mcp.Clock) mcp.Clock { return clock })
}

// NewIndexApp builds the app of `jarvis index` and fills deps; extra
// options (WithProbe) apply on top.
func NewIndexApp(cfg config.Config, log *slog.Logger, deps *IndexDeps, extra ...fx.Option) *fx.App {
	return fx.New(indexOptions(cfg, log), fx.Options(extra...), fx.Populate(deps))
}

func indexOptions(cfg config.Config, log *slog.Logger) fx.Option {
	return fx.Options(Base(cfg, log, store.Options{}), Opened, Embedding, Indexing, Vectors)
}

// NewSearchApp builds the app of `jarvis search` and fills deps; extra
// options (WithProbe) apply on top.
func NewSearchApp(cfg config.Config, log *slog.Logger, deps *SearchDeps, extra ...fx.Option) *fx.App {
	return fx.New(searchOptions(cfg, log), fx.Options(extra...), fx.Populate(deps))
}

// searchOptions open the database on first use, read-only when this user
// may only read it: a search reads the index as it is.
func searchOptions(cfg config.Config, log *slog.Logger) fx.Option {
	return fx.Options(Base(cfg, log, store.Options{ReadOnlyIfNeeded: true}), OnFirstUse, Embedding, Indexing, Vectors, Searching)
}

// NewDoctorApp builds the app of `jarvis doctor` and fills deps. It opens the
// database without migrating it: looking never changes anything.
func NewDoctorApp(cfg config.Config, log *slog.Logger, deps *DoctorDeps, extra ...fx.Option) *fx.App {
	return fx.New(doctorOptions(cfg, log), fx.Options(extra...), fx.Populate(deps))
}

func doctorOptions(cfg config.Config, log *slog.Logger) fx.Option {
	return fx.Options(Base(cfg, log, store.Options{ReadOnly: true}), fx.Supply(checkStyle{}), Embedding, Health)
}

package container

import (
	"log/slog"

	"go.uber.org/fx"

	"github.com/jarvis-mcp/jarvis/internal/config"
	"github.com/jarvis-mcp/jarvis/internal/graph"
	"github.com/jarvis-mcp/jarvis/internal/index"
	"github.com/jarvis-mcp/jarvis/internal/mcp"
	"github.com/jarvis-mcp/jarvis/internal/related"
	"github.com/jarvis-mcp/jarvis/internal/search"
	"github.com/jarvis-mcp/jarvis/internal/search/fulltext"
	"github.com/jarvis-mcp/jarvis/internal/search/vectors"
	"github.com/jarvis-mcp/jarvis/internal/store"
	"github.com/jarvis-mcp/jarvis/internal/vault"
)

// Relating provides the related-notes service, over the link graph,
// semantic and keyword search and the parser.
var Relating = fx.Module("related",
	fx.Provide(fx.Annotate(newRelated, fx.As(fx.Self()), fx.As(new(mcp.RelatedNotes)))),
)

func newRelated(cfg config.Config, g *graph.Graph, vec *vectors.Vectors, db store.Conn, sem *search.Semantic, kw *fulltext.Keyword, p *vault.Parser, svc *search.Service) *related.Service {
	s := related.New(cfg.Vaults, g, related.NewSimilarity(vec, db, sem), sem, kw, p)
	// A missing embedder, and where its fix is said, in search's words.
	s.Explain = svc
	s.TooComplex = index.NewCatalog(db, config.Names(cfg.Vaults)).TooComplex
	return s
}

// RelatedDeps is what `jarvis related` works with: the indexer to bring
// the index up to date first, the vectors to load, the graph to find the
// note, and the service.
type RelatedDeps struct {
	fx.In
	DB      *store.DB
	Indexer *index.Indexer
	Vectors *vectors.Vectors
	Graph   *graph.Graph
	Related *related.Service
}

// NewRelatedApp builds the app of `jarvis related` and fills deps; extra
// options (WithProbe) apply on top.
func NewRelatedApp(cfg config.Config, log *slog.Logger, deps *RelatedDeps, extra ...fx.Option) *fx.App {
	return fx.New(relatedOptions(cfg, log), fx.Options(extra...), fx.Populate(deps))
}

// relatedOptions open the database read-only when this user may only
// read it, as search's do: related notes are read from the index as it is.
func relatedOptions(cfg config.Config, log *slog.Logger) fx.Option {
	return fx.Options(Base(cfg, log, store.Options{ReadOnlyIfNeeded: true}), Opened, Embedding, Indexing, Vectors, Searching, Relating)
}

package container

import (
	"errors"
	"fmt"
	"log/slog"
	"sync"

	"go.uber.org/fx"

	"github.com/jarvis-mcp/jarvis/internal/config"
	"github.com/jarvis-mcp/jarvis/internal/contextpack"
	"github.com/jarvis-mcp/jarvis/internal/embed"
	"github.com/jarvis-mcp/jarvis/internal/embed/hub"
	"github.com/jarvis-mcp/jarvis/internal/graph"
	"github.com/jarvis-mcp/jarvis/internal/mcp"
	"github.com/jarvis-mcp/jarvis/internal/search"
	"github.com/jarvis-mcp/jarvis/internal/search/fulltext"
	"github.com/jarvis-mcp/jarvis/internal/search/vectors"
	"github.com/jarvis-mcp/jarvis/internal/store"
)

// embedderSource turns the embedder configuration into what the vector
// store builds embedders from.
func embedderSource(cfg config.Config, log *slog.Logger) vectors.EmbedderSource {
	switch cfg.Embedder.Provider {
	case config.ProviderLexical, "":
		return vectors.LexicalSource()
	case config.ProviderLocal:
		return localSource(cfg.Embedder)
	}
	return remoteSource(cfg.Embedder, log)
}

// localSource runs a model from the models folder, or from the folder
// given. The model is loaded once, when first needed, and shared by every
// search and sync of the process; a failed load is tried again next time
// (the model may have been pulled meanwhile).
func localSource(e config.Embedder) vectors.EmbedderSource {
	var mu sync.Mutex
	var loaded *embed.Local
	return vectors.EmbedderSource{
		Provider: config.ProviderLocal,
		Model:    e.Model,
		Restore: func([]byte) (embed.Embedder, error) {
			mu.Lock()
			defer mu.Unlock()
			if loaded != nil {
				return loaded, nil
			}
			path, err := hub.Resolve(e.ModelsDir, e.Model)
			if err != nil {
				return nil, err
			}
			l, err := embed.NewLocal(path, embed.LocalOptions{Name: e.Model, QueryPrefix: e.QueryPrefix, PassagePrefix: e.PassagePrefix})
			if err != nil {
				// A pulled model that no longer loads is most likely
				// damaged since; say so when its files show it.
				if verr := hub.Verify(path); verr != nil && !errors.Is(verr, hub.ErrNotInstalled) {
					return nil, fmt.Errorf("its files changed since it was pulled: %w", verr)
				}
				return nil, err
			}
			loaded = l
			return l, nil
		},
	}
}

// remoteSource builds an Ollama or OpenAI-compatible embedder; it learns
// nothing from the corpus, so it has no Fit.
func remoteSource(e config.Embedder, log *slog.Logger) vectors.EmbedderSource {
	cfg := embed.Config{Provider: e.Provider, Model: e.Model, BaseURL: e.URL, APIKey: e.APIKey}
	cfg.Timeout = e.TimeoutDuration(0)
	cfg.BatchTimeout = e.BatchTimeoutDuration(0)
	model := e.Model
	if model == "" {
		model = embed.DefaultModel(e.Provider)
	}
	return vectors.EmbedderSource{
		Provider:   e.Provider,
		Model:      model,
		RunTimeout: e.RunTimeoutDuration(embed.DefaultRunTimeout),
		Restore: func([]byte) (embed.Embedder, error) {
			emb, err := embed.NewRemote(cfg, nil)
			if err != nil {
				return nil, fmt.Errorf("%s embedder: %w", e.Provider, err)
			}
			return emb, nil
		},
	}
}

// Embedding provides the one embedder source of a process: the vector
// store and the health checks build from it, so a local model is loaded
// once, whoever asks first.
var Embedding = fx.Module("embedder", fx.Provide(embedderSource))

// serving says the process answers queries from the vectors in memory
// (the server), so the vector store keeps its collections in step with
// every sync; commands that only index leave it unset.
type serving bool

type vectorsIn struct {
	fx.In
	DB      store.Conn
	Src     vectors.EmbedderSource
	Log     *slog.Logger
	Serving serving `optional:"true"`
}

// newVectors is the vector store, serving queries from the start when the
// process does.
func newVectors(in vectorsIn) *vectors.Vectors {
	v := vectors.NewVectors(in.DB, in.Src, in.Log)
	if in.Serving {
		v.Serve()
	}
	return v
}

// Vectors provides the vector store, which `jarvis index` keeps in step
// with the notes.
var Vectors = fx.Module("vectors", fx.Provide(newVectors))

type serviceIn struct {
	fx.In
	Keyword  *fulltext.Keyword
	Semantic *search.Semantic
	Combined *search.Combined
	Cfg      config.Config
	Log      *slog.Logger
}

// newService is the search service; files are scanned, when the index
// cannot be read, in the configured vaults, and a command an answer
// suggests repeats the user's flags.
func newService(in serviceIn) *search.Service {
	return search.NewService(in.Keyword, in.Semantic, in.Combined, in.Cfg.Vaults, in.Cfg.Invocation(), in.Log)
}

// newGraph is the link graph; lookups that name no vault stay within the
// configured ones.
func newGraph(db store.Conn, cfg config.Config) *graph.Graph {
	return graph.New(db).Within(config.Names(cfg.Vaults))
}

// Searching provides every kind of search over an open database, and the
// link graph; the MCP tools get them as the interfaces they declare.
var Searching = fx.Module("search",
	fx.Provide(
		fx.Annotate(newGraph, fx.As(fx.Self()), fx.As(new(mcp.LinkGraph))),
		func(db store.Conn) *fulltext.Keyword { return fulltext.NewKeyword(db) },
		newSemantic,
		newCombined,
		fx.Annotate(newService, fx.As(fx.Self()), fx.As(new(mcp.KeywordSearch)), fx.As(new(mcp.SemanticSearch))),
		fx.Annotate(newContextBuilder, fx.As(fx.Self()), fx.As(new(mcp.ContextPack))),
	),
)

// newContextBuilder packs passages of the search service's finding, with
// the graph to resolve the notes a request starts from and to follow
// their links one hop.
func newContextBuilder(s *search.Service, g *graph.Graph) *contextpack.Builder {
	return contextpack.New(s.Passages, g.FindNote, g.LinkedNotes)
}

// newSemantic is semantic search with the configured similarity floor,
// if any, in place of the default of every kind of embedder.
func newSemantic(v *vectors.Vectors, db store.Conn, cfg config.Config) *search.Semantic {
	sem := search.NewSemantic(v, db)
	if f := cfg.Search.SimilarityFloor; f != nil {
		for kind := range sem.Floors {
			sem.Floors[kind] = *f
		}
	}
	return sem
}

// newCombined fuses keyword and semantic search, with the configured
// semantic weight, if any, in place of the default of every kind of
// embedder.
func newCombined(kw *fulltext.Keyword, sem *search.Semantic, cfg config.Config) *search.Combined {
	c := search.NewCombinedOver(kw, sem)
	if w := cfg.Search.SemanticWeight; w != nil {
		for kind := range c.SemanticWeights {
			c.SemanticWeights[kind] = *w
		}
	}
	return c
}

// Package embed turns text into vectors for semantic search. Every embedder,
// local or remote, satisfies Embedder and passes the same contract tests.
package embed

import (
	"context"
	"fmt"
)

// Embedder turns texts into L2-normalised vectors of a fixed dimension, so
// that a dot product is a cosine similarity in [-1, 1].
type Embedder interface {
	// Fingerprint names everything that makes this embedder's vectors
	// incomparable with another's: provider, model, dimension, and any
	// state such as frozen document frequencies. Vectors stored under one
	// fingerprint are never mixed with another's.
	Fingerprint() string
	// Provider is "lexical", "ollama" or "openai".
	Provider() string
	// Model is the model id as configured ("nomic-embed-text").
	Model() string
	// Dimension is the length of every vector; 0 until the first Embed
	// call for remote embedders that learn it from the server.
	Dimension() int
	// Embed returns one vector per text, in order. A text with nothing to
	// embed (empty, blank) gets the zero vector, which is similar to
	// nothing, rather than an arbitrary direction. It honours ctx's
	// deadline and cancellation: a cancelled call returns an error
	// wrapping ctx.Err().
	Embed(ctx context.Context, texts []string) ([][]float32, error)
}

// QueryEmbedder is an Embedder that embeds a search query differently from
// the passages it is compared with, as models trained with a query prefix
// (e5's "query: ", bge's instruction) want.
type QueryEmbedder interface {
	EmbedQuery(ctx context.Context, text string) ([]float32, error)
}

// Query embeds a search query with e: through EmbedQuery when e has one,
// else as a passage.
func Query(ctx context.Context, e Embedder, text string) ([]float32, error) {
	if q, ok := e.(QueryEmbedder); ok {
		return q.EmbedQuery(ctx, text)
	}
	vecs, err := e.Embed(ctx, []string{text})
	if err != nil {
		return nil, err
	}
	if len(vecs) != 1 {
		return nil, fmt.Errorf("%d vectors for one query", len(vecs))
	}
	return vecs[0], nil
}

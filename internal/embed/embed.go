// Package embed turns text into vectors for semantic search. Every embedder,
// local or remote, satisfies Embedder and passes the same contract tests.
package embed

import "context"

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

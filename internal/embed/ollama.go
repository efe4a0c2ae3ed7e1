package embed

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"time"
)

// Ollama defaults.
const (
	DefaultOllamaURL   = "http://localhost:11434"
	DefaultOllamaModel = "nomic-embed-text"
	// DefaultOllamaTimeout is long because the first request after a
	// while loads the model into memory, which can take a minute on a
	// slow disk.
	DefaultOllamaTimeout = 2 * time.Minute
	// DefaultOllamaBatch keeps one request of 200-300-word chunks to a
	// few seconds on a laptop CPU, so the timeout stays meaningful.
	DefaultOllamaBatch = 32
)

// OllamaOptions configure an Ollama embedder. Zero values take the
// defaults above.
type OllamaOptions struct {
	BaseURL string // "http://localhost:11434"
	Model   string // "nomic-embed-text"
	// BatchSize is the number of texts sent in one request.
	BatchSize int
	// Timeout bounds each request, retries apart.
	Timeout time.Duration
	// BatchTimeout bounds one batch, every attempt and the waits between
	// them together; 0 takes DefaultBatchTimeout, or Timeout plus a
	// minute when that is longer.
	BatchTimeout time.Duration
	// MaxRetries is how often a request that may succeed later (network
	// error, 429, 5xx) is tried again; 0 takes DefaultMaxRetries, a
	// negative value disables retries.
	MaxRetries int
	// Client sends the requests; http.DefaultClient when nil.
	Client *http.Client
}

// Ollama embeds with a local or remote Ollama server through its
// /api/embed endpoint, so that users with Ollama get neural embeddings
// without an API key. It is safe for concurrent use.
type Ollama struct {
	r *remote
}

// NewOllama returns an Ollama embedder. It checks the base URL but does
// not contact the server; Check does.
func NewOllama(opts OllamaOptions) (*Ollama, error) {
	if opts.BaseURL == "" {
		opts.BaseURL = DefaultOllamaURL
	}
	if opts.Model == "" {
		opts.Model = DefaultOllamaModel
	}
	if opts.BatchSize <= 0 {
		opts.BatchSize = DefaultOllamaBatch
	}
	if opts.Timeout <= 0 {
		opts.Timeout = DefaultOllamaTimeout
	}
	u, err := parseBaseURL(ProviderOllama, opts.BaseURL)
	if err != nil {
		return nil, err
	}
	return &Ollama{r: newRemote(ProviderOllama, opts.Model, u.JoinPath("api", "embed").String(), "",
		opts.BatchSize, opts.MaxRetries, opts.Timeout, opts.BatchTimeout, opts.Client, ollamaProtocol{})}, nil
}

// Fingerprint is "ollama/<model>/<dimension>"; the dimension is 0 until
// the first answer.
func (o *Ollama) Fingerprint() string { return o.r.fingerprint() }

// Provider is "ollama".
func (o *Ollama) Provider() string { return ProviderOllama }

// Model is the configured model name.
func (o *Ollama) Model() string { return o.r.model }

// Dimension is learned from the server's first answer; 0 before it.
func (o *Ollama) Dimension() int { return int(o.r.dim.Load()) }

// Embed returns one unit vector per text, in order, sending them in
// batches. Errors carry the server's own message and HTTP status.
func (o *Ollama) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	return o.r.embed(ctx, texts)
}

// Check embeds one short text without retrying, to report quickly
// whether the server answers and has the model.
func (o *Ollama) Check(ctx context.Context) error { return o.r.check(ctx) }

// ollamaProtocol speaks Ollama's /api/embed:
//
//	request  {"model": "...", "input": ["...", ...]}
//	answer   {"model": "...", "embeddings": [[...], ...], ...}
//	error    {"error": "model \"x\" not found, try pulling it first"}
type ollamaProtocol struct{}

type ollamaRequest struct {
	Model string   `json:"model"`
	Input []string `json:"input"`
}

type ollamaResponse struct {
	Model      string      `json:"model"`
	Embeddings [][]float32 `json:"embeddings"`
}

func (ollamaProtocol) requestBody(model string, texts []string) any {
	return ollamaRequest{Model: model, Input: texts}
}

func (ollamaProtocol) vectors(body []byte, n int) ([][]float32, error) {
	var resp ollamaResponse
	if err := decodeJSON(body, &resp); err != nil {
		return nil, err
	}
	if len(resp.Embeddings) != n {
		if len(resp.Embeddings) == 0 {
			return nil, errors.New("no embeddings in the answer: is the model an embedding model?")
		}
		return nil, fmt.Errorf("%d embeddings for %d texts", len(resp.Embeddings), n)
	}
	return resp.Embeddings, nil
}

func (ollamaProtocol) apiError(e *APIError, body []byte) {
	var resp struct {
		Error string `json:"error"`
	}
	if decodeJSON(body, &resp) == nil {
		e.Message = resp.Error
	}
}

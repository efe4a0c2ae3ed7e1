package embed

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"time"
)

// OpenAI defaults.
const (
	DefaultOpenAIURL     = "https://api.openai.com/v1"
	DefaultOpenAIModel   = "text-embedding-3-small"
	DefaultOpenAITimeout = time.Minute
	// DefaultOpenAIBatch stays far below OpenAI's limits (2,048 inputs and
	// 300,000 tokens a request) with chunks of a few hundred words, while
	// cutting the number of round trips.
	DefaultOpenAIBatch = 128
)

// OpenAIOptions configure an embedder for OpenAI or any server with an
// OpenAI-compatible /v1/embeddings endpoint (LM Studio, llama.cpp, vLLM,
// LocalAI, ...). Zero values take the defaults above.
type OpenAIOptions struct {
	// BaseURL is the API root, with or without the trailing /v1
	// ("https://api.openai.com/v1", "http://localhost:1234").
	BaseURL string
	Model   string // "text-embedding-3-small"
	// APIKey is sent as a bearer token when set; local servers often need
	// none.
	APIKey string
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

// OpenAI embeds through an OpenAI-compatible embeddings endpoint. It is
// safe for concurrent use.
type OpenAI struct {
	r *remote
}

// NewOpenAI returns an OpenAI-compatible embedder. It checks the base URL
// but does not contact the server; Check does.
func NewOpenAI(opts OpenAIOptions) (*OpenAI, error) {
	if opts.BaseURL == "" {
		opts.BaseURL = DefaultOpenAIURL
	}
	if opts.Model == "" {
		opts.Model = DefaultOpenAIModel
	}
	if opts.BatchSize <= 0 {
		opts.BatchSize = DefaultOpenAIBatch
	}
	if opts.Timeout <= 0 {
		opts.Timeout = DefaultOpenAITimeout
	}
	u, err := parseBaseURL(ProviderOpenAI, opts.BaseURL)
	if err != nil {
		return nil, err
	}
	if strings.HasSuffix(u.Path, "/v1") {
		u = u.JoinPath("embeddings")
	} else {
		u = u.JoinPath("v1", "embeddings")
	}
	return &OpenAI{r: newRemote(ProviderOpenAI, opts.Model, u.String(), opts.APIKey,
		opts.BatchSize, opts.MaxRetries, opts.Timeout, opts.BatchTimeout, opts.Client, openAIProtocol{})}, nil
}

// Fingerprint is "openai/<model>/<dimension>"; the dimension is 0 until
// the first answer.
func (o *OpenAI) Fingerprint() string { return o.r.fingerprint() }

// Provider is "openai", whichever compatible server answers.
func (o *OpenAI) Provider() string { return ProviderOpenAI }

// Model is the configured model name.
func (o *OpenAI) Model() string { return o.r.model }

// Dimension is learned from the server's first answer; 0 before it.
func (o *OpenAI) Dimension() int { return int(o.r.dim.Load()) }

// Embed returns one unit vector per text, in order, sending them in
// batches. Errors carry the server's own message and HTTP status.
func (o *OpenAI) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	return o.r.embed(ctx, texts)
}

// Check embeds one short text without retrying, to report quickly
// whether the server answers, accepts the key and knows the model.
func (o *OpenAI) Check(ctx context.Context) error { return o.r.check(ctx) }

// openAIProtocol speaks the OpenAI embeddings API:
//
//	request  {"model": "...", "input": ["...", ...]}
//	answer   {"data": [{"index": 0, "embedding": [...]}, ...], "model": "...", "usage": {...}}
//	error    {"error": {"message": "...", "type": "...", "code": ...}}
type openAIProtocol struct{}

type openAIRequest struct {
	Model string   `json:"model"`
	Input []string `json:"input"`
}

type openAIResponse struct {
	Data []struct {
		Index     int       `json:"index"`
		Embedding []float32 `json:"embedding"`
	} `json:"data"`
	Model string `json:"model"`
}

func (openAIProtocol) requestBody(model string, texts []string) any {
	return openAIRequest{Model: model, Input: texts}
}

// vectors orders the answer by index: the API does not promise input
// order.
func (openAIProtocol) vectors(body []byte, n int) ([][]float32, error) {
	var resp openAIResponse
	if err := decodeJSON(body, &resp); err != nil {
		return nil, err
	}
	if len(resp.Data) != n {
		return nil, fmt.Errorf("%d embeddings for %d texts", len(resp.Data), n)
	}
	out := make([][]float32, n)
	for _, d := range resp.Data {
		if d.Index < 0 || d.Index >= n || out[d.Index] != nil {
			return nil, fmt.Errorf("embedding index %d repeated or out of range for %d texts", d.Index, n)
		}
		out[d.Index] = d.Embedding
	}
	return out, nil
}

func (openAIProtocol) apiError(e *APIError, body []byte) {
	var resp struct {
		Error json.RawMessage `json:"error"`
	}
	if decodeJSON(body, &resp) != nil || len(resp.Error) == 0 {
		return
	}
	// Some compatible servers answer {"error": "message"}.
	var msg string
	if json.Unmarshal(resp.Error, &msg) == nil {
		e.Message = msg
		return
	}
	var obj struct {
		Message string          `json:"message"`
		Type    string          `json:"type"`
		Code    json.RawMessage `json:"code"`
	}
	if json.Unmarshal(resp.Error, &obj) != nil {
		return
	}
	e.Message, e.Type = obj.Message, obj.Type
	// The code is a string, a number or null depending on the server.
	var code any
	if json.Unmarshal(obj.Code, &code) == nil && code != nil {
		e.Code = fmt.Sprint(code)
	}
}

package embed

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/url"
	"reflect"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/jarvis-mcp/jarvis/internal/reach"
)

// Provider names, as in configuration.
const (
	ProviderLexical = "lexical"
	ProviderOllama  = "ollama"
	ProviderOpenAI  = "openai"
)

// Defaults shared by the remote embedders.
const (
	// DefaultMaxRetries is how many times a failed request is tried again
	// when it may succeed later (network errors, 429, 5xx).
	DefaultMaxRetries = 3
	// DefaultBatchTimeout bounds one batch, every attempt and the waits
	// between them together. It leaves room for one attempt at Ollama's
	// full request timeout (a cold model load) and a retry after it, and
	// makes a server that accepts connections but never answers fail an
	// index run in minutes rather than after every retry has run out.
	DefaultBatchTimeout = 3 * time.Minute
	// DefaultRunTimeout bounds the embedding pass of one index run. A
	// laptop CPU embeds a few dozen chunks a second with a small model, so
	// an hour covers the first pass over tens of thousands of notes; a run
	// cut short keeps what it stored and the next run goes on.
	DefaultRunTimeout = time.Hour
	// retryBase is the wait before the first retry; each further retry
	// doubles it, up to retryCap, and jitter spreads clients apart.
	retryBase = 500 * time.Millisecond
	retryCap  = 8 * time.Second
	// maxRetryAfter bounds how long a server's Retry-After can hold an
	// index run.
	maxRetryAfter = time.Minute
	// maxResponse bounds the answer read from a server; a batch of 128
	// vectors of 3,072 floats is about 8 MB of JSON.
	maxResponse = 64 << 20
)

// Sentinel errors of the remote embedders, for callers that branch.
var (
	// ErrUnreachable means no HTTP answer came back: refused connection,
	// unknown host, timeout.
	ErrUnreachable = errors.New("embedding server unreachable")
	// ErrDimension means the server answered vectors of a different length
	// than before, or of different lengths in one answer.
	ErrDimension = errors.New("embedding dimension changed")
	// ErrBadResponse means the server answered 2xx with something that is
	// not the expected embeddings.
	ErrBadResponse = errors.New("unexpected answer from embedding server")
	// ErrTimeout means no vectors came back within the time allowed for
	// a batch, every attempt together: a server that accepts connections
	// and never answers, or answers errors until the time is up. It is
	// also ErrUnreachable.
	ErrTimeout = errors.New("embedding server did not answer in time")
)

// APIError is an error answer of an embedding server: its HTTP status and
// its own message, so the user reads what the server said
// (`ollama: model "x" not found, try pulling it first (HTTP 404)`).
type APIError struct {
	Provider   string // "ollama" or "openai"
	StatusCode int
	Message    string
	// Type and Code are OpenAI's error type and code, when given.
	Type, Code string
}

func (e *APIError) Error() string {
	return fmt.Sprintf("%s: %s (HTTP %d)", e.Provider, e.Message, e.StatusCode)
}

// Temporary reports whether trying again later may succeed: rate limits
// and server errors, not bad requests or unknown models.
func (e *APIError) Temporary() bool {
	return e.StatusCode == http.StatusTooManyRequests || e.StatusCode >= 500
}

// Config selects and configures a remote embedder; it is what the
// configuration file and environment settle into. Zero values take the
// provider's defaults.
type Config struct {
	Provider string // "ollama" or "openai"
	Model    string
	BaseURL  string
	APIKey   string // openai only
	// Timeout bounds each HTTP request, retries apart.
	Timeout time.Duration
	// BatchTimeout bounds one batch, its attempts and the waits between
	// them together; 0 takes DefaultBatchTimeout, or Timeout plus a
	// minute when that is longer.
	BatchTimeout time.Duration
	// BatchSize is the number of texts sent in one request.
	BatchSize int
	// MaxRetries is how often a request that may succeed later is tried
	// again; 0 takes DefaultMaxRetries, a negative value disables retries.
	MaxRetries int
}

// DefaultModel is the model a provider uses when none is configured.
func DefaultModel(provider string) string {
	switch provider {
	case ProviderOllama:
		return DefaultOllamaModel
	case ProviderOpenAI:
		return DefaultOpenAIModel
	case ProviderLexical:
		return lexicalModel
	}
	return ""
}

// NewRemote builds the Ollama or OpenAI-compatible embedder cfg names,
// sending its requests with client (http.DefaultClient when nil). The
// lexical embedder is not remote: it is built from its stored state with
// NewLexicalFromState.
func NewRemote(cfg Config, client *http.Client) (Embedder, error) {
	switch cfg.Provider {
	case ProviderOllama:
		return NewOllama(OllamaOptions{
			BaseURL: cfg.BaseURL, Model: cfg.Model, BatchSize: cfg.BatchSize,
			Timeout: cfg.Timeout, BatchTimeout: cfg.BatchTimeout, MaxRetries: cfg.MaxRetries, Client: client,
		})
	case ProviderOpenAI:
		return NewOpenAI(OpenAIOptions{
			BaseURL: cfg.BaseURL, Model: cfg.Model, APIKey: cfg.APIKey, BatchSize: cfg.BatchSize,
			Timeout: cfg.Timeout, BatchTimeout: cfg.BatchTimeout, MaxRetries: cfg.MaxRetries, Client: client,
		})
	case ProviderLexical:
		return nil, errors.New("the lexical embedder is not remote: build it from its state with NewLexicalFromState")
	}
	return nil, fmt.Errorf("unknown embedding provider %q: use ollama or openai", cfg.Provider)
}

// protocol is what differs between the remote APIs: the request body, the
// answer and the error body.
type protocol interface {
	requestBody(model string, texts []string) any
	// vectors decodes a 2xx answer for n texts, in input order.
	vectors(body []byte, n int) ([][]float32, error)
	// apiError fills the server's message, type and code from an error
	// body it may or may not understand.
	apiError(e *APIError, body []byte)
}

// remote is the HTTP machinery shared by the Ollama and OpenAI embedders:
// batching, per-request timeouts, retries, error wording and the
// dimension check.
type remote struct {
	provider string
	model    string
	endpoint string // full URL of the embeddings endpoint
	apiKey   string
	batch    int
	timeout  time.Duration // one request
	// batchTimeout bounds one batch: its attempts and the waits between
	// them.
	batchTimeout time.Duration
	retries      int
	client       *http.Client
	proto        protocol
	dim          atomic.Int64

	// wait sleeps between attempts; tests replace it to record waits
	// instead of sleeping.
	wait func(ctx context.Context, d time.Duration) error
}

func newRemote(provider, model, endpoint, apiKey string, batch, retries int, timeout, batchTimeout time.Duration, client *http.Client, proto protocol) *remote {
	if client == nil {
		client = http.DefaultClient
	}
	switch {
	case retries == 0:
		retries = DefaultMaxRetries
	case retries < 0:
		retries = 0
	}
	if batchTimeout <= 0 {
		// A request timeout set longer than the default batch bound would
		// otherwise never get a second attempt.
		batchTimeout = max(DefaultBatchTimeout, timeout+time.Minute)
	}
	return &remote{
		provider: provider, model: model, endpoint: endpoint, apiKey: apiKey,
		batch: batch, timeout: timeout, batchTimeout: batchTimeout, retries: retries, client: client, proto: proto,
		wait: sleepCtx,
	}
}

// parseBaseURL checks a configured base URL early, so that a typo fails
// when the embedder is built rather than on the first request.
func parseBaseURL(provider, base string) (*url.URL, error) {
	u, err := reach.ParseBaseURL(base)
	if err != nil {
		return nil, fmt.Errorf("%s base URL %w", provider, err)
	}
	return u, nil
}

func (r *remote) fingerprint() string {
	return fmt.Sprintf("%s/%s/%d", r.provider, r.model, r.dim.Load())
}

// embed sends texts in batches and returns one unit vector per text.
// Blank texts are not sent (OpenAI rejects empty input) and get the zero
// vector, as with the lexical embedder.
func (r *remote) embed(ctx context.Context, texts []string) ([][]float32, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", r.provider, err)
	}
	out := make([][]float32, len(texts))
	var send []int // indexes of texts to send
	for i, t := range texts {
		if strings.TrimSpace(t) != "" {
			send = append(send, i)
		}
	}
	batch := make([]string, 0, min(r.batch, len(send)))
	for start := 0; start < len(send); start += r.batch {
		idx := send[start:min(start+r.batch, len(send))]
		batch = batch[:0]
		for _, i := range idx {
			batch = append(batch, texts[i])
		}
		vecs, err := r.embedBatch(ctx, batch)
		if err != nil {
			return nil, err
		}
		for j, i := range idx {
			out[i] = vecs[j]
		}
	}
	if len(send) < len(texts) {
		dim := int(r.dim.Load())
		if dim == 0 {
			// Only blank texts so far: learn the dimension from a probe.
			if err := r.check(ctx); err != nil {
				return nil, err
			}
			dim = int(r.dim.Load())
		}
		for i := range out {
			if out[i] == nil {
				out[i] = make([]float32, dim)
			}
		}
	}
	return out, nil
}

// check embeds one short text without retrying: the cheapest proof that
// the server answers and knows the model.
func (r *remote) check(ctx context.Context) error {
	began := time.Now()
	_, err := r.attempt(ctx, []string{"jarvis"})
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return r.timedOut(ctx, began, 1, nil)
	}
	var re *retryableError
	if errors.As(err, &re) {
		return re.err
	}
	return err
}

// embedBatch sends one batch, trying again on errors that may pass, until
// the batch's time is up.
func (r *remote) embedBatch(ctx context.Context, texts []string) ([][]float32, error) {
	began := time.Now()
	ctx, cancel := context.WithTimeout(ctx, r.batchTimeout)
	defer cancel()
	for try := 0; ; try++ {
		vecs, err := r.attempt(ctx, texts)
		if err == nil {
			return vecs, nil
		}
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			return nil, r.timedOut(ctx, began, try+1, nil)
		}
		var re *retryableError
		if !errors.As(err, &re) {
			return nil, err
		}
		if try >= r.retries {
			if try == 0 {
				return nil, re.err
			}
			return nil, fmt.Errorf("%w; gave up after %d attempts", re.err, try+1)
		}
		d := re.retryAfter
		if d <= 0 {
			d = backoff(try)
		}
		if deadline, ok := ctx.Deadline(); ok && time.Now().Add(d).After(deadline) {
			// The next attempt could not begin in time: say so now rather
			// than wait for it.
			return nil, r.timedOut(ctx, began, try+1, re.err)
		}
		if err := r.wait(ctx, d); err != nil {
			if errors.Is(err, context.DeadlineExceeded) {
				return nil, r.timedOut(ctx, began, try+1, re.err)
			}
			return nil, fmt.Errorf("%s: %w (while waiting to retry after: %v)", r.provider, err, re.err)
		}
	}
}

// timedOut words a batch or check whose time ran out: ctx's deadline,
// counted from began, is the time it had. last is the error of the last
// attempt when the server answered one; nil when it did not answer.
func (r *remote) timedOut(ctx context.Context, began time.Time, attempts int, last error) error {
	within := time.Since(began)
	if deadline, ok := ctx.Deadline(); ok {
		within = deadline.Sub(began)
	}
	var u *unreachableError
	if errors.As(last, &u) && u.noAnswer {
		last = nil // "did not answer" says it already
	}
	return &TimeoutError{Provider: r.provider, Host: r.host(), Within: within.Round(time.Millisecond), Attempts: attempts, Last: last}
}

// TimeoutError is ErrTimeout with its circumstances: which server, how
// long it was given, how often it was asked.
type TimeoutError struct {
	Provider string
	Host     string // scheme://host:port of the server
	Within   time.Duration
	Attempts int
	// Last is the error of the last attempt when the server answered with
	// one (a 503), nil when it did not answer at all.
	Last error
}

func (e *TimeoutError) Error() string {
	attempts := "1 attempt"
	if e.Attempts != 1 {
		attempts = fmt.Sprintf("%d attempts", e.Attempts)
	}
	if e.Last != nil {
		return fmt.Sprintf("%s: the embedder at %s gave no vectors within %s (%s; the last: %v)", e.Provider, e.Host, e.Within, attempts, e.Last)
	}
	return fmt.Sprintf("%s: the embedder at %s did not answer within %s (%s)", e.Provider, e.Host, e.Within, attempts)
}

// Is makes a TimeoutError match ErrTimeout, ErrUnreachable (no vectors
// came back) and context.DeadlineExceeded (the time allowed ran out).
func (e *TimeoutError) Is(target error) bool {
	return target == ErrTimeout || target == ErrUnreachable || target == context.DeadlineExceeded
}

// host is the scheme and host of the endpoint, as messages name it.
func (r *remote) host() string {
	if u, err := url.Parse(r.endpoint); err == nil {
		return u.Scheme + "://" + u.Host
	}
	return r.endpoint
}

// retryableError marks an attempt's error as worth another try, with the
// wait the server asked for, if any.
type retryableError struct {
	err        error
	retryAfter time.Duration
}

func (e *retryableError) Error() string { return e.err.Error() }
func (e *retryableError) Unwrap() error { return e.err }

// backoff is the wait before retry number try+1: exponential from
// retryBase, capped at retryCap, with "equal jitter" (half fixed, half
// random) so that clients which failed together do not retry together.
func backoff(try int) time.Duration {
	d := retryCap
	if try < 16 {
		d = min(retryBase<<try, retryCap)
	}
	return d/2 + rand.N(d/2+1)
}

func sleepCtx(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// attempt makes one request for texts, within the per-request timeout.
func (r *remote) attempt(ctx context.Context, texts []string) ([][]float32, error) {
	body, err := json.Marshal(r.proto.requestBody(r.model, texts))
	if err != nil {
		return nil, fmt.Errorf("%s: encode request: %w", r.provider, err)
	}
	actx := ctx
	if r.timeout > 0 {
		var cancel context.CancelFunc
		actx, cancel = context.WithTimeout(ctx, r.timeout)
		defer cancel()
	}
	req, err := http.NewRequestWithContext(actx, http.MethodPost, r.endpoint, bytes.NewReader(body))
	if err != nil {
		return nil, fmt.Errorf("%s: build request: %w", r.provider, err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	req.Header.Set("User-Agent", "jarvis")
	if r.apiKey != "" {
		req.Header.Set("Authorization", "Bearer "+r.apiKey)
	}
	resp, err := r.client.Do(req)
	if err != nil {
		return nil, r.transportError(ctx, err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(resp.Body, maxResponse+1))
	if err != nil {
		return nil, r.transportError(ctx, err)
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		apiErr := &APIError{Provider: r.provider, StatusCode: resp.StatusCode}
		r.proto.apiError(apiErr, raw)
		if apiErr.Message == "" {
			apiErr.Message = plainMessage(raw, resp.StatusCode)
		}
		if apiErr.Temporary() {
			return nil, &retryableError{err: apiErr, retryAfter: retryAfter(resp.Header.Get("Retry-After"), time.Now())}
		}
		return nil, apiErr
	}
	if len(raw) > maxResponse {
		return nil, fmt.Errorf("%s: %w: answer larger than %d MB", r.provider, ErrBadResponse, maxResponse>>20)
	}
	vecs, err := r.proto.vectors(raw, len(texts))
	if err != nil {
		return nil, fmt.Errorf("%s: %w: %v", r.provider, ErrBadResponse, err)
	}
	if err := r.checkDimension(vecs); err != nil {
		return nil, err
	}
	for _, v := range vecs {
		normalize(v)
	}
	return vecs, nil
}

// checkDimension learns the dimension from the first answer and rejects
// any vector of another length afterwards: vectors of different lengths
// cannot be compared.
func (r *remote) checkDimension(vecs [][]float32) error {
	for _, v := range vecs {
		if len(v) == 0 {
			return fmt.Errorf("%s: %w: empty vector", r.provider, ErrBadResponse)
		}
		want := int(r.dim.Load())
		if want == 0 {
			if r.dim.CompareAndSwap(0, int64(len(v))) {
				want = len(v)
			} else {
				want = int(r.dim.Load())
			}
		}
		if len(v) != want {
			return fmt.Errorf("%s: %w: model %q answered a vector of %d dimensions, earlier ones had %d",
				r.provider, ErrDimension, r.model, len(v), want)
		}
	}
	return nil
}

// transportError words an error that left no HTTP answer: what happened,
// without Go's internal error chain, and whether it is worth retrying.
func (r *remote) transportError(ctx context.Context, err error) error {
	if ctxErr := ctx.Err(); ctxErr != nil {
		// The caller gave up; never retry.
		return fmt.Errorf("%s: %w", r.provider, ctxErr)
	}
	// The kind of failure, and its words, are reach's, as for the model
	// download; a timeout names this embedder's own limit.
	why, ok := reach.Why(err)
	noAnswer := false
	switch kind := reach.Classify(err); {
	case kind == reach.Timeout:
		why = fmt.Sprintf("no answer within %s", r.timeout)
		noAnswer = true
	case kind == reach.Refused && r.provider == ProviderOllama:
		why += " (is Ollama running? start it with `ollama serve`)"
	case kind == reach.NoName || kind == reach.Proxy || kind == reach.TLS:
		why += "; " + reach.Hint(err)
	case !ok:
		why = innermost(err).Error()
	}
	return &retryableError{err: &unreachableError{msg: fmt.Sprintf("%s: cannot reach %s: %s", r.provider, r.host(), why), noAnswer: noAnswer}}
}

// unreachableError is ErrUnreachable with its circumstances, worded
// without repeating the sentinel's text.
type unreachableError struct {
	msg      string
	noAnswer bool // the request timed out, rather than failed
}

func (e *unreachableError) Error() string        { return e.msg }
func (e *unreachableError) Is(target error) bool { return target == ErrUnreachable }

// innermost is the last error of a chain: "connection reset by peer"
// rather than `Post "http://...": read tcp ...: connection reset by peer`.
func innermost(err error) error {
	for {
		next := errors.Unwrap(err)
		if next == nil {
			return err
		}
		err = next
	}
}

// plainMessage is the message of an error body that is not the
// provider's JSON (a proxy's HTML page, a plain "404 page not found"):
// its first line, shortened, or the status text.
func plainMessage(body []byte, status int) string {
	s := strings.TrimSpace(string(body))
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = strings.TrimSpace(s[:i])
	}
	if strings.HasPrefix(s, "<") || s == "" {
		return strings.ToLower(http.StatusText(status))
	}
	if len(s) > 200 {
		s = s[:200] + "..."
	}
	return s
}

// retryAfter reads a Retry-After header, in seconds or as an HTTP date,
// capped at maxRetryAfter; 0 when absent or unreadable.
func retryAfter(h string, now time.Time) time.Duration {
	h = strings.TrimSpace(h)
	if h == "" {
		return 0
	}
	var d time.Duration
	if secs, err := strconv.ParseFloat(h, 64); err == nil {
		if secs <= 0 {
			return 0
		}
		d = time.Duration(secs * float64(time.Second))
	} else if t, err := http.ParseTime(h); err == nil {
		d = t.Sub(now)
	}
	return max(0, min(d, maxRetryAfter))
}

// decodeJSON decodes an answer, wording a failure briefly.
func decodeJSON(body []byte, v any) error {
	if err := json.Unmarshal(body, v); err != nil {
		var syn *json.SyntaxError
		var typ *json.UnmarshalTypeError
		switch {
		case errors.As(err, &syn):
			return fmt.Errorf("answer is not JSON (%s)", shorten(body))
		case errors.As(err, &typ):
			return fmt.Errorf("field %q holds a %s where %s was expected", typ.Field, typ.Value, jsonKind(typ.Type))
		}
		return err
	}
	return nil
}

// jsonKind names what a Go type looks like in JSON, for error messages
// that speak of the answer rather than of Go types.
func jsonKind(t reflect.Type) string {
	switch t.Kind() {
	case reflect.Slice, reflect.Array:
		return "a list"
	case reflect.Struct, reflect.Map:
		return "an object"
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "true or false"
	case reflect.Float32, reflect.Float64, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "a number"
	}
	return "another kind of value"
}

func shorten(b []byte) string {
	s := strings.TrimSpace(string(b))
	if len(s) > 80 {
		s = s[:80] + "..."
	}
	return strconv.Quote(s)
}

package embed

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestOllamaRequestShape(t *testing.T) {
	f := newFakeServer(t, ProviderOllama)
	e := remoteFor(t, f, Config{Model: "nomic-embed-text"}, nil)
	if _, err := e.Embed(context.Background(), []string{"first note", "second note"}); err != nil {
		t.Fatal(err)
	}
	h := f.header(0)
	if got := h.Get("Content-Type"); got != "application/json" {
		t.Errorf("Content-Type %q", got)
	}
	if got := h.Get("Authorization"); got != "" {
		t.Errorf("Authorization %q sent to Ollama", got)
	}
	want := map[string]any{"model": "nomic-embed-text", "input": []any{"first note", "second note"}}
	if got := f.body(0); !reflect.DeepEqual(got, want) {
		t.Errorf("body %v, want %v", got, want)
	}
	if want := fmt.Sprintf("ollama/nomic-embed-text/%d", LexicalDimension); e.Fingerprint() != want {
		t.Errorf("fingerprint %q, want %q", e.Fingerprint(), want)
	}
}

func TestOpenAIRequestShape(t *testing.T) {
	for _, tt := range []struct {
		name, base, key string
	}{
		{"root", "", "sk-test"},
		{"root with slash", "/", "sk-test"},
		{"base ending in v1", "/v1", "sk-test"},
		{"base ending in v1/", "/v1/", ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			f := newFakeServer(t, ProviderOpenAI)
			e := remoteFor(t, f, Config{BaseURL: f.URL + tt.base, APIKey: tt.key, Model: "text-embedding-3-small"}, nil)
			vecs, err := e.Embed(context.Background(), []string{"first note", "second note", "third"})
			if err != nil {
				t.Fatal(err) // a wrong path answers 404
			}
			want, _ := f.lex.Embed(context.Background(), []string{"first note", "second note", "third"})
			for i := range want {
				if d := dot(vecs[i], want[i]); d < 0.9999 {
					t.Errorf("vector %d is not the server's vector %d (cosine %.4f): the server answers in reverse index order", i, i, d)
				}
			}
			h := f.header(0)
			wantAuth := ""
			if tt.key != "" {
				wantAuth = "Bearer " + tt.key
			}
			if got := h.Get("Authorization"); got != wantAuth {
				t.Errorf("Authorization %q, want %q", got, wantAuth)
			}
			if got := h.Get("Content-Type"); got != "application/json" {
				t.Errorf("Content-Type %q", got)
			}
			wantBody := map[string]any{"model": "text-embedding-3-small", "input": []any{"first note", "second note", "third"}}
			if got := f.body(0); !reflect.DeepEqual(got, wantBody) {
				t.Errorf("body %v, want %v", got, wantBody)
			}
		})
	}
}

func TestRemoteBatching(t *testing.T) {
	for _, provider := range []string{ProviderOllama, ProviderOpenAI} {
		t.Run(provider, func(t *testing.T) {
			f := newFakeServer(t, provider)
			e := remoteFor(t, f, Config{BatchSize: 3}, nil)
			in := []string{"a", "b", "", "c", "d", "e", "f", "g"}
			vecs, err := e.Embed(context.Background(), in)
			if err != nil {
				t.Fatal(err)
			}
			if len(vecs) != len(in) {
				t.Fatalf("%d vectors for %d texts", len(vecs), len(in))
			}
			// Seven non-blank texts in batches of three.
			if n := f.requests.Load(); n != 3 {
				t.Errorf("%d requests, want 3", n)
			}
			var sizes []int
			for i := range 3 {
				sizes = append(sizes, len(f.body(i)["input"].([]any)))
			}
			if !slices.Equal(sizes, []int{3, 3, 1}) {
				t.Errorf("batch sizes %v, want [3 3 1]", sizes)
			}
		})
	}
}

// errorCase is a failure scenario of a remote embedder, with the error
// body each provider sends and the error each must give.
type errorCase struct {
	name           string
	status         int
	header         map[string]string
	ollama, openai string // error bodies
	then           bool   // the request after the failure succeeds
	retries        int    // Config.MaxRetries
	// wantOllama and wantOpenAI are the error texts; unused with then.
	wantOllama, wantOpenAI string
	wantCode               string // OpenAI's error code, when it sends one
	wantRequests           int64
	wantWaits              []time.Duration // nil: not checked
}

func TestRemoteErrors(t *testing.T) {
	tests := []errorCase{
		{
			name: "404 model not found is not retried", status: 404,
			ollama:       `{"error":"model \"nomic-embed-txt\" not found, try pulling it first"}`,
			openai:       `{"error":{"message":"The model ` + "`nomic-embed-txt`" + ` does not exist or you do not have access to it.","type":"invalid_request_error","param":null,"code":"model_not_found"}}`,
			wantOllama:   `ollama: model "nomic-embed-txt" not found, try pulling it first (HTTP 404)`,
			wantOpenAI:   "openai: The model `nomic-embed-txt` does not exist or you do not have access to it. (HTTP 404)",
			wantCode:     "model_not_found",
			wantRequests: 1,
		},
		{
			name: "401 bad key is not retried", status: 401,
			ollama:       `{"error":"unauthorized"}`,
			openai:       `{"error":{"message":"Incorrect API key provided: sk-bad.","type":"invalid_request_error","param":null,"code":"invalid_api_key"}}`,
			wantOllama:   "ollama: unauthorized (HTTP 401)",
			wantOpenAI:   "openai: Incorrect API key provided: sk-bad. (HTTP 401)",
			wantCode:     "invalid_api_key",
			wantRequests: 1,
		},
		{
			name: "400 from a compatible server with a plain error string", status: 400,
			ollama:       `{"error":"input length exceeds the context length"}`,
			openai:       `{"error":"input is too large to process. increase the physical batch size"}`,
			wantOllama:   "ollama: input length exceeds the context length (HTTP 400)",
			wantOpenAI:   "openai: input is too large to process. increase the physical batch size (HTTP 400)",
			wantRequests: 1,
		},
		{
			name: "429 with Retry-After then success", status: 429, header: map[string]string{"Retry-After": "2"},
			ollama:       `{"error":"too many requests"}`,
			openai:       `{"error":{"message":"Rate limit reached for requests","type":"requests","param":null,"code":"rate_limit_exceeded"}}`,
			then:         true,
			wantRequests: 2, wantWaits: []time.Duration{2 * time.Second},
		},
		{
			name: "500 retried then given up with the server's message", status: 500,
			ollama:       `{"error":"llama runner process has terminated: signal: killed"}`,
			openai:       `{"error":{"message":"The server had an error while processing your request.","type":"server_error","param":null,"code":null}}`,
			retries:      2,
			wantOllama:   "ollama: llama runner process has terminated: signal: killed (HTTP 500); gave up after 3 attempts",
			wantOpenAI:   "openai: The server had an error while processing your request. (HTTP 500); gave up after 3 attempts",
			wantRequests: 3,
		},
		{
			name: "503 from a proxy with an HTML page", status: 503,
			ollama:       "<html><body><h1>503 Service Unavailable</h1></body></html>",
			openai:       "<html><body><h1>503 Service Unavailable</h1></body></html>",
			retries:      -1,
			wantOllama:   "ollama: service unavailable (HTTP 503)",
			wantOpenAI:   "openai: service unavailable (HTTP 503)",
			wantRequests: 1,
		},
	}
	for _, tt := range tests {
		for _, provider := range []string{ProviderOllama, ProviderOpenAI} {
			t.Run(tt.name+"/"+provider, func(t *testing.T) {
				f := newFakeServer(t, provider)
				body, want := tt.ollama, tt.wantOllama
				if provider == ProviderOpenAI {
					body, want = tt.openai, tt.wantOpenAI
				}
				fail := fakeAnswer{status: tt.status, header: tt.header, body: body}
				if tt.then {
					f.setScript(fail)
				} else {
					f.setScript(fail, fail, fail, fail, fail, fail)
				}
				var w waits
				e := remoteFor(t, f, Config{MaxRetries: tt.retries}, &w)
				vecs, err := e.Embed(context.Background(), []string{"a note"})
				if n := f.requests.Load(); n != tt.wantRequests {
					t.Errorf("%d requests, want %d", n, tt.wantRequests)
				}
				if tt.wantWaits != nil && !slices.Equal(w.all(), tt.wantWaits) {
					t.Errorf("waited %v, want %v", w.all(), tt.wantWaits)
				}
				if tt.then {
					if err != nil || len(vecs) != 1 {
						t.Fatalf("want success after the retry, got %v", err)
					}
					return
				}
				if err == nil {
					t.Fatal("no error")
				}
				if err.Error() != want {
					t.Errorf("error\n%s\nwant\n%s", err, want)
				}
				var apiErr *APIError
				if !errors.As(err, &apiErr) || apiErr.StatusCode != tt.status {
					t.Fatalf("error %v is not an APIError of status %d", err, tt.status)
				}
				if provider == ProviderOpenAI && apiErr.Code != tt.wantCode {
					t.Errorf("code %q, want %q", apiErr.Code, tt.wantCode)
				}
			})
		}
	}
}

func TestRemoteBackoff(t *testing.T) {
	f := newFakeServer(t, ProviderOllama)
	fail := fakeAnswer{status: 502, body: `{"error":"bad gateway"}`}
	f.setScript(fail, fail, fail, fail, fail, fail, fail, fail)
	var w waits
	e := remoteFor(t, f, Config{MaxRetries: 6}, &w)
	if _, err := e.Embed(context.Background(), []string{"a"}); err == nil {
		t.Fatal("no error")
	}
	got := w.all()
	if len(got) != 6 {
		t.Fatalf("%d waits, want 6", len(got))
	}
	for i, d := range got {
		full := min(retryBase<<i, retryCap)
		if d < full/2 || d > full {
			t.Errorf("wait %d is %v, want between %v and %v", i, d, full/2, full)
		}
	}
}

func TestRetryAfter(t *testing.T) {
	now := time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC)
	tests := []struct {
		name, header string
		want         time.Duration
	}{
		{"absent", "", 0},
		{"seconds", "3", 3 * time.Second},
		{"fraction", "0.5", 500 * time.Millisecond},
		{"HTTP date", now.Add(10 * time.Second).Format(http.TimeFormat), 10 * time.Second},
		{"past date", now.Add(-time.Hour).Format(http.TimeFormat), 0},
		{"capped", "86400", maxRetryAfter},
		{"negative", "-5", 0},
		{"garbage", "soon", 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := retryAfter(tt.header, now); got != tt.want {
				t.Errorf("retryAfter(%q) = %v, want %v", tt.header, got, tt.want)
			}
		})
	}
}

func TestRemoteBadAnswers(t *testing.T) {
	tests := []struct {
		name           string
		ollama, openai string
		wantErr        error
	}{
		{"not JSON", "upstream connect error", "upstream connect error", ErrBadResponse},
		{"too few vectors", `{"model":"m","embeddings":[[1,0]]}`, `{"data":[{"index":0,"embedding":[1,0]}]}`, ErrBadResponse},
		{"vectors of different lengths", `{"model":"m","embeddings":[[1,0],[1,0,0]]}`, `{"data":[{"index":0,"embedding":[1,0]},{"index":1,"embedding":[1,0,0]}]}`, ErrDimension},
		{"empty vector", `{"model":"m","embeddings":[[],[]]}`, `{"data":[{"index":0,"embedding":[]},{"index":1,"embedding":[]}]}`, ErrBadResponse},
		{"repeated index", ``, `{"data":[{"index":0,"embedding":[1,0]},{"index":0,"embedding":[1,0]}]}`, ErrBadResponse},
		{"string where numbers go", `{"model":"m","embeddings":"none"}`, `{"data":"none"}`, ErrBadResponse},
	}
	for _, tt := range tests {
		for _, provider := range []string{ProviderOllama, ProviderOpenAI} {
			body := tt.ollama
			if provider == ProviderOpenAI {
				body = tt.openai
			}
			if body == "" {
				continue
			}
			t.Run(tt.name+"/"+provider, func(t *testing.T) {
				f := newFakeServer(t, provider)
				f.setScript(fakeAnswer{status: 200, body: body})
				e := remoteFor(t, f, Config{}, nil)
				_, err := e.Embed(context.Background(), []string{"one", "two"})
				if !errors.Is(err, tt.wantErr) {
					t.Fatalf("error %v, want %v", err, tt.wantErr)
				}
				if f.requests.Load() != 1 {
					t.Errorf("%d requests: a malformed answer must not be retried", f.requests.Load())
				}
				if strings.Contains(err.Error(), "json:") || strings.Contains(err.Error(), "[]float32") {
					t.Errorf("error leaks Go internals: %v", err)
				}
			})
		}
	}
}

func TestRemoteDimensionChange(t *testing.T) {
	for _, provider := range []string{ProviderOllama, ProviderOpenAI} {
		t.Run(provider, func(t *testing.T) {
			f := newFakeServer(t, provider)
			f.dim = func(request int) int {
				if request == 0 {
					return 256
				}
				return 128
			}
			e := remoteFor(t, f, Config{}, nil)
			if _, err := e.Embed(context.Background(), []string{"first"}); err != nil {
				t.Fatal(err)
			}
			if e.Dimension() != 256 {
				t.Fatalf("dimension %d, want 256 from the first answer", e.Dimension())
			}
			_, err := e.Embed(context.Background(), []string{"second"})
			if !errors.Is(err, ErrDimension) {
				t.Fatalf("error %v, want ErrDimension", err)
			}
			if !strings.Contains(err.Error(), "128") || !strings.Contains(err.Error(), "256") {
				t.Errorf("error %q does not name both dimensions", err)
			}
			if e.Dimension() != 256 {
				t.Errorf("dimension moved to %d", e.Dimension())
			}
		})
	}
}

func TestRemoteTimeout(t *testing.T) {
	for _, provider := range []string{ProviderOllama, ProviderOpenAI} {
		t.Run(provider, func(t *testing.T) {
			f := newFakeServer(t, provider)
			hang := fakeAnswer{hang: true}
			f.setScript(hang, hang)
			var w waits
			e := remoteFor(t, f, Config{Timeout: 100 * time.Millisecond, MaxRetries: 1}, &w)
			start := time.Now()
			_, err := e.Embed(context.Background(), []string{"a"})
			if !errors.Is(err, ErrUnreachable) {
				t.Fatalf("error %v, want ErrUnreachable", err)
			}
			if !strings.Contains(err.Error(), "no answer within 100ms") || !strings.Contains(err.Error(), "gave up after 2 attempts") {
				t.Errorf("error %q", err)
			}
			if strings.Contains(err.Error(), "Post ") || strings.Contains(err.Error(), "context deadline") {
				t.Errorf("error leaks Go internals: %q", err)
			}
			if d := time.Since(start); d > 3*time.Second {
				t.Errorf("took %v for two 100ms timeouts", d)
			}
			if f.requests.Load() != 2 {
				t.Errorf("%d requests, want 2", f.requests.Load())
			}
		})
	}
}

func TestRemoteCancelMidRequest(t *testing.T) {
	f := newFakeServer(t, ProviderOllama)
	f.setScript(fakeAnswer{hang: true})
	e := remoteFor(t, f, Config{}, nil)
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(50*time.Millisecond, cancel)
	start := time.Now()
	_, err := e.Embed(ctx, []string{"a"})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("error %v, want context.Canceled", err)
	}
	if d := time.Since(start); d > 3*time.Second {
		t.Errorf("cancelling took %v", d)
	}
	if f.requests.Load() != 1 {
		t.Errorf("%d requests: a cancelled request must not be retried", f.requests.Load())
	}
}

func TestRemoteUnreachable(t *testing.T) {
	f := newFakeServer(t, ProviderOllama)
	url := f.URL
	f.Close() // nothing listens there now
	var w waits
	e, err := NewOllama(OllamaOptions{BaseURL: url, MaxRetries: 2})
	if err != nil {
		t.Fatal(err)
	}
	e.r.wait = w.wait
	_, err = e.Embed(context.Background(), []string{"a"})
	if !errors.Is(err, ErrUnreachable) {
		t.Fatalf("error %v, want ErrUnreachable", err)
	}
	want := "ollama: cannot reach " + url + ": the connection was refused (is Ollama running? start it with `ollama serve`); gave up after 3 attempts"
	if err.Error() != want {
		t.Errorf("error\n%s\nwant\n%s", err, want)
	}
	if len(w.all()) != 2 {
		t.Errorf("%d waits, want 2", len(w.all()))
	}
	if err := e.Check(context.Background()); !errors.Is(err, ErrUnreachable) {
		t.Errorf("Check: %v, want ErrUnreachable", err)
	}
}

// TestRemoteUnknownHost: an embedder whose host name resolves to nothing
// says so in the words the model download uses (reach), with what to
// check, not Go's "dial tcp: lookup ...: no such host".
func TestRemoteUnknownHost(t *testing.T) {
	var w waits
	e, err := NewOllama(OllamaOptions{BaseURL: "http://embedder.invalid:11434", MaxRetries: 1})
	if err != nil {
		t.Fatal(err)
	}
	e.r.wait = w.wait
	_, err = e.Embed(context.Background(), []string{"a"})
	if !errors.Is(err, ErrUnreachable) {
		t.Fatalf("error %v, want ErrUnreachable", err)
	}
	for _, s := range []string{"cannot reach http://embedder.invalid:11434: its name could not be looked up", "offline", "HTTPS_PROXY"} {
		if !strings.Contains(err.Error(), s) {
			t.Errorf("error %q does not say %q", err, s)
		}
	}
	for _, raw := range []string{"dial tcp", "lookup ", "no such host"} {
		if strings.Contains(err.Error(), raw) {
			t.Errorf("error %q holds Go's words %q", err, raw)
		}
	}
}

func TestRemoteWrongPath(t *testing.T) {
	// An Ollama older than /api/embed, or a base URL with a stray path,
	// answers a plain-text 404.
	f := newFakeServer(t, ProviderOllama)
	e := remoteFor(t, f, Config{BaseURL: f.URL + "/ollama"}, nil)
	_, err := e.Embed(context.Background(), []string{"a"})
	if err == nil || err.Error() != "ollama: 404 page not found (HTTP 404)" {
		t.Errorf("error %v", err)
	}
}

func TestCheck(t *testing.T) {
	for _, provider := range []string{ProviderOllama, ProviderOpenAI} {
		t.Run(provider, func(t *testing.T) {
			f := newFakeServer(t, provider)
			e := remoteFor(t, f, Config{}, nil)
			checker := e.(interface{ Check(context.Context) error })
			if err := checker.Check(context.Background()); err != nil {
				t.Fatal(err)
			}
			if e.Dimension() == 0 {
				t.Error("Check did not learn the dimension")
			}
			f.setScript(fakeAnswer{}, fakeAnswer{status: 500, body: `{"error":"boom"}`})
			var apiErr *APIError
			if err := checker.Check(context.Background()); !errors.As(err, &apiErr) || apiErr.StatusCode != 500 {
				t.Errorf("Check against a failing server: %v", err)
			}
			if f.requests.Load() != 2 {
				t.Errorf("Check retried: %d requests, want 2", f.requests.Load())
			}
		})
	}
}

func TestNewRemote(t *testing.T) {
	tests := []struct {
		name    string
		cfg     Config
		wantErr string
		check   func(t *testing.T, e Embedder)
	}{
		{name: "ollama defaults", cfg: Config{Provider: "ollama"}, check: func(t *testing.T, e Embedder) {
			r := remoteOf(e)
			if r.endpoint != "http://localhost:11434/api/embed" || r.model != DefaultOllamaModel ||
				r.batch != DefaultOllamaBatch || r.timeout != DefaultOllamaTimeout || r.retries != DefaultMaxRetries {
				t.Errorf("%+v", r)
			}
		}},
		{name: "openai defaults", cfg: Config{Provider: "openai", APIKey: "k"}, check: func(t *testing.T, e Embedder) {
			r := remoteOf(e)
			if r.endpoint != "https://api.openai.com/v1/embeddings" || r.model != DefaultOpenAIModel || r.apiKey != "k" ||
				r.batch != DefaultOpenAIBatch || r.timeout != DefaultOpenAITimeout {
				t.Errorf("%+v", r)
			}
		}},
		{name: "openai compatible local server", cfg: Config{Provider: "openai", BaseURL: "http://localhost:1234/", Model: "nomic-embed-text-v1.5", BatchSize: 8, Timeout: time.Second, MaxRetries: -1}, check: func(t *testing.T, e Embedder) {
			r := remoteOf(e)
			if r.endpoint != "http://localhost:1234/v1/embeddings" || r.batch != 8 || r.timeout != time.Second || r.retries != 0 {
				t.Errorf("%+v", r)
			}
			if e.Fingerprint() != "openai/nomic-embed-text-v1.5/0" {
				t.Errorf("fingerprint %q", e.Fingerprint())
			}
		}},
		{name: "ollama behind a path", cfg: Config{Provider: "ollama", BaseURL: "https://gpu.example.com/ollama/"}, check: func(t *testing.T, e Embedder) {
			if r := remoteOf(e); r.endpoint != "https://gpu.example.com/ollama/api/embed" {
				t.Errorf("endpoint %q", r.endpoint)
			}
		}},
		{name: "lexical", cfg: Config{Provider: "lexical"}, wantErr: "NewLexicalFromState"},
		{name: "unknown", cfg: Config{Provider: "cohere"}, wantErr: `unknown embedding provider "cohere"`},
		{name: "bad URL", cfg: Config{Provider: "ollama", BaseURL: "localhost:11434"}, wantErr: "not an http(s) URL"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e, err := NewRemote(tt.cfg, nil)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("error %v, want one containing %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			tt.check(t, e)
		})
	}
	for p, want := range map[string]string{"ollama": "nomic-embed-text", "openai": "text-embedding-3-small", "lexical": lexicalModel, "x": ""} {
		if got := DefaultModel(p); got != want {
			t.Errorf("DefaultModel(%q) = %q, want %q", p, got, want)
		}
	}
}

// TestRemoteOnlyBlankTexts checks that a batch of blank texts, which are
// never sent, still gets vectors of the server's dimension.
func TestRemoteOnlyBlankTexts(t *testing.T) {
	f := newFakeServer(t, ProviderOpenAI)
	e := remoteFor(t, f, Config{}, nil)
	vecs, err := e.Embed(context.Background(), []string{"", " "})
	if err != nil {
		t.Fatal(err)
	}
	if len(vecs) != 2 || len(vecs[0]) != LexicalDimension || norm(vecs[0]) != 0 {
		t.Errorf("want two zero vectors of %d dimensions (the fake server's), got %d of %d", LexicalDimension, len(vecs), len(vecs[0]))
	}
	if got := f.body(0)["input"].([]any); len(got) != 1 || got[0] == "" {
		t.Errorf("probe sent %v", got)
	}
}

// TestRemoteBatchTimeout: a server that accepts connections and never
// answers fails a batch once the batch's time is up, every attempt and
// wait together, whatever the request timeout and retries would allow.
func TestRemoteBatchTimeout(t *testing.T) {
	for _, tt := range []struct {
		name    string
		cfg     Config
		attempt string
	}{
		{"one attempt longer than the batch", Config{Timeout: time.Minute, BatchTimeout: 300 * time.Millisecond}, "(1 attempt)"},
		// 50 ms, a wait of 250-500 ms, 50 ms (ending by 600 ms), then a
		// wait of 500-1000 ms that would end past 700 ms whatever the
		// jitter. (With a whole second, 50+250+50+500 ms let a third
		// attempt start now and then.)
		{"retries cut short", Config{Timeout: 50 * time.Millisecond, BatchTimeout: 700 * time.Millisecond, MaxRetries: 10}, "(2 attempts)"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			f := newFakeServer(t, ProviderOllama)
			hang := fakeAnswer{hang: true}
			f.setScript(hang, hang, hang, hang, hang, hang, hang, hang, hang, hang, hang)
			e := remoteFor(t, f, tt.cfg, nil) // real waits between attempts
			start := time.Now()
			_, err := e.Embed(context.Background(), []string{"a"})
			took := time.Since(start)
			if !errors.Is(err, ErrTimeout) || !errors.Is(err, ErrUnreachable) {
				t.Fatalf("error %v, want ErrTimeout and ErrUnreachable", err)
			}
			want := fmt.Sprintf("ollama: the embedder at %s did not answer within %s ", f.URL, tt.cfg.BatchTimeout)
			if !strings.HasPrefix(err.Error(), want) || !strings.HasSuffix(err.Error(), tt.attempt) {
				t.Errorf("error %q, want %q...%q", err, want, tt.attempt)
			}
			if took > tt.cfg.BatchTimeout+2*time.Second {
				t.Errorf("took %v with a batch timeout of %v", took, tt.cfg.BatchTimeout)
			}
		})
	}
}

// TestRemoteBatchTimeoutStopsBeforeALongWait: a Retry-After that would end
// past the batch's time fails the batch at once, with the server's own
// message.
func TestRemoteBatchTimeoutStopsBeforeALongWait(t *testing.T) {
	f := newFakeServer(t, ProviderOllama)
	f.setScript(fakeAnswer{status: 503, header: map[string]string{"Retry-After": "30"}, body: `{"error":"server busy"}`})
	e := remoteFor(t, f, Config{BatchTimeout: 2 * time.Second}, nil)
	start := time.Now()
	_, err := e.Embed(context.Background(), []string{"a"})
	if !errors.Is(err, ErrTimeout) {
		t.Fatalf("error %v, want ErrTimeout", err)
	}
	if want := "ollama: the embedder at " + f.URL + " gave no vectors within 2s (1 attempt; the last: ollama: server busy (HTTP 503))"; err.Error() != want {
		t.Errorf("error\n%s\nwant\n%s", err, want)
	}
	if d := time.Since(start); d > time.Second {
		t.Errorf("took %v: it waited instead of giving up", d)
	}
}

// TestRemoteBatchTimeoutDefault: the default batch bound leaves a long
// request timeout room for a retry.
func TestRemoteBatchTimeoutDefault(t *testing.T) {
	f := newFakeServer(t, ProviderOllama)
	for _, tt := range []struct {
		cfg  Config
		want time.Duration
	}{
		{Config{}, DefaultBatchTimeout},
		{Config{Timeout: 5 * time.Minute}, 6 * time.Minute},
		{Config{Timeout: 5 * time.Minute, BatchTimeout: time.Minute}, time.Minute},
	} {
		if got := remoteOf(remoteFor(t, f, tt.cfg, nil)).batchTimeout; got != tt.want {
			t.Errorf("%+v: batch timeout %v, want %v", tt.cfg, got, tt.want)
		}
	}
}

// TestCheckHungServer: doctor's probe of a server that never answers says
// it is unreachable, not that it answered an error.
func TestCheckHungServer(t *testing.T) {
	f := newFakeServer(t, ProviderOpenAI)
	f.setScript(fakeAnswer{hang: true})
	e := remoteFor(t, f, Config{}, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	err := e.(interface{ Check(context.Context) error }).Check(ctx)
	if !errors.Is(err, ErrUnreachable) || !strings.Contains(err.Error(), "did not answer within") {
		t.Fatalf("Check of a hung server: %v; want ErrUnreachable, worded", err)
	}
}

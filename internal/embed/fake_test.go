package embed

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// fakeServer imitates an Ollama or OpenAI embeddings endpoint on loopback.
// It embeds with a lexical embedder, so that its vectors mean something,
// and can be told to fail first.
type fakeServer struct {
	*httptest.Server
	provider string
	lex      *Lexical
	requests atomic.Int64

	mu sync.Mutex
	// script answers request number i (0-based) when it has an entry;
	// later requests embed normally.
	script []fakeAnswer
	// bodies are the decoded request bodies, in order.
	bodies []map[string]any
	// headers are the request headers, in order.
	headers []http.Header
	// dim, when set, cuts the answered vectors to that length.
	dim func(request int) int
	// scale multiplies answered vectors, to check normalisation.
	scale float32
}

// fakeAnswer is a scripted reply.
type fakeAnswer struct {
	status int
	header map[string]string
	body   string
	// hang blocks until the client gives up.
	hang bool
}

func newFakeServer(t *testing.T, provider string) *fakeServer {
	t.Helper()
	f := &fakeServer{provider: provider, lex: fitLexical(lexicalCorpus), scale: 1}
	f.Server = httptest.NewServer(http.HandlerFunc(f.serve))
	t.Cleanup(f.Close)
	return f
}

func (f *fakeServer) serve(w http.ResponseWriter, r *http.Request) {
	n := int(f.requests.Add(1) - 1)
	var body map[string]any
	_ = json.NewDecoder(r.Body).Decode(&body)
	f.mu.Lock()
	f.bodies = append(f.bodies, body)
	f.headers = append(f.headers, r.Header.Clone())
	var ans *fakeAnswer
	if n < len(f.script) {
		ans = &f.script[n]
	}
	dim := f.dim
	scale := f.scale
	f.mu.Unlock()

	wantPath := "/api/embed"
	if f.provider == ProviderOpenAI {
		wantPath = "/v1/embeddings"
	}
	if r.Method != http.MethodPost || r.URL.Path != wantPath {
		// What both servers answer on an unknown route.
		http.Error(w, "404 page not found", http.StatusNotFound)
		return
	}
	if ans != nil {
		if ans.hang {
			select {
			case <-r.Context().Done():
			case <-time.After(10 * time.Second):
			}
			return
		}
		for k, v := range ans.header {
			w.Header().Set(k, v)
		}
		if ans.body != "" && ans.body[0] == '{' {
			w.Header().Set("Content-Type", "application/json")
		}
		w.WriteHeader(ans.status)
		_, _ = w.Write([]byte(ans.body))
		return
	}
	model, _ := body["model"].(string)
	raw, _ := body["input"].([]any)
	texts := make([]string, len(raw))
	for i, x := range raw {
		texts[i], _ = x.(string)
	}
	vecs, err := f.lex.Embed(r.Context(), texts)
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	for _, v := range vecs {
		for i := range v {
			v[i] *= scale
		}
	}
	if dim != nil {
		d := dim(n)
		for i := range vecs {
			vecs[i] = vecs[i][:d]
		}
	}
	w.Header().Set("Content-Type", "application/json")
	if f.provider == ProviderOllama {
		_ = json.NewEncoder(w).Encode(map[string]any{
			"model": model, "embeddings": vecs,
			"total_duration": 14143917, "load_duration": 1019500, "prompt_eval_count": 8,
		})
		return
	}
	// OpenAI: answer in reverse order, as the API does not promise input
	// order and clients must sort by index.
	type item struct {
		Object    string    `json:"object"`
		Index     int       `json:"index"`
		Embedding []float32 `json:"embedding"`
	}
	data := make([]item, len(vecs))
	for i, v := range vecs {
		data[len(vecs)-1-i] = item{"embedding", i, v}
	}
	_ = json.NewEncoder(w).Encode(map[string]any{
		"object": "list", "data": data, "model": model,
		"usage": map[string]int{"prompt_tokens": 8, "total_tokens": 8},
	})
}

func (f *fakeServer) setScript(answers ...fakeAnswer) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.script = answers
}

func (f *fakeServer) body(i int) map[string]any {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.bodies[i]
}

func (f *fakeServer) header(i int) http.Header {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.headers[i]
}

// waits records the waits between retries instead of sleeping.
type waits struct {
	mu sync.Mutex
	d  []time.Duration
}

func (w *waits) wait(ctx context.Context, d time.Duration) error {
	w.mu.Lock()
	w.d = append(w.d, d)
	w.mu.Unlock()
	return ctx.Err()
}

func (w *waits) all() []time.Duration {
	w.mu.Lock()
	defer w.mu.Unlock()
	return append([]time.Duration(nil), w.d...)
}

// remoteFor builds the embedder of f's provider against f, with waits
// recorded by w (when not nil).
func remoteFor(t *testing.T, f *fakeServer, cfg Config, w *waits) Embedder {
	t.Helper()
	cfg.Provider = f.provider
	if cfg.BaseURL == "" {
		cfg.BaseURL = f.URL
	}
	e, err := NewRemote(cfg, f.Client())
	if err != nil {
		t.Fatal(err)
	}
	if w != nil {
		remoteOf(e).wait = w.wait
	}
	return e
}

// remoteOf reaches the shared machinery of a remote embedder.
func remoteOf(e Embedder) *remote {
	switch e := e.(type) {
	case *Ollama:
		return e.r
	case *OpenAI:
		return e.r
	}
	panic("not a remote embedder")
}

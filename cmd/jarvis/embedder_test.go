package main

import (
	"database/sql"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jarvis-mcp/jarvis/internal/sharedtest"
)

// ollamaStub imitates Ollama's /api/embed on loopback: it answers while
// hang is false, and otherwise accepts the request and never answers
// until the client gives up.
type ollamaStub struct {
	*httptest.Server
	hang atomic.Bool
}

func newOllamaStub(t *testing.T) *ollamaStub {
	t.Helper()
	s := &ollamaStub{}
	closing := make(chan struct{})
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// Read the whole request first: only then does the server notice
		// a client that hangs up, and end r's context.
		var req struct {
			Input []string `json:"input"`
		}
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		_, _ = io.Copy(io.Discard, r.Body)
		if s.hang.Load() {
			select {
			case <-r.Context().Done():
			case <-closing:
			}
			return
		}
		vecs := make([][]float32, len(req.Input))
		for i, text := range req.Input {
			vecs[i] = []float32{float32(len(text)), 1, 0}
		}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]any{"embeddings": vecs})
	}))
	t.Cleanup(s.Close)
	t.Cleanup(func() { close(closing) }) // runs first: Close waits for handlers
	return s
}

func countVectors(t testing.TB, db string) int {
	t.Helper()
	raw := openRaw(t, db)
	defer raw.Close()
	var n int
	if err := raw.QueryRow(`SELECT count(*) FROM vectors`).Scan(&n); err != nil && err != sql.ErrNoRows {
		t.Fatal(err)
	}
	return n
}

// TestIndexWithAHungEmbedder: an embedding server that accepts requests
// and never answers makes `jarvis index` give up within the time allowed,
// exit 3, and say that the notes are indexed, which server did not answer
// within how long, and what to do; --json says it too. Vectors stored by
// an earlier run stay.
func TestIndexWithAHungEmbedder(t *testing.T) {
	tests := []struct {
		name  string
		vars  map[string]string
		limit time.Duration
		want  string
	}{
		{"batch limit", map[string]string{"JARVIS_EMBED_BATCH_TIMEOUT": "700ms"}, 700 * time.Millisecond, "did not answer within 700ms"},
		{"run limit", map[string]string{"JARVIS_EMBED_RUN_TIMEOUT": "700ms"}, 700 * time.Millisecond, "embedding stopped at the run limit of 700ms with 0 of "},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			stub := newOllamaStub(t)
			vault := t.TempDir()
			sharedtest.WriteFile(t, vault, "Coffee.md", "# Coffee\nGrind the beans coarse for a French press.\n")
			sharedtest.WriteFile(t, vault, "Tea.md", "# Tea\nSteep green tea for two minutes.\n")
			db := filepath.Join(t.TempDir(), "j.db")
			// The request timeout is far longer than the limit under test,
			// and it comes from the config file, which every jarvis reads.
			cfgFile := filepath.Join(t.TempDir(), "config.yaml")
			if err := os.WriteFile(cfgFile, []byte("embedder:\n  provider: ollama\n  url: "+stub.URL+"\n  timeout: 30s\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			args := []string{"index", "--config", cfgFile, "--vault", vault, "--db", db}
			if code, _, stderr := jarvis(t, nil, args...); code != 0 {
				t.Fatalf("index with the embedder answering: exit %d: %s", code, stderr)
			}
			stored := countVectors(t, db)
			if stored == 0 {
				t.Fatal("no vectors stored while the embedder answered")
			}

			sharedtest.WriteFile(t, vault, "Water.md", "# Water\nUse water just off the boil.\n")
			stub.hang.Store(true)
			start := time.Now()
			code, stdout, stderr := jarvis(t, tt.vars, args...)
			took := time.Since(start)
			if code != 3 {
				t.Fatalf("exit %d, want 3 (indexed, no vectors)\nstdout: %s\nstderr: %s", code, stdout, stderr)
			}
			if took > tt.limit+3*time.Second {
				t.Errorf("took %v with a limit of %v", took, tt.limit)
			}
			for _, want := range []string{
				"notes are indexed and keyword search works",
				"vectors for semantic search could not be made",
				"the embedder at " + stub.URL + " did not answer",
				tt.want,
				"--no-embed`",
			} {
				if !strings.Contains(stderr, want) {
					t.Errorf("stderr lacks %q:\n%s", want, stderr)
				}
			}
			if !strings.Contains(stdout, "3 notes") {
				t.Errorf("the summary does not show the notes indexed:\n%s", stdout)
			}
			if n := countVectors(t, db); n != stored {
				t.Errorf("%d vectors after the failed run; the %d stored before must stay", n, stored)
			}

			code, stdout, _ = jarvis(t, tt.vars, append(args, "--json")...)
			var out map[string]any
			if err := json.Unmarshal([]byte(stdout), &out); err != nil || code != 3 {
				t.Fatalf("--json: exit %d, %v:\n%s", code, err, stdout)
			}
			if msg, _ := out["vectors_error"].(string); !strings.Contains(msg, stub.URL) || !strings.Contains(msg, tt.want) {
				t.Errorf("--json vectors_error = %q; want the server and %q", msg, tt.want)
			}
		})
	}
}

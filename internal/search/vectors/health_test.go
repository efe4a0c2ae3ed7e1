package vectors

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/jarvis-mcp/jarvis/internal/embed"
	"github.com/jarvis-mcp/jarvis/internal/health"
	"github.com/jarvis-mcp/jarvis/internal/store"
)

// fakeOpenAI answers POST /v1/embeddings as an OpenAI-compatible server
// does, with 8-dimension vectors, or with OpenAI's error body for a model
// it does not have.
func fakeOpenAI(t *testing.T) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			Model string   `json:"model"`
			Input []string `json:"input"`
		}
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil || r.URL.Path != "/v1/embeddings" {
			http.Error(w, "bad request", http.StatusBadRequest)
			return
		}
		if req.Model != "known" {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusNotFound)
			w.Write([]byte(`{"error":{"message":"The model '` + req.Model + `' does not exist","type":"invalid_request_error","code":"model_not_found"}}`))
			return
		}
		type item struct {
			Object    string    `json:"object"`
			Index     int       `json:"index"`
			Embedding []float32 `json:"embedding"`
		}
		out := struct {
			Object string `json:"object"`
			Data   []item `json:"data"`
			Model  string `json:"model"`
		}{Object: "list", Model: req.Model}
		for i, text := range req.Input {
			v := make([]float32, 8)
			v[len(text)%8] = 1
			out.Data = append(out.Data, item{Object: "embedding", Index: i, Embedding: v})
		}
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(out)
	}))
	t.Cleanup(srv.Close)
	return srv
}

func openAISource(url, model string) EmbedderSource {
	return EmbedderSource{Provider: "openai", Model: model, Restore: func([]byte) (embed.Embedder, error) {
		return embed.NewRemote(embed.Config{Provider: "openai", Model: model, BaseURL: url + "/v1", MaxRetries: -1}, nil)
	}}
}

// TestEmbedderCheck runs doctor's embedder check against a lexical
// embedder and an OpenAI-compatible server that works, that does not know
// the model, and that is gone.
func TestEmbedderCheck(t *testing.T) {
	ctx := context.Background()
	db, add := testDB(t)
	add("a.md", "alpha", "beta gamma")
	h := store.NewHandle(db.Path, store.Options{})
	t.Cleanup(func() { h.Close() })
	check := func(src EmbedderSource) health.Result {
		t.Helper()
		return Checks(h, src, nil)[0].Run(ctx)[0]
	}

	if r := check(LexicalSource()); r.Status != health.Warn || !strings.Contains(r.Detail, "no note has a vector yet") {
		t.Errorf("lexical, nothing embedded: %+v", r)
	}
	if _, err := NewVectors(db, LexicalSource(), nil).Sync(ctx, SyncOptions{}); err != nil {
		t.Fatal(err)
	}
	if r := check(LexicalSource()); r.Status != health.OK || !strings.Contains(r.Detail, "all 2 passages have vectors") {
		t.Errorf("lexical, all embedded: %+v", r)
	} else if !strings.HasPrefix(r.Detail, "lexical hashed-ngrams-v1: all 2 passages have vectors. It matches shared words") || nestedParens(r.Detail) {
		// The fact first; what lexical matches and the way to search
		// by meaning after it, with no parenthesis inside another.
		t.Errorf("lexical, all embedded: the line reads %q", r.Detail)
	}

	srv := fakeOpenAI(t)
	if _, err := NewVectors(db, openAISource(srv.URL, "known"), nil).Sync(ctx, SyncOptions{}); err != nil {
		t.Fatal(err)
	}
	if r := check(openAISource(srv.URL, "known")); r.Status != health.OK {
		t.Errorf("openai, working: %+v", r)
	}
	if r := check(openAISource(srv.URL, "missing")); r.Status != health.Warn || !strings.Contains(r.Detail, "answers with an error") || !strings.Contains(r.Detail, "does not exist") {
		t.Errorf("openai, unknown model: %+v", r)
	}
	gone := httptest.NewServer(http.NotFoundHandler())
	gone.Close()
	if r := check(openAISource(gone.URL, "known")); r.Status != health.Warn || !strings.Contains(r.Detail, "is not reachable") || r.Fix == "" {
		t.Errorf("openai, server gone: %+v", r)
	}
}

// nestedParens reports whether s has a parenthesis inside another.
func nestedParens(s string) bool {
	depth := 0
	for _, c := range s {
		switch c {
		case '(':
			if depth++; depth > 1 {
				return true
			}
		case ')':
			depth--
		}
	}
	return false
}

// TestEmbedderCheckSaysAStoppedRunStopped: after `jarvis index --reembed`
// was killed mid-way, doctor said the vectors were being made, at the
// speed the dead run last recorded, with no jarvis running. A progress row
// is a live run only while a writer holds the database's writer lock.
func TestEmbedderCheckSaysAStoppedRunStopped(t *testing.T) {
	ctx := context.Background()
	db, add := testDB(t)
	add("a.md", "alpha", "beta gamma")
	if _, err := NewVectors(db, LexicalSource(), nil).Sync(ctx, SyncOptions{}); err != nil {
		t.Fatal(err)
	}
	add("b.md", "delta", "epsilon zeta")
	// What a run killed after its last batch leaves: a fresh progress row.
	if _, err := db.ExecContext(ctx, `INSERT OR REPLACE INTO embedding_progress (embedder_id, done, total, per_second, updated_ms)
		SELECT id, 2, 4, 5380, ? FROM embedders`, time.Now().UnixMilli()); err != nil {
		t.Fatal(err)
	}
	h := store.NewHandle(db.Path, store.Options{})
	t.Cleanup(func() { h.Close() })
	inv := health.Invocation{"--db", db.Path}
	check := func() health.Result { return Checks(h, LexicalSource(), inv)[0].Run(ctx)[0] }

	r := check()
	if r.Status != health.Warn || !strings.Contains(r.Detail, "2 of 4 passages have vectors; the run making them stopped") ||
		strings.Contains(r.Detail, "being made") || r.Fix != "run "+inv.Command("index")+" to make the rest" {
		t.Errorf("no run alive: %+v", r)
	}

	// A live writer (a server making them) holds the lock.
	unlock, err := db.LockWriters(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer unlock()
	if r := check(); r.Status != health.OK || !strings.Contains(r.Detail, "vectors are being made, 2 of 4 passages so far, 5380 a second") {
		t.Errorf("a run alive: %+v", r)
	}
}

// TestEmbedderCheckSaysAReembedStoppedBeforeItsFirstBatch: `jarvis index
// --reembed` killed before its first batch had dropped every vector;
// doctor said no note had a vector yet, as of a vault never embedded.
// It says the run making them stopped before any was made.
func TestEmbedderCheckSaysAReembedStoppedBeforeItsFirstBatch(t *testing.T) {
	db, add := testDB(t)
	add("a.md", "alpha", "beta gamma")
	src := sourceFor(&letters{Name: "m"})
	if _, err := NewVectors(db, src, quietLog()).Sync(context.Background(), SyncOptions{}); err != nil {
		t.Fatal(err)
	}
	// The run stops as it sets out, before embedding anything.
	ctx, cancel := context.WithCancel(context.Background())
	_, err := NewVectors(db, src, quietLog()).Sync(ctx, SyncOptions{Reembed: true, Progress: func(done, total int) {
		if done == 0 {
			cancel()
		}
	}})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("reembed stopped at its start: %v", err)
	}
	h := store.NewHandle(db.Path, store.Options{})
	t.Cleanup(func() { h.Close() })
	inv := health.Invocation{"--db", db.Path}
	r := Checks(h, src, inv)[0].Run(context.Background())[0]
	if r.Status != health.Warn || r.Detail != "test m: the run making the vectors stopped before any was made; semantic search answers with keyword search" ||
		r.Fix != "run "+inv.Command("index")+" to make them" {
		t.Errorf("after a reembed stopped before its first batch: %+v", r)
	}

	// A run alive that has not stored its first batch is under way.
	unlock, err := db.LockWriters(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer unlock()
	if r := Checks(h, src, inv)[0].Run(context.Background())[0]; r.Status != health.OK || !strings.Contains(r.Detail, "vectors are being made, 0 of 2 passages so far") {
		t.Errorf("a run alive before its first batch: %+v", r)
	}
}

// TestEmbedderCheckSaysTheIndexChangedNotTheVault: the lexical embedder's
// word statistics are of every vault's passages; when they no longer fit
// (a vault dropped with --forget, trial 17), the check says how many
// passages they were taken from and how many the index holds now, not
// that "the vault" changed.
func TestEmbedderCheckSaysTheIndexChangedNotTheVault(t *testing.T) {
	ctx := context.Background()
	db := shrunkAfterSync(t, func(SyncResult) {})
	h := store.NewHandle(db.Path, store.Options{})
	t.Cleanup(func() { h.Close() })
	r := Checks(h, LexicalSource(), health.Invocation{"--db", db.Path})[0].Run(ctx)[0]
	if r.Status != health.Warn || !strings.Contains(r.Detail, "the index changed much since its word statistics were taken from 400 passages; it now holds 100 passages") ||
		strings.Contains(r.Detail, "vault") {
		t.Errorf("after three quarters of the passages went: %+v", r)
	}
}

// TestEmbedderCheckCountsTheDatabasesVaults: the embedder's line counts
// the passages of every vault the database holds, which a doctor narrowed
// to one vault by --vault does not search whole: with several, it says
// whose passages they are.
func TestEmbedderCheckCountsTheDatabasesVaults(t *testing.T) {
	ctx := context.Background()
	db, add := testDB(t)
	add("a.md", "alpha beta")
	h := store.NewHandle(db.Path, store.Options{})
	t.Cleanup(func() { h.Close() })
	check := func() health.Result { return Checks(h, LexicalSource(), nil)[0].Run(ctx)[0] }
	if _, err := NewVectors(db, LexicalSource(), nil).Sync(ctx, SyncOptions{}); err != nil {
		t.Fatal(err)
	}
	if r := check(); strings.Contains(r.Detail, "vaults") {
		t.Errorf("of one vault: %+v", r)
	}
	if _, err := db.ExecContext(ctx, `INSERT INTO vaults (id, name, path) VALUES (2, 'w', '/w');
		INSERT INTO files (id, vault_id, path, kind, size, mtime_ns, title) VALUES (100, 2, 'b.md', 'note', 1, 1, 'b');
		INSERT INTO chunks (file_id, ord, heading, start_line, end_line, text, hash) VALUES (100, 0, '', 1, 1, 'gamma', 'h')`); err != nil {
		t.Fatal(err)
	}
	if r := check(); !strings.Contains(r.Detail, "1 of 2 passages of the database's 2 vaults has no vector yet") {
		t.Errorf("of two vaults, one passage without a vector: %+v", r)
	}
}

// TestSyncSaysWhenItRefitted: a sync that takes the lexical word
// statistics again says so, as every passage is then embedded again (the
// index summary says why; trial 24 read it as vectors lost).
func TestSyncSaysWhenItRefitted(t *testing.T) {
	ctx := context.Background()
	db := shrunkAfterSync(t, func(first SyncResult) {
		if first.Refitted {
			t.Fatalf("first sync: %+v; want no refit (there was nothing to refit)", first)
		}
	})
	again, err := NewVectors(db, LexicalSource(), nil).Sync(ctx, SyncOptions{})
	if err != nil || !again.Refitted || again.Embedded != 100 {
		t.Errorf("after three quarters of the passages went: %+v, %v; want a refit embedding all 100", again, err)
	}
}

// shrunkAfterSync is a database of 400 one-passage notes, synced with the
// lexical embedder (first is told the result), of which the last 300 are
// then deleted: its word statistics no longer fit.
func shrunkAfterSync(t *testing.T, first func(SyncResult)) *store.DB {
	t.Helper()
	ctx := context.Background()
	db, add := testDB(t)
	for i := range 400 {
		add(fmt.Sprintf("n%d.md", i), fmt.Sprintf("passage %d about topic %d", i, i%7))
	}
	res, err := NewVectors(db, LexicalSource(), nil).Sync(ctx, SyncOptions{})
	if err != nil {
		t.Fatal(err)
	}
	first(res)
	if _, err := db.ExecContext(ctx, `DELETE FROM files WHERE id > 100`); err != nil {
		t.Fatal(err)
	}
	return db
}

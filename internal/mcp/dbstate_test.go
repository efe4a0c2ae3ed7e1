package mcp_test

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jarvis-mcp/jarvis/internal/config"
	"github.com/jarvis-mcp/jarvis/internal/container"
	"github.com/jarvis-mcp/jarvis/internal/health"
	"github.com/jarvis-mcp/jarvis/internal/mcp"
	"github.com/jarvis-mcp/jarvis/internal/store"
)

// modeProbe answers as the system would for a user who is not root and
// owns every file: access follows the permission bits. Root, whom the
// system lets do anything, needs it to see what a user would.
func modeProbe(path string) (store.FileAccess, error) {
	st, err := os.Stat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return store.FileAccess{Owner: -1}, nil
	}
	if err != nil {
		return store.FileAccess{Owner: -1}, err
	}
	fa := store.FileAccess{Exists: true, IsDir: st.IsDir(), Owner: os.Geteuid()}
	perm := st.Mode().Perm()
	fa.Read = perm&0o400 != 0
	fa.Write = perm&0o200 != 0 && (!fa.IsDir || perm&0o100 != 0)
	return fa, nil
}

// TestServerOnAReadOnlyDatabase serves an index this user may read but
// not write: the tools answer from the index as it is, and the index state
// and health-status say why it is not brought up to date, in the words
// and with the fix `jarvis index` gives (store.Explain).
func TestServerOnAReadOnlyDatabase(t *testing.T) {
	ctx := context.Background()
	v := exampleVault(t)
	dbPath := filepath.Join(t.TempDir(), "j.db")
	cfg := config.Config{DBPath: dbPath, Vaults: []config.Vault{v}, Embedder: config.Embedder{Provider: config.ProviderLexical},
		Flags: config.Flags{DB: dbPath}}

	var first container.MCPDeps
	app := container.NewMCPApp(cfg, quiet(), &first)
	if err := app.Start(ctx); err != nil {
		t.Fatal(err)
	}
	if err := first.Live.All(ctx); err != nil {
		t.Fatal(err)
	}
	app.Stop(ctx)
	os.Chmod(dbPath, 0o444)
	t.Cleanup(func() { os.Chmod(dbPath, 0o644) })

	var deps container.MCPDeps
	app = container.NewMCPApp(cfg, quiet(), &deps, container.WithProbe(modeProbe))
	if err := container.Err(app); err != nil {
		t.Fatal(err)
	}
	if err := app.Start(ctx); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { app.Stop(context.Background()) })

	// What `jarvis index` says of this state.
	want := store.Explained(dbPath, store.ErrAccess, health.Invocation{"--db", dbPath}, modeProbe)
	x, _ := store.Explain(dbPath, want, nil, nil)
	if x.Kind != store.KindAccess || !strings.Contains(x.Fix, "chmod u+rw") {
		t.Fatalf("explanation = %+v", x)
	}

	err := deps.Live.All(ctx)
	if err == nil || err.Error() != x.String() {
		t.Fatalf("index pass: %v\nwant %s", err, x)
	}
	cs := connect(t, real{deps})
	var out mcp.SearchOutput
	if text, isErr := call(t, cs, mcp.ToolSearchVault, map[string]any{"query": "coffee"}, &out); isErr || len(out.Results) == 0 {
		t.Fatalf("search-vault: error %v, %d results: %s", isErr, len(out.Results), text)
	}
	if strings.Contains(out.DegradedReason, "note files") {
		t.Fatalf("search-vault scanned the files, not the readable index: %s", out.DegradedReason)
	}
	var h mcp.HealthOutput
	text, _ := call(t, cs, mcp.ToolHealthStatus, nil, &h)
	// Search answered above: the first line says so, not "broken".
	if first, _, _ := strings.Cut(text, "\n"); first != "Search answers from the index as it is; the index cannot be updated: "+x.Why+"." {
		t.Errorf("health-status of a database that can be read but not updated begins %q", first)
	}
	if h.Index.Error != x.String() {
		t.Errorf("index state error = %q\nwant %q", h.Index.Error, x)
	}
	found := false
	for _, r := range h.Checks {
		if r.Name == "database access" {
			found = true
			if r.Status != health.Fail || r.Fix != x.Fix || !strings.Contains(r.Detail, x.Why) {
				t.Errorf("database access = %+v\nwant %s", r, x)
			}
		}
	}
	if !found {
		t.Errorf("health-status has no database access check: %+v", h.Checks)
	}
	for _, f := range []string{dbPath + "-wal", dbPath + "-shm"} {
		if st, err := os.Stat(f); err == nil && st.Mode().Perm()&0o200 == 0 {
			t.Errorf("%s was made read-only", f)
		}
	}
}

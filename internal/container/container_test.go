package container

import (
	"context"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"go.uber.org/fx"

	"github.com/jarvis-mcp/jarvis/internal/config"
	"github.com/jarvis-mcp/jarvis/internal/embed"
	"github.com/jarvis-mcp/jarvis/internal/health"
	"github.com/jarvis-mcp/jarvis/internal/mcp"
	"github.com/jarvis-mcp/jarvis/internal/search"
	"github.com/jarvis-mcp/jarvis/internal/search/notes"
)

// TestGraphsValidate builds every command's dependency graph without running
// a constructor: a missing or ambiguous binding fails here, not at a user's.
func TestGraphsValidate(t *testing.T) {
	cfg := config.Config{
		DBPath: filepath.Join(t.TempDir(), "j.db"),
		Vaults: []config.Vault{{Name: "v", Path: t.TempDir()}},
	}
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	graphs := map[string]fx.Option{
		"index":   fx.Options(indexOptions(cfg, log), fx.Populate(new(IndexDeps))),
		"doctor":  fx.Options(doctorOptions(cfg, log), fx.Populate(new(DoctorDeps))),
		"search":  fx.Options(searchOptions(cfg, log), fx.Populate(new(SearchDeps))),
		"mcp":     fx.Options(mcpOptions(cfg, log), fx.Populate(new(MCPDeps))),
		"related": fx.Options(relatedOptions(cfg, log), fx.Populate(new(RelatedDeps))),
	}
	for name, opts := range graphs {
		t.Run(name, func(t *testing.T) {
			if err := fx.ValidateApp(opts); err != nil {
				t.Fatal(err)
			}
		})
	}
}

// services are the server's services as the tools get them.
type services struct {
	fx.In
	Keyword  mcp.KeywordSearch
	Semantic mcp.SemanticSearch
	Graph    mcp.LinkGraph
	Parser   mcp.NoteParser
	Notes    mcp.Notes
	Vaults   mcp.Vaults
	Health   mcp.Health
	Pack     mcp.ContextPack
	Related  mcp.RelatedNotes
	State    mcp.IndexState
	Metrics  mcp.Metrics
}

// TestServerStartsWithoutADatabase builds the server over a database that
// cannot be opened (its folder is a file): every service is still there,
// and search answers from the files, saying why.
func TestServerStartsWithoutADatabase(t *testing.T) {
	dir := t.TempDir()
	blocker := filepath.Join(dir, "not-a-folder")
	if err := os.WriteFile(blocker, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	vaultDir := filepath.Join(dir, "vault")
	if err := os.MkdirAll(vaultDir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(vaultDir, "Espresso.md"), []byte("# Espresso\n\nPull a shot of espresso.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg := config.Config{DBPath: filepath.Join(blocker, "j.db"), Vaults: []config.Vault{{Name: "v", Path: vaultDir}}}
	var deps MCPDeps
	var svc services
	app := fx.New(mcpOptions(cfg, slog.New(slog.NewTextHandler(io.Discard, nil))), fx.Populate(&deps, &svc))
	if err := Err(app); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if err := app.Start(ctx); err != nil {
		t.Fatal(err)
	}
	defer app.Stop(ctx)
	modes := map[search.Mode]func(context.Context, search.Query) (search.Answer, error){
		search.ModeKeyword: svc.Keyword.Keyword, search.ModeSemantic: svc.Semantic.Semantic, search.ModeCombined: svc.Semantic.Combined,
	}
	for mode, run := range modes {
		a, err := run(ctx, search.Query{Text: "espresso", Filter: notes.Filter{Vaults: []string{"v"}}})
		if err != nil {
			t.Fatalf("%s: %v", mode, err)
		}
		if !a.Degraded || !strings.Contains(a.Reason, "index cannot be read") || len(a.Results) != 1 || a.Results[0].Path != "Espresso.md" {
			t.Errorf("%s: %+v", mode, a)
		}
	}
	if _, err := svc.Vaults.Stats(ctx); err == nil {
		t.Error("stats of a database that cannot be opened gave no error")
	}
}

// TestDoctorCollectsEveryCheck runs the doctor graph for real and checks that
// every service's checks arrived, in report order.
func TestDoctorCollectsEveryCheck(t *testing.T) {
	cfg := config.Config{
		DBPath: filepath.Join(t.TempDir(), "j.db"),
		Vaults: []config.Vault{{Name: "v", Path: t.TempDir()}},
	}
	var deps DoctorDeps
	app := NewDoctorApp(cfg, slog.New(slog.NewTextHandler(io.Discard, nil)), &deps)
	if err := Err(app); err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, c := range deps.Checks {
		names = append(names, c.Name)
	}
	want := []string{"configuration", "vault", "database", "index freshness", "index warnings", "other vaults", "unresolved links", "embedder", "disk space"}
	if len(names) != len(want) {
		t.Fatalf("checks = %v; want %v", names, want)
	}
	for i := range want {
		if names[i] != want[i] {
			t.Fatalf("checks = %v; want %v", names, want)
		}
	}
}

// TestServerReusesAQuickCheck runs health-status twice on the server's
// graph: the database gets PRAGMA quick_check, and the second call hands
// back the first pass saying how old it is; doctor's graph does the full
// integrity check and reuses nothing.
func TestServerReusesAQuickCheck(t *testing.T) {
	ctx := context.Background()
	vault := t.TempDir()
	if err := os.WriteFile(filepath.Join(vault, "A.md"), []byte("# A\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg := config.Config{DBPath: filepath.Join(t.TempDir(), "j.db"), Vaults: []config.Vault{{Name: "v", Path: vault}}}
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	var ideps IndexDeps
	iapp := NewIndexApp(cfg, log, &ideps)
	if err := Err(iapp); err != nil {
		t.Fatal(err)
	}
	if _, err := ideps.Indexer.Index(ctx, cfg.Vaults[0], nil); err != nil {
		t.Fatal(err)
	}
	iapp.Stop(ctx)

	database := func(rep health.Report) string {
		for _, r := range rep.Checks {
			if r.Name == "database" {
				return r.Line()
			}
		}
		t.Fatalf("no database check in %+v", rep)
		return ""
	}
	var svc services
	app := fx.New(mcpOptions(cfg, log), fx.Populate(&svc))
	if err := Err(app); err != nil {
		t.Fatal(err)
	}
	defer app.Stop(ctx)
	// The first report waits a moment for the check; on a loaded machine
	// it may answer "not checked yet" and the check's result come later.
	first := database(svc.Health.Report(ctx))
	for deadline := time.Now().Add(30 * time.Second); strings.Contains(first, "database: not checked yet") && time.Now().Before(deadline); {
		time.Sleep(20 * time.Millisecond)
		first = database(svc.Health.Report(ctx))
	}
	second := database(svc.Health.Report(ctx))
	if !strings.Contains(first, "passes its quick check") || !strings.Contains(second, "database (checked ") || !strings.HasSuffix(second, "passes its quick check") {
		t.Fatalf("first %q, then %q", first, second)
	}

	var ddeps DoctorDeps
	dapp := NewDoctorApp(cfg, log, &ddeps)
	if err := Err(dapp); err != nil {
		t.Fatal(err)
	}
	defer dapp.Stop(ctx)
	for range 2 {
		if d := database(health.Run(ctx, ddeps.Checks, time.Minute)); !strings.HasSuffix(d, "passes its integrity check") {
			t.Fatalf("doctor: %q", d)
		}
	}
}

// TestRemoteSourceRunTimeout: the run limit of a remote embedder's syncs,
// which `jarvis index` and the server's background syncs share, comes
// from its configuration, with a default; the offline lexical embedder
// needs none.
func TestRemoteSourceRunTimeout(t *testing.T) {
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	for _, tt := range []struct {
		name string
		emb  config.Embedder
		want time.Duration
	}{
		{"configured", config.Embedder{Provider: config.ProviderOllama, RunTimeout: "5s"}, 5 * time.Second},
		{"default", config.Embedder{Provider: config.ProviderOpenAI}, embed.DefaultRunTimeout},
		{"lexical", config.Embedder{Provider: config.ProviderLexical}, 0},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got := embedderSource(config.Config{Embedder: tt.emb}, log).RunTimeout; got != tt.want {
				t.Errorf("run timeout %v, want %v", got, tt.want)
			}
		})
	}
}

// TestSearchSettingsReachSearch: the config file's search section sets
// the fusion weight and the floor of every kind of embedder.
func TestSearchSettingsReachSearch(t *testing.T) {
	w, f := 0.6, 0.3
	cfg := config.Config{
		DBPath: filepath.Join(t.TempDir(), "j.db"),
		Vaults: []config.Vault{{Name: "v", Path: t.TempDir()}},
		Search: config.Search{SemanticWeight: &w, SimilarityFloor: &f},
	}
	var deps SearchDeps
	app := NewSearchApp(cfg, slog.New(slog.NewTextHandler(io.Discard, nil)), &deps)
	if err := Err(app); err != nil {
		t.Fatal(err)
	}
	for _, kind := range []search.EmbedderKind{search.KindLexical, search.KindNeural} {
		if deps.Combined.SemanticWeights[kind] != w || deps.Semantic.Floors[kind] != f {
			t.Errorf("%s: weight %v, floor %v; want %v, %v", kind, deps.Combined.SemanticWeights[kind], deps.Semantic.Floors[kind], w, f)
		}
	}
	if search.DefaultSemanticWeights[search.KindLexical] == w {
		t.Fatal("the test weight is the default; choose another")
	}
}

// TestEveryToolIsInTheGroup: the tools group holds each tool once, built
// from the services of the server's graph.
func TestEveryToolIsInTheGroup(t *testing.T) {
	cfg := config.Config{DBPath: filepath.Join(t.TempDir(), "j.db"), Vaults: []config.Vault{{Name: "v", Path: t.TempDir()}}}
	var deps MCPDeps
	app := NewMCPApp(cfg, slog.New(slog.DiscardHandler), &deps)
	if err := Err(app); err != nil {
		t.Fatal(err)
	}
	want := []string{mcp.ToolSearchVault, mcp.ToolSearchSemantic, mcp.ToolSearchCombined, mcp.ToolSearchGraph, mcp.ToolReadNote, mcp.ToolPeriodicNote, mcp.ToolQueryNotes,
		mcp.ToolRelatedNotes, mcp.ToolBuildContext, mcp.ToolListVaults, mcp.ToolHealthStatus,
		// In the group always; listed only when a vault is writable.
		mcp.ToolCreateNote, mcp.ToolEditNote, mcp.ToolMoveNote, mcp.ToolDeleteNote}
	var got []string
	for _, tool := range deps.Tools {
		got = append(got, tool.Name())
	}
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("tools group %v; want %v", got, want)
	}
}

// TestServerNamesAbsolutePaths: the commands the server's answers name
// repeat --db and --vault as absolute paths, for a user whose working
// folder is not the server's; doctor repeats them as given.
func TestServerNamesAbsolutePaths(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	if err := os.MkdirAll(filepath.Join(dir, "notes"), 0o755); err != nil {
		t.Fatal(err)
	}
	cfg, err := config.Load(config.Flags{Vaults: []string{"notes"}, DB: "ro/r.db"}, func(string) string { return "" })
	if err != nil {
		t.Fatal(err)
	}
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	for name, opts := range map[string]fx.Option{"mcp": mcpOptions(cfg, log), "doctor": doctorOptions(cfg, log)} {
		var got config.Config
		app := fx.New(opts, fx.Populate(&got))
		if err := Err(app); err != nil {
			t.Fatal(err)
		}
		want := health.Invocation{"--vault", "notes", "--db", "ro/r.db"}
		if name == "mcp" {
			want = health.Invocation{"--vault", filepath.Join(dir, "notes"), "--db", cfg.DBPath}
		}
		if inv := got.Invocation(); !slices.Equal(inv, want) {
			t.Errorf("%s names commands with %q; want %q", name, inv, want)
		}
	}
}

package container

import (
	"io"
	"log/slog"
	"path/filepath"
	"testing"
	"time"

	"go.uber.org/fx"

	"github.com/jarvis-mcp/jarvis/internal/config"
	"github.com/jarvis-mcp/jarvis/internal/embed"
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
		"index":  fx.Options(indexOptions(cfg, log), fx.Populate(new(IndexDeps))),
		"doctor": fx.Options(doctorOptions(cfg, log), fx.Populate(new(DoctorDeps))),
		"search": fx.Options(searchOptions(cfg, log), fx.Populate(new(SearchDeps))),
	}
	for name, opts := range graphs {
		t.Run(name, func(t *testing.T) {
			if err := fx.ValidateApp(opts); err != nil {
				t.Fatal(err)
			}
		})
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

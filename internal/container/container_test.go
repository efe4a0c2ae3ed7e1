package container

import (
	"io"
	"log/slog"
	"path/filepath"
	"testing"

	"go.uber.org/fx"

	"github.com/jarvis-mcp/jarvis/internal/config"
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

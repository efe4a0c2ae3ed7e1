package config

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/jarvis-mcp/jarvis/internal/embed/hub"
	"github.com/jarvis-mcp/jarvis/internal/health"
)

// fakeEnv is an environment for Load that holds only what a test sets.
func fakeEnv(vars map[string]string) func(string) string {
	return func(k string) string { return vars[k] }
}

func write(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestPrecedence(t *testing.T) {
	home := t.TempDir()
	work := filepath.Join(home, "Work")
	personal := filepath.Join(home, "Personal Notes")
	cfgFile := filepath.Join(home, "jarvis.yaml")
	write(t, cfgFile, `
database: from-file.db
vaults:
  - name: work
    path: Work
    exclude: ["Archive/**"]
  - path: Personal Notes
`)
	envVaults := filepath.Join(home, "a") + string(os.PathListSeparator) + filepath.Join(home, "b")

	tests := []struct {
		name       string
		flags      Flags
		env        map[string]string
		wantVaults []Vault
		wantDB     string
	}{
		{
			name:  "config file only",
			flags: Flags{ConfigFile: cfgFile},
			env:   map[string]string{"HOME": home},
			wantVaults: []Vault{
				{Name: "work", Path: work, Exclude: []string{"Archive/**"}},
				{Name: "Personal Notes", Path: personal},
			},
			wantDB: filepath.Join(home, "from-file.db"),
		},
		{
			name:       "env overrides file",
			flags:      Flags{ConfigFile: cfgFile},
			env:        map[string]string{"HOME": home, EnvVault: envVaults, EnvDB: filepath.Join(home, "env.db")},
			wantVaults: []Vault{{Name: "a", Path: filepath.Join(home, "a")}, {Name: "b", Path: filepath.Join(home, "b")}},
			wantDB:     filepath.Join(home, "env.db"),
		},
		{
			name:       "flags override env",
			flags:      Flags{ConfigFile: cfgFile, Vaults: []string{filepath.Join(home, "c")}, DB: filepath.Join(home, "flag.db")},
			env:        map[string]string{"HOME": home, EnvVault: envVaults, EnvDB: filepath.Join(home, "env.db")},
			wantVaults: []Vault{{Name: "c", Path: filepath.Join(home, "c")}},
			wantDB:     filepath.Join(home, "flag.db"),
		},
		{
			name:       "flag naming a configured vault selects it",
			flags:      Flags{ConfigFile: cfgFile, Vaults: []string{"work"}},
			env:        map[string]string{"HOME": home},
			wantVaults: []Vault{{Name: "work", Path: work, Exclude: []string{"Archive/**"}}},
			wantDB:     filepath.Join(home, "from-file.db"),
		},
		{
			name:       "flag giving a configured path keeps its name and excludes",
			flags:      Flags{ConfigFile: cfgFile, Vaults: []string{work}},
			env:        map[string]string{"HOME": home},
			wantVaults: []Vault{{Name: "work", Path: work, Exclude: []string{"Archive/**"}}},
			wantDB:     filepath.Join(home, "from-file.db"),
		},
		{
			name:       "env config file",
			env:        map[string]string{"HOME": home, EnvConfig: cfgFile, EnvVault: filepath.Join(home, "x")},
			wantVaults: []Vault{{Name: "x", Path: filepath.Join(home, "x")}},
			wantDB:     filepath.Join(home, "from-file.db"),
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg, err := Load(tt.flags, fakeEnv(tt.env))
			if err != nil {
				t.Fatal(err)
			}
			if len(cfg.Vaults) != len(tt.wantVaults) {
				t.Fatalf("vaults = %+v; want %+v", cfg.Vaults, tt.wantVaults)
			}
			for i, v := range cfg.Vaults {
				w := tt.wantVaults[i]
				if v.Name != w.Name || v.Path != w.Path || strings.Join(v.Exclude, "|") != strings.Join(w.Exclude, "|") {
					t.Errorf("vault %d = %+v; want %+v", i, v, w)
				}
			}
			if cfg.DBPath != tt.wantDB {
				t.Errorf("db = %s; want %s", cfg.DBPath, tt.wantDB)
			}
		})
	}
}

func TestDefaultFileAndDatabase(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the default folders asserted here are Linux's")
	}
	home := t.TempDir()
	write(t, filepath.Join(home, ".config", "jarvis", "config.toml"), `
[[vaults]]
name = "notes"
path = "~/Notes"
exclude = ["Templates"]
`)
	cfg, err := Load(Flags{}, fakeEnv(map[string]string{"HOME": home}))
	if err != nil {
		t.Fatal(err)
	}
	if len(cfg.Vaults) != 1 || cfg.Vaults[0].Name != "notes" || cfg.Vaults[0].Path != filepath.Join(home, "Notes") {
		t.Fatalf("vaults = %+v", cfg.Vaults)
	}
	if want := filepath.Join(home, ".local", "share", "jarvis", "jarvis.db"); cfg.DBPath != want {
		t.Fatalf("db = %s; want %s", cfg.DBPath, want)
	}
	if cfg.File != filepath.Join(home, ".config", "jarvis", "config.toml") {
		t.Fatalf("file = %s", cfg.File)
	}
}

func TestErrors(t *testing.T) {
	home := t.TempDir()
	if err := os.MkdirAll(filepath.Join(home, "real", ".obsidian"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(home, "real"), filepath.Join(home, "link")); err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(home, "bad.yaml"), "vaults:\n  - name: x\n    pth: typo\n")
	write(t, filepath.Join(home, "nopath.yaml"), "vaults:\n  - name: x\n")
	write(t, filepath.Join(home, "bad.toml"), "vaults = 3\n")
	tests := []struct {
		name  string
		flags Flags
		want  string
	}{
		{"missing config file", Flags{ConfigFile: filepath.Join(home, "nope.yaml")}, "does not exist"},
		{"unknown yaml key", Flags{ConfigFile: filepath.Join(home, "bad.yaml")}, "pth"},
		{"vault without path", Flags{ConfigFile: filepath.Join(home, "nopath.yaml")}, "nopath.yaml lists vault 1 without a path"},
		{"bad toml", Flags{ConfigFile: filepath.Join(home, "bad.toml")}, "bad.toml"},
		{"database inside vault", Flags{Vaults: []string{filepath.Join(home, "v")}, DB: filepath.Join(home, "v", "j.db")}, "inside vault"},
		{"database inside vault through a link", Flags{Vaults: []string{filepath.Join(home, "real")}, DB: filepath.Join(home, "link", "j.db")}, "inside vault"},
		{"vault through a link holding the database", Flags{Vaults: []string{filepath.Join(home, "link")}, DB: filepath.Join(home, "real", ".obsidian", "new", "j.db")}, "inside vault"},
		{"two vaults one name", Flags{Vaults: []string{filepath.Join(home, "a", "notes"), filepath.Join(home, "b", "notes")}}, "two vaults are named"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Load(tt.flags, fakeEnv(map[string]string{"HOME": home}))
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err = %v; want it to contain %q", err, tt.want)
			}
		})
	}
}

// TestEmbedderTimeouts: the embedder's three time limits come from the
// config file, the environment overrides them, and a value that is not a
// duration is refused with the key's name.
func TestEmbedderTimeouts(t *testing.T) {
	home := t.TempDir()
	cfgFile := filepath.Join(home, "config.yaml")
	write(t, cfgFile, "embedder:\n  provider: ollama\n  timeout: 30s\n  batch_timeout: 2m\n  run_timeout: 20m\n")
	cfg, err := Load(Flags{ConfigFile: cfgFile}, fakeEnv(map[string]string{"HOME": home, EnvEmbedRunTimeout: "90s"}))
	if err != nil {
		t.Fatal(err)
	}
	e := cfg.Embedder
	if e.TimeoutDuration(0) != 30*time.Second || e.BatchTimeoutDuration(0) != 2*time.Minute || e.RunTimeoutDuration(0) != 90*time.Second {
		t.Errorf("timeouts %v, %v, %v; want 30s, 2m, 90s", e.TimeoutDuration(0), e.BatchTimeoutDuration(0), e.RunTimeoutDuration(0))
	}
	if d := (Embedder{}).BatchTimeoutDuration(time.Minute); d != time.Minute {
		t.Errorf("unset batch timeout %v, want the default", d)
	}
	_, err = Load(Flags{ConfigFile: cfgFile}, fakeEnv(map[string]string{"HOME": home, EnvEmbedBatchTimeout: "soon"}))
	if err == nil || !strings.Contains(err.Error(), EnvEmbedBatchTimeout+` is "soon", which is not a duration`) {
		t.Fatalf("err = %v; want the bad batch_timeout named", err)
	}
}

func TestSearchSettings(t *testing.T) {
	home := t.TempDir()
	env := fakeEnv(map[string]string{"HOME": home})
	yamlFile := filepath.Join(home, "config.yaml")
	write(t, yamlFile, "search:\n  semantic_weight: 0.5\n  similarity_floor: 0.25\n")
	cfg, err := Load(Flags{ConfigFile: yamlFile}, env)
	if err != nil {
		t.Fatal(err)
	}
	if s := cfg.Search; s.SemanticWeight == nil || *s.SemanticWeight != 0.5 || s.SimilarityFloor == nil || *s.SimilarityFloor != 0.25 {
		t.Errorf("search settings %+v", s)
	}
	tomlFile := filepath.Join(home, "config.toml")
	write(t, tomlFile, "[search]\nsemantic_weight = 0.7\n")
	if cfg, err := Load(Flags{ConfigFile: tomlFile}, env); err != nil || cfg.Search.SemanticWeight == nil || *cfg.Search.SemanticWeight != 0.7 || cfg.Search.SimilarityFloor != nil {
		t.Errorf("TOML search settings %+v, %v", cfg.Search, err)
	}
	if cfg, err := Load(Flags{}, env); err != nil || cfg.Search.SemanticWeight != nil {
		t.Errorf("no config file: search settings %+v, %v", cfg.Search, err)
	}
	for _, bad := range []string{"search:\n  semantic_weight: -1\n", "search:\n  similarity_floor: 1.5\n"} {
		write(t, yamlFile, bad)
		if _, err := Load(Flags{ConfigFile: yamlFile}, env); err == nil || !strings.Contains(err.Error(), "search.") {
			t.Errorf("%q: err = %v; want the setting named", bad, err)
		}
	}
}

func TestMCPSettings(t *testing.T) {
	home := t.TempDir()
	env := fakeEnv(map[string]string{"HOME": home})
	yamlFile := filepath.Join(home, "config.yaml")
	write(t, yamlFile, "mcp:\n  answer_tokens: 8000\n")
	if cfg, err := Load(Flags{ConfigFile: yamlFile}, env); err != nil || cfg.MCP.AnswerTokens == nil || *cfg.MCP.AnswerTokens != 8000 {
		t.Errorf("mcp settings %+v, %v", cfg.MCP, err)
	}
	tomlFile := filepath.Join(home, "config.toml")
	write(t, tomlFile, "[mcp]\nanswer_tokens = 30000\n")
	if cfg, err := Load(Flags{ConfigFile: tomlFile}, env); err != nil || cfg.MCP.AnswerTokens == nil || *cfg.MCP.AnswerTokens != 30000 {
		t.Errorf("TOML mcp settings %+v, %v", cfg.MCP, err)
	}
	for _, bad := range []string{"mcp:\n  answer_tokens: 10\n", "mcp:\n  answer_tokens: 1000000\n"} {
		write(t, yamlFile, bad)
		if _, err := Load(Flags{ConfigFile: yamlFile}, env); err == nil || !strings.Contains(err.Error(), "mcp.answer_tokens in the config file "+yamlFile+" is") {
			t.Errorf("%q: err = %v; want the setting named", bad, err)
		}
	}
}

// TestLocalModelEmbedders: a local model is chosen by name, owner/name or
// folder, wherever a provider goes; a misspelt provider is still an error;
// a model pulled while nothing is configured is the one used, and never
// over one that is configured.
func TestLocalModelEmbedders(t *testing.T) {
	home := t.TempDir()
	vault := filepath.Join(home, "v")
	models := filepath.Join(home, "models")
	load := func(flag string, vars map[string]string) (Embedder, error) {
		t.Helper()
		env := map[string]string{"HOME": home, hub.EnvModels: models}
		for k, v := range vars {
			env[k] = v
		}
		cfg, err := Load(Flags{Vaults: []string{vault}, Embedder: flag}, fakeEnv(env))
		return cfg.Embedder, err
	}
	for _, tt := range []struct {
		flag, model string
	}{
		{"potion-base-8M", "potion-base-8M"},
		{"BAAI/bge-small-en-v1.5", "BAAI/bge-small-en-v1.5"},
		{filepath.Join(home, "my-model"), filepath.Join(home, "my-model")},
	} {
		e, err := load(tt.flag, nil)
		if err != nil {
			t.Fatalf("--embedder %s: %v", tt.flag, err)
		}
		if e.Provider != ProviderLocal || e.Model != tt.model || e.ModelsDir != models {
			t.Errorf("--embedder %s: provider %q, model %q, models folder %q", tt.flag, e.Provider, e.Model, e.ModelsDir)
		}
	}
	if _, err := load("olama", nil); err == nil || !strings.Contains(err.Error(), `--embedder is "olama", which is no embedder jarvis knows`) || !strings.Contains(err.Error(), "jarvis model list") {
		t.Errorf("a misspelt provider: %v", err)
	}
	if _, err := load("local", nil); err == nil || !strings.Contains(err.Error(), "--embedder chooses the local embedder without a model") {
		t.Errorf("local without a model: %v", err)
	}
	if e, err := load("local", map[string]string{EnvEmbedModel: "e5-small-v2"}); err != nil || e.Model != "e5-small-v2" {
		t.Errorf("local with JARVIS_EMBED_MODEL: %+v, %v", e, err)
	}

	// The model pulled last, with nothing configured.
	if err := hub.SetDefault(models, "potion-base-8M"); err != nil {
		t.Fatal(err)
	}
	e, err := load("", nil)
	if err != nil || e.Provider != ProviderLocal || e.Model != "potion-base-8M" || !strings.Contains(e.Source, "pulled") {
		t.Errorf("nothing configured after a pull: %+v, %v", e, err)
	}
	if e, err := load("", map[string]string{EnvEmbedder: "lexical"}); err != nil || e.Provider != ProviderLexical {
		t.Errorf("lexical configured after a pull: %+v, %v", e, err)
	}
}

// TestFileErrorsInTheFilesTerms: a config file that does not fit is
// refused with the setting's path, what it takes and what was written,
// never the decoders' words for Go types.
func TestFileErrorsInTheFilesTerms(t *testing.T) {
	home := t.TempDir()
	tests := []struct {
		name, file, content, want string
	}{
		{"yaml text for a number", "config.yaml", "search:\n  semantic_weight: abc\n",
			`search.semantic_weight in the config file FILE is "abc", not a number`},
		{"yaml number for the vault list", "config.yaml", "vaults: 3\n",
			`vaults in the config file FILE is 3, not a list of settings (name, path, exclude, write)`},
		{"yaml provider for the embedder settings", "config.yaml", "embedder: ollama\n",
			`embedder in the config file FILE is "ollama", not settings (provider, model, url, api_key, timeout, batch_timeout, run_timeout, query_prefix, passage_prefix)`},
		{"yaml pattern for a list of patterns", "config.yaml", "vaults:\n  - path: a\n  - path: b\n    exclude: Archive/**\n",
			`vaults[2].exclude in the config file FILE is "Archive/**", not a list of text`},
		{"yaml settings for a pattern", "config.yaml", "vaults:\n  - path: a\n    exclude: [{x: 1}]\n",
			`vaults[1].exclude[1] in the config file FILE is settings (x), not text`},
		{"yaml unknown key", "config.yaml", "vaults:\n  - name: x\n    pth: typo\n",
			`vaults[1] in the config file FILE has an unknown setting "pth" (did you mean "path"?); the settings there are name, path, exclude`},
		{"yaml unknown key unlike any", "config.yaml", "vaults:\n  - name: x\n    colour: red\n",
			`vaults[1] in the config file FILE has an unknown setting "colour"; the settings there are name, path, exclude`},
		{"yaml unknown top-level key", "config.yaml", "vault: x\n",
			`the config file FILE has an unknown setting "vault" (did you mean "vaults"?); the settings there are database, vaults, embedder, search`},
		{"yaml list for the whole file", "config.yaml", "- a\n",
			`the config file FILE is a list, not settings (database, vaults, embedder, search, mcp)`},
		{"yaml syntax", "config.yaml", "vaults:\n  - path: a\n   name: b\n",
			`the config file FILE is not valid YAML at line 3 ("   name: b"): this line is indented more or less than the list item above it`},
		{"toml number for the vault list", "config.toml", "vaults = 3\n",
			`vaults in the config file FILE is 3, not a list of settings (name, path, exclude, write)`},
		{"toml text for a number", "config.toml", "[search]\nsemantic_weight = \"abc\"\n",
			`search.semantic_weight in the config file FILE is "abc", not a number`},
		{"toml number for text", "config.toml", "[[vaults]]\npath = \"a\"\n[[vaults]]\nname = 2024\n",
			`vaults[2].name in the config file FILE is 2024, not text`},
		{"toml date for text", "config.toml", "database = 2024-01-02\n",
			`database in the config file FILE is a date or time, not text`},
		{"toml unknown key", "config.toml", "[embedder]\nprovidr = \"ollama\"\n",
			`embedder in the config file FILE has an unknown setting "providr"`},
		{"toml syntax", "config.toml", "vaults = [\n",
			`the config file FILE is not valid TOML at line 1 ("vaults = [")`},
		// The parsers name the line where a block starts, or the line
		// after; the message names the line where the file stops being
		// valid, and quotes it.
		{"yaml mis-indented line", "config.yaml", "vaults:\n  - path: a\n    name: b\n   exclude: [x]\n",
			`the config file FILE is not valid YAML at line 4 ("   exclude: [x]"): `},
		{"yaml unclosed bracket", "config.yaml", "vaults:\n  - path: a\n    exclude: [a, b\n  - path: c\n",
			`the config file FILE is not valid YAML at line 3 ("    exclude: [a, b"): `},
		{"yaml tab", "config.yaml", "vaults:\n  - path: a\n\tname: b\n",
			`the config file FILE is not valid YAML at line 3 ("\tname: b"): a tab indents this line; YAML indents with spaces only`},
		{"yaml unclosed quote", "config.yaml", "database: j.db\nvaults:\n  - path: \"a\n  - path: b\n",
			`the config file FILE is not valid YAML at line 3 ("  - path: \"a"): `},
		{"yaml key on the line at fault", "config.yaml", "embedder:\n  api_key: \"sk-secret\n",
			`the config file FILE is not valid YAML at line 2 ("  api_key ..."): `},
		{"toml unclosed table array", "config.toml", "[[vaults]\npath = \"a\"\n",
			`the config file FILE is not valid TOML at line 1 ("[[vaults]"): `},
		{"toml bad value on a later line", "config.toml", "database = \"j.db\"\n\n[[vaults]]\npath = a\n",
			`the config file FILE is not valid TOML at line 4 ("path = a"): `},
	}
	// What the decoders say of Go types and of themselves.
	internals := regexp.MustCompile(`indicator|token|stream|!!|unmarshal|float64|int64|\[\]config|struct|fileFormat|config\.Vault|(^|[^.])\b(toml|yaml): |Go `)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := filepath.Join(home, strings.ReplaceAll(tt.name, " ", "-"), tt.file)
			write(t, p, tt.content)
			_, err := Load(Flags{ConfigFile: p}, fakeEnv(map[string]string{"HOME": home}))
			if err == nil || !strings.Contains(strings.ReplaceAll(err.Error(), p, "FILE"), tt.want) {
				t.Fatalf("err = %v; want it to contain %q", err, tt.want)
			}
			if m := internals.FindString(err.Error()); m != "" {
				t.Errorf("err = %v; it shows the decoder's %q", err, m)
			}
		})
	}

	// The fix doctor gives for an unknown setting is the change to make:
	// the setting it is a slip of, or taking it out.
	for content, want := range map[string]string{
		"vaults:\n  - name: x\n    wrte: true\n":  `rename "wrte" to "write" in vaults[1] in the config file FILE`,
		"vaults:\n  - name: x\n    colour: red\n": `remove "colour" from vaults[1] in the config file FILE, or rename it to one of the settings there`,
		"vault: x\n": `rename "vault" to "vaults" in the config file FILE`,
	} {
		p := filepath.Join(home, "fix", "config.yaml")
		write(t, p, content)
		_, err := Load(Flags{ConfigFile: p}, fakeEnv(map[string]string{"HOME": home}))
		if got := strings.ReplaceAll(LoadFix(err), p, "FILE"); got != want {
			t.Errorf("%q: fix %q; want %q", content, got, want)
		}
	}

	// Merge keys bring their mapping's settings in, checked as any other.
	p := filepath.Join(home, "merge", "config.yaml")
	write(t, p, "x-common: &common\n  exclude: [Archive]\nvaults:\n  - <<: *common\n    path: notes\n")
	if _, err := Load(Flags{ConfigFile: p}, fakeEnv(map[string]string{"HOME": home})); err == nil || !strings.Contains(err.Error(), `unknown setting "x-common"`) {
		t.Fatalf("unknown top-level key beside a merge: %v", err)
	}
	write(t, p, "vaults:\n  - &first\n    path: notes\n    exclude: [Archive]\n  - <<: *first\n    name: other\n")
	cfg, err := Load(Flags{ConfigFile: p}, fakeEnv(map[string]string{"HOME": home}))
	if err != nil || len(cfg.Vaults) != 2 || len(cfg.Vaults[1].Exclude) != 1 {
		t.Fatalf("merged vault settings: %+v, %v", cfg.Vaults, err)
	}
	write(t, p, "vaults:\n  - &first\n    path: notes\n    exclude: Archive\n  - <<: *first\n    name: other\n")
	if _, err := Load(Flags{ConfigFile: p}, fakeEnv(map[string]string{"HOME": home})); err == nil || !strings.Contains(err.Error(), `vaults[1].exclude in the config file `+p+` is "Archive", not a list of text`) {
		t.Fatalf("a merged value of the wrong kind: %v", err)
	}

	// YAML takes a number or true/false where text is wanted, as its
	// decoder does: a vault may be named 2024.
	p = filepath.Join(home, "year", "config.yaml")
	write(t, p, "vaults:\n  - name: 2024\n    path: notes\n")
	cfg, err = Load(Flags{ConfigFile: p}, fakeEnv(map[string]string{"HOME": home}))
	if err != nil || len(cfg.Vaults) != 1 || cfg.Vaults[0].Name != "2024" {
		t.Fatalf("vault named 2024: %+v, %v", cfg.Vaults, err)
	}
}

// TestYAMLAndTOMLBothPresent: two config files in the config folder are
// an error naming both, wherever the folder is read from.
func TestYAMLAndTOMLBothPresent(t *testing.T) {
	home := t.TempDir()
	// The config folder as every platform finds it.
	t.Setenv("HOME", home)
	t.Setenv("AppData", filepath.Join(home, "AppData"))
	env := fakeEnv(map[string]string{"HOME": home, "AppData": filepath.Join(home, "AppData")})
	dir, err := ConfigDir(env)
	if err != nil {
		t.Fatal(err)
	}
	yamlFile, tomlFile := filepath.Join(dir, "config.yaml"), filepath.Join(dir, "config.toml")
	write(t, yamlFile, "database: a.db\n")
	if cfg, err := Load(Flags{}, env); err != nil || cfg.File != yamlFile {
		t.Fatalf("one file: %v, %v", cfg.File, err)
	}
	write(t, tomlFile, "database = \"b.db\"\n")
	for name, load := range map[string]func() error{
		"Load":               func() error { _, err := Load(Flags{}, env); return err },
		"ConfiguredEmbedder": func() error { _, _, err := ConfiguredEmbedder(env); return err },
	} {
		err := load()
		if err == nil || !strings.Contains(err.Error(), yamlFile) || !strings.Contains(err.Error(), tomlFile) || !strings.Contains(err.Error(), "keep one") {
			t.Errorf("%s with both files: err = %v; want both named and to keep one", name, err)
		}
	}
	// A file named with --config is the one read, whatever lies beside it.
	if cfg, err := Load(Flags{ConfigFile: tomlFile}, env); err != nil || cfg.File != tomlFile {
		t.Errorf("--config with both present: %v, %v", cfg.File, err)
	}
}

// TestAVaultGivenTwice: the same vault listed twice is refused, naming
// where it was listed and what to do.
func TestAVaultGivenTwice(t *testing.T) {
	home := t.TempDir()
	v := filepath.Join(home, "coffee")
	file := filepath.Join(home, "twice.yaml")
	write(t, file, "vaults:\n  - path: "+v+"\n  - path: "+v+"\n")
	for _, tc := range []struct {
		name  string
		flags Flags
		env   map[string]string
		want  string
	}{
		{"config file", Flags{ConfigFile: file}, nil, "vault " + v + " is listed twice in the config file " + file + ": remove one of the two"},
		{"flags", Flags{Vaults: []string{v, v}}, nil, "vault " + v + " is given twice with --vault: give it once"},
		{"environment", Flags{}, map[string]string{EnvVault: v + string(os.PathListSeparator) + v}, "vault " + v + " is listed twice in " + EnvVault + ": remove one of the two"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			vars := map[string]string{"HOME": home}
			for k, x := range tc.env {
				vars[k] = x
			}
			_, err := Load(tc.flags, fakeEnv(vars))
			if err == nil || err.Error() != tc.want {
				t.Fatalf("err = %v; want %q", err, tc.want)
			}
		})
	}
}

// TestAbsoluteFlags: a server's fixes named `jarvis index --db ro/r.db`,
// relative to the server's working folder, which is not the user's. The
// flags made absolute name the same database and vault from anywhere; a
// vault named by the config file stays a name.
func TestAbsoluteFlags(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	if err := os.MkdirAll(filepath.Join(dir, "my notes"), 0o755); err != nil {
		t.Fatal(err)
	}
	cfg, err := Load(Flags{Vaults: []string{"./my notes"}, DB: "ro/r.db"}, func(string) string { return "" })
	if err != nil {
		t.Fatal(err)
	}
	abs := cfg.Absolute()
	want := health.Invocation{"--vault", filepath.Join(dir, "my notes"), "--db", cfg.DBPath}
	if got := abs.Invocation(); !slices.Equal(got, want) || !filepath.IsAbs(cfg.DBPath) {
		t.Errorf("Invocation of the absolute flags = %q; want %q", got, want)
	}
	if got := cfg.Invocation(); !slices.Equal(got, health.Invocation{"--vault", "./my notes", "--db", "ro/r.db"}) {
		t.Errorf("Invocation of the flags as given = %q", got)
	}
	named := Config{Flags: Flags{Vaults: []string{"work"}}, FileVaults: []string{"work"}}
	if got := named.Absolute().Flags.Vaults; !slices.Equal(got, []string{"work"}) {
		t.Errorf("a vault of the config file, by name: %q", got)
	}
}

// TestDatabaseThroughLink: a --db that is a symbolic link, or lies in a
// folder that is one, is judged by where the database really is, even
// when the file it leads to is not made yet: SQLite follows the link and
// makes the database and its -wal and -shm there.
func TestDatabaseThroughLink(t *testing.T) {
	home, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	vault, outside := filepath.Join(home, "cook"), filepath.Join(home, "d3")
	for _, d := range []string{vault, outside} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	links := map[string]string{
		"ylink.db":  filepath.Join(vault, "y.db"),      // to a file not made yet
		"hop.db":    "ylink.db",                        // a link to that link, relative
		"newdir":    filepath.Join(vault, "sub"),       // to a folder not made yet
		"cooklink":  vault,                             // to the vault folder
		"dblink.db": filepath.Join(outside, "real.db"), // outside every vault
	}
	for name, target := range links {
		if err := os.Symlink(target, filepath.Join(home, name)); err != nil {
			t.Fatal(err)
		}
	}
	tests := []struct {
		db, want string
	}{
		{"ylink.db", fmt.Sprintf("--db %s leads to %s, inside vault \"cook\": keep it outside the vault", filepath.Join(home, "ylink.db"), filepath.Join(vault, "y.db"))},
		{"hop.db", fmt.Sprintf("--db %s leads to %s, inside vault \"cook\"", filepath.Join(home, "hop.db"), filepath.Join(vault, "y.db"))},
		{filepath.Join("newdir", "j.db"), fmt.Sprintf("leads to %s, inside vault \"cook\"", filepath.Join(vault, "sub", "j.db"))},
		{filepath.Join("cooklink", "x.db"), fmt.Sprintf("leads to %s, inside vault \"cook\"", filepath.Join(vault, "x.db"))},
		{filepath.Join("cook", "x.db"), fmt.Sprintf("--db puts the database %s inside vault \"cook\"", filepath.Join(vault, "x.db"))},
		{"dblink.db", ""},
	}
	for _, tt := range tests {
		t.Run(tt.db, func(t *testing.T) {
			_, err := Load(Flags{Vaults: []string{vault}, DB: filepath.Join(home, tt.db)}, fakeEnv(map[string]string{"HOME": home}))
			switch {
			case tt.want == "" && err != nil:
				t.Fatalf("err = %v; want none", err)
			case tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)):
				t.Fatalf("err = %v; want it to contain %q", err, tt.want)
			}
		})
	}
	if got, want := RealPath(filepath.Join(home, "dblink.db")), filepath.Join(outside, "real.db"); got != want {
		t.Errorf("RealPath(dblink.db) = %s, want %s", got, want)
	}
}

// Package config decides which vaults jarvis serves and where its database
// lives. Command-line flags override the environment, which overrides the
// config file.
package config

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/jarvis-mcp/jarvis/internal/embed/hub"
	"github.com/jarvis-mcp/jarvis/internal/health"
	"github.com/jarvis-mcp/jarvis/internal/vault"
)

// Environment variables jarvis reads.
const (
	EnvVault  = "JARVIS_VAULT"  // one or more vault paths joined by os.PathListSeparator
	EnvDB     = "JARVIS_DB"     // the database file
	EnvConfig = "JARVIS_CONFIG" // the config file

	EnvEmbedder    = "JARVIS_EMBEDDER"      // lexical, ollama, openai, or a local model's name or folder
	EnvEmbedModel  = "JARVIS_EMBED_MODEL"   // the embedding model
	EnvEmbedURL    = "JARVIS_EMBED_URL"     // the embedding server's base URL
	EnvEmbedAPIKey = "JARVIS_EMBED_API_KEY" // the key for an OpenAI-compatible server
	// EnvEmbedTimeout, EnvEmbedBatchTimeout and EnvEmbedRunTimeout bound
	// one request, one batch with its retries, and the embedding pass of
	// one index run, as Go durations.
	EnvEmbedTimeout      = "JARVIS_EMBED_TIMEOUT"
	EnvEmbedBatchTimeout = "JARVIS_EMBED_BATCH_TIMEOUT"
	EnvEmbedRunTimeout   = "JARVIS_EMBED_RUN_TIMEOUT"
	// EnvOpenAIKey is read for the openai provider when JARVIS_EMBED_API_KEY
	// is not set, as most OpenAI tools do.
	EnvOpenAIKey = "OPENAI_API_KEY"
)

// The embedding providers jarvis knows.
const (
	ProviderLexical = "lexical"
	ProviderOllama  = "ollama"
	ProviderOpenAI  = "openai"
	// ProviderLocal runs a model on this machine: Model is a name
	// `jarvis model list` shows, owner/name, or the model's folder.
	ProviderLocal = "local"
)

// Embedder says which embedder turns notes into vectors for semantic search.
// The zero value is the lexical embedder, which needs no server.
type Embedder struct {
	// Provider is lexical (the default), ollama, openai or local. A local
	// model's name or folder given as the provider stands for local with
	// that model.
	Provider string `yaml:"provider" toml:"provider" json:"provider"`
	// Model is the model name; ollama defaults to nomic-embed-text, openai to
	// text-embedding-3-small.
	Model string `yaml:"model" toml:"model" json:"model,omitempty"`
	// URL is the server's base URL; ollama defaults to
	// http://localhost:11434, openai to https://api.openai.com.
	URL string `yaml:"url" toml:"url" json:"url,omitempty"`
	// APIKey is sent as a bearer token to OpenAI-compatible servers.
	APIKey string `yaml:"api_key" toml:"api_key" json:"-"`
	// Timeout bounds each request to the server, as a Go duration ("30s").
	Timeout string `yaml:"timeout" toml:"timeout" json:"timeout,omitempty"`
	// BatchTimeout bounds one batch of texts, every attempt and the waits
	// between them together ("3m").
	BatchTimeout string `yaml:"batch_timeout" toml:"batch_timeout" json:"batch_timeout,omitempty"`
	// RunTimeout bounds the embedding pass of one index run ("1h"); what
	// was embedded before it ran out stays stored.
	RunTimeout string `yaml:"run_timeout" toml:"run_timeout" json:"run_timeout,omitempty"`
	// QueryPrefix and PassagePrefix, when set, replace the text a local
	// model puts before queries and passages (e5 wants "query: " and
	// "passage: "; the known models' prefixes are built in).
	QueryPrefix   *string `yaml:"query_prefix" toml:"query_prefix" json:"query_prefix,omitempty"`
	PassagePrefix *string `yaml:"passage_prefix" toml:"passage_prefix" json:"passage_prefix,omitempty"`
	// Source says where Provider came from, for doctor.
	Source string `yaml:"-" toml:"-" json:"-"`
	// ModelsDir is the models folder local models are looked up in
	// (JARVIS_MODELS, or one in the user's cache folder); "" when there
	// is none.
	ModelsDir string `yaml:"-" toml:"-" json:"-"`
}

// ErrNoVault means no vault was configured anywhere.
var ErrNoVault = errors.New("no vault configured")

// Vault is one Obsidian vault to index.
type Vault struct {
	// Name identifies the vault in tool arguments and results.
	Name string `yaml:"name" toml:"name" json:"name"`
	// Path is the absolute, cleaned folder path.
	Path string `yaml:"path" toml:"path" json:"path"`
	// Exclude holds glob patterns of vault-relative paths to skip, such as
	// "Archive/**" or "*.excalidraw.md". A pattern without '/' matches a
	// file or folder name at any depth.
	Exclude []string `yaml:"exclude" toml:"exclude" json:"exclude,omitempty"`
	// ObsidianProblem says what of Obsidian's excluded files setting
	// could not be applied (vault.ObsidianExclude); the vault check
	// reports it.
	ObsidianProblem string `yaml:"-" toml:"-" json:"-"`
	// ObsidianUnknown is the path of Obsidian's settings file when it is
	// there but its filters could not be taken (vault.ObsidianSetting's
	// Unknown): which files Obsidian excludes is then unknown, not none,
	// and the index refuses to take it as none. ObsidianUnreadable says
	// it cannot be read, rather than is not valid.
	ObsidianUnknown    string `yaml:"-" toml:"-" json:"-"`
	ObsidianUnreadable bool   `yaml:"-" toml:"-" json:"-"`
	// Write lets the write tools change the vault's notes; off unless
	// asked for (here, or for every vault by jarvis mcp --write).
	Write bool `yaml:"write" toml:"write" json:"write,omitempty"`
}

// Config is the settled configuration of one jarvis run.
type Config struct {
	Vaults []Vault
	// DBPath is the SQLite database file.
	DBPath string
	// File is the config file that was read, or "" when there was none.
	File string
	// VaultSource and DBSource say where Vaults and DBPath came from
	// ("flag", "env", "config file", "default") for doctor to report.
	VaultSource string
	DBSource    string
	// Embedder is the embedder for semantic search.
	Embedder Embedder
	// Search tunes ranking.
	Search Search
	// MCP tunes the server's answers.
	MCP MCP
	// FileVaults names the vaults the config file lists, chosen or not,
	// for messages that tell which names --vault accepts.
	FileVaults []string
	// Flags are the command-line values this configuration was settled
	// from, as given; fixes repeat them (see Invocation).
	Flags Flags
}

// Invocation is the flags of this run as a fix repeats them: a command
// named in a fix then works on the same vaults, database and embedder.
func (c Config) Invocation() health.Invocation {
	var inv health.Invocation
	if c.Flags.ConfigFile != "" {
		inv = append(inv, "--config", c.Flags.ConfigFile)
	}
	for _, v := range c.Flags.Vaults {
		inv = append(inv, "--vault", v)
	}
	if c.Flags.DB != "" {
		inv = append(inv, "--db", c.Flags.DB)
	}
	if c.Flags.Embedder != "" {
		inv = append(inv, "--embedder", c.Flags.Embedder)
	}
	return inv
}

// Lists reports whether c configures the vault named: one of this run's
// vaults, or one the config file lists though --vault or JARVIS_VAULT
// narrowed the run to others. It is the one rule for a vault the database
// holds: one c lists is this configuration's, even when this run leaves it
// out; only one it does not list may be another configuration's, or
// dropped from this one, and only such a vault is offered to be dropped
// (--forget).
func (c Config) Lists(name string) bool {
	return slices.ContainsFunc(c.Vaults, func(v Vault) bool { return v.Name == name }) || slices.Contains(c.FileVaults, name)
}

// Absolute is c with the paths its flags give made absolute, so that
// Invocation repeats them as such: a command named by a process whose
// working folder is not the user's (the server an MCP client starts)
// would, with a relative --db, name another file where the user pastes
// it. Vault names of the config file and paths from the home folder (~)
// stay as given.
func (c Config) Absolute() Config {
	f := c.Flags
	if f.DB != "" {
		f.DB = c.DBPath
	}
	if f.ConfigFile != "" && c.File != "" {
		f.ConfigFile = c.File
	}
	f.Vaults = nil
	for _, given := range c.Flags.Vaults {
		args := filepath.SplitList(given)
		for i, arg := range args {
			arg = strings.TrimSpace(arg)
			if arg == "" || filepath.IsAbs(arg) || strings.HasPrefix(arg, "~") || byName(arg, slices.Contains(c.FileVaults, arg)) {
				continue
			}
			args[i] = absPath(arg, "")
		}
		f.Vaults = append(f.Vaults, strings.Join(args, string(filepath.ListSeparator)))
	}
	c.Flags = f
	return c
}

// VaultsFromDatabase is the VaultSource of a run that took its vaults from
// the database it opens, as `jarvis index --rebuild` does when given none.
const VaultsFromDatabase = "database"

// VaultOrigin names, for a message, the one place the vaults of this run
// were given: "--vault", "JARVIS_VAULT" or "the config file PATH".
func (c Config) VaultOrigin() string {
	switch {
	case c.VaultSource == "flag":
		return "--vault"
	case strings.HasPrefix(c.VaultSource, "env "):
		return strings.TrimPrefix(c.VaultSource, "env ")
	case c.VaultSource == VaultsFromDatabase:
		return "the database " + c.DBPath
	}
	return c.FileOrigin()
}

// FileOrigin names the config file that was read, for a sentence: "the
// config file PATH".
func (c Config) FileOrigin() string {
	if c.File == "" {
		return "the config file"
	}
	return "the config file " + c.File
}

// NoVaultFix is what to do when no vault is configured, naming the config
// file that was read or, when none was, the one that would be: the same
// words for every command and for doctor.
func (c Config) NoVaultFix(getenv func(string) string) string {
	if c.File != "" {
		return fmt.Sprintf("pass --vault PATH, set %s, or list vaults in %s (it lists none)", EnvVault, c.File)
	}
	dir, err := ConfigDir(getenv)
	if err != nil {
		return fmt.Sprintf("pass --vault PATH or set %s", EnvVault)
	}
	return fmt.Sprintf("pass --vault PATH, set %s, or list vaults in %s", EnvVault, filepath.Join(dir, "config.yaml"))
}

// Flags are the values given on the command line; empty means not given.
type Flags struct {
	Vaults     []string
	DB         string
	ConfigFile string
	// Embedder is the --embedder flag: a provider name.
	Embedder string
}

// fileFormat is what a config file holds, in YAML or TOML.
type fileFormat struct {
	Database string   `yaml:"database" toml:"database"`
	Vaults   []Vault  `yaml:"vaults" toml:"vaults"`
	Embedder Embedder `yaml:"embedder" toml:"embedder"`
	Search   Search   `yaml:"search" toml:"search"`
	MCP      MCP      `yaml:"mcp" toml:"mcp"`
}

// MCP tunes what `jarvis mcp` answers.
type MCP struct {
	// AnswerTokens is the most one tool answer takes of a model's
	// context, text and structured content together, counted as 4
	// characters a token; 20,000 when left out.
	AnswerTokens *int `yaml:"answer_tokens" toml:"answer_tokens" json:"answer_tokens,omitempty"`
	// OAuthIssuer, when set, makes `jarvis mcp --http` accept access
	// tokens this OAuth issuer signed; OAuthAudience is the audience they
	// must name ("" for the server's URL), and PublicURL the server's
	// URL as clients reach it ("" to take it from each request).
	OAuthIssuer   string `yaml:"oauth_issuer" toml:"oauth_issuer" json:"oauth_issuer,omitempty"`
	OAuthAudience string `yaml:"oauth_audience" toml:"oauth_audience" json:"oauth_audience,omitempty"`
	PublicURL     string `yaml:"public_url" toml:"public_url" json:"public_url,omitempty"`
}

// MinAnswerTokens and MaxAnswerTokens bound mcp.answer_tokens.
const (
	MinAnswerTokens = 1000
	MaxAnswerTokens = 200000
)

// check refuses settings out of range, naming the setting and the
// config file (file) that holds it.
func (m MCP) check(file string) error {
	if n := m.AnswerTokens; n != nil && (*n < MinAnswerTokens || *n > MaxAnswerTokens) {
		return &SettingError{Origin: inFile("mcp.answer_tokens", file),
			Detail: fmt.Sprintf("is %d: give %d to %d (tokens of about 4 characters)", *n, MinAnswerTokens, MaxAnswerTokens)}
	}
	return nil
}

// Search tunes ranking. A setting left out takes the default for the kind
// of embedder in use (lexical or neural), which docs/benchmarks.md
// explains.
type Search struct {
	// SemanticWeight is the weight of semantic scores against keyword
	// scores (which weigh 1) in combined search, 0 to 10.
	SemanticWeight *float64 `yaml:"semantic_weight" toml:"semantic_weight" json:"semantic_weight,omitempty"`
	// SimilarityFloor is the similarity, 0 to 1, below which a passage
	// is not a semantic match at all.
	SimilarityFloor *float64 `yaml:"similarity_floor" toml:"similarity_floor" json:"similarity_floor,omitempty"`
}

// check refuses settings out of range, naming the setting and the
// config file (file) that holds it.
func (s Search) check(file string) error {
	if w := s.SemanticWeight; w != nil && (*w < 0 || *w > 10 || *w != *w) {
		return &SettingError{Origin: inFile("search.semantic_weight", file),
			Detail: fmt.Sprintf("is %v: give 0 to 10 (0 ranks combined search by keywords alone)", *w)}
	}
	if f := s.SimilarityFloor; f != nil && (*f < 0 || *f > 1 || *f != *f) {
		return &SettingError{Origin: inFile("search.similarity_floor", file), Detail: fmt.Sprintf("is %v: give 0 to 1", *f)}
	}
	return nil
}

// Load settles the configuration from flags, the environment (through
// getenv) and the config file. It fails when a named config file is missing or
// unreadable, or when a vault is misconfigured; it does not check that vault
// folders exist, which doctor reports.
func Load(flags Flags, getenv func(string) string) (Config, error) {
	cfg := Config{Flags: flags}
	file, err := readConfigFile(flags.ConfigFile, getenv)
	if err != nil {
		return cfg, err
	}
	cfg.File = file.path

	named := map[string]Vault{}
	for i, v := range file.Vaults {
		if v.Path == "" {
			return cfg, &SettingError{Origin: wholeFile(file.path), Detail: fmt.Sprintf("lists vault %d without a path: give it one", i+1)}
		}
		v.Path = absPath(expandHome(v.Path, getenv), filepath.Dir(file.path))
		if v.Name == "" {
			v.Name = filepath.Base(v.Path)
		}
		file.Vaults[i] = v
		named[v.Name] = v
		cfg.FileVaults = append(cfg.FileVaults, v.Name)
	}

	var given []string
	switch {
	case len(flags.Vaults) > 0:
		cfg.VaultSource = "flag"
		for _, f := range flags.Vaults {
			given = append(given, filepath.SplitList(f)...)
		}
	case getenv(EnvVault) != "":
		cfg.VaultSource = "env " + EnvVault
		given = filepath.SplitList(getenv(EnvVault))
	default:
		cfg.VaultSource = "config file"
		cfg.Vaults = file.Vaults
	}
	for _, g := range given {
		g = strings.TrimSpace(g)
		if g == "" {
			continue
		}
		cfg.Vaults = append(cfg.Vaults, vaultFromArg(g, named, file.Vaults, getenv))
	}
	if err := uniqueNames(cfg.Vaults, cfg.VaultOrigin()); err != nil {
		return cfg, err
	}
	for i, v := range cfg.Vaults {
		cfg.Vaults[i] = v.WithObsidianExclude()
	}

	switch {
	case flags.DB != "":
		cfg.DBPath, cfg.DBSource = absPath(expandHome(flags.DB, getenv), ""), "flag"
	case getenv(EnvDB) != "":
		cfg.DBPath, cfg.DBSource = absPath(expandHome(getenv(EnvDB), getenv), ""), "env "+EnvDB
	case file.Database != "":
		cfg.DBPath, cfg.DBSource = absPath(expandHome(file.Database, getenv), filepath.Dir(file.path)), "config file"
	default:
		dir, err := DataDir(getenv)
		if err != nil {
			return cfg, err
		}
		cfg.DBPath, cfg.DBSource = filepath.Join(dir, DefaultDBName), "default"
	}
	if err := checkDBPath(cfg); err != nil {
		return cfg, err
	}
	emb, err := settleEmbedder(flags.Embedder, file.Embedder, getenv)
	if err != nil {
		return cfg, &SettingError{Origin: embedderOrigin(emb.Source, file.path), Detail: err.Error()}
	}
	if err := checkEmbedder(emb, file.path, getenv); err != nil {
		return cfg, err
	}
	cfg.Embedder = emb
	if err := file.Search.check(file.path); err != nil {
		return cfg, err
	}
	cfg.Search = file.Search
	if err := file.MCP.check(file.path); err != nil {
		return cfg, err
	}
	cfg.MCP = file.MCP
	for _, o := range []struct {
		env string
		dst *string
	}{{EnvOAuthIssuer, &cfg.MCP.OAuthIssuer}, {EnvOAuthAudience, &cfg.MCP.OAuthAudience}, {EnvPublicURL, &cfg.MCP.PublicURL}} {
		if v := getenv(o.env); v != "" {
			*o.dst = v
		}
	}
	for _, v := range cfg.Vaults {
		real := RealPath(cfg.DBPath)
		if !inside(cfg.DBPath, v.Path) && !inside(real, RealPath(v.Path)) {
			continue
		}
		where := "puts the database " + cfg.DBPath
		if real != cfg.DBPath && !inside(cfg.DBPath, v.Path) {
			where = cfg.DBPath + " leads to " + real + ","
		}
		return cfg, &SettingError{Origin: dbOrigin(cfg),
			Detail: fmt.Sprintf("%s inside vault %q: keep it outside the vault, such as %s",
				where, v.Name, filepath.Join(filepath.Dir(v.Path), v.Name+".jarvis.db"))}
	}
	return cfg, nil
}

// settleEmbedder lays the environment and the --embedder flag over the
// config file's embedder settings and checks the provider.
func settleEmbedder(flag string, e Embedder, getenv func(string) string) (Embedder, error) {
	e.Source = "config file"
	if e.Provider == "" {
		e.Source = "default"
	}
	if v := getenv(EnvEmbedder); v != "" {
		e.Provider, e.Source = v, "env "+EnvEmbedder
	}
	if flag != "" {
		e.Provider, e.Source = flag, "flag"
	}
	for _, o := range []struct {
		env string
		dst *string
	}{
		{EnvEmbedModel, &e.Model}, {EnvEmbedURL, &e.URL}, {EnvEmbedAPIKey, &e.APIKey},
		{EnvEmbedTimeout, &e.Timeout}, {EnvEmbedBatchTimeout, &e.BatchTimeout}, {EnvEmbedRunTimeout, &e.RunTimeout},
	} {
		if v := getenv(o.env); v != "" {
			*o.dst = v
		}
	}
	if dir, err := hub.Dir(getenv); err == nil {
		e.ModelsDir = dir
	}
	given := strings.TrimSpace(e.Provider)
	e.Provider = strings.ToLower(given)
	switch e.Provider {
	case "":
		e.Provider = ProviderLexical
		if e.ModelsDir != "" {
			// A model pulled while no embedder was configured is the one
			// used, until one is configured.
			if name, ok := hub.Default(e.ModelsDir); ok {
				e.Provider, e.Model, e.Source = ProviderLocal, name, "the model pulled last (jarvis model pull)"
			}
		}
	case ProviderLexical, ProviderOllama:
	case ProviderOpenAI:
		if e.APIKey == "" {
			e.APIKey = getenv(EnvOpenAIKey)
		}
	case ProviderLocal:
		if e.Model == "" {
			return e, errors.New("chooses the local embedder without a model: set embedder.model or " + EnvEmbedModel + " to a name from `jarvis model list`, owner/name, or a model folder")
		}
	default:
		if !looksLikeModel(given, e.ModelsDir) {
			return e, fmt.Errorf("is %q, which is no embedder jarvis knows: use lexical (offline, the default), ollama, openai, or a local model (a name from `jarvis model list`, owner/name, or a model folder)", given)
		}
		e.Provider, e.Model = ProviderLocal, given
	}
	if e.Provider == ProviderLocal && !filepath.IsAbs(e.Model) && isPath(e.Model) {
		e.Model = absPath(expandHome(e.Model, getenv), "")
	}
	return e, nil
}

// ConfiguredEmbedder says which embedder the config file (the default one,
// or JARVIS_CONFIG's) and the environment choose, and where that comes
// from; source is "" when none is chosen and the default applies. It needs
// no vault, for commands such as `jarvis model pull` that use none.
func ConfiguredEmbedder(getenv func(string) string) (provider, source string, err error) {
	file, err := readConfigFile("", getenv)
	if err != nil {
		return "", "", err
	}
	switch {
	case getenv(EnvEmbedder) != "":
		return getenv(EnvEmbedder), "env " + EnvEmbedder, nil
	case file.Embedder.Provider != "":
		return file.Embedder.Provider, "config file " + file.path, nil
	}
	return "", "", nil
}

// looksLikeModel reports whether an embedder given by name is a local
// model rather than a misspelt provider: a known or installed model's
// name, owner/name, or a folder.
func looksLikeModel(name, modelsDir string) bool {
	if _, ok := hub.Lookup(name); ok || isPath(name) {
		return true
	}
	if strings.Count(name, "/") == 1 && !strings.HasPrefix(name, "/") && !strings.HasSuffix(name, "/") {
		return true // owner/name on the hub
	}
	if modelsDir != "" {
		if _, err := hub.Resolve(modelsDir, name); err == nil {
			return true
		}
	}
	return false
}

// isPath reports whether s is written as a folder path rather than a
// model name.
func isPath(s string) bool {
	return filepath.IsAbs(s) || strings.HasPrefix(s, "./") || strings.HasPrefix(s, "../") || strings.HasPrefix(s, "~") ||
		strings.HasPrefix(s, `.\`) || strings.HasPrefix(s, `..\`) || strings.Count(s, "/") > 1 || strings.Contains(s, `\`)
}

// TimeoutDuration is the embedder's request timeout, or def when unset.
func (e Embedder) TimeoutDuration(def time.Duration) time.Duration {
	return durationOr(e.Timeout, def)
}

// BatchTimeoutDuration is the bound on one batch with its retries, or def
// when unset.
func (e Embedder) BatchTimeoutDuration(def time.Duration) time.Duration {
	return durationOr(e.BatchTimeout, def)
}

// RunTimeoutDuration is the bound on the embedding pass of one index run,
// or def when unset.
func (e Embedder) RunTimeoutDuration(def time.Duration) time.Duration {
	return durationOr(e.RunTimeout, def)
}

func durationOr(s string, def time.Duration) time.Duration {
	if d, err := ParseTimeout(s); err == nil {
		return d
	}
	return def
}

// vaultFromArg turns a --vault or JARVIS_VAULT entry into a vault. An entry
// naming a configured vault selects it; a path that is a configured vault's
// path keeps that vault's name and excludes; any other path is a vault named
// after its folder.
func vaultFromArg(arg string, named map[string]Vault, configured []Vault, getenv func(string) string) Vault {
	if v, ok := named[arg]; byName(arg, ok) {
		return v
	}
	p := absPath(expandHome(arg, getenv), "")
	for _, v := range configured {
		if v.Path == p {
			return v
		}
	}
	return Vault{Name: filepath.Base(p), Path: p}
}

// byName reports whether arg, a --vault value, is taken as the name of a
// vault of the config file (known says whether it has one so named)
// rather than as a folder: a name with no path separator that no folder
// here has.
func byName(arg string, known bool) bool {
	if !known || strings.ContainsAny(arg, `/\`) {
		return false
	}
	_, err := os.Stat(arg)
	return err != nil
}

// WithObsidianExclude is v with the filters of Obsidian's excluded files
// setting in the vault folder (Settings → Files and links, kept in
// .obsidian/app.json) as read now added to its exclude patterns, in place
// of those it held, so that every command leaves out what Obsidian does,
// as it leaves out what the config excludes. Read by each run (and again
// by each index run of a long-running one), a change of the setting is
// followed at the next run: the index removes what an added filter leaves
// out and takes in what a removed one let back (index.CheckVaults).
func (v Vault) WithObsidianExclude() Vault {
	set := vault.ObsidianExclude(v.Path)
	own := slices.DeleteFunc(slices.Clone(v.Exclude), func(pat string) bool {
		_, obsidian := vault.ObsidianFilter(pat)
		return obsidian
	})
	v.Exclude = append(own, set.Patterns...)
	v.ObsidianProblem, v.ObsidianUnknown, v.ObsidianUnreadable = set.Problem, "", set.Unreadable
	if set.Unknown {
		v.ObsidianUnknown = filepath.Join(v.Path, filepath.FromSlash(vault.AppSettingsFile))
	}
	return v
}

// uniqueNames rejects two vaults with one name: tools pick vaults by name.
// origin is where the vaults were given (Config.VaultOrigin).
func uniqueNames(vs []Vault, origin string) error {
	seen := map[string]string{}
	for _, v := range vs {
		if prev, ok := seen[v.Name]; ok {
			if prev == v.Path {
				if origin == "--vault" {
					return fmt.Errorf("vault %s is given twice with --vault: give it once", v.Path)
				}
				return fmt.Errorf("vault %s is listed twice in %s: remove one of the two", v.Path, origin)
			}
			return fmt.Errorf("two vaults are named %q (%s and %s): give them distinct names in the config file", v.Name, prev, v.Path)
		}
		seen[v.Name] = v.Path
	}
	return nil
}

type loadedFile struct {
	fileFormat
	path string
}

// readConfigFile reads the named config file (flag, then env), or else the
// one of config.yaml, config.yml, config.toml in the user config folder;
// more than one there is an error.
func readConfigFile(flagPath string, getenv func(string) string) (loadedFile, error) {
	explicit := flagPath
	if explicit == "" {
		explicit = getenv(EnvConfig)
	}
	if explicit != "" {
		p := absPath(expandHome(explicit, getenv), "")
		if _, err := os.Stat(p); errors.Is(err, fs.ErrNotExist) {
			from := "--config"
			if flagPath == "" {
				from = EnvConfig
			}
			return loadedFile{}, &SettingError{Origin: from, Detail: fmt.Sprintf("names the config file %s, which does not exist", p)}
		}
		f, err := parseConfigFile(p)
		if err != nil {
			return loadedFile{}, err
		}
		return loadedFile{fileFormat: f, path: p}, nil
	}
	dir, err := ConfigDir(getenv)
	if err != nil {
		return loadedFile{}, nil // no home folder: run without a config file
	}
	var found []string
	for _, name := range []string{"config.yaml", "config.yml", "config.toml"} {
		p := filepath.Join(dir, name)
		if _, err := os.Stat(p); err == nil {
			found = append(found, p)
		}
	}
	switch len(found) {
	case 0:
		return loadedFile{}, nil
	case 1:
	default:
		// Reading one and ignoring the other would leave settings
		// edited in the other without effect, and no sign why.
		both, other := "both", "the other"
		if len(found) > 2 {
			both, other = "all", "the others"
		}
		return loadedFile{}, fmt.Errorf("config files %s and %s are %s present: keep one and remove %s (YAML and TOML take the same settings)",
			strings.Join(found[:len(found)-1], ", "), found[len(found)-1], both, other)
	}
	f, err := parseConfigFile(found[0])
	if err != nil {
		return loadedFile{}, err
	}
	return loadedFile{fileFormat: f, path: found[0]}, nil
}

// unreadableFile is the error of a config file at p that exists but
// could not be read (err): the reason without the path the sentence
// already gives, and for a permission, the command that mends it.
func unreadableFile(p string, err error) *SettingError {
	why := err
	var pe *fs.PathError
	if errors.As(err, &pe) {
		why = pe.Err
	}
	e := &SettingError{Origin: wholeFile(p), Detail: "cannot be read: " + why.Error()}
	if errors.Is(err, fs.ErrPermission) {
		e.Detail = "cannot be read by you (" + why.Error() + ")"
		e.Remedy = "make it readable by you, such as with `chmod u+r " + health.Quote(p) + "`"
	}
	return e
}

func parseConfigFile(p string) (fileFormat, error) {
	var f fileFormat
	data, err := os.ReadFile(p)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return f, &SettingError{Origin: wholeFile(p), Detail: "does not exist"}
		}
		return f, unreadableFile(p, err)
	}
	decode := decodeYAML
	if strings.EqualFold(filepath.Ext(p), ".toml") {
		decode = decodeTOML
	}
	if err := decode(data, &f); err != nil {
		return fileFormat{}, fileError(p, err)
	}
	return f, nil
}

// ConfigDir is the folder jarvis looks in for config.yaml or config.toml.
func ConfigDir(getenv func(string) string) (string, error) {
	if runtime.GOOS == "linux" || runtime.GOOS == "freebsd" || runtime.GOOS == "openbsd" {
		if x := getenv("XDG_CONFIG_HOME"); x != "" {
			return filepath.Join(x, "jarvis"), nil
		}
		if h := getenv("HOME"); h != "" {
			return filepath.Join(h, ".config", "jarvis"), nil
		}
	}
	d, err := os.UserConfigDir()
	if err != nil {
		return "", fmt.Errorf("find config folder: %w", err)
	}
	return filepath.Join(d, "jarvis"), nil
}

// DataDir is the folder that holds the database by default: XDG_DATA_HOME
// or ~/.local/share on Linux, ~/Library/Application Support on macOS,
// %LocalAppData% on Windows.
func DataDir(getenv func(string) string) (string, error) {
	dir, _, err := DataDirFrom(getenv)
	return dir, err
}

// DataOrigin is where DataDir found the default database folder: the
// environment variable it comes from and its value (XDG_DATA_HOME and
// /home/ana/data), and the variable that chooses another one, "" where
// none does (macOS).
type DataOrigin struct {
	Var, Value, Override string
}

// DataDirFrom is DataDir with where the folder came from.
func DataDirFrom(getenv func(string) string) (string, DataOrigin, error) {
	switch runtime.GOOS {
	case "windows":
		if d := getenv("LocalAppData"); d != "" {
			return filepath.Join(d, "jarvis"), DataOrigin{"LocalAppData", d, "LocalAppData"}, nil
		}
	case "darwin":
		if h := getenv("HOME"); h != "" {
			return filepath.Join(h, "Library", "Application Support", "jarvis"), DataOrigin{"HOME", h, ""}, nil
		}
	default:
		if x := getenv("XDG_DATA_HOME"); x != "" {
			return filepath.Join(x, "jarvis"), DataOrigin{"XDG_DATA_HOME", x, "XDG_DATA_HOME"}, nil
		}
		if h := getenv("HOME"); h != "" {
			return filepath.Join(h, ".local", "share", "jarvis"), DataOrigin{"HOME", h, "XDG_DATA_HOME"}, nil
		}
	}
	return "", DataOrigin{}, noDataDir()
}

// noDataDir is the error for a system whose setting that names the
// default database folder is not set: HOME (LocalAppData on Windows).
func noDataDir() error {
	v := "HOME"
	if runtime.GOOS == "windows" {
		v = "LocalAppData"
	}
	return &SettingError{Origin: v, Detail: "is not set, so jarvis has no folder for the database: give one with --db or " + EnvDB,
		Remedy: "give --db FILE or set " + EnvDB + " (or " + v + ")"}
}

// DefaultDBFrom reports where the database at path comes from when it is
// the default one (DataDirFrom): the one rule by which a message about
// the database names the setting that put it there.
func DefaultDBFrom(path string, getenv func(string) string) (DataOrigin, bool) {
	dir, from, err := DataDirFrom(getenv)
	if err != nil || RealPath(filepath.Join(dir, DefaultDBName)) != RealPath(path) {
		return DataOrigin{}, false
	}
	return from, true
}

// DefaultDBName is the name of the database file in the default folder.
const DefaultDBName = "jarvis.db"

func expandHome(p string, getenv func(string) string) string {
	if p == "~" || strings.HasPrefix(p, "~/") || strings.HasPrefix(p, `~\`) {
		if h := getenv("HOME"); h != "" {
			return filepath.Join(h, p[1:])
		}
		if h, err := os.UserHomeDir(); err == nil {
			return filepath.Join(h, p[1:])
		}
	}
	return p
}

// absPath makes p absolute, relative to base when base is not "" and to the
// working folder otherwise.
func absPath(p, base string) string {
	if !filepath.IsAbs(p) && base != "" {
		p = filepath.Join(base, p)
	}
	if a, err := filepath.Abs(p); err == nil {
		return a
	}
	return filepath.Clean(p)
}

// RealPath is where the file at p really is: p made absolute, with every
// symbolic link on the way resolved, in any folder of the path and the
// last one too, even when what it points to does not exist yet (a link
// to a database not made yet). A part of the path that does not exist is
// kept as written. SQLite follows the same links and makes the -wal, -shm
// and -journal beside the real file, so it is the one rule by which
// jarvis places a database: the vault check, the access check and the
// writer lock all use it.
func RealPath(p string) string {
	return realPath(absPath(p, ""), 0)
}

// maxLinks is how many links RealPath follows before it stops: a loop of
// links resolves to nothing.
const maxLinks = 40

func realPath(p string, hops int) string {
	if real, err := filepath.EvalSymlinks(p); err == nil {
		return real
	}
	parent := filepath.Dir(p)
	if parent == p {
		return p
	}
	dir := realPath(parent, hops)
	full := filepath.Join(dir, filepath.Base(p))
	target, err := os.Readlink(full)
	if err != nil || hops >= maxLinks {
		return full
	}
	if !filepath.IsAbs(target) {
		target = filepath.Join(dir, target)
	}
	return realPath(filepath.Clean(target), hops+1)
}

// Inside reports whether path is dir or lies within it.
func Inside(path, dir string) bool { return inside(path, dir) }

// inside reports whether path lies within dir.
func inside(path, dir string) bool {
	rel, err := filepath.Rel(dir, path)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel)
}

// Names lists the names of vs, in order.
func Names(vs []Vault) []string {
	out := make([]string, len(vs))
	for i, v := range vs {
		out[i] = v.Name
	}
	return out
}

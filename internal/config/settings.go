package config

import (
	"reflect"

	"github.com/jarvis-mcp/jarvis/internal/embed/hub"
)

// EnvHTTPToken is the bearer token `jarvis mcp --http` requires of clients.
const EnvHTTPToken = "JARVIS_HTTP_TOKEN"

// The OAuth settings of `jarvis mcp --http`: the issuer whose tokens it
// accepts, the audience they must name, and the server's URL as clients
// reach it.
const (
	EnvOAuthIssuer   = "JARVIS_OAUTH_ISSUER"
	EnvOAuthAudience = "JARVIS_OAUTH_AUDIENCE"
	EnvPublicURL     = "JARVIS_PUBLIC_URL"
)

// Setting is one thing jarvis can be told outside its flags: a config file
// key, an environment variable, or both for one setting.
type Setting struct {
	// Key is the config file key, with its section ("embedder.url");
	// a key of each vault in the vaults list is written "vaults[].path".
	// "" when the setting is an environment variable only.
	Key string
	// Env is the environment variable; "" when there is none.
	Env string
	// Type is what the value is written as: text, path, duration,
	// number, boolean or list.
	Type string
	// Default is what applies when the setting is left out; "" when
	// nothing does.
	Default string
	// Meaning says in one line what the setting does.
	Meaning string
	// Secret marks a key or token: jarvis setup never copies one into a
	// client's config file by itself.
	Secret bool
}

// Settings is every config file key and every environment variable
// jarvis reads, in the order `jarvis help config` lists them. The keys
// are those of the config file's shape (fileFormat), which the decoder
// checks files against; a test holds the two together.
var Settings = []Setting{
	{Key: "vaults", Env: EnvVault, Type: "list",
		Meaning: "the vaults to serve; the variable holds folders joined by the path-list separator (':' on Linux and macOS, ';' on Windows)"},
	{Key: "vaults[].path", Type: "path",
		Meaning: "the vault's folder; a relative path is relative to the config file"},
	{Key: "vaults[].name", Type: "text", Default: "the folder's name",
		Meaning: "the name tools and --vault know the vault by"},
	{Key: "vaults[].exclude", Type: "list",
		Meaning: "glob patterns of files and folders to skip, such as \"Archive/**\"; a pattern without '/' matches a name at any depth"},
	{Key: "vaults[].write", Type: "boolean", Default: "false",
		Meaning: "lets the write tools (create-note, edit-note, move-note, delete-note, periodic-note's append) change the vault's notes, each write undoable with 'jarvis undo'; 'jarvis mcp --write' allows it for every vault served"},
	{Key: "database", Env: EnvDB, Type: "path",
		Default: "jarvis.db in the user data folder: $XDG_DATA_HOME/jarvis or ~/.local/share/jarvis on Linux, ~/Library/Application Support/jarvis on macOS, %LocalAppData%\\jarvis on Windows",
		Meaning: "the SQLite database; never inside a vault"},
	{Env: EnvConfig, Type: "path",
		Default: "config.yaml, config.yml or config.toml in $XDG_CONFIG_HOME/jarvis or ~/.config/jarvis on Linux, ~/Library/Application Support/jarvis on macOS, %AppData%\\jarvis on Windows",
		Meaning: "the config file; keep one: a YAML and a TOML file side by side are an error"},
	{Key: "embedder.provider", Env: EnvEmbedder, Type: "text", Default: "lexical, which needs no server",
		Meaning: "the embedder for semantic search: lexical, ollama, openai, or a local model: a name from 'jarvis model list', owner/name, or a model folder (as provider local with model)"},
	{Key: "embedder.model", Env: EnvEmbedModel, Type: "text", Default: "ollama: nomic-embed-text; openai: text-embedding-3-small",
		Meaning: "the embedding model"},
	{Key: "embedder.url", Env: EnvEmbedURL, Type: "text", Default: "ollama: http://localhost:11434; openai: https://api.openai.com",
		Meaning: "the embedding server, or any OpenAI-compatible one such as LM Studio, llama.cpp, vLLM, LocalAI"},
	{Key: "embedder.api_key", Env: EnvEmbedAPIKey, Type: "text", Secret: true,
		Meaning: "the key sent to an OpenAI-compatible server as a bearer token"},
	{Env: EnvOpenAIKey, Type: "text", Secret: true,
		Meaning: "the key for the openai provider when neither embedder.api_key nor " + EnvEmbedAPIKey + " is set"},
	{Key: "embedder.timeout", Env: EnvEmbedTimeout, Type: "duration", Default: "ollama 2m, openai 1m",
		Meaning: "the time limit of one request to the embedding server, above 0, such as 30s"},
	{Key: "embedder.batch_timeout", Env: EnvEmbedBatchTimeout, Type: "duration", Default: "3m",
		Meaning: "the time limit of one batch of texts, retries included, above 0"},
	{Key: "embedder.run_timeout", Env: EnvEmbedRunTimeout, Type: "duration", Default: "1h",
		Meaning: "the time limit of the embedding pass of one index run, above 0; what was embedded stays stored"},
	{Key: "embedder.query_prefix", Type: "text", Default: "the model's own, for known models",
		Meaning: "the text a local model puts before queries, such as \"query: \" for e5"},
	{Key: "embedder.passage_prefix", Type: "text", Default: "the model's own, for known models",
		Meaning: "the text a local model puts before passages, such as \"passage: \" for e5"},
	{Env: hub.EnvModels, Type: "path", Default: "jarvis/models in the user cache folder",
		Meaning: "the folder local models are pulled into"},
	{Env: hub.EnvEndpoint, Type: "text", Default: hub.DefaultEndpoint,
		Meaning: "the Hugging Face hub 'jarvis model pull' downloads from, such as a mirror"},
	{Env: hub.EnvToken, Type: "text", Secret: true,
		Meaning: "a Hugging Face access token, for gated or private models"},
	{Key: "search.semantic_weight", Type: "number", Default: "lexical 0.5, neural 1",
		Meaning: "the weight of semantic scores against keyword scores (which weigh 1) in combined search, 0 to 10"},
	{Key: "search.similarity_floor", Type: "number", Default: "lexical 0.18, neural none",
		Meaning: "the similarity, 0 to 1, below which a passage is not a semantic match"},
	{Key: "mcp.answer_tokens", Type: "number", Default: "20000",
		Meaning: "the largest tool answer of jarvis mcp, in tokens of about 4 characters, 1000 to 200000"},
	{Env: EnvHTTPToken, Type: "text", Secret: true,
		Meaning: "the bearer token jarvis mcp --http requires of clients, for use on this machine; --allow-remote needs it or mcp.oauth_issuer"},
	{Key: "mcp.oauth_issuer", Env: EnvOAuthIssuer, Type: "text",
		Meaning: "the OAuth issuer (an https URL, such as https://TENANT.auth0.com/) whose access tokens jarvis mcp --http accepts, with scope vault:read to read and vault:write to write; as --oauth-issuer"},
	{Key: "mcp.oauth_audience", Env: EnvOAuthAudience, Type: "text", Default: "the server's URL, such as https://notes.example.com/mcp",
		Meaning: "the audience an access token must name; as --oauth-audience"},
	{Key: "mcp.public_url", Env: EnvPublicURL, Type: "text", Default: "the address each request was sent to",
		Meaning: "the server's URL as clients reach it, such as https://notes.example.com behind a proxy; as --public-url"},
	{Env: "HOME", Type: "path", Meaning: "the home folder, for ~ in paths and the default folders"},
	{Env: "XDG_CONFIG_HOME", Type: "path", Meaning: "on Linux, the folder of the config folder"},
	{Env: "XDG_DATA_HOME", Type: "path", Meaning: "on Linux, the folder of the database folder"},
	{Env: "XDG_CACHE_HOME", Type: "path", Meaning: "on Linux, the folder of the models folder"},
	{Env: "LocalAppData", Type: "path", Meaning: "on Windows, the folder of the database and models folders"},
	{Env: "APPDATA", Type: "path", Meaning: "on Windows, where jarvis setup finds Claude Desktop's config"},
	{Env: "GOGC", Type: "number", Default: "50 in index and mcp",
		Meaning: "the Go garbage collector's target; jarvis lowers it to keep memory down unless it is set"},
}

// FileKeys lists every key a config file takes, as Setting.Key writes
// them, read from the config file's shape that the decoder checks.
func FileKeys() []string {
	return fileKeys("", reflect.TypeFor[fileFormat]())
}

func fileKeys(path string, t reflect.Type) []string {
	var keys []string
	for _, name := range settingNames(t) {
		f := settingsOf(t)[name]
		key := join(path, name)
		ft := f.Type
		for ft.Kind() == reflect.Pointer {
			ft = ft.Elem()
		}
		switch {
		case ft.Kind() == reflect.Struct:
			keys = append(keys, fileKeys(key, ft)...)
		case ft.Kind() == reflect.Slice && ft.Elem().Kind() == reflect.Struct:
			keys = append(keys, key)
			keys = append(keys, fileKeys(key+"[]", ft.Elem())...)
		default:
			keys = append(keys, key)
		}
	}
	return keys
}

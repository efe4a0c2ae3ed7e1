// Command mcpbmanifest writes the manifest.json of jarvis's bundle for
// Claude Desktop (.mcpb) for one platform. The bundle format has no field
// for the CPU, so each bundle holds one platform's binary and names only
// its system. The tools are listed from the server `jarvis mcp` builds, so
// that the list cannot fall behind it. scripts/release.sh runs it:
//
//	go run ./scripts/mcpbmanifest -version 1.2.0 -os darwin > manifest.json
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"

	mcpsdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/jarvis-mcp/jarvis/internal/config"
	"github.com/jarvis-mcp/jarvis/internal/container"
)

func main() {
	version := flag.String("version", "", "the release's version, such as 1.2.0 (a leading v is dropped)")
	goos := flag.String("os", "", "the system the bundle's binary is built for: darwin, linux or windows")
	flag.Parse()
	if err := run(context.Background(), os.Stdout, *version, *goos); err != nil {
		fmt.Fprintf(os.Stderr, "mcpbmanifest: %v\n", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, w io.Writer, version, goos string) error {
	tools, err := serverTools(ctx)
	if err != nil {
		return err
	}
	m, err := newManifest(version, goos, tools)
	if err != nil {
		return err
	}
	out, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return fmt.Errorf("encode the manifest: %w", err)
	}
	_, err = w.Write(append(out, '\n'))
	return err
}

// Manifest is the part of the MCPB manifest (version 0.3) a bundle of
// jarvis fills in.
type Manifest struct {
	ManifestVersion string                `json:"manifest_version"`
	Name            string                `json:"name"`
	DisplayName     string                `json:"display_name"`
	Version         string                `json:"version"`
	Description     string                `json:"description"`
	LongDescription string                `json:"long_description"`
	Author          Author                `json:"author"`
	Repository      Repository            `json:"repository"`
	Homepage        string                `json:"homepage"`
	Server          Server                `json:"server"`
	Tools           []Tool                `json:"tools"`
	Keywords        []string              `json:"keywords"`
	Compatibility   Compatibility         `json:"compatibility"`
	UserConfig      map[string]UserOption `json:"user_config"`
}

// Author is who made the bundle.
type Author struct {
	Name string `json:"name"`
	URL  string `json:"url,omitempty"`
}

// Repository is where the source is.
type Repository struct {
	Type string `json:"type"`
	URL  string `json:"url"`
}

// Server says how Claude Desktop starts the server: ${__dirname} is the
// folder the bundle was unpacked into, ${user_config.NAME} what the user
// gave for an option.
type Server struct {
	Type       string    `json:"type"`
	EntryPoint string    `json:"entry_point"`
	MCPConfig  MCPConfig `json:"mcp_config"`
}

// MCPConfig is the command line and environment of the server.
type MCPConfig struct {
	Command string            `json:"command"`
	Args    []string          `json:"args"`
	Env     map[string]string `json:"env,omitempty"`
}

// Tool is one tool, as the bundle's listing shows it.
type Tool struct {
	Name        string `json:"name"`
	Description string `json:"description"`
}

// Compatibility names the one system the bundle's binary runs on.
type Compatibility struct {
	Platforms []string `json:"platforms"`
}

// UserOption is one setting Claude Desktop asks the user for.
type UserOption struct {
	Type        string `json:"type"`
	Title       string `json:"title"`
	Description string `json:"description"`
	Required    bool   `json:"required"`
	Multiple    bool   `json:"multiple,omitempty"`
	Default     any    `json:"default,omitempty"`
}

// platforms maps Go's names of the systems to the manifest's (Node's).
var platforms = map[string]string{"darwin": "darwin", "linux": "linux", "windows": "win32"}

// newManifest is the manifest of the bundle of version for goos, listing
// tools.
func newManifest(version, goos string, tools []Tool) (Manifest, error) {
	version = strings.TrimPrefix(version, "v")
	if version == "" {
		return Manifest{}, errors.New("give the release's version with -version")
	}
	platform, ok := platforms[goos]
	if !ok {
		return Manifest{}, fmt.Errorf("-os %q: give darwin, linux or windows", goos)
	}
	binary := "jarvis"
	if goos == "windows" {
		binary += ".exe"
	}
	const repo = "https://github.com/jarvis-mcp/jarvis"
	return Manifest{
		ManifestVersion: "0.3",
		Name:            "jarvis",
		DisplayName:     "jarvis: Obsidian vaults",
		Version:         version,
		Description:     "Search and read your Obsidian vaults: keyword, semantic and link-graph search, notes with their links, Bases queries and related notes.",
		LongDescription: "jarvis indexes the Obsidian vaults you choose, on this computer, and lets Claude search them by keyword, by meaning and by their links, read notes with their backlinks, run Bases queries and find related notes. " +
			"Nothing leaves the computer unless you choose an embedding server. It reads your notes and does not change them.",
		Author:     Author{Name: "jarvis-mcp", URL: repo},
		Repository: Repository{Type: "git", URL: repo},
		Homepage:   repo,
		Server: Server{
			Type:       "binary",
			EntryPoint: binary,
			MCPConfig: MCPConfig{
				Command: "${__dirname}/" + binary,
				// The folders come last: a list of folders is given
				// to the command as arguments of their own, which
				// jarvis mcp serves as vaults.
				Args: []string{"mcp", "${user_config.vaults}"},
				Env:  map[string]string{config.EnvEmbedder: "${user_config.embedder}"},
			},
		},
		Tools:         tools,
		Keywords:      []string{"obsidian", "notes", "markdown", "search", "knowledge base"},
		Compatibility: Compatibility{Platforms: []string{platform}},
		UserConfig: map[string]UserOption{
			"vaults": {
				Type:        "directory",
				Title:       "Vault folders",
				Description: "The folders of the Obsidian vaults to search: each folder that holds a vault's notes (and its .obsidian folder).",
				Required:    true,
				Multiple:    true,
			},
			"embedder": {
				Type:  "string",
				Title: "Embedder for semantic search (optional)",
				Description: "Leave empty for the built-in lexical embedder, which needs nothing else. " +
					"ollama uses a local Ollama server; openai an OpenAI-compatible one; or the name of a model installed with `jarvis model pull`.",
				Required: false,
				Default:  "",
			},
		},
	}, nil
}

// serverTools lists the tools of the server `jarvis mcp` builds, with the
// first line of each description, on an empty vault. Building the server
// opens nothing: the database is opened on first use.
func serverTools(ctx context.Context) ([]Tool, error) {
	dir, err := os.MkdirTemp("", "mcpbmanifest")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	cfg := config.Config{
		DBPath:   filepath.Join(dir, "jarvis.db"),
		Vaults:   []config.Vault{{Name: "vault", Path: dir}},
		Embedder: config.Embedder{Provider: config.ProviderLexical},
	}
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	var deps container.MCPDeps
	app := container.NewMCPApp(cfg, log, &deps)
	if err := container.Err(app); err != nil {
		return nil, fmt.Errorf("build the server: %w", err)
	}
	st, ct := mcpsdk.NewInMemoryTransports()
	ss, err := deps.NewServer("manifest", log).Connect(ctx, st, nil)
	if err != nil {
		return nil, fmt.Errorf("connect to the server: %w", err)
	}
	defer ss.Close()
	cs, err := mcpsdk.NewClient(&mcpsdk.Implementation{Name: "mcpbmanifest", Version: "1"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		return nil, fmt.Errorf("connect to the server: %w", err)
	}
	defer cs.Close()
	var tools []Tool
	for t, err := range cs.Tools(ctx, nil) {
		if err != nil {
			return nil, fmt.Errorf("list the tools: %w", err)
		}
		first, _, _ := strings.Cut(t.Description, "\n")
		tools = append(tools, Tool{Name: t.Name, Description: first})
	}
	if len(tools) == 0 {
		return nil, errors.New("the server lists no tools")
	}
	return tools, nil
}

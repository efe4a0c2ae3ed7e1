package main

import (
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/jarvis-mcp/jarvis/internal/config"
)

// writeConfigHelp is `jarvis help config`: the flags every command that
// reads vaults takes, then every setting of config.Settings, the table
// the config file is checked against, so that the reference names each
// key and variable jarvis reads.
func writeConfigHelp(w io.Writer) {
	fmt.Fprint(w, "Configuration: flags override the environment, which overrides the config file.\n\nFlags of every command that reads vaults:\n")
	fs := flag.NewFlagSet("config", flag.ContinueOnError)
	new(common).register(fs)
	printFlags(w, fs)

	fmt.Fprint(w, "\nSettings: the config file key, the environment variable, what the value is:\n")
	for _, s := range config.Settings {
		names := strings.Join(nonEmpty(s.Key, s.Env), ", ")
		fmt.Fprintf(w, "  %s (%s)\n", names, s.Type)
		text := s.Meaning
		if s.Default != "" {
			text += " (default: " + s.Default + ")"
		}
		for _, l := range wrapWords(text, helpWidth-6) {
			fmt.Fprintf(w, "      %s\n", l)
		}
	}
	fmt.Fprint(w, configFileExample)
}

// nonEmpty is the strings of ss that are not "".
func nonEmpty(ss ...string) []string {
	var out []string
	for _, s := range ss {
		if s != "" {
			out = append(out, s)
		}
	}
	return out
}

// configFileExample ends `jarvis help config` with a config file that
// uses the common settings.
const configFileExample = `
A config file (YAML; TOML takes the same keys):
  database: ~/.local/share/jarvis/jarvis.db   # optional
  vaults:
    - name: work                     # optional; defaults to the folder name
      path: ~/Documents/Work Notes
      exclude: ["Archive/**", "*.excalidraw.md", "Templates"]
  embedder:                          # optional; lexical needs no server
    provider: ollama
    model: nomic-embed-text
    url: http://localhost:11434
    timeout: 60s                     # one request
    batch_timeout: 3m                # one batch, retries included
    run_timeout: 1h                  # the embedding pass of one run
  # or a model jarvis runs itself (jarvis model pull NAME first):
  # embedder: {provider: local, model: bge-small-en-v1.5}
  search:                            # optional; tunes ranking
    semantic_weight: 0.5             # 0 to 10 (lexical 0.5, neural 1)
    similarity_floor: 0.18           # 0 to 1 (lexical 0.18, neural none)
  mcp:                               # optional; tunes jarvis mcp
    answer_tokens: 20000             # the largest tool answer, 1000 to 200000

  Hidden files and folders (.obsidian, .trash, .git) and node_modules are
  always skipped.
`

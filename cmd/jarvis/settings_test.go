package main

import (
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jarvis-mcp/jarvis/internal/config"
	"github.com/jarvis-mcp/jarvis/internal/embed/hub"
)

// TestBadSettingsAreUsageErrors: a setting jarvis cannot use, from the
// environment or a flag, stops a command with exit status 2 and a
// message that starts with where the value was given; doctor's fix names
// the same place.
func TestBadSettingsAreUsageErrors(t *testing.T) {
	vault := messageVault(t)
	home := t.TempDir()
	aFile := filepath.Join(home, "a-file")
	for _, tt := range []struct {
		name   string
		vars   map[string]string
		args   []string
		origin string
	}{
		{"database folder from the environment", map[string]string{config.EnvDB: home}, nil, config.EnvDB},
		{"database folder from --db", nil, []string{"--db", home}, "--db"},
		{"timeout", map[string]string{config.EnvEmbedTimeout: "fast"}, nil, config.EnvEmbedTimeout},
		{"models folder a file", map[string]string{hub.EnvModels: aFile}, nil, hub.EnvModels},
		{"embedding server URL", map[string]string{config.EnvEmbedder: "ollama", config.EnvEmbedURL: "notaurl"}, nil, config.EnvEmbedURL},
		{"negative batch timeout", map[string]string{config.EnvEmbedBatchTimeout: "-5s"}, nil, config.EnvEmbedBatchTimeout},
	} {
		t.Run(tt.name, func(t *testing.T) {
			vars := map[string]string{"HOME": home}
			for k, v := range tt.vars {
				vars[k] = v
			}
			if tt.name == "models folder a file" {
				if err := os.WriteFile(aFile, []byte("x"), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			s := readCLI(t, vars, append([]string{"index", "--vault", vault}, tt.args...)...)
			if s.code != 2 || !strings.HasPrefix(s.stderr, "jarvis: "+tt.origin+" ") {
				t.Errorf("exit %d, stderr %q; want 2 and the message to start with %s", s.code, s.stderr, tt.origin)
			}
			if strings.Contains(s.stderr, "embedding server runs") {
				t.Errorf("a setting error gives server advice: %q", s.stderr)
			}
			d := readCLI(t, vars, append([]string{"doctor", "--vault", vault}, tt.args...)...)
			if !strings.Contains(d.stdout, "fix: change "+tt.origin+" ") {
				t.Errorf("doctor's fix does not name %s:\n%s", tt.origin, d.stdout)
			}
		})
	}
}

// TestMCPHTTPPortInUse: a port another program serves on is said in plain
// words with what to do, not as the network library's "bind: address
// already in use".
func TestMCPHTTPPortInUse(t *testing.T) {
	taken, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer taken.Close()
	addr := taken.Addr().String()
	_, port, _ := net.SplitHostPort(addr)
	s := readCLI(t, map[string]string{"HOME": t.TempDir()}, "mcp", "--http", addr, "--vault", messageVault(t), "--db", filepath.Join(t.TempDir(), "j.db"))
	want := "port " + port + " on 127.0.0.1 is already in use"
	if s.code != 1 || !strings.Contains(s.stderr, want) || !strings.Contains(s.stderr, "--http 127.0.0.1:PORT") || strings.Contains(s.stderr, "listen tcp") {
		t.Errorf("exit %d, stderr %q; want 1 and %q with another port to give", s.code, s.stderr, want)
	}
}

// TestMCPHTTPPortOutOfRange: a port beyond 65535 is a usage error that
// says which ports there are, not the network library's words.
func TestMCPHTTPPortOutOfRange(t *testing.T) {
	vault := messageVault(t)
	s := readCLI(t, map[string]string{"HOME": t.TempDir()}, "mcp", "--http", "127.0.0.1:99999", "--vault", vault, "--db", filepath.Join(t.TempDir(), "j.db"))
	if s.code != 2 || !strings.Contains(s.stderr, "the port must be a number from 1 to 65535") || strings.Contains(s.stderr, "listen tcp") {
		t.Errorf("exit %d, stderr %q; want 2 and the ports named", s.code, s.stderr)
	}
	// With no vault given, the flag's mistake is still the one said.
	s = readCLI(t, map[string]string{"HOME": t.TempDir()}, "mcp", "--http", "127.0.0.1:99999")
	if s.code != 2 || !strings.Contains(s.stderr, "the port must be a number from 1 to 65535") || strings.Contains(s.stderr, "no vault") {
		t.Errorf("no vault: exit %d, stderr %q; want 2 and the ports named", s.code, s.stderr)
	}
}

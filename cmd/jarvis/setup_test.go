package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/jarvis-mcp/jarvis/internal/config"
)

func TestSetupClaudeDesktopConfigPath(t *testing.T) {
	for _, c := range []struct {
		name string
		goos string
		env  map[string]string
		home string
		want string
	}{
		{"macOS", "darwin", nil, "/Users/me", "/Users/me/Library/Application Support/Claude/claude_desktop_config.json"},
		{"macOS ignores XDG", "darwin", map[string]string{"XDG_CONFIG_HOME": "/x"}, "/Users/me", "/Users/me/Library/Application Support/Claude/claude_desktop_config.json"},
		{"Windows", "windows", map[string]string{"APPDATA": `C:\Users\me\AppData\Roaming`}, `C:\Users\me`, `C:\Users\me\AppData\Roaming\Claude\claude_desktop_config.json`},
		{"Windows without APPDATA", "windows", nil, `C:\Users\me`, `C:\Users\me\AppData\Roaming\Claude\claude_desktop_config.json`},
		{"Linux", "linux", nil, "/home/me", "/home/me/.config/Claude/claude_desktop_config.json"},
		{"Linux with XDG_CONFIG_HOME", "linux", map[string]string{"XDG_CONFIG_HOME": "/home/me/etc"}, "/home/me", "/home/me/etc/Claude/claude_desktop_config.json"},
		{"Linux ignores a relative XDG_CONFIG_HOME", "linux", map[string]string{"XDG_CONFIG_HOME": "etc"}, "/home/me", "/home/me/.config/Claude/claude_desktop_config.json"},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, err := claudeDesktopConfigPath(c.goos, func(k string) string { return c.env[k] }, c.home)
			if err != nil || got != c.want {
				t.Fatalf("claudeDesktopConfigPath = %q, %v; want %q", got, err, c.want)
			}
		})
	}
	for _, goos := range []string{"darwin", "linux", "windows"} {
		if got, err := claudeDesktopConfigPath(goos, func(string) string { return "" }, ""); err == nil || !strings.Contains(err.Error(), "--claude-config") {
			t.Errorf("%s without a home folder: %q, %v; want an error naming --claude-config", goos, got, err)
		}
	}
}

// setupFixture is a vault, a database path, Claude's config file and the
// models folder, all in temporary folders.
type setupFixture struct {
	vault, db, file, models string
	vars                    map[string]string
}

func newSetupFixture(t *testing.T) setupFixture {
	t.Helper()
	dir := t.TempDir()
	f := setupFixture{
		vault: filepath.Join(dir, "My Vault"),
		db:    filepath.Join(dir, "data", "jarvis.db"),
		vars:  map[string]string{"XDG_CONFIG_HOME": filepath.Join(dir, "config"), "XDG_CACHE_HOME": filepath.Join(dir, "cache")},
	}
	f.models = filepath.Join(dir, "cache", "jarvis", "models")
	f.file = filepath.Join(dir, "config", "Claude", "claude_desktop_config.json")
	if err := os.MkdirAll(f.vault, 0o755); err != nil {
		t.Fatal(err)
	}
	return f
}

// setup runs `jarvis setup claude` on the fixture's vault and database.
func (f setupFixture) setup(t *testing.T, extra ...string) (code int, stdout, stderr string) {
	t.Helper()
	return jarvis(t, f.vars, append([]string{"setup", "claude", "--vault", f.vault, "--db", f.db}, extra...)...)
}

func (f setupFixture) write(t *testing.T, content string, mode os.FileMode) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(f.file), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(f.file, []byte(content), mode); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(f.file, mode); err != nil { // past the umask
		t.Fatal(err)
	}
}

func testExecutable(t *testing.T) string {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	if real, err := filepath.EvalSymlinks(exe); err == nil {
		exe = real
	}
	return exe
}

// readConfig decodes Claude's config file, keeping the order of the
// top-level keys and of the servers.
func readConfig(t *testing.T, file string) (keys []string, servers []member, all map[string]any) {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, &all); err != nil {
		t.Fatalf("%s is not valid JSON: %v\n%s", file, err, data)
	}
	top, ok := objectMembers(data)
	if !ok {
		t.Fatalf("%s is not an object", file)
	}
	for _, m := range top {
		keys = append(keys, m.key)
		if m.key == "mcpServers" {
			if servers, ok = objectMembers(m.value); !ok {
				t.Fatalf("mcpServers is not an object: %s", m.value)
			}
		}
	}
	return keys, servers, all
}

func serverNames(servers []member) []string {
	var names []string
	for _, s := range servers {
		names = append(names, s.key)
	}
	return names
}

func (f setupFixture) wantEntry(t *testing.T, raw json.RawMessage) {
	t.Helper()
	var got serverEntry
	if err := json.Unmarshal(raw, &got); err != nil {
		t.Fatal(err)
	}
	want := serverEntry{Command: testExecutable(t), Args: []string{"mcp", "--vault", f.vault, "--db", f.db},
		Env: map[string]string{"JARVIS_MODELS": f.models}}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("entry = %+v\nwant    %+v", got, want)
	}
}

func fileMode(t *testing.T, p string) os.FileMode {
	t.Helper()
	st, err := os.Stat(p)
	if err != nil {
		t.Fatal(err)
	}
	return st.Mode().Perm()
}

func TestSetupMergeKeepsOtherServersAndSettings(t *testing.T) {
	f := newSetupFixture(t)
	old := `{
  "globalShortcut": "Ctrl+Space",
  "mcpServers": {
    "filesystem": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-filesystem", "/home/me/Desktop"]},
    "github": {"command": "docker", "args": ["run", "-i", "ghcr.io/github/github-mcp-server"], "env": {"GITHUB_PERSONAL_ACCESS_TOKEN": "<token>"}}
  },
  "preferences": {"theme": "dark", "nested": {"a": [1, 2.5, null, true]}}
}`
	f.write(t, old, 0o644)
	var before map[string]any
	if err := json.Unmarshal([]byte(old), &before); err != nil {
		t.Fatal(err)
	}

	code, stdout, stderr := f.setup(t)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	keys, servers, after := readConfig(t, f.file)
	if want := []string{"globalShortcut", "mcpServers", "preferences"}; !reflect.DeepEqual(keys, want) {
		t.Fatalf("top-level keys = %v; want %v", keys, want)
	}
	for _, k := range []string{"globalShortcut", "preferences"} {
		if !reflect.DeepEqual(after[k], before[k]) {
			t.Errorf("%s = %v; want it untouched: %v", k, after[k], before[k])
		}
	}
	if names, want := serverNames(servers), []string{"filesystem", "github", "jarvis"}; !reflect.DeepEqual(names, want) {
		t.Fatalf("servers = %v; want %v", names, want)
	}
	oldServers := before["mcpServers"].(map[string]any)
	newServers := after["mcpServers"].(map[string]any)
	for _, k := range []string{"filesystem", "github"} {
		if !reflect.DeepEqual(newServers[k], oldServers[k]) {
			t.Errorf("server %s = %v; want it untouched: %v", k, newServers[k], oldServers[k])
		}
	}
	f.wantEntry(t, servers[2].value)
	if m := fileMode(t, f.file); m != 0o644 {
		t.Errorf("the file's mode is %v; want the old one, 0644", m)
	}

	// The backup holds the old bytes, as they were.
	backup, err := os.ReadFile(f.file + ".bak")
	if err != nil {
		t.Fatalf("no backup: %v", err)
	}
	if string(backup) != old {
		t.Fatalf("backup = %q; want the old file", backup)
	}
	for _, want := range []string{"Added", f.file, f.file + ".bak", "Restart Claude Desktop", "claude mcp add jarvis -e JARVIS_MODELS=" + f.models + " -- "} {
		if !strings.Contains(stdout, want) {
			t.Errorf("output lacks %q:\n%s", want, stdout)
		}
	}
	// Nothing but the file and its backup was left in the folder.
	entries, _ := os.ReadDir(filepath.Dir(f.file))
	if len(entries) != 2 {
		t.Errorf("the folder holds %d files; want the config file and its backup: %v", len(entries), entries)
	}
}

func TestSetupReplacesAnExistingEntry(t *testing.T) {
	f := newSetupFixture(t)
	old := `{"mcpServers": {"jarvis": {"command": "/old/jarvis", "args": ["mcp", "--vault", "/old/vault"]}, "other": {"command": "other"}}}`
	f.write(t, old, 0o600)

	code, stdout, stderr := f.setup(t)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if !strings.Contains(stdout, "Replaced") {
		t.Errorf("output does not say the entry was replaced:\n%s", stdout)
	}
	_, servers, all := readConfig(t, f.file)
	if len(servers) != 2 || servers[0].key != "jarvis" || servers[1].key != "other" {
		t.Fatalf("servers = %v; want jarvis in its old place, then other", serverNames(servers))
	}
	f.wantEntry(t, servers[0].value)
	if got := all["mcpServers"].(map[string]any)["other"]; !reflect.DeepEqual(got, map[string]any{"command": "other"}) {
		t.Errorf("other = %v", got)
	}
	if m := fileMode(t, f.file); m != 0o600 {
		t.Errorf("the file's mode is %v; want 0600", m)
	}
	if b, _ := os.ReadFile(f.file + ".bak"); string(b) != old {
		t.Fatalf("backup = %q; want %q", b, old)
	}
	if m := fileMode(t, f.file+".bak"); m != 0o600 {
		t.Errorf("the backup's mode is %v; want the file's, 0600", m)
	}

	// The same entry again changes nothing and makes no backup.
	written, _ := os.ReadFile(f.file)
	code, stdout, stderr = f.setup(t)
	if code != 0 || !strings.Contains(stdout, "nothing was changed") {
		t.Fatalf("exit %d: %s%s", code, stdout, stderr)
	}
	if b, _ := os.ReadFile(f.file); string(b) != string(written) {
		t.Fatalf("the file changed:\n%s", b)
	}
	if matches, _ := filepath.Glob(f.file + ".bak*"); len(matches) != 1 {
		t.Fatalf("backups = %v; want the first one only", matches)
	}

	// Another change keeps the first backup and makes a second, named by
	// the time.
	code, _, stderr = f.setup(t, "--name", "notes")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if b, _ := os.ReadFile(f.file + ".bak"); string(b) != old {
		t.Fatalf("the first backup was overwritten: %q", b)
	}
	matches, _ := filepath.Glob(f.file + ".bak-*")
	if len(matches) != 1 {
		t.Fatalf("timestamped backups = %v; want one", matches)
	}
	if b, _ := os.ReadFile(matches[0]); string(b) != string(written) {
		t.Fatalf("the second backup holds %q; want the file before the second change", b)
	}
	if _, servers, _ := readConfig(t, f.file); len(servers) != 3 || servers[2].key != "notes" {
		t.Fatalf("servers = %v; want jarvis, other and notes", serverNames(servers))
	}
}

func TestSetupCreatesAMissingFileAndFolder(t *testing.T) {
	f := newSetupFixture(t)
	code, stdout, stderr := f.setup(t)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	keys, servers, _ := readConfig(t, f.file)
	if !reflect.DeepEqual(keys, []string{"mcpServers"}) || len(servers) != 1 || servers[0].key != "jarvis" {
		t.Fatalf("keys %v, servers %v", keys, serverNames(servers))
	}
	f.wantEntry(t, servers[0].value)
	if runtime.GOOS != "windows" {
		if m := fileMode(t, f.file); m != 0o600 {
			t.Errorf("a new file's mode is %v; want 0600", m)
		}
	}
	if _, err := os.Stat(f.file + ".bak"); err == nil {
		t.Error("a backup was made of a file that did not exist")
	}
	if !strings.Contains(stdout, "Added") || strings.Contains(stdout, "kept as") {
		t.Errorf("output:\n%s", stdout)
	}
}

func TestSetupRefusesAFileItCannotRead(t *testing.T) {
	for _, c := range []struct{ name, content, want string }{
		{"invalid JSON", "{\n  \"mcpServers\": {\n    \"a\": {\"command\": \"x\",}\n  }\n}\n", "is not valid JSON: line 3, column 26: a comma before '}';"},
		{"trailing comma", "{\n  \"mcpServers\": {\n    \"a\": {\"command\": \"x\"},\n  }\n}\n", "is not valid JSON: line 4, column 3: a comma before '}';"},
		{"line comment", "{\n  // my servers\n  \"mcpServers\": {}\n}\n", "is not valid JSON: line 2, column 3: a comment (// or /*), which JSON does not allow; remove it;"},
		{"block comment", "{\n  /* my servers */\n  \"mcpServers\": {}\n}\n", "is not valid JSON: line 2, column 3: a comment (// or /*), which JSON does not allow; remove it;"},
		{"cut short", `{"mcpServers": {`, "is not valid JSON: line 1, column 17: the text ends before the JSON is complete;"},
		{"not an object", `["mcpServers"]`, "holds an array"},
		{"mcpServers an array", `{"mcpServers": [{"command": "x"}]}`, `"mcpServers" that is an array`},
		{"mcpServers null", `{"mcpServers": null}`, `"mcpServers" that is null`},
	} {
		t.Run(c.name, func(t *testing.T) {
			f := newSetupFixture(t)
			f.write(t, c.content, 0o644)
			code, stdout, stderr := f.setup(t)
			if code != 1 {
				t.Fatalf("exit %d; want 1\n%s%s", code, stdout, stderr)
			}
			for _, want := range []string{f.file, c.want, "nothing was changed"} {
				if !strings.Contains(stderr, want) {
					t.Errorf("error lacks %q: %s", want, stderr)
				}
			}
			if b, _ := os.ReadFile(f.file); string(b) != c.content {
				t.Errorf("the file changed: %q", b)
			}
			if entries, _ := os.ReadDir(filepath.Dir(f.file)); len(entries) != 1 {
				t.Errorf("files beside it: %v; want none", entries)
			}
		})
	}
}

func TestSetupPrintTouchesNothing(t *testing.T) {
	f := newSetupFixture(t)
	// With no file: none is made, nor its folder.
	code, stdout, stderr := f.setup(t, "--print")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if _, err := os.Stat(filepath.Dir(f.file)); err == nil {
		t.Fatal("--print made Claude's config folder")
	}
	var printed map[string]map[string]json.RawMessage
	if err := json.Unmarshal([]byte(stdout), &printed); err != nil {
		t.Fatalf("stdout is not JSON: %v\n%s", err, stdout)
	}
	f.wantEntry(t, printed["mcpServers"]["jarvis"])
	if !strings.Contains(stderr, "claude mcp add jarvis -e JARVIS_MODELS="+f.models+" -- ") {
		t.Errorf("stderr lacks the line for Claude Code: %s", stderr)
	}

	// With a file: it stays as it was, and no backup is made.
	old := `{"mcpServers": {"other": {"command": "other"}}}`
	f.write(t, old, 0o644)
	if code, _, stderr := f.setup(t, "--print"); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if b, _ := os.ReadFile(f.file); string(b) != old {
		t.Fatalf("--print changed the file: %q", b)
	}
	if entries, _ := os.ReadDir(filepath.Dir(f.file)); len(entries) != 1 {
		t.Fatalf("--print left files beside it: %v", entries)
	}
}

func TestSetupMakesRelativeVaultsAbsolute(t *testing.T) {
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "My Vault"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Chdir(dir)
	file := filepath.Join(dir, "claude.json")
	code, stdout, stderr := jarvis(t, nil, "setup", "claude", "--vault", "My Vault", "--db", "index/j.db",
		"--embedder", "ollama", "--claude-config", "claude.json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	_, servers, _ := readConfig(t, file)
	var got serverEntry
	if err := json.Unmarshal(servers[0].value, &got); err != nil {
		t.Fatal(err)
	}
	vault, db := filepath.Join(dir, "My Vault"), filepath.Join(dir, "index", "j.db")
	want := []string{"mcp", "--vault", vault, "--db", db, "--embedder", "ollama"}
	if !reflect.DeepEqual(got.Args, want) {
		t.Fatalf("args = %q; want %q", got.Args, want)
	}
	// The line for Claude Code quotes the path with a space for the shell.
	if runtime.GOOS != "windows" && !strings.Contains(stdout, "--vault '"+vault+"' --db "+db) {
		t.Errorf("the line for Claude Code does not quote the vault:\n%s", stdout)
	}
}

func TestSetupUsesConfiguredVaultsAndCarriesEmbedderSettings(t *testing.T) {
	dir := t.TempDir()
	work, home := filepath.Join(dir, "Work"), filepath.Join(dir, "Home")
	for _, v := range []string{work, home} {
		if err := os.MkdirAll(v, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	conf := filepath.Join(dir, "jarvis.yaml")
	if err := os.WriteFile(conf, []byte("database: "+filepath.Join(dir, "j.db")+"\nvaults:\n  - name: work\n    path: "+work+"\n  - path: "+home+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	// A relative models folder is made absolute; settings the table
	// knows are carried, secrets and unknown variables are not.
	t.Chdir(dir)
	vars := map[string]string{"JARVIS_CONFIG": conf, "JARVIS_EMBEDDER": "openai", "JARVIS_EMBED_URL": "http://localhost:1234",
		"JARVIS_EMBED_API_KEY": "secret", "JARVIS_MODELS": "models", "HF_ENDPOINT": "https://hf-mirror.example",
		"HF_TOKEN": "hf_secret", "JARVIS_HTTP_TOKEN": "http-secret", "JARVIS_NO_SUCH_SETTING": "x", "JARVIS_EMBED_RUN_TIMEOUT": "2h"}
	code, stdout, stderr := jarvis(t, vars, "setup", "claude", "--print")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var printed map[string]map[string]serverEntry
	if err := json.Unmarshal([]byte(stdout), &printed); err != nil {
		t.Fatalf("stdout is not JSON: %v\n%s", err, stdout)
	}
	got := printed["mcpServers"]["jarvis"]
	models := filepath.Join(dir, "models")
	want := serverEntry{
		Command: testExecutable(t),
		Args:    []string{"mcp", "--vault", work, "--vault", home, "--db", filepath.Join(dir, "j.db"), "--config", conf, "--embedder", "openai"},
		Env: map[string]string{"JARVIS_EMBED_URL": "http://localhost:1234", "JARVIS_MODELS": models,
			"HF_ENDPOINT": "https://hf-mirror.example", "JARVIS_EMBED_RUN_TIMEOUT": "2h"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("entry = %+v\nwant    %+v", got, want)
	}
	if strings.Contains(stdout+stderr, "secret") {
		t.Error("a key or token was copied")
	}
	for _, w := range []string{"JARVIS_EMBED_API_KEY is set",
		"-e HF_ENDPOINT=https://hf-mirror.example -e JARVIS_EMBED_RUN_TIMEOUT=2h -e JARVIS_EMBED_URL=http://localhost:1234 -e JARVIS_MODELS=" + models + " -- "} {
		if !strings.Contains(stderr, w) {
			t.Errorf("stderr lacks %q: %s", w, stderr)
		}
	}
}

// TestSetupCarriesEveryNonSecretSetting holds carried to the settings
// table: every JARVIS_* and HF_* variable the table knows is copied
// (or given as an argument), no key or token is.
func TestSetupCarriesEveryNonSecretSetting(t *testing.T) {
	for _, s := range config.Settings {
		if !strings.HasPrefix(s.Env, "JARVIS_") && !strings.HasPrefix(s.Env, "HF_") {
			if carried(s) {
				t.Errorf("%s is carried; only JARVIS_* and HF_* are", s.Env)
			}
			continue
		}
		secret := strings.Contains(s.Env, "KEY") || strings.Contains(s.Env, "TOKEN")
		if secret != s.Secret {
			t.Errorf("%s: Secret is %v in the settings table", s.Env, s.Secret)
		}
		if want := !secret && !argEnv[s.Env]; carried(s) != want {
			t.Errorf("carried(%s) = %v; want %v", s.Env, carried(s), want)
		}
	}
}

func TestSetupRefusesWithoutAVault(t *testing.T) {
	code, stdout, stderr := jarvis(t, map[string]string{"XDG_CONFIG_HOME": t.TempDir()}, "setup", "claude")
	if code != 2 || !strings.Contains(stderr, "pass --vault PATH") {
		t.Fatalf("exit %d; want 2 and what to pass\n%s%s", code, stdout, stderr)
	}
	code, _, stderr = jarvis(t, nil, "setup", "claude", "--vault", filepath.Join(t.TempDir(), "missing"))
	if code != 2 || !strings.Contains(stderr, "does not exist") {
		t.Fatalf("a missing vault folder: exit %d: %s", code, stderr)
	}
	code, _, stderr = jarvis(t, nil, "setup", "cursor")
	if code != 2 || !strings.Contains(stderr, "jarvis setup claude") {
		t.Fatalf("an unknown client: exit %d: %s", code, stderr)
	}
}

func TestSetupBackupNeverOverwrites(t *testing.T) {
	file := filepath.Join(t.TempDir(), "c.json")
	now := time.Date(2026, 11, 24, 5, 30, 0, 0, time.UTC)
	var got []string
	for i, content := range []string{"one", "two", "three"} {
		name, err := writeBackup(os.OpenFile, file, []byte(content), 0o600, now)
		if err != nil {
			t.Fatalf("backup %d: %v", i, err)
		}
		got = append(got, filepath.Base(name))
	}
	want := []string{"c.json.bak", "c.json.bak-20261124T053000Z", "c.json.bak-20261124T053000Z-2"}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("backups = %v; want %v", got, want)
	}
	if b, _ := os.ReadFile(file + ".bak"); string(b) != "one" {
		t.Fatalf("the first backup holds %q", b)
	}
}

func TestSetupWritesThroughASymbolicLink(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("symbolic links need privileges on Windows")
	}
	f := newSetupFixture(t)
	real := filepath.Join(t.TempDir(), "dotfiles", "claude.json")
	if err := os.MkdirAll(filepath.Dir(real), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(real, []byte(`{"mcpServers": {}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Dir(f.file), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(real, f.file); err != nil {
		t.Fatal(err)
	}
	if code, _, stderr := f.setup(t); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if st, err := os.Lstat(f.file); err != nil || st.Mode()&os.ModeSymlink == 0 {
		t.Fatalf("the link was replaced by a file: %v", err)
	}
	_, servers, _ := readConfig(t, real)
	if len(servers) != 1 {
		t.Fatalf("the linked file holds servers %v; want jarvis", serverNames(servers))
	}
	f.wantEntry(t, servers[0].value)
	if b, _ := os.ReadFile(real + ".bak"); string(b) != `{"mcpServers": {}}` {
		t.Fatalf("backup beside the linked file holds %q", b)
	}
}

func TestSetupRefusesAGoRunBuild(t *testing.T) {
	for _, c := range []struct {
		exe  string
		want bool
	}{
		{"/home/me/.cache/go-build/13/139bb08da521419fcb5e580d4f5eafddb63a040501247005a4e8e118f0f6b5fd-d/jarvis", true},
		{"/tmp/go-build3160515393/b001/exe/jarvis", true},
		{"/home/me/go/bin/jarvis", false},
		{"/usr/local/bin/jarvis", false},
		{"/tmp/go-build3160515393/b001/jarvis.test", false},
		{"/opt/exe/jarvis", false},
	} {
		if got := isGoRunBuild(c.exe); got != c.want {
			t.Errorf("isGoRunBuild(%s) = %v; want %v", c.exe, got, c.want)
		}
	}
}

// FuzzMergeServer: whatever a Claude config file holds, merging either
// refuses it or gives valid JSON whose mcpServers holds the entry and
// every other server the file had.
func FuzzMergeServer(f *testing.F) {
	for _, seed := range []string{``, `{}`, `{"mcpServers":{}}`, `{"mcpServers":{"other":{"command":"x"}},"theme":"dark"}`,
		`{"mcpServers":{"jarvis":{"command":"old"},"jarvis":{"command":"dup"}}}`, `[]`, `{"mcpServers":[]}`, `{"a":1,"a":2}`, `{"mcpServers":{"x":1}} trailing`} {
		f.Add([]byte(seed))
	}
	entry := json.RawMessage(`{"command":"/bin/jarvis","args":["mcp"]}`)
	f.Fuzz(func(t *testing.T, doc []byte) {
		out, _, unchanged, err := mergeServer(doc, "jarvis", entry)
		if err != nil {
			return
		}
		if unchanged {
			out = doc
		}
		var got struct {
			MCPServers map[string]json.RawMessage `json:"mcpServers"`
		}
		if err := json.Unmarshal(out, &got); err != nil {
			t.Fatalf("merged %q into invalid JSON %q: %v", doc, out, err)
		}
		if !jsonEqual(got.MCPServers["jarvis"], entry) {
			t.Fatalf("merged %q: the entry is %s", doc, got.MCPServers["jarvis"])
		}
		var before struct {
			MCPServers map[string]json.RawMessage `json:"mcpServers"`
		}
		if json.Unmarshal(doc, &before) == nil {
			for name := range before.MCPServers {
				if _, ok := got.MCPServers[name]; !ok {
					t.Fatalf("merged %q: server %q was dropped", doc, name)
				}
			}
		}
	})
}

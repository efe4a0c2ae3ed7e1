package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/jarvis-mcp/jarvis/internal/config"
	"github.com/jarvis-mcp/jarvis/internal/embed/hub"
	"github.com/jarvis-mcp/jarvis/internal/health"
	"github.com/jarvis-mcp/jarvis/internal/store"
	"github.com/jarvis-mcp/jarvis/internal/words"
)

const setupUsage = "jarvis setup claude"

// runSetup adds jarvis to an AI assistant's configuration. Claude is the
// one client it knows; the first argument names it, so that others can
// follow without changing what this one means.
func runSetup(ctx context.Context, e *env, args []string) error {
	if len(args) > 0 && args[0] == "claude" {
		return runSetupClaude(ctx, e, args[1:])
	}
	if len(args) > 0 && (args[0] == "-h" || args[0] == "--help" || args[0] == "-help") {
		return runSetupClaude(ctx, e, args)
	}
	got := "nothing"
	if len(args) > 0 {
		got = fmt.Sprintf("%q", args[0])
	}
	return fmt.Errorf("setup needs the client to set up: `%s` (got %s): %w", "jarvis setup claude", got, errUsage)
}

func runSetupClaude(_ context.Context, e *env, args []string) error {
	fs := newFlagSet("setup", setupUsage,
		`Add jarvis to Claude Desktop: write the "mcpServers" entry that starts
`+"`jarvis mcp`"+` into claude_desktop_config.json, and print the line that adds
it to Claude Code.

The entry runs this jarvis binary by its absolute path, with the vaults,
the database and the config file in use by absolute paths, the embedder
when it is chosen by flag or environment, and in its "env" the models
folder and the JARVIS_* and HF_* settings set in this shell, so that the
server Claude starts, with nothing but HOME and PATH, finds what this shell
finds. Keys and tokens are never copied: when the server needs one that is
set here, setup says how to add it. --config names jarvis's own config
file, as in every command; --claude-config names Claude's. The rest of the
file is kept as it is: other servers and settings are not touched, the old
file is copied to claude_desktop_config.json.bak (or .bak-<time> when that
exists) first, and the new one replaces it in one step. A file that is not
valid JSON is left alone with an error. With --print the entry is printed
and no file is touched; it also fits Cursor's ~/.cursor/mcp.json.

The file is ~/Library/Application Support/Claude/claude_desktop_config.json
on macOS, %APPDATA%\Claude\claude_desktop_config.json on Windows, and
$XDG_CONFIG_HOME/Claude (~/.config/Claude) on Linux.`, e)
	var c common
	c.register(fs)
	name := fs.String("name", "jarvis", "the `name` of the server entry")
	claudeConfig := fs.String("claude-config", "", "write Claude Desktop's config `file` here instead of its usual place")
	printOnly := fs.Bool("print", false, "print the entry as JSON to stdout and touch no file")
	writeAll := fs.Bool("write", false, "let Claude change your notes: the entry starts jarvis mcp --write, which offers the write tools (each write undoable with jarvis undo)")
	if err := parse(fs, args); err != nil {
		return err
	}
	if strings.TrimSpace(*name) == "" {
		return fmt.Errorf("--name is empty: give the name Claude should show for the server, such as jarvis: %w", errUsage)
	}
	cfg, err := c.load(e)
	if err != nil {
		return fmt.Errorf("%w: %w", err, errUsage)
	}
	if err := checkVaults(e, cfg); err != nil {
		return err
	}
	exe, err := installedExecutable(args)
	if err != nil {
		return err
	}
	entry := newServerEntry(exe, cfg, c.embedder != "" || e.getenv(config.EnvEmbedder) != "", e.getenv)
	if *writeAll {
		entry.Args = append(entry.Args, "--write")
	}
	codeLine := claudeCodeLine(*name, entry)
	keyNote := apiKeyNote(cfg, e.getenv)
	dbNote := unusableDBNote(e, cfg)

	if *printOnly {
		out, err := marshalIndent(map[string]map[string]serverEntry{"mcpServers": {*name: entry}})
		if err != nil {
			return err
		}
		e.stdout.Write(out)
		fmt.Fprintf(e.stderr, "jarvis: nothing was written. For Claude Code, run:\n  %s\n", codeLine)
		if dbNote != "" {
			fmt.Fprintf(e.stderr, "jarvis: warning: %s\n", dbNote)
		}
		if keyNote != "" {
			fmt.Fprintf(e.stderr, "jarvis: %s\n", keyNote)
		}
		return nil
	}

	file := *claudeConfig
	if file == "" {
		home := e.getenv("HOME")
		if home == "" {
			home, _ = os.UserHomeDir()
		}
		if file, err = claudeDesktopConfigPath(runtime.GOOS, e.getenv, home); err != nil {
			return fmt.Errorf("%w: %w", err, errUsage)
		}
	} else if file, err = filepath.Abs(file); err != nil {
		return fmt.Errorf("--claude-config: %w", err)
	}
	raw, err := marshalCompact(entry)
	if err != nil {
		return err
	}
	res, err := addServer(file, *name, raw, time.Now(), systemFiles)
	if err != nil {
		return err
	}
	w := e.stdout
	switch {
	case res.unchanged:
		fmt.Fprintf(w, "Claude Desktop's config file %s already has this %q entry; nothing was changed.\n", res.path, *name)
	case res.replaced:
		fmt.Fprintf(w, "Replaced the %q server in Claude Desktop's config file %s.\n", *name, res.path)
	default:
		fmt.Fprintf(w, "Added the %q server to Claude Desktop's config file %s.\n", *name, res.path)
	}
	if res.backup != "" {
		fmt.Fprintf(w, "The old file is kept as %s.\n", res.backup)
	}
	if !res.unchanged {
		fmt.Fprintf(w, "Restart Claude Desktop to start jarvis (quit it fully, not just its window).\n")
	}
	fmt.Fprintf(w, "\nIt runs: %s\n", shellLine(append([]string{entry.Command}, entry.Args...)))
	fmt.Fprintf(w, "\nFor Claude Code, run:\n  %s\n", codeLine)
	if dbNote != "" {
		fmt.Fprintf(w, "\nWarning: %s\n", dbNote)
	}
	if keyNote != "" {
		fmt.Fprintf(w, "\n%s\n", keyNote)
	}
	return nil
}

// unusableDBNote warns that the database the entry names cannot be made or
// used by this user (store.Unusable), so that the server would fail on
// its first start; "" when it can.
func unusableDBNote(e *env, cfg config.Config) string {
	why, fix := store.Unusable(cfg.DBPath, e.dbProbe)
	if why == "" {
		return ""
	}
	return fmt.Sprintf("the entry names the database %s, which jarvis cannot use: %s; the server fails until you fix it: %s (after choosing another folder, run this setup again)",
		cfg.DBPath, why, fix)
}

// serverEntry is one server in the "mcpServers" object of Claude Desktop's
// (and Cursor's) config file.
type serverEntry struct {
	Command string            `json:"command"`
	Args    []string          `json:"args"`
	Env     map[string]string `json:"env,omitempty"`
}

// argEnv are the settings of the environment that the entry gives as
// arguments instead, by absolute paths: the vaults, the database, the
// config file and the embedder.
var argEnv = map[string]bool{config.EnvVault: true, config.EnvDB: true, config.EnvConfig: true, config.EnvEmbedder: true}

// carried reports whether setup copies setting s, when it is set in the
// shell, into the entry's "env": Claude Desktop is started by the desktop,
// not from the shell the settings were exported in, so without them the
// server would not behave as the commands run in that shell do. It
// carries jarvis's own settings and the Hugging Face hub's, never a
// variable the settings table does not know, never a secret (so that
// setup copies no key into a file by itself), and none the arguments
// already give.
func carried(s config.Setting) bool {
	return (strings.HasPrefix(s.Env, "JARVIS_") || strings.HasPrefix(s.Env, "HF_")) && !s.Secret && !argEnv[s.Env]
}

// newServerEntry is the entry that runs exe as `jarvis mcp` on what cfg
// settled, so that a server started with nothing but HOME and PATH finds
// what this shell finds: every vault, the database and the config file in
// use by absolute path, the embedder when it was chosen by flag or
// environment (a configured one is read from the config file by the
// server itself), the models folder by absolute path (it moves with
// XDG_CACHE_HOME, which the server may not have), and the settings
// carried from the environment.
func newServerEntry(exe string, cfg config.Config, chosenEmbedder bool, getenv func(string) string) serverEntry {
	args := []string{"mcp"}
	for _, v := range cfg.Vaults {
		args = append(args, "--vault", v.Path)
	}
	args = append(args, "--db", cfg.DBPath)
	if cfg.File != "" {
		file, err := filepath.Abs(cfg.File)
		if err != nil {
			file = cfg.File
		}
		args = append(args, "--config", file)
	}
	if chosenEmbedder {
		emb := cfg.Embedder.Provider
		if emb == config.ProviderLocal {
			emb = cfg.Embedder.Model // a name or an absolute folder, as --embedder takes it
		}
		args = append(args, "--embedder", emb)
	}
	env := map[string]string{}
	for _, s := range config.Settings {
		if !carried(s) {
			continue
		}
		if v := getenv(s.Env); v != "" {
			env[s.Env] = v
		}
	}
	if dir, err := hub.Dir(getenv); err == nil {
		if abs, err := filepath.Abs(dir); err == nil {
			env[hub.EnvModels] = abs
		}
	}
	entry := serverEntry{Command: exe, Args: args}
	if len(env) > 0 {
		entry.Env = env
	}
	return entry
}

// apiKeyNote says what to do about an embedding server's key that is set
// in this shell but, being a secret, was not copied into the entry.
func apiKeyNote(cfg config.Config, getenv func(string) string) string {
	if cfg.Embedder.Provider != config.ProviderOpenAI {
		return ""
	}
	for _, k := range []string{config.EnvEmbedAPIKey, config.EnvOpenAIKey} {
		if getenv(k) != "" {
			return fmt.Sprintf("%s is set in this shell but was not copied: add it to the entry's \"env\", or set api_key under embedder: in the config file.", k)
		}
	}
	return ""
}

// claudeCodeLine is the `claude mcp add` command that adds the same server
// to Claude Code, quoted for the user's shell.
func claudeCodeLine(name string, entry serverEntry) string {
	words := []string{"claude", "mcp", "add", name}
	for _, k := range slices.Sorted(maps.Keys(entry.Env)) {
		words = append(words, "-e", k+"="+entry.Env[k])
	}
	words = append(words, "--", entry.Command)
	return shellLine(append(words, entry.Args...))
}

// shellLine joins words into one command line for the user's shell.
func shellLine(words []string) string {
	quoted := make([]string, len(words))
	for i, w := range words {
		quoted[i] = health.Quote(w)
	}
	return strings.Join(quoted, " ")
}

// installedExecutable is the absolute path of this binary with symbolic
// links resolved, so that the entry keeps working when a link is moved. A
// binary built by `go run` would start nothing once it is gone, so it is
// refused; args are the arguments of setup claude, for the command the
// refusal suggests.
func installedExecutable(args []string) (string, error) {
	exe, err := os.Executable()
	if err != nil {
		return "", fmt.Errorf("find this jarvis binary: %w", err)
	}
	if real, err := filepath.EvalSymlinks(exe); err == nil {
		exe = real
	}
	if isGoRunBuild(exe) {
		return "", goRunRefused(exe, args)
	}
	return exe, nil
}

// goRunRefused says why setup refuses a jarvis that `go run` built (at
// exe), and how to install one: the install line, then this command with
// the arguments it was given.
func goRunRefused(exe string, args []string) error {
	again := shellLine(append([]string{"jarvis", "setup", "claude"}, args...))
	return fmt.Errorf("this jarvis was started by `go run` from %s, a build Go deletes when it exits or cleans its cache: "+
		"install it from the clone with `%s`, then run `%s`: %w", exe, installCommand, again, errUsage)
}

// goRunCached matches the folder in Go's build cache that `go run` keeps
// an executable in (GOCACHE/13/<sha256>-d/jarvis); before Go 1.24 it ran
// one from a temporary go-build*/b001/exe folder, deleted on exit.
var goRunCached = regexp.MustCompile(`^[0-9a-f]{64}-d$`)

// isGoRunBuild reports whether exe is an executable `go run` built.
func isGoRunBuild(exe string) bool {
	dir := filepath.Dir(exe)
	if goRunCached.MatchString(filepath.Base(dir)) {
		return true
	}
	return filepath.Base(dir) == "exe" && strings.HasPrefix(filepath.Base(filepath.Dir(filepath.Dir(dir))), "go-build")
}

// claudeDesktopConfigPath is where Claude Desktop reads its config on goos,
// from the environment (getenv) and the user's home folder. It takes the
// platform as an argument so that every platform's answer can be checked
// on any of them; paths for Windows are joined with backslashes whatever
// the platform running it.
func claudeDesktopConfigPath(goos string, getenv func(string) string, home string) (string, error) {
	const file = "claude_desktop_config.json"
	noHome := errors.New("cannot find your home folder to place Claude Desktop's config file in; give the file with --claude-config")
	switch goos {
	case "windows":
		appData := getenv("APPDATA")
		if appData == "" {
			if home == "" {
				return "", noHome
			}
			appData = strings.TrimRight(home, `\/`) + `\AppData\Roaming`
		}
		return strings.TrimRight(appData, `\/`) + `\Claude\` + file, nil
	case "darwin":
		if home == "" {
			return "", noHome
		}
		return path.Join(home, "Library", "Application Support", "Claude", file), nil
	default:
		// The XDG base directory specification has a relative
		// XDG_CONFIG_HOME ignored.
		if x := getenv("XDG_CONFIG_HOME"); x != "" && path.IsAbs(x) {
			return path.Join(x, "Claude", file), nil
		}
		if home == "" {
			return "", noHome
		}
		return path.Join(home, ".config", "Claude", file), nil
	}
}

// addResult says what addServer did.
type addResult struct {
	path      string // the file written: the target when the path given is a symbolic link
	backup    string // the copy of the old file; "" when there was none or nothing changed
	replaced  bool   // an entry of that name was there before
	unchanged bool   // the entry was there already, as it is; nothing was written
}

// addServer puts the server entry (JSON) under name in the "mcpServers" of
// the config file at file, keeping the rest of the file. The old file is
// copied beside it first, and the new one is renamed over it, so that the
// file is at every moment either the old one or the new one. A file that
// is not a JSON object, or whose mcpServers is not one, is left as it is.
// A folder it cannot write in is said with the command that opens it up.
func addServer(file, name string, entry json.RawMessage, now time.Time, sys setupFiles) (addResult, error) {
	res := addResult{path: file}
	// A config file kept elsewhere and linked here (as dotfile managers do)
	// is updated where it is, and the link stays.
	if real, err := filepath.EvalSymlinks(file); err == nil {
		res.path = real
	}
	mode := fs.FileMode(0o600) // it may come to hold API keys in "env"
	old, err := os.ReadFile(res.path)
	exists := err == nil
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return res, fmt.Errorf("read Claude Desktop's config file: %w", err)
	}
	if exists {
		st, err := os.Stat(res.path)
		if err != nil {
			return res, fmt.Errorf("read Claude Desktop's config file: %w", err)
		}
		mode = st.Mode().Perm()
	}
	merged, replaced, unchanged, err := mergeServer(old, name, entry)
	if err != nil {
		return res, fmt.Errorf("the config file of Claude Desktop, %s, %w; fix it or move it aside, then run again (nothing was changed)", res.path, err)
	}
	res.replaced, res.unchanged = replaced, unchanged
	if unchanged {
		return res, nil
	}
	if !exists {
		if err := os.MkdirAll(filepath.Dir(res.path), 0o700); err != nil {
			if dir, why, ok := notWritable(err, sys.probe); ok {
				return res, fmt.Errorf("cannot create the folder of Claude Desktop's config file in %s: %s (nothing was changed)", dir, why)
			}
			return res, fmt.Errorf("create the folder of Claude Desktop's config file: %w", err)
		}
	} else if res.backup, err = writeBackup(sys.openFile, res.path, old, mode, now); err != nil {
		if dir, why, ok := notWritable(err, sys.probe); ok {
			return res, fmt.Errorf("cannot write a backup in %s: %s (nothing was changed)", dir, why)
		}
		return res, fmt.Errorf("back up Claude Desktop's config file (nothing was changed): %w", err)
	}
	if err := replaceFile(res.path, merged, mode); err != nil {
		if dir, why, ok := notWritable(err, sys.probe); ok && res.backup == "" {
			return res, fmt.Errorf("cannot write Claude Desktop's config file in %s: %s (nothing was changed)", dir, why)
		}
		return res, fmt.Errorf("write Claude Desktop's config file: %w", err)
	}
	return res, nil
}

// setupFiles is what addServer asks of the system besides reading: a test
// running as root, whom the system lets write anywhere, passes its own.
type setupFiles struct {
	openFile func(name string, flag int, perm fs.FileMode) (*os.File, error)
	probe    store.Probe
}

var systemFiles = setupFiles{openFile: os.OpenFile, probe: store.ProbeFile}

// notWritable says, when err is a file or folder that could not be made
// because the folder it goes in is not writable by this user, which
// folder that is, and why in words that end with the command that lets
// the user write there: chmod when the folder is theirs, chown first when
// another user's (only its owner may change its mode). ok is false for
// any other cause, and where the system has no user ids to give such a
// command for.
func notWritable(err error, probe store.Probe) (dir, why string, ok bool) {
	var pe *fs.PathError
	if !errors.Is(err, fs.ErrPermission) || !errors.As(err, &pe) {
		return "", "", false
	}
	dir = filepath.Dir(pe.Path)
	fa, perr := probe(dir)
	if perr != nil || !fa.Exists || !fa.IsDir || fa.Write || fa.Owner < 0 {
		return "", "", false
	}
	q := health.Quote(dir)
	if owner := store.OwnedByOther(fa); owner != "" {
		return dir, fmt.Sprintf("that folder belongs to %s and is not writable by you; run `sudo chown $USER %s && chmod u+w %s`", owner, q, q), true
	}
	return dir, fmt.Sprintf("that folder is not writable by you; run `chmod u+w %s`", q), true
}

// member is one key and its value, as written, of a JSON object.
type member struct {
	key   string
	value json.RawMessage
}

// mergeServer returns doc with entry under mcpServers.name, every other
// key and value of doc kept in its order. It reports whether an entry of
// that name was there, and whether it was there unchanged. An empty doc
// is an empty object, as a file just created by hand may be.
func mergeServer(doc []byte, name string, entry json.RawMessage) (out []byte, replaced, unchanged bool, err error) {
	if len(bytes.TrimSpace(doc)) == 0 {
		doc = []byte("{}")
	}
	var v any
	if err := json.Unmarshal(doc, &v); err != nil {
		return nil, false, false, fmt.Errorf("is not valid JSON: %s", jsonWords(doc, err))
	}
	top, ok := objectMembers(doc)
	if !ok {
		return nil, false, false, fmt.Errorf("holds %s, not the JSON object Claude Desktop writes", jsonKind(v))
	}
	// Claude Desktop, as JavaScript's JSON.parse, takes the last of two
	// members with one name.
	at := -1
	for i, m := range top {
		if m.key == "mcpServers" {
			at = i
		}
	}
	var servers []member
	if at >= 0 {
		if servers, ok = objectMembers(top[at].value); !ok {
			var sv any
			_ = json.Unmarshal(top[at].value, &sv)
			return nil, false, false, fmt.Errorf("has an \"mcpServers\" that is %s, not an object of servers", jsonKind(sv))
		}
	}
	// The entry keeps the place of the one it replaces, or goes last.
	count, same := 0, false
	kept := make([]member, 0, len(servers)+1)
	for _, m := range servers {
		if m.key != name {
			kept = append(kept, m)
			continue
		}
		if count == 0 {
			kept = append(kept, member{name, entry})
			same = jsonEqual(m.value, entry)
		}
		count++
	}
	if count == 0 {
		kept = append(kept, member{name, entry})
	}
	replaced = count > 0
	if count == 1 && same {
		return doc, true, true, nil
	}
	servers = kept
	newServers := encodeObject(servers)
	if at >= 0 {
		top[at].value = newServers
	} else {
		top = append(top, member{"mcpServers", newServers})
	}
	var buf bytes.Buffer
	if err := json.Indent(&buf, encodeObject(top), "", "  "); err != nil {
		return nil, false, false, fmt.Errorf("is not valid JSON: %w", err)
	}
	buf.WriteByte('\n')
	return buf.Bytes(), replaced, false, nil
}

// objectMembers splits a JSON object into its members, in order, with their
// values as written; ok is false when data is not one object. data has
// been checked to be valid JSON.
func objectMembers(data []byte) (members []member, ok bool) {
	dec := json.NewDecoder(bytes.NewReader(data))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return nil, false
	}
	for dec.More() {
		tok, err := dec.Token()
		key, isKey := tok.(string)
		if err != nil || !isKey {
			return nil, false
		}
		var value json.RawMessage
		if err := dec.Decode(&value); err != nil {
			return nil, false
		}
		members = append(members, member{key, value})
	}
	if tok, err := dec.Token(); err != nil || tok != json.Delim('}') {
		return nil, false
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, false
	}
	return members, true
}

// encodeObject writes members back as one compact JSON object.
func encodeObject(members []member) json.RawMessage {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, m := range members {
		if i > 0 {
			b.WriteByte(',')
		}
		key, _ := marshalCompact(m.key)
		b.Write(key)
		b.WriteByte(':')
		b.Write(m.value)
	}
	b.WriteByte('}')
	return b.Bytes()
}

// jsonEqual reports whether two JSON texts hold the same value, whatever
// their spacing and the order of their keys.
func jsonEqual(a, b []byte) bool {
	var va, vb any
	if json.Unmarshal(a, &va) != nil || json.Unmarshal(b, &vb) != nil {
		return false
	}
	ca, _ := json.Marshal(va)
	cb, _ := json.Marshal(vb)
	return bytes.Equal(ca, cb)
}

// jsonWords says where and why doc stops being JSON, as words.JSONSyntax
// says it of every JSON file a user edits by hand.
func jsonWords(doc []byte, err error) string {
	if w, ok := words.JSONSyntax(doc, err); ok {
		return w
	}
	return err.Error()
}

// jsonKind names the kind of a decoded JSON value for a message.
func jsonKind(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case []any:
		return "an array"
	case string:
		return "a string"
	case float64:
		return "a number"
	case bool:
		return "a boolean"
	}
	return "an object"
}

// marshalCompact is json.Marshal without escaping <, > and &, which are
// common in Windows paths and folder names and mean nothing special here.
func marshalCompact(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, fmt.Errorf("encode JSON: %w", err)
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}

// marshalIndent is marshalCompact indented by two spaces, as Claude
// Desktop writes its file, with a final newline.
func marshalIndent(v any) ([]byte, error) {
	raw, err := marshalCompact(v)
	if err != nil {
		return nil, err
	}
	var b bytes.Buffer
	if err := json.Indent(&b, raw, "", "  "); err != nil {
		return nil, fmt.Errorf("encode JSON: %w", err)
	}
	b.WriteByte('\n')
	return b.Bytes(), nil
}

// writeBackup copies the old content of file to file.bak, or, when that
// exists, to file.bak-<UTC time>, never over an earlier backup. The copy
// gets the file's permissions: it may hold API keys.
func writeBackup(openFile func(string, int, fs.FileMode) (*os.File, error), file string, data []byte, mode fs.FileMode, now time.Time) (string, error) {
	stamp := now.UTC().Format("20060102T150405Z")
	for i := 0; ; i++ {
		name := file + ".bak"
		switch {
		case i == 1:
			name += "-" + stamp
		case i > 1:
			name += fmt.Sprintf("-%s-%d", stamp, i)
		}
		f, err := openFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, mode)
		if errors.Is(err, fs.ErrExist) && i < 100 {
			continue
		}
		if err != nil {
			return "", err
		}
		_, werr := f.Write(data)
		serr := f.Sync()
		cerr := f.Close()
		if err := errors.Join(werr, serr, cerr); err != nil {
			os.Remove(name)
			return "", err
		}
		return name, nil
	}
}

// replaceFile writes data to a temporary file beside file and renames it
// over file, so that Claude Desktop, or a crash, finds the old file or the
// new one, never a part.
func replaceFile(file string, data []byte, mode fs.FileMode) error {
	f, err := os.CreateTemp(filepath.Dir(file), "."+filepath.Base(file)+".*.tmp")
	if err != nil {
		return err
	}
	_, werr := f.Write(data)
	merr := f.Chmod(mode)
	serr := f.Sync()
	cerr := f.Close()
	if err := errors.Join(werr, merr, serr, cerr); err != nil {
		os.Remove(f.Name())
		return err
	}
	if err := os.Rename(f.Name(), file); err != nil {
		os.Remove(f.Name())
		return err
	}
	return nil
}

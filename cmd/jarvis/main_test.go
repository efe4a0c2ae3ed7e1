package main

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jarvis-mcp/jarvis/internal/sharedtest"
	"github.com/jarvis-mcp/jarvis/internal/store"
)

// TestMain lets a test run this binary as jarvis itself in a subprocess
// (for kill -9), with the arguments in JARVIS_TEST_ARGS.
func TestMain(m *testing.M) {
	if args, ok := os.LookupEnv("JARVIS_TEST_ARGS"); ok {
		e := &env{stdout: os.Stdout, stderr: os.Stderr, getenv: os.Getenv}
		os.Exit(run(context.Background(), e, strings.Split(args, "\x1f")))
	}
	os.Exit(m.Run())
}

// jarvis runs one command line in-process with an environment holding only
// HOME (a temp folder, so no real config file is read) and vars.
func jarvis(t *testing.T, vars map[string]string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	return jarvisIn(t, vars, nil, args...)
}

// jarvisIn is jarvis with the environment changed by set before the run,
// such as to make stdout pass for a terminal.
func jarvisIn(t *testing.T, vars map[string]string, set func(*env), args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	home := t.TempDir()
	e := &env{stdout: &out, stderr: &errb, getenv: func(k string) string {
		if k == "HOME" {
			return home
		}
		return vars[k]
	}}
	if set != nil {
		set(e)
	}
	code = run(context.Background(), e, args)
	return code, out.String(), errb.String()
}

func TestIndexJSON(t *testing.T) {
	vault := sharedtest.Path(t, "vaults/obsidian-help/en")
	db := filepath.Join(t.TempDir(), "x.db")
	code, stdout, stderr := jarvis(t, nil, "index", "--vault", vault, "--db", db, "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	// Exactly one JSON object, with exactly the documented fields.
	dec := json.NewDecoder(strings.NewReader(stdout))
	var obj map[string]any
	if err := dec.Decode(&obj); err != nil {
		t.Fatalf("stdout is not JSON: %v\n%s", err, stdout)
	}
	if dec.More() {
		t.Fatalf("more than one JSON value on stdout:\n%s", stdout)
	}
	if keys := sortedKeys(obj); !reflect.DeepEqual(keys, []string{"duration_ms", "vaults"}) {
		t.Fatalf("top-level keys = %v", keys)
	}
	vaults := obj["vaults"].([]any)
	v := vaults[0].(map[string]any)
	wantKeys := []string{"added", "attachments", "deleted", "links", "name", "notes", "passages", "path", "resolved_links", "unchanged", "unresolved_links", "updated", "warnings"}
	if keys := sortedKeys(v); !reflect.DeepEqual(keys, wantKeys) {
		t.Fatalf("vault keys = %v; want %v", keys, wantKeys)
	}
	if v["name"] != "en" || v["notes"] != 173.0 || v["attachments"] != 134.0 || v["added"] != 173.0 {
		t.Fatalf("vault = %v", v)
	}
	if v["links"].(float64) != v["resolved_links"].(float64)+v["unresolved_links"].(float64) {
		t.Fatalf("links do not add up: %v", v)
	}

	code, stdout, _ = jarvis(t, nil, "index", "--vault", vault, "--db", db, "--json")
	var again indexOutput
	if err := json.Unmarshal([]byte(stdout), &again); err != nil || code != 0 {
		t.Fatalf("second run: exit %d, %v", code, err)
	}
	if r := again.Vaults[0]; r.Unchanged != 173 || r.Added+r.Updated+r.Deleted != 0 {
		t.Fatalf("second run = %+v; want all unchanged", r)
	}
}

func sortedKeys(m map[string]any) []string {
	var ks []string
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}

func TestDoctor(t *testing.T) {
	vault := sharedtest.Path(t, "vaults/obsidian-help/en")
	dir := t.TempDir()
	db := filepath.Join(dir, "x.db")

	t.Run("not indexed yet is degraded", func(t *testing.T) {
		code, stdout, _ := jarvis(t, nil, "doctor", "--vault", vault, "--db", db)
		if code != 1 || !strings.Contains(stdout, "jarvis index") {
			t.Fatalf("exit %d:\n%s", code, stdout)
		}
		if _, err := os.Stat(db); err == nil {
			t.Fatal("doctor created the database")
		}
	})

	if code, _, stderr := jarvis(t, nil, "index", "--vault", vault, "--db", db); code != 0 {
		t.Fatalf("index: exit %d: %s", code, stderr)
	}

	t.Run("healthy", func(t *testing.T) {
		code, stdout, _ := jarvis(t, nil, "doctor", "--vault", vault, "--db", db, "--json")
		var rep struct {
			Status string
			Checks []struct{ Name, Status, Detail, Fix string }
		}
		if err := json.Unmarshal([]byte(stdout), &rep); err != nil {
			t.Fatal(err)
		}
		if code != 0 || rep.Status != "healthy" {
			t.Fatalf("exit %d, %+v", code, rep)
		}
		names := map[string]bool{}
		for _, c := range rep.Checks {
			names[c.Name] = true
		}
		for _, want := range []string{"configuration", "vault en", "database", "schema version", "index freshness en", "unresolved links en", "heading links en", "disk space"} {
			if !names[want] {
				t.Errorf("check %q missing from %v", want, names)
			}
		}
	})

	t.Run("notes read by an earlier parser are stale", func(t *testing.T) {
		raw := openRaw(t, db)
		if _, err := raw.Exec(`UPDATE vaults SET parser = '1'`); err != nil {
			t.Fatal(err)
		}
		raw.Close()
		code, stdout, _ := jarvis(t, nil, "doctor", "--vault", vault, "--db", db)
		if code != 1 || !strings.Contains(stdout, "earlier version of jarvis") {
			t.Fatalf("exit %d:\n%s", code, stdout)
		}
		if code, _, stderr := jarvis(t, nil, "index", "--vault", vault, "--db", db); code != 0 {
			t.Fatalf("index: exit %d: %s", code, stderr)
		}
		if code, stdout, _ := jarvis(t, nil, "doctor", "--vault", vault, "--db", db); code != 0 {
			t.Fatalf("after jarvis index: exit %d:\n%s", code, stdout)
		}
	})

	t.Run("edited note is stale", func(t *testing.T) {
		copyDir := t.TempDir()
		if err := os.WriteFile(filepath.Join(copyDir, "A.md"), []byte("a"), 0o644); err != nil {
			t.Fatal(err)
		}
		db2 := filepath.Join(t.TempDir(), "y.db")
		jarvis(t, nil, "index", "--vault", copyDir, "--db", db2)
		os.WriteFile(filepath.Join(copyDir, "B.md"), []byte("b"), 0o644)
		code, stdout, _ := jarvis(t, nil, "doctor", "--vault", copyDir, "--db", db2)
		if code != 1 || !strings.Contains(stdout, "1 new") {
			t.Fatalf("exit %d:\n%s", code, stdout)
		}
	})

	t.Run("missing vault is broken", func(t *testing.T) {
		missing := filepath.Join(dir, "no-such-vault")
		code, stdout, _ := jarvis(t, nil, "doctor", "--vault", missing, "--db", db)
		if code != 2 || !strings.Contains(stdout, missing+" does not exist") || !strings.Contains(stdout, "fix: check the path") {
			t.Fatalf("exit %d:\n%s", code, stdout)
		}
	})

	t.Run("corrupted database is broken and kept", func(t *testing.T) {
		bad := filepath.Join(dir, "bad.db")
		// Its header wiped: a start of zeros is damage, not someone
		// else's file.
		content := append(make([]byte, 100), "this file was a database once\x00\x01\x02"...)
		os.WriteFile(bad, content, 0o644)
		code, stdout, _ := jarvis(t, nil, "doctor", "--vault", vault, "--db", bad)
		if code != 2 || !strings.Contains(stdout, "not a usable jarvis database") || !strings.Contains(stdout, "fix: run `jarvis index --vault "+vault+" --db "+bad+" --rebuild`") {
			t.Fatalf("exit %d:\n%s", code, stdout)
		}
		if got, err := os.ReadFile(bad); err != nil || !bytes.Equal(got, content) {
			t.Fatalf("database file changed or gone: %v", err)
		}
	})

	t.Run("database damaged inside is broken", func(t *testing.T) {
		damaged := filepath.Join(dir, "damaged.db")
		data, err := os.ReadFile(db)
		if err != nil {
			t.Fatal(err)
		}
		// Keep the header, wreck the pages after it.
		for i := 4096; i < len(data); i += 7 {
			data[i] ^= 0x5a
		}
		os.WriteFile(damaged, data, 0o644)
		code, stdout, _ := jarvis(t, nil, "doctor", "--vault", vault, "--db", damaged)
		if code != 2 || !strings.Contains(stdout, "--rebuild`: it moves the file aside") {
			t.Fatalf("exit %d:\n%s", code, stdout)
		}
		if _, err := os.Stat(damaged); err != nil {
			t.Fatal("damaged database removed")
		}
	})
}

func TestIndexErrors(t *testing.T) {
	dir := t.TempDir()
	vault := filepath.Join(dir, "vault")
	os.MkdirAll(vault, 0o755)
	os.WriteFile(filepath.Join(vault, "Note.md"), []byte("# Note\n[[Other]]\n"), 0o644)

	t.Run("no vault", func(t *testing.T) {
		code, stdout, stderr := jarvis(t, nil, "index", "--db", filepath.Join(dir, "a.db"))
		if code != 2 || stdout != "" || strings.Count(strings.TrimSpace(stderr), "\n") != 0 || !strings.Contains(stderr, "--vault") {
			t.Fatalf("exit %d, stdout %q, stderr %q", code, stdout, stderr)
		}
	})
	t.Run("missing vault folder", func(t *testing.T) {
		code, _, stderr := jarvis(t, nil, "index", "--vault", filepath.Join(dir, "nope"), "--db", filepath.Join(dir, "a.db"))
		if code == 0 || !strings.Contains(stderr, "nope") {
			t.Fatalf("exit %d, stderr %q", code, stderr)
		}
	})
	t.Run("unknown vault name lists the configured ones", func(t *testing.T) {
		cfgFile := filepath.Join(dir, "config.yaml")
		os.WriteFile(cfgFile, []byte("vaults:\n  - name: work\n    path: "+vault+"\n"), 0o644)
		code, _, stderr := jarvis(t, nil, "index", "--config", cfgFile, "--vault", "wrok", "--db", filepath.Join(dir, "a.db"))
		if code != 2 || !strings.Contains(stderr, `the config file names "work"`) {
			t.Fatalf("exit %d, stderr %q", code, stderr)
		}
	})
	t.Run("unwritable database", func(t *testing.T) {
		code, _, stderr := jarvis(t, nil, "index", "--vault", vault, "--db", filepath.Join(vault, "Note.md", "x.db"))
		if code == 0 || strings.Count(strings.TrimSpace(stderr), "\n") != 0 {
			t.Fatalf("exit %d, stderr %q", code, stderr)
		}
	})
	t.Run("corrupt database is kept, then moved aside by --rebuild", func(t *testing.T) {
		db := filepath.Join(dir, "corrupt.db")
		content := append(make([]byte, 100), "not sqlite any more"...)
		os.WriteFile(db, content, 0o644)
		code, _, stderr := jarvis(t, nil, "index", "--vault", vault, "--db", db)
		if code != 1 || !strings.Contains(stderr, "--rebuild") {
			t.Fatalf("exit %d, stderr %q", code, stderr)
		}
		if got, _ := os.ReadFile(db); !bytes.Equal(got, content) {
			t.Fatal("corrupt database was modified")
		}
		code, _, stderr = jarvis(t, nil, "index", "--vault", vault, "--db", db, "--rebuild")
		if code != 0 {
			t.Fatalf("rebuild: exit %d, stderr %q", code, stderr)
		}
		backups, _ := filepath.Glob(db + ".broken-*")
		if len(backups) != 1 {
			t.Fatalf("backups = %v", backups)
		}
		if got, _ := os.ReadFile(backups[0]); !bytes.Equal(got, content) {
			t.Fatal("backup does not hold the old file")
		}
	})
	t.Run("database from a newer jarvis", func(t *testing.T) {
		db := filepath.Join(dir, "new.db")
		if code, _, stderr := jarvis(t, nil, "index", "--vault", vault, "--db", db); code != 0 {
			t.Fatal(stderr)
		}
		raw := openRaw(t, db)
		raw.Exec(`INSERT INTO schema_migrations VALUES (99, 'future', 'x')`)
		raw.Close()
		code, _, stderr := jarvis(t, nil, "index", "--vault", vault, "--db", db)
		if code != 1 || !strings.Contains(stderr, "newer version of jarvis") {
			t.Fatalf("exit %d, stderr %q", code, stderr)
		}
	})
}

func TestHelp(t *testing.T) {
	code, stdout, _ := jarvis(t, nil, "--help")
	for _, want := range []string{"index", "doctor", "jarvis help config"} {
		if code != 0 || !strings.Contains(stdout, want) {
			t.Fatalf("--help lacks %q (exit %d):\n%s", want, code, stdout)
		}
	}
	code, stdout, _ = jarvis(t, nil, "help", "config")
	for _, want := range []string{"JARVIS_VAULT", "JARVIS_DB", "JARVIS_CONFIG", "JARVIS_EMBED_URL", "config.yaml", "semantic_weight"} {
		if code != 0 || !strings.Contains(stdout, want) {
			t.Fatalf("help config lacks %q (exit %d):\n%s", want, code, stdout)
		}
	}
	// A flag is written --flag, as the README writes it; only a one-letter
	// flag keeps one dash.
	oneDash := regexp.MustCompile(`(?m)^\s+-[A-Za-z][\w-]+`)
	for _, c := range []struct {
		args       []string
		want       []string
		readsVault bool
	}{
		{[]string{"index", "--help"}, []string{"--vault", "--db", "--config", "--json", "-v, --verbose", "Exit status"}, true},
		{[]string{"doctor", "--help"}, []string{"--vault", "--db", "--config", "--json", "Exit status"}, true},
		{[]string{"search", "--help"}, []string{"--mode MODE", "--limit NOTES", "(default 10, 20 in", "--names-only"}, true},
		{[]string{"mcp", "--help"}, []string{"--http ADDRESS", "--watch", "(default true)", "--session-timeout"}, true},
		{[]string{"related", "--help"}, []string{"--vault", "--db", "--config", "--json", "--limit NOTES", "Exit status"}, true},
		{[]string{"model", "pull", "--help"}, []string{"--revision"}, false},
		{[]string{"model", "list", "--help"}, []string{"--json"}, false},
		{[]string{"help", "version"}, []string{"Print the version"}, false},
	} {
		code, stdout, stderr := jarvis(t, nil, c.args...)
		if code != 0 || stderr != "" {
			t.Fatalf("%v: exit %d, stderr %q", c.args, code, stderr)
		}
		for _, want := range c.want {
			if !strings.Contains(stdout, want) {
				t.Errorf("%v lacks %q:\n%s", c.args, want, stdout)
			}
		}
		if m := oneDash.FindString(stdout); m != "" {
			t.Errorf("%v shows a flag with one dash, %q:\n%s", c.args, m, stdout)
		}
		// The configuration reference is not repeated under each command;
		// one line points to it.
		if strings.Contains(stdout, "JARVIS_EMBED_URL") {
			t.Errorf("%v repeats the configuration reference:\n%s", c.args, stdout)
		}
		if c.readsVault != strings.Contains(stdout, "jarvis help config") {
			t.Errorf("%v: pointer to `jarvis help config` shown %v, want %v:\n%s", c.args, !c.readsVault, c.readsVault, stdout)
		}
	}
	for _, args := range [][]string{{"index", "-json"}, {"index", "--json"}} {
		// Both forms are accepted; with no vault the run stops at the
		// configuration, after the flags parsed.
		if code, _, stderr := jarvis(t, nil, args...); code != 2 || !strings.Contains(stderr, "no vault given") {
			t.Errorf("%v: exit %d, %q", args, code, stderr)
		}
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"search", "--bogus", "q"}, "unknown flag --bogus; see `jarvis search --help`"},
		{[]string{"index", "--limit"}, "unknown flag --limit"},
		{[]string{"index", "--rebiuld"}, "unknown flag --rebiuld (did you mean --rebuild?); see `jarvis index --help`"},
		{[]string{"query", "--blok", "2"}, "unknown flag --blok (did you mean --block?)"},
		{[]string{"search", "--threshold", "high", "q"}, "--threshold takes a number (got \"high\")"},
		{[]string{"search", "--limit", "many", "q"}, `--limit takes a whole number (got "many")`},
		{[]string{"search", "--limit", "101", "q"}, "--limit 101: give 1 to 100"},
		{[]string{"search", "--mode", "keyword", "--limit", "0", "q"}, "--limit 0: give 1 to 100"},
		{[]string{"index", "--db"}, "--db needs a value; see `jarvis index --help`"},
		{[]string{"index", "--json=maybe"}, `--json takes true or false (got "maybe")`},
	} {
		code, stdout, stderr := jarvis(t, nil, c.args...)
		if code != 2 || stdout != "" || strings.Count(stderr, "\n") != 1 || !strings.Contains(stderr, c.want) {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want exit 2 and one line with %q", c.args, code, stdout, stderr, c.want)
		}
	}
	if code, _, stderr := jarvis(t, nil, "frobnicate"); code != 2 || !strings.Contains(stderr, "unknown command") {
		t.Fatalf("unknown command: exit %d, %q", code, stderr)
	}
}

func openRaw(t testing.TB, path string) *sql.DB {
	t.Helper()
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	return db
}

// TestForgetAVault indexes two vaults into one database, then configures
// one: doctor names the other and how to drop it, and --forget does.
func TestForgetAVault(t *testing.T) {
	example, _ := filepath.Abs("../../examples/vault")
	other := t.TempDir()
	os.WriteFile(filepath.Join(other, "Note.md"), []byte("# Note\n"), 0o644)
	db := filepath.Join(t.TempDir(), "j.db")
	for _, v := range []string{example, other} {
		if code, _, stderr := jarvis(t, nil, "index", "--vault", v, "--db", db, "--no-embed"); code != 0 {
			t.Fatalf("index %s: exit %d: %s", v, code, stderr)
		}
	}
	name := filepath.Base(other)
	_, stdout, _ := jarvis(t, nil, "doctor", "--vault", example, "--db", db)
	if !strings.Contains(stdout, "other vault "+name) || !strings.Contains(stdout, "--forget "+name) {
		t.Fatalf("doctor does not name the other vault:\n%s", stdout)
	}
	if code, _, stderr := jarvis(t, nil, "index", "--vault", example, "--db", db, "--forget", name); code != 0 || !strings.Contains(stderr, "dropped vault \""+name+"\" (1 note)") {
		t.Fatalf("--forget: exit %d: %s", code, stderr)
	}
	if _, stdout, _ := jarvis(t, nil, "doctor", "--vault", example, "--db", db); strings.Contains(stdout, "other vault") {
		t.Fatalf("doctor after --forget:\n%s", stdout)
	}
	if _, stdout, _ := jarvis(t, nil, "index", "--vault", other, "--db", db, "--no-embed"); stdout == "" {
		t.Fatal("re-indexing the other vault printed nothing")
	}
	code, stdout, stderr := jarvis(t, nil, "index", "--vault", example, "--db", db, "--forget", name, "--json")
	var out indexOutput
	if err := json.Unmarshal([]byte(stdout), &out); err != nil || code != 0 || len(out.Forgotten) != 1 || out.Forgotten[0] != (forgotten{Name: name, Notes: 1}) {
		t.Fatalf("--forget --json: exit %d, %+v, %v (%s)", code, out.Forgotten, err, stderr)
	}
	if code, _, stderr := jarvis(t, nil, "index", "--vault", example, "--db", db, "--forget", "nope"); code == 0 || !strings.Contains(stderr, "no vault named") {
		t.Fatalf("--forget of an unknown vault: exit %d: %s", code, stderr)
	}
}

// TestIndexWaitsForAnotherWriter holds the database's writer lock, as an
// MCP server indexing at its start does: jarvis index says it waits, and
// finishes once the lock is given back.
func TestIndexWaitsForAnotherWriter(t *testing.T) {
	example, _ := filepath.Abs("../../examples/vault")
	db := filepath.Join(t.TempDir(), "j.db")
	other, err := store.Open(context.Background(), db, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	unlock, err := other.LockWriters(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan string, 1)
	go func() {
		code, _, stderr := jarvis(t, nil, "index", "--vault", example, "--db", db, "--no-embed")
		if code != 0 {
			stderr = "exit " + strconv.Itoa(code) + ": " + stderr
		}
		done <- stderr
	}()
	select {
	case stderr := <-done:
		t.Fatalf("jarvis index finished while another writer held the lock: %s", stderr)
	case <-time.After(300 * time.Millisecond):
	}
	unlock()
	select {
	case stderr := <-done:
		if !strings.Contains(stderr, "another jarvis process is writing to") {
			t.Fatalf("jarvis index did not say it waited: %q", stderr)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("jarvis index never finished after the lock was given back")
	}
}

package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	mcpsdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/jarvis-mcp/jarvis/internal/sharedtest"
)

// The messages a new user meets on the way in, every one of them read as
// they would read it: each broken state is met through the CLI and over
// MCP, every message checked for raw SQLite codes, Go type names and
// grammar assembled wrong (sharedtest.MessageFaults), and every command a
// message suggests is run as pasted: it must run, and the fix it promises
// must leave the first command working.

// messageRun is what one command line printed, kept for reading.
type messageRun struct {
	args           []string
	code           int
	stdout, stderr string
}

// readCLI runs a command line, checks every word it printed, and returns
// what it printed.
func readCLI(t *testing.T, vars map[string]string, args ...string) messageRun {
	t.Helper()
	code, stdout, stderr := jarvis(t, vars, args...)
	where := "jarvis " + strings.Join(args, " ")
	sharedtest.CheckWords(t, where+" (stderr)", stderr)
	if !hasJSONFlag(args) {
		sharedtest.CheckWords(t, where+" (stdout)", noteLines(stdout))
	}
	return messageRun{args: args, code: code, stdout: stdout, stderr: stderr}
}

func hasJSONFlag(args []string) bool {
	for _, a := range args {
		if a == "--json" {
			return true
		}
	}
	return false
}

// noteLines is what search printed about its answer rather than the
// notes' own text: the lines that are not results or their passages.
func noteLines(stdout string) string {
	var keep []string
	for _, line := range strings.Split(stdout, "\n") {
		if strings.HasPrefix(line, "    ") || len(line) > 2 && line[2] == '.' {
			continue
		}
		keep = append(keep, line)
	}
	return strings.Join(keep, "\n")
}

// runSuggestions runs, as pasted, every jarvis command the messages of r
// suggest, and fails when one does not run (a usage error, or a failure
// other than the state it is meant to fix). It returns the commands run.
func runSuggestions(t *testing.T, vars map[string]string, r messageRun) [][]string {
	t.Helper()
	var cmds [][]string
	for _, args := range sharedtest.SuggestedCommands(r.stderr + "\n" + r.stdout) {
		if args[0] == "model" && len(args) > 1 && args[1] == "pull" {
			continue // it downloads: tested against a stand-in hub in model_test.go
		}
		cmds = append(cmds, args)
	}
	for _, args := range cmds {
		fix := readCLI(t, vars, args...)
		if fix.code != 0 && !(args[0] == "doctor" && fix.code == 1) {
			t.Errorf("jarvis %s, suggested by `jarvis %s`, exits %d:\n%s%s",
				strings.Join(args, " "), strings.Join(r.args, " "), fix.code, fix.stdout, fix.stderr)
		}
	}
	return cmds
}

// readTool calls a tool and checks every sentence of its answer meant for
// the model: the text of an error, and the strings of the structured
// answer that are not the notes' own text.
func readTool(t *testing.T, cs *mcpsdk.ClientSession, name string, args map[string]any) (*mcpsdk.CallToolResult, map[string]any) {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcpsdk.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	for _, c := range res.Content {
		if tc, ok := c.(*mcpsdk.TextContent); ok && res.IsError {
			sharedtest.CheckWords(t, name+" error", tc.Text)
		}
	}
	var out map[string]any
	if res.StructuredContent != nil {
		data, _ := json.Marshal(res.StructuredContent)
		if err := json.Unmarshal(data, &out); err != nil {
			t.Fatal(err)
		}
		for _, s := range sentences(out, "") {
			sharedtest.CheckWords(t, name+" answer", s)
		}
	}
	return res, out
}

// sentences are the strings of a tool's answer written for the reader,
// found under the keys that hold them at any depth.
func sentences(v any, key string) []string {
	var out []string
	switch v := v.(type) {
	case map[string]any:
		keys := make([]string, 0, len(v))
		for k := range v {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			out = append(out, sentences(v[k], k)...)
		}
	case []any:
		for _, e := range v {
			out = append(out, sentences(e, key)...)
		}
	case string:
		switch key {
		case "empty", "notes", "note", "degraded", "reason", "warning", "warnings", "error", "detail", "fix", "message", "state", "status_detail":
			out = append(out, v)
		}
	}
	return out
}

// messageVault is a small vault in a temp folder.
func messageVault(t *testing.T) string {
	t.Helper()
	return namedVault(t, "vault")
}

// namedVault is messageVault in a folder of the given name, which is the
// vault's name.
func namedVault(t *testing.T, name string) string {
	t.Helper()
	v := filepath.Join(t.TempDir(), name)
	sharedtest.WriteFile(t, v, "Coffee.md", "# Coffee\nGrind the beans coarse for a French press. See [[Tea]].\n")
	sharedtest.WriteFile(t, v, "Tea.md", "# Tea\nSteep green tea for two minutes.\n")
	sharedtest.WriteFile(t, v, "Work/Plan.md", "# Plan\nThe coffee budget for the team.\n")
	return v
}

func mustIndex(t *testing.T, vars map[string]string, args ...string) {
	t.Helper()
	if r := readCLI(t, vars, append([]string{"index"}, args...)...); r.code != 0 {
		t.Fatalf("index: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
}

func TestMessagesOnADamagedDatabase(t *testing.T) {
	vault := messageVault(t)
	db := filepath.Join(t.TempDir(), "j.db")
	flags := []string{"--vault", vault, "--db", db}
	mustIndex(t, nil, flags...)
	checkpoint(t, db)
	for p := 2; p <= sharedtest.Pages(t, db); p++ {
		sharedtest.DamagePage(t, db, p, uint64(p))
	}

	ix := readCLI(t, nil, append([]string{"index"}, flags...)...)
	if ix.code != 1 {
		t.Fatalf("index on a damaged database exits %d, want 1:\n%s%s", ix.code, ix.stdout, ix.stderr)
	}
	s := readCLI(t, nil, append([]string{"search"}, append(flags, "coffee")...)...)
	if s.code != 0 || !strings.Contains(s.stdout, "Coffee.md") {
		t.Errorf("search on a damaged database does not answer from the note files (exit %d):\n%s%s", s.code, s.stdout, s.stderr)
	}
	// A where filter is read from the index: the way to an answer is the
	// search without it.
	w := readCLI(t, nil, append([]string{"search", "--where", `file.hasTag("x")`}, append(flags, "coffee")...)...)
	if w.code != 1 || !strings.Contains(w.stderr, "search without --where") || !strings.Contains(w.stderr, "the database is damaged") {
		t.Errorf("search --where on a damaged database (exit %d):\n%s%s", w.code, w.stdout, w.stderr)
	}

	cs, _ := serve(t, []string{"HOME=" + t.TempDir()}, flags...)
	for _, tool := range []string{"search-vault", "search-semantic", "search-combined"} {
		res, out := readTool(t, cs, tool, map[string]any{"query": "coffee"})
		if res.IsError || !strings.Contains(mustJSON(out), "Coffee.md") {
			t.Errorf("%s on a damaged database does not answer from the note files: %s", tool, mustJSON(out))
		}
		if strings.Contains(mustJSON(out), "no vectors yet") {
			t.Errorf("%s on a damaged database says the vectors were never made: %s", tool, mustJSON(out))
		}
		res, _ = readTool(t, cs, tool, map[string]any{"query": "coffee", "where": `file.hasTag("x")`})
		if text := toolText(res); !res.IsError || !strings.Contains(text, "search without the where argument") {
			t.Errorf("%s with where on a damaged database: %s", tool, text)
		}
	}
	hres, _ := readTool(t, cs, "health-status", nil)
	if text := toolText(hres); strings.Contains(text, "health-status says") {
		t.Errorf("health-status sends the reader to itself:\n%s", text)
	}
	lres, _ := readTool(t, cs, "list-vaults", nil)
	if text := toolText(lres); strings.Contains(text, "Making vectors") && !strings.Contains(text, "the database is damaged") {
		t.Errorf("list-vaults blames making vectors without the database's damage:\n%s", text)
	}
	cs.Close()
	readCLI(t, nil, append([]string{"doctor"}, flags...)...)

	if len(runSuggestions(t, nil, ix)) == 0 {
		t.Fatalf("index on a damaged database suggests no command:\n%s", ix.stderr)
	}
	if again := readCLI(t, nil, append([]string{"index"}, flags...)...); again.code != 0 {
		t.Errorf("index after the suggested fix exits %d:\n%s", again.code, again.stderr)
	}
}

// TestMessagesOnADatabaseDamagedInItsText: with only the pages of the
// full-text index damaged, the counts list-vaults reads are fine but no
// note's text can be searched: once a search has fallen back to the note
// files, list-vaults says the index is unavailable rather than ready.
func TestMessagesOnADatabaseDamagedInItsText(t *testing.T) {
	vault := messageVault(t)
	db := filepath.Join(t.TempDir(), "j.db")
	flags := []string{"--vault", vault, "--db", db, "--embedder", "lexical"}
	mustIndex(t, nil, flags...)
	checkpoint(t, db)
	for _, p := range sharedtest.TablePages(t, db, "note_fts") {
		sharedtest.DamagePage(t, db, p, uint64(p))
	}
	cs, _ := serve(t, []string{"HOME=" + t.TempDir()}, flags...)
	state := func() string {
		_, out := readTool(t, cs, "list-vaults", nil)
		vs, _ := out["vaults"].([]any)
		if len(vs) != 1 {
			t.Fatalf("list-vaults: %s", mustJSON(out))
		}
		s, _ := vs[0].(map[string]any)["index_state"].(string)
		return s
	}
	_, out := readTool(t, cs, "search-vault", map[string]any{"query": "coffee"})
	if !strings.Contains(mustJSON(out), "Coffee.md") || !strings.Contains(mustJSON(out), "damaged") {
		t.Fatalf("search-vault on damaged full-text pages does not answer from the files saying why: %s", mustJSON(out))
	}
	if got := state(); !strings.HasPrefix(got, "unavailable (the database is damaged") {
		t.Errorf("list-vaults after a search fell back to the files says %q", got)
	}
}

func TestMessagesBeforeAnythingIsIndexed(t *testing.T) {
	vault := messageVault(t)
	db := filepath.Join(t.TempDir(), "j.db")
	flags := []string{"--vault", vault, "--db", db}

	s := readCLI(t, nil, append([]string{"search", "--no-refresh"}, append(flags, "coffee")...)...)
	if _, err := os.Stat(db); err == nil {
		t.Errorf("search --no-refresh created the database %s", db)
	}
	if !strings.Contains(s.stdout+s.stderr, "jarvis index") {
		t.Errorf("search --no-refresh before any index does not say how to build it:\n%s%s", s.stdout, s.stderr)
	}
	runSuggestions(t, nil, s)
	if after := readCLI(t, nil, append([]string{"search", "--no-refresh"}, append(flags, "coffee")...)...); !strings.Contains(after.stdout, "Coffee.md") {
		t.Errorf("search --no-refresh after the suggested index finds nothing:\n%s%s", after.stdout, after.stderr)
	}
}

func TestMessagesForAVaultFolderThatIsGone(t *testing.T) {
	vault := messageVault(t)
	other := namedVault(t, "other")
	db := filepath.Join(t.TempDir(), "j.db")
	mustIndex(t, nil, "--vault", vault, "--vault", other, "--db", db)
	gone := vault + "-moved"
	if err := os.Rename(vault, gone); err != nil {
		t.Fatal(err)
	}
	flags := []string{"--vault", vault, "--vault", other, "--db", db}
	s := readCLI(t, nil, append([]string{"search"}, append(flags, "coffee")...)...)
	if !strings.Contains(s.stdout+s.stderr, vault) {
		t.Errorf("search with a vault folder gone does not name it:\n%s%s", s.stdout, s.stderr)
	}

	cs, _ := serve(t, []string{"HOME=" + t.TempDir()}, flags...)
	for _, tool := range []string{"search-vault", "search-semantic", "search-combined"} {
		_, out := readTool(t, cs, tool, map[string]any{"query": "coffee", "vault": "vault"})
		if !strings.Contains(mustJSON(out), "does not exist") && !strings.Contains(mustJSON(out), "missing") {
			t.Errorf("%s in a vault whose folder is gone does not say so: %s", tool, mustJSON(out))
		}
	}
}

func TestMessagesForAFilterThatNamesNothing(t *testing.T) {
	vault := messageVault(t)
	db := filepath.Join(t.TempDir(), "j.db")
	flags := []string{"--vault", vault, "--db", db}
	mustIndex(t, nil, flags...)
	s := readCLI(t, nil, append([]string{"search", "--path-prefix", "Nope/"}, append(flags, "coffee")...)...)
	if strings.Contains(s.stdout, "list-vaults") {
		t.Errorf("the terminal is told of the MCP tool list-vaults:\n%s", s.stdout)
	}
	f := readCLI(t, nil, "index", "--db", db, "--forget", "nope")
	if f.code == 0 {
		t.Errorf("--forget of a vault the database does not hold succeeds:\n%s", f.stderr)
	}

	cs, _ := serve(t, []string{"HOME=" + t.TempDir()}, flags...)
	readTool(t, cs, "search-vault", map[string]any{"query": "coffee", "path_prefix": "Nope/"})
	readTool(t, cs, "search-vault", map[string]any{"query": ""})
	readTool(t, cs, "read-note", map[string]any{"path": "Nope.md"})
	readTool(t, cs, "search-graph", map[string]any{"query_note_path": "Nope.md"})
	readTool(t, cs, "related-notes", map[string]any{"path": "Nope.md"})
	readTool(t, cs, "build-context", map[string]any{"query": "coffee", "vault": "nope"})
}

func TestMessagesForNestedVaults(t *testing.T) {
	vault := messageVault(t)
	db := filepath.Join(t.TempDir(), "j.db")
	r := readCLI(t, nil, "index", "--vault", vault, "--vault", filepath.Join(vault, "Work"), "--db", db)
	if r.code == 0 {
		t.Fatalf("index of a vault and its own subfolder succeeds:\n%s%s", r.stdout, r.stderr)
	}
	for _, want := range []string{vault, filepath.Join(vault, "Work")} {
		if !strings.Contains(r.stderr, want) {
			t.Errorf("the refusal does not name %s:\n%s", want, r.stderr)
		}
	}
}

func TestMessagesForAVaultNoLongerConfigured(t *testing.T) {
	vault := messageVault(t)
	db := filepath.Join(t.TempDir(), "j.db")
	mustIndex(t, nil, "--vault", vault, "--db", db)
	home := t.TempDir()
	vars := map[string]string{"JARVIS_DB": db, "HOME": home}
	d := readCLI(t, vars, "doctor")
	cmds := runSuggestions(t, vars, d)
	forgot := false
	for _, c := range cmds {
		forgot = forgot || (c[0] == "index" && strings.Contains(strings.Join(c, " "), "--forget"))
	}
	if !forgot {
		t.Errorf("doctor with the database holding an unconfigured vault suggests no --forget:\n%s", d.stdout)
	}
}

func mustJSON(v any) string {
	data, err := json.Marshal(v)
	if err != nil {
		return err.Error()
	}
	return string(data)
}

// toolText is the text of a tool's answer.
func toolText(res *mcpsdk.CallToolResult) string {
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*mcpsdk.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}

// TestMessagesForAVaultIndexedFromAnotherFolder: a search whose vault the
// database holds under another folder stops as a usage error (status 2,
// as index does) with a --forget command that works when pasted: it
// repeats the --db given, so it acts on this database.
func TestMessagesForAVaultIndexedFromAnotherFolder(t *testing.T) {
	first := namedVault(t, "vault")
	moved := namedVault(t, "vault")
	db := filepath.Join(t.TempDir(), "j.db")
	mustIndex(t, nil, "--vault", first, "--db", db)
	var search messageRun
	for _, cmd := range [][]string{{"search", "coffee"}, {"related", "Coffee.md"}, {"index"}} {
		r := readCLI(t, nil, append(cmd, "--vault", moved, "--db", db)...)
		if r.code != 2 || !strings.Contains(r.stderr, "--db "+db+" --no-embed --forget vault") || strings.Contains(r.stderr, "[]") {
			t.Errorf("%s with the vault moved (exit %d):\n%s", cmd[0], r.code, r.stderr)
		}
		if cmd[0] == "search" {
			search = r
		}
	}
	runSuggestions(t, nil, search)
	if r := readCLI(t, nil, "search", "coffee", "--vault", moved, "--db", db); r.code != 0 || !strings.Contains(r.stdout, "Coffee.md") {
		t.Errorf("search after the suggested --forget (exit %d):\n%s%s", r.code, r.stdout, r.stderr)
	}
}

// TestMistypedCommandIsNamed: a command name a letter or two off is named
// as the one meant; one near nothing gets the list.
func TestMistypedCommandIsNamed(t *testing.T) {
	if r := readCLI(t, nil, "serch", "coffee"); r.code != 2 || !strings.Contains(r.stderr, "did you mean `jarvis search`?") {
		t.Errorf("serch (exit %d): %s", r.code, r.stderr)
	}
	if r := readCLI(t, nil, "xyzzy"); r.code != 2 || strings.Contains(r.stderr, "did you mean") {
		t.Errorf("xyzzy (exit %d): %s", r.code, r.stderr)
	}
}

// TestForgetOnNoDatabaseMakesNone: --forget with no database at the path
// says so and makes no database file.
func TestForgetOnNoDatabaseMakesNone(t *testing.T) {
	db := filepath.Join(t.TempDir(), "none.db")
	r := readCLI(t, nil, "index", "--db", db, "--forget", "vault")
	if r.code != 2 || !strings.Contains(r.stderr, "no database at") {
		t.Errorf("exit %d: %s", r.code, r.stderr)
	}
	if _, err := os.Stat(db); err == nil {
		t.Errorf("--forget made %s", db)
	}
}

// TestMessagesOnADamagedDatabaseGivenAlone: with only --db (no vault
// configured), the --rebuild that doctor and index --forget suggest for a
// damaged database runs as pasted, indexing again the vaults the
// database holds, and leaves a database that holds every note.
func TestMessagesOnADamagedDatabaseGivenAlone(t *testing.T) {
	vault := messageVault(t)
	db := filepath.Join(t.TempDir(), "j.db")
	mustIndex(t, nil, "--vault", vault, "--db", db)
	notes := countNotes(t, db)
	checkpoint(t, db)
	// The pages of the passages (chunks): the schema and the list of vaults,
	// which the rebuild reads, stay readable.
	pages := sharedtest.TablePages(t, db, "chunks")
	if len(pages) == 0 {
		t.Fatal("no pages of the chunks table")
	}
	for _, p := range pages {
		sharedtest.DamagePage(t, db, p, uint64(p))
	}
	doc := readCLI(t, nil, "doctor", "--db", db)
	forget := readCLI(t, nil, "index", "--db", db, "--forget", "vault")
	for _, r := range []messageRun{doc, forget} {
		// Only the rebuilds: doctor also offers to drop each vault the
		// database holds, none being configured (TestForgetAsDoctorPrintsWithNoVault).
		var ran [][]string
		for _, args := range sharedtest.SuggestedCommands(r.stderr + "\n" + r.stdout) {
			if slices.Contains(args, "--rebuild") {
				ran = append(ran, args)
				if fix := readCLI(t, nil, args...); fix.code != 0 {
					t.Errorf("jarvis %s, suggested by jarvis %s, exits %d:\n%s%s", strings.Join(args, " "), strings.Join(r.args, " "), fix.code, fix.stdout, fix.stderr)
				}
			}
		}
		if len(ran) == 0 {
			t.Fatalf("jarvis %s suggests no --rebuild for a damaged database:\n%s%s", strings.Join(r.args, " "), r.stdout, r.stderr)
		}
		if got := countNotes(t, db); got != notes {
			t.Fatalf("after %v, suggested by jarvis %s, the database holds %d notes; the vault has %d", ran, strings.Join(r.args, " "), got, notes)
		}
	}
}

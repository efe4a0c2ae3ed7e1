package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/jarvis-mcp/jarvis/internal/search"
	"github.com/jarvis-mcp/jarvis/internal/search/notes"
	"github.com/jarvis-mcp/jarvis/internal/sharedtest"
)

// searchJSON runs jarvis search with --json and decodes its answer.
func searchJSON(t *testing.T, args ...string) searchOutput {
	t.Helper()
	code, stdout, stderr := jarvis(t, nil, append([]string{"search", "--json"}, args...)...)
	if code != 0 {
		t.Fatalf("jarvis search %v: exit %d: %s", args, code, stderr)
	}
	var out searchOutput
	if err := json.Unmarshal([]byte(stdout), &out); err != nil {
		t.Fatalf("stdout is not the search JSON: %v\n%s", err, stdout)
	}
	return out
}

func topPaths(out searchOutput, n int) []string {
	var ps []string
	for _, r := range out.Results[:min(n, len(out.Results))] {
		ps = append(ps, r.Path)
	}
	return ps
}

// TestSearchCommand runs jarvis search as the README shows it, on the
// example vault and on the Obsidian Help vault, in every mode.
func TestSearchCommand(t *testing.T) {
	example, _ := filepath.Abs("../../examples/vault")
	help := sharedtest.Path(t, "vaults/obsidian-help/en")
	for _, c := range []struct {
		vault, query, want string
	}{
		{example, "how fine to grind for pour over", "Methods/Pour over.md"},
		{help, "link to a heading in another note", "Linking notes and files/Internal links.md"},
	} {
		db := filepath.Join(t.TempDir(), "j.db")
		for _, mode := range []search.Mode{search.ModeKeyword, search.ModeSemantic, search.ModeCombined} {
			out := searchJSON(t, "--vault", c.vault, "--db", db, "--mode", string(mode), c.query)
			if out.Mode != mode || out.Degraded != "" || !slices.Contains(topPaths(out, 3), c.want) {
				t.Errorf("%s search %q: mode %q, degraded %q, top 3 %v; want %s among them",
					mode, c.query, out.Mode, out.Degraded, topPaths(out, 3), c.want)
			}
			if (mode == search.ModeKeyword) != (out.Embedder == "") {
				t.Errorf("%s search names embedder %q", mode, out.Embedder)
			}
		}
	}
}

// TestSearchNamesOnly matches names by keyword whatever the default mode,
// and refuses a mode that cannot match names.
func TestSearchNamesOnly(t *testing.T) {
	example, _ := filepath.Abs("../../examples/vault")
	db := filepath.Join(t.TempDir(), "j.db")
	out := searchJSON(t, "--vault", example, "--db", db, "--names-only", "french press")
	if out.Mode != search.ModeKeyword || len(out.Results) != 1 || out.Results[0].Path != "Methods/French press.md" {
		t.Fatalf("names-only search: mode %q, results %v", out.Mode, topPaths(out, 10))
	}
	if code, _, stderr := jarvis(t, nil, "search", "--vault", example, "--db", db, "--names-only", "--mode", "semantic", "french press"); code != 2 {
		t.Fatalf("--names-only with --mode semantic: exit %d (%s); want 2", code, stderr)
	}
}

// TestSearchOnlyConfiguredVaults indexes a vault into a database, then
// searches two others configured together: nothing of the first may come
// back, though no single vault narrows the search.
func TestSearchOnlyConfiguredVaults(t *testing.T) {
	example, _ := filepath.Abs("../../examples/vault")
	other := t.TempDir()
	if err := os.WriteFile(filepath.Join(other, "Grind elsewhere.md"), []byte("How fine to grind for pour over, kept in another vault.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	third := t.TempDir()
	sharedtest.WriteFile(t, third, "Tea.md", "# Tea\n\nSteep green tea at 80 degrees.\n")
	db := filepath.Join(t.TempDir(), "j.db")
	if code, _, stderr := jarvis(t, nil, "index", "--vault", other, "--db", db); code != 0 {
		t.Fatalf("index the other vault: exit %d: %s", code, stderr)
	}
	for _, mode := range []search.Mode{search.ModeKeyword, search.ModeSemantic, search.ModeCombined} {
		out := searchJSON(t, "--vault", example, "--vault", third, "--db", db, "--mode", string(mode), "how fine to grind for pour over")
		if len(out.Results) == 0 {
			t.Fatalf("%s search found nothing in the configured vaults", mode)
		}
		for _, r := range out.Results {
			if r.Path == "Grind elsewhere.md" {
				t.Errorf("%s search found %s of vault %q, which is not configured", mode, r.Path, r.Vault)
			}
		}
	}
}

// TestSearchNothingMatches prints a sentence saying so, in every mode,
// for words no note holds, and exits 0: the search ran.
func TestSearchNothingMatches(t *testing.T) {
	example, _ := filepath.Abs("../../examples/vault")
	db := filepath.Join(t.TempDir(), "j.db")
	for _, mode := range []search.Mode{search.ModeKeyword, search.ModeSemantic, search.ModeCombined} {
		code, stdout, stderr := jarvis(t, nil, "search", "--vault", example, "--db", db, "--mode", string(mode), "florbizzle quantamax")
		if code != 0 || !strings.Contains(stdout, "Nothing in the notes matches") {
			t.Errorf("%s search for invented words: exit %d\n%s%s", mode, code, stdout, stderr)
		}
		out := searchJSON(t, "--vault", example, "--db", db, "--mode", string(mode), "🦄")
		if len(out.Results) != 0 || out.Empty == "" {
			t.Errorf("%s search for an emoji in no note: %v, empty %q", mode, topPaths(out, 10), out.Empty)
		}
	}
}

// TestSearchAlternatives: --alt searches other words with the query and
// says what each added, as the tools' alternatives do; more than the
// tools take is refused as a usage error.
func TestSearchAlternatives(t *testing.T) {
	vault := t.TempDir()
	sharedtest.WriteFile(t, vault, "Coffee.md", "# Coffee\nGrind the beans coarse for a French press.\n")
	sharedtest.WriteFile(t, vault, "Tea.md", "# Tea\nSteep green leaves for two minutes.\n")
	db := filepath.Join(t.TempDir(), "j.db")
	flags := []string{"--vault", vault, "--db", db, "--mode", "keyword"}

	out := searchJSON(t, append(flags, "--alt", "green leaves", "--alt", "beans", "infusion")...)
	if got := topPaths(out, 5); !slices.Contains(got, "Tea.md") || len(out.Alternatives) != 2 ||
		out.Alternatives[0] != (search.AlternativeHits{Text: "green leaves", Found: 1, Added: 1}) {
		t.Fatalf("results %v, alternatives %+v", got, out.Alternatives)
	}
	code, stdout, _ := jarvis(t, nil, append(append([]string{"search"}, flags...), "--alt", "green leaves", "infusion")...)
	if code != 0 || !strings.Contains(stdout, `--alt "green leaves" found 1 of these notes, 1 of them missed by the query alone`) {
		t.Errorf("exit %d:\n%s", code, stdout)
	}
	args := append([]string{"search"}, flags...)
	for i := range search.MaxAlternatives + 1 {
		args = append(args, "--alt", fmt.Sprintf("word%d", i))
	}
	if code, _, stderr := jarvis(t, nil, append(args, "infusion")...); code != 2 || !strings.Contains(stderr, "--alt") {
		t.Errorf("%d alternatives: exit %d: %s", search.MaxAlternatives+1, code, stderr)
	}
}

// TestSearchWithoutVaultNamesTheStored: a search given a database but no
// vault searches nothing, exits 2, and names the vault the database holds
// with the command, repeating the search's own flags, that searches it.
func TestSearchWithoutVaultNamesTheStored(t *testing.T) {
	vault := messageVault(t)
	db := filepath.Join(t.TempDir(), "j.db")
	mustIndex(t, nil, "--vault", vault, "--db", db)
	r := readCLI(t, nil, "search", "--db", db, "--mode", "keyword", "coffee")
	want := fmt.Sprintf("holds the vault %q (%s)", filepath.Base(vault), vault)
	if r.code != 2 || !strings.Contains(r.stderr, want) || !strings.Contains(r.stderr, "--mode keyword coffee`") {
		t.Fatalf("exit %d, want 2 and a stderr naming %s and the command:\n%s%s", r.code, want, r.stdout, r.stderr)
	}
	if cmds := runSuggestions(t, nil, r); len(cmds) != 1 {
		t.Errorf("suggested %q, want one command", cmds)
	}
}

// TestSearchRefusesATagNoNoteCanCarry: --tag "#" (or a tag with a space)
// would keep every note or none; it is refused as a usage error, before
// any index is made, in the words search-vault uses (notes.TagProblem).
func TestSearchRefusesATagNoNoteCanCarry(t *testing.T) {
	example, _ := filepath.Abs("../../examples/vault")
	db := filepath.Join(t.TempDir(), "j.db")
	for tag, want := range map[string]string{"#": `--tag "#" is only "#"`, "my tag": `--tag "my tag" holds a space`} {
		code, _, stderr := jarvis(t, nil, "search", "--vault", example, "--db", db, "--tag", tag, "coffee")
		if code != 2 || !strings.Contains(stderr, want) {
			t.Errorf("--tag %q: exit %d: %s; want 2 and %q", tag, code, stderr, want)
		}
	}
	if _, err := os.Stat(db); err == nil {
		t.Error("a refused search made a database")
	}
}

// TestPrintResultsShowsTitles: a result whose title is not its file name
// shows the title beside the path, as search-vault does.
func TestPrintResultsShowsTitles(t *testing.T) {
	var b strings.Builder
	printResults(&b, searchOutput{Results: []notes.Result{
		{Vault: "v", Path: "202402021200.md", Title: "Café crème", Score: 0.9, Line: 4},
		{Vault: "v", Path: "Tea.md", Title: "Tea", Score: 0.5, Line: 1},
	}}, false, false)
	for _, want := range []string{" 1. 202402021200.md — Café crème  (", " 2. Tea.md  ("} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("the output lacks %q:\n%s", want, b.String())
		}
	}
}

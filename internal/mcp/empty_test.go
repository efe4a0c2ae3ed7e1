package mcp_test

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	mcpsdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/jarvis-mcp/jarvis/internal/config"
	"github.com/jarvis-mcp/jarvis/internal/container"
	"github.com/jarvis-mcp/jarvis/internal/health"
	"github.com/jarvis-mcp/jarvis/internal/index"
	"github.com/jarvis-mcp/jarvis/internal/mcp"
	"github.com/jarvis-mcp/jarvis/internal/search"
	"github.com/jarvis-mcp/jarvis/internal/search/vectors"
	"github.com/jarvis-mcp/jarvis/internal/sharedtest"
)

// An answer that finds nothing says why when the reason is not the query;
// these tests give the server each such reason.

// indexState is the real server of deps with the state of the background
// index given, so that a test can hold it at a point of a run.
type indexState struct {
	deps container.MCPDeps
	st   index.State
}

func (b indexState) server(opts mcp.Options) *mcpsdk.Server {
	opts.Vaults, opts.Metrics = b.deps.Cfg.Vaults, b.deps.Metrics
	opts.State = stateFunc(func() index.State { return b.st })
	return mcp.New(b.deps.Tools, b.deps.Resources, opts)
}

// TestEveryToolSaysTheFirstIndexIsRunning: while the first index of a vault
// is being built, every tool that can come back with nothing says so with
// its progress and to ask again, in every search mode, rather than that
// the vaults may not cover the topic; the tools that report the state
// give its progress. A tool added later must be given a call here.
func TestEveryToolSaysTheFirstIndexIsRunning(t *testing.T) {
	v := exampleVault(t)
	deps := startServer(t, config.Config{DBPath: filepath.Join(t.TempDir(), "j.db"), Vaults: []config.Vault{v},
		Embedder: config.Embedder{Provider: config.ProviderLexical}})
	cs := connect(t, indexState{deps, index.State{State: index.StateIndexing, Vault: v.Name, Done: index.Counts{Notes: 3}, Total: index.Counts{Notes: 12}}})
	const note = "Methods/Pour over.md"
	// Each tool's calls, and whether it answers (true) or only reports
	// the state (false).
	calls := map[string]struct {
		args    []map[string]any
		answers bool
	}{
		mcp.ToolSearchVault: {[]map[string]any{
			{"query": "pour over"}, {"query": "pour over", "search_content": false}}, true},
		mcp.ToolSearchSemantic: {[]map[string]any{{"query": "pour over"}}, true},
		mcp.ToolSearchCombined: {[]map[string]any{{"query": "pour over"}, {"query": "pour over", "vault": v.Name, "path_prefix": "Methods/"}}, true},
		mcp.ToolBuildContext:   {[]map[string]any{{"query": "pour over"}}, true},
		mcp.ToolSearchGraph:    {[]map[string]any{{"query_note_path": note}, {"query_note_path": "a title no file has"}}, true},
		mcp.ToolRelatedNotes:   {[]map[string]any{{"path": note}}, true},
		mcp.ToolReadNote:       {[]map[string]any{{"path": note}, {"path": "an alias the index would know"}}, true},
		mcp.ToolPeriodicNote:   {[]map[string]any{{}, {"period": "weekly", "date": "-1"}}, true},
		mcp.ToolQueryNotes:     {[]map[string]any{{"filter": `file.ext == "md"`}, {"base": "a.base"}}, true},
		mcp.ToolListVaults:     {[]map[string]any{{}}, false},
		mcp.ToolHealthStatus:   {[]map[string]any{{}}, false},
	}
	// The tools that read only files neither wait for the index nor speak
	// of it.
	fromFiles := map[string]bool{mcp.ToolPeriodicNote: true}
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tool := range res.Tools {
		c, ok := calls[tool.Name]
		if !ok {
			t.Errorf("%s: no call for it here; say how it answers while the first index is being built", tool.Name)
			continue
		}
		for _, args := range c.args {
			text, _ := call(t, cs, tool.Name, args, nil)
			if fromFiles[tool.Name] {
				if strings.Contains(text, "index") {
					t.Errorf("%s %v: an answer from the files speaks of the index:\n%s", tool.Name, args, text)
				}
				continue
			}
			if !strings.Contains(text, "3 of 12 notes") {
				t.Errorf("%s %v: the answer does not say how far the index has got:\n%s", tool.Name, args, text)
			}
			if c.answers && (!strings.Contains(text, "ask again") || strings.Contains(text, "may not cover")) {
				t.Errorf("%s %v: the answer does not say to ask again, or blames the query:\n%s", tool.Name, args, text)
			}
		}
	}
}

// TestMissingVaultFolderOverMCP: a served vault whose folder is missing
// keeps neither the other vault from being indexed nor its results from
// coming; answers name the missing vault, its path and what to do.
func TestMissingVaultFolderOverMCP(t *testing.T) {
	coffee := exampleVault(t)
	gone := config.Vault{Name: "gone", Path: filepath.Join(t.TempDir(), "gone")}
	deps := startServer(t, config.Config{DBPath: filepath.Join(t.TempDir(), "j.db"), Vaults: []config.Vault{gone, coffee},
		Embedder: config.Embedder{Provider: config.ProviderLexical}})
	if err := deps.Live.All(context.Background()); err == nil {
		t.Fatal("a pass over a vault whose folder is missing reported no error")
	}
	cs := connect(t, real{deps})
	want := `folder of vault "gone" (` + gone.Path + `) does not exist`

	// The failure is the missing vault's: list-vaults says so of it, and
	// why, and not of the vault indexed whole.
	var list mcp.ListVaultsOutput
	text, _ := call(t, cs, mcp.ToolListVaults, nil, &list)
	for _, v := range list.Vaults {
		if v.Name == coffee.Name && v.IndexState != index.StateReady {
			t.Errorf("list-vaults says the healthy vault is %q:\n%s", v.IndexState, text)
		}
	}
	if !strings.Contains(text, `could not index vault "gone" (its folder does not exist)`) {
		t.Errorf("list-vaults does not say which vault failed and why:\n%s", text)
	}
	// A note found in no vault that can be read is said to be missing
	// there; the missing vault is only a possibility, and one instruction
	// is given.
	text, _ = call(t, cs, mcp.ToolReadNote, map[string]any{"path": "Methods/Pour ovr.md"}, nil)
	if !strings.Contains(text, "in the vaults that can be read; it may be in one that cannot") || strings.Count(text, "pass ") != 1 ||
		!strings.Contains(text, "Methods/Pour over.md") {
		t.Errorf("read-note of a misspelt path beside a missing vault:\n%s", text)
	}
	for _, v := range list.Vaults {
		if v.Name == gone.Name && !strings.HasSuffix(v.IndexState, "its folder does not exist") {
			t.Errorf("list-vaults says the missing vault is %q; want its folder named missing", v.IndexState)
		}
	}

	var out mcp.SearchOutput
	text, isErr := call(t, cs, mcp.ToolSearchVault, map[string]any{"query": "pour over"}, &out)
	if isErr || len(out.Results) == 0 || out.Results[0].Vault != coffee.Name {
		t.Errorf("the other vault's results do not come:\n%s", text)
	}
	if !slices.ContainsFunc(out.Notes, func(n string) bool {
		return strings.Contains(n, want) && strings.Contains(n, "correct the vault's path")
	}) {
		t.Errorf("notes %q; want one saying %q and what to do", out.Notes, want)
	}

	out = mcp.SearchOutput{}
	text, _ = call(t, cs, mcp.ToolSearchCombined, map[string]any{"query": "pour over", "vault": "gone"}, &out)
	if len(out.Results) != 0 || !strings.Contains(out.Empty, want) || strings.Contains(text, "may not cover") {
		t.Errorf("the missing vault alone: empty %q\n%s", out.Empty, text)
	}
	var pack mcp.BuildContextOutput
	call(t, cs, mcp.ToolBuildContext, map[string]any{"query": "pour over", "vault": "gone"}, &pack)
	if !strings.Contains(pack.Empty, want) {
		t.Errorf("build-context of the missing vault: empty %q", pack.Empty)
	}
	for _, tc := range []struct {
		tool string
		args map[string]any
	}{
		{mcp.ToolReadNote, map[string]any{"vault": "gone", "path": "Plans.md"}},
		{mcp.ToolSearchGraph, map[string]any{"vault": "gone", "query_note_path": "Plans.md"}},
		{mcp.ToolRelatedNotes, map[string]any{"vault": "gone", "path": "Plans.md"}},
	} {
		if text, isErr := call(t, cs, tc.tool, tc.args, nil); !isErr || !strings.Contains(text, want) {
			t.Errorf("%s of a note in the missing vault: error %v:\n%s", tc.tool, isErr, text)
		}
	}
}

// TestNothingIndexedOverMCP: before the server's first pass has begun,
// and after an index run that failed before the vault was indexed, an
// empty search says so rather than that nothing matches.
func TestNothingIndexedOverMCP(t *testing.T) {
	v := exampleVault(t)
	deps := startServer(t, config.Config{DBPath: filepath.Join(t.TempDir(), "j.db"), Vaults: []config.Vault{v},
		Embedder: config.Embedder{Provider: config.ProviderLexical}})
	for _, tc := range []struct {
		name string
		b    backend
		want string
	}{
		{"before the first pass", real{deps}, `The index of vault "coffee" is about to be built`},
		{"after a failed run", indexState{deps, index.State{State: index.StateFailed, Error: "disk full"}},
			`Vault "coffee" is not indexed: the last index run failed before it was done (health-status says why`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cs := connect(t, tc.b)
			for _, tool := range []string{mcp.ToolSearchVault, mcp.ToolSearchSemantic, mcp.ToolSearchCombined} {
				var out mcp.SearchOutput
				text, _ := call(t, cs, tool, map[string]any{"query": "pour over"}, &out)
				if len(out.Results) != 0 || !strings.Contains(out.Empty, tc.want) {
					t.Errorf("%s: empty %q; want %q\n%s", tool, out.Empty, tc.want, text)
				}
			}
		})
	}
}

// TestIndexedVaultFolderRemovedOverMCP: a vault indexed whole whose
// folder then goes is answered from the index, and the answer says so:
// not that its notes cannot be searched, nor that the server must start
// again to see it back; list-vaults names the missing folder.
func TestIndexedVaultFolderRemovedOverMCP(t *testing.T) {
	fv := exampleVault(t)
	deps := startServer(t, config.Config{DBPath: filepath.Join(t.TempDir(), "j.db"), Vaults: []config.Vault{fv},
		Embedder: config.Embedder{Provider: config.ProviderLexical}})
	if err := deps.Live.All(context.Background()); err != nil {
		t.Fatal(err)
	}
	if err := os.RemoveAll(fv.Path); err != nil {
		t.Fatal(err)
	}
	cs := connect(t, real{deps})
	var out mcp.SearchOutput
	text, _ := call(t, cs, mcp.ToolSearchVault, map[string]any{"query": "pour over"}, &out)
	if len(out.Results) == 0 || !strings.Contains(text, "answered as they were last indexed") ||
		strings.Contains(text, "cannot be searched") || strings.Contains(text, "starts again") {
		t.Errorf("search of the vault whose folder went:\n%s", text)
	}
	var list mcp.ListVaultsOutput
	text, _ = call(t, cs, mcp.ToolListVaults, nil, &list)
	if !strings.Contains(list.Vaults[0].IndexState, "its folder does not exist") {
		t.Errorf("list-vaults:\n%s", text)
	}
}

// TestHealthStatusWhileIndexingAsksForNoIndexRun: while the server builds
// the first index, health-status's checks of that index (freshness,
// vectors) say the server is doing it, with its progress, instead of
// asking the reader to run jarvis index beside it.
func TestHealthStatusWhileIndexingAsksForNoIndexRun(t *testing.T) {
	v := exampleVault(t)
	deps := startServer(t, config.Config{DBPath: filepath.Join(t.TempDir(), "j.db"), Vaults: []config.Vault{v},
		Embedder: config.Embedder{Provider: config.ProviderLexical}})
	for _, tc := range []struct {
		st   index.State
		want string
	}{
		{index.State{State: index.StateIndexing, Vault: v.Name, Phase: index.PhaseWrite, Done: index.Counts{Notes: 3}, Total: index.Counts{Notes: 12}}, `this server is indexing the vaults now (vault "` + v.Name + `": 3 of 12 notes indexed)`},
		{index.State{State: index.StateReady, Embedding: index.Embedding{State: index.EmbedRunning, Done: 5, Total: 40}}, "this server is making vectors for semantic search now (5 of 40 passages done)"},
	} {
		var out mcp.HealthOutput
		cs := connect(t, indexState{deps, tc.st})
		// The server's checks run in the background and answer "not
		// checked yet" until their first results (slow under the race
		// detector): ask until they have them.
		for try := 0; ; try++ {
			call(t, cs, mcp.ToolHealthStatus, nil, &out)
			if !slices.ContainsFunc(out.Checks, func(c health.Result) bool { return strings.HasPrefix(c.Detail, "not checked yet") }) || try == 100 {
				break
			}
			time.Sleep(100 * time.Millisecond)
		}
		reworded := 0
		for _, c := range out.Checks {
			if strings.Contains(c.Fix, "`jarvis index") {
				t.Errorf("state %+v: check %q still asks for an index run: %q", tc.st, c.Name, c.Fix)
			}
			if strings.Contains(c.Fix, tc.want) {
				reworded++
			}
		}
		if reworded == 0 {
			t.Errorf("state %+v: no check says %q: %+v", tc.st, tc.want, out.Checks)
		}
	}
}

// TestTheRunUnderWayIsSaidOnce: while the first index is built, an answer
// that says so in its own words does not say it again in the line every
// answer carries.
func TestTheRunUnderWayIsSaidOnce(t *testing.T) {
	v := exampleVault(t)
	deps := startServer(t, config.Config{DBPath: filepath.Join(t.TempDir(), "j.db"), Vaults: []config.Vault{v},
		Embedder: config.Embedder{Provider: config.ProviderLexical}})
	st := index.State{State: index.StateIndexing, Vault: v.Name, Phase: index.PhaseWrite, Done: index.Counts{Notes: 3}, Total: index.Counts{Notes: 12}}
	cs := connect(t, indexState{deps, st})
	for _, tool := range []string{mcp.ToolSearchVault, mcp.ToolBuildContext} {
		text, _ := call(t, cs, tool, map[string]any{"query": "pour over"}, nil)
		if n := strings.Count(text, st.Progress()); n != 1 {
			t.Errorf("%s says the run's progress %d times:\n%s", tool, n, text)
		}
	}
}

// TestFailedVaultNamesOthersOnlyWhenThereAreAny: after a run that could
// not index a vault, answers say that a vault not named is up to date
// only when the server serves another vault.
func TestFailedVaultNamesOthersOnlyWhenThereAreAny(t *testing.T) {
	v := exampleVault(t)
	deps := startServer(t, config.Config{DBPath: filepath.Join(t.TempDir(), "j.db"), Vaults: []config.Vault{v},
		Embedder: config.Embedder{Provider: config.ProviderLexical}})
	if err := deps.Live.All(context.Background()); err != nil {
		t.Fatal(err)
	}
	failed := index.State{State: index.StateFailed, Failed: map[string]string{"coffee": "disk full"}}
	cs := connect(t, indexState{deps, failed})
	var list mcp.ListVaultsOutput
	text, _ := call(t, cs, mcp.ToolListVaults, nil, &list)
	if !strings.Contains(text, `could not index vault "coffee"`) || strings.Contains(text, "not named here") {
		t.Errorf("list-vaults of the one vault served:\n%s", text)
	}
	two := failed
	two.Served = 2
	if line := mcp.Freshness(two); !strings.Contains(line, "(a vault not named here is up to date)") {
		t.Errorf("of two vaults served: %q", line)
	}
}

// TestFailedVectorsSayOnlyWhatIsTrue: after making vectors failed, answers
// say semantic search answers from vectors made before only when there
// are some; with none loaded, that it answers by keywords.
func TestFailedVectorsSayOnlyWhatIsTrue(t *testing.T) {
	v := exampleVault(t)
	deps := startServer(t, config.Config{DBPath: filepath.Join(t.TempDir(), "j.db"), Vaults: []config.Vault{v},
		Embedder: config.Embedder{Provider: config.ProviderLexical}})
	st := index.State{State: index.StateReady, Embedding: index.Embedding{State: index.EmbedFailed, Error: "the database is damaged"}}
	cs := connect(t, indexState{deps, st})
	for _, tool := range []string{mcp.ToolHealthStatus, mcp.ToolListVaults} {
		text, _ := call(t, cs, tool, nil, nil)
		if strings.Contains(text, "those made before") || !strings.Contains(text, "there are none to search by meaning") {
			t.Errorf("%s with no vectors loaded:\n%s", tool, text)
		}
	}
}

// TestVectorsLineSaysStoredVectorsAsSearchDoes: while the stored vectors
// are read into memory, list-vaults and health-status say so, not that
// vectors are being made; when stored vectors cannot be read, they say
// that, not that there are none.
func TestVectorsLineSaysStoredVectorsAsSearchDoes(t *testing.T) {
	reading := mcp.EmbeddingLine(index.Embedding{State: index.EmbedRunning}, false, true, "")
	if !strings.Contains(strings.ToLower(reading), search.VectorsReading) || strings.Contains(reading, "being made") {
		t.Errorf("while loading: %q", reading)
	}
	const why = "the stored vectors cannot be read (the database is damaged)"
	failed := mcp.EmbeddingLine(index.Embedding{State: index.EmbedFailed, Error: "the database is damaged"}, false, false, why)
	// Nothing was being made: the run failed on the database's trouble.
	if !strings.HasPrefix(failed, "Semantic search answers by keywords: "+why) || strings.Contains(failed, "there are none") || strings.Contains(failed, "Making vectors") {
		t.Errorf("with unreadable vectors: %q", failed)
	}
}

// TestHealthStatusSaysStoredVectorsBeingRead: while the server reads the
// stored vectors into memory, health-status says each vault's vectors are
// being read, by the rule list-vaults' line follows
// (search.VectorsAbsent), not that they are being made or not loaded.
func TestHealthStatusSaysStoredVectorsBeingRead(t *testing.T) {
	v := exampleVault(t)
	cs := connect(t, &fake{Vaults: []config.Vault{v},
		Search:        func(context.Context, search.Query) (search.Answer, error) { return search.Answer{}, nil },
		VectorsAbsent: func() (string, bool) { return search.VectorsReading, true },
		State: func() index.State {
			return index.State{State: index.StateReady, Embedding: index.Embedding{State: index.EmbedRunning}}
		},
		Health: func(context.Context) health.Report {
			return health.Report{Status: health.Healthy, Checks: []health.Result{{Name: "embedder", Status: health.OK, Detail: "lexical: all 237 passages have vectors"}}}
		},
	})
	text, _ := call(t, cs, mcp.ToolHealthStatus, nil, nil)
	if strings.Contains(text, "being made") || strings.Contains(text, "not loaded") ||
		!strings.Contains(text, "Vectors for semantic search are being read into memory for "+v.Name+".") {
		t.Errorf("health-status while the stored vectors are read:\n%s", text)
	}
}

// TestHealthStatusSaysVectorsAsOfOneMoment: the stored vectors finish
// loading while the checks run, and the sync the first pass asked for has
// found nothing to embed. health-status says the vaults' vectors are in
// memory, not "not loaded" from a look taken before the checks, and does
// not say vectors are being made.
func TestHealthStatusSaysVectorsAsOfOneMoment(t *testing.T) {
	v := exampleVault(t)
	loaded := false
	cs := connect(t, &fake{Vaults: []config.Vault{v},
		Search: func(context.Context, search.Query) (search.Answer, error) { return search.Answer{}, nil },
		VectorsAbsent: func() (string, bool) {
			if loaded {
				return "", false
			}
			return search.VectorsReading, true
		},
		VectorStores: func() map[string]string {
			if loaded {
				return map[string]string{v.Name: vectors.StoreChromem}
			}
			return nil
		},
		State: func() index.State {
			return index.State{State: index.StateReady, Embedding: index.Embedding{State: index.EmbedRunning}}
		},
		Health: func(context.Context) health.Report {
			loaded = true // the load ends while the checks run
			return health.Report{Status: health.Healthy, Checks: []health.Result{{Name: "embedder", Status: health.OK, Detail: "lexical: all 237 passages have vectors"}}}
		},
	})
	text, _ := call(t, cs, mcp.ToolHealthStatus, nil, nil)
	if strings.Contains(text, "being made") || strings.Contains(text, "not loaded") || strings.Contains(text, "being read") ||
		!strings.Contains(text, "Vectors for semantic search are in memory for "+v.Name+".") {
		t.Errorf("health-status after the stored vectors loaded during its checks:\n%s", text)
	}
}

// TestVaultsSayVectorsBeingMade: on a new database, while a sync makes
// the first vectors, each vault's vectors are said to be being made, not
// "not loaded"; a sync still counting its work is not said to make any.
func TestVaultsSayVectorsBeingMade(t *testing.T) {
	v := exampleVault(t)
	for _, c := range []struct {
		name string
		e    index.Embedding
		want string
	}{
		{"making", index.Embedding{State: index.EmbedRunning, Done: 3, Total: 40}, "Vectors for semantic search are being made for " + v.Name + "."},
		{"counting", index.Embedding{State: index.EmbedRunning}, "Vectors for semantic search are not loaded for " + v.Name + "."},
	} {
		t.Run(c.name, func(t *testing.T) {
			cs := connect(t, &fake{Vaults: []config.Vault{v},
				Search: func(context.Context, search.Query) (search.Answer, error) { return search.Answer{}, nil },
				State:  func() index.State { return index.State{State: index.StateReady, Embedding: c.e} },
				Health: func(context.Context) health.Report { return health.Report{Status: health.Healthy} },
			})
			text, _ := call(t, cs, mcp.ToolHealthStatus, nil, nil)
			if !strings.Contains(text, c.want) || (c.e.Total == 0 && strings.Contains(text, "being made")) {
				t.Errorf("health-status:\n%s", text)
			}
		})
	}
}

// TestFreshnessWhileIndexingSaysWhereResultsComeFrom: a run at "0 of 8
// notes indexed" has not emptied the index: what it held before still
// answers (a related note by a link, say), and the line says so rather
// than that results cover only what this run has indexed.
func TestFreshnessWhileIndexingSaysWhereResultsComeFrom(t *testing.T) {
	st := index.State{State: index.StateIndexing, Vault: "coffee", Phase: index.PhaseWrite, Total: index.Counts{Notes: 8}}
	const want = `The index of vault "coffee" is being brought up to date (0 of 8 notes indexed): results come from what the index held before this run and what the run has indexed since.`
	if got := mcp.Freshness(st); got != want {
		t.Errorf("freshness while indexing:\n got %q\nwant %q", got, want)
	}
}

// TestLookupWhileAnotherVaultIndexesAtStart: at a server's start, its
// first pass indexing one vault, a name no note has in another vault
// that an earlier run indexed whole gets the closest names, not "not
// indexed yet": what the index holds decides, not the pass under way.
func TestLookupWhileAnotherVaultIndexesAtStart(t *testing.T) {
	v := exampleVault(t)
	other := config.Vault{Name: "mine", Path: t.TempDir()}
	sharedtest.WriteFile(t, other.Path, " Ideas.md", "# Ideas\nA garden shed.\n")
	b := realBackend(t, filepath.Join(t.TempDir(), "j.db"), true, v, other)
	deps := b.(real).deps
	st := index.State{State: index.StateIndexing, Vault: v.Name, Phase: index.PhaseLinks}
	cs := connect(t, indexState{deps, st})
	text, isErr := call(t, cs, mcp.ToolReadNote, map[string]any{"vault": "mine", "path": "Ideas.md"}, nil)
	if !isErr || strings.Contains(text, "not indexed yet") || !strings.Contains(text, "closest") {
		t.Errorf("read-note of a near name in a vault indexed before: error %v: %s", isErr, text)
	}
}

// TestScopedAnswerLeavesOtherVaultsStateOut: an answer over one vault says
// nothing of what the index run does with another (trial 17: a search of
// vault "biz" carried a line about vault "help"), unless the vault
// searched waits for that run; an answer over every vault says it all.
func TestScopedAnswerLeavesOtherVaultsStateOut(t *testing.T) {
	v := exampleVault(t)
	other := t.TempDir()
	if err := os.WriteFile(filepath.Join(other, "Ledger.md"), []byte("# Ledger\n\nInvoices paid in March.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	deps := startServer(t, config.Config{DBPath: filepath.Join(t.TempDir(), "j.db"),
		Vaults:   []config.Vault{v, {Name: "help", Path: other}},
		Embedder: config.Embedder{Provider: config.ProviderLexical}})
	if err := deps.Live.All(context.Background()); err != nil {
		t.Fatal(err)
	}
	states := map[string]index.State{
		"indexing help":  {State: index.StateIndexing, Vault: "help", Phase: index.PhaseWrite, Done: index.Counts{Notes: 1}, Total: index.Counts{Notes: 9}},
		"help failed":    {State: index.StateFailed, Error: "help: disk full", Failed: map[string]string{"help": "disk full"}},
		"help unwatched": {State: index.StateReady, Unwatched: map[string]string{"help": "its folder is gone"}},
	}
	for name, st := range states {
		cs := connect(t, indexState{deps, st})
		for _, tool := range []string{mcp.ToolSearchVault, mcp.ToolBuildContext} {
			scoped, _ := call(t, cs, tool, map[string]any{"query": "pour over", "vault": v.Name}, nil)
			if strings.Contains(scoped, `"help"`) {
				t.Errorf("%s: %s over vault %q names vault help:\n%s", name, tool, v.Name, scoped)
			}
			whole, _ := call(t, cs, tool, map[string]any{"query": "pour over"}, nil)
			if !strings.Contains(whole, `"help"`) {
				t.Errorf("%s: %s over every vault does not name vault help:\n%s", name, tool, whole)
			}
		}
	}
	// read-note says of the index only a folder not watched, and of the
	// note's own vault only.
	cs := connect(t, indexState{deps, states["help unwatched"]})
	if read, _ := call(t, cs, mcp.ToolReadNote, map[string]any{"path": "Ledger", "vault": "help"}, nil); !strings.Contains(read, "its folder is gone") {
		t.Errorf("read-note of a note of vault help does not say its folder is not watched:\n%s", read)
	}
	if read, _ := call(t, cs, mcp.ToolReadNote, map[string]any{"path": "Brewing ratios"}, nil); strings.Contains(read, `"help"`) {
		t.Errorf("read-note of a note of vault coffee speaks of vault help:\n%s", read)
	}
	// The vault searched waits for the run over another: that is said.
	waiting := index.State{State: index.StateIndexing, Vault: "help", Next: []string{v.Name}, Phase: index.PhaseWrite,
		Done: index.Counts{Notes: 1}, Total: index.Counts{Notes: 9}}
	cs = connect(t, indexState{deps, waiting})
	text, _ := call(t, cs, mcp.ToolSearchVault, map[string]any{"query": "pour over", "vault": v.Name}, nil)
	if want := `The index of vault "help" is being brought up to date (1 of 9 notes indexed), then that of vault "coffee"`; !strings.Contains(text, want) {
		t.Errorf("a search of a vault the run comes to next does not say so (want %q):\n%s", want, text)
	}
}

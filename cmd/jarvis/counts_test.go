package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"path/filepath"
	"strings"
	"testing"
	"time"

	mcpsdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/jarvis-mcp/jarvis/internal/config"
	"github.com/jarvis-mcp/jarvis/internal/container"
	"github.com/jarvis-mcp/jarvis/internal/health"
	"github.com/jarvis-mcp/jarvis/internal/index"
	"github.com/jarvis-mcp/jarvis/internal/live"
	"github.com/jarvis-mcp/jarvis/internal/mcp"
	"github.com/jarvis-mcp/jarvis/internal/store"
)

// TestCountsAgreeEverywhere brings a vault to two states, part way through
// its first index run (from the run's progress, after a batch is written)
// and after the run, and asks each thing a user reads for its counts:
// list-vaults, the banner every search answer carries while the run is
// under way, the freshness check of health-status and doctor, and jarvis
// index's progress line and summary. Each gives the same numbers in the
// same words, those of index.Counts.
func TestCountsAgreeEverywhere(t *testing.T) {
	v := copyExampleVault(t)
	cfg := config.Config{DBPath: filepath.Join(t.TempDir(), "j.db"), Vaults: []config.Vault{v},
		Embedder: config.Embedder{Provider: config.ProviderLexical}}
	ctx := context.Background()
	log := slog.New(slog.NewTextHandler(io.Discard, nil))

	var ideps container.IndexDeps
	iapp := container.NewIndexApp(cfg, log, &ideps)
	if err := iapp.Start(ctx); err != nil {
		t.Fatal(err)
	}
	defer iapp.Stop(ctx)
	ideps.Indexer.BatchSize = 3

	var mdeps container.MCPDeps
	mapp := container.NewMCPApp(cfg, log, &mdeps)
	if err := mapp.Start(ctx); err != nil {
		t.Fatal(err)
	}
	defer mapp.Stop(ctx)

	// The CLI's progress line, drawn as on a terminal.
	var frames frames
	view := &progressView{w: &frames, now: time.Now, terminal: true}
	cli := view.Index(v.Name)

	// list-vaults of a server whose index state is that of a Live
	// running the same indexer: the state every answer reports.
	var mid func(st index.State)
	var l *live.Live
	var result index.Result
	l = live.New(cfg.Vaults, func(ctx context.Context, v config.Vault, p index.Progress) (res index.Result, err error) {
		defer func() { result = res }()
		return ideps.Indexer.Index(ctx, v, func(phase index.Phase, done, total index.Counts) {
			p(phase, done, total)
			cli(phase, done, total)
			if phase == index.PhaseWrite && done.Notes > 0 && done.Notes < total.Notes && mid != nil {
				mid(l.State())
				mid = nil
			}
		})
	}, nil, log)
	server := mcp.New(mdeps.Tools, mdeps.Resources, mcp.Options{Vaults: cfg.Vaults, State: l, Logger: log, Invocation: cfg.Invocation()})
	st, ct := mcpsdk.NewInMemoryTransports()
	ss, err := server.Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ss.Close()
	cs, err := mcpsdk.NewClient(&mcpsdk.Implementation{Name: "test", Version: "1"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()

	listVaults := func(t *testing.T) (mcp.VaultItem, string) {
		t.Helper()
		res, err := cs.CallTool(ctx, &mcpsdk.CallToolParams{Name: mcp.ToolListVaults})
		if err != nil || res.IsError {
			t.Fatalf("list-vaults: %v %+v", err, res)
		}
		var out mcp.ListVaultsOutput
		if err := remarshal(res.StructuredContent, &out); err != nil {
			t.Fatal(err)
		}
		if len(out.Vaults) != 1 {
			t.Fatalf("list-vaults: %+v", out)
		}
		return out.Vaults[0], res.Content[0].(*mcpsdk.TextContent).Text
	}
	// freshness is the index freshness line health-status and doctor
	// show.
	freshness := func(t *testing.T) string {
		t.Helper()
		h := store.NewHandle(cfg.DBPath, store.Options{ReadOnly: true})
		defer h.Close()
		rep := health.Run(ctx, index.Checks(h, cfg), time.Minute)
		for _, r := range rep.Checks {
			if r.Name == "index freshness "+v.Name {
				return r.Detail
			}
		}
		t.Fatalf("no freshness check in %+v", rep.Checks)
		return ""
	}

	checked := false
	mid = func(st index.State) {
		checked = true
		item, text := listVaults(t)
		held := item.Counts()
		// Folders count the notes read so far, as the vault's count does.
		for _, f := range item.Folders {
			if f.Notes > held.Notes {
				t.Errorf("part way, list-vaults counts %d notes in %s of the %s it holds", f.Notes, f.Path, held.Words())
			}
		}
		if held.Notes != st.Done.Notes || held.Attachments != st.Done.Attachments {
			t.Errorf("part way, list-vaults holds %s; the run's progress says %s done", held.Words(), st.Done.Of(st.Total))
		}
		// The banner of list-vaults and every search answer.
		if !strings.Contains(text, st.Done.Of(st.Total)+" indexed") {
			t.Errorf("part way, list-vaults says:\n%s\nwant the progress %q", text, st.Done.Of(st.Total))
		}
		if !strings.Contains(text, held.Words()) {
			t.Errorf("part way, list-vaults says:\n%s\nwant its counts as %q", text, held.Words())
		}
		if f := freshness(t); !strings.Contains(f, "the index holds "+held.Words()+" so far") {
			t.Errorf("part way, the freshness check says %q; list-vaults holds %s", f, held.Words())
		}
		// The line as drawn now, whenever it is next redrawn.
		if line := view.line(time.Now()); !strings.Contains(line, st.Done.Of(st.Total)) {
			t.Errorf("part way, jarvis index shows %q; the state says %q", line, st.Done.Of(st.Total))
		}
	}
	if err := l.Vault(ctx, v.Name); err != nil {
		t.Fatal(err)
	}
	if !checked {
		t.Fatal("the run was never seen part way")
	}

	// After the run: the run's result, as jarvis index prints it.
	item, text := listVaults(t)
	held := item.Counts()
	if result.Counts() != held {
		t.Errorf("after the run, jarvis index counts %s; list-vaults %s", result.Counts().Words(), held.Words())
	}
	var summary bytes.Buffer
	printIndexSummary(&summary, indexOutput{Vaults: []index.Result{result}}, cfg.DBPath, cfg.Invocation())
	if !strings.Contains(summary.String(), "  "+held.Words()+"\n") || !strings.Contains(text, held.Words()) {
		t.Errorf("after the run, jarvis index says:\n%s\nlist-vaults says:\n%s\nwant both to say %q", summary.String(), text, held.Words())
	}
	if f := freshness(t); !strings.HasPrefix(f, held.Words()+" indexed") {
		t.Errorf("after the run, the freshness check says %q; list-vaults holds %s", f, held.Words())
	}
	// The last word of the progress line is what the index then holds.
	view.Finish()
	files := index.Counts{Notes: held.Notes, Attachments: held.Attachments}
	var wrote string
	for _, f := range frames {
		if strings.Contains(f, "indexing files") {
			wrote = f
		}
	}
	if !strings.Contains(wrote, "indexing files  "+files.Words()+"  100%") {
		t.Errorf("the progress line ends at %q; want %q as list-vaults says it", wrote, files.Words())
	}
}

// remarshal decodes v, a value decoded from JSON, into out.
func remarshal(v, out any) error {
	data, err := json.Marshal(v)
	if err != nil {
		return err
	}
	return json.Unmarshal(data, out)
}

package mcp

import (
	"context"
	"github.com/google/jsonschema-go/jsonschema"
	"time"

	mcpsdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// Tool is one tool, bound to the services it uses. The container builds
// each with its constructor below and collects them in a value group; New
// registers them. A tool only reaches the services it was built with.
type Tool struct {
	name string
	bind func(*tools)
	add  func(*tools, *mcpsdk.Server)
}

// Name is the tool's name, as tools/list gives it.
func (t Tool) Name() string { return t.name }

// SearchVaultTool is search-vault, over keyword search.
func SearchVaultTool(kw KeywordSearch) Tool {
	return Tool{ToolSearchVault, func(t *tools) { t.keyword = kw }, (*tools).addSearchVault}
}

// SearchSemanticTool is search-semantic, over semantic search.
func SearchSemanticTool(sem SemanticSearch) Tool {
	return Tool{ToolSearchSemantic, func(t *tools) { t.semantic = sem }, (*tools).addSearchSemantic}
}

// SearchCombinedTool is search-combined, over semantic search fused with
// keyword search.
func SearchCombinedTool(sem SemanticSearch) Tool {
	return Tool{ToolSearchCombined, func(t *tools) { t.semantic = sem }, (*tools).addSearchCombined}
}

// SearchGraphTool is search-graph, over the link graph, with the parser
// for its answer from the files on disk.
func SearchGraphTool(g LinkGraph, p NoteParser) Tool {
	return Tool{ToolSearchGraph, func(t *tools) { t.graph, t.parser = g, p }, (*tools).addSearchGraph}
}

// ReadNoteTool is read-note: the parser reads the note, the link graph
// adds its resolved links and backlinks.
func ReadNoteTool(g LinkGraph, p NoteParser, s StoredNotes) Tool {
	return Tool{ToolReadNote, func(t *tools) { t.graph, t.parser, t.stored = g, p, s }, (*tools).addReadNote}
}

// PeriodicNoteTool is periodic-note: the clock says what today is, the
// parser reads the note's title as read-note does, and the writer appends
// to the note in a writable vault.
func PeriodicNoteTool(p NoteParser, s StoredNotes, clock Clock, w NoteWriter) Tool {
	return Tool{ToolPeriodicNote, func(t *tools) { t.parser, t.stored, t.clock, t.writer = p, s, clock, w }, (*tools).addPeriodicNote}
}

// QueryNotesTool is query-notes: the index's files of a vault as Bases
// sees them, and the clock for today().
func QueryNotesTool(files VaultFiles, clock Clock) Tool {
	return Tool{ToolQueryNotes, func(t *tools) { t.vaultFiles, t.clock = files, clock }, (*tools).addQueryNotes}
}

// RelatedNotesTool is related-notes, with the link graph to find the note
// asked about.
func RelatedNotesTool(r RelatedNotes, g LinkGraph) Tool {
	return Tool{ToolRelatedNotes, func(t *tools) { t.related, t.graph = r, g }, (*tools).addRelatedNotes}
}

// BuildContextTool is build-context.
func BuildContextTool(c ContextPack) Tool {
	return Tool{ToolBuildContext, func(t *tools) { t.pack = c }, (*tools).addBuildContext}
}

// ListVaultsTool is list-vaults: the index's counts, and the embedder and
// vector store of semantic search.
func ListVaultsTool(v Vaults, sem SemanticSearch) Tool {
	return Tool{ToolListVaults, func(t *tools) { t.stats, t.semantic = v, sem }, (*tools).addListVaults}
}

// HealthStatusTool is health-status: the doctor's checks, the store that
// serves each vault's vectors, and how each tool has answered since the
// server started.
func HealthStatusTool(h Health, sem SemanticSearch) Tool {
	return Tool{ToolHealthStatus, func(t *tools) { t.health, t.semantic = h, sem }, (*tools).addHealthStatus}
}

// Resources are the note resources and the vault list, bound to the
// services they read.
type Resources struct {
	bind func(*tools)
	// stats is what the index holds of each vault, which every tool
	// that finds no note asks to say why (tools.unready).
	stats Vaults
}

// NoteResources lists the served vaults' notes from the index (from the
// files when it cannot be read) and serves the vault list as list-vaults
// gives it.
func NoteResources(notes Notes, v Vaults, sem SemanticSearch) Resources {
	return Resources{bind: func(t *tools) { t.notes, t.stats, t.semantic = notes, v, sem }, stats: v}
}

// timeCalls records the latency and outcome of every call of a tool the
// server has (known, by name) in m. A call of a tool it does not have is
// the SDK's to refuse and is not recorded: health-status lists the tools
// that exist.
func timeCalls(m Metrics, known map[string]*jsonschema.Schema) mcpsdk.Middleware {
	return func(next mcpsdk.MethodHandler) mcpsdk.MethodHandler {
		if m == nil {
			return next
		}
		return func(ctx context.Context, method string, req mcpsdk.Request) (mcpsdk.Result, error) {
			r, ok := req.(*mcpsdk.CallToolRequest)
			if method != "tools/call" || !ok || r.Params == nil {
				return next(ctx, method, req)
			}
			if _, ok := known[r.Params.Name]; !ok {
				return next(ctx, method, req)
			}
			start := time.Now()
			res, err := next(ctx, method, req)
			failed := err != nil
			// A handler that fails gives a nil *CallToolResult in
			// the interface, which is not itself nil.
			if cr, ok := res.(*mcpsdk.CallToolResult); ok && cr != nil && cr.IsError {
				failed = true
			}
			m.Observe(r.Params.Name, time.Since(start), failed)
			return res, err
		}
	}
}

package mcp

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
	mcpsdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/jarvis-mcp/jarvis/internal/config"
	"github.com/jarvis-mcp/jarvis/internal/graph"
	"github.com/jarvis-mcp/jarvis/internal/index"
	"github.com/jarvis-mcp/jarvis/internal/vault"
)

// GraphInput is the input of search-graph.
type GraphInput struct {
	QueryNotePath string `json:"query_note_path" jsonschema:"the note to start from: its vault-relative path (Folder/Note.md), its title or one of its aliases"`
	Depth         int    `json:"depth,omitempty" jsonschema:"how many links away to go, 1 to 5"`
	Direction     string `json:"direction,omitempty" jsonschema:"out: notes it links to; in: notes linking to it; both"`
	Vault         string `json:"vault,omitempty" jsonschema:"the vault of the start note; every vault is searched for it when empty"`
}

// GraphEdge is one link between two notes of the answer.
type GraphEdge struct {
	Source string `json:"source" jsonschema:"path of the linking note"`
	Target string `json:"target" jsonschema:"path of the linked note or file"`
	Kind   string `json:"kind" jsonschema:"link, embed, markdown or frontmatter"`
	Text   string `json:"text" jsonschema:"the link's display text, or its target as written"`
	Line   int    `json:"line" jsonschema:"line of the link in the source note"`
}

// GraphOutput is what search-graph returns.
type GraphOutput struct {
	Start          graph.Match            `json:"start" jsonschema:"the start note and how the query matched it; others lists equally good matches"`
	Nodes          []graph.Node           `json:"nodes" jsonschema:"the start note (depth 0) and every note or attachment reached, by depth then path"`
	Edges          []GraphEdge            `json:"edges" jsonschema:"links between the returned nodes"`
	Unresolved     []graph.UnresolvedLink `json:"unresolved" jsonschema:"links from the visited notes that lead to no note"`
	Truncated      bool                   `json:"truncated" jsonschema:"true when the walk stopped at its node cap or the links were cut to the first 300"`
	Degraded       bool                   `json:"degraded"`
	DegradedReason string                 `json:"degraded_reason,omitempty"`
	Index          index.State            `json:"index"`
}

func (t *tools) registerGraph(s *mcpsdk.Server) {
	mcpsdk.AddTool(s, &mcpsdk.Tool{
		Name: ToolSearchGraph,
		Description: `Explore the link graph around a note: the notes it links to (out), the notes that link to it (in), or both, up to 5 links away.
Use it to find related notes, a topic's neighbourhood, or what depends on a note. Returns nodes with their depth and tags, the links between them with line numbers, and links that lead to missing notes.`,
		Annotations: readOnly("Explore linked notes"),
		InputSchema: inputSchema[GraphInput](func(p map[string]*jsonschema.Schema) {
			textLength(p["query_note_path"], 1, maxPathChars)
			intRange(p["depth"], 1, graph.MaxDepth, 2)
			textLength(p["direction"], 0, len("both"))
			p["direction"].Enum = []any{"out", "in", "both"}
			textLength(p["vault"], 0, maxNameChars)
			p["direction"].Default = mustJSON("both")
		}),
	}, t.searchGraph)
}

func (t *tools) searchGraph(ctx context.Context, _ *mcpsdk.CallToolRequest, in GraphInput) (*mcpsdk.CallToolResult, GraphOutput, error) {
	out := GraphOutput{Nodes: []graph.Node{}, Edges: []GraphEdge{}, Unresolved: []graph.UnresolvedLink{}, Index: t.state()}
	ref := strings.TrimSpace(in.QueryNotePath)
	if ref == "" {
		return nil, out, errors.New("query_note_path is empty: give the path, title or alias of the note to start from (search-vault finds one)")
	}
	if err := t.checkVault(in.Vault); err != nil {
		return nil, out, err
	}
	depth := in.Depth
	if depth == 0 {
		depth = 2
	}
	if depth < 1 || depth > graph.MaxDepth {
		return nil, out, fmt.Errorf("depth must be 1 to %d; got %d. Use 1 for direct links, 2 for their neighbours", graph.MaxDepth, depth)
	}
	dir := graph.Direction(strings.ToLower(strings.TrimSpace(in.Direction)))
	if dir == "" {
		dir = graph.Both
	}
	if dir != graph.Out && dir != graph.In && dir != graph.Both {
		return nil, out, fmt.Errorf("direction must be \"out\", \"in\" or \"both\"; got %s", quoteArg(in.Direction))
	}
	var sub *graph.Subgraph
	err := errUnavailable
	if t.b.Traverse != nil {
		sub, err = t.b.Traverse(ctx, graph.Query{Vault: in.Vault, Start: ref, Depth: depth, Direction: dir})
	}
	switch {
	case err == nil:
	case errors.Is(err, graph.ErrNoteNotFound), errors.Is(err, graph.ErrInvalidQuery):
		if nf := shortNotFound(err); nf != nil {
			return nil, out, nf
		}
		return nil, out, fmt.Errorf("%s", strings.TrimPrefix(err.Error(), graph.ErrInvalidQuery.Error()+": "))
	case ctx.Err() != nil:
		return nil, out, ctx.Err()
	default:
		if !errors.Is(err, errUnavailable) {
			t.log.Warn("graph search failed; reading the note from disk", "err", err)
		}
		out, err = t.graphFromDisk(ctx, in.Vault, ref, out)
		if err != nil {
			return nil, out, err
		}
		shortGraph(&out)
		return renderGraph(out), out, nil
	}
	if in.Vault == "" {
		if err := oneVault(ref, sub.Start); err != nil {
			return nil, out, err
		}
	}
	out.Start = sub.Start
	out.Nodes = nonNil(sub.Nodes)
	out.Unresolved = nonNil(sub.Unresolved)
	out.Truncated = sub.Truncated
	for _, e := range sub.Edges {
		out.Edges = append(out.Edges, GraphEdge{Source: e.Source, Target: e.Target, Kind: e.Kind, Text: e.Text, Line: e.Line})
	}
	// The start note's own links come first, so that a cut never drops
	// them for links among its neighbours.
	out.Edges = startFirst(out.Edges, sub.Start.Path)
	shortGraph(&out)
	return renderGraph(out), out, nil
}

// shortGraph cuts a graph answer, from the index or from the disk, to
// maxGraphEdges links and as many unresolved ones, and each title, tag
// list and link text short.
func shortGraph(out *GraphOutput) {
	if len(out.Edges) > maxGraphEdges {
		out.Edges, out.Truncated = out.Edges[:maxGraphEdges], true
	}
	if len(out.Unresolved) > maxGraphEdges {
		out.Unresolved, out.Truncated = out.Unresolved[:maxGraphEdges], true
	}
	out.Start.Title = clip(out.Start.Title, maxTitleChars)
	if len(out.Start.Others) > maxAlsoMatches {
		out.Start.Others = out.Start.Others[:maxAlsoMatches]
	}
	for i := range out.Nodes {
		n := &out.Nodes[i]
		n.Title = clip(n.Title, maxTitleChars)
		if len(n.Tags) > maxNodeTags {
			n.Tags = n.Tags[:maxNodeTags]
		}
		for j, tg := range n.Tags {
			n.Tags[j] = clip(tg, maxTitleChars)
		}
	}
	for i := range out.Edges {
		out.Edges[i].Text = clip(out.Edges[i].Text, maxTextChars)
		out.Edges[i].Target = clip(out.Edges[i].Target, maxPathChars)
	}
	for i := range out.Unresolved {
		out.Unresolved[i].Target = clip(out.Unresolved[i].Target, maxTextChars)
	}
}

// maxGraphEdges bounds the links (and the unresolved links) a graph answer
// carries, and maxTextEdges those its text lists: a hub note at depth 2
// reaches a thousand links, far more than a model's context should take.
const (
	maxGraphEdges = 300
	maxTextEdges  = 60
)

// oneVault refuses a start note chosen among equally good matches in
// several vaults: which one was meant only the caller knows.
func oneVault(ref string, start graph.Match) error {
	where := []string{fmt.Sprintf("%q (`%s`)", start.Vault, start.Path)}
	for _, o := range start.Others {
		if o.Vault != start.Vault {
			where = append(where, fmt.Sprintf("%q (`%s`)", o.Vault, o.Path))
		}
	}
	if len(where) == 1 {
		return nil
	}
	return fmt.Errorf("%s matches notes in more than one vault: %s; pass vault to choose one", quoteArg(ref), strings.Join(where, ", "))
}

// graphFromDisk answers without the index: it finds the start note by
// path or file name, parses it and returns its links as written.
func (t *tools) graphFromDisk(ctx context.Context, vaultName, ref string, out GraphOutput) (GraphOutput, error) {
	v, rel, err := findOnDisk(ctx, t.b.Vaults, vaultName, ref)
	if err != nil {
		return out, err
	}
	data, _, err := readNote(v, rel)
	if err != nil {
		return out, err
	}
	note := t.parse(rel, data)
	out.Degraded = true
	out.DegradedReason = "the link graph is unavailable; showing the start note's own links as written, not resolved to files, one level deep"
	out.Start = graph.Match{Ref: graph.Ref{Vault: v.Name, Path: rel, Title: note.Title}, Kind: "note", By: graph.ByPath}
	out.Nodes = []graph.Node{{Vault: v.Name, Path: rel, Title: note.Title, Kind: "note", Tags: tagNames(note)}}
	for _, l := range note.Links {
		target := l.Target
		if target == "" {
			continue // a link into the same note
		}
		text := l.Display
		if text == "" {
			text = target
		}
		out.Edges = append(out.Edges, GraphEdge{Source: rel, Target: target, Kind: string(l.Kind), Text: text, Line: l.Line})
	}
	return out, nil
}

func (t *tools) parse(rel string, data []byte) vault.Note {
	if t.b.Parse != nil {
		return t.b.Parse(rel, data)
	}
	return vault.NewParser().Parse(rel, data)
}

func tagNames(n vault.Note) []string {
	var out []string
	seen := map[string]bool{}
	for _, tg := range n.Tags {
		if !seen[tg.Name] {
			seen[tg.Name] = true
			out = append(out, tg.Name)
		}
	}
	return out
}

// findOnDisk locates a note without the index: by its vault-relative
// path, else by the rules of link resolution (resolveOnDisk), as read-note
// does.
func findOnDisk(ctx context.Context, vaults []config.Vault, vaultName, ref string) (config.Vault, string, error) {
	rel := strings.TrimPrefix(filepath.ToSlash(ref), "/")
	for _, v := range vaults {
		if vaultName != "" && v.Name != vaultName {
			continue
		}
		if p, ok, err := notePath(v, rel); err == nil && ok {
			return v, p, nil
		}
	}
	if v, p, ok := resolveOnDisk(ctx, vaults, vaultName, ref); ok {
		return v, p, nil
	}
	return config.Vault{}, "", fmt.Errorf("no note %s was found on disk; give its vault-relative path, such as Folder/Note.md", quoteArg(ref))
}

func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

func renderGraph(out GraphOutput) *mcpsdk.CallToolResult {
	var b strings.Builder
	fmt.Fprintf(&b, "Links around **%s** (`%s`): %d nodes, %d links", out.Start.Title, out.Start.Path, len(out.Nodes), len(out.Edges))
	if out.Truncated {
		b.WriteString(" (cut short; ask for less depth or one direction)")
	}
	b.WriteString(".\n")
	if len(out.Start.Others) > 0 {
		var others []string
		for _, o := range out.Start.Others {
			others = append(others, "`"+o.Path+"`")
		}
		fmt.Fprintf(&b, "\nOther notes match the same name: %s; pass a path to start from one of them.\n", strings.Join(others, ", "))
	}
	if out.Degraded {
		fmt.Fprintf(&b, "\n> Degraded: %s.\n", out.DegradedReason)
	}
	if f := freshness(out.Index); f != "" {
		fmt.Fprintf(&b, "\n> %s\n", f)
	}
	depth := -1
	for _, n := range out.Nodes {
		if n.Depth != depth {
			depth = n.Depth
			fmt.Fprintf(&b, "\nDepth %d:\n", depth)
		}
		if n.Title == "" || n.Kind == "attachment" {
			fmt.Fprintf(&b, "- `%s` (%s)", n.Path, n.Kind)
		} else {
			fmt.Fprintf(&b, "- %s (`%s`)", n.Title, n.Path)
		}
		if len(n.Tags) > 0 {
			fmt.Fprintf(&b, " #%s", strings.Join(n.Tags, " #"))
		}
		b.WriteString("\n")
	}
	if len(out.Edges) > 0 {
		b.WriteString("\nLinks:\n")
		for i, e := range out.Edges {
			if i == maxTextEdges {
				fmt.Fprintf(&b, "- … and %d more in the structured result\n", len(out.Edges)-i)
				break
			}
			fmt.Fprintf(&b, "- `%s` line %d → `%s` (%s)\n", e.Source, e.Line, e.Target, e.Kind)
		}
	}
	if len(out.Unresolved) > 0 {
		b.WriteString("\nLinks to missing notes:\n")
		for i, u := range out.Unresolved {
			if i == maxTextEdges {
				fmt.Fprintf(&b, "- … and %d more in the structured result\n", len(out.Unresolved)-i)
				break
			}
			fmt.Fprintf(&b, "- `%s` line %d → %s\n", u.Source, u.Line, quoteArg(u.Target))
		}
	}
	return textResult(b.String())
}

// startFirst orders links with those of the start note itself (to it or
// from it) first, which a model asked about one note wants before the
// links among its neighbours; the order within each part is kept.
func startFirst(edges []GraphEdge, start string) []GraphEdge {
	out := make([]GraphEdge, 0, len(edges))
	for _, e := range edges {
		if e.Source == start || e.Target == start {
			out = append(out, e)
		}
	}
	for _, e := range edges {
		if e.Source != start && e.Target != start {
			out = append(out, e)
		}
	}
	return out
}

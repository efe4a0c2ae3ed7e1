package mcp

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
	mcpsdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/jarvis-mcp/jarvis/internal/config"
	"github.com/jarvis-mcp/jarvis/internal/graph"
	"github.com/jarvis-mcp/jarvis/internal/index"
	"github.com/jarvis-mcp/jarvis/internal/vault"
	"github.com/jarvis-mcp/jarvis/internal/words"
)

// GraphInput is the input of search-graph.
type GraphInput struct {
	QueryNotePath string `json:"query_note_path" jsonschema:"the note to start from: its vault-relative path (Folder/Note.md), its title or one of its aliases"`
	Depth         int    `json:"depth,omitempty" jsonschema:"how many links away to go, 1 to 5"`
	Direction     string `json:"direction,omitempty" jsonschema:"out: notes it links to; in: notes linking to it; both"`
	Vault         string `json:"vault,omitempty" jsonschema:"the vault of the start note; every vault is searched for it when empty"`
}

// GraphNode is one note or attachment of the answer. Every node is in the
// start note's vault.
type GraphNode struct {
	Path string `json:"path" jsonschema:"vault-relative path; pass it to read-note"`
	// Title is left out when it is the file name, which the path shows.
	Title string   `json:"title,omitempty" jsonschema:"the note's title, when it is not its file name"`
	Depth int      `json:"depth" jsonschema:"how many links away from the start note"`
	Kind  string   `json:"kind" jsonschema:"note or attachment"`
	Tags  []string `json:"tags,omitempty" jsonschema:"the note's tags"`
}

// GraphEdge is one link between two nodes of the answer, which it names
// by their place in the list of nodes: their paths are there already.
type GraphEdge struct {
	From int    `json:"from" jsonschema:"the linking note, as its index in nodes (0 is the start note)"`
	To   int    `json:"to" jsonschema:"the linked note or file, as its index in nodes"`
	Kind string `json:"kind" jsonschema:"link, embed, markdown or frontmatter"`
	Line int    `json:"line" jsonschema:"line of the link in the linking note"`
}

// GraphUnresolved is a link from a node that leads to no file.
type GraphUnresolved struct {
	From   int    `json:"from" jsonschema:"the linking note, as its index in nodes"`
	Target string `json:"target" jsonschema:"the link target as written"`
	Line   int    `json:"line" jsonschema:"line of the link in the linking note"`
}

// GraphOutput is what search-graph returns: the same nodes and links as
// its text, no more, so that the answer costs little to check and send.
type GraphOutput struct {
	Start      graph.Match       `json:"start" jsonschema:"the start note, its vault (every node's) and how the query matched it; others lists equally good matches"`
	Nodes      []GraphNode       `json:"nodes" jsonschema:"the start note (first, depth 0) and the notes and attachments reached, by depth then path"`
	Edges      []GraphEdge       `json:"edges" jsonschema:"links between nodes, the start note's own first, then by linking note and line"`
	Unresolved []GraphUnresolved `json:"unresolved" jsonschema:"links from the visited notes that lead to no note"`
	// NodesReached and LinksFound say how much there was when the lists were
	// cut.
	NodesReached int  `json:"nodes_reached" jsonschema:"notes and attachments the walk reached, the start included; more than nodes holds when the walk stopped at the node cap, and more lie beyond; the links into a hub are read only in part, so there may be more still"`
	LinksFound   int  `json:"links_found" jsonschema:"links between the nodes; more than edges holds when the links were cut"`
	Truncated    bool `json:"truncated" jsonschema:"true when something was left out: nodes, links or unresolved links beyond their caps"`
	Degradation
	Index index.State `json:"index"`
}

func (t *tools) addSearchGraph(s *mcpsdk.Server) {
	addTool(t, s, &mcpsdk.Tool{
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
		OutputSchema: outputSchema[GraphOutput](func(p map[string]*jsonschema.Schema) {
			maxItems(p["nodes"], maxGraphNodes)
			maxItems(p["nodes"].Items.Properties["tags"], maxNodeTags)
			maxItems(p["edges"], maxGraphEdges)
			maxItems(p["unresolved"], maxGraphEdges)
		}),
	}, t.searchGraph)
}

func (t *tools) searchGraph(ctx context.Context, _ *mcpsdk.CallToolRequest, in GraphInput) (*mcpsdk.CallToolResult, GraphOutput, error) {
	out := GraphOutput{Nodes: []GraphNode{}, Edges: []GraphEdge{}, Unresolved: []GraphUnresolved{}}
	// Scoped, and the answer degraded, once the start note's vault is
	// known.
	out.Index = t.state(in.Vault)
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
	sub, err := use(t.graph, "the link graph", func(g LinkGraph) (*graph.Subgraph, error) {
		return g.Traverse(ctx, graph.Query{Vault: in.Vault, Start: ref, Depth: depth, Direction: dir, MaxNodes: maxGraphNodes, MaxEdges: maxGraphEdges})
	})
	switch {
	case err == nil:
	case errors.Is(err, graph.ErrInvalidQuery):
		return nil, out, fmt.Errorf("%s", strings.TrimPrefix(err.Error(), graph.ErrInvalidQuery.Error()+": "))
	default:
		// Not in the index (or no index): the note on disk answers, and
		// a note on disk under no name is not found.
		why, stop := t.fallback(ctx, "the link graph", err)
		if stop != nil {
			return nil, out, stop
		}
		// The note is found as read-note finds it, the graph's failed
		// lookup standing for the index's.
		v, rel, _, lerr := t.locateAfter(ctx, in.Vault, ref, func() (graph.Match, error) { return graph.Match{}, err })
		if lerr != nil {
			if wanted := t.wantedNote(ctx, in.Vault, ref); wanted != "" {
				return nil, out, errors.New(wanted)
			}
			return nil, out, lerr
		}
		out.Index = t.answerState(&out.Degradation, v.Name)
		if out, err = t.graphFromDisk(ctx, v, rel, out, why); err != nil {
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
	if t.excluded(sub.Start.Vault, sub.Start.Path) {
		return nil, out, t.excludedNote(sub.Start.Vault, sub.Start.Path) // the index holds it under other rules
	}
	out.Index = t.answerState(&out.Degradation, sub.Start.Vault)
	out.Start = sub.Start
	out.Truncated = sub.Truncated
	out.NodesReached, out.LinksFound = sub.Reached, sub.EdgesFound
	// Files the index holds under other rules are left out, with the
	// links to and from them.
	at := make(map[string]int, len(sub.Nodes))
	for _, n := range sub.Nodes {
		if t.excluded(n.Vault, n.Path) {
			continue
		}
		at[n.Path] = len(out.Nodes)
		out.Nodes = append(out.Nodes, graphNode(n.Path, n.Title, n.Depth, n.Kind, n.Tags))
	}
	// The start note's own links come first: a model asked about one
	// note wants them before the links among its neighbours.
	for _, e := range startFirst(sub.Edges, sub.Start.Path) {
		from, ok1 := at[e.Source]
		to, ok2 := at[e.Target]
		if ok1 && ok2 {
			out.Edges = append(out.Edges, GraphEdge{From: from, To: to, Kind: e.Kind, Line: e.Line})
		}
	}
	for _, u := range sub.Unresolved {
		if from, ok := at[u.Source]; ok {
			out.Unresolved = append(out.Unresolved, GraphUnresolved{From: from, Target: u.Target, Line: u.Line})
		}
	}
	shortGraph(&out)
	return renderGraph(out), out, nil
}

// graphNode is a node of the answer, its title left out when it is the
// file name and its tags and title cut short.
func graphNode(path, title string, depth int, kind string, tags []string) GraphNode {
	if title == vault.TitleFromPath(path) {
		title = ""
	}
	n := GraphNode{Path: path, Title: clip(title, maxTitleChars), Depth: depth, Kind: kind}
	for i, tg := range tags {
		if i == maxNodeTags {
			break
		}
		n.Tags = append(n.Tags, clip(tg, maxTitleChars))
	}
	return n
}

// shortGraph cuts a graph answer, from the index or from the disk, to
// maxGraphNodes nodes, maxGraphEdges links and as many unresolved ones,
// and the start's title and its list of namesakes short. Nodes are cut
// only from the end, deepest first, so that the links kept still name
// nodes that are there.
func shortGraph(out *GraphOutput) {
	if len(out.Nodes) > maxGraphNodes {
		out.Nodes, out.Truncated = out.Nodes[:maxGraphNodes], true
		keep := func(i int) bool { return i < maxGraphNodes }
		out.Edges = slices.DeleteFunc(out.Edges, func(e GraphEdge) bool { return !keep(e.From) || !keep(e.To) })
		out.Unresolved = slices.DeleteFunc(out.Unresolved, func(u GraphUnresolved) bool { return !keep(u.From) })
	}
	if len(out.Edges) > maxGraphEdges {
		out.Edges, out.Truncated = out.Edges[:maxGraphEdges], true
	}
	if len(out.Unresolved) > maxGraphEdges {
		out.Unresolved, out.Truncated = out.Unresolved[:maxGraphEdges], true
	}
	out.NodesReached = max(out.NodesReached, len(out.Nodes))
	out.LinksFound = max(out.LinksFound, len(out.Edges))
	out.Start.Title = clip(out.Start.Title, maxTitleChars)
	if len(out.Start.Others) > maxAlsoMatches {
		out.Start.Others = out.Start.Others[:maxAlsoMatches]
	}
	for i := range out.Unresolved {
		out.Unresolved[i].Target = clip(out.Unresolved[i].Target, maxTextChars)
	}
}

// A graph answer holds at most maxGraphNodes nodes, and maxGraphEdges
// links and as many unresolved ones, and its text lists them all: a hub
// note at depth 2 reaches thousands of notes and links, far more than a
// model's context should take. Every item also costs time on each call:
// the SDK encodes the structured content, decodes it again to check it
// against the schema and encodes it once more, and the client decodes it,
// some 30 µs of CPU an object. And the nodes bound the walk: from the
// largest hub of a 10,000-note vault, 200 nodes left room for 87 at depth
// 2, for which the walk read the 2,000 links of depth 1 (27 ms of CPU a
// call in BenchmarkHub, client included); 100 stop at depth 1 (10 ms).
const (
	maxGraphNodes = 100
	maxGraphEdges = 100
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

// graphFromDisk answers without the index, from the start note found on
// disk: it parses the note and resolves its links against the files on
// disk, by link resolution's rules but for aliases, which only the index
// knows. why is the fallback's reason.
func (t *tools) graphFromDisk(ctx context.Context, v config.Vault, rel string, out GraphOutput, why string) (GraphOutput, error) {
	data, _, err := readNote(v, rel)
	if err != nil {
		return out, err
	}
	note, err := t.parse(ctx, rel, data)
	if err != nil {
		return out, err
	}
	out.degrade(why + "; showing the start note's own links, one level deep, resolved against the files on disk (a link to an alias shows as unresolved)")
	out.Start = graph.Match{Ref: graph.Ref{Vault: v.Name, Path: rel, Title: note.Title}, Kind: "note", By: graph.ByPath}
	files, _, err := vault.Scan(ctx, v.Path, v.Exclude)
	if err != nil {
		out.DegradedReason = why + ", and the vault's files could not be listed; showing the start note's own links as written, none resolved"
	}
	paths := make([]string, len(files))
	for i, f := range files {
		paths[i] = f.Path
	}
	resolver := vault.NewResolver(paths, nil)
	type link struct {
		to   string
		kind vault.LinkKind
		line int
	}
	var links []link
	var unresolved []GraphUnresolved
	reached := map[string]bool{}
	for _, l := range note.Links {
		p, ok := resolver.Resolve(rel, l.Target, l.Kind == vault.KindMarkdown)
		switch {
		case !ok:
			unresolved = append(unresolved, GraphUnresolved{Target: l.Target, Line: l.Line})
		case p != rel: // a link into the note itself leads nowhere new
			links = append(links, link{p, l.Kind, l.Line})
			reached[p] = true
		}
	}
	// Nodes by depth, then path, as the index orders them.
	at := map[string]int{rel: 0}
	out.Nodes = []GraphNode{graphNode(rel, note.Title, 0, "note", tagNames(note))}
	for _, p := range slices.Sorted(maps.Keys(reached)) {
		kind := "attachment"
		if vault.IsNote(p) {
			kind = "note"
		}
		at[p] = len(out.Nodes)
		out.Nodes = append(out.Nodes, graphNode(p, "", 1, kind, nil))
	}
	for _, l := range links {
		out.Edges = append(out.Edges, GraphEdge{From: 0, To: at[l.to], Kind: string(l.kind), Line: l.line})
	}
	out.Unresolved = append(out.Unresolved, unresolved...)
	out.NodesReached, out.LinksFound = len(out.Nodes), len(out.Edges)
	return out, nil
}

// readStored is the note whose content is data as the index stored it,
// when the index read that very content, and else data parsed (see
// parse): a large note is parsed once, by the index, not on every read.
// A stored note that cannot be read is parsed too.
func (t *tools) readStored(ctx context.Context, vaultName, rel string, data []byte) (vault.Note, error) {
	if t.stored != nil {
		sum := sha256.Sum256(data)
		if note, ok, err := t.stored.StoredNote(ctx, vaultName, rel, hex.EncodeToString(sum[:])); err == nil && ok {
			return note, nil
		} else if ctx.Err() != nil {
			return vault.Note{}, ctx.Err()
		}
	}
	return t.parse(ctx, rel, data)
}

// parse reads a note for a tool within the parser's budget and the
// request's context. A note too complex to parse comes back by name only,
// with the parser's warning; only the end of ctx is an error.
func (t *tools) parse(ctx context.Context, rel string, data []byte) (vault.Note, error) {
	p := t.parser
	if p == nil {
		p = vault.NewParser()
	}
	note, err := p.Parse(ctx, rel, data)
	if err != nil && !errors.Is(err, vault.ErrTooComplex) {
		return note, err
	}
	return note, nil
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

func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

func renderGraph(out GraphOutput) *mcpsdk.CallToolResult {
	var b strings.Builder
	fmt.Fprintf(&b, "Links around **%s** (`%s`): %s", out.Start.Title, out.Start.Path, words.Count(len(out.Nodes), "node"))
	if out.NodesReached > len(out.Nodes) {
		fmt.Fprintf(&b, " of %d reached", out.NodesReached)
	}
	// The links are every link among the notes reached, whichever way
	// they go: a walk of incoming links lists the start note's own links
	// to them too.
	if out.LinksFound > len(out.Edges) {
		fmt.Fprintf(&b, ", %d of %d links among them (either way)", len(out.Edges), out.LinksFound)
	} else {
		fmt.Fprintf(&b, ", %s among them (either way)", words.Count(len(out.Edges), "link"))
	}
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
	b.WriteString(out.line())
	if f := freshness(out.Index); f != "" {
		fmt.Fprintf(&b, "\n> %s\n", f)
	}
	depth := -1
	for _, n := range out.Nodes {
		if n.Depth != depth {
			depth = n.Depth
			fmt.Fprintf(&b, "\nDepth %d:\n", depth)
		}
		switch {
		case n.Kind == "attachment":
			fmt.Fprintf(&b, "- `%s` (attachment)", n.Path)
		case n.Title == "":
			fmt.Fprintf(&b, "- `%s`", n.Path)
		default:
			fmt.Fprintf(&b, "- %s (`%s`)", n.Title, n.Path)
		}
		if len(n.Tags) > 0 {
			fmt.Fprintf(&b, " #%s", strings.Join(n.Tags, " #"))
		}
		b.WriteString("\n")
	}
	path := func(i int) string {
		if i >= 0 && i < len(out.Nodes) {
			return out.Nodes[i].Path
		}
		return "?"
	}
	if len(out.Edges) > 0 {
		b.WriteString("\nLinks:\n")
		// Links of one kind on one line to one note, as [[Ideas]] and
		// [[Essays/Ideas]] side by side, are one line with their count.
		type key struct {
			from, line, to int
			kind           string
		}
		var order []key
		count := map[key]int{}
		for _, e := range out.Edges {
			k := key{e.From, e.Line, e.To, e.Kind}
			if count[k] == 0 {
				order = append(order, k)
			}
			count[k]++
		}
		for _, k := range order {
			kind := k.kind
			if count[k] > 1 {
				kind = words.Count(count[k], k.kind)
			}
			fmt.Fprintf(&b, "- `%s` line %d → `%s` (%s)\n", path(k.from), k.line, path(k.to), kind)
		}
	}
	if len(out.Unresolved) > 0 {
		b.WriteString("\nLinks to missing notes:\n")
		for _, u := range out.Unresolved {
			fmt.Fprintf(&b, "- `%s` line %d → %s\n", path(u.From), u.Line, quoteArg(u.Target))
		}
	}
	return textResult(b.String())
}

// startFirst orders links with those of the start note itself (to it or
// from it) first, which a model asked about one note wants before the
// links among its neighbours; the order within each part is kept.
func startFirst(edges []graph.Edge, start string) []graph.Edge {
	out := make([]graph.Edge, 0, len(edges))
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

// linkers is what a link graph may tell of the links that lead to no
// note yet: the notes that link to a name no note has.
type linkers interface {
	LinkersOf(ctx context.Context, vault, target string, limit int) ([]graph.Ref, int, error)
}

// wantedNote says, of a name no note has that notes link to (an
// unresolved link target), that the note does not exist yet and which
// notes link to it; "" when none does, or the graph cannot say.
func (t *tools) wantedNote(ctx context.Context, vaultName, ref string) string {
	const most = 5
	l, ok := t.graph.(linkers)
	if !ok {
		return ""
	}
	refs, total, err := l.LinkersOf(ctx, vaultName, ref, most)
	if err != nil || total == 0 {
		return ""
	}
	var names []string
	for _, r := range refs {
		if !t.excluded(r.Vault, r.Path) {
			names = append(names, r.Path)
		}
	}
	if len(names) == 0 {
		return ""
	}
	if total > len(names) {
		names = append(names, fmt.Sprintf("%d more", total-len(names)))
	}
	return fmt.Sprintf("no note %s exists yet; %s to it: %s. Start from %s, or create the note", quoteArg(ref), words.CountAs(total, "note links", "notes link"), words.List(names), words.Agree(total, "it", "one of them"))
}

package graph_test

import (
	"bufio"
	"cmp"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/jarvis-mcp/jarvis/internal/graph"
	"github.com/jarvis-mcp/jarvis/internal/sharedtest"
)

// readmeLinks are the resolved rows of the table "Every link and where it
// resolves" in examples/README.md, as "source -> target (kind)", written by
// hand from the notes and independent of the indexer and of Traverse.
func readmeLinks(t *testing.T) []string {
	t.Helper()
	f, err := os.Open(filepath.Join("..", "..", "examples", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	row := regexp.MustCompile("^\\| `([^`]+)` \\| .* \\| (link|embed|markdown|frontmatter) \\| (.*) \\|$")
	firstPath := regexp.MustCompile("`([^`]+)`")
	var out []string
	inTable := false
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "## Every link and where it resolves") {
			inTable = true
			continue
		}
		if !inTable {
			continue
		}
		if strings.HasPrefix(line, "#") {
			break
		}
		m := row.FindStringSubmatch(line)
		if m == nil || strings.Contains(m[3], "unresolved") {
			continue
		}
		target := firstPath.FindStringSubmatch(m[3])
		if target == nil {
			t.Fatalf("README row without a target path: %s", line)
		}
		out = append(out, fmt.Sprintf("%s -> %s (%s)", m[1], target[1], m[2]))
	}
	if len(out) != 60 {
		t.Fatalf("README lists %d resolved links; it says 60", len(out))
	}
	return out
}

// inducedEdges are the README's links between two of nodes, links from a
// note to itself left out, sorted.
func inducedEdges(t *testing.T, nodes []string) []string {
	t.Helper()
	var out []string
	for _, l := range readmeLinks(t) {
		src, rest, _ := strings.Cut(l, " -> ")
		tgt, _, _ := strings.Cut(rest, " (")
		if src != tgt && slices.Contains(nodes, src) && slices.Contains(nodes, tgt) {
			out = append(out, l)
		}
	}
	slices.Sort(out)
	return out
}

// nodeList renders nodes as "depth path", in the order returned.
func nodeList(sg *graph.Subgraph) []string {
	var out []string
	for _, n := range sg.Nodes {
		out = append(out, fmt.Sprintf("%d %s", n.Depth, n.Path))
	}
	return out
}

func nodePaths(sg *graph.Subgraph) []string {
	var out []string
	for _, n := range sg.Nodes {
		out = append(out, n.Path)
	}
	return out
}

// edgeList renders edges as "source:line -> target (kind) text", in the
// order returned.
func edgeList(sg *graph.Subgraph) []string {
	var out []string
	for _, e := range sg.Edges {
		out = append(out, fmt.Sprintf("%s:%d -> %s (%s) %s", e.Source, e.Line, e.Target, e.Kind, e.Text))
	}
	return out
}

// edgeSet renders edges the way inducedEdges does, sorted.
func edgeSet(sg *graph.Subgraph) []string {
	var out []string
	for _, e := range sg.Edges {
		out = append(out, fmt.Sprintf("%s -> %s (%s)", e.Source, e.Target, e.Kind))
	}
	slices.Sort(out)
	return out
}

// checkOrder checks the documented order of nodes and edges.
func checkOrder(t *testing.T, sg *graph.Subgraph) {
	t.Helper()
	if !slices.IsSortedFunc(sg.Nodes, func(a, b graph.Node) int {
		return cmp.Or(cmp.Compare(a.Depth, b.Depth), cmp.Compare(a.Path, b.Path))
	}) {
		t.Errorf("nodes not ordered by depth, then path: %v", nodeList(sg))
	}
	if !slices.IsSortedFunc(sg.Edges, func(a, b graph.Edge) int {
		return cmp.Or(cmp.Compare(a.Source, b.Source), cmp.Compare(a.Line, b.Line), cmp.Compare(a.Target, b.Target))
	}) {
		t.Errorf("edges not ordered by source, line, target: %v", edgeList(sg))
	}
}

func TestTraverseExampleVault(t *testing.T) {
	g := indexed(t, nil)
	ctx := context.Background()
	tests := []struct {
		name      string
		q         graph.Query
		nodes     []string // "depth path"
		edges     []string // exact, when given; otherwise the README's links among the nodes
		edgeCount int      // counted by hand from the README, when edges are not given
		unresolve []string // "source:line target"
	}{
		{
			name:  "out depth 1",
			q:     graph.Query{Start: "Methods/Cold brew.md", Depth: 1, Direction: graph.Out},
			nodes: []string{"0 Methods/Cold brew.md", "1 Beans/Colombia Huila.md", "1 Methods/Pour over.md"},
			// Every link among the three, the two back to Cold brew
			// included, and none for Pour over's own [[#Troubleshooting]].
			edges: []string{
				"Beans/Colombia Huila.md:10 -> Methods/Cold brew.md (link) Cold brew",
				"Methods/Cold brew.md:11 -> Beans/Colombia Huila.md (link) Colombian",
				"Methods/Cold brew.md:13 -> Methods/Pour over.md (link) V60",
				"Methods/Pour over.md:27 -> Beans/Colombia Huila.md (link) Colombia Huila",
			},
		},
		{
			name: "out depth 2",
			q:    graph.Query{Start: "Methods/Cold brew.md", Depth: 2, Direction: graph.Out},
			nodes: []string{"0 Methods/Cold brew.md", "1 Beans/Colombia Huila.md", "1 Methods/Pour over.md",
				"2 Beans/Ethiopia Guji.md", "2 Brewing ratios.md", "2 Gear/Grinder.md", "2 Gear/Kettle.md",
				"2 Methods/AeroPress.md", "2 Methods/French press.md"},
			edgeCount: 18,
		},
		{
			name:  "in depth 1",
			q:     graph.Query{Start: "Water.md", Depth: 1, Direction: graph.In},
			nodes: []string{"0 Water.md", "1 Beans/Ethiopia Guji.md", "1 Coffee journal.md", "1 Gear/Kettle.md"},
			// Water's own links to two of the notes that link to it are
			// links among the nodes too.
			edges: []string{
				"Beans/Ethiopia Guji.md:17 -> Water.md (link) Water#Hardness",
				"Coffee journal.md:16 -> Gear/Kettle.md (link) Gear/Kettle",
				"Coffee journal.md:18 -> Water.md (link) Water#^soft-water",
				"Gear/Kettle.md:10 -> Water.md (link) Water",
				"Water.md:13 -> Beans/Ethiopia Guji.md (link) Guji",
				"Water.md:19 -> Gear/Kettle.md (link) Kettle",
			},
		},
		{
			name: "in depth 2",
			q:    graph.Query{Start: "Water.md", Depth: 2, Direction: graph.In},
			nodes: []string{"0 Water.md", "1 Beans/Ethiopia Guji.md", "1 Coffee journal.md", "1 Gear/Kettle.md",
				"2 Beans/Colombia Huila.md", "2 Beans/Index.md", "2 Brewing ratios.md", "2 Methods/Pour over.md", "2 喫茶店めぐり.md"},
			edgeCount: 25,
			// Coffee journal's unresolved links are not followed: only
			// links into the notes are.
		},
		{
			name:  "both depth 1",
			q:     graph.Query{Start: "Current setup.md", Depth: 1, Direction: graph.Both},
			nodes: []string{"0 Current setup.md", "1 Coffee journal.md", "1 Gear/Grinder.md", "1 brew-station.png"},
			edges: []string{
				"Coffee journal.md:11 -> Current setup.md (embed) Current setup",
				"Coffee journal.md:16 -> Gear/Grinder.md (link) Grinder",
				"Coffee journal.md:22 -> Gear/Grinder.md (link) Grinder#Grind settings",
				"Current setup.md:6 -> brew-station.png (embed) brew-station.png",
				"Current setup.md:8 -> Gear/Grinder.md (link) Grinder",
			},
		},
		{
			// Every file but AeroPress: it links only to Brewing ratios and
			// only Methods/Index and Colombia Huila link to it, which are
			// two links away from Current setup.
			name: "both depth 2",
			q:    graph.Query{Start: "Current setup.md", Depth: 2, Direction: graph.Both},
			nodes: []string{"0 Current setup.md", "1 Coffee journal.md", "1 Gear/Grinder.md", "1 brew-station.png",
				"2 Beans/Colombia Huila.md", "2 Beans/Ethiopia Guji.md", "2 Beans/Index.md", "2 Beans/Roast levels.md",
				"2 Brewing ratios.md", "2 Gear/Kettle.md", "2 Gear/Scale.md", "2 Methods/Cold brew.md",
				"2 Methods/French press.md", "2 Methods/Index.md", "2 Methods/Pour over.md", "2 Water.md", "2 喫茶店めぐり.md"},
			// The README's 60 resolved links, less Pour over's link to
			// itself and the three that touch AeroPress.
			edgeCount: 56,
			unresolve: []string{"Coffee journal.md:25 Espresso", "Coffee journal.md:26 Moka pot"},
		},
		{
			name:      "out depth 1 from the hub",
			q:         graph.Query{Start: "Coffee journal.md", Depth: 1, Direction: graph.Out},
			unresolve: []string{"Coffee journal.md:25 Espresso", "Coffee journal.md:26 Moka pot"},
			nodes: []string{"0 Coffee journal.md", "1 Beans/Colombia Huila.md", "1 Beans/Index.md", "1 Beans/Roast levels.md",
				"1 Brewing ratios.md", "1 Current setup.md", "1 Gear/Grinder.md", "1 Gear/Kettle.md", "1 Gear/Scale.md",
				"1 Methods/Cold brew.md", "1 Methods/French press.md", "1 Methods/Index.md", "1 Methods/Pour over.md",
				"1 Water.md", "1 喫茶店めぐり.md"},
		},
		{
			// An attachment is expanded when it is the start.
			name:  "in depth 2 from an attachment",
			q:     graph.Query{Start: "brew-station.png", Depth: 2, Direction: graph.In},
			nodes: []string{"0 brew-station.png", "1 Current setup.md", "2 Coffee journal.md"},
			edges: []string{
				"Coffee journal.md:11 -> Current setup.md (embed) Current setup",
				"Current setup.md:6 -> brew-station.png (embed) brew-station.png",
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sg, err := g.Traverse(ctx, tt.q)
			if err != nil {
				t.Fatal(err)
			}
			if got := nodeList(sg); !reflect.DeepEqual(got, tt.nodes) {
				t.Errorf("nodes:\n got %q\nwant %q", got, tt.nodes)
			}
			if tt.edges != nil {
				if got := edgeList(sg); !reflect.DeepEqual(got, tt.edges) {
					t.Errorf("edges:\n got %q\nwant %q", got, tt.edges)
				}
			}
			if tt.edgeCount != 0 && len(sg.Edges) != tt.edgeCount {
				t.Errorf("%d edges; want %d", len(sg.Edges), tt.edgeCount)
			}
			if got, want := edgeSet(sg), inducedEdges(t, nodePaths(sg)); !reflect.DeepEqual(got, want) {
				t.Errorf("edges differ from the README's links among the nodes:\n got %q\nwant %q", got, want)
			}
			var un []string
			for _, u := range sg.Unresolved {
				un = append(un, fmt.Sprintf("%s:%d %s", u.Source, u.Line, u.Target))
			}
			if !reflect.DeepEqual(un, tt.unresolve) {
				t.Errorf("unresolved = %q; want %q", un, tt.unresolve)
			}
			if sg.Truncated {
				t.Error("truncated; the example vault fits in the default cap")
			}
			checkOrder(t, sg)
		})
	}
}

func TestTraverseNodeDetails(t *testing.T) {
	g := indexed(t, nil)
	sg, err := g.Traverse(context.Background(), graph.Query{Vault: "coffee", Start: "v60", Depth: 1, Direction: graph.In})
	if err != nil {
		t.Fatal(err)
	}
	if sg.Start.Path != "Methods/Pour over.md" || sg.Start.By != graph.ByAlias {
		t.Fatalf("start = %+v; want Pour over by alias", sg.Start)
	}
	start := sg.Nodes[0]
	want := graph.Node{Vault: "coffee", Path: "Methods/Pour over.md", Title: "Pour over", Depth: 0,
		Tags: []string{"coffee", "method/percolation"}, Kind: "note"}
	if !reflect.DeepEqual(start, want) {
		t.Errorf("start node = %+v; want %+v", start, want)
	}
	// The frontmatter tag and the inline one, once each.
	for _, n := range sg.Nodes {
		if n.Path == "Methods/French press.md" {
			if want := []string{"coffee", "method/immersion"}; !reflect.DeepEqual(n.Tags, want) {
				t.Errorf("French press tags = %q; want %q", n.Tags, want)
			}
		}
		if n.Path == "Methods/Pour over.md" && n.Depth != 0 {
			t.Errorf("the start note appears again: %+v", n)
		}
	}
	var bloom graph.Edge
	for _, e := range sg.Edges {
		if e.Source == e.Target {
			t.Errorf("self-link in edges: %+v", e)
		}
		if e.Source == "Methods/French press.md" {
			bloom = e
		}
	}
	if bloom.Subpath != "^bloom" || bloom.Text != "pour over" || bloom.Kind != "link" || !bloom.Resolved {
		t.Errorf("edge from French press = %+v", bloom)
	}

	sg, err = g.Traverse(context.Background(), graph.Query{Start: "Current setup", Depth: 1, Direction: graph.Out})
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range sg.Nodes {
		if n.Path == "brew-station.png" && (n.Kind != "attachment" || n.Title != "" || n.Tags != nil) {
			t.Errorf("attachment node = %+v", n)
		}
	}
}

func TestTraverseAttachmentsAndDuplicates(t *testing.T) {
	g := indexed(t, map[string]string{
		// A second note embedding the same image: an attachment reached
		// from Current setup does not lead on to it.
		"Gallery.md": "# Gallery\n![[brew-station.png]]\n",
		// The same link twice on one line is one edge; on two lines, two.
		"Twice.md": "# Twice\n[[Scale]] and [[Scale]]\n[[Scale]] again.\n",
	})
	ctx := context.Background()
	sg, err := g.Traverse(ctx, graph.Query{Start: "Current setup", Depth: 2, Direction: graph.Both})
	if err != nil {
		t.Fatal(err)
	}
	if slices.Contains(nodePaths(sg), "Gallery.md") {
		t.Errorf("traversal went on through the attachment: %q", nodeList(sg))
	}
	sg, err = g.Traverse(ctx, graph.Query{Start: "brew-station.png", Depth: 1, Direction: graph.In})
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"0 brew-station.png", "1 Current setup.md", "1 Gallery.md"}; !reflect.DeepEqual(nodeList(sg), want) {
		t.Errorf("from the attachment: %q; want %q", nodeList(sg), want)
	}

	sg, err = g.Traverse(ctx, graph.Query{Start: "Twice", Depth: 1, Direction: graph.Out})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"Twice.md:2 -> Gear/Scale.md (link) Scale", "Twice.md:3 -> Gear/Scale.md (link) Scale"}
	if got := edgeList(sg); !reflect.DeepEqual(got, want) {
		t.Errorf("edges = %q; want %q", got, want)
	}
}

func TestTraverseTruncates(t *testing.T) {
	g := indexed(t, nil)
	ctx := context.Background()

	// The level at depth 2 has room for one file. Brewing ratios and Pour
	// over are each linked three times from or to Coffee journal and
	// Grinder, more than any other, and Brewing ratios was indexed first
	// (the indexer walks folders in name order).
	sg, err := g.Traverse(ctx, graph.Query{Start: "Current setup", Depth: 2, Direction: graph.Both, MaxNodes: 5})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"0 Current setup.md", "1 Coffee journal.md", "1 Gear/Grinder.md", "1 brew-station.png", "2 Brewing ratios.md"}
	if got := nodeList(sg); !reflect.DeepEqual(got, want) || !sg.Truncated {
		t.Errorf("nodes = %q, truncated %v; want %q, truncated", got, sg.Truncated, want)
	}
	if got, want := edgeSet(sg), inducedEdges(t, nodePaths(sg)); !reflect.DeepEqual(got, want) {
		t.Errorf("edges:\n got %q\nwant %q", got, want)
	}
	if sg.Reached <= len(sg.Nodes) || sg.EdgesFound != len(sg.Edges) {
		t.Errorf("reached %d files for %d nodes, found %d edges for %d; want more files reached than kept, every edge found kept",
			sg.Reached, len(sg.Nodes), sg.EdgesFound, len(sg.Edges))
	}

	// A tie at depth 1 goes to the files indexed first.
	sg, err = g.Traverse(ctx, graph.Query{Start: "Current setup", Depth: 3, MaxNodes: 3})
	if err != nil {
		t.Fatal(err)
	}
	want = []string{"0 Current setup.md", "1 Coffee journal.md", "1 Gear/Grinder.md"}
	if got := nodeList(sg); !reflect.DeepEqual(got, want) || !sg.Truncated {
		t.Errorf("nodes = %q, truncated %v; want %q, truncated", got, sg.Truncated, want)
	}

	// Only the start fits, of the four files at depth 0 and 1.
	sg, err = g.Traverse(ctx, graph.Query{Start: "Current setup", MaxNodes: 1})
	if err != nil {
		t.Fatal(err)
	}
	if got := nodeList(sg); len(got) != 1 || len(sg.Edges) != 0 || !sg.Truncated || sg.Reached != 4 {
		t.Errorf("max 1 node: nodes %q, edges %q, truncated %v, reached %d; want 4 reached", got, edgeList(sg), sg.Truncated, sg.Reached)
	}

	// Exactly full is not truncated when nothing is left out.
	sg, err = g.Traverse(ctx, graph.Query{Start: "Current setup", Depth: 1, MaxNodes: 4})
	if err != nil {
		t.Fatal(err)
	}
	if len(sg.Nodes) != 4 || sg.Truncated || sg.Reached != 4 {
		t.Errorf("max 4 nodes: %q, truncated %v, reached %d", nodeList(sg), sg.Truncated, sg.Reached)
	}
}

func TestTraverseCapsEdges(t *testing.T) {
	var b strings.Builder
	b.WriteString("# Chatty\n")
	for range 20 {
		b.WriteString("See [[Scale]].\n")
	}
	g := indexed(t, map[string]string{"Chatty.md": b.String()})
	sg, err := g.Traverse(context.Background(), graph.Query{Start: "Chatty", Depth: 1, Direction: graph.Out, MaxNodes: 2})
	if err != nil {
		t.Fatal(err)
	}
	// Two nodes allow ten edges; the first ten lines are kept.
	if len(sg.Edges) != 10 || !sg.Truncated || sg.Edges[0].Line != 2 || sg.Edges[9].Line != 11 || sg.EdgesFound != 20 {
		t.Errorf("edges = %q, truncated %v, %d found; want lines 2 to 11, truncated, 20 found", edgeList(sg), sg.Truncated, sg.EdgesFound)
	}

	// The start note's own links go before the links among its
	// neighbours (Coffee journal's two to Grinder), whatever their place.
	sg, err = g.Traverse(context.Background(), graph.Query{Start: "Current setup", Depth: 1, Direction: graph.Both, MaxEdges: 3})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"Coffee journal.md:11 -> Current setup.md (embed) Current setup",
		"Current setup.md:6 -> brew-station.png (embed) brew-station.png",
		"Current setup.md:8 -> Gear/Grinder.md (link) Grinder",
	}
	if got := edgeList(sg); !reflect.DeepEqual(got, want) || !sg.Truncated || sg.EdgesFound != 5 {
		t.Errorf("edges = %q, truncated %v, %d found; want %q, truncated, 5 found", got, sg.Truncated, sg.EdgesFound, want)
	}
}

// TestTraverseReadsAFewLinksIntoAHub walks from a note 30 others link to,
// with room for 5 nodes: the level reads 10 of the 30 links (twice
// MaxNodes), keeps the notes indexed first, and still finds every link
// among the nodes.
func TestTraverseReadsAFewLinksIntoAHub(t *testing.T) {
	extra := map[string]string{"Hub.md": "# Hub\n"}
	for i := range 30 {
		extra[fmt.Sprintf("Fans/Fan %02d.md", i)] = "# Fan\nSee [[Hub]].\n"
	}
	extra["Fans/Fan 00.md"] = "# Fan\nSee [[Hub]] and [[Fan 01]].\n"
	g := indexed(t, extra)
	for _, dir := range []graph.Direction{graph.In, graph.Both} {
		sg, err := g.Traverse(context.Background(), graph.Query{Start: "Hub", Depth: 1, Direction: dir, MaxNodes: 5})
		if err != nil {
			t.Fatal(err)
		}
		want := []string{"0 Hub.md", "1 Fans/Fan 00.md", "1 Fans/Fan 01.md", "1 Fans/Fan 02.md", "1 Fans/Fan 03.md"}
		if got := nodeList(sg); !reflect.DeepEqual(got, want) || !sg.Truncated || sg.Reached != 11 {
			t.Errorf("%s: nodes %q, truncated %v, reached %d; want %q, truncated, 11 reached", dir, got, sg.Truncated, sg.Reached, want)
		}
		wantEdges := []string{
			"Fans/Fan 00.md:2 -> Fans/Fan 01.md (link) Fan 01",
			"Fans/Fan 00.md:2 -> Hub.md (link) Hub",
			"Fans/Fan 01.md:2 -> Hub.md (link) Hub",
			"Fans/Fan 02.md:2 -> Hub.md (link) Hub",
			"Fans/Fan 03.md:2 -> Hub.md (link) Hub",
		}
		if got := edgeList(sg); !reflect.DeepEqual(got, wantEdges) {
			t.Errorf("%s: edges\n got %q\nwant %q", dir, got, wantEdges)
		}
	}
}

func TestTraverseArguments(t *testing.T) {
	g := indexed(t, nil)
	ctx := context.Background()
	bad := []struct {
		name string
		q    graph.Query
		want string
	}{
		{"depth too deep", graph.Query{Start: "Water", Depth: 9}, "depth must be 1 to 5; got 9"},
		{"negative depth", graph.Query{Start: "Water", Depth: -1}, "depth must be 1 to 5; got -1"},
		{"unknown direction", graph.Query{Start: "Water", Direction: "sideways"}, `direction must be "out", "in" or "both"; got "sideways"`},
		{"too many nodes", graph.Query{Start: "Water", MaxNodes: 5000}, "max nodes must be 1 to 1000; got 5000"},
		{"negative nodes", graph.Query{Start: "Water", MaxNodes: -3}, "max nodes must be 1 to 1000; got -3"},
		{"too many edges", graph.Query{Start: "Water", MaxEdges: 5001}, "max edges must be 1 to 5000; got 5001"},
		{"no start", graph.Query{Start: "  "}, "no note given; pass a path, title or alias"},
	}
	for _, tt := range bad {
		t.Run(tt.name, func(t *testing.T) {
			_, err := g.Traverse(ctx, tt.q)
			if !errors.Is(err, graph.ErrInvalidQuery) || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err = %v; want ErrInvalidQuery saying %q", err, tt.want)
			}
		})
	}

	// Zero values are the defaults: depth 1, both directions, 200 nodes.
	// Directions are read without regard to case.
	def, err := g.Traverse(ctx, graph.Query{Start: "Water"})
	if err != nil {
		t.Fatal(err)
	}
	explicit, err := g.Traverse(ctx, graph.Query{Start: "Water", Depth: 1, Direction: "BOTH", MaxNodes: 200})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(def, explicit) {
		t.Errorf("defaults differ from depth 1, both, 200:\n%+v\n%+v", def, explicit)
	}

	_, err = g.Traverse(ctx, graph.Query{Start: "Pour ovr"})
	var nf *graph.NotFoundError
	if !errors.As(err, &nf) || len(nf.Suggestions) == 0 || nf.Suggestions[0].Path != "Methods/Pour over.md" {
		t.Fatalf("misspelt start: err = %v", err)
	}
}

func TestTraverseStaysInItsVault(t *testing.T) {
	g := twoVaults(t)
	// Water.md in tea, not the coffee one, and nothing of coffee.
	sg, err := g.Traverse(context.Background(), graph.Query{Start: "Sencha", Depth: 2, Direction: graph.Both})
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"0 Sencha.md", "1 Water.md"}; !reflect.DeepEqual(nodeList(sg), want) || sg.Nodes[1].Vault != "tea" {
		t.Fatalf("from Sencha: %+v", sg.Nodes)
	}
}

// TestTraverseHelpVault checks neighbourhoods in the Obsidian Help vault
// against the notes as read: Linking notes and files/Aliases.md and
// Getting started/Link notes.md.
func TestTraverseHelpVault(t *testing.T) {
	g := graph.New(indexVault(t, "en", sharedtest.Path(t, "vaults/obsidian-help/en")))
	ctx := context.Background()

	// Aliases.md links to Internal links (lines 15, 17 as an embed, 38 and
	// 52), Properties (21) and Backlinks (48). The [[...]] in its code
	// block and inline code are not links.
	sg, err := g.Traverse(ctx, graph.Query{Vault: "en", Start: "aliases", Direction: graph.Out})
	if err != nil {
		t.Fatal(err)
	}
	if sg.Start.Path != "Linking notes and files/Aliases.md" || sg.Start.By != graph.ByName {
		t.Fatalf("start = %+v", sg.Start)
	}
	want := []string{"0 Linking notes and files/Aliases.md", "1 Editing and formatting/Properties.md",
		"1 Linking notes and files/Internal links.md", "1 Plugins/Backlinks.md"}
	if got := nodeList(sg); !reflect.DeepEqual(got, want) {
		t.Errorf("outgoing: %q; want %q", got, want)
	}
	var fromAliases []string
	for _, e := range sg.Edges {
		if e.Source == "Linking notes and files/Aliases.md" {
			fromAliases = append(fromAliases, fmt.Sprintf("%d %s %s %s", e.Line, e.Kind, e.Target, e.Text))
		}
	}
	wantEdges := []string{
		"15 link Linking notes and files/Internal links.md Change the link display text",
		"17 embed Linking notes and files/Internal links.md Internal links#^callout-internal-links-link-text",
		"21 link Editing and formatting/Properties.md Properties",
		"38 link Linking notes and files/Internal links.md internal link",
		"48 link Plugins/Backlinks.md Backlinks",
		"52 link Linking notes and files/Internal links.md internal link",
	}
	if !reflect.DeepEqual(fromAliases, wantEdges) {
		t.Errorf("links from Aliases:\n got %q\nwant %q", fromAliases, wantEdges)
	}

	// Five notes link to it: [[Aliases]], [[Aliases|alias]] and
	// [[aliases]] (in Advanced formatting syntax, resolved by file name
	// without regard to case).
	sg, err = g.Traverse(ctx, graph.Query{Vault: "en", Start: "How to/Add aliases to note", Direction: graph.In})
	if err != nil {
		t.Fatal(err)
	}
	want = []string{"0 Linking notes and files/Aliases.md", "1 Editing and formatting/Advanced formatting syntax.md",
		"1 Editing and formatting/Properties.md", "1 Linking notes and files/Internal links.md",
		"1 Obsidian Publish/Permalinks.md", "1 Plugins/Outgoing links.md"}
	if got := nodeList(sg); !reflect.DeepEqual(got, want) || sg.Start.By != graph.ByAlias {
		t.Errorf("incoming: %q (start by %s); want %q by alias", got, sg.Start.By, want)
	}

	// Link notes.md links to Create your first note, embeds an icon twice
	// (lines 49 and 55) and links to [[graph view]].
	sg, err = g.Traverse(ctx, graph.Query{Vault: "en", Start: "Getting started/Link notes", Direction: graph.Out})
	if err != nil {
		t.Fatal(err)
	}
	want = []string{"0 Getting started/Link notes.md", "1 Attachments/icons/lucide-more-horizontal.svg",
		"1 Getting started/Create your first note.md", "1 Plugins/Graph view.md"}
	if got := nodeList(sg); !reflect.DeepEqual(got, want) {
		t.Errorf("outgoing: %q; want %q", got, want)
	}
	var icon []int
	for _, e := range sg.Edges {
		if e.Target == "Attachments/icons/lucide-more-horizontal.svg" && e.Kind == "embed" {
			icon = append(icon, e.Line)
		}
	}
	if !reflect.DeepEqual(icon, []int{49, 55}) || sg.Nodes[1].Kind != "attachment" {
		t.Errorf("icon embeds on lines %v, node %+v; want lines 49 and 55, an attachment", icon, sg.Nodes[1])
	}
	checkOrder(t, sg)
}

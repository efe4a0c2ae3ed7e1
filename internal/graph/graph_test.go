package graph_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"path/filepath"
	"reflect"
	"slices"
	"testing"

	"github.com/jarvis-mcp/jarvis/internal/config"
	"github.com/jarvis-mcp/jarvis/internal/graph"
	"github.com/jarvis-mcp/jarvis/internal/index"
	"github.com/jarvis-mcp/jarvis/internal/store"
	"github.com/jarvis-mcp/jarvis/internal/vault"

	"github.com/jarvis-mcp/jarvis/internal/sharedtest"
)

// indexed indexes the example vault (plus extra notes written into a copy)
// into a fresh database and returns the graph over it.
func indexed(t *testing.T, extra map[string]string) *graph.Graph {
	t.Helper()
	return graph.New(indexedDB(t, extra))
}

// indexedDB is indexed without the graph, for tests that watch the queries.
func indexedDB(t *testing.T, extra map[string]string) *store.DB {
	t.Helper()
	root := t.TempDir()
	sharedtest.CopyTree(t, filepath.Join("..", "..", "examples", "vault"), root)
	for rel, content := range extra {
		sharedtest.WriteFile(t, root, rel, content)
	}
	return indexVault(t, "coffee", root)
}

// indexVault indexes the vault at root under name into a fresh database
// with the real indexer.
func indexVault(tb testing.TB, name, root string) *store.DB {
	tb.Helper()
	db, err := store.Open(context.Background(), filepath.Join(tb.TempDir(), "j.db"), store.Options{})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { db.Close() })
	indexInto(tb, db, name, root)
	return db
}

// indexInto indexes one more vault into db.
func indexInto(tb testing.TB, db *store.DB, name, root string) {
	tb.Helper()
	ix := index.New(db, vault.NewParser(), slog.New(slog.NewTextHandler(io.Discard, nil)))
	if _, err := ix.Index(context.Background(), config.Vault{Name: name, Path: root}, nil); err != nil {
		tb.Fatal(err)
	}
}

func TestBacklinksAndOutlinks(t *testing.T) {
	g := indexed(t, nil)
	ctx := context.Background()

	// examples/README.md counts 8 incoming links for Pour over, its own
	// [[#Troubleshooting]] among them.
	back, err := g.Backlinks(ctx, "coffee", "Methods/Pour over.md")
	if err != nil {
		t.Fatal(err)
	}
	if len(back) != 8 {
		t.Fatalf("backlinks = %d; want 8: %+v", len(back), back)
	}
	for i := 1; i < len(back); i++ {
		if back[i-1].Source > back[i].Source {
			t.Fatalf("backlinks not ordered by source: %q before %q", back[i-1].Source, back[i].Source)
		}
	}
	var fromFrench graph.Edge
	for _, e := range back {
		if e.Source == "Methods/French press.md" {
			fromFrench = e
		}
	}
	if fromFrench.Subpath != "^bloom" || fromFrench.Text != "pour over" || !fromFrench.Resolved || fromFrench.Line == 0 || fromFrench.Context == "" {
		t.Fatalf("edge from French press = %+v", fromFrench)
	}

	out, err := g.Outlinks(ctx, "coffee", "Coffee journal.md")
	if err != nil {
		t.Fatal(err)
	}
	if len(out) != 17 {
		t.Fatalf("outlinks = %d; want 17", len(out))
	}
	if out[0].Target != "Methods/Pour over.md" || out[2].Kind != "embed" || out[2].Target != "Current setup.md" {
		t.Fatalf("first outlinks = %+v", out[:3])
	}
	var unresolved []string
	for _, e := range out {
		if !e.Resolved {
			unresolved = append(unresolved, e.Target)
		}
	}
	if !reflect.DeepEqual(unresolved, []string{"Espresso", "Moka pot"}) {
		t.Fatalf("unresolved outlinks = %v", unresolved)
	}

	if _, err := g.Backlinks(ctx, "coffee", "Nope.md"); !errors.Is(err, graph.ErrNoteNotFound) {
		t.Fatalf("missing note: err = %v", err)
	}
	if _, err := g.Outlinks(ctx, "other", "Coffee journal.md"); !errors.Is(err, graph.ErrNoteNotFound) {
		t.Fatalf("wrong vault: err = %v", err)
	}
}

func TestBacklinksUpTo(t *testing.T) {
	g := indexed(t, nil)
	ctx := context.Background()
	all, err := g.Backlinks(ctx, "coffee", "Methods/Pour over.md")
	if err != nil {
		t.Fatal(err)
	}
	var others []string
	for _, e := range all {
		if e.Source != "Methods/Pour over.md" {
			others = append(others, fmt.Sprintf("%s:%d", e.Source, e.Line))
		}
	}
	// Of the 8 incoming links, 7 come from other notes.
	for _, tt := range []struct {
		limit, edges int
	}{{10, 7}, {7, 7}, {3, 3}, {0, 0}} {
		page, err := g.BacklinksUpTo(ctx, "coffee", "Methods/Pour over.md", tt.limit)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, e := range page.Edges {
			got = append(got, fmt.Sprintf("%s:%d", e.Source, e.Line))
		}
		if page.Total != 7 || len(got) != tt.edges || !slices.IsSorted(got) {
			t.Errorf("limit %d: %q of %d; want %d of 7, by source", tt.limit, got, page.Total, tt.edges)
		}
		for _, e := range got {
			if !slices.Contains(others, e) {
				t.Errorf("limit %d: %s is not a link from another note (%q)", tt.limit, e, others)
			}
		}
	}
	if _, err := g.BacklinksUpTo(ctx, "coffee", "Nope.md", 10); !errors.Is(err, graph.ErrNoteNotFound) {
		t.Fatalf("missing note: err = %v", err)
	}
}

func TestUnresolvedAndOrphans(t *testing.T) {
	g := indexed(t, map[string]string{
		"Lonely.md":  "# Lonely\nNo links here, and nobody links here.\n",
		"Dreamer.md": "# Dreamer\nLinks only to [[espresso]] and [[Siphon]], which do not exist.\n",
		"Selfish.md": "# Selfish\nSee [[#Selfish]] and [[Selfish]].\n",
		"Pointer.md": "# Pointer\nPoints to [[Espresso]].\n",
	})
	ctx := context.Background()
	un, err := g.UnresolvedTargets(ctx, "coffee", 0)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, u := range un {
		got = append(got, u.Target)
	}
	// Espresso is linked three times across case; the rest once.
	// A group is shown as first written, in source path order.
	if !reflect.DeepEqual(got, []string{"Espresso", "Moka pot", "Siphon"}) {
		t.Fatalf("unresolved = %v", got)
	}
	if un[0].Count != 3 || len(un[0].Sources) != 3 {
		t.Fatalf("espresso = %+v; want 3 links from 3 notes", un[0])
	}
	if top, _ := g.UnresolvedTargets(ctx, "coffee", 1); len(top) != 1 {
		t.Fatalf("limit 1 gave %d", len(top))
	}

	orphans, err := g.Orphans(ctx, "coffee")
	if err != nil {
		t.Fatal(err)
	}
	// Notes with unresolved or self links only are orphans too.
	if want := []string{"Dreamer.md", "Lonely.md", "Pointer.md", "Selfish.md"}; !reflect.DeepEqual(orphans, want) {
		t.Fatalf("orphans = %v; want %v", orphans, want)
	}
}

func TestBrokenAnchors(t *testing.T) {
	g := indexed(t, map[string]string{"Anchors.md": `# Anchors

[[Pour over#Troubleshooting]] and [[Pour over#troubleshooting|the same, in lower case]] and [[Pour over#Troubleshooting?]]
[[Pour over#No such heading]]
[[Pour over#^bloom]] and [[Pour over#^nosuch]]
[[#Local]] and [[#Missing local]]
[[Missing note#Heading]]
[[#C# basics]] and [[#Local#Nested]]

## Local
### Nested
## C# basics
`})
	got, err := g.BrokenAnchors(context.Background(), "coffee")
	if err != nil {
		t.Fatal(err)
	}
	want := []graph.BrokenAnchor{
		{Source: "Anchors.md", Line: 4, Target: "Methods/Pour over.md", Subpath: "No such heading"},
		{Source: "Anchors.md", Line: 5, Target: "Methods/Pour over.md", Subpath: "^nosuch"},
		{Source: "Anchors.md", Line: 6, Target: "Anchors.md", Subpath: "Missing local"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("broken anchors:\n%+v\nwant\n%+v", got, want)
	}
}

// TestLinkedNotes: the notes a note links to, each once in the order of
// its first link, without the note's links to itself, to attachments or
// to nowhere.
func TestLinkedNotes(t *testing.T) {
	g := indexed(t, map[string]string{"Links.md": "[[Pour over]] and [[#Top]], ![[brew-station.png]], [[Kettle]], [[Nowhere]], [[Pour over#Recipe]]\n# Top\n"})
	got, err := g.LinkedNotes(context.Background(), "coffee", "Links.md")
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"Methods/Pour over.md", "Gear/Kettle.md"}; !reflect.DeepEqual(got, want) {
		t.Fatalf("LinkedNotes = %q; want %q", got, want)
	}
	if _, err := g.LinkedNotes(context.Background(), "coffee", "Nope.md"); !errors.Is(err, graph.ErrNoteNotFound) {
		t.Fatalf("missing note: err = %v", err)
	}
}

package graph_test

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
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
	// One worker writes the notes in the scan's path order, so that link
	// ids, which decide which links into a hub a walk reads first, do not
	// depend on which parse finished first.
	ix.Workers = 1
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

// TestBacklinksUpToOnAHub reads a page of a hub's backlinks while its
// linking notes are written, edited and deleted and the hub itself is
// moved: the page is always the links the index has held longest, by
// source path and line, and the total, which the index keeps as links
// change, always what counting the links gives.
func TestBacklinksUpToOnAHub(t *testing.T) {
	root := t.TempDir()
	write := func(rel, content string) { sharedtest.WriteFile(t, root, rel, content) }
	write("Hub.md", "# Hub\n\nSee [[#Hub]] and [[Hub]]; [[Other]].\n")
	write("Other.md", "# Other\n\nBack to [[Hub]].\n")
	for i := range 120 {
		body := fmt.Sprintf("# Linker %03d\n\nFiled under [[Hub]].\n", i)
		if i%10 == 0 {
			body += "Again: [[Hub#Hub|the hub]].\n"
		}
		write(fmt.Sprintf("Linkers/Linker %03d.md", i), body)
	}
	db := indexVault(t, "hubs", root)
	g := graph.New(db)
	ctx := context.Background()

	check := func(step, hub string, want int) {
		t.Helper()
		var id int64
		if err := db.QueryRowContext(ctx, `SELECT id FROM files WHERE path = ?`, hub).Scan(&id); err != nil {
			t.Fatalf("%s: %v", step, err)
		}
		var counted int
		if err := db.QueryRowContext(ctx, `SELECT count(*) FROM links WHERE target_id = ?1 AND source_id <> ?1`, id).Scan(&counted); err != nil {
			t.Fatal(err)
		}
		if counted != want {
			t.Fatalf("%s: %d links to %s; the test expects %d", step, counted, hub, want)
		}
		// The page: the 50 oldest links from other notes, by source path
		// and line.
		rows, err := db.QueryContext(ctx, `SELECT s.path, l.line FROM links l JOIN files s ON s.id = l.source_id
			WHERE l.id IN (SELECT id FROM links WHERE target_id = ?1 AND source_id <> ?1 ORDER BY id LIMIT 50)
			ORDER BY s.path, l.ord`, id)
		if err != nil {
			t.Fatal(err)
		}
		var wantPage []string
		for rows.Next() {
			var p string
			var line int
			if err := rows.Scan(&p, &line); err != nil {
				t.Fatal(err)
			}
			wantPage = append(wantPage, fmt.Sprintf("%s:%d", p, line))
		}
		rows.Close()
		for _, limit := range []int{50, want, want + 1} {
			page, err := g.BacklinksUpTo(ctx, "hubs", hub, limit)
			if err != nil {
				t.Fatalf("%s: %v", step, err)
			}
			if page.Total != want {
				t.Errorf("%s, limit %d: total %d; want %d", step, limit, page.Total, want)
			}
			if len(page.Edges) != min(limit, want) {
				t.Errorf("%s, limit %d: %d edges; want %d", step, limit, len(page.Edges), min(limit, want))
			}
			if limit != 50 {
				continue
			}
			var got []string
			for _, e := range page.Edges {
				if e.Target != hub || e.Source == hub {
					t.Errorf("%s: %+v is not a link to %s from another note", step, e, hub)
				}
				got = append(got, fmt.Sprintf("%s:%d", e.Source, e.Line))
			}
			if !slices.Equal(got, wantPage) {
				t.Errorf("%s: page\n%q\nwant\n%q", step, got, wantPage)
			}
		}
		checkBacklinkCounts(t, db.DB)
	}
	// 120 linkers, 12 of them twice, and Other.
	check("indexed", "Hub.md", 133)

	for i := range 20 {
		if err := os.Remove(filepath.Join(root, "Linkers", fmt.Sprintf("Linker %03d.md", i))); err != nil {
			t.Fatal(err)
		}
	}
	for i := 20; i < 30; i++ {
		write(fmt.Sprintf("Linkers/Linker %03d.md", i), fmt.Sprintf("# Linker %03d\n\nNo longer filed anywhere.\n", i))
	}
	write("Linkers/Linker 200.md", "# Linker 200\n\n[[Hub]], [[Hub]] and [[Other]].\n")
	indexInto(t, db, "hubs", root)
	// 20 deleted (2 of them twice), 10 edited (1 twice), 1 new (twice).
	check("edited", "Hub.md", 133-22-11+2)

	// Moved: the links [[Hub]] follow it.
	if err := os.MkdirAll(filepath.Join(root, "Hubs"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(filepath.Join(root, "Hub.md"), filepath.Join(root, "Hubs", "Hub.md")); err != nil {
		t.Fatal(err)
	}
	indexInto(t, db, "hubs", root)
	check("moved", "Hubs/Hub.md", 102)

	// Another Hub.md nearer the root takes the links [[Hub]] from it.
	write("Hub.md", "# Hub, again\n")
	indexInto(t, db, "hubs", root)
	if page, err := g.BacklinksUpTo(ctx, "hubs", "Hubs/Hub.md", 50); err != nil || page.Total != 0 || len(page.Edges) != 0 {
		t.Errorf("after another Hub.md: %d of %d, %v; want none", len(page.Edges), page.Total, err)
	}
	check("taken", "Hub.md", 102)
}

// checkBacklinkCounts fails when the backlink counts the index keeps
// differ from counting the links.
func checkBacklinkCounts(t *testing.T, db *sql.DB) {
	t.Helper()
	const kept, counted = `SELECT file_id, n FROM backlink_counts WHERE n <> 0`,
		`SELECT target_id, count(*) FROM links WHERE target_id IS NOT NULL AND target_id <> source_id GROUP BY target_id`
	var differ int
	err := db.QueryRow(`SELECT (SELECT count(*) FROM (` + kept + ` EXCEPT ` + counted + `))
		+ (SELECT count(*) FROM (` + counted + ` EXCEPT ` + kept + `))`).Scan(&differ)
	if err != nil {
		t.Fatal(err)
	}
	if differ != 0 {
		t.Fatalf("%d files whose kept backlink count differs from their links", differ)
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

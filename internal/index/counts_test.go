package index

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/jarvis-mcp/jarvis/internal/config"
	"github.com/jarvis-mcp/jarvis/internal/store"
)

// TestCountsFollowEveryChange makes every kind of change to two vaults in
// one database and, after each, compares the counts the vaults table keeps
// (what list-vaults and an index run's summary read) with a recount of the
// rows, and the run's summary with them.
func TestCountsFollowEveryChange(t *testing.T) {
	coffee, other := exampleVault(t), exampleVault(t)
	ix, _ := testIndexer(t, filepath.Join(t.TempDir(), "j.db"))
	db := ix.db.(*store.DB).DB
	write := func(root, rel, text string) {
		t.Helper()
		p := filepath.Join(root, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	remove := func(root, rel string) {
		t.Helper()
		if err := os.Remove(filepath.Join(root, filepath.FromSlash(rel))); err != nil {
			t.Fatal(err)
		}
	}
	// index runs one vault and checks its summary against the recount.
	index := func(name, root string) {
		t.Helper()
		res := mustIndex(t, ix, name, root)
		checkCounts(t, db)
		var notes, attachments, links, unresolved int
		if err := db.QueryRow(`SELECT notes, attachments, links, unresolved_links FROM vaults WHERE name = ?`, name).
			Scan(&notes, &attachments, &links, &unresolved); err != nil {
			t.Fatal(err)
		}
		got := []int{res.Notes, res.Attachments, res.Links, res.UnresolvedLinks, res.ResolvedLinks}
		if want := []int{notes, attachments, links, unresolved, links - unresolved}; !slices.Equal(got, want) {
			t.Fatalf("summary of %s counts %v (notes, attachments, links, unresolved, resolved); the rows hold %v", name, got, want)
		}
	}
	unresolved := func(name string) int {
		t.Helper()
		return count(t, db, `SELECT unresolved_links FROM vaults WHERE name = ?`, name)
	}

	index("coffee", coffee)
	index("other", other)
	if count(t, db, `SELECT count(*) FROM vaults WHERE links > unresolved_links AND unresolved_links > 0 AND chunks > 0`) != 2 {
		t.Fatal("the example vault should have resolved and unresolved links and chunks in both copies")
	}

	steps := []struct {
		name   string
		change func()
		check  func(t *testing.T)
	}{
		{"a note added, linking to a note that does not exist", func() {
			write(coffee, "Roasting/Plan.md", "# Plan\n\nFirst [[Roasting log]], then [[Water]] and ![[brew-station.png]].\n\n## Later\n\nMore text.\n")
		}, nil},
		{"an attachment added", func() { write(coffee, "Roasting/beans.pdf", "%PDF-1.4\n") }, nil},
		{"a note edited: links and chunks replaced", func() {
			write(coffee, "Roasting/Plan.md", "# Plan\n\n[[Roasting log]] and [[Kettle]] and [[Nowhere]] and [[beans.pdf]].\n")
		}, nil},
		{"the missing note appears: links to it resolve", func() {
			write(coffee, "Roasting log.md", "# Roasting log\n\nSee [[Plan]].\n")
		}, func(t *testing.T) {
			if got := linkTarget(t, db, "Roasting/Plan.md", 3, "link", "Roasting log", ""); got != "Roasting log.md" {
				t.Fatalf("the link resolves to %q", got)
			}
		}},
		{"the note goes again: links to it are unresolved", func() { remove(coffee, "Roasting log.md") }, nil},
		{"a linked note renamed", func() {
			if err := os.Rename(filepath.Join(coffee, "Gear", "Kettle.md"), filepath.Join(coffee, "Roasting", "Kettle.md")); err != nil {
				t.Fatal(err)
			}
		}, nil},
		{"a linked note deleted", func() { remove(coffee, "Water.md") }, nil},
		{"an embedded attachment deleted", func() { remove(coffee, "brew-station.png") }, nil},
		{"a folder of notes deleted", func() {
			if err := os.RemoveAll(filepath.Join(coffee, "Roasting")); err != nil {
				t.Fatal(err)
			}
		}, nil},
	}
	for _, s := range steps {
		t.Run(s.name, func(t *testing.T) {
			before := unresolved("other")
			s.change()
			index("coffee", coffee)
			if s.check != nil {
				s.check(t)
			}
			if got := unresolved("other"); got != before {
				t.Fatalf("a change to coffee moved the unresolved links of other from %d to %d", before, got)
			}
		})
	}

	t.Run("a file's kind changed in place", func(t *testing.T) {
		// Kind follows the file name today, but the indexer's upsert
		// rewrites it, as a future reading of some attachments as notes
		// would.
		if _, err := db.Exec(`UPDATE files SET kind = 'note' WHERE kind = 'attachment'`); err != nil {
			t.Fatal(err)
		}
		checkCounts(t, db)
		if _, err := db.Exec(`UPDATE files SET kind = 'attachment' WHERE path NOT LIKE '%.md'`); err != nil {
			t.Fatal(err)
		}
		checkCounts(t, db)
	})
	t.Run("a run cut off after its first batch", func(t *testing.T) {
		for i := range 5 {
			write(other, "New/Note "+string(rune('A'+i))+".md", "# New\n\n[[Water]] [[Missing]]\n")
		}
		remove(other, "Water.md")
		ix.BatchSize = 1
		defer func() { ix.BatchSize = 500 }()
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		_, err := ix.Index(ctx, config.Vault{Name: "other", Path: other}, func(phase Phase, done, total Counts) {
			if phase == PhaseWrite && done.Notes > 0 {
				cancel()
			}
		})
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("Index = %v; want it cancelled", err)
		}
		checkCounts(t, db)
		index("other", other)
	})
	t.Run("a vault forgotten", func(t *testing.T) {
		if _, err := ix.Forget(context.Background(), "other"); err != nil {
			t.Fatal(err)
		}
		checkCounts(t, db)
		index("other", other)
	})
	t.Run("the index cleared and built again", func(t *testing.T) {
		if err := ix.Clear(context.Background()); err != nil {
			t.Fatal(err)
		}
		checkCounts(t, db)
		index("coffee", coffee)
		index("other", other)
	})
	t.Run("same counts as a fresh index", func(t *testing.T) {
		fresh, _ := testIndexer(t, filepath.Join(t.TempDir(), "fresh.db"))
		mustIndex(t, fresh, "coffee", coffee)
		mustIndex(t, fresh, "other", other)
		q := `SELECT name, notes, attachments, links, unresolved_links, chunks FROM vaults ORDER BY name`
		if a, b := rowsText(t, db, q), rowsText(t, fresh.db.(*store.DB).DB, q); a != b {
			t.Fatalf("counts after every change:\n%s\na fresh index:\n%s", a, b)
		}
	})
}

// TestCountsOnUpgrade opens a database indexed before the vaults table
// kept counts (schema version 8): the migration counts what is there.
func TestCountsOnUpgrade(t *testing.T) {
	root := exampleVault(t)
	path := filepath.Join(t.TempDir(), "old.db")
	ix, _ := testIndexer(t, path)
	mustIndex(t, ix, "coffee", root)
	mustIndex(t, ix, "again", root)
	old := ix.db.(*store.DB)
	want := rowsText(t, old.DB, recount)
	for _, q := range slices.Concat(undoWriteFolders, undoFileCreated, undoWriteJournal, undoVaultGeneration, undoVaultRules, undoBacklinkCounts, undoTagFold, undoCounts, []string{`DELETE FROM schema_migrations WHERE version >= 9`}) {
		if _, err := old.Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	old.Close()

	upgraded, _ := testIndexer(t, path)
	db := upgraded.db.(*store.DB).DB
	checkCounts(t, db)
	if got := rowsText(t, db, recount); got != want {
		t.Fatalf("after the upgrade the rows count\n%s\nbefore it\n%s", got, want)
	}
	stats, err := Stats(context.Background(), db)
	if err != nil {
		t.Fatal(err)
	}
	var got strings.Builder
	for _, v := range stats {
		fmt.Fprintf(&got, "%s\t%d\t%d\t%d\t%d\t%d\n", v.Name, v.Notes, v.Attachments, v.Links, v.UnresolvedLinks, v.Passages)
	}
	if got.String() != want {
		t.Fatalf("Stats after the upgrade:\n%s\nwant\n%s", got.String(), want)
	}
}

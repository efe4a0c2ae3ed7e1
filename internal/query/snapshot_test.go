package query_test

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/jarvis-mcp/jarvis/internal/config"
	"github.com/jarvis-mcp/jarvis/internal/index"
	"github.com/jarvis-mcp/jarvis/internal/query"
	"github.com/jarvis-mcp/jarvis/internal/vault"
)

// TestFilesFollowTheIndex: query.Files hands out the same decoded vault
// while the index does not change, and what query.Load reads once it
// does: a note's frontmatter edited, a note added that a link of another
// note now resolves to (its backlinks), a note deleted, links resolved
// anew, other exclude patterns.
func TestFilesFollowTheIndex(t *testing.T) {
	ctx := context.Background()
	db, _, r := indexed(t)
	root := r.Dir()
	ix := index.New(db, vault.NewParser(), slog.New(slog.NewTextHandler(io.Discard, nil)))
	reindex := func() {
		t.Helper()
		if _, err := ix.Index(ctx, config.Vault{Name: "work", Path: root}, nil); err != nil {
			t.Fatal(err)
		}
	}
	same := func(step string, exclude []string) *query.Vault {
		t.Helper()
		got, err := query.Files(ctx, db, "work", exclude)
		if err != nil {
			t.Fatal(err)
		}
		want, err := query.Load(ctx, db, "work", exclude)
		if err != nil {
			t.Fatal(err)
		}
		if g, w := describe(got), describe(want); !slices.Equal(g, w) {
			t.Fatalf("%s: Files holds\n%v\nLoad reads\n%v", step, g, w)
		}
		return got
	}

	first := same("first read", nil)
	if again := same("nothing changed", nil); again != first {
		t.Fatal("nothing changed, but the vault was read again")
	}
	reindex()
	if again := same("an index run that changed nothing", nil); again != first {
		t.Fatal("an index run changed nothing, but the vault was read again")
	}

	write := func(rel, text string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(root, rel), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("Projects/Apollo.md", "---\nstatus: done\ntags: [project]\n---\n# Apollo\nSee [[Grace]] and [[Orion]].\n")
	reindex()
	edited := same("a note edited", nil)
	if f, _ := edited.File("Projects/Apollo.md"); f.Properties()["status"] != "done" {
		t.Fatalf("status = %v after the edit, want done", f.Properties()["status"])
	}

	write("Projects/Orion.md", "# Orion\n")
	reindex()
	added := same("a note added that a link resolves to", nil)
	if f, _ := added.File("Projects/Orion.md"); f == nil || !slices.Contains(f.Backlinks(), "Projects/Apollo.md") {
		t.Fatalf("Orion's backlinks do not hold Apollo: %v", f)
	}

	if err := os.Remove(filepath.Join(root, "People/Ada.md")); err != nil {
		t.Fatal(err)
	}
	reindex()
	if v := same("a note deleted", nil); slices.Contains(paths(v), "People/Ada.md") {
		t.Fatal("a deleted note is still in the vault")
	}

	// A resolution pass rewrites links of notes it does not write: as the
	// indexer's resolve step does when a note's name comes or goes.
	if _, err := db.ExecContext(ctx, `UPDATE links SET target_id = NULL
		WHERE target_id = (SELECT id FROM files WHERE path = 'Projects/Orion.md')`); err != nil {
		t.Fatal(err)
	}
	if f, _ := same("links resolved anew", nil).File("Projects/Orion.md"); len(f.Backlinks()) != 0 {
		t.Fatalf("Orion's links were unresolved, but its backlinks are %v", f.Backlinks())
	}

	if v := same("other exclude patterns", []string{"Daily/"}); slices.ContainsFunc(paths(v), func(p string) bool { return filepath.Dir(p) == "Daily" }) {
		t.Fatalf("Daily/ excluded, but the vault holds %v", paths(v))
	}
}

func paths(v *query.Vault) []string {
	var out []string
	for _, f := range v.Files {
		out = append(out, f.Path())
	}
	return out
}

// describe is every fact of every file Bases reads, as lines.
func describe(v *query.Vault) []string {
	var out []string
	for _, f := range v.Files {
		out = append(out, fmt.Sprintf("%s title=%q note=%v size=%d mtime=%d props=%v tags=%v links=%v embeds=%v back=%v",
			f.Path(), f.Title, f.Note, f.Size(), f.Modified().UnixNano(), f.Properties(), f.Tags(), f.Links(), f.Embeds(), f.Backlinks()))
	}
	return out
}

package index

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jarvis-mcp/jarvis/internal/config"
	"github.com/jarvis-mcp/jarvis/internal/sharedtest"
	"github.com/jarvis-mcp/jarvis/internal/store"
)

// TestNoteOverItsParseBudget indexes a note the parser gives up on: it is
// stored by name only with the parser's warning, as a note over the size
// limit is, and links to it still resolve.
func TestNoteOverItsParseBudget(t *testing.T) {
	root := t.TempDir()
	if err := os.WriteFile(filepath.Join(root, "Slow.md"), sharedtest.SlowMarkdown(1<<20), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "Home.md"), []byte("See [[Slow]].\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	ix, _ := testIndexer(t, filepath.Join(t.TempDir(), "j.db"))
	var res Result
	sharedtest.Within(t, "indexing", func() { res = mustIndex(t, ix, "v", root) })
	if res.Notes != 2 || res.Warnings != 1 {
		t.Fatalf("result %+v; want 2 notes and 1 warning", res)
	}
	db := ix.db.(*store.DB)
	var title, warning string
	if err := db.QueryRow(`SELECT f.title, w.message FROM files f JOIN warnings w ON w.file_id = f.id WHERE f.path = 'Slow.md'`).Scan(&title, &warning); err != nil {
		t.Fatal(err)
	}
	if title != "Slow" || !strings.Contains(warning, "too complex to parse") || !strings.Contains(warning, "by its name only") {
		t.Errorf("Slow.md: title %q, warning %q", title, warning)
	}
	if got := linkTarget(t, db.DB, "Home.md", 1, "link", "Slow", ""); got != "Slow.md" {
		t.Errorf("[[Slow]] resolves to %q", got)
	}
	// The catalog says so for that very content, and only for it, so that
	// related-notes does not spend the budget again to fail again.
	cat := NewCatalog(db, []string{"v"})
	ctx := context.Background()
	if !cat.TooComplex(ctx, "v", "Slow.md", sharedtest.SlowMarkdown(1<<20)) {
		t.Error("the catalog does not know Slow.md was too complex")
	}
	if cat.TooComplex(ctx, "v", "Slow.md", append(sharedtest.SlowMarkdown(1<<20), '\n')) || cat.TooComplex(ctx, "v", "Home.md", []byte("See [[Slow]].\n")) {
		t.Error("the catalog calls a note too complex that the index did not find so")
	}
}

// TestIndexStopsMidParse cancels a run while it parses a note that would
// take minutes: the run ends with the context's error and stores nothing
// of the note, which the next run reads again.
func TestIndexStopsMidParse(t *testing.T) {
	root := t.TempDir()
	if err := os.WriteFile(filepath.Join(root, "Slow.md"), append([]byte("# Kept\n\n"), sharedtest.SlowMarkdown(3<<20)...), 0o644); err != nil {
		t.Fatal(err)
	}
	ix, _ := testIndexer(t, filepath.Join(t.TempDir(), "j.db"))
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(300*time.Millisecond, cancel)
	var err error
	sharedtest.Within(t, "indexing", func() { _, err = ix.Index(ctx, config.Vault{Name: "v", Path: root}, nil) })
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	var mtime int64
	var warnings int
	db := ix.db.(*store.DB)
	if err := db.QueryRow(`SELECT mtime_ns, (SELECT count(*) FROM warnings) FROM files WHERE path = 'Slow.md'`).Scan(&mtime, &warnings); err != nil {
		t.Fatal(err)
	}
	if mtime != mtimeReserved || warnings != 0 {
		t.Errorf("Slow.md stored with mtime %d and %d warnings; want its placeholder row, read again next run", mtime, warnings)
	}
}

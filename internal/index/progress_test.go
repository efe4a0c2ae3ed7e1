package index

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/jarvis-mcp/jarvis/internal/config"
)

// TestProgressPhases: a run reports each phase as it starts, then its
// counts; a run with nothing changed has no writing phase.
func TestProgressPhases(t *testing.T) {
	root := t.TempDir()
	for i := range 5 {
		if err := os.WriteFile(filepath.Join(root, fmt.Sprintf("Note %d.md", i)), []byte("# Note\n\n[[Note 0]]\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(root, "photo.png"), []byte("png"), 0o644); err != nil {
		t.Fatal(err)
	}
	ix, _ := testIndexer(t, filepath.Join(t.TempDir(), "j.db"))
	ix.BatchSize = 2
	run := func() []string {
		var got []string
		_, err := ix.Index(context.Background(), config.Vault{Name: "v", Path: root}, func(phase Phase, done, total Counts) {
			got = append(got, fmt.Sprintf("%s %d+%d/%d+%d", phase, done.Notes, done.Attachments, total.Notes, total.Attachments))
		})
		if err != nil {
			t.Fatal(err)
		}
		return got
	}
	// Notes and attachments apart; the new attachment is written, and
	// done, as the writing begins.
	want := []string{"scan 0+0/0+0", "scan 5+1/5+1", "write 0+1/5+1", "write 2+1/5+1", "write 4+1/5+1", "write 5+1/5+1", "links 0+0/0+0"}
	if got := run(); !reflect.DeepEqual(got, want) {
		t.Errorf("first run reported %q; want %q", got, want)
	}
	want = []string{"scan 0+0/0+0", "scan 5+1/5+1", "links 0+0/0+0"}
	if got := run(); !reflect.DeepEqual(got, want) {
		t.Errorf("unchanged run reported %q; want %q", got, want)
	}
}

package fulltext

import (
	"context"
	"slices"
	"testing"
)

func TestNotesMentioning(t *testing.T) {
	kw, _ := indexedKeyword(t, "coffee", exampleVault(), "other", exampleVault())
	paths, more, err := kw.NotesMentioning(context.Background(), "coffee", []string{"Pour over", "V60", `"quoted"`}, 3)
	if err != nil {
		t.Fatal(err)
	}
	if len(paths) != 3 || !more {
		t.Fatalf("paths %v, more %v", paths, more)
	}
	all, more, err := kw.NotesMentioning(context.Background(), "coffee", []string{"V60"}, 50)
	if err != nil || more {
		t.Fatal(err, more)
	}
	for _, want := range []string{"Methods/Pour over.md", "Coffee journal.md", "Current setup.md", "Methods/Cold brew.md"} {
		if !slices.Contains(all, want) {
			t.Errorf("%s not among %v", want, all)
		}
	}
}

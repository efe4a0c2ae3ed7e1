package index

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/jarvis-mcp/jarvis/internal/store"
	"github.com/jarvis-mcp/jarvis/internal/vault"
)

// TestStoredNoteIsTheParse reads back every note of a vault as the index
// stored it: title, aliases, frontmatter, tags, headings, links and
// warnings are those a parse of the same bytes gives, so read-note
// answers the same from either.
func TestStoredNoteIsTheParse(t *testing.T) {
	root := exampleVault(t)
	// A note past the list caps and one with a warning.
	big := strings.Repeat("[[x]] #t\n", 20_010)
	for name, text := range map[string]string{"Big.md": big, "Bad.md": "---\ntitle: [unclosed\n---\nBody [[x]].\n"} {
		if err := os.WriteFile(filepath.Join(root, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	ix, _ := testIndexer(t, filepath.Join(t.TempDir(), "j.db"))
	mustIndex(t, ix, "coffee", root)
	cat := NewCatalog(ix.db.(*store.DB), []string{"coffee"})
	p := vault.NewParser()
	var notes []string
	_ = filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err == nil && strings.HasSuffix(path, ".md") {
			rel, _ := filepath.Rel(root, path)
			notes = append(notes, filepath.ToSlash(rel))
		}
		return err
	})
	for _, rel := range notes {
		src, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(rel)))
		if err != nil {
			t.Fatal(err)
		}
		sum := sha256.Sum256(src)
		got, ok, err := cat.StoredNote(context.Background(), "coffee", rel, hex.EncodeToString(sum[:]))
		if err != nil || !ok {
			t.Fatalf("%s: stored %v, %v", rel, ok, err)
		}
		want, err := p.Parse(context.Background(), rel, src)
		if err != nil {
			t.Fatal(err)
		}
		// The frontmatter goes through JSON in the database.
		fm, _ := json.Marshal(want.Frontmatter)
		want.Frontmatter = nil
		if string(fm) != "null" && string(fm) != "{}" {
			_ = json.Unmarshal(fm, &want.Frontmatter)
		}
		want.Blocks, want.External, want.Chunks, want.WordCount = nil, nil, nil, 0
		for i := range want.Links {
			want.Links[i].Start, want.Links[i].End = 0, 0
		}
		emptyAsNil(&got)
		emptyAsNil(&want)
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s: stored\n%+v\nparsed\n%+v", rel, got, want)
		}
	}
	// Other content, a vault not served, a note not indexed: not stored.
	for _, q := range [][3]string{{"coffee", "Big.md", strings.Repeat("0", 64)}, {"other", "Big.md", ""}, {"coffee", "Nope.md", ""}} {
		if _, ok, err := cat.StoredNote(context.Background(), q[0], q[1], q[2]); ok || err != nil {
			t.Errorf("StoredNote(%q) = %v, %v; want not stored", q, ok, err)
		}
	}
}

// emptyAsNil makes every empty list of n nil, for comparison.
func emptyAsNil(n *vault.Note) {
	v := reflect.ValueOf(n).Elem()
	for i := range v.NumField() {
		if f := v.Field(i); (f.Kind() == reflect.Slice || f.Kind() == reflect.Map) && f.Len() == 0 {
			f.Set(reflect.Zero(f.Type()))
		}
	}
}

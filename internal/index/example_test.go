package index

import (
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"github.com/jarvis-mcp/jarvis/internal/store"
)

// TestExampleVault checks the vault shipped in examples/vault against the
// table of every link in examples/README.md, written by reading the notes:
// per source note, in file order, each link's kind and where it resolves.
func TestExampleVault(t *testing.T) {
	root := filepath.Join("..", "..", "examples", "vault")
	readme, err := os.ReadFile(filepath.Join("..", "..", "examples", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string][]string{}
	row := regexp.MustCompile("^\\| `([^`]+)` \\| `.*` \\| (link|embed|markdown|frontmatter) \\| (.*) \\|$")
	target := regexp.MustCompile("^`([^`]+)`")
	inTable := false
	for _, line := range strings.Split(string(readme), "\n") {
		if strings.HasPrefix(line, "## Every link") {
			inTable = true
			continue
		}
		if inTable && strings.HasPrefix(line, "#") {
			break
		}
		m := row.FindStringSubmatch(line)
		if !inTable || m == nil {
			continue
		}
		dest := "<unresolved>"
		if tm := target.FindStringSubmatch(m[3]); tm != nil {
			dest = tm[1]
		} else if !strings.Contains(m[3], "unresolved") {
			t.Fatalf("cannot read the target of %q", line)
		}
		want[m[1]] = append(want[m[1]], m[2]+" -> "+dest)
	}
	total := 0
	for _, v := range want {
		total += len(v)
	}
	if total != 62 {
		t.Fatalf("read %d links from the README table; it lists 62", total)
	}

	ix, _ := testIndexer(t, filepath.Join(t.TempDir(), "j.db"))
	res := mustIndex(t, ix, "vault", root)
	if res.Notes != 17 || res.Attachments != 1 || res.Links != 62 || res.UnresolvedLinks != 2 || res.Warnings != 0 {
		t.Fatalf("result = %+v", res)
	}
	got := map[string][]string{}
	rows, err := ix.db.(*store.DB).Query(`SELECT s.path, l.kind, coalesce(t.path, '<unresolved>')
		FROM links l JOIN files s ON s.id = l.source_id LEFT JOIN files t ON t.id = l.target_id
		ORDER BY s.path, l.ord`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	for rows.Next() {
		var src, kind, dest string
		if err := rows.Scan(&src, &kind, &dest); err != nil {
			t.Fatal(err)
		}
		got[src] = append(got[src], kind+" -> "+dest)
	}
	for src, w := range want {
		if !reflect.DeepEqual(got[src], w) {
			t.Errorf("%s:\n got %q\nwant %q", src, got[src], w)
		}
	}
	for src := range got {
		if _, ok := want[src]; !ok {
			t.Errorf("%s has links the README does not list: %q", src, got[src])
		}
	}
}

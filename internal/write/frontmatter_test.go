package write

import (
	"bytes"
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/jarvis-mcp/jarvis/internal/sharedtest"
	"github.com/jarvis-mcp/jarvis/internal/vault"
)

func TestSetProperties(t *testing.T) {
	tests := []struct {
		name  string
		src   string
		props map[string]any
		want  string
	}{
		{
			name:  "change a scalar in place, keeping other quotes, dates and comments",
			src:   "---\n# about\ntitle: 'Old'\nstatus: draft # review me\ndate: 2024-01-02\nn: 0x1F\n---\nbody\n",
			props: map[string]any{"status": "done"},
			want:  "---\n# about\ntitle: 'Old'\nstatus: done # review me\ndate: 2024-01-02\nn: 0x1F\n---\nbody\n",
		},
		{
			name:  "a block list replaced whole by a scalar",
			src:   "---\ntags:\n  - a\n  - b\nnext: 1\n---\n",
			props: map[string]any{"tags": "solo"},
			want:  "---\ntags: solo\nnext: 1\n---\n",
		},
		{
			name:  "a flow list replaced by a block list",
			src:   "---\ntags: [a, b]\nnext: 1\n---\n",
			props: map[string]any{"tags": []any{"c", "d"}},
			want:  "---\ntags:\n  - c\n  - d\nnext: 1\n---\n",
		},
		{
			name:  "remove a key with its block lines, keeping the comment above the next",
			src:   "---\na: 1\ntags:\n  - x\n\n# the end\nb: 2\n---\n",
			props: map[string]any{"tags": nil},
			want:  "---\na: 1\n\n# the end\nb: 2\n---\n",
		},
		{
			name:  "remove a multi-line string",
			src:   "---\ndesc: |\n  one\n  two\nb: 2\n---\n",
			props: map[string]any{"desc": nil},
			want:  "---\nb: 2\n---\n",
		},
		{
			name:  "removing what is absent changes nothing",
			src:   "---\na: 1\n---\nx\n",
			props: map[string]any{"b": nil},
			want:  "---\na: 1\n---\nx\n",
		},
		{
			name:  "removing from a note without frontmatter creates none",
			src:   "x\n",
			props: map[string]any{"b": nil},
			want:  "x\n",
		},
		{
			name: "new keys go at the end, in name order, written as Obsidian writes them",
			src:  "---\na: 1\n---\n",
			props: map[string]any{
				"text": "plain words", "colon": "a: b", "hash": "#tag", "number text": "42",
				"yes": "true", "date": "2024-03-05", "bad date": "2024-02-30", "link": "[[Note]]",
				"links": []any{"[[A]]", "[[B|b]]"}, "count": 3.0, "ratio": 0.5, "done": true,
				"empty": []any{}, "blank": "", "multi": "line one\nline two", "big": 1e21,
			},
			want: "---\na: 1\nbad date: 2024-02-30\nbig: 1e+21\nblank: \"\"\ncolon: \"a: b\"\ncount: 3\ndate: 2024-03-05\ndone: true\nempty: []\nhash: \"#tag\"\nlink: \"[[Note]]\"\nlinks:\n  - \"[[A]]\"\n  - \"[[B|b]]\"\nmulti: \"line one\\nline two\"\nnumber text: \"42\"\nratio: 0.5\ntext: plain words\nyes: \"true\"\n---\n",
		},
		{
			name:  "a name YAML would misread is quoted",
			src:   "---\na: 1\n---\n",
			props: map[string]any{"- odd: name": 1, "#x": "y"},
			want:  "---\na: 1\n\"#x\": y\n\"- odd: name\": 1\n---\n",
		},
		{
			name:  "a quoted key keeps its quotes",
			src:   "---\n\"my key\": 1\n---\n",
			props: map[string]any{"my key": 2},
			want:  "---\n\"my key\": 2\n---\n",
		},
		{
			name:  "frontmatter is created when there is none",
			src:   "# Title\n",
			props: map[string]any{"tags": []any{"a"}, "status": "new"},
			want:  "---\nstatus: new\ntags:\n  - a\n---\n# Title\n",
		},
		{
			name:  "an empty frontmatter gets the keys",
			src:   "---\n---\nbody\n",
			props: map[string]any{"a": "x"},
			want:  "---\na: x\n---\nbody\n",
		},
		{
			name:  "a frontmatter of comments only",
			src:   "---\n# nothing yet\n---\n",
			props: map[string]any{"a": "x"},
			want:  "---\n# nothing yet\na: x\n---\n",
		},
		{
			name:  "an indented mapping keeps its indent",
			src:   "---\n  a: 1\n  b: 2\n---\n",
			props: map[string]any{"b": []any{"x"}, "c": 3},
			want:  "---\n  a: 1\n  b:\n    - x\n  c: 3\n---\n",
		},
		{
			name:  "a CRLF frontmatter",
			src:   "---\r\na: 1\r\nb:\r\n  - x\r\n---\r\nbody\r\n",
			props: map[string]any{"b": nil, "a": 2, "c": "z"},
			want:  "---\r\na: 2\r\nc: z\r\n---\r\nbody\r\n",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ApplyEdits([]byte(tt.src), []Edit{{Op: OpSetProperties, Properties: tt.props}})
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != tt.want {
				t.Errorf("got\n%s\nwant\n%s", got, tt.want)
			}
			// jarvis reads back what was set.
			note, err := vault.NewParser().Parse(context.Background(), "n.md", got)
			if err != nil || len(note.Warnings) > 0 {
				t.Fatalf("the result does not read back: %v %v", err, note.Warnings)
			}
			for name, v := range tt.props {
				if got, ok := note.Frontmatter[name]; comparable(got) != comparable(v) || ok != (v != nil) {
					t.Errorf("property %q reads back as %#v, want %#v", name, got, v)
				}
			}
		})
	}
}

// TestSetPropertiesHelpVault edits the frontmatter of every note of the
// Obsidian Help vault that has one: a property added and removed again
// gives back the note byte for byte, and a property changed or removed
// changes its own lines and no other byte.
func TestSetPropertiesHelpVault(t *testing.T) {
	root := sharedtest.Path(t, "vaults/obsidian-help")
	notes, props := 0, 0
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".md") {
			return err
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		_, body := splitBOM(src)
		ys, ye, _, ok := frontmatterBounds(body)
		if !ok {
			return nil
		}
		bomLen := len(src) - len(body)
		ys, ye = ys+bomLen, ye+bomLen
		rel, _ := filepath.Rel(root, path)
		notes++

		// Added, then removed: the note comes back whole.
		added, err := ApplyEdits(src, []Edit{{Op: OpSetProperties, Properties: map[string]any{"zz added": "[[Link]]"}}})
		if err != nil {
			t.Errorf("%s: add: %v", rel, err)
			return nil
		}
		if want := string(src[:ye]) + "zz added: \"[[Link]]\"\n" + string(src[ye:]); string(added) != want {
			t.Errorf("%s: add gave\n%s", rel, added)
		}
		back, err := ApplyEdits(added, []Edit{{Op: OpSetProperties, Properties: map[string]any{"zz added": nil}}})
		if err != nil || !bytes.Equal(back, src) {
			t.Errorf("%s: add then remove does not give the note back: %v\n%s", rel, err, back)
		}

		// Each top-level property, changed and removed: its lines change,
		// no other byte does.
		var doc yaml.Node
		if err := yaml.Unmarshal(src[ys:ye], &doc); err != nil || len(doc.Content) == 0 {
			return nil
		}
		m := doc.Content[0]
		lines := strings.SplitAfter(string(src[ys:ye]), "\n")
		for i := 0; i+1 < len(m.Content); i += 2 {
			key := m.Content[i]
			last := len(lines) - 1 // SplitAfter leaves "" last
			if i+2 < len(m.Content) {
				last = m.Content[i+2].Line - 1
			}
			before := string(src[:ys]) + strings.Join(lines[:key.Line-1], "")
			after := strings.Join(lines[last:], "") + string(src[ye:])
			props++

			changed, err := ApplyEdits(src, []Edit{{Op: OpSetProperties, Properties: map[string]any{key.Value: "new value"}}})
			if err != nil {
				t.Errorf("%s: change %q: %v", rel, key.Value, err)
				continue
			}
			if want := before + key.Value + ": new value\n" + after; string(changed) != want {
				t.Errorf("%s: change %q gave\n%s\nwant\n%s", rel, key.Value, changed, want)
			}
			removed, err := ApplyEdits(src, []Edit{{Op: OpSetProperties, Properties: map[string]any{key.Value: nil}}})
			if err != nil {
				t.Errorf("%s: remove %q: %v", rel, key.Value, err)
				continue
			}
			if want := before + after; string(removed) != want {
				t.Errorf("%s: remove %q gave\n%s\nwant\n%s", rel, key.Value, removed, want)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if notes < 100 || props < 200 {
		t.Fatalf("only %d notes with %d properties found under %s", notes, props, root)
	}
}

// TestSetPropertiesDottedName checks that a dotted name naming a key
// inside a map is refused, saying which line to change, rather than
// written as a look-alike top-level property; one with no such map is a
// top-level property, as Obsidian allows.
func TestSetPropertiesDottedName(t *testing.T) {
	src := "---\ntitle: Pantry\nzotero:\n  key: ZKNEW\n  year: 2020\n---\nBody.\n"
	tests := []struct {
		name, prop, want, refusal string
	}{
		{"a key inside a map", "zotero.key", "", `property "zotero.key" names the key "key" inside the property "zotero"`},
		{"the refusal names the line", "zotero.key", "", `find "key: ZKNEW"`},
		{"a missing key inside a map", "zotero.title", "", `add the key "title" under "zotero"`},
		{"no such map", "source.url", "---\ntitle: Pantry\nzotero:\n  key: ZKNEW\n  year: 2020\nsource.url: x\n---\nBody.\n", ""},
		{"a dotted name under a text property", "title.x", "---\ntitle: Pantry\nzotero:\n  key: ZKNEW\n  year: 2020\ntitle.x: x\n---\nBody.\n", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ApplyEdits([]byte(src), []Edit{{Op: OpSetProperties, Properties: map[string]any{tt.prop: "x"}}})
			if tt.refusal != "" {
				if err == nil || !strings.Contains(err.Error(), tt.refusal) {
					t.Fatalf("got %q, %v; want a refusal saying %q", got, err, tt.refusal)
				}
				return
			}
			if err != nil || string(got) != tt.want {
				t.Fatalf("got %q, %v; want %q", got, err, tt.want)
			}
		})
	}
	// A top-level property written with the dotted name is set as it is.
	both := "---\nzotero:\n  key: A\nzotero.key: B\n---\n"
	got, err := ApplyEdits([]byte(both), []Edit{{Op: OpSetProperties, Properties: map[string]any{"zotero.key": "C"}}})
	if err != nil || string(got) != "---\nzotero:\n  key: A\nzotero.key: C\n---\n" {
		t.Fatalf("got %q, %v", got, err)
	}
}

package write

import (
	"context"
	"errors"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/jarvis-mcp/jarvis/internal/vault"
)

// moveIn builds the Move of from to to in a vault of the given files
// (notes' text by path; attachments with any text), with every note in
// Notes and the aliases the parser finds, as a caller would.
func moveIn(t *testing.T, p *vault.Parser, files map[string]string, from, to string) Move {
	t.Helper()
	m := Move{From: from, To: to, Aliases: map[string][]string{}}
	for _, path := range slices.Sorted(maps.Keys(files)) {
		m.Files = append(m.Files, path)
		if !vault.IsNote(path) {
			continue
		}
		data := []byte(files[path])
		n, err := p.Parse(context.Background(), path, data)
		if err != nil {
			t.Fatal(err)
		}
		if len(n.Aliases) > 0 {
			m.Aliases[path] = n.Aliases
		}
		m.Notes = append(m.Notes, NoteSource{Path: path, Data: data, ETag: "etag:" + path})
	}
	return m
}

// relinked is the text of each note Relink changes, by path.
func relinked(t *testing.T, p *vault.Parser, files map[string]string, from, to string) map[string]string {
	t.Helper()
	r, err := Relink(context.Background(), p, moveIn(t, p, files, from, to))
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Stuck) > 0 {
		t.Errorf("stuck links: %v", r.Stuck)
	}
	got := map[string]string{}
	for _, c := range r.Files {
		if c.Before != "etag:"+c.Path {
			t.Errorf("%s: Before = %q", c.Path, c.Before)
		}
		if string(c.After) == files[c.Path] {
			t.Errorf("%s: a change that changes nothing", c.Path)
		}
		got[c.Path] = string(c.After)
	}
	return got
}

func TestRelink(t *testing.T) {
	tests := []struct {
		name     string
		files    map[string]string
		from, to string
		want     map[string]string // the notes that change, and their text after
	}{
		{
			name: "wikilink forms",
			files: map[string]string{
				"A/Note.md": "# Note\n",
				"Links.md": "[[Note]] [[Note|alias]] [[Note#Heading]] [[Note#^block]] ![[Note]]\n" +
					"[[A/Note]] [[Note.md]] [[A/Note.md#H|x]] ![[Note#Part|200]] [[ Note | spaced ]]\n" +
					"[[Other]] [[#Own heading]] [[Notes]]\n",
				"Other.md": "",
			},
			from: "A/Note.md", to: "B/Renamed.md",
			want: map[string]string{
				"Links.md": "[[Renamed]] [[Renamed|alias]] [[Renamed#Heading]] [[Renamed#^block]] ![[Renamed]]\n" +
					"[[B/Renamed]] [[Renamed.md]] [[B/Renamed.md#H|x]] ![[Renamed#Part|200]] [[ Renamed | spaced ]]\n" +
					"[[Other]] [[#Own heading]] [[Notes]]\n",
			},
		},
		{
			name: "markdown forms",
			files: map[string]string{
				"Folder/My Note.md": "",
				"Folder/Index.md":   "[a](My%20Note.md) [b](./My%20Note.md#Part) [c](<My Note.md>)\n",
				"Top/Deep.md":       "[d](../Folder/My%20Note.md) [e](<../Folder/My Note.md#Sec> \"title\") ![f](../Folder/My%20Note.md)\n",
				"Root.md":           "[g](Folder/My%20Note.md) [h](<Folder/My Note.md>) [i](Folder/My%20Note)\n",
			},
			from: "Folder/My Note.md", to: "Other/New Name.md",
			want: map[string]string{
				"Folder/Index.md": "[a](../Other/New%20Name.md) [b](../Other/New%20Name.md#Part) [c](<../Other/New Name.md>)\n",
				"Top/Deep.md":     "[d](../Other/New%20Name.md) [e](<../Other/New Name.md#Sec> \"title\") ![f](../Other/New%20Name.md)\n",
				"Root.md":         "[g](Other/New%20Name.md) [h](<Other/New Name.md>) [i](Other/New%20Name)\n",
			},
		},
		{
			name: "frontmatter",
			files: map[string]string{
				"Note.md": "",
				"Fm.md":   "---\nup: \"[[Note]]\"\nrelated:\n  - \"[[Note|n]]\"\n  - '[[Note#H]]'\n  - \"[[Else]]\"\ntitle: Note\n---\nBody [[Note]]\n",
				"Else.md": "",
			},
			from: "Note.md", to: "Moved.md",
			want: map[string]string{
				"Fm.md": "---\nup: \"[[Moved]]\"\nrelated:\n  - \"[[Moved|n]]\"\n  - '[[Moved#H]]'\n  - \"[[Else]]\"\ntitle: Note\n---\nBody [[Moved]]\n",
			},
		},
		{
			name: "code is not links",
			files: map[string]string{
				"Note.md": "",
				"Code.md": "`[[Note]]` and [[Note]]\n\n```\n[[Note]] [x](Note.md)\n```\n\n    [[Note]]\n<span>[[New]]</span>\n",
			},
			from: "Note.md", to: "New.md",
			want: map[string]string{
				"Code.md": "`[[Note]]` and [[New]]\n\n```\n[[Note]] [x](Note.md)\n```\n\n    [[Note]]\n<span>[[New]]</span>\n",
			},
		},
		{
			name: "line ends and BOM kept",
			files: map[string]string{
				"Note.md": "",
				"Win.md":  "\uFEFF---\r\nup: \"[[Note]]\"\r\n---\r\nOne [[Note]]\r\ntwo [b](Note.md)\r\n",
			},
			from: "Note.md", to: "Dir/New.md",
			want: map[string]string{
				"Win.md": "\uFEFF---\r\nup: \"[[New]]\"\r\n---\r\nOne [[New]]\r\ntwo [b](Dir/New.md)\r\n",
			},
		},
		{
			name: "ambiguous new name becomes a path",
			files: map[string]string{
				"A/Note.md":  "",
				"B/Other.md": "",
				"C/Plan.md":  "",
				"Links.md":   "[[Other]] [[Other#H|o]] [[B/Other]] [[Plan]]\n",
			},
			from: "B/Other.md", to: "D/Plan.md",
			want: map[string]string{
				"Links.md": "[[D/Plan]] [[D/Plan#H|o]] [[D/Plan]] [[Plan]]\n",
			},
		},
		{
			name: "two notes named alike: the moved one's name links become paths",
			files: map[string]string{
				"A/Note.md":  "",
				"X/Topic.md": "",
				"Links.md":   "[[Topic]] and [[Note]]\n",
				"Y/Here.md":  "[[Topic]] [[Topic.md]]\n",
			},
			from: "X/Topic.md", to: "Y/Note.md",
			want: map[string]string{
				"Links.md":  "[[Y/Note]] and [[Note]]\n",
				"Y/Here.md": "[[Y/Note]] [[Y/Note.md]]\n",
			},
		},
		{
			name: "shortest unambiguous path",
			files: map[string]string{
				"P/Q/Note.md": "",
				"R/S/Note.md": "",
				"T/Moved.md":  "",
				"Links.md":    "[[Moved]]\n",
			},
			from: "T/Moved.md", to: "P/Q/Sub/Note.md",
			want: map[string]string{
				"Links.md": "[[Sub/Note]]\n",
			},
		},
		{
			name: "rename only, same folder",
			files: map[string]string{
				"F/Old.md":     "[[Old#Top]] [x](Sibling.md) [[Sibling]]\n",
				"F/Sibling.md": "[[Old]] [y](Old.md) [z](<Old.md#a b>)\n",
			},
			from: "F/Old.md", to: "F/New.md",
			want: map[string]string{
				"F/Old.md":     "[[New#Top]] [x](Sibling.md) [[Sibling]]\n",
				"F/Sibling.md": "[[New]] [y](New.md) [z](<New.md#a b>)\n",
			},
		},
		{
			name: "move only, same name: name links stay",
			files: map[string]string{
				"F/Note.md": "",
				"Links.md":  "[[Note]] [[F/Note]] [m](F/Note.md) ![[Note#^b]]\n",
			},
			from: "F/Note.md", to: "G/H/Note.md",
			want: map[string]string{
				"Links.md": "[[Note]] [[G/H/Note]] [m](G/H/Note.md) ![[Note#^b]]\n",
			},
		},
		{
			name: "the moved note's own relative links",
			files: map[string]string{
				"A/Moving.md":    "[up](../Top.md) [side](Side.md) [[Side]] [img](<pics/a b.png>) [[Moving#x]] [self](Moving.md#y)\n",
				"A/Side.md":      "",
				"B/C/Side.md":    "",
				"A/pics/a b.png": "",
				"Top.md":         "",
			},
			from: "A/Moving.md", to: "B/C/Moved.md",
			want: map[string]string{
				"A/Moving.md": "[up](../../Top.md) [side](../../A/Side.md) [[A/Side]] [img](<pics/a b.png>) [[Moved#x]] [self](Moved.md#y)\n",
			},
		},
		{
			name: "alias links keep leading to the note",
			files: map[string]string{
				"Note.md":  "---\naliases: [Nickname]\n---\n",
				"Links.md": "[[Nickname]] [[Note]]\n",
			},
			from: "Note.md", to: "Sub/Named.md",
			want: map[string]string{
				"Links.md": "[[Nickname]] [[Named]]\n",
			},
		},
		{
			name: "a link the new name would take over is kept on its note",
			files: map[string]string{
				"A/Old.md":       "",
				"Deep/x/Plan.md": "",
				"Links.md":       "[[Plan]] [[Old]]\n",
			},
			from: "A/Old.md", to: "Plan.md",
			want: map[string]string{
				"Links.md": "[[x/Plan]] [[Plan]]\n",
			},
		},
	}
	p := vault.NewParser()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := relinked(t, p, tt.files, tt.from, tt.to)
			for _, path := range slices.Sorted(maps.Keys(got)) {
				want, ok := tt.want[path]
				if !ok {
					t.Errorf("%s changed, and should not:\n%s", path, got[path])
					continue
				}
				if got[path] != want {
					t.Errorf("%s:\n got %q\nwant %q", path, got[path], want)
				}
			}
			for path := range tt.want {
				if _, ok := got[path]; !ok {
					t.Errorf("%s unchanged, want %q", path, tt.want[path])
				}
			}
		})
	}
}

func TestRelinkStuckAndRefused(t *testing.T) {
	p := vault.NewParser()
	files := map[string]string{
		"Note.md":  "",
		"Ref.md":   "[x][r]\n\n[r]: Note.md\n",
		"Esc.md":   "---\nup: \"[[No\\x74e]]\"\n---\n",
		"Taken.md": "",
	}
	r, err := Relink(context.Background(), p, moveIn(t, p, files, "Note.md", "New.md"))
	if err != nil {
		t.Fatal(err)
	}
	want := []LinkAt{{Path: "Esc.md", Line: 2}, {Path: "Ref.md", Line: 1}}
	if !slices.Equal(r.Stuck, want) || len(r.Files) != 0 {
		t.Errorf("stuck %v, files %d; want %v and no file", r.Stuck, len(r.Files), want)
	}
	if _, err := Relink(context.Background(), p, moveIn(t, p, files, "Note.md", "taken.md")); !errors.Is(err, ErrExists) {
		t.Errorf("move onto a file: %v, want ErrExists", err)
	}
	// A change of case alone is no clash with the note itself.
	if _, err := Relink(context.Background(), p, moveIn(t, p, files, "Note.md", "note.md")); err != nil {
		t.Errorf("rename to another case: %v", err)
	}
	// A rewrite that would break what holds the link fails the move.
	quoted := map[string]string{"Note.md": "", "Fm.md": "---\nup: '[[Note]]'\n---\n"}
	if _, err := Relink(context.Background(), p, moveIn(t, p, quoted, "Note.md", "Don't.md")); err == nil ||
		!strings.Contains(err.Error(), "Fm.md") {
		t.Errorf("a name that ends a quoted value: %v, want an error naming Fm.md", err)
	}
}

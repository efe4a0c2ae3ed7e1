package related

import (
	"context"
	"fmt"
	"slices"
	"testing"

	"github.com/jarvis-mcp/jarvis/internal/graph"
	"github.com/jarvis-mcp/jarvis/internal/vault"
)

// TestAcronymsMatchAsWritten: a short alias in capitals (AS) names its
// note only as written, in both directions, so that the English word "as"
// names nothing; other names still match whatever their case.
func TestAcronymsMatchAsWritten(t *testing.T) {
	notes := map[string]string{
		"Concepts/Attention Schema.md": "---\naliases: [AS]\n---\n# Attention Schema\n\nA theory.\n",
		"lit/chen.md":                  "# Chen\n\nOn action selection as inference.\n",
		"lit/graziano.md":              "# Graziano\n\nThe AS theory of awareness.\n",
		"lit/other.md":                 "# Other\n\nMore on attention schema theory.\n",
	}
	schema := graph.Kinship{Ref: graph.Ref{Vault: "v", Path: "Concepts/Attention Schema.md", Title: "Attention Schema"}, ID: 1, Aliases: []string{"AS"}}
	names := func(context.Context, string) ([]graph.NoteNames, error) {
		var out []graph.NoteNames
		for _, p := range []string{"Concepts/Attention Schema.md", "lit/chen.md", "lit/graziano.md", "lit/other.md"} {
			n := graph.NoteNames{Path: p, Title: vault.TitleFromPath(p)}
			if p == schema.Path {
				n.Aliases = schema.Aliases
			}
			out = append(out, n)
		}
		return out, nil
	}

	s := fakeService(t, notes, schema)
	s.Names = names
	a, err := s.Find(context.Background(), Query{Vault: "v", Path: schema.Path})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, m := range a.Mentions {
		got = append(got, fmt.Sprintf("%s %s", m.Path, m.Name))
	}
	if want := []string{"lit/graziano.md AS", "lit/other.md Attention Schema"}; !slices.Equal(got, want) {
		t.Errorf("mentions of the note: %q\nwant %q", got, want)
	}

	for _, tc := range []struct {
		path string
		want []string
	}{
		{"lit/chen.md", nil},
		{"lit/graziano.md", []string{"AS Concepts/Attention Schema.md"}},
		{"lit/other.md", []string{"Attention Schema Concepts/Attention Schema.md"}},
	} {
		kin := graph.Kinship{Ref: graph.Ref{Vault: "v", Path: tc.path, Title: vault.TitleFromPath(tc.path)}, ID: 2}
		s := fakeService(t, notes, kin)
		s.Names = names
		a, err := s.Find(context.Background(), Query{Vault: "v", Path: tc.path})
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, m := range a.Mentioning {
			got = append(got, fmt.Sprintf("%s %s", m.Name, m.Path))
		}
		if !slices.Equal(got, tc.want) {
			t.Errorf("named in %s: %q\nwant %q", tc.path, got, tc.want)
		}
	}
}

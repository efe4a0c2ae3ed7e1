package graph_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/jarvis-mcp/jarvis/internal/graph"
)

func TestKin(t *testing.T) {
	g := indexed(t, nil)
	k, err := g.Kin(context.Background(), "coffee", "Methods/French press.md")
	if err != nil {
		t.Fatal(err)
	}
	if k.Title != "French press" || !slices.Equal(k.Tags, []string{"coffee", "method/immersion"}) {
		t.Fatalf("note %+v", k)
	}
	by := map[string]graph.Kin{}
	for _, c := range k.Kin {
		if c.Path == k.Path {
			t.Fatalf("the note is among its own kin")
		}
		by[c.Path] = c
	}
	for _, tc := range []struct {
		name  string
		path  string
		check func(c graph.Kin) bool
	}{
		{"links to", "Methods/Pour over.md", func(c graph.Kin) bool { return c.LinksTo && !c.LinkedFrom }},
		{"linked from", "Methods/Index.md", func(c graph.Kin) bool { return c.LinkedFrom && !c.LinksTo }},
		{"both link to", "Coffee journal.md", func(c graph.Kin) bool {
			return slices.Contains(c.BothLinkTo, "Methods/Pour over.md") && slices.Contains(c.BothLinkTo, "Beans/Roast levels.md") && c.Coupling > 0
		}},
		{"cited with", "Methods/Cold brew.md", func(c graph.Kin) bool {
			return len(c.CitedWith) == 3 && slices.Contains(c.CitedWith, "Beans/Colombia Huila.md") && c.CoCitation > 0
		}},
		{"shared rare tag", "Methods/AeroPress.md", func(c graph.Kin) bool {
			return slices.Equal(c.Tags, []string{"method/immersion"}) && c.TagWeight > 0
		}},
		{"a tag every note has is left out", "Gear/Scale.md", func(c graph.Kin) bool {
			return len(c.Tags) == 0 && c.TagWeight == 0 && c.Coupling == 0 && !c.LinksTo && c.CoCitation > 0
		}},
		{"a note's own links to itself are no shared link", "Methods/Pour over.md", func(c graph.Kin) bool {
			return !slices.Contains(c.BothLinkTo, "Methods/Pour over.md")
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, ok := by[tc.path]
			if !ok || !tc.check(c) {
				t.Fatalf("%s: %+v (found %v)", tc.path, c, ok)
			}
		})
	}
	if _, ok := by["brew-station.png"]; ok {
		t.Fatal("an attachment is listed as kin")
	}
	if _, err := g.Kin(context.Background(), "coffee", "Nope.md"); !errors.Is(err, graph.ErrNoteNotFound) {
		t.Fatalf("missing note: %v", err)
	}
}

// TestKinLeavesOutHubs: a file linked from more than 1,000 notes says
// little about two of them and is not read; a note linking to more than
// 200 files has only the least linked read.
func TestKinLeavesOutHubs(t *testing.T) {
	extra := map[string]string{
		"Me.md":    "[[Hub]] [[Rare]]",
		"Other.md": "[[Rare]] [[Hub]]",
		"Hub.md":   "the hub",
		"Rare.md":  "rare",
	}
	var many strings.Builder
	for i := range 1001 {
		extra[fmt.Sprintf("L/%d.md", i)] = "[[Hub]]"
		if i < 250 {
			fmt.Fprintf(&many, "[[L/%d]] ", i)
		}
	}
	extra["Many.md"] = many.String()
	g := indexed(t, extra)
	k, err := g.Kin(context.Background(), "coffee", "Me.md")
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(k.Skipped, []string{"Hub.md"}) {
		t.Fatalf("skipped %q", k.Skipped)
	}
	for _, c := range k.Kin {
		if c.Path == "Other.md" && !slices.Equal(c.BothLinkTo, []string{"Rare.md"}) {
			t.Fatalf("Other.md: %+v", c)
		}
		if strings.HasPrefix(c.Path, "L/") && len(c.BothLinkTo) > 0 {
			t.Fatalf("the hub was read: %+v", c)
		}
	}
	k, err = g.Kin(context.Background(), "coffee", "Many.md")
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(k.Skipped, "the 50 most linked of the 250 files it links to") {
		t.Fatalf("skipped %q", k.Skipped)
	}
}

// TestKinTagsByKey: tags are one tag when their keys (vault.TagKey) are
// equal, as the search filter has it: case and Unicode form aside.
func TestKinTagsByKey(t *testing.T) {
	g := indexed(t, map[string]string{
		"Me.md":    "---\ntags: [ÉTÉ]\n---\n#Été [[Other]]",
		"Other.md": "#e\u0301te\u0301 (written decomposed)",
		"Plain.md": "#ete",
	})
	k, err := g.Kin(context.Background(), "coffee", "Me.md")
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(k.Tags, []string{"ÉTÉ"}) {
		t.Fatalf("own tags %q; want one", k.Tags)
	}
	var other *graph.Kin
	for i, c := range k.Kin {
		if c.Path == "Plain.md" {
			t.Fatalf("a tag without the accents is shared: %+v", c)
		}
		if c.Path == "Other.md" {
			other = &k.Kin[i]
		}
	}
	if other == nil || !slices.Equal(other.Tags, []string{"ÉTÉ"}) || other.TagWeight <= 0 {
		t.Fatalf("Other.md: %+v; want the tag shared", other)
	}
	sg, err := g.Traverse(context.Background(), graph.Query{Vault: "coffee", Start: "Me", Depth: 1, Direction: graph.Out})
	if err != nil {
		t.Fatal(err)
	}
	if n := sg.Nodes[0]; len(n.Tags) != 1 {
		t.Fatalf("traversal start %+v; want its tag once", n)
	}
}

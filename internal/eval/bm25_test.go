package eval

import (
	"context"
	"slices"
	"testing"
)

func TestBM25RanksByStemmedTermsAndRarity(t *testing.T) {
	ctx := context.Background()
	b, err := NewBM25(ctx, map[string]string{
		"a.md": "Flutter of swept wings at high speed",
		"b.md": "Flutter of flat panels in supersonic flow; panel flutter again",
		"c.md": "Heat transfer in the boundary layer of a flat plate",
		"d.md": "The wing and the flow",
	})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	for _, c := range []struct {
		query string
		want  []string
	}{
		// "wing" is stemmed to match "wings"; both words are in two
		// notes, a.md has both, and b.md's two flutters outweigh d.md's
		// one wing.
		{"wing flutter", []string{"a.md", "b.md", "d.md"}},
		// b.md says flutter twice; a.md once in a text of the same length.
		{"flutter", []string{"b.md", "a.md"}},
		{"heating", []string{"c.md"}},
		{"nothing here matches", nil},
	} {
		got, err := b.Rank(ctx, c.query, 10)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(got, c.want) {
			t.Errorf("%q ranked %v; want %v", c.query, got, c.want)
		}
	}
	if got, _ := b.Rank(ctx, "flutter", 1); !slices.Equal(got, []string{"b.md"}) {
		t.Errorf("limit 1 gave %v", got)
	}
}

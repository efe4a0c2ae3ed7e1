package vectors

import (
	"context"
	"math/rand/v2"
	"testing"
)

// TestChromemScoresAlikeEitherWay: a chunk scores the same, to the bit,
// whether chromem-go's query finds it or a selective filter has it scored
// on its own, so that a filter never reorders what it keeps.
func TestChromemScoresAlikeEitherWay(t *testing.T) {
	ctx := context.Background()
	r := rand.New(rand.NewPCG(11, 12))
	const n = 2000
	idx := newChromemIndex(n)
	for i := range n {
		if err := idx.add(int64(i+1), int64(i/4), randomUnit(r, 768, 0.65)); err != nil {
			t.Fatal(err)
		}
	}
	few := func(file int64) bool { return file%50 == 0 } // 1 note in 50: scored one by one
	for range 5 {
		q := randomUnit(r, 768, 0.13)
		all, err := idx.nearest(ctx, q, n, nil, -1)
		if err != nil {
			t.Fatal(err)
		}
		sims := map[int64]float32{}
		for _, s := range all {
			sims[s.id] = s.sim
		}
		kept, err := idx.nearest(ctx, q, n, few, -1)
		if err != nil {
			t.Fatal(err)
		}
		if len(kept) != n/50 {
			t.Fatalf("%d chunks kept by a filter of %d", len(kept), n/50)
		}
		for _, s := range kept {
			if s.sim != sims[s.id] {
				t.Fatalf("chunk %d scored %v through the filter, %v through chromem-go's query", s.id, s.sim, sims[s.id])
			}
		}
	}
}

package vectors

import (
	"context"
	"fmt"
	"maps"
	"testing"

	"github.com/jarvis-mcp/jarvis/internal/sharedtest"
)

// TestHelpVaultServedByChromem loads the vectors of the Obsidian Help
// vault as the server does at start: it is well under ChromemMax, so
// chromem-go serves it. With the line lowered below its size, the same
// load goes to the column index.
func TestHelpVaultServedByChromem(t *testing.T) {
	ctx := context.Background()
	db := indexedDB(t, "en", sharedtest.Path(t, "vaults/obsidian-help/en"))
	if _, err := NewVectors(db, LexicalSource(), quietLog()).Sync(ctx, SyncOptions{}); err != nil {
		t.Fatal(err)
	}
	v := NewVectors(db, LexicalSource(), quietLog())
	if err := v.Load(ctx); err != nil {
		t.Fatal(err)
	}
	if got, want := v.Stores(), map[string]string{"en": StoreChromem}; !maps.Equal(got, want) {
		t.Fatalf("stores %v for %d vectors; want %v", got, v.Count(), want)
	}
	if v.Count() > v.ChromemMax {
		t.Fatalf("%d vectors, more than ChromemMax (%d)", v.Count(), v.ChromemMax)
	}
	t.Logf("%d vectors, served by %v", v.Count(), v.Stores())
	hits, err := v.Nearest(ctx, mustEmbedQuery(t, v, "link to a heading"), nil, 10, nil, 0)
	if err != nil || len(hits) != 10 {
		t.Fatalf("nearest: %d hits, %v", len(hits), err)
	}

	w := NewVectors(db, LexicalSource(), quietLog())
	w.ChromemMax = v.Count() - 1
	if err := w.Load(ctx); err != nil {
		t.Fatal(err)
	}
	if got, want := w.Stores(), map[string]string{"en": StoreColumn}; !maps.Equal(got, want) {
		t.Fatalf("stores %v with ChromemMax %d for %d vectors; want %v", got, w.ChromemMax, w.Count(), want)
	}
	// Both answer alike, the column index to within its error: the
	// stored int8 vectors are what it holds, but it scores them as they
	// are where chromem-go takes them to unit length first.
	other, err := w.Nearest(ctx, mustEmbedQuery(t, w, "link to a heading"), nil, 10, nil, 0)
	if err != nil || len(other) != len(hits) {
		t.Fatalf("nearest: %d hits, %v", len(other), err)
	}
	for k := range hits {
		if abs32(other[k].Sim-hits[k].Sim) > 1e-3 {
			t.Fatalf("rank %d: chunk %d (%v) from the column index, %d (%v) from chromem-go", k, other[k].Chunk, other[k].Sim, hits[k].Chunk, hits[k].Sim)
		}
	}
}

func abs32(x float32) float32 { return max(x, -x) }

// TestVectorsStoreFollowsVaultSize grows a vault past ChromemMax while the
// store serves and shrinks it back, for the lexical embedder and a dense
// one: a sync that takes it past the line moves it to the compact index,
// a refresh that finds it below nine tenths of the line moves it back to
// chromem-go, and between the two it stays where it is. At every step
// memory holds what SQLite holds, and a new load picks the store by size.
func TestVectorsStoreFollowsVaultSize(t *testing.T) {
	for _, c := range []struct {
		name, compact string
		src           EmbedderSource
	}{
		{"lexical", StoreColumn, LexicalSource()},
		{"dense", StoreDense, sourceFor(&letters{Name: "m"})},
	} {
		t.Run(c.name, func(t *testing.T) {
			ctx := context.Background()
			db, add := testDB(t)
			v := servingVectors(db, c.src, quietLog())
			v.ChromemMax = 10
			var notes []int64
			addNotes := func(n int) {
				for range n {
					k := len(notes)
					notes = append(notes, add(fmt.Sprintf("n%d.md", k), fmt.Sprintf("note %d about %c%c things", k, 'a'+k%26, 'z'-k%26)))
				}
			}
			deleteNotes := func(n int) {
				for range n {
					if _, err := db.Exec(`DELETE FROM files WHERE id = ?`, notes[len(notes)-1]); err != nil {
						t.Fatal(err)
					}
					notes = notes[:len(notes)-1]
				}
			}
			for _, step := range []struct {
				name   string
				change func()
				want   string
			}{
				{"small", func() { addNotes(6) }, StoreChromem},
				{"at the line", func() { addNotes(4) }, StoreChromem},
				{"past it", func() { addNotes(3) }, c.compact},
				{"back at the line", func() { deleteNotes(3) }, c.compact},
				{"just under it", func() { deleteNotes(1) }, c.compact},
				{"below nine tenths of it", func() { deleteNotes(1) }, StoreChromem},
				{"past it again", func() { addNotes(12) }, c.compact},
			} {
				step.change()
				if _, err := v.Sync(ctx, SyncOptions{}); err != nil {
					t.Fatal(err)
				}
				if got := v.Stores()["v"]; got != step.want {
					t.Fatalf("%s (%d notes): served by %q; want %q", step.name, len(notes), got, step.want)
				}
				memoryMatchesStore(t, v, db, len(notes))
				hits, err := v.Nearest(ctx, mustEmbedQuery(t, v, "note about things"), nil, len(notes), nil, -1)
				if err != nil || len(hits) != len(notes) {
					t.Fatalf("%s: %d hits of %d chunks, %v", step.name, len(hits), len(notes), err)
				}
				// A new load picks the store by size alone.
				w := NewVectors(db, c.src, quietLog())
				w.ChromemMax = v.ChromemMax
				if err := w.Load(ctx); err != nil {
					t.Fatal(err)
				}
				want := StoreChromem
				if len(notes) > w.ChromemMax {
					want = c.compact
				}
				if got := w.Stores()["v"]; got != want {
					t.Fatalf("%s: a new load of %d vectors is served by %q; want %q", step.name, len(notes), got, want)
				}
			}
		})
	}
}

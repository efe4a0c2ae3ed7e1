package vectors

import (
	"context"
	"errors"
	"math"
	"slices"
	"testing"

	"github.com/jarvis-mcp/jarvis/internal/embed"
)

// storeSizes are values of ChromemMax that make a test vault's vectors go
// to chromem-go and to the compact index.
var storeSizes = []struct {
	name string
	max  int
}{{"chromem-go", DefaultChromemMax}, {"compact", 0}}

func TestVectorsDeletedNoteLeavesTheCollection(t *testing.T) {
	for _, c := range []struct {
		name string
		src  EmbedderSource
	}{{"lexical", LexicalSource()}, {"dense", sourceFor(&letters{Name: "m"})}} {
		for _, size := range storeSizes {
			t.Run(c.name+"/"+size.name, func(t *testing.T) {
				testDeletedNoteLeavesTheCollection(t, c.src, size.max)
			})
		}
	}
}

func testDeletedNoteLeavesTheCollection(t *testing.T, src EmbedderSource, chromemMax int) {
	ctx := context.Background()
	db, add := testDB(t)
	a := add("a.md", "alpha")
	add("b.md", "beta")
	add("c.md", "gamma")
	v := servingVectors(db, src, quietLog())
	v.ChromemMax = chromemMax
	if _, err := v.Sync(ctx, SyncOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(`DELETE FROM files WHERE id = ?`, a); err != nil {
		t.Fatal(err)
	}
	if err := v.Refresh(ctx); err != nil {
		t.Fatal(err)
	}
	if v.Count() != 2 {
		t.Fatalf("%d vectors after deleting one of three notes; want 2", v.Count())
	}
	if got, _ := v.Coverage(); got != 2 {
		t.Fatalf("coverage counts %d vectors; want 2", got)
	}
	memoryMatchesStore(t, v, db, 2)
}

// TestVectorsInMemoryFollowARefit refits the lexical statistics while the
// store serves: the vectors held in memory must then be the new ones, not
// those made with the old statistics, which share their chunks' hashes.
func TestVectorsInMemoryFollowARefit(t *testing.T) {
	ctx := context.Background()
	db, add := testDB(t)
	add("a.md", "alpha beta gamma", "delta epsilon")
	stale := false
	src := LexicalSource()
	src.Stale = func(embed.Embedder, int) bool { return stale }
	v := servingVectors(db, src, quietLog())
	if _, err := v.Sync(ctx, SyncOptions{}); err != nil {
		t.Fatal(err)
	}
	add("b.md", "gamma gamma zeta", "eta theta alpha")
	stale = true
	if _, err := v.Sync(ctx, SyncOptions{}); err != nil {
		t.Fatal(err)
	}
	memoryMatchesStore(t, v, db, 4)
}

// memoryMatchesStore checks that v holds, for each of the want chunks, the
// vector stored for it under the embedder in use.
func memoryMatchesStore(t *testing.T, v *Vectors, db DB, want int) {
	t.Helper()
	stored := map[int64][]float32{}
	rows, err := db.QueryContext(context.Background(), `SELECT c.id, x.vector FROM chunks c
		JOIN vectors x ON x.hash = c.hash AND x.embedder_id = ?`, v.rowID)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	for rows.Next() {
		var id int64
		var blob []byte
		if err := rows.Scan(&id, &blob); err != nil {
			t.Fatal(err)
		}
		stored[id], _ = decodeVector(blob)
	}
	n := 0
	for _, col := range v.cols {
		switch idx := col.index.(type) {
		case *denseIndex:
			n += denseMatches(t, idx, stored)
		case *columnIndex:
			n += columnMatches(t, idx, stored)
		case *chromemIndex:
			n += chromemMatches(t, idx, stored)
		}
	}
	if n != want || len(stored) != want {
		t.Fatalf("%d vectors in memory, %d stored; want %d", n, len(stored), want)
	}
}

// TestVectorsRemoteEmbedderKeepsMemoryAcrossSyncs: a remote embedder is
// built anew for each sync and names no dimension until it answers. An
// edit must still only add its chunk to memory, not reload every vector.
func TestVectorsRemoteEmbedderKeepsMemoryAcrossSyncs(t *testing.T) {
	ctx := context.Background()
	db, add := testDB(t)
	add("a.md", "alpha", "beta gamma")
	src := EmbedderSource{Provider: "test", Model: "remote", Restore: func([]byte) (embed.Embedder, error) {
		return &remoteLike{Dim: 4}, nil
	}}
	if _, err := NewVectors(db, src, quietLog()).Sync(ctx, SyncOptions{}); err != nil {
		t.Fatal(err)
	}
	v := NewVectors(db, src, quietLog())
	if err := v.Load(ctx); err != nil { // a server starting: its embedder has not answered yet
		t.Fatal(err)
	}
	before := v.cols["v"]
	add("b.md", "delta")
	if _, err := v.Sync(ctx, SyncOptions{}); err != nil {
		t.Fatal(err)
	}
	if v.cols["v"] != before {
		t.Fatal("one new note made the store reload every vector")
	}
	memoryMatchesStore(t, v, db, 3)
}

// chromemMatches checks that every vector of c is the unit vector of the
// one stored for its chunk, and returns how many c holds.
func chromemMatches(t *testing.T, c *chromemIndex, stored map[int64][]float32) int {
	t.Helper()
	err := c.each(func(id, _ int64, unit []float32) error {
		want := unitLength(slices.Clone(stored[id]))
		if len(want) != len(unit) {
			t.Errorf("chunk %d: %d dimensions in memory, %d stored", id, len(unit), len(want))
			return nil
		}
		for d, x := range want {
			if math.Abs(float64(unit[d]-x)) > 1e-7 {
				t.Errorf("chunk %d, dimension %d: %v in memory, %v stored for the embedder", id, d, unit[d], x)
				break
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return c.len()
}

// columnMatches checks that every vector of c is, to within half an int8
// step, the unit vector of the one stored for its chunk, and returns how
// many c holds.
func columnMatches(t *testing.T, c *columnIndex, stored map[int64][]float32) int {
	t.Helper()
	for i, id := range c.ids {
		want := unitLength(slices.Clone(stored[id]))
		if len(want) != c.dim {
			t.Errorf("chunk %d: %d dimensions in memory, %d stored", id, c.dim, len(want))
			continue
		}
		block, j := c.blocks[i/columnBlock], i%columnBlock
		for d, x := range want {
			got := float64(c.scales[i]) * float64(block[d*columnBlock+j])
			if math.Abs(got-float64(x)) > float64(c.scales[i])/2+1e-7 {
				t.Errorf("chunk %d, dimension %d: %v in memory, %v stored for the embedder", id, d, got, x)
				break
			}
		}
	}
	return c.len()
}

// denseMatches checks that each vector in d is the one stored for its
// chunk, to within the fine bytes' precision, and returns how many d holds.
func denseMatches(t *testing.T, d *denseIndex, stored map[int64][]float32) int {
	t.Helper()
	for i, id := range d.ids {
		want := unitLength(slices.Clone(stored[id]))
		if len(want) != d.dim {
			t.Errorf("chunk %d: %d dimensions in memory, %d stored", id, d.dim, len(want))
			continue
		}
		coarse, fine := d.vector(i)
		for k, x := range want {
			got := float64(d.scales[i]) * (float64(coarse[k]) + float64(fine[k])/256)
			if math.Abs(got-float64(x)) > float64(d.scales[i])/256 {
				t.Errorf("chunk %d, dimension %d: %v in memory, %v stored for embedder", id, k, got, x)
				break
			}
		}
	}
	return d.len()
}

// TestVectorsNamedWhileTheirModelLoads: from the moment Load has read the
// stored embedder until it is built (a model's weights can take seconds),
// the vectors are named by the stored fingerprint, so that a status line
// says which embedder is loading rather than none; a failed build names
// none again.
func TestVectorsNamedWhileTheirModelLoads(t *testing.T) {
	ctx := context.Background()
	db, add := testDB(t)
	add("a.md", "alpha", "beta gamma")
	quick := EmbedderSource{Provider: "test", Model: "remote", Restore: func([]byte) (embed.Embedder, error) {
		return &remoteLike{Dim: 4}, nil
	}}
	if _, err := NewVectors(db, quick, quietLog()).Sync(ctx, SyncOptions{}); err != nil {
		t.Fatal(err)
	}
	var stored string
	if err := db.QueryRowContext(ctx, `SELECT fingerprint FROM embedders`).Scan(&stored); err != nil {
		t.Fatal(err)
	}
	for _, fail := range []bool{false, true} {
		entered, release := make(chan struct{}), make(chan struct{})
		slow := quick
		slow.Restore = func(b []byte) (embed.Embedder, error) {
			close(entered)
			<-release
			if fail {
				return nil, errors.New("model file damaged")
			}
			return quick.Restore(b)
		}
		v := NewVectors(db, slow, quietLog())
		if got := v.Fingerprint(); got != "" {
			t.Fatalf("before Load: named %q", got)
		}
		done := make(chan error, 1)
		go func() { done <- v.Load(ctx) }()
		<-entered
		if got := v.Fingerprint(); got != stored {
			t.Errorf("while the model loads: named %q, want the stored %q", got, stored)
		}
		close(release)
		err := <-done
		switch got := v.Fingerprint(); {
		case fail && (err == nil || got != ""):
			t.Errorf("failed build: err %v, named %q; want an error and no name", err, got)
		case !fail && (err != nil || got == ""):
			t.Errorf("after Load: err %v, named %q", err, got)
		}
	}
}

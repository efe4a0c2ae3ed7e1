package embed

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/jarvis-mcp/jarvis/internal/embed/embedtest"
)

// contractBatch is the batch size the remote embedders get in the
// contract test, small so that a batch of texts spans several requests.
const contractBatch = 4

// implementations are every Embedder, the remote ones against fake
// servers on loopback.
func implementations(t *testing.T) map[string]func(t *testing.T) Embedder {
	return map[string]func(t *testing.T) Embedder{
		"lexical unfitted": func(t *testing.T) Embedder { return NewLexical() },
		"lexical fitted":   func(t *testing.T) Embedder { return fitLexical(lexicalCorpus) },
		"lexical restored": func(t *testing.T) Embedder {
			l, err := NewLexicalFromState(fitLexical(lexicalCorpus).State())
			if err != nil {
				t.Fatal(err)
			}
			return l
		},
		"local transformer": func(t *testing.T) Embedder {
			return newLocal(t, embedtest.TinyBERT(t, "mean_norm_f32"), LocalOptions{Name: "tiny-bert", BatchSize: 3})
		},
		"local transformer, CLS pooling": func(t *testing.T) Embedder {
			return newLocal(t, embedtest.TinyBERT(t, "cls_raw_f32"), LocalOptions{Name: "tiny-bert-cls"})
		},
		"local model2vec": func(t *testing.T) Embedder {
			return newLocal(t, embedtest.TinyStatic(t, "m2v_f32", ""), LocalOptions{Name: "tiny-m2v"})
		},
		"local static sentence-transformers": func(t *testing.T) Embedder {
			return newLocal(t, embedtest.TinyStatic(t, "st_raw_f16", "0_StaticEmbedding"), LocalOptions{Name: "tiny-st"})
		},
		"ollama": func(t *testing.T) Embedder {
			return remoteFor(t, newFakeServer(t, ProviderOllama), Config{BatchSize: contractBatch}, nil)
		},
		"openai": func(t *testing.T) Embedder {
			f := newFakeServer(t, ProviderOpenAI)
			f.scale = 3 // the client must normalise
			return remoteFor(t, f, Config{BatchSize: contractBatch, APIKey: "sk-test"}, nil)
		},
	}
}

// TestEmbedderContract holds every embedder to what the index and search
// rely on.
func TestEmbedderContract(t *testing.T) {
	ctx := context.Background()
	texts := func(n int) []string {
		out := make([]string, n)
		for i := range out {
			out[i] = fmt.Sprintf("%s (variant %d)", lexicalCorpus[i%len(lexicalCorpus)], i)
		}
		return out
	}
	for name, build := range implementations(t) {
		t.Run(name, func(t *testing.T) {
			e := build(t)
			if e.Provider() == "" || e.Model() == "" || e.Fingerprint() == "" {
				t.Fatalf("provider %q, model %q, fingerprint %q: all must be set", e.Provider(), e.Model(), e.Fingerprint())
			}

			t.Run("dimension stable and vectors unit length", func(t *testing.T) {
				vecs, err := e.Embed(ctx, texts(10))
				if err != nil {
					t.Fatal(err)
				}
				dim := e.Dimension()
				if dim == 0 {
					t.Fatal("dimension still 0 after an answer")
				}
				for i, v := range vecs {
					if len(v) != dim {
						t.Fatalf("vector %d has %d dimensions, Dimension() is %d", i, len(v), dim)
					}
					if n := norm(v); math.Abs(float64(n)-1) > 1e-5 {
						t.Errorf("vector %d has norm %v", i, n)
					}
				}
				if _, err := e.Embed(ctx, texts(3)); err != nil {
					t.Fatal(err)
				}
				if e.Dimension() != dim {
					t.Errorf("dimension moved from %d to %d", dim, e.Dimension())
				}
			})

			t.Run("same text same vector", func(t *testing.T) {
				a, err := e.Embed(ctx, []string{"links and backlinks", "links and backlinks"})
				if err != nil {
					t.Fatal(err)
				}
				b, err := e.Embed(ctx, []string{"something else first", "links and backlinks"})
				if err != nil {
					t.Fatal(err)
				}
				if !slices.Equal(a[0], a[1]) || !slices.Equal(a[0], b[1]) {
					t.Error("the same text gave different vectors")
				}
			})

			t.Run("order preserved across batches", func(t *testing.T) {
				in := texts(3*contractBatch + 1)
				forward, err := e.Embed(ctx, in)
				if err != nil {
					t.Fatal(err)
				}
				rev := slices.Clone(in)
				slices.Reverse(rev)
				backward, err := e.Embed(ctx, rev)
				if err != nil {
					t.Fatal(err)
				}
				if len(forward) != len(in) || len(backward) != len(in) {
					t.Fatalf("%d and %d vectors for %d texts", len(forward), len(backward), len(in))
				}
				for i := range in {
					if !slices.Equal(forward[i], backward[len(in)-1-i]) {
						t.Fatalf("text %d embeds differently depending on its position", i)
					}
					one, err := e.Embed(ctx, in[i:i+1])
					if err != nil {
						t.Fatal(err)
					}
					if !slices.Equal(forward[i], one[0]) {
						t.Fatalf("text %d embeds differently alone and in a batch", i)
					}
				}
			})

			t.Run("empty batch", func(t *testing.T) {
				for _, in := range [][]string{nil, {}} {
					vecs, err := e.Embed(ctx, in)
					if err != nil {
						t.Fatal(err)
					}
					if len(vecs) != 0 {
						t.Errorf("%d vectors for no text", len(vecs))
					}
				}
			})

			t.Run("blank text is the zero vector", func(t *testing.T) {
				vecs, err := e.Embed(ctx, []string{"", "a note", "  \n"})
				if err != nil {
					t.Fatal(err)
				}
				for _, i := range []int{0, 2} {
					if len(vecs[i]) != e.Dimension() || norm(vecs[i]) != 0 {
						t.Errorf("blank text %d: %d dimensions, norm %v; want the zero vector of %d", i, len(vecs[i]), norm(vecs[i]), e.Dimension())
					}
				}
			})

			t.Run("context cancellation", func(t *testing.T) {
				cctx, cancel := context.WithCancel(ctx)
				cancel()
				if _, err := e.Embed(cctx, texts(100)); !errors.Is(err, context.Canceled) {
					t.Errorf("cancelled context: error %v, want context.Canceled", err)
				}
				dctx, cancel := context.WithDeadline(ctx, time.Now().Add(-time.Second))
				defer cancel()
				if _, err := e.Embed(dctx, texts(100)); !errors.Is(err, context.DeadlineExceeded) {
					t.Errorf("expired deadline: error %v, want context.DeadlineExceeded", err)
				}
			})

			if strings.HasPrefix(name, "local") {
				return // random weights: similarity means nothing
			}
			t.Run("similar closer than unrelated", func(t *testing.T) {
				vecs, err := e.Embed(ctx, []string{
					"How do I link two notes together?",
					"Linking notes together with wikilinks",
					"The recipe needs three eggs and flour.",
				})
				if err != nil {
					t.Fatal(err)
				}
				sim, unrel := dot(vecs[0], vecs[1]), dot(vecs[0], vecs[2])
				if sim <= unrel {
					t.Errorf("similar %.3f <= unrelated %.3f", sim, unrel)
				}
			})
		})
	}
}

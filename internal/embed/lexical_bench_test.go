package embed

import (
	"context"
	"math/rand/v2"
	"strings"
	"testing"
)

// benchWords is a vocabulary for generated chunks: common English words
// first, so that a Zipf draw over it reads roughly like prose.
var benchWords = strings.Fields(`the of and to a in is that for it as with was on be by this are
or from at an but not have has which one all can will more their there when so if about out
up into than them only other new some could time these two may then do first any my now such
like our over man me even most made after also did many before must through back years where
much your way well down should because each just those people how too little state good very
make world still own see men work long get here between both life being under never day same
another know while last might us great old year off come since against go came right used take
three note notes vault link links graph search index chunk heading markdown obsidian plugin
embedding vector query semantic keyword project meeting daily review idea draft reference
canvas property properties template folder file files tag tags backlink backlinks outline
summary research reading writing thinking system systems design architecture database table
function method interface server client request response error errors config configuration
install version release update feature features performance memory speed quality test tests`)

// benchChunks returns n deterministic chunks of 200 to 300 words, with
// punctuation, Markdown and the odd accented or CJK word, like the
// chunks of an Obsidian vault.
func benchChunks(n int) []string {
	r := rand.New(rand.NewPCG(1, 2))
	z := rand.NewZipf(r, 1.1, 2, uint64(len(benchWords)-1))
	extras := []string{"café", "naïve", "Überblick", "日本語のテキスト", "知识管理", "[[Project Alpha]]", "#review", "**important**", "`code`", "2024-06-01"}
	out := make([]string, n)
	var b strings.Builder
	for i := range out {
		b.Reset()
		words := 200 + r.IntN(101)
		for w := range words {
			if w > 0 {
				if r.IntN(12) == 0 {
					b.WriteString(". ")
				} else if r.IntN(15) == 0 {
					b.WriteString(", ")
				} else {
					b.WriteByte(' ')
				}
			}
			if r.IntN(40) == 0 {
				b.WriteString(extras[r.IntN(len(extras))])
				continue
			}
			word := benchWords[z.Uint64()]
			if w == 0 || r.IntN(30) == 0 {
				word = strings.ToUpper(word[:1]) + word[1:]
			}
			b.WriteString(word)
		}
		b.WriteByte('.')
		out[i] = b.String()
	}
	return out
}

// BenchmarkLexicalEmbed measures embedding throughput in chunks per second
// over batches of 256 chunks of 200-300 words, with document frequencies
// fitted on the same chunks. Run:
//
//	go test ./internal/embed/ -run '^$' -bench BenchmarkLexicalEmbed -benchmem
func BenchmarkLexicalEmbed(b *testing.B) {
	chunks := benchChunks(256)
	l := fitLexical(chunks)
	ctx := context.Background()
	b.ResetTimer()
	for b.Loop() {
		if _, err := l.Embed(ctx, chunks); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N*len(chunks))/b.Elapsed().Seconds(), "chunks/s")
}

// BenchmarkLexicalFit measures fitting document frequencies, which an
// index build does once over every chunk.
func BenchmarkLexicalFit(b *testing.B) {
	chunks := benchChunks(256)
	b.ResetTimer()
	for b.Loop() {
		f := NewLexicalFitter()
		for _, c := range chunks {
			f.Add(c)
		}
		_ = f.Lexical()
	}
	b.ReportMetric(float64(b.N*len(chunks))/b.Elapsed().Seconds(), "chunks/s")
}

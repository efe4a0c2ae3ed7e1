package wordpiece

import (
	"github.com/jarvis-mcp/jarvis/internal/embed/embedtest"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"testing"
)

// benchText builds about size bytes of note-like text from the given words,
// in a fixed pseudo-random order.
func benchText(size int, words []string) string {
	rng := rand.New(rand.NewPCG(1, 2))
	var b strings.Builder
	for b.Len() < size {
		b.WriteString(words[rng.IntN(len(words))])
		switch rng.IntN(12) {
		case 0:
			b.WriteString(". ")
		case 1:
			b.WriteString(", ")
		case 2:
			b.WriteString("\n")
		default:
			b.WriteByte(' ')
		}
	}
	return b.String()
}

var englishWords = strings.Fields(`the of and a to in is was that for on as with by he at from
his an were are which this be or has had not first one their its new after but who they
have her she two been other when there all during into school time may years more most only
over city some world would where later up such used many can state about national out known
university united then made vault note link graph embedding tokenizer wordpiece obsidian
markdown [[wiki]] #tag semantic retrieval unaffable antidisestablishmentarianism`)

var mixedWords = append(strings.Fields(`café naïve Zürich Ελληνικά русский 日本語のテキスト 한국어
中文分词 emoji🎉 ﬁne İstanbul`), englishWords...)

func benchmarkEncode(b *testing.B, text string) {
	_, tok, _ := tokenizers(b)
	b.SetBytes(int64(len(text)))
	b.ReportAllocs()
	for b.Loop() {
		tok.Encode(text)
	}
}

// BenchmarkEncodeEnglish: 1 MB of English note text.
func BenchmarkEncodeEnglish(b *testing.B) { benchmarkEncode(b, benchText(1<<20, englishWords)) }

// BenchmarkEncodeMixed: 1 MB with accents, Greek, Cyrillic, CJK, Hangul and emoji.
func BenchmarkEncodeMixed(b *testing.B) { benchmarkEncode(b, benchText(1<<20, mixedWords)) }

// BenchmarkEncodeWithSpecial512: a 1 MB note cut to a model's 512 tokens,
// which reads only the start of the text.
func BenchmarkEncodeWithSpecial512(b *testing.B) {
	_, tok, _ := tokenizers(b)
	text := benchText(1<<20, englishWords)
	b.ReportAllocs()
	for b.Loop() {
		tok.EncodeWithSpecial(text, 512)
	}
}

// BenchmarkLoadVocab: reading bert-base-uncased's vocab.txt (30,522 tokens).
func BenchmarkLoadVocab(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Load(minilmDir); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkLoadTokenizerJSON: reading all-MiniLM-L6-v2's tokenizer.json.
func BenchmarkLoadTokenizerJSON(b *testing.B) {
	data := embedtest.Gunzip(b, filepath.Join(minilmDir, "tokenizer.json.gz"))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := FromTokenizerJSON(data); err != nil {
			b.Fatal(err)
		}
	}
}

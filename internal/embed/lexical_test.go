package embed

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"hash/crc32"
	"math"
	"slices"
	"testing"
)

var lexicalCorpus = []string{
	"Obsidian stores notes as Markdown files in a local vault.",
	"Links between notes build a graph you can browse.",
	"The daily note template adds a heading for tasks.",
	"Backlinks show every note that links to the current one.",
	"Search finds notes by keyword or by meaning.",
	"Tags group notes across folders.",
}

func embedOne(t testing.TB, e Embedder, text string) []float32 {
	t.Helper()
	v, err := e.Embed(context.Background(), []string{text})
	if err != nil {
		t.Fatal(err)
	}
	return v[0]
}

func TestLexicalStateRoundTrip(t *testing.T) {
	for name, l := range map[string]*Lexical{
		"fitted":   fitLexical(lexicalCorpus),
		"unfitted": NewLexical(),
	} {
		t.Run(name, func(t *testing.T) {
			back, err := NewLexicalFromState(l.State())
			if err != nil {
				t.Fatal(err)
			}
			if back.Fingerprint() != l.Fingerprint() {
				t.Errorf("fingerprint %s, want %s", back.Fingerprint(), l.Fingerprint())
			}
			if back.Documents() != l.Documents() {
				t.Errorf("documents %d, want %d", back.Documents(), l.Documents())
			}
			if !bytes.Equal(back.State(), l.State()) {
				t.Error("state changed in the round trip")
			}
			for _, text := range append(lexicalCorpus, "a query never seen", "") {
				if !slices.Equal(embedOne(t, back, text), embedOne(t, l, text)) {
					t.Errorf("%q embeds differently after the round trip", text)
				}
			}
		})
	}
}

// fitLexical fits document frequencies on texts, each one document.
func fitLexical(texts []string) *Lexical {
	f := NewLexicalFitter()
	for _, t := range texts {
		f.Add(t)
	}
	return f.Lexical()
}

func TestLexicalFitter(t *testing.T) {
	f := NewLexicalFitter()
	for _, text := range lexicalCorpus {
		f.Add(text)
	}
	first := f.Lexical()
	if first.Documents() != len(lexicalCorpus) {
		t.Errorf("embedder fitted on %d documents, want %d", first.Documents(), len(lexicalCorpus))
	}
	if first.Fingerprint() != fitLexical(lexicalCorpus).Fingerprint() {
		t.Error("fitting the same corpus twice gave different fingerprints")
	}
	f.Add("A refit on more text changes the frequencies.")
	second := f.Lexical()
	if second.Fingerprint() == first.Fingerprint() {
		t.Error("refitted frequencies kept the fingerprint")
	}
	if NewLexical().Fingerprint() == first.Fingerprint() {
		t.Error("fitted and unfitted embedders share a fingerprint")
	}
	// The first embedder keeps its own frequencies.
	if first.Fingerprint() != fitLexical(lexicalCorpus).Fingerprint() {
		t.Error("fitting further changed an embedder already returned")
	}
}

// TestLexicalIDF checks that rare features weigh more than common ones:
// after fitting, two texts sharing only a word found everywhere are less
// alike than two sharing only a rare word.
func TestLexicalIDF(t *testing.T) {
	corpus := []string{"note alpha", "note beta", "note gamma", "note delta", "note epsilon", "zebra one", "zebra two"}
	l := fitLexical(corpus)
	common := dot(embedOne(t, l, "note alpha"), embedOne(t, l, "note beta"))
	rare := dot(embedOne(t, l, "zebra one"), embedOne(t, l, "zebra two"))
	if rare <= common {
		t.Errorf("sharing a rare word gives %.3f, sharing a common one %.3f; want rare > common", rare, common)
	}
}

func TestLexicalStateCorrupt(t *testing.T) {
	good := fitLexical(lexicalCorpus).State()
	// reseal recomputes the checksum, so a test reaches the check after it.
	reseal := func(b []byte) []byte {
		b = slices.Clone(b[:len(b)-4])
		return binary.LittleEndian.AppendUint32(b, crc32.ChecksumIEEE(b))
	}
	header := func(model string, dim uint64, bits byte, docs, entries uint64, rest ...byte) []byte {
		b := []byte(stateMagic)
		b = append(b, stateVersion)
		b = binary.AppendUvarint(b, uint64(len(model)))
		b = append(b, model...)
		b = binary.AppendUvarint(b, dim)
		b = append(b, bits)
		b = binary.AppendUvarint(b, docs)
		b = binary.AppendUvarint(b, entries)
		b = append(b, rest...)
		return binary.LittleEndian.AppendUint32(b, crc32.ChecksumIEEE(b))
	}
	flipped := slices.Clone(good)
	flipped[len(flipped)/2] ^= 0x40
	version := slices.Clone(good)
	version[len(stateMagic)] = 9
	tests := []struct {
		name  string
		state []byte
	}{
		{"nil", nil},
		{"empty", []byte{}},
		{"other magic", append([]byte("JSON"), good[4:]...)},
		{"flipped byte", flipped},
		{"truncated", good[:len(good)/2]},
		{"checksum only", good[len(good)-4:]},
		{"future version", reseal(version)},
		{"other model", header("hashed-ngrams-v0", LexicalDimension, idfBits, 1, 0)},
		{"other dimension", header(lexicalModel, LexicalDimension/2, idfBits, 1, 0)},
		{"other table size", header(lexicalModel, LexicalDimension, 16, 1, 0)},
		{"model length past the end", reseal(append(append([]byte(stateMagic), stateVersion, 0xff, 0x7f), 0, 0, 0, 0))},
		{"too many entries", header(lexicalModel, LexicalDimension, idfBits, 5, 1<<21)},
		{"missing entries", header(lexicalModel, LexicalDimension, idfBits, 5, 2, 1, 1)},
		{"zero gap", header(lexicalModel, LexicalDimension, idfBits, 5, 2, 1, 1, 0, 1)},
		{"index past the table", header(lexicalModel, LexicalDimension, idfBits, 5, 1, 0xff, 0xff, 0xff, 0x01, 1)},
		{"frequency above documents", header(lexicalModel, LexicalDimension, idfBits, 5, 1, 1, 6)},
		{"zero frequency", header(lexicalModel, LexicalDimension, idfBits, 5, 1, 1, 0)},
		{"frequencies without documents", header(lexicalModel, LexicalDimension, idfBits, 0, 1, 1, 1)},
		{"trailing bytes", header(lexicalModel, LexicalDimension, idfBits, 5, 1, 1, 1, 7)},
		{"bad varint", header(lexicalModel, LexicalDimension, idfBits, 5, 1, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l, err := NewLexicalFromState(tt.state)
			if err == nil {
				t.Fatalf("accepted a corrupt state (fingerprint %s)", l.Fingerprint())
			}
			if !errors.Is(err, ErrLexicalState) {
				t.Errorf("error %v does not wrap ErrLexicalState", err)
			}
		})
	}
	if _, err := NewLexicalFromState(header(lexicalModel, LexicalDimension, idfBits, 5, 1, 1, 5)); err != nil {
		t.Errorf("the test's own valid state was refused: %v", err)
	}
}

// TestLexicalFolding checks that spellings a reader takes as the same
// text embed identically.
func TestLexicalFolding(t *testing.T) {
	l := fitLexical(lexicalCorpus)
	same := []struct{ a, b string }{
		{"Café Crème", "cafe creme"},
		{"cafe\u0301", "café"},                 // combining accent vs precomposed
		{"ＡＢＣ　１２３", "abc 123"},                 // full-width forms
		{"don't", "dont"},                      // apostrophe inside a word
		{"don’t", "don't"},                     // typographic apostrophe
		{"co\u00adop\u00aderate", "cooperate"}, // soft hyphens
		{"ΆΛΦΑ", "αλφα"},                       // Greek case and tonos
		{"Łódź", "lodz"},
		{"Hello, World!", "hello world"},
		{"'quoted'", "quoted"},
	}
	for _, tt := range same {
		if a, b := embedOne(t, l, tt.a), embedOne(t, l, tt.b); !slices.Equal(a, b) {
			t.Errorf("%q and %q embed differently (cosine %.4f)", tt.a, tt.b, dot(a, b))
		}
	}
	different := []struct{ a, b string }{
		{"note", "notes"},
		{"日本", "本日"},
		{"a b", "ab"},
	}
	for _, tt := range different {
		if slices.Equal(embedOne(t, l, tt.a), embedOne(t, l, tt.b)) {
			t.Errorf("%q and %q embed identically", tt.a, tt.b)
		}
	}
}

// TestLexicalScripts checks that text in scripts written without spaces
// is embedded from its characters: related sentences closer than
// unrelated ones.
func TestLexicalScripts(t *testing.T) {
	l := NewLexical()
	tests := []struct {
		name                     string
		text, similar, unrelated string
	}{
		{"chinese", "我喜欢在笔记里记录读书心得", "我在笔记里记录读书的心得", "今天天气很好适合去公园散步"},
		{"japanese", "ノートにリンクを追加する方法", "リンクをノートに追加する", "明日は雨が降るでしょう"},
		{"korean", "노트에 링크를 추가하는 방법", "링크를 노트에 추가하기", "내일은 비가 올 것입니다"},
		{"thai", "วิธีเพิ่มลิงก์ในบันทึก", "เพิ่มลิงก์ในบันทึก", "พรุ่งนี้ฝนจะตก"},
		{"russian", "Как добавить ссылку в заметку", "добавить ссылку в заметки", "Завтра будет дождь"},
		{"arabic", "كيفية إضافة رابط إلى الملاحظة", "إضافة رابط إلى ملاحظة", "سوف تمطر غدا"},
		{"emoji", "🚀 launch plan 🚀", "launch plan 🚀", "grocery list 🥕"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v := embedOne(t, l, tt.text)
			if n := norm(v); math.Abs(float64(n)-1) > 1e-5 {
				t.Fatalf("norm %v, want 1", n)
			}
			sim, unrel := dot(v, embedOne(t, l, tt.similar)), dot(v, embedOne(t, l, tt.unrelated))
			if sim <= unrel {
				t.Errorf("similar %.3f <= unrelated %.3f", sim, unrel)
			}
		})
	}
}

// TestLexicalZeroVector pins what text without features gives: the zero
// vector, which claims no similarity with anything.
func TestLexicalZeroVector(t *testing.T) {
	l := fitLexical(lexicalCorpus)
	for _, text := range []string{"", " \t\n", "!?.,;:-", "\u200b\u00ad", "\xff\xfe"} {
		v := embedOne(t, l, text)
		if len(v) != LexicalDimension {
			t.Fatalf("%q: %d dimensions, want %d", text, len(v), LexicalDimension)
		}
		if n := norm(v); n != 0 {
			t.Errorf("%q: norm %v, want the zero vector", text, n)
		}
	}
}

// TestLexicalLongText checks that a text far longer than a chunk (a
// pasted log, a base64 blob) embeds without trouble.
func TestLexicalLongText(t *testing.T) {
	long := bytes.Repeat([]byte("lorem ipsum dolor sit amet 0123456789abcdef "), 20000)
	long = append(long, bytes.Repeat([]byte("x"), 100000)...)
	v := embedOne(t, NewLexical(), string(long))
	if n := norm(v); math.Abs(float64(n)-1) > 1e-5 {
		t.Errorf("norm %v, want 1", n)
	}
}

// TestLexicalEmbedNoAllocPerFeature checks that embedding reuses its
// buffers: a batch costs a fixed handful of allocations, whatever the
// length of its texts.
func TestLexicalEmbedNoAllocPerFeature(t *testing.T) {
	if raceEnabled {
		t.Skip("allocation counts differ under the race detector")
	}
	l := fitLexical(lexicalCorpus)
	chunks := benchChunks(8)
	ctx := context.Background()
	if _, err := l.Embed(ctx, chunks); err != nil { // grow the buffers
		t.Fatal(err)
	}
	allocs := testing.AllocsPerRun(20, func() {
		if _, err := l.Embed(ctx, chunks); err != nil {
			t.Fatal(err)
		}
	})
	if allocs > 4 {
		t.Errorf("%v allocations for a batch of %d chunks, want at most 4", allocs, len(chunks))
	}
}

// FuzzLexicalEmbed checks the tokeniser and the embedder on any input:
// no panic, a vector of the right length with finite values, unit length
// or the zero vector, zero exactly when the text has no tokens, and the
// same vector every time.
func FuzzLexicalEmbed(f *testing.F) {
	for _, s := range append(lexicalCorpus, "", " ", "Café ＡＢＣ don't", "日本語のテキスト", "\xff\xfe", "a\u0301\u0301", "🚀🚀", "วิธีเพิ่ม", "'", "a'b'c") {
		f.Add(s)
	}
	l := fitLexical(lexicalCorpus)
	var tz tokenizer
	f.Fuzz(func(t *testing.T, text string) {
		v := embedOne(t, l, text)
		if len(v) != LexicalDimension {
			t.Fatalf("%d dimensions", len(v))
		}
		for _, x := range v {
			if math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) {
				t.Fatalf("non-finite value %v", x)
			}
		}
		tz.tokenize(text)
		n := norm(v)
		switch {
		case len(tz.tokens) == 0 && n != 0:
			t.Fatalf("no tokens but norm %v", n)
		case len(tz.tokens) > 0 && math.Abs(float64(n)-1) > 1e-4:
			// Signed hashing could in principle cancel every feature; a
			// text short enough for that would have few features, all of
			// different weights, so it does not happen in practice.
			t.Fatalf("%d tokens but norm %v", len(tz.tokens), n)
		}
		if !slices.Equal(v, embedOne(t, l, text)) {
			t.Fatal("embedding the same text twice differs")
		}
	})
}

// FuzzLexicalState checks that restoring any bytes as a state never
// panics, and that what it accepts embeds.
func FuzzLexicalState(f *testing.F) {
	f.Add(fitLexical(lexicalCorpus).State())
	f.Add(NewLexical().State())
	f.Add([]byte("JLEX\x01"))
	f.Fuzz(func(t *testing.T, state []byte) {
		l, err := NewLexicalFromState(state)
		if err != nil {
			return
		}
		embedOne(t, l, "a note about links")
	})
}

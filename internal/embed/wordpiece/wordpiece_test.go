package wordpiece

import (
	"errors"
	"github.com/jarvis-mcp/jarvis/internal/embed/embedtest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
)

// The expected ids below are either published examples or worked out by
// hand from testdata/all-MiniLM-L6-v2/vocab.txt (bert-base-uncased): the id
// of a token is its line number minus one, e.g. `grep -nxF hello vocab.txt`
// prints 7593, so "hello" is 7592.
const (
	idPAD   = 0
	idUNK   = 100
	idCLS   = 101
	idSEP   = 102
	idMASK  = 103
	idBang  = 999  // !
	idApos  = 1005 // '
	idComma = 1010 // ,
	idDot   = 1012 // .
	idLBrk  = 1031 // [
	idRBrk  = 1033 // ]
	idHello = 7592
	idWorld = 2088
)

const (
	minilmDir = "testdata/all-MiniLM-L6-v2"
	potionDir = "testdata/potion-base-8M"
)

var (
	loadOnce              sync.Once
	bertVocab, bertJSON   *Tokenizer
	potionJSON            *Tokenizer
	loadErr               error
	minilmJSON, potionRaw []byte
)

// tokenizers loads the three real tokenizers once for all tests: the
// bert-base-uncased vocab.txt with its tokenizer_config.json, the
// all-MiniLM-L6-v2 tokenizer.json, and the potion-base-8M tokenizer.json.
func tokenizers(t testing.TB) (vocab, minilm, potion *Tokenizer) {
	t.Helper()
	loadOnce.Do(func() {
		minilmJSON = embedtest.Gunzip(t, filepath.Join(minilmDir, "tokenizer.json.gz"))
		potionRaw = embedtest.Gunzip(t, filepath.Join(potionDir, "tokenizer.json.gz"))
		if bertVocab, loadErr = Load(minilmDir); loadErr != nil {
			return
		}
		if bertJSON, loadErr = FromTokenizerJSON(minilmJSON); loadErr != nil {
			return
		}
		potionJSON, loadErr = FromTokenizerJSON(potionRaw)
	})
	if loadErr != nil {
		t.Fatal(loadErr)
	}
	return bertVocab, bertJSON, potionJSON
}

func TestRealVocabularies(t *testing.T) {
	vocab, minilm, potion := tokenizers(t)
	for name, tc := range map[string]struct {
		tok                      *Tokenizer
		size, maxLen             int
		unk, cls, sep, pad, mask int32
	}{
		"bert-base-uncased vocab.txt":     {vocab, 30522, 512, idUNK, idCLS, idSEP, idPAD, idMASK},
		"all-MiniLM-L6-v2 tokenizer.json": {minilm, 30522, 256, idUNK, idCLS, idSEP, idPAD, idMASK},
		"potion-base-8M tokenizer.json":   {potion, 29528, 512, 1, 2, 3, 0, 4},
	} {
		t.Run(name, func(t *testing.T) {
			tok := tc.tok
			if tok.VocabSize() != tc.size || tok.MaxLen() != tc.maxLen {
				t.Errorf("VocabSize, MaxLen = %d, %d; want %d, %d", tok.VocabSize(), tok.MaxLen(), tc.size, tc.maxLen)
			}
			got := []int32{tok.UNK(), tok.CLS(), tok.SEP(), tok.PAD(), tok.Mask()}
			want := []int32{tc.unk, tc.cls, tc.sep, tc.pad, tc.mask}
			if !slices.Equal(got, want) {
				t.Errorf("UNK, CLS, SEP, PAD, Mask = %v; want %v", got, want)
			}
		})
	}
}

// TestBertUncased checks encodings against bert-base-uncased, through both
// vocab.txt and tokenizer.json.
func TestBertUncased(t *testing.T) {
	vocab, minilm, _ := tokenizers(t)
	tests := []struct {
		name, text string
		want       []int32
		tokens     []string // checked when set
	}{
		// The encoding of this sentence is a widely published example.
		{"published hello world", "Hello, world!", []int32{idHello, idComma, idWorld, idBang}, nil},
		// Hugging Face's tokenizer summary shows this sentence with
		// bert-base-uncased: "gpu" is not in the vocabulary.
		{"published gpu", "I have a new GPU!", []int32{1045, 2031, 1037, 2047, 14246, 2226, idBang},
			[]string{"i", "have", "a", "new", "gp", "##u", "!"}},
		// Greedy longest match: "una" (no "unaf"), then "##ffa" (no
		// "##ffab", "##ffabl", "##ffable"), then "##ble".
		{"greedy longest match", "unaffable", []int32{14477, 20961, 3468}, []string{"una", "##ffa", "##ble"}},
		{"apostrophe is punctuation", "don't", []int32{2123, idApos, 1056}, []string{"don", "'", "t"}},
		{"ascii symbols are punctuation", "a+b$", []int32{1037, 1009, 1038, 1002}, []string{"a", "+", "b", "$"}},
		{"unicode punctuation", "«hi»", []int32{1077, 7632, 1090}, []string{"«", "hi", "»"}},
		{"accent stripped", "Café", []int32{7668}, []string{"cafe"}},
		{"accents stripped inside words", "naïve Héllo", []int32{15743, idHello}, nil},
		{"cjk one per token", "日本", []int32{1864, 1876}, []string{"日", "本"}},
		{"cjk inside latin text", "a中国b", []int32{1037, 1746, 1799, 1038}, nil},
		{"emoji unknown", "hello 👍 world", []int32{idHello, idUNK, idWorld}, []string{"hello", "[UNK]", "world"}},
		{"emoji glued to a word", "hello👍", []int32{idUNK}, nil},
		{"nul removed without splitting", "hel\x00lo", []int32{idHello}, nil},
		{"zero width space removed", "hel\u200blo", []int32{idHello}, nil},
		{"replacement char removed", "hel\ufffdlo", []int32{idHello}, nil},
		{"invalid utf-8 removed", "hel\xfflo", []int32{idHello}, nil},
		{"control whitespace splits", "hello\tworld\r\nhello\u00a0world", []int32{idHello, idWorld, idHello, idWorld}, nil},
		{"line separator splits", "hello\u2028world", []int32{idHello, idWorld}, nil},
		{"literal special token", "hello [MASK] world", []int32{idHello, idMASK, idWorld}, nil},
		{"special token needs no spaces", "a[SEP]b", []int32{1037, idSEP, 1038}, nil},
		{"lowercase special token is text", "[mask]", []int32{idLBrk, 7308, idRBrk}, []string{"[", "mask", "]"}},
		{"empty", "", []int32{}, nil},
		{"blank", " \t\n\u3000 ", []int32{}, nil},
		{"only controls", "\x00\x01\u200d", []int32{}, nil},
		// Only "a", "##a", "aa", "##aa" and "aaa" are all-a tokens: 100 a's
		// are "aaa", 48 "##aa" and a "##a".
		{"word of 100 chars", strings.Repeat("a", 100),
			append(append([]int32{13360}, slices.Repeat([]int32{11057}, 48)...), 2050), nil},
		{"word of 101 chars", strings.Repeat("a", 101), []int32{idUNK}, nil},
		{"long word between words", "hello " + strings.Repeat("é", 101) + " world", []int32{idHello, idUNK, idWorld}, nil},
	}
	for _, tc := range tests {
		for name, tok := range map[string]*Tokenizer{"vocab.txt": vocab, "tokenizer.json": minilm} {
			t.Run(tc.name+"/"+name, func(t *testing.T) {
				got := tok.Encode(tc.text)
				if !slices.Equal(got, tc.want) {
					t.Errorf("Encode(%q) = %v; want %v", tc.text, got, tc.want)
				}
				if tc.tokens != nil {
					if got := tok.Tokens(tc.text); !slices.Equal(got, tc.tokens) {
						t.Errorf("Tokens(%q) = %q; want %q", tc.text, got, tc.tokens)
					}
				}
			})
		}
	}
}

func TestEncodeWithSpecial(t *testing.T) {
	_, tok, _ := tokenizers(t)
	tests := []struct {
		name   string
		text   string
		maxLen int
		want   []int32
	}{
		{"published", "Hello, world!", 0, []int32{idCLS, idHello, idComma, idWorld, idBang, idSEP}},
		{"cut keeps SEP", "hello world hello world", 4, []int32{idCLS, idHello, idWorld, idSEP}},
		{"cut inside a word's pieces", "unaffable", 4, []int32{idCLS, 14477, 20961, idSEP}},
		{"exact fit", "hello world", 4, []int32{idCLS, idHello, idWorld, idSEP}},
		{"empty", "", 8, []int32{idCLS, idSEP}},
		{"room for nothing", "hello", 2, []int32{idCLS, idSEP}},
		{"below the specials", "hello", 1, []int32{idCLS, idSEP}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := tok.EncodeWithSpecial(tc.text, tc.maxLen); !slices.Equal(got, tc.want) {
				t.Errorf("EncodeWithSpecial(%q, %d) = %v; want %v", tc.text, tc.maxLen, got, tc.want)
			}
		})
	}
	t.Run("default max length", func(t *testing.T) {
		got := tok.EncodeWithSpecial(strings.Repeat("hello ", 1000), 0)
		if len(got) != 256 || got[0] != idCLS || got[255] != idSEP || got[254] != idHello {
			t.Errorf("len %d, first %d, last two %v; want 256 tokens [CLS] hello ... hello [SEP]", len(got), got[0], got[len(got)-2:])
		}
	})
}

// TestAccentOptions checks strip_accents against the vocabulary: "café"
// stays "café" when accents are kept, and as "caf" + "##é" cannot be
// spelled ("##é" is not a token) it is unknown.
func TestAccentOptions(t *testing.T) {
	keep, strip := false, true
	for _, tc := range []struct {
		name string
		opts Options
		want []int32
	}{
		{"lowercase strips by default", Options{Lowercase: true}, []int32{7668}},
		{"lowercase keeping accents", Options{Lowercase: true, StripAccents: &keep}, []int32{idUNK}},
		{"cased stripping accents", Options{StripAccents: &strip}, []int32{idUNK}}, // "Cafe": no such token
		{"cased", Options{}, []int32{idUNK}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tok := vocabTokenizer(t, tc.opts)
			if got := tok.Encode("Café"); !slices.Equal(got, tc.want) {
				t.Errorf("Encode(Café) = %v; want %v", got, tc.want)
			}
		})
	}
	t.Run("cased keeps case", func(t *testing.T) {
		tok := vocabTokenizer(t, Options{})
		// "Hello" is not in the uncased vocabulary; "cafe" is.
		if got := tok.Encode("Hello cafe"); !slices.Equal(got, []int32{idUNK, 7668}) {
			t.Errorf("got %v; want [100 7668]", got)
		}
	})
	t.Run("without SplitCJK ideographs join", func(t *testing.T) {
		tok := vocabTokenizer(t, Options{Lowercase: true})
		// One word "日本": no such token, so "日" then "##本" (line 30403).
		if got := tok.Encode("日本"); !slices.Equal(got, []int32{1864, 30402}) {
			t.Errorf("Encode(日本) = %v; want [1864 30402]", got)
		}
	})
}

func vocabTokenizer(t *testing.T, opts Options) *Tokenizer {
	t.Helper()
	f, err := os.Open(filepath.Join(minilmDir, "vocab.txt"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	tok, err := FromVocab(f, opts)
	if err != nil {
		t.Fatal(err)
	}
	return tok
}

// TestBertReadmeExample is the example of BERT's README, "unaffable" ->
// un ##aff ##able, over a vocabulary that has those pieces.
func TestBertReadmeExample(t *testing.T) {
	vocab := "[PAD]\n[UNK]\n[CLS]\n[SEP]\nun\n##aff\n##able\nunaff\n##a\n"
	tok, err := FromVocab(strings.NewReader(vocab), DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	// "unaff" is longer than "un", so greedy matching takes it first.
	if got := tok.Tokens("unaffable"); !slices.Equal(got, []string{"unaff", "##able"}) {
		t.Errorf("Tokens(unaffable) = %q; want [unaff ##able]", got)
	}
	tok, err = FromVocab(strings.NewReader("[UNK]\nun\n##aff\n##able\n"), DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	if got := tok.Tokens("UNAFFABLE unaffable"); !slices.Equal(got, []string{"un", "##aff", "##able", "un", "##aff", "##able"}) {
		t.Errorf("Tokens = %q; want un ##aff ##able twice", got)
	}
	if got := tok.Encode("unaffablex"); !slices.Equal(got, []int32{0}) {
		t.Errorf("Encode(unaffablex) = %v; want [0]: one piece missing makes the whole word unknown", got)
	}
	if tok.CLS() != -1 || tok.SEP() != -1 || tok.PAD() != -1 || tok.Mask() != -1 {
		t.Errorf("CLS, SEP, PAD, Mask = %d %d %d %d; want -1 for tokens the vocabulary lacks", tok.CLS(), tok.SEP(), tok.PAD(), tok.Mask())
	}
	if got := tok.EncodeWithSpecial("un", 5); !slices.Equal(got, []int32{1}) {
		t.Errorf("EncodeWithSpecial without [CLS] and [SEP] = %v; want [1]", got)
	}
}

func TestOptionsPrefixAndWordLength(t *testing.T) {
	opts := DefaultOptions()
	opts.ContinuingSubwordPrefix = "@@"
	opts.MaxInputCharsPerWord = 5
	opts.UnknownToken = "<unk>"
	tok, err := FromVocab(strings.NewReader("<unk>\nab\n@@cd\n##cd\n"), opts)
	if err != nil {
		t.Fatal(err)
	}
	if got := tok.Tokens("abcd abcdcd"); !slices.Equal(got, []string{"ab", "@@cd", "<unk>"}) {
		t.Errorf("Tokens = %q; want [ab @@cd <unk>] (the second word has 6 characters)", got)
	}
}

// TestJSONAndVocabAgree runs texts of many kinds through the vocab.txt and
// tokenizer.json readings of the same vocabulary, and through potion-base-8M,
// whose vocabulary is bert-base-uncased's without the 994 [unusedN] tokens:
// its ids are bert-base-uncased's minus 994, and 99 less for the specials
// [UNK], [CLS], [SEP] and [MASK].
func TestJSONAndVocabAgree(t *testing.T) {
	vocab, minilm, potion := tokenizers(t)
	texts := []string{
		"The quick brown fox jumps over the lazy dog.",
		"Obsidian vaults: [[Wiki links]], #tags, ^block-ids and `code`!",
		"Ünïcödé àccents, Ελληνικά, русский, 日本語のテキスト, 한국어, עברית",
		"emoji 🎉🎉 and ZWJ 👩‍💻 sequences; math ∑ x² ≤ ∞",
		"tabs\tand\nnewlines\r\nand\u00a0non-breaking spaces",
		"[CLS] literal [SEP] tokens [MASK] and [PAD] [UNK]",
		"İstanbul ǅemal ﬁne ŉ ß ẞ",
		"supercalifragilisticexpialidocious antidisestablishmentarianism",
	}
	for _, text := range texts {
		a, b := vocab.Encode(text), minilm.Encode(text)
		if !slices.Equal(a, b) {
			t.Errorf("%q: vocab.txt %v, tokenizer.json %v", text, a, b)
		}
		p := potion.Encode(text)
		if len(p) != len(a) {
			t.Errorf("%q: potion %v, bert %v", text, p, a)
			continue
		}
		for i := range a {
			want := a[i] - 994
			if a[i] <= idMASK {
				want = a[i] - 99
			}
			if a[i] == idPAD {
				want = 0
			}
			if p[i] != want {
				t.Errorf("%q: token %d (%q) is %d in potion; want %d", text, i, vocab.Token(a[i]), p[i], want)
			}
		}
	}
}

func TestLoad(t *testing.T) {
	t.Run("tokenizer.json wins and keeps its max length", func(t *testing.T) {
		dir := t.TempDir()
		writeFile(t, filepath.Join(dir, "tokenizer.json"), minilmJSONBytes(t))
		copyFile(t, filepath.Join(minilmDir, "tokenizer_config.json"), filepath.Join(dir, "tokenizer_config.json"))
		writeFile(t, filepath.Join(dir, "vocab.txt"), []byte("this would fail\n"))
		tok, err := Load(dir)
		if err != nil {
			t.Fatal(err)
		}
		if tok.MaxLen() != 256 || !slices.Equal(tok.Encode("Hello, world!"), []int32{idHello, idComma, idWorld, idBang}) {
			t.Errorf("MaxLen %d, Encode %v", tok.MaxLen(), tok.Encode("Hello, world!"))
		}
	})
	t.Run("tokenizer.json without truncation takes model_max_length", func(t *testing.T) {
		dir := t.TempDir()
		writeFile(t, filepath.Join(dir, "tokenizer.json"), potionRawBytes(t))
		writeFile(t, filepath.Join(dir, "tokenizer_config.json"), []byte(`{"model_max_length": 128}`))
		tok, err := Load(dir)
		if err != nil {
			t.Fatal(err)
		}
		if tok.MaxLen() != 128 {
			t.Errorf("MaxLen = %d; want 128", tok.MaxLen())
		}
	})
	t.Run("vocab.txt follows tokenizer_config.json", func(t *testing.T) {
		dir := t.TempDir()
		copyFile(t, filepath.Join(minilmDir, "vocab.txt"), filepath.Join(dir, "vocab.txt"))
		writeFile(t, filepath.Join(dir, "tokenizer_config.json"), []byte(`{
			"do_lower_case": true, "strip_accents": false, "tokenize_chinese_chars": false,
			"model_max_length": 1000000000000000019884624838656,
			"unk_token": {"content": "[UNK]", "__type": "AddedToken"}, "cls_token": "[CLS]"}`))
		tok, err := Load(dir)
		if err != nil {
			t.Fatal(err)
		}
		// Accents kept: "café" is unknown. Ideographs not split: 日 ##本.
		if got := tok.Encode("Café 日本"); !slices.Equal(got, []int32{idUNK, 1864, 30402}) {
			t.Errorf("Encode = %v; want [100 1864 30402]", got)
		}
		if tok.MaxLen() != DefaultMaxLen {
			t.Errorf("MaxLen = %d; want %d (a huge model_max_length means no limit)", tok.MaxLen(), DefaultMaxLen)
		}
	})
	t.Run("nothing there", func(t *testing.T) {
		_, err := Load(t.TempDir())
		if err == nil || !strings.Contains(err.Error(), "neither tokenizer.json nor vocab.txt") {
			t.Errorf("err = %v", err)
		}
	})
	t.Run("do_basic_tokenize false refused", func(t *testing.T) {
		dir := t.TempDir()
		copyFile(t, filepath.Join(minilmDir, "vocab.txt"), filepath.Join(dir, "vocab.txt"))
		writeFile(t, filepath.Join(dir, "tokenizer_config.json"), []byte(`{"do_basic_tokenize": false}`))
		if _, err := Load(dir); !errors.Is(err, ErrUnsupported) {
			t.Errorf("err = %v; want ErrUnsupported", err)
		}
	})
}

func minilmJSONBytes(t *testing.T) []byte { tokenizers(t); return minilmJSON }
func potionRawBytes(t *testing.T) []byte  { tokenizers(t); return potionRaw }

func writeFile(t *testing.T, path string, data []byte) {
	t.Helper()
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	data, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, to, data)
}

// wordPieceJSON is a small tokenizer.json in the shape of BERT's, with the
// normalizer and pre_tokenizer given.
func wordPieceJSON(normalizer, preTokenizer string) string {
	return `{"version": "1.0", "truncation": null, "padding": null,
		"added_tokens": [{"id": 0, "content": "[UNK]", "single_word": false, "lstrip": false, "rstrip": false, "normalized": false, "special": true}],
		"normalizer": ` + normalizer + `, "pre_tokenizer": ` + preTokenizer + `,
		"model": {"type": "WordPiece", "unk_token": "[UNK]", "continuing_subword_prefix": "##", "max_input_chars_per_word": 100,
			"vocab": {"[UNK]": 0, "hello": 1, "!": 2, "cafe": 3, "##s": 4}}}`
}

func TestTokenizerJSONVariants(t *testing.T) {
	const bertNorm = `{"type": "BertNormalizer", "clean_text": true, "handle_chinese_chars": true, "strip_accents": null, "lowercase": true}`
	const bertPre = `{"type": "BertPreTokenizer"}`
	for _, tc := range []struct {
		name, normalizer, pre string
		text                  string
		want                  []int32
	}{
		{"bert", bertNorm, bertPre, "Hello! Cafés", []int32{1, 2, 3, 4}},
		{"strip_accents false", `{"type": "BertNormalizer", "strip_accents": false, "lowercase": true}`, bertPre, "Hello! Cafés", []int32{1, 2, 0}},
		{"lowercase false", `{"type": "BertNormalizer", "lowercase": false}`, bertPre, "Hello! hello", []int32{0, 2, 1}},
		{"sequence of NFD, Lowercase, StripAccents",
			`{"type": "Sequence", "normalizers": [{"type": "NFD"}, {"type": "Lowercase"}, {"type": "StripAccents"}]}`,
			`{"type": "Sequence", "pretokenizers": [{"type": "WhitespaceSplit"}, {"type": "Punctuation", "behavior": "Isolated"}]}`,
			"HELLO!Cafés", []int32{1, 2, 3, 4}},
		{"no normalizer", `null`, bertPre, "hello Hello", []int32{1, 0}},
		{"sequence with Strip", `{"type": "Sequence", "normalizers": [` + bertNorm + `, {"type": "Strip", "strip_left": true, "strip_right": true}]}`, bertPre, " hello ", []int32{1}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tok, err := FromTokenizerJSON([]byte(wordPieceJSON(tc.normalizer, tc.pre)))
			if err != nil {
				t.Fatal(err)
			}
			if got := tok.Encode(tc.text); !slices.Equal(got, tc.want) {
				t.Errorf("Encode(%q) = %v; want %v", tc.text, got, tc.want)
			}
		})
	}
}

func TestUnsupported(t *testing.T) {
	const bertNorm = `{"type": "BertNormalizer"}`
	const bertPre = `{"type": "BertPreTokenizer"}`
	for _, tc := range []struct {
		name, json, wantMsg string
	}{
		{"BPE", `{"model": {"type": "BPE", "vocab": {"a": 0}, "merges": []}, "pre_tokenizer": {"type": "ByteLevel"}}`,
			`tokenizer.json: model type "BPE" is not supported (only WordPiece)`},
		{"Unigram", `{"model": {"type": "Unigram", "unk_id": 0, "vocab": [["<unk>", 0.0], ["▁the", -3.2]]}}`,
			`tokenizer.json: model type "Unigram" is not supported (only WordPiece)`},
		{"WordLevel", `{"model": {"type": "WordLevel", "vocab": {"a": 0}, "unk_token": "a"}}`,
			`tokenizer.json: model type "WordLevel" is not supported (only WordPiece)`},
		{"untyped BPE", `{"model": {"vocab": {"a": 0}, "merges": ["a b"]}}`, `tokenizer.json: the model has no type, and is not WordPiece`},
		{"ByteLevel pre-tokenizer", wordPieceJSON(bertNorm, `{"type": "ByteLevel", "add_prefix_space": false}`),
			`tokenizer.json: pre_tokenizer "ByteLevel" is not supported`},
		{"Metaspace in a sequence", wordPieceJSON(bertNorm, `{"type": "Sequence", "pretokenizers": [{"type": "WhitespaceSplit"}, {"type": "Metaspace"}]}`),
			`tokenizer.json: pre_tokenizer "Metaspace" is not supported`},
		{"Whitespace pre-tokenizer", wordPieceJSON(bertNorm, `{"type": "Whitespace"}`), `tokenizer.json: pre_tokenizer "Whitespace" is not supported`},
		{"no pre-tokenizer", wordPieceJSON(bertNorm, `null`), `tokenizer.json: a tokenizer without a pre_tokenizer is not supported`},
		{"NFKC normalizer", wordPieceJSON(`{"type": "NFKC"}`, bertPre), `tokenizer.json: normalizer "NFKC" is not supported`},
		{"StripAccents alone", wordPieceJSON(`{"type": "StripAccents"}`, bertPre), `StripAccents without NFD`},
		{"NFD alone", wordPieceJSON(`{"type": "NFD"}`, bertPre), `NFD without StripAccents`},
		{"RoBERTa vocabulary", `{"pre_tokenizer": {"type": "BertPreTokenizer"}, "model": {"type": "WordPiece", "unk_token": "<unk>",
			"vocab": {"<s>": 0, "<pad>": 1, "</s>": 2, "<unk>": 3, "the": 4}}}`, `it has <s> and </s> but no [CLS]`},
		{"SentencePiece vocabulary", `{"pre_tokenizer": {"type": "BertPreTokenizer"}, "model": {"type": "WordPiece", "unk_token": "<unk>",
			"vocab": {"<unk>": 0, "▁the": 1, "▁a": 2, "s": 3}}}`, `start with the SentencePiece mark`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := FromTokenizerJSON([]byte(tc.json))
			if !errors.Is(err, ErrUnsupported) {
				t.Fatalf("err = %v; want ErrUnsupported", err)
			}
			if !strings.Contains(err.Error(), tc.wantMsg) {
				t.Errorf("err = %q; want it to contain %q", err, tc.wantMsg)
			}
		})
	}
	t.Run("RoBERTa vocab.txt", func(t *testing.T) {
		_, err := FromVocab(strings.NewReader("<s>\n<pad>\n</s>\n<unk>\nthe\n"), Options{UnknownToken: "<unk>"})
		if !errors.Is(err, ErrUnsupported) {
			t.Errorf("err = %v; want ErrUnsupported", err)
		}
	})
	t.Run("vocab.json given as vocab.txt", func(t *testing.T) {
		_, err := FromVocab(strings.NewReader(`{"<s>": 0, "the": 1}`), Options{})
		if !errors.Is(err, ErrUnsupported) {
			t.Errorf("err = %v; want ErrUnsupported", err)
		}
	})
}

func TestMalformed(t *testing.T) {
	for name, data := range map[string]string{
		"not json":          `{"model":`,
		"unknown token":     `{"pre_tokenizer": {"type": "BertPreTokenizer"}, "model": {"type": "WordPiece", "unk_token": "[UNK]", "vocab": {"a": 0}}}`,
		"negative id":       `{"pre_tokenizer": {"type": "BertPreTokenizer"}, "model": {"type": "WordPiece", "vocab": {"[UNK]": 0, "a": -1}}}`,
		"id far past vocab": `{"pre_tokenizer": {"type": "BertPreTokenizer"}, "model": {"type": "WordPiece", "vocab": {"[UNK]": 0, "a": 2000000000}}}`,
		"empty vocab":       `{"pre_tokenizer": {"type": "BertPreTokenizer"}, "model": {"type": "WordPiece", "vocab": {}}}`,
	} {
		t.Run(name, func(t *testing.T) {
			_, err := FromTokenizerJSON([]byte(data))
			if err == nil || errors.Is(err, ErrUnsupported) || !strings.HasPrefix(err.Error(), "tokenizer.json: ") {
				t.Errorf("err = %v; want a tokenizer.json error that is not ErrUnsupported", err)
			}
		})
	}
	if _, err := FromVocab(strings.NewReader("a\nb\n"), Options{}); err == nil {
		t.Error("FromVocab without [UNK]: no error")
	}
}

// TestLongInputIsLinear encodes a megabyte of the text that makes WordPiece
// work hardest (words just under the length limit that split into many
// pieces) and of one unbroken word; both must stay fast.
func TestLongInputIsLinear(t *testing.T) {
	_, tok, _ := tokenizers(t)
	words := strings.Repeat(strings.Repeat("a", 100)+" ", 10_000)
	ids := tok.Encode(words)
	if len(ids) != 10_000*50 {
		t.Errorf("%d ids; want 50 per 100-a word", len(ids))
	}
	one := strings.Repeat("ab", 500_000)
	if got := tok.Encode(one); !slices.Equal(got, []int32{idUNK}) {
		t.Errorf("a 1 MB word gave %d ids; want one [UNK]", len(got))
	}
	if got := tok.EncodeWithSpecial(words, 16); len(got) != 16 {
		t.Errorf("EncodeWithSpecial(1 MB, 16) gave %d ids", len(got))
	}
}

func FuzzEncode(f *testing.F) {
	for _, s := range []string{"", "Hello, world!", "Café 日本 👍", "[MASK]x[SEP", "\x00\xff\u200b", "İ", strings.Repeat("é", 101)} {
		f.Add(s, s)
	}
	vocab, minilm, potion := tokenizers(f)
	f.Fuzz(func(t *testing.T, a, b string) {
		for _, tok := range []*Tokenizer{vocab, minilm, potion} {
			ids := tok.Encode(a)
			for _, id := range ids {
				if id < 0 || int(id) >= tok.VocabSize() {
					t.Fatalf("Encode(%q): id %d out of range", a, id)
				}
			}
			if toks := tok.Tokens(a); len(toks) != len(ids) {
				t.Fatalf("Tokens(%q): %d tokens for %d ids", a, len(toks), len(ids))
			}
			// Whitespace separates: the ids of "a b" are those of a then b.
			joined := tok.Encode(a + " " + b)
			if want := append(slices.Clone(ids), tok.Encode(b)...); !slices.Equal(joined, want) {
				t.Fatalf("Encode(%q + %q) = %v; want %v", a, b, joined, want)
			}
			for _, maxLen := range []int{2, 5, 64} {
				got := tok.EncodeWithSpecial(a, maxLen)
				want := append([]int32{tok.CLS()}, ids[:min(len(ids), maxLen-2)]...)
				want = append(want, tok.SEP())
				if !slices.Equal(got, want) {
					t.Fatalf("EncodeWithSpecial(%q, %d) = %v; want %v", a, maxLen, got, want)
				}
			}
		}
	})
}

// TestConcurrentEncode shares one tokenizer between goroutines; run with
// -race it checks that encoding does not write shared state.
func TestConcurrentEncode(t *testing.T) {
	_, tok, _ := tokenizers(t)
	texts := []string{"Hello, world!", "Café 日本 👍", strings.Repeat("unaffable ", 50)}
	want := make([][]int32, len(texts))
	for i, s := range texts {
		want[i] = tok.Encode(s)
	}
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			for i := range 200 {
				k := (g + i) % len(texts)
				if got := tok.Encode(texts[k]); !slices.Equal(got, want[k]) {
					t.Errorf("Encode(%q) = %v concurrently; want %v", texts[k], got, want[k])
					return
				}
			}
		})
	}
	wg.Wait()
}

// FuzzTokenizerJSON feeds FromTokenizerJSON arbitrary files, as a model
// folder from anywhere may hold: it returns a tokenizer or an error, never
// panics, and a tokenizer it returns encodes text to ids it has.
func FuzzTokenizerJSON(f *testing.F) {
	f.Add([]byte(`{"model":{"type":"WordPiece","unk_token":"[UNK]","vocab":{"[UNK]":0,"[CLS]":1,"[SEP]":2,"a":3,"##b":4}},"normalizer":{"type":"BertNormalizer","lowercase":true},"pre_tokenizer":{"type":"BertPreTokenizer"}}`))
	f.Add([]byte(`{"model":{"type":"WordPiece","vocab":{"[UNK]":5}},"added_tokens":[{"id":9,"content":"[MASK]"}],"truncation":{"max_length":-3}}`))
	f.Add([]byte(`{"model":{"type":"BPE"}}`))
	f.Add([]byte(`{"model":{"type":"WordPiece","continuing_subword_prefix":"","max_input_chars_per_word":-1,"vocab":{"":0,"[UNK]":1}}}`))
	f.Add([]byte(`null`))
	f.Fuzz(func(t *testing.T, data []byte) {
		tok, err := FromTokenizerJSON(data)
		if err != nil {
			return
		}
		for _, s := range []string{"", "Hello, world!", "a ab b", "日本 👍 [MASK]"} {
			for _, id := range tok.Encode(s) {
				if id < 0 || int(id) >= tok.VocabSize() {
					t.Fatalf("Encode(%q): id %d out of range of %d", s, id, tok.VocabSize())
				}
			}
			tok.EncodeWithSpecial(s, 8)
		}
	})
}

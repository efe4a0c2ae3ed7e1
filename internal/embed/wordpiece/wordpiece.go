// Package wordpiece is BERT's WordPiece tokenizer: the text cleaning,
// normalisation and splitting of BERT's BasicTokenizer (BertNormalizer and
// BertPreTokenizer in Hugging Face tokenizers), then greedy
// longest-match-first WordPiece over a vocabulary. It reads the files models
// ship, tokenizer.json or vocab.txt with tokenizer_config.json, and serves
// both static token-table embedders (model2vec, StaticEmbedding) and BERT
// sentence encoders (all-MiniLM-L6-v2, bge-small-en-v1.5, e5-small-v2, ...).
//
// Text is processed in one pass with no allocation per character, so the
// cost of Encode grows linearly with the input.
//
// Special tokens written literally in the input (for example "[MASK]") are
// encoded as their own ids, as the Hugging Face tokenizers do for their added
// tokens; everything else is normalised and split.
//
// Where Google's original BERT code and the Hugging Face tokenizers library
// (which sentence-transformers and model2vec use) disagree, this package
// follows the library: every Unicode White_Space character splits words
// (U+2028 included), and lowercasing is per character. Bytes that are not
// UTF-8 read as U+FFFD, which cleaning drops. Character categories are those
// of the Unicode version of the Go release.
package wordpiece

import (
	"sync"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// DefaultMaxLen is the sequence length BERT models accept when a
// tokenizer's files do not say otherwise.
const DefaultMaxLen = 512

// Options configures a tokenizer read from a bare vocabulary. Zero values
// mean "as BERT does" where a field says so; DefaultOptions is BERT's
// uncased setting.
type Options struct {
	// Lowercase lowercases the text (do_lower_case).
	Lowercase bool
	// StripAccents removes combining marks (Unicode category Mn) after
	// canonical decomposition, so "café" becomes "cafe". Nil follows
	// Lowercase, as BERT does.
	StripAccents *bool
	// SplitCJK makes every CJK ideograph a word of its own
	// (tokenize_chinese_chars).
	SplitCJK bool
	// KeepControl turns off BERT's text cleaning, which drops NUL, U+FFFD
	// and characters of the Unicode categories C* (controls, format
	// characters, private use, unassigned) and maps whitespace to spaces.
	KeepControl bool
	// MaxLen is the longest sequence, special tokens included, the model
	// takes. Zero means DefaultMaxLen.
	MaxLen int
	// UnknownToken replaces a word the vocabulary cannot spell. It must be
	// in the vocabulary. Empty means "[UNK]".
	UnknownToken string
	// CLSToken, SEPToken, PADToken and MaskToken name the other special
	// tokens; empty means "[CLS]", "[SEP]", "[PAD]" and "[MASK]". A name
	// missing from the vocabulary leaves that token absent.
	CLSToken, SEPToken, PADToken, MaskToken string
	// ContinuingSubwordPrefix starts every piece but the first of a word.
	// Empty means "##".
	ContinuingSubwordPrefix string
	// MaxInputCharsPerWord is the longest word, in characters, that is
	// split into pieces; a longer one becomes the unknown token. Zero means
	// 100.
	MaxInputCharsPerWord int
}

// DefaultOptions is the setting of bert-base-uncased and the sentence
// encoders built on it: lowercase, strip accents, split CJK ideographs.
func DefaultOptions() Options {
	return Options{Lowercase: true, SplitCJK: true}
}

// Tokenizer turns text into WordPiece ids. It is safe for concurrent use.
type Tokenizer struct {
	vocab  map[string]int32
	tokens []string // by id; "" for an id no token has
	trie   trie

	unk, cls, sep, pad, mask int32

	// added are the tokens matched literally in the raw text, longest
	// first; addedFirst marks the bytes one of them starts with.
	added      []addedToken
	addedFirst [256]bool

	clean, lowercase, stripAccents, splitCJK bool
	maxChars                                 int
	maxLen                                   int
	maxLenFromFile                           bool

	// asciiClass and asciiByte say, for each ASCII byte, what the text
	// pass does with it and what it becomes in a word.
	asciiClass [utf8.RuneSelf]charClass
	asciiByte  [utf8.RuneSelf]byte
}

// addedToken is a token recognised in the raw text before normalisation.
type addedToken struct {
	text       string
	id         int32
	singleWord bool // only when not inside a word
}

// charClass is what splitting does with a character.
type charClass uint8

const (
	classWord  charClass = iota // part of a word
	classSpace                  // ends a word
	classPunct                  // a word by itself
	classDrop                   // removed by cleaning, without ending a word
)

// Encode returns the ids of text without special tokens and without
// truncation.
func (t *Tokenizer) Encode(text string) []int32 {
	return t.encode(text, make([]int32, 0, len(text)/4+1), -1)
}

// EncodeWithSpecial returns the ids a BERT model takes for text alone:
// [CLS], the ids of text, [SEP], with the text's ids cut so that the whole
// is at most maxLen long. maxLen <= 0 means MaxLen(). Special tokens the
// vocabulary lacks are left out; they are never cut, so a maxLen below their
// number still returns them.
func (t *Tokenizer) EncodeWithSpecial(text string, maxLen int) []int32 {
	if maxLen <= 0 {
		maxLen = t.maxLen
	}
	specials := 0
	if t.cls >= 0 {
		specials++
	}
	if t.sep >= 0 {
		specials++
	}
	room := max(maxLen-specials, 0)
	ids := make([]int32, 0, min(room, len(text)/3+1)+specials)
	if t.cls >= 0 {
		ids = append(ids, t.cls)
	}
	limit := len(ids) + room
	ids = t.encode(text, ids, limit)
	if len(ids) > limit {
		ids = ids[:limit]
	}
	if t.sep >= 0 {
		ids = append(ids, t.sep)
	}
	return ids
}

// Tokens returns the pieces Encode gives for text, as strings.
func (t *Tokenizer) Tokens(text string) []string {
	ids := t.Encode(text)
	out := make([]string, len(ids))
	for i, id := range ids {
		out[i] = t.tokens[id]
	}
	return out
}

// Token returns the token with the given id, or "" when there is none.
func (t *Tokenizer) Token(id int32) string {
	if id < 0 || int(id) >= len(t.tokens) {
		return ""
	}
	return t.tokens[id]
}

// TokenID returns the id of a token of the vocabulary.
func (t *Tokenizer) TokenID(token string) (int32, bool) {
	id, ok := t.vocab[token]
	return id, ok
}

// UNK is the id of the unknown token; every tokenizer has one.
func (t *Tokenizer) UNK() int32 { return t.unk }

// CLS is the id of the classifier token that starts a sequence, or -1 when
// the vocabulary has none.
func (t *Tokenizer) CLS() int32 { return t.cls }

// SEP is the id of the separator token that ends a sequence, or -1.
func (t *Tokenizer) SEP() int32 { return t.sep }

// PAD is the id of the padding token, or -1.
func (t *Tokenizer) PAD() int32 { return t.pad }

// Mask is the id of the mask token, or -1.
func (t *Tokenizer) Mask() int32 { return t.mask }

// VocabSize is one more than the largest id: every id Encode returns is
// below it.
func (t *Tokenizer) VocabSize() int { return len(t.tokens) }

// MaxLen is the longest sequence, special tokens included, the model takes:
// the truncation length or model_max_length the files give, else
// DefaultMaxLen.
func (t *Tokenizer) MaxLen() int { return t.maxLen }

// scratch holds the buffer one Encode call reuses.
type scratch struct {
	word []byte
}

var scratchPool = sync.Pool{New: func() any { return new(scratch) }}

// encoder is the state of one pass over a text: the ids so far and the word
// being gathered.
type encoder struct {
	t      *Tokenizer
	ids    []int32
	word   []byte
	nchars int // characters in word
}

// flush ends the word being gathered and appends its pieces.
func (e *encoder) flush() {
	if len(e.word) > 0 {
		e.ids = e.t.appendPieces(e.ids, e.word, e.nchars)
		e.word = e.word[:0]
		e.nchars = 0
	}
}

// emit places one normalised character.
func (e *encoder) emit(r rune) {
	switch {
	case unicode.IsSpace(r):
		e.flush()
	case isPunct(r):
		e.flush()
		e.word = utf8.AppendRune(e.word, r)
		e.nchars = 1
		e.flush()
	default:
		e.word = utf8.AppendRune(e.word, r)
		e.nchars++
	}
}

// encode appends the ids of text to ids. With limit >= 0 it may stop once
// ids holds limit ids (it can then hold a few more).
func (t *Tokenizer) encode(text string, ids []int32, limit int) []int32 {
	sc := scratchPool.Get().(*scratch)
	e := encoder{t: t, ids: ids, word: sc.word[:0]}
	for i := 0; i < len(text); {
		if limit >= 0 && len(e.ids) >= limit {
			break
		}
		c := text[i]
		if t.addedFirst[c] {
			if id, n := t.matchAdded(text, i); n > 0 {
				e.flush()
				e.ids = append(e.ids, id)
				i += n
				continue
			}
		}
		if c < utf8.RuneSelf {
			i++
			switch t.asciiClass[c] {
			case classWord:
				e.word = append(e.word, t.asciiByte[c])
				e.nchars++
			case classSpace:
				e.flush()
			case classPunct:
				e.flush()
				e.word = append(e.word, c)
				e.nchars = 1
				e.flush()
			}
			continue
		}
		r, size := utf8.DecodeRuneInString(text[i:])
		raw := text[i : i+size]
		i += size
		if r == utf8.RuneError && size == 1 {
			// A byte that is not UTF-8 reads as U+FFFD, which cleaning drops.
			raw = "\uFFFD"
		}
		if t.clean && (r == utf8.RuneError || isOther(r)) {
			continue
		}
		if unicode.IsSpace(r) {
			e.flush()
			continue
		}
		cjk := t.splitCJK && isCJK(r)
		if cjk {
			e.flush()
		}
		if t.stripAccents {
			// The canonical decomposition (NFD) of the character, less its
			// combining marks.
			if d := norm.NFD.PropertiesString(raw).Decomposition(); d != nil {
				for _, c := range string(d) {
					if !unicode.Is(unicode.Mn, c) {
						t.emitLower(&e, c)
					}
				}
			} else if l, v, tt, ok := decomposeHangul(r); ok {
				e.emit(l)
				e.emit(v)
				if tt != 0 {
					e.emit(tt)
				}
			} else if !unicode.Is(unicode.Mn, r) {
				t.emitLower(&e, r)
			}
		} else {
			t.emitLower(&e, r)
		}
		if cjk {
			e.flush()
		}
	}
	e.flush()
	sc.word = e.word
	scratchPool.Put(sc)
	return e.ids
}

// emitLower emits r, lowercased when the tokenizer lowercases. Lowercasing
// is per character, as in Hugging Face tokenizers: U+0130 (İ) becomes "i"
// and a combining dot above, every other character one character.
func (t *Tokenizer) emitLower(e *encoder, r rune) {
	if !t.lowercase {
		e.emit(r)
		return
	}
	if r == 'İ' {
		e.emit('i')
		e.emit('\u0307')
		return
	}
	e.emit(unicode.ToLower(r))
}

// appendPieces appends the WordPiece pieces of one word: at each position
// the longest vocabulary token that matches, with the continuing-subword
// prefix after the first. A word that cannot be spelled that way, or is
// longer than maxChars characters, is the unknown token.
func (t *Tokenizer) appendPieces(ids []int32, word []byte, nchars int) []int32 {
	if nchars > t.maxChars {
		return append(ids, t.unk)
	}
	mark := len(ids)
	for start := 0; start < len(word); {
		id, end := t.trie.longest(word, start)
		if id < 0 {
			return append(ids[:mark], t.unk)
		}
		ids = append(ids, id)
		start = end
	}
	return ids
}

// matchAdded returns the id and length of the longest added token at
// text[i:], or a length of 0.
func (t *Tokenizer) matchAdded(text string, i int) (int32, int) {
	rest := text[i:]
	for _, a := range t.added {
		if len(a.text) > len(rest) || rest[:len(a.text)] != a.text {
			continue
		}
		if a.singleWord && (endsInWord(text[:i]) || startsWord(rest[len(a.text):])) {
			continue
		}
		return a.id, len(a.text)
	}
	return 0, 0
}

// isWordChar is what a single_word added token may not touch.
func isWordChar(r rune) bool {
	return r == '_' || unicode.IsLetter(r) || unicode.IsNumber(r)
}

func endsInWord(s string) bool {
	r, n := utf8.DecodeLastRuneInString(s)
	return n > 0 && isWordChar(r)
}

func startsWord(s string) bool {
	r, n := utf8.DecodeRuneInString(s)
	return n > 0 && isWordChar(r)
}

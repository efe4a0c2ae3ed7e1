package embed

import "unicode"

// token is one unit the lexical embedder counts: a word of a spaced script,
// a single character of a script written without spaces, or a symbol.
type token struct {
	start, end int32 // rune offsets into the normalised text
	// run is the index of the no-space run the token belongs to, or -1.
	// Character n-grams of such a run span its characters, since its
	// tokens are single characters.
	run int32
}

// span is a stretch of the normalised text whose character n-grams are
// taken as one: a word, or a whole run of a no-space script.
type span struct {
	start, end int32
	noSpace    bool
}

// tokenizer holds the buffers one lexical embedding reuses, so that
// tokenising a chunk allocates nothing once the buffers have grown.
type tokenizer struct {
	runes  []rune
	tokens []token
	spans  []span
}

// runeClass sorts a normalised rune for tokenising.
type runeClass uint8

const (
	classSpace  runeClass = iota // separates tokens
	classWord                    // part of a word of a spaced script
	classNoSp                    // a character of a script written without spaces
	classSymbol                  // a token by itself (emoji, other symbols)
	classIgnore                  // dropped without breaking a word (combining accents, soft hyphen, joiners, apostrophes)
)

// tokenize normalises text and splits it into tokens and n-gram spans. It
// never fails: bytes that are not UTF-8 decode as U+FFFD, which is a
// separator.
func (tz *tokenizer) tokenize(text string) {
	tz.runes = tz.runes[:0]
	tz.tokens = tz.tokens[:0]
	tz.spans = tz.spans[:0]
	inWord := false
	inRun := false
	prevWord := false // the last kept rune was a word rune, so an apostrophe may join
	for _, r := range text {
		r, c := normalizeRune(r)
		if c == classIgnore {
			if r == '\'' && !prevWord {
				// An apostrophe outside a word ('quoted') separates.
				c = classSpace
			} else {
				continue
			}
		}
		n := int32(len(tz.runes))
		switch c {
		case classWord:
			if inRun {
				tz.closeRun(n)
				inRun = false
			}
			if !inWord {
				tz.tokens = append(tz.tokens, token{start: n, run: -1})
				inWord = true
			}
			tz.runes = append(tz.runes, r)
			prevWord = true
			continue
		case classNoSp:
			if inWord {
				tz.closeWord(n)
				inWord = false
			}
			if !inRun {
				tz.spans = append(tz.spans, span{start: n, noSpace: true})
				inRun = true
			}
			tz.runes = append(tz.runes, r)
			tz.tokens = append(tz.tokens, token{start: n, end: n + 1, run: int32(len(tz.spans) - 1)})
		case classSymbol:
			if inWord {
				tz.closeWord(n)
				inWord = false
			}
			if inRun {
				tz.closeRun(n)
				inRun = false
			}
			tz.runes = append(tz.runes, r)
			tz.tokens = append(tz.tokens, token{start: n, end: n + 1, run: -1})
		default: // classSpace
			if inWord {
				tz.closeWord(n)
				inWord = false
			}
			if inRun {
				tz.closeRun(n)
				inRun = false
			}
		}
		prevWord = false
	}
	n := int32(len(tz.runes))
	if inWord {
		tz.closeWord(n)
	}
	if inRun {
		tz.closeRun(n)
	}
}

func (tz *tokenizer) closeWord(end int32) {
	t := &tz.tokens[len(tz.tokens)-1]
	t.end = end
	tz.spans = append(tz.spans, span{start: t.start, end: end})
}

// spanNoSpace reports whether span i is a run of a no-space script rather
// than a word.
func (tz *tokenizer) spanNoSpace(i int) bool { return tz.spans[i].noSpace }

func (tz *tokenizer) closeRun(end int32) {
	tz.spans[len(tz.spans)-1].end = end
}

// normalizeRune folds r the way the lexical embedder compares text: lower
// case, full-width ASCII to ASCII, Latin and Greek letters without their
// accents, and classifies the result. The standard library has no Unicode
// normalisation, so folding accents (rather than keeping them) is what
// makes a precomposed "é" and an "e" followed by a combining accent embed
// alike; it also lets "cafe" match "café".
func normalizeRune(r rune) (rune, runeClass) {
	if r < 0x80 {
		return r + asciiFold[r].delta, asciiFold[r].class
	}
	switch {
	case r >= 0xFF01 && r <= 0xFF5E: // full-width ASCII
		return normalizeRune(r - 0xFEE0)
	case r >= 0x0300 && r <= 0x036F: // combining diacritical marks
		return r, classIgnore
	case r == 0x00AD || r == 0x200C || r == 0x200D || r == 0x2060 || r == 0xFEFF:
		// Soft hyphen, zero-width (non-)joiner, word joiner, BOM: invisible
		// inside words.
		return r, classIgnore
	case r == 0xFFFD: // invalid UTF-8, or a character lost before us
		return r, classSpace
	case r == 0x2019 || r == 0x02BC: // right single quote and modifier apostrophe
		return '\'', classIgnore
	case r >= 0xFE00 && r <= 0xFE0F: // variation selectors
		return r, classIgnore
	}
	r = unicode.ToLower(r)
	if r >= 0xC0 && r <= 0x17F {
		if f := latinFold[r-0xC0]; f != '.' {
			r = rune(f)
		}
	} else if r >= 0x0386 && r <= 0x03CE {
		r = greekFold(r)
	}
	switch {
	case noSpaceScript(r):
		return r, classNoSp
	case unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.Is(unicode.Mn, r) || unicode.Is(unicode.Mc, r):
		return r, classWord
	case unicode.Is(unicode.So, r):
		return r, classSymbol
	}
	return r, classSpace
}

// asciiFold is normalizeRune for ASCII, read from a table because most text
// in a vault is ASCII.
var asciiFold = func() (t [0x80]struct {
	delta rune
	class runeClass
}) {
	for r := range rune(0x80) {
		switch {
		case r >= 'A' && r <= 'Z':
			t[r].delta = 'a' - 'A'
			t[r].class = classWord
		case r >= 'a' && r <= 'z', r >= '0' && r <= '9':
			t[r].class = classWord
		case r == '\'':
			t[r].class = classIgnore
		}
	}
	return t
}()

// latinFold maps U+00C0..U+017F to the ASCII letter without its accent, or
// '.' to keep the letter (æ, ß, þ, œ, ...). Both cases map to lower case.
const latinFold = "" +
	"aaaaaa.ceeeeiiii.nooooo.ouuuuy.." + // U+00C0..U+00DF
	"aaaaaa.ceeeeiiii.nooooo.ouuuuy.y" + // U+00E0..U+00FF
	"aaaaaaccccccccddddeeeeeeeeeegggg" + // U+0100..U+011F
	"gggghhhhiiiiiiiiii..jjkk.lllllll" + // U+0120..U+013F
	"lllnnnnnn...oooooo..rrrrrrssssss" + // U+0140..U+015F
	"sstttttt" + "uuuuuuuuuuuuwwyyyzzzzzzs" // U+0160..U+017F

// greekFold drops the tonos and dialytika from lower-case Greek vowels and
// folds final sigma, so spellings with and without accents match.
func greekFold(r rune) rune {
	switch r {
	case 'ά':
		return 'α'
	case 'έ':
		return 'ε'
	case 'ή':
		return 'η'
	case 'ί', 'ϊ', 'ΐ':
		return 'ι'
	case 'ό':
		return 'ο'
	case 'ύ', 'ϋ', 'ΰ':
		return 'υ'
	case 'ώ':
		return 'ω'
	case 'ς':
		return 'σ'
	}
	return r
}

// noSpaceScript reports whether r belongs to a script usually written
// without spaces between words (Chinese, Japanese kana, Thai, Lao,
// Myanmar, Khmer). Such text is split into single characters, whose
// bigrams and n-grams stand in for words.
func noSpaceScript(r rune) bool {
	switch {
	case r < 0x0E00:
		return false
	case r <= 0x0EFF: // Thai, Lao
		return unicode.IsLetter(r) || unicode.Is(unicode.Mn, r)
	case r >= 0x1000 && r <= 0x109F, r >= 0x1780 && r <= 0x17FF: // Myanmar, Khmer
		return unicode.IsLetter(r) || unicode.Is(unicode.Mn, r) || unicode.Is(unicode.Mc, r)
	case r < 0x2E80:
		return false
	}
	return unicode.Is(unicode.Han, r) || unicode.Is(unicode.Hiragana, r) || unicode.Is(unicode.Katakana, r) || r == 0x30FC // prolonged sound mark
}

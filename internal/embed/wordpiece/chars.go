package wordpiece

import "unicode"

// isPunct is BERT's punctuation: every ASCII character that is neither a
// letter, a digit, a space nor a control (33-47, 58-64, 91-96, 123-126),
// which takes in symbols such as "$", "+" and "^", and every character of the
// Unicode categories P*. Each is a word by itself.
func isPunct(r rune) bool {
	if r < 0x80 {
		return r >= 33 && r <= 47 || r >= 58 && r <= 64 || r >= 91 && r <= 96 || r >= 123 && r <= 126
	}
	return unicode.IsPunct(r)
}

// isOther reports whether r is in one of the Unicode categories C*: control,
// format, private use, surrogate, or unassigned. BERT's cleaning drops them
// (tab, newline and carriage return are whitespace and never reach here).
// Unassigned means unassigned in the Unicode version of the Go release.
func isOther(r rune) bool {
	if unicode.In(r, unicode.Cc, unicode.Cf, unicode.Co, unicode.Cs) {
		return true
	}
	return !unicode.In(r, unicode.L, unicode.M, unicode.N, unicode.P, unicode.S, unicode.Z)
}

// isCJK reports whether r is in one of the CJK ideograph blocks BERT gives a
// word each: the Unified Ideographs, Extensions A to E and the two
// Compatibility Ideographs blocks. Kana and Hangul are not among them.
func isCJK(r rune) bool {
	switch {
	case r < 0x3400:
		return false
	case r <= 0x4DBF: // Extension A
		return true
	case r >= 0x4E00 && r <= 0x9FFF: // Unified Ideographs
		return true
	case r >= 0xF900 && r <= 0xFAFF: // Compatibility Ideographs
		return true
	case r >= 0x20000 && r <= 0x2A6DF: // Extension B
		return true
	case r >= 0x2A700 && r <= 0x2CEAF: // Extensions C, D and E
		return true
	case r >= 0x2F800 && r <= 0x2FA1F: // Compatibility Ideographs Supplement
		return true
	}
	return false
}

// Hangul syllables decompose by arithmetic (Unicode's "Hangul Syllable
// Decomposition"), which the norm package's per-character tables leave out.
const (
	hangulBase  = 0xAC00
	hangulCount = 11172 // 19 leading consonants × 21 vowels × 28 trailing consonants (one is none)
	jamoL       = 0x1100
	jamoV       = 0x1161
	jamoT       = 0x11A7
)

// decomposeHangul returns the conjoining jamo of a Hangul syllable: leading
// consonant, vowel, and trailing consonant or 0.
func decomposeHangul(r rune) (l, v, t rune, ok bool) {
	s := r - hangulBase
	if s < 0 || s >= hangulCount {
		return 0, 0, 0, false
	}
	l = jamoL + s/(21*28)
	v = jamoV + s%(21*28)/28
	if ts := s % 28; ts != 0 {
		t = jamoT + ts
	}
	return l, v, t, true
}

// asciiTables fills the per-byte tables of the text pass for the
// tokenizer's cleaning and lowercasing.
func (t *Tokenizer) asciiTables() {
	for c := range len(t.asciiClass) {
		b := byte(c)
		class := classWord
		switch {
		case b == ' ' || b == '\t' || b == '\n' || b == '\r':
			class = classSpace
		case b < 0x20 || b == 0x7F:
			if t.clean {
				class = classDrop
			} else if b == '\v' || b == '\f' {
				class = classSpace
			}
		case isPunct(rune(b)):
			class = classPunct
		}
		t.asciiClass[c] = class
		if t.lowercase && b >= 'A' && b <= 'Z' {
			b += 'a' - 'A'
		}
		t.asciiByte[c] = b
	}
}

package fulltext

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// The index's tokenizer is "porter unicode61 remove_diacritics 2"
// (migrations/0003_fts.sql). Snippets are made in Go from the stored text,
// so a word is compared here as the index compares it: folded by foldToken
// as unicode61 folds it, then stemmed by porterStem as FTS5's porter
// tokenizer stems it. "syncing" in a query then marks "sync" and "synced"
// in a note, as FTS5 matched them.

// foldToken lower-cases a token and removes its diacritics as unicode61
// does: "Café" -> "cafe", from the letters of alphabets that write them
// with combining accents (below U+2000), not Japanese voicing marks.
// ASCII, nearly every token, takes the short way.
func foldToken(tok string) string {
	ascii, upper := true, false
	for i := 0; i < len(tok); i++ {
		c := tok[i]
		if c >= utf8.RuneSelf {
			ascii = false
			break
		}
		if 'A' <= c && c <= 'Z' {
			upper = true
		}
	}
	if ascii {
		if upper {
			return strings.ToLower(tok)
		}
		return tok
	}
	var b strings.Builder
	for _, r := range tok {
		if r < utf8.RuneSelf || r >= 0x2000 {
			b.WriteRune(unicode.ToLower(r))
			continue
		}
		for _, d := range norm.NFD.String(string(r)) {
			if !isDiacritic(d) {
				b.WriteRune(unicode.ToLower(d))
			}
		}
	}
	return b.String()
}

// isDiacritic reports whether r is a combining accent of the Latin, Greek
// and Cyrillic alphabets.
func isDiacritic(r rune) bool { return r >= 0x300 && r <= 0x36f }

// porterMaxToken is the longest token, in bytes, FTS5's porter tokenizer
// stems; longer ones, and those under three bytes, pass through.
const porterMaxToken = 64

// porterStem stems a folded token the way FTS5's porter tokenizer does: the
// original Porter algorithm over bytes, where anything but a, e, i, o, u
// (and y after a consonant) is a consonant, so non-ASCII letters are.
func porterStem(tok string) string {
	if len(tok) < 3 || len(tok) > porterMaxToken {
		return tok
	}
	b := []byte(tok)
	b = porterStep1A(b)
	if b2, ok := applyRule(b, porterStep1B); ok {
		b = b2
		if b2, ok := applyRule(b, porterStep1B2); ok {
			b = b2
		} else if n := len(b); n >= 2 {
			c := b[n-1]
			switch {
			case !isPorterVowel(c, false) && c != 'l' && c != 's' && c != 'z' && c == b[n-2]:
				b = b[:n-1]
			case porterMEq1(b) && porterOStar(b):
				b = append(b, 'e')
			}
		}
	}
	// Step 1c.
	if n := len(b); n > 0 && b[n-1] == 'y' && porterHasVowel(b[:n-1]) {
		b[n-1] = 'i'
	}
	b, _ = applyRule(b, porterStep2)
	b, _ = applyRule(b, porterStep3)
	b, _ = applyRule(b, porterStep4)
	// Step 5a.
	if n := len(b); n > 0 && b[n-1] == 'e' {
		if stem := b[:n-1]; porterMGt1(stem) || (porterMEq1(stem) && !porterOStar(stem)) {
			b = stem
		}
	}
	// Step 5b.
	if n := len(b); n > 1 && b[n-1] == 'l' && b[n-2] == 'l' && porterMGt1(b[:n-1]) {
		b = b[:n-1]
	}
	return string(b)
}

// porterStep1A removes plurals: "caresses" -> "caress", "ponies" ->
// "poni", "cats" -> "cat".
func porterStep1A(b []byte) []byte {
	n := len(b)
	if n < 2 || b[n-1] != 's' {
		return b
	}
	switch {
	case b[n-2] == 'e' && ((n > 4 && b[n-4] == 's' && b[n-3] == 's') || (n > 3 && b[n-3] == 'i')):
		return b[:n-2]
	case b[n-2] == 'e' || b[n-2] != 's':
		return b[:n-1]
	}
	return b
}

// porterRule replaces suffix by repl when what precedes it meets cond (no
// condition when nil).
type porterRule struct {
	suffix, repl string
	cond         func(stem []byte) bool
}

// applyRule applies the first rule whose suffix ends b, and reports
// whether it changed b. Like FTS5, it stops at the first suffix that ends b
// even when its condition fails, and a suffix must be shorter than b.
func applyRule(b []byte, rules []porterRule) ([]byte, bool) {
	for _, r := range rules {
		if len(b) <= len(r.suffix) || string(b[len(b)-len(r.suffix):]) != r.suffix {
			continue
		}
		stem := b[:len(b)-len(r.suffix)]
		if r.cond != nil && !r.cond(stem) {
			return b, false
		}
		return append(stem, r.repl...), true
	}
	return b, false
}

var (
	porterStep1B = []porterRule{
		{"eed", "ee", porterMGt0},
		{"ed", "", porterHasVowel},
		{"ing", "", porterHasVowel},
	}
	porterStep1B2 = []porterRule{
		{"at", "ate", nil}, {"bl", "ble", nil}, {"iz", "ize", nil},
	}
	porterStep2 = []porterRule{
		{"ational", "ate", porterMGt0}, {"tional", "tion", porterMGt0},
		{"enci", "ence", porterMGt0}, {"anci", "ance", porterMGt0},
		{"izer", "ize", porterMGt0},
		{"logi", "log", porterMGt0},
		{"bli", "ble", porterMGt0}, {"alli", "al", porterMGt0}, {"entli", "ent", porterMGt0},
		{"eli", "e", porterMGt0}, {"ousli", "ous", porterMGt0},
		{"ization", "ize", porterMGt0}, {"ation", "ate", porterMGt0}, {"ator", "ate", porterMGt0},
		{"alism", "al", porterMGt0}, {"iveness", "ive", porterMGt0}, {"fulness", "ful", porterMGt0},
		{"ousness", "ous", porterMGt0},
		{"aliti", "al", porterMGt0}, {"iviti", "ive", porterMGt0}, {"biliti", "ble", porterMGt0},
	}
	porterStep3 = []porterRule{
		{"ical", "ic", porterMGt0}, {"ness", "", porterMGt0},
		{"icate", "ic", porterMGt0}, {"iciti", "ic", porterMGt0},
		{"ful", "", porterMGt0}, {"ative", "", porterMGt0}, {"alize", "al", porterMGt0},
	}
	porterStep4 = []porterRule{
		{"al", "", porterMGt1},
		{"ance", "", porterMGt1}, {"ence", "", porterMGt1},
		{"er", "", porterMGt1}, {"ic", "", porterMGt1},
		{"able", "", porterMGt1}, {"ible", "", porterMGt1},
		{"ant", "", porterMGt1}, {"ement", "", porterMGt1}, {"ment", "", porterMGt1}, {"ent", "", porterMGt1},
		{"ion", "", porterMGt1SorT}, {"ou", "", porterMGt1},
		{"ism", "", porterMGt1},
		{"ate", "", porterMGt1}, {"iti", "", porterMGt1},
		{"ous", "", porterMGt1}, {"ive", "", porterMGt1}, {"ize", "", porterMGt1},
	}
)

// isPorterVowel: a, e, i, o, u, and y when it follows a consonant.
func isPorterVowel(c byte, yIsVowel bool) bool {
	switch c {
	case 'a', 'e', 'i', 'o', 'u':
		return true
	case 'y':
		return yIsVowel
	}
	return false
}

// gobbleVC skips one vowels-then-consonants sequence of s and returns the
// length consumed, 0 when s holds none.
func gobbleVC(s []byte, prevCons bool) int {
	cons := prevCons
	i := 0
	for ; i < len(s); i++ {
		cons = !isPorterVowel(s[i], cons)
		if !cons {
			break
		}
	}
	for i++; i < len(s); i++ {
		cons = !isPorterVowel(s[i], cons)
		if cons {
			return i + 1
		}
	}
	return 0
}

// porterMGt0 is Porter's condition m > 0.
func porterMGt0(s []byte) bool { return gobbleVC(s, false) > 0 }

// porterMGt1 is Porter's condition m > 1.
func porterMGt1(s []byte) bool {
	n := gobbleVC(s, false)
	return n > 0 && gobbleVC(s[n:], true) > 0
}

// porterMEq1 is Porter's condition m = 1.
func porterMEq1(s []byte) bool {
	n := gobbleVC(s, false)
	return n > 0 && gobbleVC(s[n:], true) == 0
}

// porterMGt1SorT is m > 1 with the stem ending in s or t.
func porterMGt1SorT(s []byte) bool {
	n := len(s)
	return n > 0 && (s[n-1] == 's' || s[n-1] == 't') && porterMGt1(s)
}

// porterOStar is Porter's *o: the stem ends consonant, vowel, consonant,
// the last not w, x or y.
func porterOStar(s []byte) bool {
	n := len(s)
	if n == 0 || s[n-1] == 'w' || s[n-1] == 'x' || s[n-1] == 'y' {
		return false
	}
	mask, cons := 0, false
	for _, c := range s {
		cons = !isPorterVowel(c, cons)
		mask <<= 1
		if cons {
			mask |= 1
		}
	}
	return mask&7 == 5
}

// porterHasVowel is Porter's *v*: the stem holds a vowel.
func porterHasVowel(s []byte) bool {
	for i, c := range s {
		if isPorterVowel(c, i > 0) {
			return true
		}
	}
	return false
}

package vault

import (
	"strings"
	"unicode"
)

// IsCJK reports whether r is a Han, Hiragana or Katakana character (or
// the prolonged sound mark "ー"): the characters of Chinese and Japanese,
// written without spaces between words, which full-text search indexes in
// pairs (see CJKPairs). Korean is written with spaces and is not included.
func IsCJK(r rune) bool {
	return r >= 0x2E80 && (r == 'ー' || unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana))
}

// HasCJK reports whether s holds any character IsCJK accepts.
func HasCJK(s string) bool {
	for _, r := range s {
		if IsCJK(r) {
			return true
		}
	}
	return false
}

// CJKPairs rewrites every run of CJK characters in s into its overlapping
// two-character pairs followed by the run's last character alone, each
// separated by spaces: "東京で喫茶" becomes "東京 京で で喫 喫茶 茶". A word
// tokenizer then sees one term per pair, so that a two-character word
// (most Chinese words) is a single term, a longer one a phrase of its
// pairs, and any single character the first character of some term. Text
// outside the runs is kept as it is.
func CJKPairs(s string) string {
	if !HasCJK(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) * 2)
	var prev rune // the previous CJK character of the current run, or 0
	for _, r := range s {
		if !IsCJK(r) {
			if prev != 0 {
				b.WriteRune(prev)
				b.WriteByte(' ')
				prev = 0
			}
			b.WriteRune(r)
			continue
		}
		if prev == 0 {
			b.WriteByte(' ')
		} else {
			b.WriteRune(prev)
			b.WriteRune(r)
			b.WriteByte(' ')
		}
		prev = r
	}
	if prev != 0 {
		b.WriteRune(prev)
	}
	return b.String()
}

package wordpiece

import (
	"testing"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// TestDecompositionMatchesNFD checks, for every code point, that the
// per-character decomposition the text pass uses (the norm tables, plus
// arithmetic for Hangul) is what NFD makes of that character alone.
func TestDecompositionMatchesNFD(t *testing.T) {
	for r := rune(0x80); r <= unicode.MaxRune; r++ {
		if !utf8.ValidRune(r) {
			continue
		}
		raw := string(r)
		want := norm.NFD.String(raw)
		var got string
		if d := norm.NFD.PropertiesString(raw).Decomposition(); d != nil {
			got = string(d)
		} else if l, v, tt, ok := decomposeHangul(r); ok {
			got = string(l) + string(v)
			if tt != 0 {
				got += string(tt)
			}
		} else {
			got = raw
		}
		if got != want {
			t.Fatalf("U+%04X: decomposed to %+q; NFD gives %+q", r, got, want)
		}
	}
}

func TestCharClasses(t *testing.T) {
	for _, tc := range []struct {
		r                   rune
		punct, other, isCJK bool
	}{
		{'a', false, false, false},
		{'$', true, false, false}, // ASCII symbol, BERT punctuation
		{'^', true, false, false},
		{'~', true, false, false},
		{'«', true, false, false},      // Pi
		{'€', false, false, false},     // Sc: a symbol outside ASCII is not punctuation
		{'\u00ad', false, true, false}, // soft hyphen, Cf
		{'\u200d', false, true, false}, // zero width joiner, Cf
		{'\ue000', false, true, false}, // private use
		{0x0378, false, true, false},   // unassigned
		{'\u0085', false, true, false}, // NEL, Cc
		{'中', false, false, true},
		{0x3400, false, false, true},
		{0x4DBF, false, false, true},
		{0xF900, false, false, true},
		{0x20000, false, false, true},
		{0x2CEA1, false, false, true}, // last of Extension E
		{0x2FA1D, false, false, true}, // last of Compatibility Supplement
		{'あ', false, false, false},    // kana are not split
		{'한', false, false, false},    // nor Hangul
		{0x2FA20, false, true, false},
	} {
		if got := isPunct(tc.r); got != tc.punct {
			t.Errorf("isPunct(%U) = %v", tc.r, got)
		}
		if got := isOther(tc.r); got != tc.other {
			t.Errorf("isOther(%U) = %v", tc.r, got)
		}
		if got := isCJK(tc.r); got != tc.isCJK {
			t.Errorf("isCJK(%U) = %v", tc.r, got)
		}
	}
}

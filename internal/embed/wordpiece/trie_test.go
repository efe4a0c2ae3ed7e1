package wordpiece

import (
	"slices"
	"strings"
	"testing"
	"unicode/utf8"
)

// naivePieces is WordPiece as BERT's reference code states it: at each
// position try the longest remaining substring first, shortening it one
// character at a time until the vocabulary has it.
func naivePieces(t *Tokenizer, word string) []int32 {
	if utf8.RuneCountInString(word) > t.maxChars {
		return []int32{t.unk}
	}
	var ids []int32
	for start := 0; start < len(word); {
		end := len(word)
		found := int32(-1)
		for end > start {
			sub := word[start:end]
			if start > 0 {
				sub = "##" + sub
			}
			if id, ok := t.vocab[sub]; ok {
				found = id
				break
			}
			_, size := utf8.DecodeLastRuneInString(word[start:end])
			end -= size
		}
		if found < 0 {
			return []int32{t.unk}
		}
		ids = append(ids, found)
		start = end
	}
	return ids
}

func checkPieces(t *testing.T, tok *Tokenizer, word string) {
	t.Helper()
	got := tok.appendPieces(nil, []byte(word), utf8.RuneCountInString(word))
	if want := naivePieces(tok, word); !slices.Equal(got, want) {
		t.Errorf("pieces of %q = %v; want %v", word, got, want)
	}
}

// TestTrieMatchesNaive checks the trie's longest match against the
// quadratic definition, on every token of the vocabulary, glued pairs of
// tokens, and words built from token fragments.
func TestTrieMatchesNaive(t *testing.T) {
	vocab, _, _ := tokenizers(t)
	for i, tok := range vocab.tokens {
		word := strings.TrimPrefix(tok, "##")
		if word == "" || strings.ContainsAny(word, "[]") {
			continue
		}
		checkPieces(t, vocab, word)
		next := strings.TrimPrefix(vocab.tokens[(i*7919+13)%len(vocab.tokens)], "##")
		checkPieces(t, vocab, word+next)
		if len(word) > 2 {
			checkPieces(t, vocab, word[1:]+next+word[:len(word)/2])
		}
	}
}

func FuzzPieces(f *testing.F) {
	for _, s := range []string{"unaffable", "hello", "aaaaaaaaa", "日本", "naïve"} {
		f.Add(s)
	}
	vocab, _, _ := tokenizers(f)
	f.Fuzz(func(t *testing.T, word string) {
		if word == "" || !utf8.ValidString(word) {
			return
		}
		checkPieces(t, vocab, word)
	})
}

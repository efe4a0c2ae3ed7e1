package embed

import "math"

// Feature keys are 64-bit hashes, well mixed, whose bits are shared out
// independently: bits 0-1 name the family, bits 2-21 index the document
// frequency table, bit 22 is the sign, and bits 32-63 choose the vector
// bucket. Signed hashing makes colliding features cancel on average
// instead of piling up, so inner products stay unbiased.

const (
	fnvOffset = 14695981039346656037
	fnvPrime  = 1099511628211

	// Seeds separate the families, so the word "the" and the character
	// trigram "the" are different features.
	seedWord   = 0x9e3779b97f4a7c15
	seedBigram = 0xc2b2ae3d27d4eb4f
	seedChar   = 0x165667b19e3779f9

	// boundaryStart and boundaryEnd mark the edges of a word for its
	// character n-grams ("^cat$"), so prefixes and suffixes are features
	// of their own. They are control characters, which tokenising never
	// keeps inside a word.
	boundaryStart = 0x02
	boundaryEnd   = 0x03

	// maxCharGram is the longest character n-gram the scheme can take.
	maxCharGram = 5

	// noSpaceWordLen stands in for the word length of a run of a script
	// written without spaces, whose words are unknown: about two
	// characters, the usual length of a Chinese word.
	noSpaceWordLen = 2
)

// Feature families, kept in the two low bits of a feature key.
const (
	famWord   = 0 // a word, or a character of a no-space script
	famBigram = 1 // two adjacent tokens
	famChar   = 2 // character n-grams of a word with boundary markers
	families  = 3
)

// mix64 is the MurmurHash3 finaliser: it spreads every input bit over the
// whole key, so that the bit fields above are independent.
func mix64(h uint64) uint64 {
	h ^= h >> 33
	h *= 0xff51afd7ed558ccd
	h ^= h >> 33
	h *= 0xc4ceb9fe1a85ec53
	h ^= h >> 33
	return h
}

// featureKey finishes a hash into a key of family fam.
func featureKey(h uint64, fam uint64) uint64 {
	return mix64(h)&^3 | fam
}

// stopWords are English function words, dropped from the word and bigram
// families when lexicalParams.stopWords is set. Kept as a tuning option:
// IDF already weighs them down, and dropping them changed nothing
// measurable (docs/embedders.md).
var stopWords = map[string]bool{}

func init() {
	for _, w := range []string{
		"a", "an", "the", "and", "or", "but", "of", "to", "in", "on", "at", "by", "for", "with", "from",
		"is", "are", "was", "were", "be", "been", "being", "it", "its", "this", "that", "these", "those",
		"as", "has", "have", "had", "do", "does", "did", "not", "no", "so", "than", "then", "there",
		"he", "she", "they", "we", "you", "i", "his", "her", "their", "our", "your", "my", "me", "him", "them", "us",
	} {
		stopWords[w] = true
	}
}

// isStopWord looks a token up without converting it to a string.
func isStopWord(rs []rune) bool {
	if len(rs) > 5 {
		return false
	}
	var buf [5]byte
	for i, r := range rs {
		if r >= 0x80 {
			return false
		}
		buf[i] = byte(r)
	}
	return stopWords[string(buf[:len(rs)])]
}

// featureExtractor turns tokenised text into weighted feature occurrences.
// Its tables are computed once per parameter set.
type featureExtractor struct {
	p *lexicalParams
	// lenWeight[n][L] is the weight of one character n-gram of a word of L
	// runes: charWeight[n] / (L+2)^charLenPower. Words longer than the
	// table use the formula.
	lenWeight [maxCharGram + 1][64]float32
}

func newFeatureExtractor(p *lexicalParams) *featureExtractor {
	fx := &featureExtractor{p: p}
	for n := range fx.lenWeight {
		for l := range fx.lenWeight[n] {
			fx.lenWeight[n][l] = fx.charGramWeight(n, l)
		}
	}
	return fx
}

// charGramWeight is the weight of one n-gram occurrence in a word of l
// runes. Dividing by a power of the word's length gives every word a
// similar share of the character features whatever its length; without
// it a long word such as "unfortunately" outweighs "cat" fivefold, and
// STS-B correlation drops by 0.02.
func (fx *featureExtractor) charGramWeight(n, l int) float32 {
	w := fx.p.charWeight[n]
	if w == 0 || fx.p.charLenPower == 0 {
		return w
	}
	return w * float32(math.Pow(float64(l+2), -fx.p.charLenPower))
}

func (fx *featureExtractor) weightFor(n, l int) float32 {
	if l < len(fx.lenWeight[n]) {
		return fx.lenWeight[n][l]
	}
	return fx.charGramWeight(n, l)
}

// collect adds every feature of the tokenised text to set: each token
// (family word), each pair of adjacent tokens (bigram), and the character
// n-grams of each word or no-space run with boundary markers.
func (fx *featureExtractor) collect(tz *tokenizer, set *featureSet) {
	p := fx.p
	var prev uint64
	havePrev := false
	for _, t := range tz.tokens {
		rs := tz.runes[t.start:t.end]
		if p.stopWords && t.run < 0 && isStopWord(rs) {
			havePrev = false
			continue
		}
		h := uint64(fnvOffset ^ seedWord)
		for _, r := range rs {
			h = (h ^ uint64(r)) * fnvPrime
		}
		if p.wordWeight != 0 {
			set.add(featureKey(h, famWord), 1)
		}
		if havePrev && p.bigramWeight != 0 {
			set.add(featureKey((prev*fnvPrime)^h^seedBigram, famBigram), 1)
		}
		prev, havePrev = h, true
	}
	lo, hi := 0, 0
	for n, w := range p.charWeight {
		if w != 0 {
			if lo == 0 {
				lo = n
			}
			hi = n
		}
	}
	if hi == 0 {
		return
	}
	for i, sp := range tz.spans {
		l := int(sp.end - sp.start)
		if tz.spanNoSpace(i) {
			l = noSpaceWordLen
		}
		var w [maxCharGram + 1]float32
		for n := lo; n <= hi; n++ {
			w[n] = fx.weightFor(n, l)
		}
		addCharGrams(tz.runes[sp.start:sp.end], set, lo, hi, &w)
	}
}

// addCharGrams adds the character n-grams of ^rs$ for n in lo..hi, each
// occurrence weighing w[n]. One pass hashes all lengths from each start.
func addCharGrams(rs []rune, set *featureSet, lo, hi int, w *[maxCharGram + 1]float32) {
	n := len(rs) + 2
	at := func(i int) uint64 {
		switch i {
		case 0:
			return boundaryStart
		case n - 1:
			return boundaryEnd
		}
		return uint64(rs[i-1])
	}
	for i := 0; i+lo <= n; i++ {
		h := uint64(fnvOffset ^ seedChar)
		for k := 1; k <= hi && i+k <= n; k++ {
			h = (h ^ at(i+k-1)) * fnvPrime
			if k >= lo && w[k] != 0 {
				set.add(featureKey(h, famChar), w[k])
			}
		}
	}
}

// featureSet counts features by key in an open-addressing table that is
// reused from text to text: no allocation once it has grown to the
// largest text seen. Besides the count it sums the occurrences' weights.
type featureSet struct {
	keys   []uint64 // 0 marks an empty slot
	counts []uint32
	sums   []float32
	used   []int32 // occupied slots, in insertion order
	mask   uint64
}

func (s *featureSet) reset() {
	for _, i := range s.used {
		s.keys[i] = 0
	}
	s.used = s.used[:0]
	if s.keys == nil {
		s.grow(1 << 12)
	}
}

func (s *featureSet) len() int { return len(s.used) }

// add counts one occurrence of key, weighing w.
func (s *featureSet) add(key uint64, w float32) {
	if key == 0 {
		key = 4 // family word; keeps 0 free for empty slots
	}
	if 2*(len(s.used)+1) > len(s.keys) {
		s.grow(2 * len(s.keys))
	}
	i := (key >> 23) & s.mask
	for {
		switch s.keys[i] {
		case key:
			s.counts[i]++
			s.sums[i] += w
			return
		case 0:
			s.keys[i] = key
			s.counts[i] = 1
			s.sums[i] = w
			s.used = append(s.used, int32(i))
			return
		}
		i = (i + 1) & s.mask
	}
}

// grow rehashes into a table of size slots, a power of two.
func (s *featureSet) grow(size int) {
	oldKeys, oldCounts, oldSums, oldUsed := s.keys, s.counts, s.sums, s.used
	s.keys = make([]uint64, size)
	s.counts = make([]uint32, size)
	s.sums = make([]float32, size)
	s.used = make([]int32, 0, size/2)
	s.mask = uint64(size - 1)
	for _, j := range oldUsed {
		key := oldKeys[j]
		i := (key >> 23) & s.mask
		for s.keys[i] != 0 {
			i = (i + 1) & s.mask
		}
		s.keys[i] = key
		s.counts[i] = oldCounts[j]
		s.sums[i] = oldSums[j]
		s.used = append(s.used, int32(i))
	}
}

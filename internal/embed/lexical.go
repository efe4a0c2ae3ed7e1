package embed

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"hash/crc32"
	"math"
	"runtime"
	"sync"
	"sync/atomic"
)

// LexicalDimension is the length of lexical vectors. Hashing thousands of
// features of a chunk into few dimensions makes unrelated features
// collide, and retrieval suffers long before sentence similarity does: on
// the Cranfield collection nDCG@10 rises from 0.320 at 512 dimensions to
// 0.335 at 768, then only to 0.345 at 1,024, while STS-B barely moves
// (docs/embedders.md); 768 is where the gains flatten. A vault of 10,000
// notes (about 30,000 chunks) then holds 92 MB of float32 vectors in
// memory, where 512 would hold 61 MB and 1,024 would hold 123 MB. Speed
// hardly depends on it: the time goes into hashing features.
const LexicalDimension = 768

// lexicalModel names the feature scheme: tokenising, feature families,
// weights and hashing. Any change to them that alters vectors must change
// this name, so that vectors and states from an older scheme are not mixed
// with new ones.
const lexicalModel = "hashed-ngrams-v1"

// idfBits sizes the document-frequency table: 2^20 counters, hashed from
// features independently of the vector buckets. Document frequencies must
// be kept per feature (a vector bucket mixes thousands of features, so
// every bucket would occur in nearly every document); 2^20 keeps the table
// at 4 MB while a vault's frequent features rarely collide in it.
const idfBits = 20

// lexicalParams are the tunable choices of the feature scheme. The
// defaults (defaultLexicalParams) are what lexicalModel names; other values
// exist only so the tuning test can compare alternatives.
type lexicalParams struct {
	dim int
	// wordWeight and bigramWeight multiply the word and bigram families;
	// charWeight[n] multiplies character n-grams (0 leaves n out).
	wordWeight, bigramWeight float32
	charWeight               [maxCharGram + 1]float32
	// charLenPower divides each character n-gram of a word of L runes by
	// (L+2)^charLenPower; see featureExtractor.charGramWeight.
	charLenPower float64
	// familyNorm L2-normalises each family's part before the weights
	// combine them, so that the many character n-grams of a text do not
	// drown its few words.
	familyNorm bool
	// idfAdd is added to ln((1+N)/(1+df)): 1 is scikit-learn's smoothed
	// IDF, 0 lets a feature found in every document weigh (almost)
	// nothing. The result is never below minIDF.
	idfAdd float64
	// idfPower raises the inverse document frequency to a power: 1 is
	// plain TF-IDF, 0 ignores document frequencies.
	idfPower float64
	// stopWords drops a small list of English function words from the
	// word and bigram families.
	stopWords bool
}

// minIDF keeps a feature found in every document from vanishing, so that
// a text made only of common words still has a direction.
const minIDF = 0.05

// defaultLexicalParams are the choices measured best on STS-B (sentence
// similarity) and Cranfield (retrieval of abstracts by short queries); see
// docs/embedders.md for the steps.
var defaultLexicalParams = lexicalParams{
	dim:          LexicalDimension,
	wordWeight:   0.3,
	bigramWeight: 0.1,
	charWeight:   [maxCharGram + 1]float32{3: 1, 4: 1},
	charLenPower: 0.5,
	familyNorm:   true,
	idfAdd:       1,
	idfPower:     1,
}

// Lexical is the offline embedder: signed feature hashing of word
// unigrams, word bigrams and character 3- and 4-grams of each word
// (the n-grams of a word weighted down by its length, so that every word
// counts about equally), weighted by sublinear term frequency and inverse
// document frequency, each family normalised, the sum L2-normalised. Text
// in scripts written without spaces (Chinese, Japanese, Thai) is split
// into characters, whose bigrams and n-grams stand in for words. It measures
// lexical overlap (shared words, shared word pieces), not meaning: "car"
// and "automobile" are unrelated to it. It needs no model download and no
// network, so semantic search works out of the box.
//
// Its document frequencies are frozen when the index is built (see
// LexicalFitter): a vector made today compares with one stored last week
// only if both used the same statistics, so the statistics are part of
// the state and of the fingerprint. A Lexical is safe for concurrent use.
type Lexical struct {
	params      lexicalParams
	fx          *featureExtractor
	docs        uint64
	df          []uint32  // only until the state is encoded
	idf         []float32 // nil when unfitted (every weight is 1)
	state       []byte
	fingerprint string
	scratch     sync.Pool // *lexScratch
}

// NewLexical returns a lexical embedder fitted on no documents: every
// feature has the same inverse document frequency. It is what an empty
// vault gets.
func NewLexical() *Lexical {
	return newLexical(defaultLexicalParams, 0, nil)
}

func newLexical(p lexicalParams, docs uint64, df []uint32) *Lexical {
	l := &Lexical{params: p, docs: docs, df: df}
	l.fx = newFeatureExtractor(&l.params)
	if docs == 0 {
		l.df = nil
	}
	if l.df != nil {
		l.idf = idfTable(&l.params, docs, l.df)
	}
	l.state = l.encodeState()
	l.df = nil // the state holds the frequencies; the table is 4 MB
	sum := sha256.Sum256(l.state)
	l.fingerprint = fmt.Sprintf("lexical/%s/%d/idf-%s", lexicalModel, p.dim, hex.EncodeToString(sum[:6]))
	return l
}

// idfTable turns document frequencies into inverse document frequencies,
// ln((1+N)/(1+df)) + idfAdd, smoothed as if one extra document held every
// feature so that features never seen get a finite weight. Most
// frequencies are small, so their logarithms come from a table.
func idfTable(p *lexicalParams, docs uint64, df []uint32) []float32 {
	n := float64(docs)
	weight := func(d uint32) float32 {
		w := max(math.Log((1+n)/(1+float64(d)))+p.idfAdd, minIDF)
		if p.idfPower != 1 {
			w = math.Pow(w, p.idfPower)
		}
		return float32(w)
	}
	var small [1024]float32
	for d := range small {
		small[d] = weight(uint32(d))
	}
	idf := make([]float32, len(df))
	for i, d := range df {
		if int(d) < len(small) {
			idf[i] = small[d]
		} else {
			idf[i] = weight(d)
		}
	}
	return idf
}

// Fingerprint is "lexical/<model>/<dimension>/idf-<hash of the state>":
// refitting the document frequencies changes it.
func (l *Lexical) Fingerprint() string { return l.fingerprint }

// Provider is "lexical".
func (l *Lexical) Provider() string { return ProviderLexical }

// Model names the feature scheme ("hashed-ngrams-v1").
func (l *Lexical) Model() string { return lexicalModel }

// Dimension is LexicalDimension.
func (l *Lexical) Dimension() int { return l.params.dim }

// Documents is the number of documents the document frequencies were
// fitted on; 0 for NewLexical. A drift check compares it with the vault's
// current size to suggest refitting.
func (l *Lexical) Documents() int { return int(l.docs) }

// State is everything needed to embed again exactly as l does: the
// feature scheme's name, the dimension and the document frequencies, in a
// compact versioned binary form for the database. NewLexicalFromState
// reads it back. The returned slice must not be modified.
func (l *Lexical) State() []byte { return l.state }

// lexScratch is what one goroutine needs to embed a text, kept between
// calls so that embedding allocates nothing per feature.
type lexScratch struct {
	tz    tokenizer
	set   featureSet
	parts [families][]float32 // per-family accumulators when familyNorm is set
}

func (l *Lexical) getScratch() *lexScratch {
	if s, ok := l.scratch.Get().(*lexScratch); ok {
		return s
	}
	s := &lexScratch{}
	for i := range s.parts {
		s.parts[i] = make([]float32, l.params.dim)
	}
	return s
}

// parallelMin is the batch size from which Embed spreads texts over
// several goroutines; below it, starting them costs more than it saves.
const parallelMin = 16

// Embed returns one unit vector per text, in order. A text with no
// letters, digits or symbols (empty, blank, punctuation only) has no
// features and gets the zero vector, whose cosine with anything is 0: it
// claims no similarity rather than an arbitrary one. Large batches are
// spread over GOMAXPROCS goroutines. Embed fails only when ctx ends.
func (l *Lexical) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	dim := l.params.dim
	out := make([][]float32, len(texts))
	// One backing array for the whole batch: one allocation, not one per
	// text. The capacity limit keeps an append to one vector from
	// overwriting the next.
	backing := make([]float32, len(texts)*dim)
	for i := range out {
		out[i] = backing[i*dim : (i+1)*dim : (i+1)*dim]
	}
	workers := min(runtime.GOMAXPROCS(0), len(texts)/parallelMin)
	if workers <= 1 {
		s := l.getScratch()
		defer l.scratch.Put(s)
		for i, t := range texts {
			if i%64 == 0 {
				if err := ctx.Err(); err != nil {
					return nil, err
				}
			}
			l.embedOne(s, t, out[i])
		}
		return out, nil
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			s := l.getScratch()
			defer l.scratch.Put(s)
			for {
				i := int(next.Add(1) - 1)
				if i >= len(texts) || ctx.Err() != nil {
					return
				}
				l.embedOne(s, texts[i], out[i])
			}
		})
	}
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return out, nil
}

// embedOne writes the vector of text into v, which must be zero.
func (l *Lexical) embedOne(s *lexScratch, text string, v []float32) {
	s.tz.tokenize(text)
	s.set.reset()
	l.fx.collect(&s.tz, &s.set)
	if s.set.len() == 0 {
		return
	}
	p := &l.params
	dim := uint64(p.dim)
	famWeight := [families]float32{famWord: p.wordWeight, famBigram: p.bigramWeight, famChar: 1}
	if p.familyNorm {
		for f := range s.parts {
			clear(s.parts[f])
		}
	}
	for _, slot := range s.set.used {
		key := s.set.keys[slot]
		tf := s.set.counts[slot]
		// The mean weight of the feature's occurrences, damped by
		// sublinear term frequency.
		w := s.set.sums[slot] / float32(tf) * sublinearTF(tf)
		if l.idf != nil {
			w *= l.idf[(key>>2)&(1<<idfBits-1)]
		}
		if key&(1<<22) != 0 {
			w = -w
		}
		bucket := ((key >> 32) * dim) >> 32
		if p.familyNorm {
			s.parts[key&3][bucket] += w
		} else {
			v[bucket] += w * famWeight[key&3]
		}
	}
	if p.familyNorm {
		for f, part := range s.parts {
			n := norm(part)
			if n == 0 || famWeight[f] == 0 {
				continue
			}
			scale := famWeight[f] / n
			for i, x := range part {
				v[i] += x * scale
			}
		}
	}
	normalize(v)
}

// sublinearTF is 1+ln(tf): a word said ten times is not ten times as
// telling as a word said once. Small counts come from a table.
func sublinearTF(tf uint32) float32 {
	if int(tf) < len(tfTable) {
		return tfTable[tf]
	}
	return float32(1 + math.Log(float64(tf)))
}

var tfTable = func() (t [256]float32) {
	for i := 1; i < len(t); i++ {
		t[i] = float32(1 + math.Log(float64(i)))
	}
	return t
}()

// norm is the L2 norm of v, summed in float64.
func norm(v []float32) float32 {
	var s float64
	for _, x := range v {
		s += float64(x) * float64(x)
	}
	return float32(math.Sqrt(s))
}

// normalize scales v to unit length; a zero vector stays zero.
func normalize(v []float32) {
	n := norm(v)
	if n == 0 || math.IsInf(float64(n), 0) || math.IsNaN(float64(n)) {
		return
	}
	inv := 1 / n
	for i := range v {
		v[i] *= inv
	}
}

// LexicalFitter accumulates document frequencies over a corpus, one
// document at a time, in a table of fixed size whatever the corpus: 4 MB.
// Call Add for every document of the index build (chunks, as the vectors
// are made of chunks), then Lexical. A fitter is not safe for concurrent
// use.
type LexicalFitter struct {
	params lexicalParams
	fx     *featureExtractor
	docs   uint64
	df     []uint32
	// last holds, per frequency slot, the number of the last document
	// counted in it (plus one): different features of one document can
	// hash to the same slot, and a document counts once per slot, so that
	// no frequency exceeds the number of documents.
	last    []uint32
	scratch lexScratch
}

// NewLexicalFitter returns a fitter for the current feature scheme.
func NewLexicalFitter() *LexicalFitter {
	return newLexicalFitter(defaultLexicalParams)
}

func newLexicalFitter(p lexicalParams) *LexicalFitter {
	f := &LexicalFitter{params: p, df: make([]uint32, 1<<idfBits), last: make([]uint32, 1<<idfBits)}
	f.fx = newFeatureExtractor(&f.params)
	return f
}

// Add counts one document: every feature it contains adds one to that
// feature's document frequency, however often it occurs.
func (f *LexicalFitter) Add(text string) {
	s := &f.scratch
	s.tz.tokenize(text)
	s.set.reset()
	f.fx.collect(&s.tz, &s.set)
	stamp := uint32(f.docs + 1)
	for _, slot := range s.set.used {
		i := (s.set.keys[slot] >> 2) & (1<<idfBits - 1)
		if f.last[i] == stamp {
			continue
		}
		f.last[i] = stamp
		if f.df[i] < math.MaxUint32 {
			f.df[i]++
		}
	}
	f.docs++
}

// Lexical returns an embedder using the frequencies counted so far. The
// fitter may go on counting; the embedder keeps its own copy.
func (f *LexicalFitter) Lexical() *Lexical {
	if f.docs == 0 {
		return newLexical(f.params, 0, nil)
	}
	return newLexical(f.params, f.docs, append([]uint32(nil), f.df...))
}

// State layout, version 1, all integers unsigned varints unless stated:
//
//	"JLEX" 0x01                magic and version
//	len(model) model           feature scheme name
//	dim                        vector length
//	idfBits (one byte)         log2 of the frequency table size
//	docs                       documents fitted on
//	entries                    number of non-zero frequencies
//	entries × (gap, df)        table index minus previous index plus one, frequency
//	CRC-32 (IEEE, 4 bytes LE)  of everything before it
//
// Only non-zero frequencies are written, so a small vault has a small
// state; the CRC turns a truncated or damaged blob into an error instead
// of silently different vectors.
const (
	stateMagic   = "JLEX"
	stateVersion = 1
)

// ErrLexicalState means a stored lexical state cannot be used: damaged,
// from another version of the feature scheme, or not a lexical state at
// all. The remedy is to fit the document frequencies again.
var ErrLexicalState = errors.New("unusable lexical embedder state")

func (l *Lexical) encodeState() []byte {
	var nz int
	for _, d := range l.df {
		if d != 0 {
			nz++
		}
	}
	b := make([]byte, 0, 32+len(lexicalModel)+nz*4)
	b = append(b, stateMagic...)
	b = append(b, stateVersion)
	b = binary.AppendUvarint(b, uint64(len(lexicalModel)))
	b = append(b, lexicalModel...)
	b = binary.AppendUvarint(b, uint64(l.params.dim))
	b = append(b, idfBits)
	b = binary.AppendUvarint(b, l.docs)
	b = binary.AppendUvarint(b, uint64(nz))
	prev := -1
	for i, d := range l.df {
		if d == 0 {
			continue
		}
		b = binary.AppendUvarint(b, uint64(i-prev))
		b = binary.AppendUvarint(b, uint64(d))
		prev = i
	}
	return binary.LittleEndian.AppendUint32(b, crc32.ChecksumIEEE(b))
}

// NewLexicalFromState restores the embedder whose State is state, so that
// queries embed exactly as the stored vectors were. A damaged state, or
// one written by a different feature scheme, is an error wrapping
// ErrLexicalState; it never panics.
func NewLexicalFromState(state []byte) (*Lexical, error) {
	bad := func(why string) (*Lexical, error) {
		return nil, fmt.Errorf("%w: %s", ErrLexicalState, why)
	}
	if len(state) < len(stateMagic)+1+4 || string(state[:len(stateMagic)]) != stateMagic {
		return bad("not a lexical state")
	}
	body, sum := state[:len(state)-4], binary.LittleEndian.Uint32(state[len(state)-4:])
	if crc32.ChecksumIEEE(body) != sum {
		return bad("checksum mismatch")
	}
	if v := body[len(stateMagic)]; v != stateVersion {
		return bad(fmt.Sprintf("version %d, want %d", v, stateVersion))
	}
	r := stateReader{b: body[len(stateMagic)+1:]}
	modelLen := r.uvarint()
	if r.err != nil || modelLen > uint64(len(r.b)) {
		return bad("truncated model name")
	}
	model := string(r.b[:modelLen])
	r.b = r.b[modelLen:]
	if model != lexicalModel {
		return bad(fmt.Sprintf("feature scheme %q, this build embeds with %q", model, lexicalModel))
	}
	dim := r.uvarint()
	if r.err == nil && dim != uint64(defaultLexicalParams.dim) {
		return bad(fmt.Sprintf("dimension %d, want %d", dim, defaultLexicalParams.dim))
	}
	bits := r.byte()
	if r.err == nil && bits != idfBits {
		return bad(fmt.Sprintf("frequency table of 2^%d, want 2^%d", bits, idfBits))
	}
	docs := r.uvarint()
	entries := r.uvarint()
	if r.err != nil {
		return bad("truncated header")
	}
	if entries > 1<<idfBits {
		return bad("too many frequencies")
	}
	if docs == 0 {
		if entries != 0 || len(r.b) != 0 {
			return bad("frequencies without documents")
		}
		return NewLexical(), nil
	}
	df := make([]uint32, 1<<idfBits)
	i := -1
	for range entries {
		gap, d := r.uvarint(), r.uvarint()
		if r.err != nil {
			return bad("truncated frequencies")
		}
		if gap == 0 || gap > uint64(len(df)-1-i) {
			return bad("frequency index out of range")
		}
		if d == 0 || d > docs || d > math.MaxUint32 {
			return bad("frequency out of range")
		}
		i += int(gap)
		df[i] = uint32(d)
	}
	if len(r.b) != 0 {
		return bad("trailing bytes")
	}
	return newLexical(defaultLexicalParams, docs, df), nil
}

// stateReader reads varints from a state, remembering the first error so
// that callers check once.
type stateReader struct {
	b   []byte
	err error
}

func (r *stateReader) uvarint() uint64 {
	if r.err != nil {
		return 0
	}
	v, n := binary.Uvarint(r.b)
	if n <= 0 {
		r.err = errors.New("bad varint")
		return 0
	}
	r.b = r.b[n:]
	return v
}

func (r *stateReader) byte() byte {
	if r.err != nil {
		return 0
	}
	if len(r.b) == 0 {
		r.err = errors.New("truncated")
		return 0
	}
	c := r.b[0]
	r.b = r.b[1:]
	return c
}

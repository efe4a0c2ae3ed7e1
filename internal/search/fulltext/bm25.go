package fulltext

import (
	"context"
	"errors"
	"slices"
	"strings"
	"sync"

	"github.com/jarvis-mcp/jarvis/internal/search/notes"
)

// Ranking in Go. A query whose every term is a plain word or a phrase of
// them (ASCII letters and digits; no prefix, no Chinese or Japanese) is
// ranked here, over the postings FTS5 itself keeps (ftsdata.go), by the
// formula of FTS5's bm25() (ext/fts5/fts5_aux.c), operation for
// operation, so that each note gets the very score bm25() gives it and
// the order is the same (TestGoRankingAgreesWithFTS5). FTS5 spends about
// 2 µs a matching note on bm25() through modernc's SQLite: a read of the
// note's length, a decoding of its positions, and before the first row
// one more pass over each word's postings to count the notes holding it.
// Here each word's postings are read once, lengths come from a copy of
// %_docsize kept in memory for as long as the index does not change, and
// the score of a note is a few multiplications: a search costs what
// reading its words' postings costs. Filters apply to the notes ranked
// (the ids they keep, or the vaults, from a copy of each row's vault kept
// beside the lengths). Any other query goes through FTS5 (Keyword.rank).

// bm25K1 and bm25B are FTS5's constants. Variables, not constants: Go
// computes constant expressions exactly, and k1 + 1 must be rounded as C
// rounds it.
var (
	bm25K1 = 1.2
	bm25B  = 0.75
)

// textIndex ranks notes over note_fts's own data, keeping its rows'
// lengths between searches. It is safe for concurrent use.
type textIndex struct {
	db    notes.Querier
	table string

	mu    sync.Mutex
	sizes *docSizes // nil until read
	// scratch holds the working memory of searches done, for the next:
	// a search at 100k notes needs a few megabytes, which the garbage
	// collector would otherwise clear and reclaim each time.
	scratch sync.Pool
}

// scratch is the working memory of one search.
type scratch struct {
	stamp []uint32 // see postingSet
	gen   uint32
	score []float64
	count []uint16
	held  []uint16 // see postingReader
	// touched lists the rows a ranking scored, to clear after it.
	touched []int32
	free    []*postings // emptied lists to fill again
}

// docSizes are the lengths of every row of an FTS5 table at one version of
// its index.
type docSizes struct {
	version ftsVersion
	ids     []int64  // rowids, in order
	lengths []uint32 // tokens in all columns, by position in ids
	// slot is the position in ids of each rowid, when the rowids are
	// dense enough for a table; nil to search ids.
	slot []int32
	// vault is each row's vault id, by position, read when a search
	// first asks (textIndex.vaults): a note never changes vault, and a
	// note added or removed changes the version.
	vault []int64
}

// position is the index in ids of rowid, or -1.
func (s *docSizes) position(rowid int64) int {
	if s.slot != nil {
		if rowid < 0 || rowid >= int64(len(s.slot)) {
			return -1
		}
		return int(s.slot[rowid])
	}
	if i, ok := slices.BinarySearch(s.ids, rowid); ok {
		return i
	}
	return -1
}

// errIndexChanged means the index changed while a search read it: the
// search asks FTS5.
var errIndexChanged = errors.New("the full-text index changed during the search")

// toFTS5 reports whether an error of ranking in Go means FTS5 ranks
// instead: the index changed under the search, or holds data in a form
// ftsdata.go does not read. Any other error is the search's.
func toFTS5(err error) bool {
	return errors.Is(err, errFTSFormat) || errors.Is(err, errIndexChanged)
}

// postingSet is what one search read of the index: the lengths and the
// postings of its words, all from one version.
type postingSet struct {
	x     *textIndex
	sizes *docSizes
	lists map[string]*postings // by word or phrase, as rankExpr.words
	// mem.stamp marks the rows whose entry in force was read, by position
	// in sizes.ids: the word being read is mem.gen.
	mem *scratch
}

// release hands the set's memory to the next search.
func (s *postingSet) release() {
	if s == nil {
		return
	}
	for _, l := range s.lists {
		*l = postings{at: l.at[:0], freq: l.freq[:0]}
		s.mem.free = append(s.mem.free, l)
	}
	s.lists = nil
	s.x.scratch.Put(s.mem)
}

// newPostings returns an empty list, reusing one when it can.
func (s *postingSet) newPostings() *postings {
	if n := len(s.mem.free); n > 0 {
		l := s.mem.free[n-1]
		s.mem.free = s.mem.free[:n-1]
		return l
	}
	return &postings{}
}

// postings are the rows holding a word or phrase: each row's position in
// docSizes.ids and the weighted frequency in it, in no order.
type postings struct {
	at   []int32
	freq []float64
	hits int64   // the rows holding the word, in the list or not
	idf  float64 // bm25()'s idf of the word
	// read is which rows the list holds.
	read readMode
}

// readMode is which rows of a word's postings a read keeps.
type readMode int

const (
	// readRows keeps every row holding the word.
	readRows readMode = iota
	// readAllWords is for ranking the notes holding every word of a
	// query: the words are read rarest first, and each keeps only the
	// rows holding every word read before it, which spares most of the
	// work on a word found in most notes.
	readAllWords
	// readCounts keeps no row: it counts them, up to half the notes, as
	// all feedback asks is whether a word is in half of them (inHalf).
	readCounts
)

// serves reports whether a list read as l serves a read asking for m.
func (l readMode) serves(m readMode) bool {
	return l == readRows || m == readCounts
}

// read returns the postings of keys (words and phrases as rankExpr.words
// holds them) that mode asks for, each occurrence weighing its column's
// weight in columns, adding to set when it is not nil (read with the same
// columns). It returns errIndexChanged when the index changed while it
// read, or since set was read.
func (x *textIndex) read(ctx context.Context, set *postingSet, keys []string, columns []float64, mode readMode) (_ *postingSet, err error) {
	if set == nil {
		defer func() {
			if err != nil {
				set.release()
			}
		}()
	}
	v, err := readFTSVersion(ctx, x.db, x.table)
	if err != nil {
		return nil, err
	}
	if set == nil {
		sizes, err := x.docSizes(ctx, v)
		if err != nil {
			return nil, err
		}
		set = &postingSet{x: x, sizes: sizes, lists: map[string]*postings{}}
		set.mem, _ = x.scratch.Get().(*scratch)
		if set.mem == nil {
			set.mem = &scratch{}
		}
		if n := len(sizes.ids); len(set.mem.stamp) != n {
			set.mem.stamp, set.mem.gen = make([]uint32, n), 0
			set.mem.score, set.mem.count, set.mem.held = make([]float64, n), make([]uint16, n), make([]uint16, n)
		}
	} else if !set.sizes.version.same(v) {
		return nil, errIndexChanged
	}
	var missing []string
	present := 0
	for _, w := range keys {
		l, ok := set.lists[w]
		switch {
		case ok && l.read.serves(mode):
			present++
		case !slices.Contains(missing, w):
			missing = append(missing, w)
		}
	}
	if len(missing) == 0 {
		return set, nil
	}
	// A phrase ("feature flags", "e-mail") is found from its words'
	// positions, read as they are.
	var words, phrases []string
	for _, m := range missing {
		if strings.Contains(m, " ") {
			phrases = append(phrases, m)
		} else {
			words = append(words, m)
		}
	}
	// A word's list can leave out the rows missing an earlier word only
	// when every term is a word read here.
	if mode == readAllWords && (present > 0 || len(words) == 1 || len(phrases) > 0) {
		mode = readRows
	}
	all := mode == readAllWords
	terms := slices.Clone(words)
	raw := map[string]int{} // a phrase's word: its index in terms
	for _, p := range phrases {
		for _, w := range strings.Fields(p) {
			if _, ok := raw[w]; !ok {
				raw[w] = len(terms)
				terms = append(terms, w)
			}
		}
	}
	r := &postingReader{sizes: set.sizes, mem: set.mem, mode: mode, term: -1, gone: map[int64]uint32{},
		lists: make([]*postings, len(terms)), raw: make([]*rawPostings, len(terms))}
	for i := range terms {
		if i < len(words) {
			r.lists[i] = set.newPostings()
		} else {
			r.raw[i] = &rawPostings{}
		}
	}
	if all {
		clear(set.mem.held)
	}
	order := func(leaves []int64) []int {
		o := make([]int, len(leaves))
		for i := range o {
			o[i] = i
		}
		if all {
			slices.SortStableFunc(o, func(a, b int) int { return int(leaves[a] - leaves[b]) })
		}
		return o
	}
	if err := ftsDoclists(ctx, x.db, x.table, v, terms, order, columns, r); err != nil {
		return nil, err
	}
	if r.bad {
		return nil, errIndexChanged
	}
	lists := slices.Clone(r.lists[:len(words)])
	for _, p := range phrases {
		var parts []*rawPostings
		for _, w := range strings.Fields(p) {
			parts = append(parts, r.raw[raw[w]])
		}
		l := set.newPostings()
		if err := phrasePostings(parts, columns, l); err != nil {
			return nil, err
		}
		lists = append(lists, l)
	}
	if err := x.idfs(ctx, lists, set.notes()); err != nil {
		return nil, err
	}
	for i, w := range append(words, phrases...) { // as lists
		if old := set.lists[w]; old != nil {
			*old = postings{at: old.at[:0], freq: old.freq[:0]}
			set.mem.free = append(set.mem.free, old)
		}
		set.lists[w] = lists[i]
	}
	after, err := readFTSVersion(ctx, x.db, x.table)
	if err != nil {
		return nil, err
	}
	if !after.same(v) {
		return nil, errIndexChanged
	}
	return set, nil
}

// postingReader files the entries ftsDoclists reads into the lists of a
// postingSet: by row, the first entry in force, and of those, the rows
// holding the word.
type postingReader struct {
	sizes *docSizes
	mem   *scratch
	lists []*postings // by term
	// raw, by term: the position lists of the words of phrases, as they
	// are; nil for the other terms.
	raw []*rawPostings
	// mode says which rows the lists keep; with readAllWords, mem.held
	// counts the terms read so far that a row holds.
	mode readMode
	bad  bool // a row FTS5 holds words of but no length
	// gone marks the rows deleted from the table whose delete markers for
	// the term being read (mem.gen) came, in newer segments than their
	// entries.
	gone map[int64]uint32

	enough  bool         // the term being read is counted far enough
	term    int          // the term being read, -1 before the first
	read    uint16       // terms read before the one being read
	list    *postings    // of the term being read, or
	rawList *rawPostings // of the phrase word being read
	entryAt int32        // the row of the entry whose frequency comes next
}

// setTerm starts (or goes on with) the entries of term t, and reports
// whether it takes their position lists as they are.
func (r *postingReader) setTerm(t int) bool {
	if t == r.term {
		return r.rawList != nil
	}
	if r.term >= 0 {
		r.read++
	}
	r.term, r.enough = t, false
	r.list, r.rawList = r.lists[t], r.raw[t]
	if r.list != nil {
		r.list.read = r.mode
		if r.mode == readAllWords && r.read == 0 {
			r.list.read = readRows // the first word: every row is in the running
		}
	}
	if r.mem.gen++; r.mem.gen == 0 { // wrapped: clear the old marks
		clear(r.mem.stamp)
		r.mem.gen = 1
	}
	return r.rawList != nil
}

// entry files an entry of a row and reports whether its frequency (or its
// position list) is wanted.
func (r *postingReader) entry(rowid int64, deleted bool) bool {
	at := r.sizes.position(rowid)
	switch {
	case at < 0: // a row deleted: newer segments say so before older ones
		if deleted {
			r.gone[rowid] = r.mem.gen
		} else if r.gone[rowid] != r.mem.gen {
			r.bad = true
		}
		return false
	case r.mem.stamp[at] == r.mem.gen:
		return false // an older entry of the row
	}
	r.mem.stamp[at] = r.mem.gen
	if deleted {
		return false
	}
	if l := r.rawList; l != nil {
		l.at = append(l.at, int32(at))
		l.off = append(l.off, int32(len(l.buf)))
		return true
	}
	r.list.hits++
	switch r.mode {
	case readCounts:
		r.enough = r.list.hits >= half(r.sizes.version.rows)
		return false
	case readAllWords:
		if r.mem.held[at] != r.read {
			return false
		}
		r.mem.held[at]++
	}
	r.entryAt = int32(at)
	return true
}

// positions files a piece of the position list of the entry last wanted,
// for a phrase's word.
func (r *postingReader) positions(b []byte) {
	r.rawList.buf = append(r.rawList.buf, b...)
}

// frequency files the frequency of the entry last wanted.
func (r *postingReader) frequency(f float64) {
	if r.rawList != nil {
		return
	}
	r.list.at = append(r.list.at, r.entryAt)
	r.list.freq = append(r.list.freq, f)
}

// rawPostings are the rows holding a word of a phrase, with the word's
// position list in each, as FTS5 stores it.
type rawPostings struct {
	at  []int32
	off []int32 // where each row's list starts in buf
	buf []byte
}

// list is the position list of the i-th row.
func (l *rawPostings) list(i int) []byte {
	end := len(l.buf)
	if i+1 < len(l.off) {
		end = int(l.off[i+1])
	}
	return l.buf[l.off[i]:end]
}

// phrasePostings fills out with the rows holding a phrase whose words'
// postings are words, in order, as FTS5 matches a phrase: each place
// where the words follow one another in one column is an instance, and
// the phrase's frequency in a row is the sum of its instances' column
// weights (columns; 1 past them), added in the order of the instances.
func phrasePostings(words []*rawPostings, columns []float64, out *postings) error {
	index := make([]map[int32]int, len(words)) // row -> its place in words[k]
	for k := 1; k < len(words); k++ {
		index[k] = make(map[int32]int, len(words[k].at))
		for i, at := range words[k].at {
			index[k][at] = i
		}
	}
	var starts, next []uint64
	var err error
	for i, at := range words[0].at {
		if starts, err = decodePositions(words[0].list(i), starts[:0]); err != nil {
			return err
		}
		for k := 1; k < len(words) && len(starts) > 0; k++ {
			j, ok := index[k][at]
			if !ok {
				starts = starts[:0]
				break
			}
			if next, err = decodePositions(words[k].list(j), next[:0]); err != nil {
				return err
			}
			starts = followedBy(starts, next, uint64(k))
		}
		if len(starts) == 0 {
			continue
		}
		f := 0.0
		for _, s := range starts {
			if c := int(s >> 32); c < len(columns) {
				f += columns[c]
			} else {
				f++
			}
		}
		out.hits++
		out.at = append(out.at, at)
		out.freq = append(out.freq, f)
	}
	return nil
}

// followedBy keeps the positions s of starts (column << 32 | offset) for
// which s + k is in next; both are sorted.
func followedBy(starts, next []uint64, k uint64) []uint64 {
	kept, j := starts[:0], 0
	for _, s := range starts {
		for j < len(next) && next[j] < s+k {
			j++
		}
		if j < len(next) && next[j] == s+k {
			kept = append(kept, s)
		}
	}
	return kept
}

// idfs sets the idf of each list as bm25() computes it: log((N - n +
// 0.5) / (n + 0.5)), at least 1e-6, for n of N rows holding the word. The
// logarithm is SQLite's own: the C library modernc's SQLite runs on
// differs from math.Log in the last bit for about one number in twenty,
// and scores must be bm25()'s to the bit for the order to be.
func (x *textIndex) idfs(ctx context.Context, lists []*postings, rows int64) error {
	var b strings.Builder
	args := make([]any, len(lists))
	for i, l := range lists {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString("ln(?)")
		args[i] = (float64(rows-l.hits) + 0.5) / (float64(l.hits) + 0.5)
	}
	rows2, err := x.db.QueryContext(ctx, "SELECT "+b.String(), args...)
	if err != nil {
		return err
	}
	defer rows2.Close()
	logs := make([]float64, len(lists))
	ptrs := make([]any, len(lists))
	for i := range logs {
		ptrs[i] = &logs[i]
	}
	if !rows2.Next() {
		return errors.Join(rows2.Err(), errFTSFormat)
	}
	if err := rows2.Scan(ptrs...); err != nil {
		return err
	}
	for i, l := range lists {
		l.idf = logs[i]
		if l.idf <= 0 {
			l.idf = 1e-6
		}
	}
	return rows2.Close()
}

// docSizes returns the lengths of the rows at version v, read again when
// the index changed since they were.
func (x *textIndex) docSizes(ctx context.Context, v ftsVersion) (*docSizes, error) {
	x.mu.Lock()
	defer x.mu.Unlock()
	if x.sizes != nil && x.sizes.version.same(v) {
		return x.sizes, nil
	}
	ids, lengths, err := ftsDocSizes(ctx, x.db, x.table)
	if err != nil {
		return nil, err
	}
	after, err := readFTSVersion(ctx, x.db, x.table)
	if err != nil {
		return nil, err
	}
	if !after.same(v) || int64(len(ids)) != v.rows {
		return nil, errIndexChanged
	}
	s := &docSizes{version: v, ids: ids, lengths: lengths}
	if n := len(ids); n > 0 && ids[0] >= 0 && ids[n-1] < int64(8*n+1<<16) {
		s.slot = make([]int32, ids[n-1]+1)
		for i := range s.slot {
			s.slot[i] = -1
		}
		for i, id := range ids {
			s.slot[id] = int32(i)
		}
	}
	x.sizes = s
	return s, nil
}

// vaults returns the vault id of each row of sizes, by position, reading
// them the first time.
func (x *textIndex) vaults(ctx context.Context, sizes *docSizes) ([]int64, error) {
	x.mu.Lock()
	defer x.mu.Unlock()
	if sizes.vault != nil {
		return sizes.vault, nil
	}
	rows, err := x.db.QueryContext(ctx, `SELECT id, vault_id FROM files WHERE kind = 'note' ORDER BY id`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	vault := make([]int64, len(sizes.ids))
	for rows.Next() {
		var id, v int64
		if err := rows.Scan(&id, &v); err != nil {
			return nil, err
		}
		if at := sizes.position(id); at >= 0 {
			vault[at] = v
		}
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	sizes.vault = vault
	return vault, nil
}

// notes is how many rows the index holds.
func (s *postingSet) notes() int64 { return s.sizes.version.rows }

// holding is how many notes hold word, which must have been read.
func (s *postingSet) holding(word string) int64 { return s.lists[word].hits }

// goRank is one ranking in Go: the words of a query, in its order (a
// word may come twice, and counts twice, as in FTS5), each with the
// weight its score is multiplied by (nil: 1 for every word).
type goRank struct {
	words   []string
	weights []float64
	all     bool // only notes holding every word
	keep    func(int64) bool
	limit   int
	skip    map[int64]bool
	// vaults, when set, keeps the notes of those vaults, vault giving
	// each row's vault by position.
	vaults map[int64]bool
	vault  []int64
}

// rank scores every note holding a word of r (every word when r.all) by
// the weighted sum over the words of bm25() of that word alone, which for
// weights of 1 is bm25() of the query, and returns the best r.limit,
// best first, ties by rowid; notes in r.skip or failing r.keep are left
// out.
func (s *postingSet) rank(r goRank) []keywordHit {
	sz := s.sizes
	avgdl := float64(sz.version.tokens) / float64(s.notes())
	// score and count are zero but where touched says, and are left so.
	score, count, touched := s.mem.score, s.mem.count, s.mem.touched[:0]
	for i, w := range r.words {
		list := s.lists[w]
		idf := list.idf
		weight := 1.0
		if r.weights != nil {
			weight = r.weights[i]
		}
		for j, at := range list.at {
			d := float64(sz.lengths[at])
			f := list.freq[j]
			// Each product converted on its own, so that no compiler fuses
			// a multiplication and an addition: the C code rounds each.
			norm := float64(1-bm25B) + float64(bm25B*d)/avgdl
			term := idf * (float64(f*(bm25K1+1.0)) / (f + float64(bm25K1*norm)))
			if r.weights != nil {
				term = weight * -term
				score[at] -= term
			} else {
				score[at] += term
			}
			if count[at] == 0 {
				touched = append(touched, at)
			}
			count[at]++
		}
	}
	need := uint16(1)
	if r.all {
		need = uint16(len(r.words))
	}
	best := topHits{limit: r.limit}
	for _, at := range touched {
		c, sc := count[at], score[at]
		score[at], count[at] = 0, 0
		if c < need {
			continue
		}
		id := sz.ids[at]
		if r.skip[id] || r.keep != nil && !r.keep(id) || r.vaults != nil && !r.vaults[r.vault[at]] {
			continue
		}
		best.offer(id, sc)
	}
	s.mem.touched = touched[:0]
	return best.sorted()
}

// topHits keeps the limit best of the notes offered: highest score, then
// lowest rowid, as ORDER BY score, rowid over bm25()'s negated scores.
type topHits struct {
	limit int
	heap  []keywordHit // the worst kept first
}

// worse reports whether a ranks below b.
func worse(a, b keywordHit) bool {
	if a.res.Score != b.res.Score {
		return a.res.Score < b.res.Score
	}
	return a.id > b.id
}

func (t *topHits) offer(id int64, score float64) {
	h := keywordHit{id: id, res: notes.Result{Score: score, Line: 1}}
	if t.limit <= 0 {
		return
	}
	if len(t.heap) < t.limit {
		t.heap = append(t.heap, h)
		for i := len(t.heap) - 1; i > 0; {
			parent := (i - 1) / 2
			if !worse(t.heap[i], t.heap[parent]) {
				break
			}
			t.heap[i], t.heap[parent] = t.heap[parent], t.heap[i]
			i = parent
		}
		return
	}
	if !worse(t.heap[0], h) {
		return
	}
	t.heap[0] = h
	for i := 0; ; {
		low, l, r := i, 2*i+1, 2*i+2
		if l < len(t.heap) && worse(t.heap[l], t.heap[low]) {
			low = l
		}
		if r < len(t.heap) && worse(t.heap[r], t.heap[low]) {
			low = r
		}
		if low == i {
			break
		}
		t.heap[i], t.heap[low] = t.heap[low], t.heap[i]
		i = low
	}
}

// sorted returns the hits kept, best first.
func (t *topHits) sorted() []keywordHit {
	out := slices.Clone(t.heap)
	slices.SortFunc(out, func(a, b keywordHit) int {
		switch {
		case worse(b, a):
			return -1
		case worse(a, b):
			return 1
		}
		return 0
	})
	return out
}

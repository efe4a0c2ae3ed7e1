package fulltext

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/jarvis-mcp/jarvis/internal/search/notes"
)

// FTS5 keeps its index in ordinary tables beside the virtual table
// (note_fts_data, note_fts_idx, note_fts_docsize), in a format its source
// documents (ext/fts5/fts5_index.c, "Details") and has kept stable since
// 2015: it reads every version of it back. This file reads that format,
// for ranking in Go (bm25.go): through the virtual table, modernc's SQLite
// spends about 2 µs per matching note on bm25() alone, so that a word in
// most of a 100k-note vault costs a search 100 ms; the same postings read
// here cost a few.
//
// What is read, and how:
//
//   - The structure record (rowid 10 of %_data): the segments of the
//     index, oldest first. Every write changes it (a write adds a segment
//     or merges some), so it and the averages record together name a
//     version of the index (ftsVersion).
//   - The averages record (rowid 1): the number of rows and each column's
//     total of tokens, which give BM25 its average length.
//   - A term's doclist in each segment: %_idx gives the leaf page where
//     the term may start and the one where the next term does, and those
//     leaves are read in order (every term's and segment's in one
//     statement) until its doclist ends. A doclist is a run of rowids
//     (deltas) each with its positions, by column; an entry with no
//     positions is a delete marker. A later segment's entry for a rowid
//     replaces an earlier one's.
//   - %_docsize: each row's token count by column.
//
// Anything unexpected (a newer structure format, a page that does not
// parse) is errFTSFormat, and the caller ranks through FTS5 instead.

// errFTSFormat means FTS5's data is not in the format this file reads.
var errFTSFormat = errors.New("full-text index data in an unknown format")

const (
	ftsAveragesRowid  = 1
	ftsStructureRowid = 10
	// ftsPageShift places a segment's id above its page numbers in the
	// rowids of %_data (FTS5_SEGMENT_ROWID: 31 bits of page, 5 of height,
	// 1 for doclist indexes).
	ftsPageShift = 31 + 5 + 1
	// ftsMainPrefix starts every term of the main index, as against a
	// prefix index.
	ftsMainPrefix = '0'
	// ftsMaxColumns bounds the columns read: a column number takes one
	// byte below it.
	ftsMaxColumns = 128
)

// ftsSegment is one segment of an FTS5 index: its id and its leaf pages.
type ftsSegment struct {
	id          int64
	first, last int64
}

// ftsVersion is one state of an FTS5 table's index, as its structure and
// averages records describe it.
type ftsVersion struct {
	structure, averages []byte
	segments            []ftsSegment // oldest first
	rows                int64        // rows in the table
	tokens              int64        // tokens in all columns of all rows
}

// same reports whether v and w are the same state of the index.
func (v ftsVersion) same(w ftsVersion) bool {
	return bytes.Equal(v.structure, w.structure) && bytes.Equal(v.averages, w.averages)
}

// readFTSVersion reads the structure and averages records of table.
func readFTSVersion(ctx context.Context, db notes.Querier, table string) (ftsVersion, error) {
	var v ftsVersion
	rows, err := db.QueryContext(ctx, `SELECT id, block FROM `+table+`_data WHERE id IN (?, ?)`, ftsAveragesRowid, ftsStructureRowid)
	if err != nil {
		return v, err
	}
	defer rows.Close()
	for rows.Next() {
		var id int64
		var block []byte
		if err := rows.Scan(&id, &block); err != nil {
			return v, err
		}
		if id == ftsAveragesRowid {
			v.averages = block
		} else {
			v.structure = block
		}
	}
	if err := rows.Err(); err != nil {
		return v, err
	}
	if v.segments, err = parseFTSStructure(v.structure); err != nil {
		return v, err
	}
	if len(v.averages) > 0 { // absent while the table is empty
		r := ftsBytes{b: v.averages}
		v.rows = int64(r.varint())
		for r.more() {
			v.tokens += int64(r.varint())
		}
		if r.bad {
			return v, errFTSFormat
		}
	}
	return v, nil
}

// parseFTSStructure lists the segments of a structure record, oldest
// first: the highest level first, and within a level in the record's own
// order, oldest to newest.
func parseFTSStructure(b []byte) ([]ftsSegment, error) {
	if len(b) < 4 {
		return nil, errFTSFormat
	}
	r := ftsBytes{b: b[4:]} // after the configuration cookie
	if len(r.b) > 0 && r.b[0] == 0xff {
		// The V2 record of contentless_delete tables, whose segments carry
		// tombstones this file does not read.
		return nil, errFTSFormat
	}
	levels := r.varint()
	r.varint()                              // total segments
	r.varint()                              // write counter
	if r.bad || levels > uint64(len(r.b)) { // each level takes two bytes at least
		return nil, errFTSFormat
	}
	byLevel := make([][]ftsSegment, levels)
	for l := range int(levels) {
		r.varint() // segments under an incremental merge
		n := int(r.varint())
		if r.bad || n > len(r.b) {
			return nil, errFTSFormat
		}
		for range n {
			s := ftsSegment{id: int64(r.varint()), first: int64(r.varint()), last: int64(r.varint())}
			if s.first > 0 { // 0: every leaf already merged away
				byLevel[l] = append(byLevel[l], s)
			}
		}
	}
	if r.bad {
		return nil, errFTSFormat
	}
	var out []ftsSegment
	for l := int(levels) - 1; l >= 0; l-- {
		out = append(out, byLevel[l]...)
	}
	return out, nil
}

// ftsBytes reads the varints of an FTS5 record, noting a read past its end.
type ftsBytes struct {
	b   []byte
	bad bool
}

func (r *ftsBytes) more() bool { return len(r.b) > 0 }

// varint reads an SQLite varint: big-endian groups of 7 bits, the high
// bit set on every byte but the last, the ninth byte whole.
func (r *ftsBytes) varint() uint64 {
	v, n := sqliteVarint(r.b)
	if n == 0 {
		r.bad = true
		r.b = nil
		return 0
	}
	r.b = r.b[n:]
	return v
}

// sqliteVarint decodes the varint at the start of b and returns it and its
// length, 0 when b ends first.
func sqliteVarint(b []byte) (uint64, int) {
	var v uint64
	for i := 0; i < len(b); i++ {
		c := b[i]
		if i == 8 {
			return v<<8 | uint64(c), 9
		}
		v = v<<7 | uint64(c&0x7f)
		if c < 0x80 {
			return v, i + 1
		}
	}
	return 0, 0
}

// ftsDoclists reads the doclists of terms (as the index holds them, such
// as "review" for "reviewing") in every segment of version v, into sink:
// term by term in the order order gives (indexes into terms, from a bound
// on the leaves each term's doclist takes), the newest segment first, every
// entry, and for those the sink wants, the term's frequency in the row,
// each occurrence counted by its column's weight in weights (1 past them,
// as in bm25()). A rowid can come in several segments, and its first
// entry is the one in force. Two queries read everything, so that SQLite
// prepares two statements, not two for every term and segment.
func ftsDoclists(ctx context.Context, db notes.Querier, table string, v ftsVersion, terms []string, order func(leaves []int64) []int,
	weights []float64, sink *postingReader) error {
	spans, err := termSpans(ctx, db, table, v.segments, terms)
	if err != nil {
		return err
	}
	leaves := make([]int64, len(terms))
	byTerm := make([][]termSpan, len(terms))
	for _, sp := range spans {
		leaves[sp.term] += sp.last - sp.first + 1
		byTerm[sp.term] = append(byTerm[sp.term], sp)
	}
	spans = spans[:0]
	for _, t := range order(leaves) {
		spans = append(spans, byTerm[t]...)
	}
	w := doclistWalker{sink: sink}
	copy(w.weights[:], weights)
	for i := len(weights); i < len(w.weights); i++ {
		w.weights[i] = 1
	}
	return readSpans(ctx, db, table, spans, &w)
}

// termSpan is where a term's doclist can be in one segment: the leaves
// from where the term may start to where the next term of %_idx does.
type termSpan struct {
	term        int
	key         []byte
	seg         ftsSegment
	first, last int64
}

// termSpans lists the spans of terms, term by term, in each segment newest
// first. %_idx holds the first term (or enough of it) of every leaf where
// a term starts: a term starts on the last leaf whose entry sorts at or
// before it, if anywhere, and its doclist ends before or on the leaf of
// the next entry. (Its low bit says whether a doclist index follows.) The
// spans come from one statement whatever their number, the segments and
// terms passed as JSON: SQLite prepares a statement on every query, and
// preparing one of a part per span took longer than running it.
func termSpans(ctx context.Context, db notes.Querier, table string, segs []ftsSegment, terms []string) ([]termSpan, error) {
	var spans []termSpan
	var js strings.Builder
	js.WriteByte('[')
	for t, term := range terms {
		key := []byte(string(rune(ftsMainPrefix)) + term)
		for i := len(segs) - 1; i >= 0; i-- {
			if len(spans) > 0 {
				js.WriteByte(',')
			}
			k, err := json.Marshal(string(key))
			if err != nil {
				return nil, err
			}
			fmt.Fprintf(&js, "[%d,%s]", segs[i].id, k)
			spans = append(spans, termSpan{term: t, key: key, seg: segs[i], first: segs[i].first, last: segs[i].last})
		}
	}
	js.WriteByte(']')
	if len(spans) == 0 {
		return nil, nil
	}
	rows, err := db.QueryContext(ctx, `SELECT j.key,
			(SELECT pgno FROM `+table+`_idx WHERE segid = j.value ->> 0 AND term <= CAST(j.value ->> 1 AS BLOB) ORDER BY term DESC LIMIT 1),
			(SELECT pgno FROM `+table+`_idx WHERE segid = j.value ->> 0 AND term > CAST(j.value ->> 1 AS BLOB) ORDER BY term LIMIT 1)
		FROM json_each(?) j`, js.String())
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		var i int
		var from, to sql.NullInt64
		if err := rows.Scan(&i, &from, &to); err != nil {
			return nil, err
		}
		if i < 0 || i >= len(spans) {
			return nil, errFTSFormat
		}
		sp := &spans[i]
		if from.Valid {
			sp.first = max(sp.first, from.Int64>>1)
		}
		if to.Valid {
			sp.last = min(sp.last, to.Int64>>1)
		}
	}
	return spans, rows.Err()
}

// readSpans reads the leaves of spans in one statement, in the spans'
// order, and walks each span's doclist.
func readSpans(ctx context.Context, db notes.Querier, table string, spans []termSpan, w *doclistWalker) error {
	var js strings.Builder
	js.WriteByte('[')
	for i, sp := range spans {
		if i > 0 {
			js.WriteByte(',')
		}
		fmt.Fprintf(&js, "[%d,%d]", sp.seg.id<<ftsPageShift+sp.first, sp.seg.id<<ftsPageShift+sp.last)
	}
	js.WriteByte(']')
	// CROSS JOIN keeps the spans the outer loop, so rows come span by
	// span, each in rowid order; the loop below checks that they do.
	rows, err := db.QueryContext(ctx, `SELECT j.key, d.id, d.block FROM json_each(?) j CROSS JOIN `+table+`_data d
		WHERE d.id BETWEEN j.value ->> 0 AND j.value ->> 1`, js.String())
	if err != nil {
		return err
	}
	defer rows.Close()
	cur, done := -1, false
	var last int64 // the rowid of the page read last
	for rows.Next() {
		var i int
		var id int64
		var page sql.RawBytes
		if err := rows.Scan(&i, &id, &page); err != nil {
			return err
		}
		switch {
		case i < cur || i >= len(spans) || i == cur && id != last+1:
			return errFTSFormat // not the leaves asked for, in order
		case i > cur:
			w.start(spans[i].key)
			w.raw = w.sink.setTerm(spans[i].term)
			cur, done = i, w.sink.enough // a term counted far enough in a newer segment
		}
		last = id
		if done {
			continue // past the end of the doclist
		}
		if done, err = w.page(page); err != nil {
			return err
		}
	}
	return rows.Err()
}

// doclistWalker reads one term's doclist in one segment from consecutive
// leaf pages, as fts5SegIterNext walks it.
type doclistWalker struct {
	weights [ftsMaxColumns]float64
	sink    *postingReader

	key     []byte
	err     error
	started bool  // the first page (where the term is looked for) is read
	rowid   int64 // the last rowid read
	// rowidNext: the term is the last thing on its page, and its first
	// rowid starts the next.
	rowidNext bool
	// Of a position list that goes on past the page read: the bytes still
	// to come, and whether the sink wants them.
	rest    int
	skip    bool
	raw     bool    // the sink takes the position lists as they are
	freq    float64 // of the entry being read
	col     int     // the column the position list is in
	colNext bool    // the next byte is a column number
}

// start makes the walker ready for the doclist of key in another segment.
// The sink then says whether it takes the position lists as they are.
func (w *doclistWalker) start(key []byte) {
	weights, sink := w.weights, w.sink
	*w = doclistWalker{weights: weights, sink: sink, key: key}
}

// page reads the next leaf page and reports whether the doclist ended.
func (w *doclistWalker) page(p []byte) (bool, error) {
	if len(p) < 4 {
		return true, errFTSFormat
	}
	firstRowid := int(binary.BigEndian.Uint16(p[0:2]))
	szLeaf := int(binary.BigEndian.Uint16(p[2:4]))
	if szLeaf > len(p) || szLeaf < 4 {
		return true, errFTSFormat
	}
	hasTerms := szLeaf < len(p)
	end := szLeaf + 1 // where the doclist ends on this page: past it
	if hasTerms {
		footer := ftsBytes{b: p[szLeaf:]}
		end = int(footer.varint()) // the first term's offset
		if footer.bad {
			return true, errFTSFormat
		}
	}
	if !w.started {
		w.started = true
		return w.seek(p, szLeaf)
	}
	if w.rowidNext {
		w.rowidNext = false
		firstRowid = 4
	}
	if w.rest > 0 {
		n := min(w.rest, szLeaf-4)
		if !w.skip {
			w.positions(p[4 : 4+n])
		}
		w.rest -= n
		if w.rest > 0 || w.err != nil {
			return w.err != nil, w.err
		}
		if !w.skip {
			w.sink.frequency(w.freq)
		}
	}
	if firstRowid == 0 || firstRowid >= szLeaf {
		// A page with no rowid: the doclist ended where a term starts,
		// and a page of neither is passed over, as FTS5 does.
		return hasTerms, nil
	}
	v, n := sqliteVarint(p[firstRowid:szLeaf])
	if n == 0 {
		return true, errFTSFormat
	}
	w.rowid = int64(v)
	return w.entries(p, firstRowid+n, szLeaf, end)
}

// seek finds the term on the first page read and reads its doclist there.
func (w *doclistWalker) seek(p []byte, szLeaf int) (bool, error) {
	footer := ftsBytes{b: p[szLeaf:]} // term offsets, delta-encoded
	var term []byte
	termOff := 0
	for i := 0; footer.more(); i++ {
		termOff += int(footer.varint())
		if footer.bad || termOff >= szLeaf {
			return true, errFTSFormat
		}
		r := ftsBytes{b: p[termOff:szLeaf]}
		keep := 0
		if i > 0 {
			keep = int(r.varint())
		}
		n := int(r.varint())
		if r.bad || keep > len(term) || n > len(r.b) {
			return true, errFTSFormat
		}
		term = append(term[:keep], r.b[:n]...)
		switch c := bytes.Compare(term, w.key); {
		case c < 0:
			continue
		case c > 0:
			return true, nil
		}
		start := szLeaf - len(r.b) + n
		end := szLeaf + 1 // the doclist runs past the page
		if footer.more() {
			end = termOff + int(footer.varint())
		}
		if start >= szLeaf {
			w.rowidNext = true
			return false, nil
		}
		v, vn := sqliteVarint(p[start:szLeaf])
		if vn == 0 {
			return true, errFTSFormat
		}
		w.rowid = int64(v)
		return w.entries(p, start+vn, szLeaf, end)
	}
	return true, nil // every term on the page sorts before key
}

// entries reads doclist entries from off, just past a rowid, until the
// doclist ends at end (a term's offset, or past the page) or the page
// does.
func (w *doclistWalker) entries(p []byte, off, szLeaf, end int) (bool, error) {
	for {
		if off >= szLeaf {
			return true, errFTSFormat
		}
		// The position list of the rowid just read.
		var size int
		if c := p[off]; c < 0x80 { // nearly always
			size = int(c >> 1)
			off++
		} else {
			v, n := sqliteVarint(p[off:szLeaf])
			if n == 0 {
				return true, errFTSFormat
			}
			off += n
			size = int(v >> 1)
		}
		take := min(size, szLeaf-off)
		if w.skip = !w.sink.entry(w.rowid, size == 0); w.skip {
			if w.sink.enough {
				return true, nil
			}
			off += take
		} else {
			w.freq, w.col, w.colNext = 0, 0, false
			w.positions(p[off : off+take])
			if w.err != nil {
				return true, w.err
			}
			off += take
			if take == size {
				w.sink.frequency(w.freq)
			}
		}
		if take < size {
			w.rest = size - take
			return false, nil
		}
		if off >= szLeaf {
			return false, nil // the next rowid, if any, starts the next page
		}
		if off >= end {
			return true, nil // a new term
		}
		if c := p[off]; c < 0x80 && c > 0 {
			w.rowid += int64(c)
			off++
			continue
		}
		d, dn := sqliteVarint(p[off:szLeaf])
		if dn == 0 || d == 0 {
			return true, errFTSFormat
		}
		off += dn
		w.rowid += int64(d)
	}
}

// positions adds the occurrences in a piece of a position list to the
// frequency of the entry being read, or hands the piece to a sink that
// takes the lists as they are. Each position is a varint of at least
// 2, and the byte 1 starting a varint is followed by the number of the
// column the next ones are in; so the occurrences in a column are the
// bytes that end a varint (the high bit clear), counted without decoding
// the positions. A list is cut across pages between two varints only, so
// a piece can end between a column's byte 1 and its number.
func (w *doclistWalker) positions(b []byte) {
	if w.raw {
		w.sink.positions(b)
		return
	}
	freq, col := w.freq, w.col
	if w.colNext && len(b) > 0 {
		col, b = int(b[0]), b[1:]
		w.colNext = false
	}
	if col >= ftsMaxColumns {
		w.err = errFTSFormat
		return
	}
	weight := w.weights[col]
	start := true // b[i] starts a varint
	for i := 0; i < len(b); i++ {
		c := b[i]
		switch {
		case c >= 0x80:
			start = false
			continue
		case c == 1 && start: // a column follows
			if i++; i == len(b) {
				w.freq, w.col, w.colNext = freq, col, true
				return
			}
			if col = int(b[i]); col >= ftsMaxColumns {
				w.err = errFTSFormat
				return
			}
			weight = w.weights[col]
			continue
		}
		// Added one by one, as bm25() adds an instance's weight.
		freq += weight
		start = true
	}
	w.freq, w.col = freq, col
}

// decodePositions appends the occurrences of a position list to dst, each
// as its column and offset in one number (column << 32 | offset), in the
// list's order: by column, then offset.
func decodePositions(b []byte, dst []uint64) ([]uint64, error) {
	var col, pos uint64
	for len(b) > 0 {
		v, n := sqliteVarint(b)
		if n == 0 {
			return dst, errFTSFormat
		}
		b = b[n:]
		if v == 1 { // a column follows
			if col, n = sqliteVarint(b); n == 0 {
				return dst, errFTSFormat
			}
			b, pos = b[n:], 0
			continue
		}
		pos += v - 2
		dst = append(dst, col<<32|pos)
	}
	return dst, nil
}

// ftsDocSizes reads every row's length in tokens, all columns together,
// from %_docsize: rowids in order and their lengths.
func ftsDocSizes(ctx context.Context, db notes.Querier, table string) ([]int64, []uint32, error) {
	rows, err := db.QueryContext(ctx, `SELECT id, sz FROM `+table+`_docsize ORDER BY id`)
	if err != nil {
		return nil, nil, err
	}
	defer rows.Close()
	var ids []int64
	var sizes []uint32
	for rows.Next() {
		var id int64
		var sz sql.RawBytes
		if err := rows.Scan(&id, &sz); err != nil {
			return nil, nil, err
		}
		r := ftsBytes{b: sz}
		var n uint64
		for r.more() {
			n += r.varint()
		}
		if r.bad {
			return nil, nil, errFTSFormat
		}
		ids = append(ids, id)
		sizes = append(sizes, uint32(n))
	}
	return ids, sizes, rows.Err()
}

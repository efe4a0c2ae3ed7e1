// Package fulltext is keyword search: SQLite FTS5 over the note and name
// tables the indexer keeps, ranked by BM25 computed in Go over FTS5's own
// records, with the query grammar, stemming, symbol search, pseudo-relevance
// feedback and snippets it uses.
package fulltext

import (
	"context"
	"database/sql"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/jarvis-mcp/jarvis/internal/search/notes"
	"github.com/jarvis-mcp/jarvis/internal/store"
	"github.com/jarvis-mcp/jarvis/internal/vault"
)

// KeywordWeights weigh a match in each field of a note against a match in
// its text, in FTS5's BM25. Names say best what a note is about; a heading
// names a section; path and tags classify; anchors, the words other notes
// link to it with and the lines around those links, describe it much as
// its own text does.
type KeywordWeights struct {
	Title, Aliases, Headings, Body, Path, Tags, Anchors float64
}

// DefaultKeywordWeights are the weights keyword search uses unless told
// otherwise: the best nDCG@10 on Cranfield (title against body) among the
// weights that keep named notes first on the Obsidian Help vault.
var DefaultKeywordWeights = KeywordWeights{Title: 8, Aliases: 8, Headings: 3, Body: 1, Path: 2, Tags: 2, Anchors: 1}

// Keyword finds notes by their words, with SQLite FTS5 over the note and
// name tables the indexer keeps (migrations/0003_fts.sql). It is safe for
// concurrent use.
type Keyword struct {
	db notes.Querier
	// Weights are the BM25 field weights; DefaultKeywordWeights when built
	// with NewKeyword.
	Weights KeywordWeights
	// Feedback is the pseudo-relevance feedback loose queries get
	// (feedback.go); DefaultFeedback when built with NewKeyword.
	Feedback Feedback

	text *textIndex // ranking in Go over note_fts's data (bm25.go)
}

// NewKeyword returns keyword search over db.
func NewKeyword(db notes.Querier) *Keyword {
	return &Keyword{db: db, Weights: DefaultKeywordWeights, Feedback: DefaultFeedback,
		text: &textIndex{db: db, table: "note_fts"}}
}

// KeywordQuery is one keyword search. The query grammar, and which words
// must match, are described in query.go: any text is a valid query.
type KeywordQuery struct {
	Text   string
	Filter notes.Filter
	// Limit is the most notes returned: DefaultLimit when 0. It is not capped: the Service applies MaxLimit,
	// and asks for one more to tell whether more matched.
	Limit int
	// NamesOnly matches note titles, aliases and paths, not their text.
	NamesOnly bool
	// Bare ranks without reading passages: each result's snippet is its
	// title and its line 1, until Passages fills them in. Combined search
	// ranks many candidates and shows few.
	Bare bool
}

// DefaultLimit is keyword search's default limit: a lookup by name or by
// a phrase is read down a list, and each result is little to show.
const DefaultLimit = 20

// snippetTokens is how many words a snippet holds (FTS5's limit is 64).
const snippetTokens = 24

// Search runs q. It returns notes.ErrEmptyQuery when the text is blank, and no
// results (and no error) when the text holds nothing to search for, such
// as "*"; a query of emoji or other symbols only looks for them verbatim. Results are one per note, best first. Each holds the
// passage with most of the query's words (chosen as FTS5's snippet() would) as its snippet, the
// heading path of the chunk it is in, and as its line the line of the
// first matched word, where a reader would start; a note that matched by
// name only gets its title as snippet and its first chunk.
func (k *Keyword) Search(ctx context.Context, q KeywordQuery) ([]notes.Result, error) {
	if strings.TrimSpace(q.Text) == "" {
		return nil, notes.ErrEmptyQuery
	}
	limit := q.Limit
	if limit <= 0 {
		limit = DefaultLimit
	}
	f, err := q.Filter.Resolve(ctx, k.db)
	if err != nil {
		return nil, err
	}
	if f.MatchesNothing() {
		return []notes.Result{}, nil
	}
	q.Filter = f
	pq := parseQuery(q.Text)
	if len(pq.terms) == 0 {
		if len(pq.symbols) == 0 {
			return []notes.Result{}, nil
		}
		res, err := k.searchSymbols(ctx, pq.symbols, q.Filter, q.NamesOnly, limit)
		if err != nil {
			return nil, fmt.Errorf("keyword search: %w", err)
		}
		return res, nil
	}
	var res []notes.Result
	if q.NamesOnly {
		res, err = k.searchNames(ctx, q.Text, pq, q.Filter, limit)
	} else {
		res, err = k.searchText(ctx, q.Text, pq, q.Filter, limit, q.Bare)
	}
	if err != nil {
		return nil, fmt.Errorf("keyword search: %w", err)
	}
	return res, nil
}

// keywordHit is a note found, before its passage is read.
type keywordHit struct {
	id      int64 // the note's file id, the rowid of its full-text rows
	aliases string
	res     notes.Result
}

// searchText searches the names, headings and text of notes: note_fts, or
// note_cjk for a query with Chinese or Japanese.
func (k *Keyword) searchText(ctx context.Context, q string, pq parsedQuery, f notes.Filter, limit int, bare bool) ([]notes.Result, error) {
	table := "note_fts"
	if pq.cjk {
		table = "note_cjk"
	}
	pq, err := k.wholeWord(ctx, table, pq, limit)
	if err != nil {
		return nil, err
	}
	r := k.ranking(table, f)
	defer r.close()
	loose := pq.anyExpr()
	expr := loose
	if pq.strict() {
		expr = pq.allExpr()
	}
	first, marked := limit, pq
	expand := k.expands(pq, table)
	if expand {
		first = max(limit, k.Feedback.Docs)
	}
	hits, err := r.rank(ctx, expr, first, nil)
	if err != nil {
		return nil, err
	}
	if expand {
		if hits, marked, err = k.feedback(ctx, r, pq, limit, hits); err != nil {
			return nil, err
		}
	}
	if len(hits) < limit && expr.all {
		seen := map[int64]bool{}
		for _, h := range hits {
			seen[h.id] = true
		}
		more, err := r.rank(ctx, loose, limit-len(hits), seen)
		if err != nil {
			return nil, err
		}
		hits = append(hits, more...)
	}
	if err := k.describe(ctx, hits); err != nil {
		return nil, err
	}
	exactNamesFirst(q, hits)
	if bare {
		for i := range hits {
			hits[i].res.Snippet = hits[i].res.Title
		}
		return results(hits), nil
	}
	if err := k.notePassages(ctx, marked, hits); err != nil {
		return nil, err
	}
	return k.withHeadings(ctx, hits)
}

// notePassages sets each hit's snippet and line from its best passage.
func (k *Keyword) notePassages(ctx context.Context, pq parsedQuery, hits []keywordHit) error {
	if pq.cjk {
		return k.cjkPassages(ctx, pq, hits)
	}
	return k.passages(ctx, pq, hits)
}

// Passages reads the best passage for text of each result a Bare search
// returned, and sets its snippet, line and heading path, as a search that
// was not bare would have. Results that did not come from this index are
// left as they are.
func (k *Keyword) Passages(ctx context.Context, text string, rs []notes.Result) error {
	pq := parseQuery(text)
	if len(pq.terms) == 0 || len(rs) == 0 {
		return nil
	}
	var hits []keywordHit
	var at []int // the index in rs of each hit
	for i, r := range rs {
		if r.File != 0 {
			hits = append(hits, keywordHit{id: r.File, res: r})
			at = append(at, i)
		}
	}
	if err := k.notePassages(ctx, pq, hits); err != nil {
		return fmt.Errorf("keyword passages: %w", err)
	}
	filled, err := k.withHeadings(ctx, hits)
	if err != nil {
		return fmt.Errorf("keyword passages: %w", err)
	}
	for j, i := range at {
		rs[i].Snippet, rs[i].Line, rs[i].End = filled[j].Snippet, filled[j].Line, filled[j].End
		rs[i].Heading, rs[i].Then = filled[j].Heading, filled[j].Then
	}
	return nil
}

// wholeWord drops the prefix match of pq's last word when the word on its
// own matches at least limit notes of table: counting stops there, so the
// check costs a few dozen microseconds however common the word is.
func (k *Keyword) wholeWord(ctx context.Context, table string, pq parsedQuery, limit int) (parsedQuery, error) {
	w := pq.prefixWord()
	if w == "" {
		return pq, nil
	}
	var n int
	err := store.QueryRow(ctx, k.db, `SELECT count(*) FROM (SELECT 1 FROM `+table+` WHERE `+table+` MATCH ? LIMIT ?)`,
		[]any{ftsString(w), limit}, &n)
	if err != nil {
		return pq, err
	}
	if n >= limit {
		return pq.withoutPrefix(), nil
	}
	return pq, nil
}

// withHeadings returns the hits as results, each with the heading path in
// force at its line.
func (k *Keyword) withHeadings(ctx context.Context, hits []keywordHit) ([]notes.Result, error) {
	res := results(hits)
	files := make([]int64, len(hits))
	for i, h := range hits {
		files[i] = h.id
	}
	if err := notes.HeadingsAbove(ctx, k.db, files, res); err != nil {
		return nil, err
	}
	return res, nil
}

// ranking ranks the notes of one search: in Go over FTS5's own data when
// its words are plain (bm25.go), else with FTS5's bm25(). The postings read in Go are kept for
// the search's later rankings (the notes matching any word, feedback).
type ranking struct {
	k       *Keyword
	table   string
	weights string // bm25()'s arguments
	f       notes.Filter
	set     *postingSet // nil until read
	inGo    bool        // Go ranking applies and has not failed
}

// ranking starts the ranking of a search of table with the resolved
// filter f.
func (k *Keyword) ranking(table string, f notes.Filter) *ranking {
	r := &ranking{k: k, table: table, f: f, weights: k.textWeights()}
	if table == "note_cjk" {
		r.weights = k.cjkWeights()
	}
	r.inGo = k.text != nil && table == k.text.table && f.Listed()
	return r
}

// close ends the search's use of the memory it ranked in.
func (r *ranking) close() { r.set.release() }

// rank returns the best limit notes matching e, skipping those in skip.
func (r *ranking) rank(ctx context.Context, e rankExpr, limit int, skip map[int64]bool) ([]keywordHit, error) {
	if e.words != nil && r.inGo {
		hits, err := r.rankInGo(ctx, goRank{words: e.words, all: e.all, limit: limit, skip: skip})
		if !toFTS5(err) {
			return hits, err
		}
	}
	return r.k.rank(ctx, r.table, r.weights, e.match(), r.f, limit, skip)
}

// rankInGo ranks g in Go, reading the postings of its words it lacks. It
// returns errFTSFormat or errIndexChanged when FTS5 must rank instead, and
// from then on the search asks FTS5.
func (r *ranking) rankInGo(ctx context.Context, g goRank) ([]keywordHit, error) {
	mode := readRows
	if g.all {
		mode = readAllWords
	}
	set, err := r.k.text.read(ctx, r.set, g.words, r.k.Weights.columns(), mode)
	if err != nil {
		if toFTS5(err) {
			r.inGo = false
		}
		return nil, err
	}
	r.set = set
	g.keep = r.f.Keep()
	if g.vaults = r.f.InVaults(); g.vaults != nil {
		if g.vault, err = r.k.text.vaults(ctx, set.sizes); err != nil {
			return nil, err
		}
	}
	return set.rank(g), nil
}

// rank runs one MATCH and returns the best notes, skipping those in skip.
// A filter is the set of notes it lets through, built once; "+rowid" keeps
// SQLite from looking each of them up in FTS5 instead of testing each
// matching row against the set.
func (k *Keyword) rank(ctx context.Context, table, weights, match string, f notes.Filter, limit int, skip map[int64]bool) ([]keywordHit, error) {
	where, args := f.NoteIDs()
	if where != "" {
		where = ` AND +m.rowid IN (` + where + `)`
	}
	query := `SELECT m.rowid, bm25(` + table + `, ` + weights + `) AS score FROM ` + table + ` m
		WHERE ` + table + ` MATCH ?` + where + ` ORDER BY score, m.rowid LIMIT ?`
	args = append([]any{match}, args...)
	args = append(args, limit+len(skip))
	return k.hits(ctx, query, args, limit, skip)
}

// hits runs a ranking query whose rows are a note's id and its bm25()
// score, and returns up to limit notes, skipping those in skip.
func (k *Keyword) hits(ctx context.Context, query string, args []any, limit int, skip map[int64]bool) ([]keywordHit, error) {
	rows, err := k.db.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var hits []keywordHit
	for rows.Next() {
		var h keywordHit
		var score float64
		if err := rows.Scan(&h.id, &score); err != nil {
			return nil, err
		}
		if skip[h.id] || len(hits) == limit {
			continue
		}
		h.res.Score = -score // FTS5's BM25 is negative, lower better
		h.res.Line = 1
		hits = append(hits, h)
	}
	return hits, rows.Err()
}

// describe fills in each hit's vault, path, title and aliases.
func (k *Keyword) describe(ctx context.Context, hits []keywordHit) error {
	if len(hits) == 0 {
		return nil
	}
	ids, byID := hitIDs(hits)
	rows, err := k.db.QueryContext(ctx, `SELECT f.id, v.name, f.path, f.title, coalesce(n.aliases, '')
		FROM files f JOIN vaults v ON v.id = f.vault_id LEFT JOIN search_notes n ON n.file_id = f.id
		WHERE f.id IN (`+store.Placeholders(len(ids))+`)`, ids...)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var id int64
		var r notes.Result
		var aliases string
		if err := rows.Scan(&id, &r.Vault, &r.Path, &r.Title, &aliases); err != nil {
			return err
		}
		h := byID[id]
		h.res.Vault, h.res.Path, h.res.Title, h.aliases, h.res.File = r.Vault, r.Path, r.Title, aliases, id
	}
	return rows.Err()
}

// passages sets each hit's snippet and line from its text: the passage
// holding most of the query's words (see snippet.go), marked where each
// term of a loose match of pq occurs. A note whose text holds none of them
// (it matched by name) gets its title, marked, as snippet when that holds
// one, else the start of its text, and its first chunk's line.
func (k *Keyword) passages(ctx context.Context, pq parsedQuery, hits []keywordHit) error {
	if len(hits) == 0 {
		return nil
	}
	m := newMarker(pq)
	ids, byID := hitIDs(hits)
	for _, h := range byID {
		h.res.Snippet, _ = m.marked(h.res.Title) // until a passage is found
	}
	headings, err := notes.ReadHeadings(ctx, k.db, ids)
	if err != nil {
		return err
	}
	return k.eachChunkList(ctx, ids, func(id int64, chunks []storedChunk) {
		h := byID[id]
		p := m.passageOf(WithinScan(chunks, func(c storedChunk) int { return len(c.text) }), headings[id])
		h.res.Line = p.line // its heading path is set by withHeadings
		if p.found || p.snippet != "" && !strings.Contains(h.res.Snippet, "**") {
			h.res.Snippet = p.snippet
		}
	})
}

// storedChunk is a chunk as passages need it.
type storedChunk struct {
	heading string
	line    int
	text    string
}

// eachChunkList reads the chunks of the notes ids, in order, and calls fn
// once per note that has any.
func (k *Keyword) eachChunkList(ctx context.Context, ids []any, fn func(id int64, chunks []storedChunk)) error {
	rows, err := k.db.QueryContext(ctx, `SELECT file_id, heading, start_line, text FROM chunks
		WHERE file_id IN (`+store.Placeholders(len(ids))+`) ORDER BY file_id, ord`, ids...)
	if err != nil {
		return err
	}
	defer rows.Close()
	var cur int64
	var chunks []storedChunk
	for rows.Next() {
		var id int64
		var c storedChunk
		if err := rows.Scan(&id, &c.heading, &c.line, &c.text); err != nil {
			return err
		}
		if id != cur && len(chunks) > 0 {
			fn(cur, chunks)
			chunks = nil
		}
		cur = id
		chunks = append(chunks, c)
	}
	if err := rows.Err(); err != nil {
		return err
	}
	if len(chunks) > 0 {
		fn(cur, chunks)
	}
	return nil
}

// cjkPassages picks each hit's passage for a Chinese or Japanese query:
// note_cjk holds rewritten text, so the chunk holding the query's words
// most often is found here, and its snippet made from its text.
func (k *Keyword) cjkPassages(ctx context.Context, pq parsedQuery, hits []keywordHit) error {
	if len(hits) == 0 {
		return nil
	}
	needles := pq.needles()
	ids, byID := hitIDs(hits)
	for _, h := range byID {
		h.res.Snippet = markedExcerpt(h.res.Title, needles, snippetRunes)
	}
	return k.eachChunkList(ctx, ids, func(id int64, chunks []storedChunk) {
		best, n := chunks[0], -1
		for _, c := range chunks {
			if m := len(findNeedles(oneLine(c.heading+"\n"+c.text), needles)); m > n {
				best, n = c, m
			}
		}
		h := byID[id]
		h.res.Line = best.line // its heading path is set by withHeadings
		if n > 0 || !strings.Contains(h.res.Snippet, "**") {
			h.res.Snippet = markedExcerpt(best.text, needles, snippetRunes)
		}
	})
}

// searchNames searches note names only: name_fts, one row per note.
func (k *Keyword) searchNames(ctx context.Context, q string, pq parsedQuery, f notes.Filter, limit int) ([]notes.Result, error) {
	cols := "{title aliases path}"
	if pq.cjk {
		cols = "{cjk}"
	}
	expr := pq.matchAny()
	if pq.strict() {
		expr = pq.matchAll()
	}
	w := k.Weights
	weights := fmt.Sprintf("%g, %g, %g, %g", w.Title, w.Aliases, w.Path, w.Title)
	hits, err := k.rank(ctx, "name_fts", weights, cols+" : ("+expr+")", f, limit, nil)
	if err != nil {
		return nil, err
	}
	if err := k.describe(ctx, hits); err != nil {
		return nil, err
	}
	exactNamesFirst(q, hits)
	if err := k.nameSnippets(ctx, cols+" : ("+pq.matchAny()+")", pq, hits); err != nil {
		return nil, err
	}
	return k.withHeadings(ctx, hits)
}

// nameSnippets sets each names-only hit's snippet to the name that
// matched, marked: the title, else the matching aliases, else the path.
func (k *Keyword) nameSnippets(ctx context.Context, match string, pq parsedQuery, hits []keywordHit) error {
	if len(hits) == 0 {
		return nil
	}
	ids, byID := hitIDs(hits)
	rows, err := k.db.QueryContext(ctx, `SELECT rowid, highlight(name_fts, 0, '**', '**'), highlight(name_fts, 1, '**', '**'),
			highlight(name_fts, 2, '**', '**')
		FROM name_fts WHERE name_fts MATCH ? AND rowid IN (`+store.Placeholders(len(ids))+`)`, append([]any{match}, ids...)...)
	if err != nil {
		return err
	}
	defer rows.Close()
	needles := pq.needles()
	for rows.Next() {
		var id int64
		var title, aliases, path sql.NullString
		if err := rows.Scan(&id, &title, &aliases, &path); err != nil {
			return err
		}
		h := byID[id]
		switch {
		case pq.cjk:
			h.res.Snippet = markedExcerpt(h.res.Title, needles, snippetRunes)
			if !strings.Contains(h.res.Snippet, "**") {
				if a := markedExcerpt(strings.ReplaceAll(h.aliases, "\n", ", "), needles, snippetRunes); strings.Contains(a, "**") {
					h.res.Snippet = a
				}
			}
		case strings.Contains(title.String, "**"):
			h.res.Snippet = title.String
		case strings.Contains(aliases.String, "**"):
			var marked []string
			for _, a := range strings.Split(aliases.String, "\n") {
				if strings.Contains(a, "**") {
					marked = append(marked, a)
				}
			}
			h.res.Snippet = strings.Join(marked, ", ")
		default:
			h.res.Snippet = path.String
		}
	}
	return rows.Err()
}

// hitIDs lists the hits' ids as query arguments and indexes the hits by id.
func hitIDs(hits []keywordHit) ([]any, map[int64]*keywordHit) {
	ids := make([]any, len(hits))
	byID := make(map[int64]*keywordHit, len(hits))
	for i := range hits {
		ids[i] = hits[i].id
		byID[hits[i].id] = &hits[i]
	}
	return ids, byID
}

func results(hits []keywordHit) []notes.Result {
	out := make([]notes.Result, len(hits))
	for i, h := range hits {
		out[i] = h.res
	}
	return out
}

// exactNamesFirst moves the notes whose title or an alias is the query
// itself ahead of the others, keeping the order within each group, their
// scores raised to match (notes.RankNamesFirst), and marks them so that
// combined search keeps them first too: BM25 can rank "Tags view" above
// "Tags" for the query "tags", as "Tags" has longer aliases.
func exactNamesFirst(text string, hits []keywordHit) {
	q := normalizeName(text)
	for i, h := range hits {
		exact := normalizeName(h.res.Title) == q
		for _, a := range strings.Split(h.aliases, "\n") {
			exact = exact || normalizeName(a) == q
		}
		hits[i].res.ExactName = exact
	}
	notes.RankNamesFirst(hits, func(h *keywordHit) *notes.Result { return &h.res })
}

// normalizeName folds case, quotes and runs of spaces, so that a query
// compares with a note name as a person would.
func normalizeName(s string) string {
	s = strings.Map(func(r rune) rune {
		if isQuote(r) {
			return -1
		}
		return unicode.ToLower(r)
	}, s)
	return strings.Join(strings.Fields(s), " ")
}

// columns are the weights in note_fts's column order.
func (w KeywordWeights) columns() []float64 {
	return []float64{w.Title, w.Aliases, w.Headings, w.Body, w.Path, w.Tags, w.Anchors}
}

// textWeights are the bm25() arguments for note_fts, in column order.
func (k *Keyword) textWeights() string {
	cols := k.Weights.columns()
	parts := make([]string, len(cols))
	for i, c := range cols {
		parts[i] = strconv.FormatFloat(c, 'g', -1, 64)
	}
	return strings.Join(parts, ", ")
}

// cjkWeights are the bm25() arguments for note_cjk, in column order.
func (k *Keyword) cjkWeights() string {
	w := k.Weights
	return fmt.Sprintf("%g, %g, %g, %g", w.Title, w.Aliases, w.Headings, w.Body)
}

// oneLine is a snippet's Markdown as its reader sees it, on one line
// (notes.Plain).
func oneLine(s string) string {
	s = notes.Plain(s)
	if strings.Contains(s, "----") {
		s = rulerRun.ReplaceAllString(s, "---")
	}
	return s
}

// rulerRun is a long run of table or rule dashes, which says nothing in a
// snippet: kept as three.
var rulerRun = regexp.MustCompile(`-{4,}`)

// snippetRunes is the length of a snippet made outside FTS5.
const snippetRunes = 160

// markedExcerpt is text cut to about max characters around the first
// needle it holds, every needle in the cut marked with **; needles match
// without regard to case. Without a needle it is the start of the text.
// Text of at most max characters is shown whole.
func markedExcerpt(text string, needles []string, max int) string {
	// oneLine drops the note's own bold markers outside code: a match
	// inside bold text would read ****word** once marked.
	text = oneLine(text)
	found := findOutsideCode(text, needles)
	start, keep := 0, 0 // keep: the end is not cut before the first match ends
	if len(found) > 0 {
		// The window opens a fifth of its length before the match, and
		// earlier when the text ends before the window is full: a passage
		// that fits is shown whole.
		start = backRunes(text, found[0].start, max/5)
		if rest := utf8.RuneCountInString(text[start:]); rest < max {
			start = backRunes(text, start, max-rest)
		}
		start = wordAfter(text, start, found[0].start)
		keep = found[0].end
	}
	end, n := len(text), 0
	for i := range text[start:] {
		if n == max {
			end = wordBefore(text, start+i, keep)
			break
		}
		n++
	}
	cut := notes.Cut(text, start, end)
	var b strings.Builder
	if start > 0 {
		b.WriteString("…")
	}
	at := 0
	for _, s := range findOutsideCode(cut, needles) {
		b.WriteString(cut[at:s.start])
		b.WriteString("**")
		b.WriteString(cut[s.start:s.end])
		b.WriteString("**")
		at = s.end
	}
	b.WriteString(cut[at:])
	if end < len(text) {
		b.WriteString("…")
	}
	return strings.TrimFunc(b.String(), unicode.IsSpace)
}

// findOutsideCode is findNeedles without the matches inside code, which
// is shown as written, never marked.
func findOutsideCode(text string, needles []string) []span {
	code := notes.CodeSpans(text)
	return slices.DeleteFunc(findNeedles(text, needles), func(f span) bool {
		return slices.ContainsFunc(code, func(c notes.Span) bool { return f.start < c.End && f.end > c.Start })
	})
}

// span is a byte range of a text.
type span struct{ start, end int }

// findNeedles returns where needles occur in text, without regard to
// case, longest needle first where several start at one place.
func findNeedles(text string, needles []string) []span {
	if len(needles) == 0 {
		return nil
	}
	needles = slices.Clone(needles)
	slices.SortFunc(needles, func(a, b string) int { return len(b) - len(a) })
	var found []span
	for i := 0; i < len(text); {
		matched := 0
		for _, n := range needles {
			if n != "" && len(text)-i >= len(n) && strings.EqualFold(text[i:i+len(n)], n) {
				matched = len(n)
				break
			}
		}
		if matched > 0 {
			found = append(found, span{i, i + matched})
			i += matched
			continue
		}
		_, size := utf8.DecodeRuneInString(text[i:])
		i += size
	}
	return found
}

// wordAfter moves a cut at byte off of s forward to where a word, or a
// symbol, begins, so that an excerpt never starts inside one (no
// "…rusters" of "Thrusters", no accent without its letter, no half of an
// emoji sequence), and past the spaces there; never beyond limit. Chinese
// and Japanese, written without spaces, may be cut between any two
// characters.
func wordAfter(s string, off, limit int) int {
	if off <= 0 {
		return 0
	}
	for off < limit && continuesAt(s, off) {
		_, size := utf8.DecodeRuneInString(s[off:])
		off += size
	}
	for off < limit && s[off] == ' ' {
		off++
	}
	return min(off, limit)
}

// wordBefore moves a cut at byte off of s back to where a word, or a
// symbol, ends, and before the spaces there; never below limit.
func wordBefore(s string, off, limit int) int {
	if off >= len(s) {
		return len(s)
	}
	for off > limit && continuesAt(s, off) {
		_, size := utf8.DecodeLastRuneInString(s[:off])
		off -= size
	}
	for off > limit && s[off-1] == ' ' {
		off--
	}
	return max(off, limit)
}

// continuesAt reports whether the character at byte off of s belongs with
// the one before it: both of one word (not Chinese or Japanese, cut
// anywhere), or an accent, a joiner, a variation selector or a modifier
// such as a skin tone, or what a joiner joins.
func continuesAt(s string, off int) bool {
	if off <= 0 || off >= len(s) {
		return false
	}
	prev, _ := utf8.DecodeLastRuneInString(s[:off])
	r, _ := utf8.DecodeRuneInString(s[off:])
	switch {
	case unicode.IsMark(r) || isSymbolJoiner(r) || unicode.Is(unicode.Sk, r) || prev == '\u200d':
		return true
	case vault.IsCJK(prev) || vault.IsCJK(r):
		return false
	}
	return isTokenRune(prev) && isTokenRune(r)
}

// backRunes is the offset n characters before off in s, or 0.
func backRunes(s string, off, n int) int {
	for ; n > 0 && off > 0; n-- {
		_, size := utf8.DecodeLastRuneInString(s[:off])
		off -= size
	}
	return off
}

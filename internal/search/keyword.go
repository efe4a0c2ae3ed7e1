package search

import (
	"context"
	"database/sql"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Querier is what keyword search needs of the database. *sql.DB, *sql.Conn,
// *sql.Tx and *store.DB all have it, and a test can pass any of them.
type Querier interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
}

// KeywordWeights weigh a match in each field of a note against a match in
// its text, in FTS5's BM25. Names say best what a note is about; a heading
// names a section; path and tags classify.
type KeywordWeights struct {
	Title, Aliases, Headings, Body, Path, Tags float64
}

// DefaultKeywordWeights are the weights keyword search uses unless told
// otherwise: the best nDCG@10 on Cranfield (title against body) among the
// weights that keep named notes first on the Obsidian Help vault.
var DefaultKeywordWeights = KeywordWeights{Title: 8, Aliases: 8, Headings: 3, Body: 1, Path: 2, Tags: 2}

// Keyword finds notes by their words, with SQLite FTS5 over the chunk and
// name tables the indexer keeps (migrations/0003_fts.sql). It is safe for
// concurrent use.
type Keyword struct {
	db Querier
	// Weights are the BM25 field weights; DefaultKeywordWeights when built
	// with NewKeyword.
	Weights KeywordWeights
}

// NewKeyword returns keyword search over db.
func NewKeyword(db Querier) *Keyword {
	return &Keyword{db: db, Weights: DefaultKeywordWeights}
}

// KeywordQuery is one keyword search. The query grammar, and which words
// must match, are described in query.go: any text is a valid query.
type KeywordQuery struct {
	Text   string
	Filter Filter
	// Limit is the most notes returned: DefaultLimit when 0, at most
	// MaxLimit.
	Limit int
	// NamesOnly matches note titles, aliases and paths, not their text.
	NamesOnly bool
}

// Result limits shared by keyword searches.
const (
	DefaultLimit = 10
	MaxLimit     = 100
)

// snippetTokens is how many words a snippet holds (FTS5's limit is 64).
const snippetTokens = 24

// Search runs q. It returns ErrEmptyQuery when the text is blank, and no
// results (and no error) when the text holds nothing to search for, such
// as "*" or an emoji. Results are one per note, best first, each with the
// note's best passage.
func (k *Keyword) Search(ctx context.Context, q KeywordQuery) ([]Result, error) {
	if strings.TrimSpace(q.Text) == "" {
		return nil, ErrEmptyQuery
	}
	limit := q.Limit
	if limit <= 0 {
		limit = DefaultLimit
	}
	limit = min(limit, MaxLimit)
	pq := parseQuery(q.Text)
	if len(pq.terms) == 0 {
		return []Result{}, nil
	}
	var (
		res []Result
		err error
	)
	if q.NamesOnly {
		res, err = k.searchNames(ctx, q.Text, pq, q.Filter, limit)
	} else {
		res, err = k.searchChunks(ctx, q.Text, pq, q.Filter, limit)
	}
	if err != nil {
		return nil, fmt.Errorf("keyword search: %w", err)
	}
	return res, nil
}

// keywordHit is a note found, before its passage is read.
type keywordHit struct {
	rowid   int64 // the full-text row that matched best
	score   float64
	aliases string // one per line
	res     Result
}

// searchChunks searches the text of notes: chunk_fts, or chunk_cjk for a
// query with Chinese or Japanese.
func (k *Keyword) searchChunks(ctx context.Context, q string, pq parsedQuery, f Filter, limit int) ([]Result, error) {
	table, weights := "chunk_fts", k.chunkWeights()
	if pq.cjk {
		table, weights = "chunk_cjk", k.cjkWeights()
	}
	loose := pq.matchAny()
	match := loose
	if pq.strict() {
		match = pq.matchAll()
	}
	hits, err := k.bestRows(ctx, table, weights, match, f, limit, nil)
	if err != nil {
		return nil, err
	}
	if len(hits) < limit && match != loose {
		seen := map[int64]bool{}
		for _, h := range hits {
			seen[h.rowid>>chunkIDBits] = true
		}
		more, err := k.bestRows(ctx, table, weights, loose, f, limit-len(hits), seen)
		if err != nil {
			return nil, err
		}
		hits = append(hits, more...)
	}
	exactNamesFirst(q, hits)
	if err := k.bestPassages(ctx, table, match, pq, hits); err != nil {
		return nil, err
	}
	if err := k.passages(ctx, table, loose, pq, hits); err != nil {
		return nil, err
	}
	out := make([]Result, len(hits))
	for i, h := range hits {
		out[i] = h.res
	}
	return out, nil
}

// chunkIDBits matches the indexer's chunk ids, file << 24 | ord: a
// full-text row's note is its rowid >> 24.
const chunkIDBits = 24

// bestRows runs one MATCH and keeps each note's best row, best notes
// first, skipping the notes in skip.
func (k *Keyword) bestRows(ctx context.Context, table, weights, match string, f Filter, limit int, skip map[int64]bool) ([]keywordHit, error) {
	where, args := filterSQL(f)
	// bm25() cannot sit inside an aggregate, hence the materialized rows.
	query := `WITH m AS MATERIALIZED (
			SELECT rowid AS rid, bm25(` + table + `, ` + weights + `) AS score
			FROM ` + table + ` WHERE ` + table + ` MATCH ?),
		b AS (SELECT rid >> 24 AS file_id, rid, min(score) AS score FROM m GROUP BY rid >> 24)
		SELECT b.rid, b.score, v.name, f.path, f.title, coalesce(n.aliases, '')
		FROM b JOIN files f ON f.id = b.file_id JOIN vaults v ON v.id = f.vault_id
			LEFT JOIN search_notes n ON n.file_id = b.file_id` + where + `
		ORDER BY b.score, f.path LIMIT ?`
	args = append([]any{match}, args...)
	args = append(args, limit+len(skip))
	rows, err := k.db.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var hits []keywordHit
	for rows.Next() {
		var h keywordHit
		if err := rows.Scan(&h.rowid, &h.score, &h.res.Vault, &h.res.Path, &h.res.Title, &h.aliases); err != nil {
			return nil, err
		}
		if skip[h.rowid>>chunkIDBits] || len(hits) == limit {
			continue
		}
		h.res.Score = -h.score // BM25 in FTS5 is negative, lower better
		hits = append(hits, h)
	}
	return hits, rows.Err()
}

// passages fills in each keywordHit's heading, line and snippet. match is the
// loose expression, which every keywordHit matches and which marks every term.
func (k *Keyword) passages(ctx context.Context, table, match string, pq parsedQuery, hits []keywordHit) error {
	if len(hits) == 0 {
		return nil
	}
	ids := make([]any, len(hits))
	byID := make(map[int64]*keywordHit, len(hits))
	for i := range hits {
		ids[i] = hits[i].rowid
		byID[hits[i].rowid] = &hits[i]
		hits[i].res.Line = 1
	}
	in := placeholders(len(ids))
	rows, err := k.db.QueryContext(ctx, `SELECT id, heading, start_line, text FROM chunks WHERE id IN (`+in+`)`, ids...)
	if err != nil {
		return err
	}
	texts := map[int64]string{}
	for rows.Next() {
		var id int64
		var heading, text string
		var line int
		if err := rows.Scan(&id, &heading, &line, &text); err != nil {
			rows.Close()
			return err
		}
		byID[id].res.Heading, byID[id].res.Line = heading, line
		texts[id] = text
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}

	if table == "chunk_cjk" {
		// Contentless: the snippet is made here from the chunk's text.
		needles := pq.needles()
		for i := range hits {
			h := &hits[i]
			if text, ok := texts[h.rowid]; ok {
				h.res.Snippet = markedExcerpt(text, needles, snippetRunes)
			} else {
				h.res.Snippet = markedExcerpt(h.res.Title, needles, snippetRunes)
			}
		}
		return nil
	}
	rows, err = k.db.QueryContext(ctx, `SELECT rowid,
			snippet(chunk_fts, 3, '**', '**', '…', `+strconv.Itoa(snippetTokens)+`),
			highlight(chunk_fts, 0, '**', '**')
		FROM chunk_fts WHERE chunk_fts MATCH ? AND rowid IN (`+in+`)`, append([]any{match}, ids...)...)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var id int64
		var body, title sql.NullString
		if err := rows.Scan(&id, &body, &title); err != nil {
			return err
		}
		s := oneLine(body.String)
		if _, chunk := texts[id]; !chunk || s == "" {
			s = oneLine(title.String) // a note without text: its name matched
		}
		byID[id].res.Snippet = s
	}
	return rows.Err()
}

// searchNames searches note names only: note_fts, one row per note.
func (k *Keyword) searchNames(ctx context.Context, q string, pq parsedQuery, f Filter, limit int) ([]Result, error) {
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
	where, args := filterSQL(f)
	query := `SELECT m.rowid, bm25(note_fts, ` + weights + `) AS score, v.name, f.path, f.title, m.aliases
		FROM note_fts m JOIN files f ON f.id = m.rowid JOIN vaults v ON v.id = f.vault_id
		WHERE note_fts MATCH ?` + strings.Replace(where, " WHERE ", " AND ", 1) + `
		ORDER BY score, f.path LIMIT ?`
	args = append([]any{cols + " : (" + expr + ")"}, args...)
	args = append(args, limit)
	rows, err := k.db.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	var hits []keywordHit
	for rows.Next() {
		var h keywordHit
		var aliases sql.NullString
		if err := rows.Scan(&h.rowid, &h.score, &h.res.Vault, &h.res.Path, &h.res.Title, &aliases); err != nil {
			rows.Close()
			return nil, err
		}
		h.aliases = aliases.String
		h.res.Score, h.res.Line = -h.score, 1
		hits = append(hits, h)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, err
	}
	exactNamesFirst(q, hits)
	if err := k.nameSnippets(ctx, cols+" : ("+pq.matchAny()+")", pq, hits); err != nil {
		return nil, err
	}
	out := make([]Result, len(hits))
	for i, h := range hits {
		out[i] = h.res
	}
	return out, nil
}

// nameSnippets sets each names-only keywordHit's snippet to the name that
// matched, marked: the title, else the matching aliases, else the path.
func (k *Keyword) nameSnippets(ctx context.Context, match string, pq parsedQuery, hits []keywordHit) error {
	if len(hits) == 0 {
		return nil
	}
	ids := make([]any, len(hits))
	byID := make(map[int64]*keywordHit, len(hits))
	for i := range hits {
		ids[i] = hits[i].rowid
		byID[hits[i].rowid] = &hits[i]
	}
	rows, err := k.db.QueryContext(ctx, `SELECT rowid, highlight(note_fts, 0, '**', '**'), highlight(note_fts, 1, '**', '**'),
			highlight(note_fts, 2, '**', '**'), aliases
		FROM note_fts WHERE note_fts MATCH ? AND rowid IN (`+placeholders(len(ids))+`)`, append([]any{match}, ids...)...)
	if err != nil {
		return err
	}
	defer rows.Close()
	needles := pq.needles()
	for rows.Next() {
		var id int64
		var title, aliases, path, plainAliases sql.NullString
		if err := rows.Scan(&id, &title, &aliases, &path, &plainAliases); err != nil {
			return err
		}
		h := byID[id]
		switch {
		case pq.cjk:
			h.res.Snippet = markedExcerpt(h.res.Title, needles, snippetRunes)
			if !strings.Contains(h.res.Snippet, "**") {
				if a := markedExcerpt(strings.ReplaceAll(plainAliases.String, "\n", ", "), needles, snippetRunes); strings.Contains(a, "**") {
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

// bestPassages moves each hit to the row of its note whose headings and
// text match best. The note is ranked by its best row overall, but that
// row may owe its score to the note's title, which every row repeats, and
// then shorter rows win; the passage shown should be where the words are.
func (k *Keyword) bestPassages(ctx context.Context, table, match string, pq parsedQuery, hits []keywordHit) error {
	w := k.Weights
	query := `SELECT rowid, '' FROM chunk_fts WHERE chunk_fts MATCH ? AND rowid >= ? AND rowid < ?
		ORDER BY bm25(chunk_fts, 0, 0, ` + fmt.Sprintf("%g, %g", w.Headings, w.Body) + `, 0, 0), rowid LIMIT 1`
	var needles []string
	if table == "chunk_cjk" {
		// Over the few rows with Chinese or Japanese of a mostly other
		// vault, BM25's IDF is floored and tells rows apart only by
		// length: the row holding the words most often is chosen here.
		query = `SELECT c.id, c.heading || char(10) || c.text FROM chunk_cjk m JOIN chunks c ON c.id = m.rowid
			WHERE chunk_cjk MATCH ? AND m.rowid >= ? AND m.rowid < ? ORDER BY c.id`
		needles = pq.needles()
	}
	for i := range hits {
		file := hits[i].rowid >> chunkIDBits
		rows, err := k.db.QueryContext(ctx, query, match, file<<chunkIDBits, (file+1)<<chunkIDBits)
		if err != nil {
			return err
		}
		best := -1
		for rows.Next() {
			var id int64
			var text string
			if err := rows.Scan(&id, &text); err != nil {
				rows.Close()
				return err
			}
			if n := len(findNeedles(oneLine(text), needles)); n > best {
				hits[i].rowid, best = id, n
			}
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return err
		}
	}
	return nil
}

// exactNamesFirst moves the notes whose title or an alias is the query
// itself ahead of the others, keeping the order within each group: BM25
// can rank "Tags view" above "Tags" for the query "tags", as "Tags" has
// longer aliases.
func exactNamesFirst(text string, hits []keywordHit) {
	q := normalizeName(text)
	exact := func(h keywordHit) bool {
		if normalizeName(h.res.Title) == q {
			return true
		}
		for _, a := range strings.Split(h.aliases, "\n") {
			if normalizeName(a) == q {
				return true
			}
		}
		return false
	}
	slices.SortStableFunc(hits, func(a, b keywordHit) int {
		ea, eb := exact(a), exact(b)
		switch {
		case ea && !eb:
			return -1
		case eb && !ea:
			return 1
		}
		return 0
	})
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

// chunkWeights are the bm25() arguments for chunk_fts, in column order.
func (k *Keyword) chunkWeights() string {
	w := k.Weights
	return fmt.Sprintf("%g, %g, %g, %g, %g, %g", w.Title, w.Aliases, w.Headings, w.Body, w.Path, w.Tags)
}

// cjkWeights are the bm25() arguments for chunk_cjk, in column order.
func (k *Keyword) cjkWeights() string {
	w := k.Weights
	return fmt.Sprintf("%g, %g, %g, %g", w.Title, w.Aliases, w.Headings, w.Body)
}

// filterSQL turns a filter into conditions on files f, vaults v and tags,
// with their arguments; where is empty or starts with " WHERE ".
func filterSQL(f Filter) (where string, args []any) {
	var conds []string
	if f.Vault != "" {
		conds = append(conds, "v.name = ?")
		args = append(args, f.Vault)
	}
	if p := normalizePrefix(f.PathPrefix); p != "" {
		// substr, not LIKE: a prefix may hold '%' or '_'.
		conds = append(conds, "substr(f.path, 1, ?) = ?")
		args = append(args, utf8.RuneCountInString(p), p)
	}
	if t := strings.TrimPrefix(strings.TrimSpace(f.Tag), "#"); t != "" {
		conds = append(conds, `EXISTS (SELECT 1 FROM tags t WHERE t.file_id = f.id
			AND (t.tag = ? COLLATE NOCASE OR substr(t.tag, 1, ?) = ? COLLATE NOCASE))`)
		args = append(args, t, utf8.RuneCountInString(t)+1, t+"/")
	}
	if len(conds) == 0 {
		return "", nil
	}
	return " WHERE " + strings.Join(conds, " AND "), args
}

// normalizePrefix writes a path prefix the way paths are stored: slashes,
// no leading "./" or "/".
func normalizePrefix(p string) string {
	p = strings.ReplaceAll(strings.TrimSpace(p), `\`, "/")
	for strings.HasPrefix(p, "./") {
		p = p[2:]
	}
	return strings.TrimLeft(p, "/")
}

// oneLine collapses a snippet's line breaks and runs of spaces.
func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}

// snippetRunes is the length of a snippet made outside FTS5.
const snippetRunes = 160

// markedExcerpt is text cut to about max characters around the first
// needle it holds, every needle in the cut marked with **; needles match
// without regard to case. Without a needle it is the start of the text.
func markedExcerpt(text string, needles []string, max int) string {
	text = oneLine(text)
	found := findNeedles(text, needles)
	start := 0
	if len(found) > 0 {
		start = backRunes(text, found[0].start, max/5)
	}
	end, n := len(text), 0
	for i := range text[start:] {
		if n == max {
			end = start + i
			break
		}
		n++
	}
	var b strings.Builder
	if start > 0 {
		b.WriteString("…")
	}
	at := start
	for _, s := range found {
		if s.start < start || s.end > end {
			continue
		}
		b.WriteString(text[at:s.start])
		b.WriteString("**")
		b.WriteString(text[s.start:s.end])
		b.WriteString("**")
		at = s.end
	}
	b.WriteString(text[at:end])
	if end < len(text) {
		b.WriteString("…")
	}
	return strings.TrimFunc(b.String(), unicode.IsSpace)
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

// backRunes is the offset n characters before off in s, or 0.
func backRunes(s string, off, n int) int {
	for ; n > 0 && off > 0; n-- {
		_, size := utf8.DecodeLastRuneInString(s[:off])
		off -= size
	}
	return off
}

package fulltext

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/jarvis-mcp/jarvis/internal/search/notes"
	"github.com/jarvis-mcp/jarvis/internal/store"
	"github.com/jarvis-mcp/jarvis/internal/vault"
)

// Pseudo-relevance feedback for long, loose keyword queries: RM3 (Lavrenko
// and Croft's relevance model, interpolated with the query as in Abdul-
// Jaleel et al., UMass at TREC 2004, and as Anserini runs it with BM25).
// A question written out in full names its subject in some words and
// misses others the relevant notes use; the best notes of a first pass
// use them. So:
//
//  1. the first pass ranks notes by BM25 as usual;
//  2. the words of its best Docs notes are weighted by how much of each
//     note they make up, each note counting by its share of the scores
//     (the relevance model, P(w|R));
//  3. the Terms heaviest words are the expansion;
//  4. the query is run again with every word weighted: its own words
//     share OriginalWeight, the expansion the rest in proportion to
//     P(w|R). A note's score is the weighted sum of each word's BM25
//     score, which is what FTS5's bm25() adds up over the terms of one
//     query; each word is matched on its own so that it can have its own
//     weight. BM25's idf weighs each word against the collection, so a
//     word common everywhere adds next to nothing.
//
// Short queries, whose every word must match (query.go), are left alone:
// they name what they look for, and feedback would pull in notes that lack
// their words.
//
// Measured and left out (docs/benchmarks.md, "Ranking"): Anserini's filter
// of words found in more than 10% of the documents, which on a vault of a
// few hundred notes removes most of the useful words (here only words that
// would weigh nothing are dropped, after the weights are shared);
// Porter-stemming the words before weighing them; choosing words by P(w|R)
// times idf.

// Feedback sets pseudo-relevance feedback for loose keyword queries.
type Feedback struct {
	// Docs is how many of the first pass's best notes the expansion comes
	// from; 0 turns feedback off.
	Docs int
	// Terms is how many words the expansion holds.
	Terms int
	// OriginalWeight is the share of the query's own words in the second
	// pass, the rest going to the expansion (RM3's lambda).
	OriginalWeight float64
}

// DefaultFeedback holds standard RM3 parameters: 10 documents and an
// original query weight of 0.5 as in Anserini's BM25+RM3 baselines, and 20
// terms, the top of the 10 to 20 usual in the literature (on Cranfield 20
// measured better than 10; no value off that range was considered).
// docs/benchmarks.md, "Ranking", has the figures of these and of the
// other values measured.
var DefaultFeedback = Feedback{Docs: 10, Terms: 20, OriginalWeight: 0.5}

// expands reports whether a query gets feedback: a loose query (more than
// strictTerms terms) on note_fts, with feedback on.
func (k *Keyword) expands(pq parsedQuery, table string) bool {
	return k.Feedback.Docs > 0 && k.Feedback.Terms > 0 && table == "note_fts" && !pq.strict()
}

// weightedTerm is one term of the second pass: an FTS5 expression and its
// weight, and, when it is a plain word, the word as written and as the
// index holds it.
type weightedTerm struct {
	expr      string
	weight    float64
	word      string
	indexWord string // "" when not a plain word
}

// feedback runs the second pass of a loose query whose first pass found
// first (best first, at least Docs of them when there are). It returns the
// limit best notes and the query with the expansion's words added, whose
// words their passages mark. With no expansion to add it returns the first
// pass.
func (k *Keyword) feedback(ctx context.Context, r *ranking, pq parsedQuery, limit int, first []keywordHit) ([]keywordHit, parsedQuery, error) {
	fb := k.Feedback
	firstOnly := first[:min(limit, len(first))]
	docs := first[:min(fb.Docs, len(first))]
	if len(docs) == 0 {
		return firstOnly, pq, nil
	}
	expansion, err := k.expansion(ctx, r, docs)
	if err != nil || len(expansion) == 0 {
		return firstOnly, pq, err
	}
	loose := pq.anyExpr()
	units := loose.parts
	terms := make([]weightedTerm, 0, len(units)+len(expansion))
	for i, u := range units {
		t := weightedTerm{expr: u, weight: fb.OriginalWeight / float64(len(units))}
		if loose.words != nil {
			t.indexWord = loose.words[i]
		}
		terms = append(terms, t)
	}
	marked := pq
	marked.terms = slices.Clone(pq.terms)
	for _, e := range expansion {
		e.weight *= 1 - fb.OriginalWeight
		if i := slices.IndexFunc(terms[:len(units)], func(t weightedTerm) bool { return t.expr == e.expr }); i >= 0 {
			terms[i].weight += e.weight
			continue
		}
		terms = append(terms, e)
		marked.terms = append(marked.terms, term{words: []string{e.word}})
	}
	hits, err := r.rankWeighted(ctx, terms, limit)
	return hits, marked, err
}

// expansion picks the expansion words from the notes docs, each with its
// share of the relevance model among those picked (the shares sum to 1).
func (k *Keyword) expansion(ctx context.Context, r *ranking, docs []keywordHit) ([]weightedTerm, error) {
	ids, _ := hitIDs(docs)
	rows, err := k.db.QueryContext(ctx, `SELECT id, title, body FROM note_text WHERE id IN (`+store.Placeholders(len(ids))+`)`, ids...)
	if err != nil {
		return nil, err
	}
	texts := map[int64]string{}
	for rows.Next() {
		var id int64
		var title, body string
		if err := rows.Scan(&id, &title, &body); err != nil {
			rows.Close()
			return nil, err
		}
		texts[id] = title + "\n" + body
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, err
	}

	// P(w|R) = sum over the notes D of P(w|D) * P(D), P(D) the note's
	// share of the first pass's scores.
	total := 0.0
	for _, d := range docs {
		total += max(d.res.Score, 0)
	}
	if total == 0 {
		return nil, nil
	}
	model := map[string]float64{}
	for _, d := range docs {
		counts, n := countWords(texts[d.id])
		if n == 0 {
			continue
		}
		for w, c := range counts {
			model[w] += float64(c) / float64(n) * max(d.res.Score, 0) / total
		}
	}
	words := make([]string, 0, len(model))
	for w := range model {
		words = append(words, w)
	}
	slices.SortFunc(words, func(a, b string) int {
		if c := cmp.Compare(model[b], model[a]); c != 0 {
			return c
		}
		return strings.Compare(a, b)
	})

	fb := k.Feedback
	words = words[:min(len(words), fb.Terms)]
	sum := 0.0
	for _, w := range words {
		sum += model[w]
	}
	// Words in half the notes or more have no weight in FTS5's BM25 (its
	// idf, log((N - n + 0.5) / (n + 0.5)), is then at most 0, and FTS5
	// makes it 1e-6), and their long lists of notes are the slowest to
	// score: they are left out after the weights are shared, so the
	// ranking is what it would be with them.
	common, err := r.commonWords(ctx, words)
	if err != nil {
		return nil, err
	}
	var out []weightedTerm
	for _, w := range words {
		if !common[w] {
			t := weightedTerm{expr: ftsString(w), weight: model[w], word: w}
			if isPlainWord(w) {
				t.indexWord = indexWord(w)
			}
			out = append(out, t)
		}
	}
	for i := range out {
		out[i].weight /= sum
	}
	return out, nil
}

// commonWords reports which of words are in half the notes or more, as
// FTS5 counts them (stemmed as the notes are): in Go from their postings,
// counted without their positions up to half the notes, when it can, else
// with FTS5.
func (r *ranking) commonWords(ctx context.Context, words []string) (map[string]bool, error) {
	if r.inGo && !slices.ContainsFunc(words, func(w string) bool { return !isPlainWord(w) }) {
		stems := make([]string, len(words))
		for i, w := range words {
			stems[i] = indexWord(w)
		}
		set, err := r.k.text.read(ctx, r.set, stems, r.k.Weights.columns(), readCounts)
		switch {
		case err == nil:
			r.set = set
			out := map[string]bool{}
			for i, w := range words {
				out[w] = inHalf(set.holding(stems[i]), set.notes())
			}
			return out, nil
		case toFTS5(err):
			r.inGo = false
		default:
			return nil, err
		}
	}
	return r.k.commonWords(ctx, words)
}

// inHalf reports whether a word in n of notes notes is in half of them or
// more: its BM25 idf is then FTS5's floor of 1e-6.
func inHalf(n, notes int64) bool { return n >= half(notes) }

// half is half of notes notes, rounded up.
func half(notes int64) int64 { return (notes + 1) / 2 }

// commonWords reports which of words are in half the notes or more, with
// FTS5. Each count stops there, so that a word found everywhere costs no
// more than one in half the notes.
func (k *Keyword) commonWords(ctx context.Context, words []string) (map[string]bool, error) {
	out := map[string]bool{}
	if len(words) == 0 {
		return out, nil
	}
	var notes int
	rows, err := k.db.QueryContext(ctx, `SELECT count(*) FROM search_notes`)
	if err != nil {
		return nil, err
	}
	for rows.Next() {
		if err := rows.Scan(&notes); err != nil {
			rows.Close()
			return nil, err
		}
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, err
	}
	half := (notes + 1) / 2
	parts := make([]string, len(words))
	args := make([]any, 0, 2*len(words))
	for i, w := range words {
		parts[i] = `(SELECT count(*) FROM (SELECT 1 FROM note_fts WHERE note_fts MATCH ? LIMIT ?))`
		args = append(args, ftsString(w), half)
	}
	rows, err = k.db.QueryContext(ctx, `SELECT `+strings.Join(parts, ", "), args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	counts := make([]int, len(words))
	ptrs := make([]any, len(words))
	for i := range counts {
		ptrs[i] = &counts[i]
	}
	for rows.Next() {
		if err := rows.Scan(ptrs...); err != nil {
			return nil, err
		}
	}
	for i, w := range words {
		out[w] = inHalf(int64(counts[i]), int64(notes))
	}
	return out, rows.Err()
}

// countWords counts the words of text that can describe a subject: words
// as unicode61 splits them, lower-cased, leaving out stop words, single
// characters, numbers and Chinese or Japanese (whose words note_cjk
// handles). It returns the counts and how many words were counted.
func countWords(text string) (map[string]int, int) {
	counts := map[string]int{}
	n := 0
	for i := 0; i < len(text); {
		r, size := utf8.DecodeRuneInString(text[i:])
		if !isTokenRune(r) {
			i += size
			continue
		}
		start := i
		letters, cjk := false, false
		for i < len(text) {
			r, size := utf8.DecodeRuneInString(text[i:])
			if !isTokenRune(r) {
				break
			}
			letters = letters || unicode.IsLetter(r)
			cjk = cjk || vault.IsCJK(r)
			i += size
		}
		w := strings.ToLower(text[start:i])
		if !letters || cjk || utf8.RuneCountInString(w) < 2 || stopWords[w] {
			continue
		}
		counts[w]++
		n++
	}
	return counts, n
}

// rankWeighted ranks the notes matching any of terms by the weighted sum
// of each term's BM25 score, and returns the limit best: in Go when every
// term is a plain word, else with FTS5.
func (r *ranking) rankWeighted(ctx context.Context, terms []weightedTerm, limit int) ([]keywordHit, error) {
	if r.inGo && !slices.ContainsFunc(terms, func(t weightedTerm) bool { return t.indexWord == "" }) {
		g := goRank{limit: limit}
		for _, t := range terms {
			g.words = append(g.words, t.indexWord)
			g.weights = append(g.weights, t.weight)
		}
		hits, err := r.rankInGo(ctx, g)
		if !toFTS5(err) {
			return hits, err
		}
	}
	return r.k.rankWeighted(ctx, r.weights, terms, r.f, limit)
}

// rankWeighted is ranking.rankWeighted with FTS5: each term's bm25() as
// its own query, summed per note.
func (k *Keyword) rankWeighted(ctx context.Context, weights string, terms []weightedTerm, f notes.Filter, limit int) ([]keywordHit, error) {
	var b strings.Builder
	args := make([]any, 0, 2*len(terms)+1)
	b.WriteString(`SELECT id, sum(score) AS total FROM (`)
	for i, t := range terms {
		if i > 0 {
			b.WriteString(` UNION ALL `)
		}
		fmt.Fprintf(&b, `SELECT m.rowid AS id, ? * bm25(note_fts, %s) AS score FROM note_fts m WHERE note_fts MATCH ?`, weights)
		args = append(args, t.weight, t.expr)
	}
	b.WriteString(`)`)
	if where, fargs := f.NoteIDs(); where != "" {
		b.WriteString(` WHERE id IN (` + where + `)`)
		args = append(args, fargs...)
	}
	b.WriteString(` GROUP BY id ORDER BY total, id LIMIT ?`)
	args = append(args, limit)
	return k.hits(ctx, b.String(), args, limit, nil)
}

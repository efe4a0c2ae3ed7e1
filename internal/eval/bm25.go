package eval

import (
	"cmp"
	"context"
	"database/sql"
	"fmt"
	"math"
	"slices"

	_ "modernc.org/sqlite" // FTS5's porter tokenizer does the stemming
)

// BM25 is textbook Okapi BM25 (k1 = 1.2, b = 0.75, the idf of Lucene,
// which never goes negative) over one text per document, with words
// lower-cased and Porter-stemmed by SQLite FTS5's "porter unicode61"
// tokenizer and no stop words. It is the yardstick the issue's "BM25's
// usual figure" refers to, measured with the same judgements and metric
// as jarvis's own search, so that the two can be compared.
type BM25 struct {
	paths    []string
	length   []int
	avg      float64
	postings map[string][]posting // by stemmed term
	db       *sql.DB
}

type posting struct {
	doc, tf int
}

const (
	bm25K1 = 1.2
	bm25B  = 0.75
)

// NewBM25 indexes docs (text by note path).
func NewBM25(ctx context.Context, docs map[string]string) (*BM25, error) {
	db, err := sql.Open("sqlite", ":memory:")
	if err != nil {
		return nil, fmt.Errorf("bm25: %w", err)
	}
	db.SetMaxOpenConns(1) // one connection: an in-memory database is per connection
	for _, q := range []string{
		`CREATE VIRTUAL TABLE d USING fts5(body, tokenize = 'porter unicode61')`,
		`CREATE VIRTUAL TABLE dv USING fts5vocab(d, 'instance')`,
		`CREATE VIRTUAL TABLE q USING fts5(body, tokenize = 'porter unicode61')`,
		`CREATE VIRTUAL TABLE qv USING fts5vocab(q, 'instance')`,
	} {
		if _, err := db.ExecContext(ctx, q); err != nil {
			db.Close()
			return nil, fmt.Errorf("bm25: %w", err)
		}
	}
	b := &BM25{postings: map[string][]posting{}, db: db}
	for path := range docs {
		b.paths = append(b.paths, path)
	}
	slices.Sort(b.paths)
	b.length = make([]int, len(b.paths))
	for i, p := range b.paths {
		if _, err := db.ExecContext(ctx, `INSERT INTO d (rowid, body) VALUES (?, ?)`, i, docs[p]); err != nil {
			b.Close()
			return nil, fmt.Errorf("bm25: %w", err)
		}
	}
	rows, err := db.QueryContext(ctx, `SELECT term, doc, count(*) FROM dv GROUP BY term, doc ORDER BY term, doc`)
	if err != nil {
		b.Close()
		return nil, fmt.Errorf("bm25: %w", err)
	}
	defer rows.Close()
	total := 0
	for rows.Next() {
		var term string
		var p posting
		if err := rows.Scan(&term, &p.doc, &p.tf); err != nil {
			b.Close()
			return nil, fmt.Errorf("bm25: %w", err)
		}
		b.postings[term] = append(b.postings[term], p)
		b.length[p.doc] += p.tf
		total += p.tf
	}
	if err := rows.Err(); err != nil {
		b.Close()
		return nil, fmt.Errorf("bm25: %w", err)
	}
	if len(b.paths) > 0 {
		b.avg = float64(total) / float64(len(b.paths))
	}
	return b, nil
}

// Close frees the tokenizer's database.
func (b *BM25) Close() error { return b.db.Close() }

// terms returns the distinct stems of a query.
func (b *BM25) terms(ctx context.Context, query string) ([]string, error) {
	if _, err := b.db.ExecContext(ctx, `DELETE FROM q`); err != nil {
		return nil, err
	}
	if _, err := b.db.ExecContext(ctx, `INSERT INTO q (body) VALUES (?)`, query); err != nil {
		return nil, err
	}
	rows, err := b.db.QueryContext(ctx, `SELECT DISTINCT term FROM qv ORDER BY term`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var t string
		if err := rows.Scan(&t); err != nil {
			return nil, err
		}
		out = append(out, t)
	}
	return out, rows.Err()
}

// Rank is a Ranker: the limit best documents for query, ties by path.
func (b *BM25) Rank(ctx context.Context, query string, limit int) ([]string, error) {
	terms, err := b.terms(ctx, query)
	if err != nil {
		return nil, fmt.Errorf("bm25: %w", err)
	}
	score := map[int]float64{}
	n := float64(len(b.paths))
	for _, t := range terms {
		ps := b.postings[t]
		df := float64(len(ps))
		idf := math.Log(1 + (n-df+0.5)/(df+0.5))
		for _, p := range ps {
			tf := float64(p.tf)
			norm := bm25K1 * (1 - bm25B + bm25B*float64(b.length[p.doc])/b.avg)
			score[p.doc] += idf * tf * (bm25K1 + 1) / (tf + norm)
		}
	}
	docs := make([]int, 0, len(score))
	for d := range score {
		docs = append(docs, d)
	}
	slices.SortFunc(docs, func(x, y int) int {
		if c := cmp.Compare(score[y], score[x]); c != 0 {
			return c
		}
		return cmp.Compare(b.paths[x], b.paths[y])
	})
	out := make([]string, 0, min(limit, len(docs)))
	for _, d := range docs[:min(limit, len(docs))] {
		out = append(out, b.paths[d])
	}
	return out, nil
}

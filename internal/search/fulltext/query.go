package fulltext

import (
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/jarvis-mcp/jarvis/internal/vault"
)

// A keyword query is read with a grammar of two rules, so that anything a
// person or a model types is a valid query:
//
//   - Words are runs of letters, digits and marks, as SQLite's unicode61
//     tokenizer sees them; everything else separates them and has no
//     meaning (no operators, no columns, no wildcards). Words joined by
//     punctuation ("e-mail", "retry_logic", "C#") must appear in that
//     order.
//   - Text between double quotes (straight or curly) is a phrase; an
//     unclosed quote runs to the end.
//
// Chinese and Japanese have no spaces between words: a run of their
// characters is matched as overlapping pairs in the note_cjk table (see
// vault.CJKPairs).
//
// Which words must match: with at most strictTerms terms left after
// dropping stop words, every term must match (a short keyword query means
// all of its words), and the last word also matches as a prefix when it
// has at least minPrefix characters, so a query typed halfway ("canv")
// finds its word, unless the word on its own already matches as many
// notes as asked for: then it was typed in full, and matching every word
// it begins would cost a search on a large vault more than the rest of it
// (Keyword.wholeWord). If that finds fewer notes than asked for, notes
// matching any term follow. With more terms, as in a question written out in full,
// notes matching any term are ranked by BM25, which rewards notes matching
// more of the rarer terms; words joined by punctuation then count as
// separate words, and no word is a prefix (on Cranfield each of these two
// choices is worth about half a point of nDCG@10).
const (
	strictTerms = 4
	minPrefix   = 3
	// MaxTerms bounds the MATCH expression a pasted page of text can make.
	MaxTerms = 64
)

// term is one unit of a parsed query: a word, a phrase, or a run of CJK
// characters.
type term struct {
	words  []string // lower-cased unicode61 tokens; for CJK, the run
	phrase bool     // quoted by the user, or words joined by punctuation
	quoted bool     // quoted by the user
	cjk    bool     // a run of CJK characters (words has one element)
	prefix bool     // the last word of a short query: match it as a prefix too
}

// parsedQuery is user text turned into terms that can be quoted safely
// into an FTS5 MATCH expression.
type parsedQuery struct {
	terms []term
	cjk   bool // some term is CJK: search note_cjk
	// dropped counts the terms past MaxTerms, left out.
	dropped int
	// symbols are what a query without any word looks for: its emoji and
	// other symbols (SymbolWords), any of them. nil when it has words.
	symbols []string
}

// parseQuery reads text by the grammar above. A query without any word
// ("*", "-", an emoji) has no terms; its symbols, if it has any, are
// looked for instead.
func parseQuery(text string) parsedQuery {
	var q parsedQuery
	quoted := false
	var cur []string // the words of the phrase or word being read
	var curCJK []string
	flush := func(byQuote bool) {
		if len(cur) > 0 {
			q.terms = append(q.terms, term{words: cur, phrase: byQuote || len(cur) > 1, quoted: byQuote})
		}
		for _, run := range curCJK {
			q.terms = append(q.terms, term{words: []string{run}, cjk: true})
			q.cjk = true
		}
		cur, curCJK = nil, nil
	}
	for i := 0; i < len(text); {
		r, size := utf8.DecodeRuneInString(text[i:])
		switch {
		case isQuote(r):
			flush(quoted)
			quoted = !quoted
			i += size
		case !quoted && unicode.IsSpace(r):
			flush(false)
			i += size
		case isTokenRune(r):
			start := i
			cjk := vault.IsCJK(r)
			for i < len(text) {
				r, size := utf8.DecodeRuneInString(text[i:])
				if !isTokenRune(r) || vault.IsCJK(r) != cjk {
					break
				}
				i += size
			}
			if cjk {
				curCJK = append(curCJK, text[start:i])
			} else {
				cur = append(cur, strings.ToLower(text[start:i]))
			}
		default:
			i += size
		}
	}
	flush(quoted)
	if len(q.terms) == 0 {
		q.symbols = SymbolWords(text)
		return q
	}
	q.dropStopWords()
	if len(q.terms) > MaxTerms {
		q.dropped = len(q.terms) - MaxTerms
		q.terms = q.terms[:MaxTerms]
	}
	if n := len(q.terms); n > 0 && q.strict() {
		last := &q.terms[n-1]
		if !last.phrase && !last.cjk && utf8.RuneCountInString(last.words[0]) >= minPrefix {
			last.prefix = true
		}
	}
	return q
}

// KeywordCut is how many terms of text keyword search leaves out, past
// MaxTerms.
func KeywordCut(text string) int { return parseQuery(text).dropped }

// HasTerms reports whether text holds a word keyword search looks for, as
// against symbols alone or nothing.
func HasTerms(text string) bool { return len(parseQuery(text).terms) > 0 }

// prefixWord is the word the last term matches as a prefix too, "" when
// it matches none.
func (q parsedQuery) prefixWord() string {
	if n := len(q.terms); n > 0 && q.terms[n-1].prefix {
		return q.terms[n-1].words[0]
	}
	return ""
}

// withoutPrefix is q with its last word matched as a whole word only.
func (q parsedQuery) withoutPrefix() parsedQuery {
	if n := len(q.terms); n > 0 && q.terms[n-1].prefix {
		q.terms = slices.Clone(q.terms)
		q.terms[n-1].prefix = false
	}
	return q
}

// dropStopWords removes single stop words, unless nothing else is left:
// "the who" still searches for The Who.
func (q *parsedQuery) dropStopWords() {
	kept := q.terms[:0:0]
	for _, t := range q.terms {
		if t.phrase || t.cjk || !stopWords[t.words[0]] {
			kept = append(kept, t)
		}
	}
	if len(kept) > 0 {
		q.terms = kept
	}
}

// isQuote reports whether r opens or closes a phrase.
func isQuote(r rune) bool {
	switch r {
	case '"', '“', '”', '„', '«', '»', '「', '」':
		return true
	}
	return false
}

// isTokenRune mirrors unicode61: letters, digits, marks and private-use
// characters make up words.
func isTokenRune(r rune) bool {
	return unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.IsNumber(r) || unicode.IsMark(r) || unicode.Is(unicode.Co, r)
}

// strict reports whether every term must match (see the grammar above).
func (q parsedQuery) strict() bool {
	return len(q.units()) <= strictTerms
}

// units are the terms a loose (OR) query is made of: a CJK run longer than
// two characters counts as each of its pairs, and words joined by
// punctuation ("boundary-layer") as each word that is not a stop word.
// Phrases the user quoted stay phrases.
func (q parsedQuery) units() []string { return q.anyExpr().parts }

// rankExpr is a MATCH expression as its parts, so that a query of plain
// words can be ranked without FTS5 (bm25.go).
type rankExpr struct {
	parts []string // FTS5 expressions, in the query's order
	// words are the parts as the index holds them, when every part is a
	// plain word or a phrase of them: a word stemmed as the index stems
	// it, a phrase its words so, joined by spaces. nil otherwise.
	words []string
	all   bool // every part must match, else any
}

// match is the expression as FTS5 reads it.
func (e rankExpr) match() string {
	if e.all {
		return strings.Join(e.parts, " AND ")
	}
	return strings.Join(e.parts, " OR ")
}

// allExpr is the expression requiring every term.
func (q parsedQuery) allExpr() rankExpr {
	e := rankExpr{all: true}
	plain := true
	for _, t := range q.terms {
		e.parts = append(e.parts, t.expr())
		if plain = plain && !t.cjk && !t.prefix; plain {
			var key string
			key, plain = indexTerm(t.words)
			e.words = append(e.words, key)
		}
	}
	if !plain {
		e.words = nil
	}
	return e
}

// anyExpr is the expression requiring any of the query's units.
func (q parsedQuery) anyExpr() rankExpr {
	var e rankExpr
	plain := true
	add := func(expr string, words ...string) {
		e.parts = append(e.parts, expr)
		if plain {
			var key string
			key, plain = indexTerm(words)
			e.words = append(e.words, key)
		}
	}
	for _, t := range q.terms {
		switch {
		case t.cjk:
			e.parts = append(e.parts, cjkUnits(t.words[0])...)
			plain = false
		case t.phrase && !t.quoted:
			n := len(e.parts)
			for _, w := range t.words {
				if !stopWords[w] {
					add(ftsString(w), w)
				}
			}
			if len(e.parts) == n { // only stop words: keep them together
				add(t.expr(), t.words...)
			}
		case t.prefix:
			e.parts = append(e.parts, t.expr())
			plain = false
		default:
			add(t.expr(), t.words...)
		}
	}
	if !plain {
		e.words = nil
	}
	return e
}

// matchAll is the MATCH expression requiring every term.
func (q parsedQuery) matchAll() string { return q.allExpr().match() }

// matchAny is the MATCH expression requiring any term.
func (q parsedQuery) matchAny() string { return q.anyExpr().match() }

// isPlainWord reports whether w, a word of a query, is one the index
// holds as indexWord makes it: ASCII letters and digits, whose folding
// and stemming TestStemAgreesWithFTS5 checks against FTS5's own.
func isPlainWord(w string) bool {
	if w == "" {
		return false
	}
	for i := 0; i < len(w); i++ {
		c := w[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9') {
			return false
		}
	}
	return true
}

// indexWord is a word as note_fts's tokenizer writes it to the index.
func indexWord(w string) string { return porterStem(foldToken(w)) }

// indexTerm is a word, or a phrase of words, as the index holds it (see
// rankExpr.words), and whether every word is plain.
func indexTerm(words []string) (string, bool) {
	stems := make([]string, len(words))
	for i, w := range words {
		if !isPlainWord(w) {
			return "", false
		}
		stems[i] = indexWord(w)
	}
	return strings.Join(stems, " "), true
}

// expr is the term as an FTS5 expression: each word an FTS5 string, so
// that no user text is ever read as syntax.
func (t term) expr() string {
	if t.cjk {
		return cjkPhrase(t.words[0])
	}
	s := ftsString(strings.Join(t.words, " "))
	if t.prefix {
		return "(" + s + " OR " + s + "*)"
	}
	return s
}

// cjkPhrase matches a CJK run in note_cjk: one character as the prefix of
// a pair, two as a pair, more as the phrase of their pairs.
func cjkPhrase(run string) string {
	rs := []rune(run)
	if len(rs) == 1 {
		return ftsString(run) + "*"
	}
	return ftsString(strings.Join(pairs(rs), " "))
}

// cjkUnits are the pairs of a CJK run, each its own term, for loose
// matching: "喫茶店の記録" finds a note with "記録" and "喫茶店".
func cjkUnits(run string) []string {
	rs := []rune(run)
	if len(rs) <= 2 {
		return []string{cjkPhrase(run)}
	}
	ps := pairs(rs)
	out := make([]string, len(ps))
	for i, p := range ps {
		out[i] = ftsString(p)
	}
	return out
}

func pairs(rs []rune) []string {
	out := make([]string, 0, len(rs)-1)
	for i := 0; i+1 < len(rs); i++ {
		out = append(out, string(rs[i:i+2]))
	}
	return out
}

// ftsString quotes s as an FTS5 string: inside double quotes nothing is
// syntax, and a double quote is written twice.
func ftsString(s string) string {
	return `"` + strings.ReplaceAll(s, `"`, `""`) + `"`
}

// needles are the strings a snippet made outside FTS5 marks: the words and
// CJK runs of every term.
func (q parsedQuery) needles() []string {
	var out []string
	for _, t := range q.terms {
		if t.cjk {
			out = append(out, t.words[0])
			if rs := []rune(t.words[0]); len(rs) > 2 {
				out = append(out, pairs(rs)...)
			}
			continue
		}
		out = append(out, t.words...)
	}
	return out
}

// stopWords are words too common to tell notes apart: English function
// words, and the articles, prepositions and conjunctions of French,
// Spanish, German, Italian and Portuguese, which notes are often written
// in besides (a note in French holds "à" and "de" as an English one holds
// "the"). They are dropped from queries (not from the index, so a phrase
// can still hold them): a question such as "what are the structural
// problems of flight", or "Gaspard à Sète", then ranks by its content
// words. A word that is also a common English word or a name's part
// ("pour", "car", "die", "son", "par", "war", "hat", "sin", "come", "ai",
// "al", "os", "dos"), or a letter of a word such as "e-mail" ("e", "o",
// "y"), is not among them; "mit" and "con" are, as German and Spanish
// notes hold them in nearly every sentence (a query of "MIT" alone is
// still searched).
var stopWords = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(`a about above after again against all am an and any are as at be because
		been before being below between both but by can could did do does doing down during each few for
		from further had has have having he her here hers herself him himself his how i if in into is it
		its itself just me more most my myself no nor not now of off on once only or other our ours
		ourselves out over own same she should so some such than that the their theirs them themselves
		then there these they this those through to too under until up very was we were what when where
		which while who whom why will with would you your yours yourself yourselves also may might must
		shall been upon via etc`) {
		m[w] = true
	}
	// French, Spanish, German, Italian, Portuguese.
	for _, w := range strings.Fields(`à au aux le la les un une des du de et en dans sur que qui ne ce cette
		ces il elle ils elles nous vous je tu lui leur leurs ses sa ou où mais donc ni avec chez pas
		aussi très comme tous être sont était fait
		el los las unos unas es por para se su como con sobre entre hasta desde pero más muy también
		este esta estos estas ese esa ser está fue ha
		der das dem des ein eine einer eines einem einen und oder ist im zu zum zur vom am von auf für
		nicht sich auch bei beim aus nach wie mit über unter ohne gegen durch bis seit dass wenn aber
		sind wird werden haben kein keine noch nur
		gli della delle dei degli di da è che per non nel nella sul sulla alla dalla anche più sono
		essere questo questa
		um uma do das no na nos é não com sobre mas também mais muito foi ao pela pelo numa`) {
		m[w] = true
	}
	return m
}()

// Words are the words keyword search looks for in text, lowercased, less
// the stop words it drops (unless nothing else is left).
func Words(text string) []string {
	pq := parseQuery(text)
	pq.dropStopWords()
	return pq.needles()
}

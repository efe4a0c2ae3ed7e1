package fulltext

import (
	"cmp"
	"context"
	"slices"
	"strings"
	"unicode"

	"github.com/jarvis-mcp/jarvis/internal/search/notes"
)

// Emoji and other symbols (★, ©, ✅) are separators to FTS5's unicode61
// tokenizer, so no full-text table holds them. A query made only of them
// is answered by looking for the symbols themselves in the notes' names
// and chunks: a scan, not an index lookup, but such queries are rare and
// the alternative is finding nothing.

// SymbolWords returns the runs of symbol characters in text, each at most
// once, in order: "🚀 launch 🎉🎉" gives "🚀" and "🎉🎉".
func SymbolWords(text string) []string {
	var out []string
	start := -1
	flush := func(end int) {
		if start >= 0 {
			w := text[start:end]
			if strings.IndexFunc(w, isSymbol) >= 0 && !slices.Contains(out, w) {
				out = append(out, w)
			}
			start = -1
		}
	}
	for i, r := range text {
		if isSymbol(r) || (start >= 0 && isSymbolJoiner(r)) {
			if start < 0 {
				start = i
			}
			continue
		}
		flush(i)
	}
	flush(len(text))
	return out
}

// isSymbol reports whether r is a symbol no tokenizer indexes: emoji,
// pictographs, dingbats, marks such as © and ™, and modifiers like skin
// tones.
func isSymbol(r rune) bool {
	return unicode.In(r, unicode.So, unicode.Sk)
}

// isSymbolJoiner reports whether r continues an emoji sequence begun by a
// symbol: the zero width joiner of 👩‍💻, variation selectors, the keycap
// mark. (A keycap emoji such as 1️⃣ begins with a digit, which the word
// index holds, so it is searched as that digit.)
func isSymbolJoiner(r rune) bool {
	return r == '\u200d' || r == '\u20e3' || unicode.Is(unicode.Variation_Selector, r)
}

// symbolWeight is what a symbol in a note's title, aliases or path counts
// for against one in its text, as names weigh most in keyword search.
const symbolWeight = 8

// searchSymbols finds the notes holding the symbols: those whose names hold
// them first, then by how often their text does. With names only, text is
// not searched.
func (k *Keyword) searchSymbols(ctx context.Context, symbols []string, f notes.Filter, namesOnly bool, limit int) ([]notes.Result, error) {
	where, fargs := f.NoteIDs()
	if where != "" {
		where = ` AND f.id IN (` + where + `)`
	}
	hits := map[int64]*keywordHit{}
	best := map[int64]int{} // occurrences in the best chunk so far
	hit := func(id int64) *keywordHit {
		h := hits[id]
		if h == nil {
			h = &keywordHit{id: id, res: notes.Result{Line: 1}}
			hits[id] = h
			best[id] = -1
		}
		return h
	}

	anyOf := func(expr string) (string, []any) {
		conds := make([]string, 0, len(symbols))
		args := make([]any, 0, len(symbols))
		for _, s := range symbols {
			conds = append(conds, `instr(`+expr+`, ?) > 0`)
			args = append(args, s)
		}
		return `(` + strings.Join(conds, " OR ") + `)`, args
	}
	nameCond, nameArgs := anyOf(`f.title || char(10) || coalesce(n.aliases, '') || char(10) || f.path`)
	rows, err := k.db.QueryContext(ctx, `SELECT f.id, f.title || char(10) || coalesce(n.aliases, '') || char(10) || f.path
		FROM files f LEFT JOIN search_notes n ON n.file_id = f.id
		WHERE f.kind = 'note' AND `+nameCond+where, append(nameArgs, fargs...)...)
	if err != nil {
		return nil, err
	}
	for rows.Next() {
		var id int64
		var names string
		if err := rows.Scan(&id, &names); err != nil {
			rows.Close()
			return nil, err
		}
		hit(id).res.Score += float64(symbolWeight * len(findNeedles(names, symbols)))
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, err
	}

	if !namesOnly {
		textCond, textArgs := anyOf(`c.text`)
		rows, err := k.db.QueryContext(ctx, `SELECT c.file_id, c.heading, c.start_line, c.text
			FROM chunks c JOIN files f ON f.id = c.file_id
			WHERE f.kind = 'note' AND `+textCond+where+` ORDER BY c.file_id, c.ord`, append(textArgs, fargs...)...)
		if err != nil {
			return nil, err
		}
		for rows.Next() {
			var id int64
			var c storedChunk
			if err := rows.Scan(&id, &c.heading, &c.line, &c.text); err != nil {
				rows.Close()
				return nil, err
			}
			found := findNeedles(c.text, symbols)
			h := hit(id)
			h.res.Score += float64(len(found))
			if len(found) > best[id] {
				best[id] = len(found)
				h.res.Line = c.line + strings.Count(c.text[:found[0].start], "\n")
				h.res.Snippet = markedExcerpt(c.text, symbols, snippetRunes)
			}
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return nil, err
		}
	}

	// Cut before reading names: a symbol such as ✅ can be in thousands of
	// notes. Equal scores keep the order notes were indexed in.
	list := make([]keywordHit, 0, len(hits))
	for _, h := range hits {
		list = append(list, *h)
	}
	slices.SortFunc(list, func(a, b keywordHit) int {
		return cmp.Or(cmp.Compare(b.res.Score, a.res.Score), cmp.Compare(a.id, b.id))
	})
	list = list[:min(limit, len(list))]
	if err := k.describe(ctx, list); err != nil {
		return nil, err
	}
	for i := range list {
		if list[i].res.Snippet == "" {
			list[i].res.Snippet = markedExcerpt(list[i].res.Title, symbols, snippetRunes)
		}
	}
	return k.withHeadings(ctx, list)
}

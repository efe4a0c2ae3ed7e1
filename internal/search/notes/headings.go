package notes

import (
	"context"
	"strings"

	"github.com/jarvis-mcp/jarvis/internal/store"
	"github.com/jarvis-mcp/jarvis/internal/vault"
)

// HeadingsAbove sets each result's Heading to the path of the headings
// above its Line in its note (files[i] is the note of rs[i]), outermost
// first, as the index recorded them. A chunk's own heading path is not
// always that: a tiny section joins the section after it, and the chunk
// takes the later section's path.
func HeadingsAbove(ctx context.Context, db Querier, files []int64, rs []Result) error {
	if len(rs) == 0 {
		return nil
	}
	ids := make([]any, 0, len(files))
	seen := map[int64]bool{}
	for _, id := range files {
		if !seen[id] {
			seen[id] = true
			ids = append(ids, id)
		}
	}
	byFile, err := ReadHeadings(ctx, db, ids)
	if err != nil {
		return err
	}
	for i := range rs {
		rs[i].Heading = pathAt(byFile[files[i]], rs[i].Line)
	}
	return nil
}

// ReadHeadings reads the headings of the notes with the given ids, each
// note's in line order.
func ReadHeadings(ctx context.Context, db Querier, ids []any) (map[int64][]vault.Heading, error) {
	byFile := map[int64][]vault.Heading{}
	if len(ids) == 0 {
		return byFile, nil
	}
	rows, err := db.QueryContext(ctx, `SELECT file_id, level, text, line FROM headings
		WHERE file_id IN (`+store.Placeholders(len(ids))+`) ORDER BY file_id, line, ord`, ids...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		var id int64
		var h vault.Heading
		if err := rows.Scan(&id, &h.Level, &h.Text, &h.Line); err != nil {
			return nil, err
		}
		byFile[id] = append(byFile[id], h)
	}
	return byFile, rows.Err()
}

// pathAt is the heading path in force at line, given a note's headings in
// line order: each heading closes those of its level and deeper.
func pathAt(hs []vault.Heading, line int) string {
	var open []vault.Heading
	for _, h := range hs {
		if h.Line > line {
			break
		}
		for len(open) > 0 && open[len(open)-1].Level >= h.Level {
			open = open[:len(open)-1]
		}
		open = append(open, h)
	}
	parts := make([]string, 0, len(open))
	for _, h := range open {
		if h.Text != "" {
			parts = append(parts, h.Text)
		}
	}
	return strings.Join(parts, " > ")
}

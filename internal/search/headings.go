package search

import (
	"context"
	"strings"
)

// headingsAbove sets each result's Heading to the path of the headings
// above its Line in its note (files[i] is the note of rs[i]), outermost
// first, as the index recorded them. A chunk's own heading path is not
// always that: a tiny section joins the section after it, and the chunk
// takes the later section's path.
func headingsAbove(ctx context.Context, db Querier, files []int64, rs []Result) error {
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
	rows, err := db.QueryContext(ctx, `SELECT file_id, level, text, line FROM headings
		WHERE file_id IN (`+placeholders(len(ids))+`) ORDER BY file_id, line, ord`, ids...)
	if err != nil {
		return err
	}
	defer rows.Close()
	byFile := map[int64][]heading{}
	for rows.Next() {
		var id int64
		var h heading
		if err := rows.Scan(&id, &h.level, &h.text, &h.line); err != nil {
			return err
		}
		byFile[id] = append(byFile[id], h)
	}
	if err := rows.Err(); err != nil {
		return err
	}
	for i := range rs {
		rs[i].Heading = pathAt(byFile[files[i]], rs[i].Line)
	}
	return nil
}

type heading struct {
	level int
	text  string
	line  int
}

// pathAt is the heading path in force at line, given a note's headings in
// line order: each heading closes those of its level and deeper.
func pathAt(hs []heading, line int) string {
	var open []heading
	for _, h := range hs {
		if h.line > line {
			break
		}
		for len(open) > 0 && open[len(open)-1].level >= h.level {
			open = open[:len(open)-1]
		}
		open = append(open, h)
	}
	parts := make([]string, 0, len(open))
	for _, h := range open {
		if h.text != "" {
			parts = append(parts, h.text)
		}
	}
	return strings.Join(parts, " > ")
}

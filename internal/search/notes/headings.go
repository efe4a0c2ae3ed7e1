package notes

import (
	"context"

	"github.com/jarvis-mcp/jarvis/internal/store"
	"github.com/jarvis-mcp/jarvis/internal/vault"
)

// HeadingsAbove names the sections of each result's passage (files[i] is
// the note of rs[i]) as the index recorded the note's headings: Heading is
// the path in force at its Line, and Then the headings of the later
// sections it runs into up to its End (see vault.SectionsOf). A chunk's
// own heading path is not always that: a tiny section joins the section
// after it, and the chunk takes the later section's path.
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
		sec := vault.SectionsOf(byFile[files[i]], rs[i].Line, max(rs[i].Line, rs[i].End))
		rs[i].Heading, rs[i].Then = sec.Path, sec.Then
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

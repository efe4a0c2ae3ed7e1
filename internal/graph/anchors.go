package graph

import (
	"context"
	"fmt"
	"strings"
	"unicode"
)

// BrokenAnchor is a link that reaches its note but names a heading or
// block the note does not have: [[Note#Renamed heading]], [[Note#^gone]].
type BrokenAnchor struct {
	Source  string `json:"source"`
	Line    int    `json:"line"`
	Target  string `json:"target"`  // the path of the note linked to
	Subpath string `json:"subpath"` // the heading or ^block as written
}

// BrokenAnchors lists the links of a vault whose heading or block is not
// in the note they resolve to, by source path and line. Headings are
// compared by their words (see anchorKey); of a nested subpath (H1#H2)
// the last heading is checked.
func (g *Graph) BrokenAnchors(ctx context.Context, vaultName string) ([]BrokenAnchor, error) {
	cond, args := g.inScope("s", vaultName)
	rows, err := g.db.QueryContext(ctx, `SELECT s.path, l.line, t.path, l.target_id, l.subpath
		FROM links l JOIN files s ON s.id = l.source_id JOIN files t ON t.id = l.target_id
		WHERE l.subpath != '' AND t.kind = 'note' AND `+cond+` ORDER BY s.path, l.ord`, args...)
	if err != nil {
		return nil, fmt.Errorf("links to headings: %w", err)
	}
	type link struct {
		BrokenAnchor
		target int64
	}
	var links []link
	for rows.Next() {
		var l link
		if err := rows.Scan(&l.Source, &l.Line, &l.Target, &l.target, &l.Subpath); err != nil {
			rows.Close()
			return nil, fmt.Errorf("links to headings: %w", err)
		}
		links = append(links, l)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("links to headings: %w", err)
	}
	if len(links) == 0 {
		return nil, nil
	}

	// The anchors of every note linked to with a subpath, as keys.
	anchors := map[int64]map[string]bool{}
	add := func(id int64, key string) {
		if anchors[id] == nil {
			anchors[id] = map[string]bool{}
		}
		anchors[id][key] = true
	}
	targets := `SELECT DISTINCT l.target_id FROM links l JOIN files s ON s.id = l.source_id
		WHERE l.subpath != '' AND l.target_id IS NOT NULL AND ` + cond
	for _, q := range []struct{ sql, prefix string }{
		{`SELECT file_id, text FROM headings WHERE file_id IN (` + targets + `)`, ""},
		{`SELECT file_id, block_id FROM blocks WHERE file_id IN (` + targets + `)`, "^"},
	} {
		rows, err := g.db.QueryContext(ctx, q.sql, args...)
		if err != nil {
			return nil, fmt.Errorf("headings of linked notes: %w", err)
		}
		for rows.Next() {
			var id int64
			var text string
			if err := rows.Scan(&id, &text); err != nil {
				rows.Close()
				return nil, fmt.Errorf("headings of linked notes: %w", err)
			}
			add(id, anchorKey(q.prefix+text))
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return nil, fmt.Errorf("headings of linked notes: %w", err)
		}
	}

	var out []BrokenAnchor
	for _, l := range links {
		have := anchors[l.target]
		// The whole subpath first: a heading may hold '#' itself
		// ("C# basics"). Else the last heading of a nested one (H1#H2).
		if key := anchorKey(l.Subpath); key == "" || have[key] {
			continue
		}
		last := l.Subpath
		if i := strings.LastIndexByte(last, '#'); i >= 0 && !strings.HasPrefix(last, "^") {
			last = last[i+1:]
		}
		if key := anchorKey(last); key != "" && !have[key] {
			out = append(out, l.BrokenAnchor)
		}
	}
	return out, nil
}

// anchorKey is a heading or block id as compared with a link's subpath:
// its letters and digits in lower case, every run of anything else one
// space. Obsidian drops some characters from links to headings and
// matches leniently; comparing words alone keeps doctor from reporting
// links that work ("#`move`" for the heading "`move`", a question's
// heading without its "?"). A block id keeps its leading caret, so it
// never equals a heading.
func anchorKey(s string) string {
	block := strings.HasPrefix(s, "^")
	s = strings.Map(func(r rune) rune {
		if unicode.In(r, unicode.L, unicode.N, unicode.M) {
			return unicode.ToLower(r)
		}
		return ' '
	}, s)
	s = strings.Join(strings.Fields(s), " ")
	if block && s != "" {
		return "^" + s
	}
	return s
}

package index

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/jarvis-mcp/jarvis/internal/vault"
)

// Anchor text: how other notes link to a note describes it, often in the
// words a reader searches with ("keep [[Sync regions|your data in the
// EU]]"). Each note's full-text row has a field for it
// (migrations/0006_anchors.sql), weighted like the note's own text.
//
// What a link contributes is its display text, or its target as written
// when it has none: the words of the link, not the line around it. FTS5's
// BM25 normalises by the length of the whole row, not field by field, so
// whatever goes into the field makes a linked note longer for every query.
// With the sentence holding each link added, short notes linked from a
// few places sank below notes that merely mention their subject (on the
// example vault, "how fine to grind for pour over" put Pour over 4th
// instead of 1st), and the Help queries gained nothing
// (docs/benchmarks.md, "Ranking").
const (
	// maxAnchorLines bounds the lines one note takes anchor text from,
	// taken from linking notes in path order, for the same reason: a note
	// linked from everywhere ("Settings", from 147 lines of the Obsidian
	// Help vault) would otherwise grow long on anchors alone. 10 kept
	// Help keyword recall@5 where it was; 20 lowered it.
	maxAnchorLines = 10
)

// anchorLinks selects, for the notes that cond picks (as t, the note
// linked to), the links that give them anchor text, in the order their
// text is joined. Links from frontmatter properties carry no prose, and
// a note's links to itself say nothing new.
const anchorLinks = `SELECT l.target_id, s.path, l.line, l.target, l.display
	FROM links l JOIN files s ON s.id = l.source_id JOIN files t ON t.id = l.target_id
	WHERE t.kind = 'note' AND l.source_id != l.target_id AND l.kind != 'frontmatter' AND `

// anchorOrder orders anchorLinks so that each note's links come together.
const anchorOrder = ` ORDER BY l.target_id, s.path, l.line, l.ord`

// querier is what anchorTexts reads with: the database or a transaction.
type querier interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
}

// anchorTexts returns the anchor text of each note that cond (a condition
// on t, the note linked to) picks and that has any.
func anchorTexts(ctx context.Context, q querier, cond string, args ...any) (map[int64]string, error) {
	rows, err := q.QueryContext(ctx, anchorLinks+cond+anchorOrder, args...)
	if err != nil {
		return nil, fmt.Errorf("read anchor text: %w", err)
	}
	defer rows.Close()
	out := map[int64]string{}
	type place struct {
		path string
		line int
	}
	var (
		cur   int64 = -1
		parts []string
		seen  map[place]bool
	)
	done := func() {
		if len(parts) > 0 {
			out[cur] = strings.Join(parts, "\n")
		}
	}
	for rows.Next() {
		var id int64
		var at place
		var target, display string
		if err := rows.Scan(&id, &at.path, &at.line, &target, &display); err != nil {
			return nil, fmt.Errorf("read anchor text: %w", err)
		}
		if id != cur {
			done()
			cur, parts, seen = id, nil, map[place]bool{}
		}
		// Several links on one line to the same note count once.
		if seen[at] || len(parts) == maxAnchorLines {
			continue
		}
		seen[at] = true
		written := display
		if written == "" {
			written = target
		}
		parts = append(parts, written)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("read anchor text: %w", err)
	}
	done()
	return out, nil
}

// searchNote is a search_notes row (migrations/0003_fts.sql, 0006).
type searchNote struct {
	ID       int64  `json:"id"`
	Title    string `json:"title"`
	Aliases  string `json:"aliases"`  // one per line
	Headings string `json:"headings"` // one per line
	Path     string `json:"path"`     // without ".md"
	Tags     string `json:"tags"`     // space-separated
	CJK      string `json:"cjk"`      // title and aliases as CJK pairs, or ""
	Anchors  string `json:"anchors"`
}

// writeSearchNotes is the pass that ends an index run of a vault with
// changes, once every link is stored and resolved. It writes the
// search_notes row of each note the run parsed, made from what the batches
// stored (files, aliases, headings, tags; the chunks are in place), and
// rewrites the anchor text of the notes whose incoming links changed
// (anchors_pending), each of whose rows the triggers of
// migrations/0006_anchors.sql then take out of note_fts and index again.
// Rows whose anchors did not change are not touched. It runs in the
// transaction that clears resolve_pending, so a run cut off before it is
// finished by the next. It returns how many rows it inserted and
// rewrote.
func writeSearchNotes(ctx context.Context, tx *sql.Tx, vaultID int64) (inserted, rewritten int, err error) {
	const missing = `NOT EXISTS (SELECT 1 FROM search_notes n WHERE n.file_id = t.id)`
	anchors, err := anchorTexts(ctx, tx, `t.vault_id = ? AND (t.id IN (SELECT file_id FROM anchors_pending) OR `+missing+`)`, vaultID)
	if err != nil {
		return 0, 0, err
	}
	if rewritten, err = rewriteAnchors(ctx, tx, vaultID, anchors); err != nil {
		return 0, 0, err
	}
	rows, err := tx.QueryContext(ctx, `SELECT t.id, t.path, t.title,
			coalesce((SELECT group_concat(a.alias, char(10) ORDER BY a.rowid) FROM aliases a WHERE a.file_id = t.id), ''),
			coalesce((SELECT group_concat(h.text, char(10) ORDER BY h.ord) FROM headings h WHERE h.file_id = t.id), ''),
			coalesce((SELECT group_concat(g.tag, ' ' ORDER BY g.rowid) FROM tags g WHERE g.file_id = t.id), '')
		FROM files t WHERE t.vault_id = ? AND t.kind = 'note' AND `+missing+` ORDER BY t.id`, vaultID)
	if err != nil {
		return 0, 0, fmt.Errorf("write search rows: %w", err)
	}
	var notes []searchNote
	for rows.Next() {
		var n searchNote
		if err := rows.Scan(&n.ID, &n.Path, &n.Title, &n.Aliases, &n.Headings, &n.Tags); err != nil {
			rows.Close()
			return 0, 0, fmt.Errorf("write search rows: %w", err)
		}
		n.Path = strings.TrimSuffix(n.Path, ".md")
		if names := n.Title + "\n" + n.Aliases; vault.HasCJK(names) {
			n.CJK = vault.CJKPairs(names)
		}
		n.Anchors = anchors[n.ID]
		notes = append(notes, n)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return 0, 0, fmt.Errorf("write search rows: %w", err)
	}
	if len(notes) > 0 {
		// One statement, in rowid order: FTS5 then writes few segments.
		data, err := json.Marshal(notes)
		if err != nil {
			return 0, 0, fmt.Errorf("write search rows: %w", err)
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO search_notes (file_id, title, aliases, headings, path, tags, cjk, anchors)
			SELECT value ->> 'id', value ->> 'title', value ->> 'aliases', value ->> 'headings', value ->> 'path',
				value ->> 'tags', value ->> 'cjk', value ->> 'anchors'
			FROM json_each(?) ORDER BY key`, data); err != nil {
			return 0, 0, fmt.Errorf("write search rows: %w", err)
		}
	}
	if _, err := tx.ExecContext(ctx, `DELETE FROM anchors_pending
		WHERE file_id IN (SELECT id FROM files WHERE vault_id = ?) OR file_id NOT IN (SELECT id FROM files)`, vaultID); err != nil {
		return 0, 0, fmt.Errorf("write search rows: %w", err)
	}
	return len(notes), rewritten, nil
}

// rewriteAnchors updates the anchors of the vault's existing search_notes
// rows marked in anchors_pending to want (by file id), where they differ.
func rewriteAnchors(ctx context.Context, tx *sql.Tx, vaultID int64, want map[int64]string) (int, error) {
	rows, err := tx.QueryContext(ctx, `SELECT n.file_id, n.anchors FROM search_notes n
		JOIN anchors_pending p ON p.file_id = n.file_id JOIN files f ON f.id = n.file_id
		WHERE f.vault_id = ? ORDER BY n.file_id`, vaultID)
	if err != nil {
		return 0, fmt.Errorf("rewrite anchor text: %w", err)
	}
	type change struct {
		id      int64
		anchors string
	}
	var changes []change
	for rows.Next() {
		var id int64
		var have string
		if err := rows.Scan(&id, &have); err != nil {
			rows.Close()
			return 0, fmt.Errorf("rewrite anchor text: %w", err)
		}
		if w := want[id]; w != have {
			changes = append(changes, change{id, w})
		}
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return 0, fmt.Errorf("rewrite anchor text: %w", err)
	}
	if len(changes) == 0 {
		return 0, nil
	}
	stmt, err := tx.PrepareContext(ctx, `UPDATE search_notes SET anchors = ? WHERE file_id = ?`)
	if err != nil {
		return 0, fmt.Errorf("rewrite anchor text: %w", err)
	}
	defer stmt.Close()
	for _, c := range changes {
		if _, err := stmt.ExecContext(ctx, c.anchors, c.id); err != nil {
			return 0, fmt.Errorf("rewrite anchor text: %w", err)
		}
	}
	return len(changes), nil
}

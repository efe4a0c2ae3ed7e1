package fulltext

import (
	"context"
	"fmt"
	"strings"
)

// maxMentionCandidates bounds how many notes NotesMentioning returns.
const maxMentionCandidates = 200

// NotesMentioning returns the paths of notes of vault whose text holds
// one of names as a phrase, by full-text search (so "grinders" finds
// "grinder" too: callers check the text), at most limit of them, those
// with the most mentions first, and whether there were more.
func (k *Keyword) NotesMentioning(ctx context.Context, vaultName string, names []string, limit int) ([]string, bool, error) {
	var phrases []string
	for _, n := range names {
		if strings.TrimSpace(n) == "" {
			continue
		}
		phrases = append(phrases, `"`+strings.ReplaceAll(n, `"`, `""`)+`"`)
	}
	if len(phrases) == 0 {
		return nil, false, nil
	}
	limit = min(max(limit, 1), maxMentionCandidates)
	match := `body : (` + strings.Join(phrases, " OR ") + `)`
	rows, err := k.db.QueryContext(ctx, `SELECT f.path FROM note_fts m JOIN files f ON f.id = m.rowid
		WHERE note_fts MATCH ? AND f.vault_id = (SELECT id FROM vaults WHERE name = ?)
		ORDER BY m.rank, m.rowid LIMIT ?`, match, vaultName, limit+1)
	if err != nil {
		return nil, false, fmt.Errorf("find notes mentioning %q: %w", names, err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var p string
		if err := rows.Scan(&p); err != nil {
			return nil, false, fmt.Errorf("find notes mentioning %q: %w", names, err)
		}
		out = append(out, p)
	}
	if err := rows.Err(); err != nil {
		return nil, false, fmt.Errorf("find notes mentioning %q: %w", names, err)
	}
	if len(out) > limit {
		return out[:limit], true, nil
	}
	return out, false, nil
}

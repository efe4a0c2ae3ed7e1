package fulltext

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/jarvis-mcp/jarvis/internal/vault"
)

// NotesHolding counts the notes of vault, other than those at the paths
// in except, whose names, headings or text hold every one of words,
// counting no further than limit. A word with Chinese or Japanese
// characters is one of the pairs vault.CJKPairs makes; the notes holding
// any are searched in note_cjk, where their text is written in those
// pairs (and the rest of it as it is). Words are matched as full-text
// search matches them: stemmed, without regard to case or accents.
func (k *Keyword) NotesHolding(ctx context.Context, vaultName string, words []string, except []string, limit int) (int, error) {
	var terms []string
	table := "note_fts"
	for _, w := range words {
		if strings.TrimSpace(w) == "" {
			continue
		}
		if vault.HasCJK(w) {
			table = "note_cjk"
		}
		terms = append(terms, `"`+strings.ReplaceAll(w, `"`, `""`)+`"`)
	}
	if len(terms) == 0 || limit <= 0 {
		return 0, nil
	}
	// Each path left out adds one to the limit: the notes are counted
	// before they are left out, so that SQLite stops early either way.
	rows, err := k.db.QueryContext(ctx, `SELECT f.path FROM `+table+` m JOIN files f ON f.id = m.rowid
		WHERE `+table+` MATCH ? AND f.vault_id = (SELECT id FROM vaults WHERE name = ?)
		LIMIT `+strconv.Itoa(limit+len(except)), strings.Join(terms, " AND "), vaultName)
	if err != nil {
		return 0, fmt.Errorf("count notes holding %q: %w", words, err)
	}
	defer rows.Close()
	n := 0
	for rows.Next() {
		var p string
		if err := rows.Scan(&p); err != nil {
			return 0, fmt.Errorf("count notes holding %q: %w", words, err)
		}
		if !slices.Contains(except, p) {
			n++
		}
	}
	if err := rows.Err(); err != nil {
		return 0, fmt.Errorf("count notes holding %q: %w", words, err)
	}
	return min(n, limit), nil
}

package index

import (
	"context"
	"fmt"

	"github.com/jarvis-mcp/jarvis/internal/vault"
)

// keyTags stores the key (vault.TagKey) of every tag of a vault that has
// none: the tags 0010_tag_fold.sql left without one, as SQLite cannot
// fold case beyond ASCII. Notes written since store their tags' keys with
// them, so once this has run it finds nothing, through tags_fold.
func (ix *Indexer) keyTags(ctx context.Context, vaultID int64) error {
	rows, err := ix.db.QueryContext(ctx, `SELECT t.rowid, t.tag FROM tags t JOIN files f ON f.id = t.file_id
		WHERE t.fold = '' AND f.vault_id = ?`, vaultID)
	if err != nil {
		return fmt.Errorf("key tags: %w", err)
	}
	type keyed struct {
		row int64
		key string
	}
	var keys []keyed
	for rows.Next() {
		var k keyed
		var tag string
		if err := rows.Scan(&k.row, &tag); err != nil {
			rows.Close()
			return fmt.Errorf("key tags: %w", err)
		}
		k.key = vault.TagKey(tag)
		keys = append(keys, k)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return fmt.Errorf("key tags: %w", err)
	}
	if len(keys) == 0 {
		return nil
	}
	tx, err := ix.db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("key tags: %w", err)
	}
	defer tx.Rollback()
	st, err := tx.PrepareContext(ctx, `UPDATE tags SET fold = ? WHERE rowid = ?`)
	if err != nil {
		return fmt.Errorf("key tags: %w", err)
	}
	defer st.Close()
	for _, k := range keys {
		if _, err := st.ExecContext(ctx, k.key, k.row); err != nil {
			return fmt.Errorf("key tags: %w", err)
		}
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("key tags: %w", err)
	}
	ix.log.Debug("tags keyed", "vault_id", vaultID, "count", len(keys))
	return nil
}

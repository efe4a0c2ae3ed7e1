package index

import (
	"context"
	"database/sql"
	"fmt"
)

// hashQuerier is what NotesByHash needs of the database.
type hashQuerier interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
}

// NotesByHash are the paths of the notes of the vault named whose
// SHA-256 (hex), as last indexed, begins with prefix, at most a few: a
// write refused for an etag that is not its note's can then say which
// note it came from (the etag is such a prefix). The files table has no
// index on hash, so this scans the vault's notes; it runs only when a
// write is refused.
func NotesByHash(ctx context.Context, db hashQuerier, vaultName, prefix string) ([]string, error) {
	if prefix == "" {
		return nil, nil
	}
	rows, err := db.QueryContext(ctx, `SELECT f.path FROM files f JOIN vaults v ON v.id = f.vault_id
		WHERE v.name = ? AND f.kind = 'note' AND substr(f.hash, 1, length(?2)) = ?2 ORDER BY f.path LIMIT 5`, vaultName, prefix)
	if err != nil {
		return nil, fmt.Errorf("find notes by content: %w", err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var p string
		if err := rows.Scan(&p); err != nil {
			return nil, fmt.Errorf("find notes by content: %w", err)
		}
		out = append(out, p)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("find notes by content: %w", err)
	}
	return out, nil
}

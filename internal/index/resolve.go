package index

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/jarvis-mcp/jarvis/internal/vault"
)

// resolveIfPending resolves every link of the vault again when files or
// their links changed since the last resolution. A whole-vault pass is what
// makes renames and deletions right: adding "B/Note.md" can change where a
// "[[Note]]" in any other note points, so no link is exempt. Only rows whose
// answer changed are written.
func (ix *Indexer) resolveIfPending(ctx context.Context, vaultID int64) error {
	var pending bool
	if err := ix.db.QueryRowContext(ctx, `SELECT resolve_pending FROM vaults WHERE id = ?`, vaultID).Scan(&pending); err != nil {
		return fmt.Errorf("resolve links: %w", err)
	}
	if !pending {
		return nil
	}
	return ix.ResolveLinks(ctx, vaultID)
}

// ResolveLinks resolves every link of one vault against its current files.
func (ix *Indexer) ResolveLinks(ctx context.Context, vaultID int64) error {
	paths, ids, err := ix.loadPaths(ctx, vaultID)
	if err != nil {
		return fmt.Errorf("resolve links: %w", err)
	}
	aliases, err := ix.loadAliases(ctx, vaultID)
	if err != nil {
		return fmt.Errorf("resolve links: %w", err)
	}
	r := vault.NewResolver(paths, aliases)
	pathOf := make(map[int64]string, len(paths))
	idOf := make(map[string]int64, len(paths))
	for i, p := range paths {
		pathOf[ids[i]] = p
		idOf[p] = ids[i]
	}

	type change struct {
		link   int64
		target sql.NullInt64
	}
	var changes []change
	rows, err := ix.db.QueryContext(ctx, `SELECT l.id, l.source_id, l.kind, l.target, l.target_id
		FROM links l JOIN files f ON f.id = l.source_id WHERE f.vault_id = ?`, vaultID)
	if err != nil {
		return fmt.Errorf("resolve links: %w", err)
	}
	for rows.Next() {
		var id, source int64
		var kind, target string
		var cur sql.NullInt64
		if err := rows.Scan(&id, &source, &kind, &target, &cur); err != nil {
			rows.Close()
			return fmt.Errorf("resolve links: %w", err)
		}
		var want sql.NullInt64
		if p, ok := r.Resolve(pathOf[source], target, kind == string(vault.KindMarkdown)); ok {
			want = sql.NullInt64{Int64: idOf[p], Valid: true}
		}
		if want != cur {
			changes = append(changes, change{id, want})
		}
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return fmt.Errorf("resolve links: %w", err)
	}

	tx, err := ix.db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("resolve links: %w", err)
	}
	defer tx.Rollback()
	stmt, err := tx.PrepareContext(ctx, `UPDATE links SET target_id = ? WHERE id = ?`)
	if err != nil {
		return fmt.Errorf("resolve links: %w", err)
	}
	defer stmt.Close()
	for _, c := range changes {
		if _, err := stmt.ExecContext(ctx, c.target, c.link); err != nil {
			return fmt.Errorf("resolve links: %w", err)
		}
	}
	if _, err := tx.ExecContext(ctx, `UPDATE vaults SET resolve_pending = 0 WHERE id = ?`, vaultID); err != nil {
		return fmt.Errorf("resolve links: %w", err)
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("resolve links: %w", err)
	}
	ix.log.Debug("links resolved", "vault_id", vaultID, "changed", len(changes))
	return nil
}

func (ix *Indexer) loadPaths(ctx context.Context, vaultID int64) ([]string, []int64, error) {
	rows, err := ix.db.QueryContext(ctx, `SELECT id, path FROM files WHERE vault_id = ? ORDER BY path`, vaultID)
	if err != nil {
		return nil, nil, err
	}
	defer rows.Close()
	var paths []string
	var ids []int64
	for rows.Next() {
		var id int64
		var p string
		if err := rows.Scan(&id, &p); err != nil {
			return nil, nil, err
		}
		paths = append(paths, p)
		ids = append(ids, id)
	}
	return paths, ids, rows.Err()
}

func (ix *Indexer) loadAliases(ctx context.Context, vaultID int64) (map[string][]string, error) {
	rows, err := ix.db.QueryContext(ctx, `SELECT f.path, a.alias FROM aliases a JOIN files f ON f.id = a.file_id
		WHERE f.vault_id = ? ORDER BY f.path, a.rowid`, vaultID)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[string][]string{}
	for rows.Next() {
		var p, a string
		if err := rows.Scan(&p, &a); err != nil {
			return nil, err
		}
		out[p] = append(out[p], a)
	}
	return out, rows.Err()
}

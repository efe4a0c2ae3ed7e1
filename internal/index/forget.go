package index

import (
	"context"
	"fmt"
	"slices"

	"github.com/jarvis-mcp/jarvis/internal/words"
)

// Forget removes a vault and everything indexed from it (notes, links,
// search rows) from the database; its vectors go at the next vector sync.
// It reports how many notes the vault held. The files on disk are never
// touched.
func (ix *Indexer) Forget(ctx context.Context, name string) (int, error) {
	unlock, err := ix.db.LockWriters(ctx)
	if err != nil {
		return 0, fmt.Errorf("forget vault %q: %w", name, err)
	}
	defer unlock()
	var notes int
	if err := ix.db.QueryRowContext(ctx, `SELECT coalesce(sum(notes), 0) FROM vaults WHERE name = ?`, name).Scan(&notes); err != nil {
		return 0, fmt.Errorf("forget vault %q: %w", name, err)
	}
	res, err := ix.db.ExecContext(ctx, `DELETE FROM vaults WHERE name = ?`, name)
	if err != nil {
		return 0, fmt.Errorf("forget vault %q: %w", name, err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		held, err := ix.VaultNames(ctx)
		if err != nil {
			return 0, fmt.Errorf("forget vault %q: %w", name, err)
		}
		return 0, noVaultNamed(name, held)
	}
	return notes, nil
}

// noVaultNamed says that a vault to forget is not in the database, and
// which vaults are, so that the user can give one of those.
func noVaultNamed(name string, held []string) error {
	switch len(held) {
	case 0:
		return fmt.Errorf("the database holds no vaults, so there is no vault named %q to forget", name)
	case 1:
		return fmt.Errorf("the database holds no vault named %q; the only vault it holds is %s", name, words.Quoted(held))
	}
	return fmt.Errorf("the database holds no vault named %q; the vaults it holds are %s", name, words.Quoted(held))
}

// VaultNames lists the vaults the database holds, by name.
func (ix *Indexer) VaultNames(ctx context.Context) ([]string, error) {
	rows, err := ix.db.QueryContext(ctx, `SELECT name FROM vaults ORDER BY name`)
	if err != nil {
		return nil, fmt.Errorf("list vaults: %w", err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var n string
		if err := rows.Scan(&n); err != nil {
			return nil, fmt.Errorf("list vaults: %w", err)
		}
		out = append(out, n)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("list vaults: %w", err)
	}
	return slices.Clip(out), nil
}

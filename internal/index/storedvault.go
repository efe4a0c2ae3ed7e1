package index

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/jarvis-mcp/jarvis/internal/config"
	"github.com/jarvis-mcp/jarvis/internal/store"
)

// StoredVault is the vault the database holds by name, with the folder
// and exclude patterns it was last indexed with (ensureVault records
// them), so that a command can reach a vault's folder with only the
// database: jarvis undo, for a write the journal names by vault. ok is
// false when the database holds no vault by that name.
func StoredVault(ctx context.Context, db store.Conn, name string) (v config.Vault, ok bool, err error) {
	var path string
	var rules sql.NullString
	err = db.QueryRowContext(ctx, `SELECT path, exclude FROM vaults WHERE name = ?`, name).Scan(&path, &rules)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return config.Vault{}, false, nil
	case err != nil:
		return config.Vault{}, false, fmt.Errorf("read vault %q: %w", name, err)
	}
	v = config.Vault{Name: name, Path: path}
	if rules.Valid {
		// RulesKey wrote the patterns as a JSON array of patterns that
		// Excluded reads as it reads the ones given.
		if err := json.Unmarshal([]byte(rules.String), &v.Exclude); err != nil {
			return config.Vault{}, false, fmt.Errorf("read vault %q: its exclude patterns: %w", name, err)
		}
	}
	return v, true, nil
}

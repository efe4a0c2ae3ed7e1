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
	v, err = storedVault(name, path, rules)
	return v, err == nil, err
}

// StoredVaults are every vault the database holds, by name, as
// StoredVault gives each: what `jarvis index --rebuild` indexes again when
// it is run with only the database (a fix pasted from a message about a
// damaged one).
func StoredVaults(ctx context.Context, db store.Conn) ([]config.Vault, error) {
	rows, err := db.QueryContext(ctx, `SELECT name, path, exclude FROM vaults ORDER BY name`)
	if err != nil {
		return nil, fmt.Errorf("read the vaults: %w", err)
	}
	defer rows.Close()
	var out []config.Vault
	for rows.Next() {
		var name, path string
		var rules sql.NullString
		if err := rows.Scan(&name, &path, &rules); err != nil {
			return nil, fmt.Errorf("read the vaults: %w", err)
		}
		v, err := storedVault(name, path, rules)
		if err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("read the vaults: %w", err)
	}
	return out, nil
}

func storedVault(name, path string, rules sql.NullString) (config.Vault, error) {
	v := config.Vault{Name: name, Path: path}
	if rules.Valid {
		// RulesKey wrote the patterns as a JSON array of patterns that
		// Excluded reads as it reads the ones given.
		if err := json.Unmarshal([]byte(rules.String), &v.Exclude); err != nil {
			return config.Vault{}, fmt.Errorf("read vault %q: its exclude patterns: %w", name, err)
		}
	}
	return v, nil
}

package store

import (
	"context"
	"database/sql"
	"strings"
)

// InVaults is an SQL condition keeping the rows whose vault_id column (col,
// such as "f.vault_id") is one of the named vaults, with its arguments; ""
// when names is empty. Searches use it to stay within the vaults a process
// serves, as one database may hold others.
func InVaults(col string, names []string) (string, []any) {
	switch len(names) {
	case 0:
		return "", nil
	case 1:
		return col + " = (SELECT id FROM vaults WHERE name = ?)", []any{names[0]}
	}
	args := make([]any, len(names))
	for i, n := range names {
		args[i] = n
	}
	return col + " IN (SELECT id FROM vaults WHERE name IN (?" + strings.Repeat(", ?", len(names)-1) + "))", args
}

// VaultNames reads the name of every vault the database holds, by id.
func VaultNames(ctx context.Context, db interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
}) (map[int64]string, error) {
	rows, err := db.QueryContext(ctx, `SELECT id, name FROM vaults`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	names := map[int64]string{}
	for rows.Next() {
		var id int64
		var name string
		if err := rows.Scan(&id, &name); err != nil {
			return nil, err
		}
		names[id] = name
	}
	return names, rows.Err()
}

package store

import (
	"context"
	"database/sql"
	"errors"
	"io/fs"

	"github.com/jarvis-mcp/jarvis/internal/config"
)

// NotInIndex is why the checks of a vault the database holds no row of
// have nothing to look at: it was never indexed into this database, or
// was dropped from it (jarvis index --forget), which the database does
// not remember.
const NotInIndex = "this vault is not in the index: it was never indexed into this database, or was dropped from it"

// FirstIndexUnfinished is why the checks of what an index holds (its
// links, its warnings) have nothing to look at while no index run of the
// vault has finished: the first one is under way, or was cut off, and
// what it stored so far says nothing of the vault.
const FirstIndexUnfinished = "the first index of this vault has not finished"

// VaultIndexed is VaultReady for the checks of what an index run left
// behind: it also says why (FirstIndexUnfinished) while no run of the
// vault has finished.
func VaultIndexed(ctx context.Context, h *Handle, v config.Vault) (why string, db *DB, err error) {
	why, db, _, lastMS, err := VaultReady(ctx, h, v)
	if why == "" && err == nil && !lastMS.Valid {
		return FirstIndexUnfinished, nil, nil
	}
	return why, db, err
}

// VaultReady says why the index of vault v cannot be looked at, or "" when
// it can: its folder cannot be read (what the database holds of it then
// says nothing of the files), the database is not available or its tables
// not set up (DB.SetUp), or the vault was never indexed. When why is "", db is open and id and lastMS are the
// vault's row; err is a failure to read that row.
func VaultReady(ctx context.Context, h *Handle, v config.Vault) (why string, db *DB, id int64, lastMS sql.NullInt64, err error) {
	if w, _ := v.Unreadable(); w != "" {
		return w + " (see the vault check above)", nil, 0, lastMS, nil
	}
	db, err = h.DB(ctx)
	if err != nil {
		return NotAvailable(err), nil, 0, lastMS, nil
	}
	if why := db.SetUp(ctx); why != "" {
		return why, nil, 0, lastMS, nil
	}
	err = db.QueryRowContext(ctx, `SELECT id, last_indexed_ms FROM vaults WHERE name = ?`, v.Name).Scan(&id, &lastMS)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return NotInIndex, nil, 0, lastMS, nil
	case err != nil:
		return "", nil, 0, lastMS, err
	}
	return "", db, id, lastMS, nil
}

// NotAvailable says, for a check that needs the database, why it could not
// be made, err being the failure to open it: the database does not exist
// yet, or cannot be used, which the database check above says more of.
func NotAvailable(err error) string {
	if errors.Is(err, fs.ErrNotExist) {
		return "the database does not exist yet (see the database check above)"
	}
	return "the database is not available (see the database check above)"
}

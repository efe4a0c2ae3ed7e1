package store

import (
	"context"
	"fmt"
)

// Schema is how far a database's tables are set up, as Schema reads it.
type Schema int

const (
	// SchemaCurrent is a database at this jarvis's version.
	SchemaCurrent Schema = iota
	// SchemaUnfinished is a database whose migrations stopped part way
	// before any vault was recorded in it: the first index run was cut
	// short, or has not run. It is new, not old.
	SchemaUnfinished
	// SchemaOlder is a database an older jarvis made and used: it holds
	// vaults, at a version below this jarvis's.
	SchemaOlder
	// SchemaNewer is a database a newer jarvis migrated.
	SchemaNewer
)

// NotSetUp is why a check of what the index holds could not be made while
// its tables are not all set up (SchemaUnfinished): the schema version
// check says why and what to run.
const NotSetUp = "the index is not set up yet (see schema version)"

// Schema says how far db's tables are set up, with its version and the
// one this jarvis uses. It is the one place that tells a database whose
// first migrations were cut short from one an older jarvis made: below
// the current version, a database that never recorded a vault is
// unfinished, one that did is older.
func (db *DB) Schema(ctx context.Context) (s Schema, current, latest int, err error) {
	current, latest, err = db.Version(ctx)
	switch {
	case err != nil:
		return SchemaCurrent, current, latest, err
	case current > latest:
		return SchemaNewer, current, latest, nil
	case current == latest:
		return SchemaCurrent, current, latest, nil
	case current == 0:
		return SchemaUnfinished, current, latest, nil
	}
	var vaults int
	if err := db.QueryRowContext(ctx, `SELECT count(*) FROM vaults`).Scan(&vaults); err != nil {
		return SchemaCurrent, current, latest, fmt.Errorf("count vaults: %w", sqliteError(db.Path, err))
	}
	if vaults == 0 {
		return SchemaUnfinished, current, latest, nil
	}
	return SchemaOlder, current, latest, nil
}

// SetUp is NotSetUp when db's tables are not all set up yet
// (SchemaUnfinished), "" otherwise or when that cannot be read (the
// schema version check says so): the checks that need the tables say it
// instead of the error a missing table gives.
func (db *DB) SetUp(ctx context.Context) string {
	if s, _, _, err := db.Schema(ctx); err == nil && s == SchemaUnfinished {
		return NotSetUp
	}
	return ""
}

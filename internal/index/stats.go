package index

import (
	"context"
	"database/sql"
	"fmt"
	"slices"
	"time"

	"github.com/jarvis-mcp/jarvis/internal/store"
)

// Querier is the part of *sql.DB that reading the index needs.
type Querier interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
}

// VaultStats is what the index holds of one vault.
type VaultStats struct {
	Name string
	Path string
	// Counts are the vault's notes, attachments and passages, in the
	// words every message says them in.
	Counts
	Links           int
	UnresolvedLinks int
	// LastIndexed is when the last index run of the vault finished; zero
	// when none has.
	LastIndexed time.Time
}

// Stats reads what the index holds of every vault, by name: the counts
// the indexer keeps as it writes (migrations/0009_counts.sql), one row per
// vault however large. Notes counts the notes read and stored: while a run
// is under way (or was cut off), the rows it reserved for notes it has not
// read yet are left out, counted only then. list-vaults, doctor's freshness
// check and an index run's summary all read their counts here.
func Stats(ctx context.Context, db Querier) ([]VaultStats, error) {
	return readStats(ctx, db, "", nil)
}

// statsOf is Stats of the vault with the row id.
func statsOf(ctx context.Context, db Querier, id int64) (VaultStats, error) {
	out, err := readStats(ctx, db, "WHERE id = ?", []any{id})
	if err != nil {
		return VaultStats{}, err
	}
	if len(out) == 0 {
		return VaultStats{}, fmt.Errorf("read index statistics: no vault with id %d", id)
	}
	return out[0], nil
}

// readStats is Stats of the vaults that where (a WHERE clause over
// vaults, with its args) selects.
func readStats(ctx context.Context, db Querier, where string, args []any) ([]VaultStats, error) {
	rows, err := db.QueryContext(ctx, `SELECT name, path, last_indexed_ms,
		notes, attachments, links, unresolved_links, chunks,
		CASE WHEN resolve_pending THEN (SELECT count(*) FROM files f
			WHERE f.vault_id = vaults.id AND f.kind = 'note' AND f.mtime_ns = ?) ELSE 0 END
		FROM vaults `+where+` ORDER BY name`, append([]any{mtimeReserved}, args...)...)
	if err != nil {
		return nil, fmt.Errorf("read index statistics: %w", err)
	}
	defer rows.Close()
	var out []VaultStats
	for rows.Next() {
		var s VaultStats
		var last sql.NullInt64
		var unread int
		if err := rows.Scan(&s.Name, &s.Path, &last, &s.Notes, &s.Attachments, &s.Links, &s.UnresolvedLinks, &s.Passages, &unread); err != nil {
			return nil, fmt.Errorf("read index statistics: %w", err)
		}
		s.Notes -= unread
		if last.Valid {
			s.LastIndexed = time.UnixMilli(last.Int64)
		}
		out = append(out, s)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("read index statistics: %w", err)
	}
	return out, nil
}

// NoteName is one indexed note.
type NoteName struct {
	Vault, Path, Title string
}

// Catalog is what the index holds of the vaults a process serves: their
// statistics and their notes. One database may hold other vaults, indexed
// by other runs; a Catalog never shows them.
type Catalog struct {
	db     Querier
	vaults []string
}

// NewCatalog returns the catalog of the named vaults in db; every vault
// the database holds when vaults is empty.
func NewCatalog(db Querier, vaults []string) *Catalog {
	return &Catalog{db: db, vaults: vaults}
}

// Stats reads what the index holds of each served vault, by name.
func (c *Catalog) Stats(ctx context.Context) ([]VaultStats, error) {
	all, err := Stats(ctx, c.db)
	if err != nil || len(c.vaults) == 0 {
		return all, err
	}
	return slices.DeleteFunc(all, func(s VaultStats) bool { return !slices.Contains(c.vaults, s.Name) }), nil
}

// List returns up to n notes of the served vaults ordered by vault name
// and path, after the one given (from the start when it is empty): the
// pages of the MCP resource list.
func (c *Catalog) List(ctx context.Context, after NoteName, n int) ([]NoteName, error) {
	q := `SELECT v.name, f.path, f.title FROM files f JOIN vaults v ON v.id = f.vault_id
		WHERE f.kind = 'note' AND (v.name > ? OR (v.name = ? AND f.path > ?))`
	args := []any{after.Vault, after.Vault, after.Path}
	if cond, cargs := store.InVaults("f.vault_id", c.vaults); cond != "" {
		q += " AND " + cond
		args = append(args, cargs...)
	}
	rows, err := c.db.QueryContext(ctx, q+` ORDER BY v.name, f.path LIMIT ?`, append(args, n)...)
	if err != nil {
		return nil, fmt.Errorf("list notes: %w", err)
	}
	defer rows.Close()
	var out []NoteName
	for rows.Next() {
		var nn NoteName
		if err := rows.Scan(&nn.Vault, &nn.Path, &nn.Title); err != nil {
			return nil, fmt.Errorf("list notes: %w", err)
		}
		out = append(out, nn)
	}
	return out, rows.Err()
}

package index

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/jarvis-mcp/jarvis/internal/config"
	"github.com/jarvis-mcp/jarvis/internal/health"
	"github.com/jarvis-mcp/jarvis/internal/store"
	"github.com/jarvis-mcp/jarvis/internal/vault"
)

// Checks are the index's contributions to doctor: for each vault, whether
// notes changed on disk since the last index run, and the problems indexing
// met in single notes.
func Checks(h *store.Handle, vaults []config.Vault) []health.Check {
	return []health.Check{
		{Name: "index freshness", Order: 40, Run: func(ctx context.Context) []health.Result {
			var out []health.Result
			for _, v := range vaults {
				out = append(out, freshness(ctx, h, v))
			}
			return out
		}},
		{Name: "index warnings", Order: 41, Run: func(ctx context.Context) []health.Result {
			var out []health.Result
			for _, v := range vaults {
				out = append(out, warningsResult(ctx, h, v))
			}
			return out
		}},
		{Name: "other vaults", Order: 42, Run: func(ctx context.Context) []health.Result {
			return otherVaults(ctx, h, vaults)
		}},
	}
}

// otherVaults reports the vaults the database holds that are not
// configured here: another configuration's (each MCP client may run
// jarvis with its own), or one dropped from the config file, whose notes
// then linger. Nothing when there are none.
func otherVaults(ctx context.Context, h *store.Handle, vaults []config.Vault) []health.Result {
	db, err := h.DB(ctx)
	if err != nil {
		return nil // the database check says why
	}
	cannot := func(err error) []health.Result {
		return []health.Result{{Name: "other vaults", Status: health.Warn,
			Detail: "cannot list the vaults in the database: " + err.Error(), Fix: "see the database check above"}}
	}
	rows, err := db.QueryContext(ctx, `SELECT v.name, count(f.id) FROM vaults v
		LEFT JOIN files f ON f.vault_id = v.id AND f.kind = 'note' GROUP BY v.id ORDER BY v.name`)
	if err != nil {
		return cannot(err)
	}
	defer rows.Close()
	var out []health.Result
	for rows.Next() {
		var name string
		var notes int
		if err := rows.Scan(&name, &notes); err != nil {
			return cannot(err)
		}
		if slices.ContainsFunc(vaults, func(v config.Vault) bool { return v.Name == name }) {
			continue
		}
		out = append(out, health.Result{Name: "other vault " + name, Status: health.OK,
			Detail: fmt.Sprintf("the database also holds vault %q (%d notes), not configured here: searches leave it out; if no other configuration uses it, `jarvis index --forget %s` drops it", name, notes, name),
			Fix:    fmt.Sprintf("if no other configuration uses it, `jarvis index --forget %s` drops it", name)})
	}
	if err := rows.Err(); err != nil {
		return cannot(err)
	}
	return out
}

// vaultRow finds a vault in the database; ok is false when it was never
// indexed.
func vaultRow(ctx context.Context, db *store.DB, name string) (id int64, lastMS sql.NullInt64, ok bool, err error) {
	err = db.QueryRowContext(ctx, `SELECT id, last_indexed_ms FROM vaults WHERE name = ?`, name).Scan(&id, &lastMS)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, lastMS, false, nil
	}
	return id, lastMS, err == nil, err
}

func freshness(ctx context.Context, h *store.Handle, v config.Vault) health.Result {
	r := health.Result{Name: "index freshness " + v.Name}
	if st, err := os.Stat(v.Path); err != nil || !st.IsDir() {
		r.Status, r.Detail, r.Fix = health.Warn, "cannot tell: the vault folder is missing", "see the vault check above"
		return r
	}
	db, err := h.DB(ctx)
	if err != nil {
		r.Status, r.Detail, r.Fix = health.Warn, "cannot tell: the database is not available", "see the database check above"
		return r
	}
	id, last, ok, err := vaultRow(ctx, db, v.Name)
	if err != nil {
		r.Status, r.Detail, r.Fix = health.Warn, "cannot tell: "+err.Error(), "see the database check above"
		return r
	}
	if !ok {
		r.Status, r.Detail, r.Fix = health.Warn, "this vault has never been indexed", "run `jarvis index`"
		return r
	}
	files, _, err := vault.Scan(ctx, v.Path, v.Exclude)
	if err != nil {
		r.Status, r.Detail, r.Fix = health.Warn, "cannot scan the vault: "+err.Error(), "see the vault check above"
		return r
	}
	known, err := loadFiles(ctx, db, id)
	if err != nil {
		r.Status, r.Detail, r.Fix = health.Warn, "cannot tell: "+err.Error(), "see the database check above"
		return r
	}
	work, same, gone := plan(files, known, false)
	var added, changed int
	var examples []string
	for _, j := range work {
		if j.old == nil {
			added++
		} else {
			changed++
		}
		if len(examples) < 3 {
			examples = append(examples, j.file.Path)
		}
	}
	when := "never finished"
	if last.Valid {
		when = time.Since(time.UnixMilli(last.Int64)).Round(time.Second).String() + " ago"
	}
	if added+changed+len(gone) == 0 {
		// A database not migrated yet has no parser column; the schema
		// check says to run jarvis index already.
		var parser string
		err := db.QueryRowContext(ctx, `SELECT parser FROM vaults WHERE id = ?`, id).Scan(&parser)
		if err == nil && parser != vault.ParserVersion {
			r.Status = health.Warn
			r.Detail = fmt.Sprintf("%d files indexed, none changed since the last index (%s), but read by an earlier version of jarvis", len(same), when)
			r.Fix = "run `jarvis index`: it reads every note again"
			return r
		}
		r.Status = health.OK
		r.Detail = fmt.Sprintf("%d files indexed, none changed since the last index (%s)", len(same), when)
		return r
	}
	r.Status = health.Warn
	r.Detail = fmt.Sprintf("since the last index (%s): %d new, %d changed, %d deleted files (%s)",
		when, added, changed, len(gone), strings.Join(examples, ", "))
	r.Fix = "run `jarvis index`"
	return r
}

func warningsResult(ctx context.Context, h *store.Handle, v config.Vault) health.Result {
	r := health.Result{Name: "index warnings " + v.Name}
	db, err := h.DB(ctx)
	if err != nil {
		r.Status, r.Detail, r.Fix = health.Warn, "cannot tell: the database is not available", "see the database check above"
		return r
	}
	rows, err := db.QueryContext(ctx, `SELECT w.path, w.message FROM warnings w JOIN vaults v ON v.id = w.vault_id
		WHERE v.name = ? ORDER BY w.path`, v.Name)
	if err != nil {
		r.Status, r.Detail, r.Fix = health.Warn, "cannot tell: "+err.Error(), "see the database check above"
		return r
	}
	defer rows.Close()
	var n int
	var first []string
	for rows.Next() {
		var p, m string
		if err := rows.Scan(&p, &m); err != nil {
			r.Status, r.Detail = health.Warn, "cannot tell: "+err.Error()
			return r
		}
		n++
		if len(first) < 3 {
			first = append(first, p+": "+m)
		}
	}
	if n == 0 {
		r.Status, r.Detail = health.OK, "every file indexed without a problem"
		return r
	}
	// A problem in a note is the note's, not jarvis's: it is indexed anyway,
	// so this informs rather than degrades.
	r.Status = health.OK
	r.Detail = fmt.Sprintf("%d files indexed with a problem: %s", n, strings.Join(first, "; "))
	return r
}

package index

import (
	"context"
	"database/sql"
	"fmt"
	"time"

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

// ResolveLinks resolves every link of one vault against its current files,
// then writes the search rows that waited for the links (writeSearchNotes).
func (ix *Indexer) ResolveLinks(ctx context.Context, vaultID int64) error {
	began := time.Now()
	paths, ids, err := ix.loadPaths(ctx, vaultID)
	if err != nil {
		return fmt.Errorf("resolve links: %w", err)
	}
	aliases, err := ix.loadAliases(ctx, vaultID)
	if err != nil {
		return fmt.Errorf("resolve links: %w", err)
	}
	lr := newLinkResolver(paths, ids, aliases)
	pathOf := make(map[int64]string, len(paths))
	for i, p := range paths {
		pathOf[ids[i]] = p
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
		if want := lr.target(pathOf[source], target, kind); want != cur {
			changes = append(changes, change{id, want})
		}
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return fmt.Errorf("resolve links: %w", err)
	}

	computed := time.Now()
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
	inserted, rewritten, err := writeSearchNotes(ctx, tx, vaultID)
	if err != nil {
		return fmt.Errorf("resolve links: %w", err)
	}
	if _, err := tx.ExecContext(ctx, `UPDATE vaults SET resolve_pending = 0 WHERE id = ?`, vaultID); err != nil {
		return fmt.Errorf("resolve links: %w", err)
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("resolve links: %w", err)
	}
	ix.log.Debug("links resolved", "vault_id", vaultID, "changed", len(changes),
		"search_rows", inserted, "anchors_rewritten", rewritten,
		"compute", computed.Sub(began), "write", time.Since(computed))
	return nil
}

// linkResolver maps links to file rows.
type linkResolver struct {
	r   *vault.Resolver
	ids map[string]int64
}

func newLinkResolver(paths []string, ids []int64, aliases map[string][]string) *linkResolver {
	lr := &linkResolver{r: vault.NewResolver(paths, aliases), ids: make(map[string]int64, len(paths))}
	for i, p := range paths {
		lr.ids[p] = ids[i]
	}
	return lr
}

// linkResolver builds the resolver an index run uses while it writes: the
// files of this scan, each with its row (reserve has given new files
// theirs), and the aliases stored so far. Links that resolve only through an
// alias of a note parsed in this run are found by the pass at the end.
func (ix *Indexer) linkResolver(ctx context.Context, vaultID int64, files []vault.File, known map[string]*existing, reserved map[string]int64) (*linkResolver, error) {
	paths := make([]string, 0, len(files))
	rowIDs := make([]int64, 0, len(files))
	for _, f := range files {
		id, ok := reserved[f.Path]
		if !ok {
			id = known[f.Path].id // every scanned file is either known or reserved
		}
		paths = append(paths, f.Path)
		rowIDs = append(rowIDs, id)
	}
	aliases, err := ix.loadAliases(ctx, vaultID)
	if err != nil {
		return nil, fmt.Errorf("load aliases: %w", err)
	}
	return newLinkResolver(paths, rowIDs, aliases), nil
}

// target is the row a link resolves to, or NULL.
func (lr *linkResolver) target(source, target, kind string) sql.NullInt64 {
	if p, ok := lr.r.Resolve(source, target, vault.LinkKind(kind).FromFolder()); ok {
		if id, ok := lr.ids[p]; ok {
			return sql.NullInt64{Int64: id, Valid: true}
		}
	}
	return sql.NullInt64{}
}

// resolve fills j.targets for the links of a parsed note.
func (lr *linkResolver) resolve(j *job) {
	if len(j.note.Links) == 0 {
		return
	}
	j.targets = make([]sql.NullInt64, len(j.note.Links))
	for i, l := range j.note.Links {
		j.targets[i] = lr.target(j.file.Path, l.Target, string(l.Kind))
	}
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

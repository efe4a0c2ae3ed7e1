package index

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"

	"github.com/jarvis-mcp/jarvis/internal/config"
	"github.com/jarvis-mcp/jarvis/internal/vault"
	"github.com/jarvis-mcp/jarvis/internal/words"
)

// Duplicate is a vault the database holds under a name not configured
// here whose folder is one configured here by another name (a link to it,
// say), lies inside one, or holds one: the notes they share are indexed,
// and embedded, once under each name.
type Duplicate struct {
	// Name and Path are the vault held, as recorded.
	Name, Path string
	// Of is the vault configured here that shares its notes.
	Of config.Vault
	// Rel is the inner folder's path inside the outer one, with '/'
	// separators: "." for the same folder. Inside tells which is inner:
	// true when the vault held lies inside Of.
	Rel    string
	Inside bool
}

// Words says how the two vaults share notes, for a sentence about the
// vault held: "is the same folder as vault "cook" (/t/cook)".
func (d Duplicate) Words() string {
	switch {
	case d.Rel == ".":
		return fmt.Sprintf("is the same folder as vault %q (%s)", d.Of.Name, d.Of.Path)
	case d.Inside:
		return fmt.Sprintf("lies inside vault %q (%s)", d.Of.Name, d.Of.Path)
	}
	return fmt.Sprintf("holds vault %q (%s)", d.Of.Name, d.Of.Path)
}

// Warning says d for a person: the vault held, how it shares notes with
// the one configured, and forget, the command that drops it.
func (d Duplicate) Warning(notes int, forget string) (detail, fix string) {
	return fmt.Sprintf("the database also holds vault %q (%s), not configured here, from %s, which %s: their notes are indexed twice",
			d.Name, words.Count(notes, "note"), d.Path, d.Words()),
		fmt.Sprintf("if no other configuration uses %q, %s drops the duplicate", d.Name, forget)
}

// Duplicates are the vaults the database holds, under names cfg does not
// list (config.Config.Lists), that share notes with one of cfg's vaults,
// by name. Folders are
// compared as vault.Within does, with links resolved; an outer vault whose
// exclude patterns leave the inner folder out shares none, as for two
// configured vaults (config.Overlap). Doctor's other-vaults check and the
// index run's summary both ask it.
func Duplicates(ctx context.Context, db Querier, cfg config.Config) (map[string]Duplicate, error) {
	vaults := cfg.Vaults
	rows, err := db.QueryContext(ctx, `SELECT name, path, exclude FROM vaults ORDER BY name`)
	if err != nil {
		return nil, fmt.Errorf("list vaults: %w", err)
	}
	defer rows.Close()
	out := map[string]Duplicate{}
	for rows.Next() {
		var name, path string
		var rules sql.NullString
		if err := rows.Scan(&name, &path, &rules); err != nil {
			return nil, fmt.Errorf("list vaults: %w", err)
		}
		if cfg.Lists(name) {
			continue
		}
		var heldExclude []string
		json.Unmarshal([]byte(rules.String), &heldExclude) // none when not a list
		for _, v := range vaults {
			if rel, ok := vault.Within(path, v.Path); ok && (rel == "." || !vault.FolderLeftOut(rel, v.Exclude)) {
				out[name] = Duplicate{Name: name, Path: path, Of: v, Rel: rel, Inside: rel != "."}
				break
			}
			if rel, ok := vault.Within(v.Path, path); ok && !vault.FolderLeftOut(rel, heldExclude) {
				out[name] = Duplicate{Name: name, Path: path, Of: v, Rel: rel}
				break
			}
		}
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("list vaults: %w", err)
	}
	return out, nil
}

package index

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"

	"github.com/jarvis-mcp/jarvis/internal/config"
	"github.com/jarvis-mcp/jarvis/internal/health"
	"github.com/jarvis-mcp/jarvis/internal/vault"
)

// Move is a vault that looks moved: the database holds vault Vault from
// folder From, which is gone, and the vault Name at folder To holds the
// same notes. Nothing is forgotten on its account: the user says whether
// the old index goes.
type Move struct {
	Vault, From string // the vault the database holds, and its gone folder
	Name, To    string // the vault that holds the same notes now
}

// Warning says m for an index run that met it; the command it suggests
// repeats the flags of inv.
func (m Move) Warning(inv health.Invocation) string {
	return fmt.Sprintf("this looks like vault %q, moved from %s to %s; the old index of it is kept: to drop it, run %s",
		m.Vault, m.From, m.To, inv.Forget(m.Vault))
}

// Seen says m as doctor says it of the vault left behind.
func (m Move) Seen() string {
	return fmt.Sprintf("its folder %s is gone; the vault %q at %s holds the same notes: it was probably moved", m.From, m.Name, m.To)
}

// moved is the Move of v, whose folder holds files, when the database
// does not hold v yet and does hold a vault from a folder now gone whose
// notes are mostly v's; nil otherwise. It is said (OnMove, or the log)
// and returned; nothing is forgotten.
func (ix *Indexer) moved(ctx context.Context, v config.Vault, files []vault.File) (*Move, error) {
	var held bool
	if err := ix.db.QueryRowContext(ctx, `SELECT EXISTS (SELECT 1 FROM vaults WHERE name = ?)`, v.Name).Scan(&held); err != nil {
		return nil, fmt.Errorf("read vault %q: %w", v.Name, err)
	}
	if held {
		return nil, nil
	}
	sample := notePaths(files)
	if len(sample) == 0 {
		return nil, nil
	}
	gone, err := goneVaults(ctx, ix.db, func(name string) bool { return name == v.Name || ix.Lists != nil && ix.Lists(name) })
	if err != nil {
		return nil, err
	}
	g, ok, err := movedFrom(ctx, ix.db, gone, sample)
	if err != nil || !ok {
		return nil, err
	}
	m := &Move{Vault: g.name, From: g.path, Name: v.Name, To: v.Path}
	if ix.OnMove != nil {
		ix.OnMove(*m)
	} else {
		ix.log.Warn(m.Warning(ix.Invocation))
	}
	return m, nil
}

// Bounds of the test of a move: at most movedSample note paths of the new
// folder are compared, and movedShare of them must be notes of the vault
// whose folder is gone.
const (
	movedSample = 200
	movedShare  = 0.8
)

// goneVault is a vault the database holds whose folder no longer exists.
type goneVault struct {
	id         int64
	name, path string
}

// goneVaults are the vaults the database holds, but for those except
// takes, whose folder FolderProblem finds missing. A folder that cannot be
// read is not gone: it may be read again.
func goneVaults(ctx context.Context, db Querier, except func(name string) bool) ([]goneVault, error) {
	rows, err := db.QueryContext(ctx, `SELECT id, name, path FROM vaults ORDER BY name`)
	if err != nil {
		return nil, fmt.Errorf("list vaults: %w", err)
	}
	defer rows.Close()
	var out []goneVault
	for rows.Next() {
		var g goneVault
		if err := rows.Scan(&g.id, &g.name, &g.path); err != nil {
			return nil, fmt.Errorf("list vaults: %w", err)
		}
		if !except(g.name) && FolderProblem(g.path) == folderMissing {
			out = append(out, g)
		}
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("list vaults: %w", err)
	}
	return out, nil
}

// movedFrom is the vault of gone whose stored notes hold at least
// movedShare of sample (note paths relative to a vault folder), the one
// holding most of them when several do; ok is false when none does. One
// query answers for every vault of gone.
func movedFrom(ctx context.Context, db Querier, gone []goneVault, sample []string) (g goneVault, ok bool, err error) {
	if len(gone) == 0 || len(sample) == 0 {
		return goneVault{}, false, nil
	}
	if len(sample) > movedSample {
		sample = sample[:movedSample]
	}
	ids := make([]int64, len(gone))
	for i, g := range gone {
		ids[i] = g.id
	}
	idsJSON, _ := json.Marshal(ids)
	pathsJSON, _ := json.Marshal(sample)
	rows, err := db.QueryContext(ctx, `SELECT vault_id, count(*) FROM files
		WHERE kind = 'note' AND vault_id IN (SELECT value FROM json_each(?)) AND path IN (SELECT value FROM json_each(?))
		GROUP BY vault_id ORDER BY count(*) DESC, vault_id`, string(idsJSON), string(pathsJSON))
	if err != nil {
		return goneVault{}, false, fmt.Errorf("compare with the vaults whose folder is gone: %w", err)
	}
	defer rows.Close()
	if !rows.Next() {
		return goneVault{}, false, rows.Err()
	}
	var id int64
	var n int
	if err := rows.Scan(&id, &n); err != nil {
		return goneVault{}, false, fmt.Errorf("compare with the vaults whose folder is gone: %w", err)
	}
	if float64(n) < movedShare*float64(len(sample)) {
		return goneVault{}, false, nil
	}
	for _, g := range gone {
		if g.id == id {
			return g, true, nil
		}
	}
	return goneVault{}, false, nil
}

// notePaths are the paths of the first movedSample notes among files.
func notePaths(files []vault.File) []string {
	var out []string
	for _, f := range files {
		if f.Note {
			out = append(out, f.Path)
			if len(out) == movedSample {
				break
			}
		}
	}
	return out
}

// sampleNotes walks the folder dir, leaving out what a scan leaves out
// (vault.SkipDir, exclude), for the paths of at most movedSample notes:
// doctor's sample of a vault it does not index.
func sampleNotes(ctx context.Context, dir string, exclude []string) []string {
	var out []string
	errDone := errors.New("sampled")
	_ = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || ctx.Err() != nil {
			if ctx.Err() != nil {
				return errDone
			}
			return nil // a folder that cannot be read is left out of the sample
		}
		rel, relErr := filepath.Rel(dir, p)
		if relErr != nil || rel == "." {
			return nil
		}
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			if vault.SkipDir(d.Name()) || vault.Excluded(rel, exclude) {
				return filepath.SkipDir
			}
			return nil
		}
		if !vault.IsNote(d.Name()) || vault.SkipDir(d.Name()) || vault.Excluded(rel, exclude) {
			return nil
		}
		out = append(out, rel)
		if len(out) == movedSample {
			return errDone
		}
		return nil
	})
	return out
}

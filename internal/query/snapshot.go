package query

import (
	"context"
	"slices"
	"sync"
)

// Snapshots hold each vault's files as Load reads them, decoded once and
// read again only when the vault's generation in the index (a value every
// change to its files, frontmatter, tags, aliases and links moves on:
// migration 0013) is not the one they were read at. Loading 100,000
// notes takes about a second; a filter over them in memory takes tens of
// milliseconds, so a query pays for Load only after the index changed,
// whatever changed it: the watcher, `jarvis index` in another process, a
// rebuilt database.
//
// A Vault handed out is shared between callers and never changed: Run
// and Where only read it.
type Snapshots struct {
	mu     sync.Mutex
	vaults map[string]*snapshot
}

// snapshot is one vault's files at one generation and one set of
// exclude patterns. Its own lock lets one caller load while others wait
// for that load rather than start their own.
type snapshot struct {
	mu      sync.Mutex
	gen     int64
	exclude []string
	v       *Vault
}

// generationQuery reads a vault's generation.
const generationQuery = `SELECT generation FROM vaults WHERE name = ?`

// Load returns the files of the named vault as Load(ctx, db, name,
// exclude) would read them now, from memory when the vault has not
// changed since they were last read.
func (s *Snapshots) Load(ctx context.Context, db Querier, name string, exclude []string) (*Vault, error) {
	gen, ok := generation(ctx, db, name)
	if !ok {
		// No such vault, or an index from before generations (opened
		// read-only, so not migrated): read it as it is, every time.
		return Load(ctx, db, name, exclude)
	}
	s.mu.Lock()
	if s.vaults == nil {
		s.vaults = map[string]*snapshot{}
	}
	sn := s.vaults[name]
	if sn == nil {
		sn = &snapshot{}
		s.vaults[name] = sn
	}
	s.mu.Unlock()

	sn.mu.Lock()
	defer sn.mu.Unlock()
	if sn.v != nil && sn.gen == gen && slices.Equal(sn.exclude, exclude) {
		return sn.v, nil
	}
	v, err := Load(ctx, db, name, exclude)
	if err != nil {
		return nil, err
	}
	// The generation read before Load: a change made while it read moves
	// the generation on, and the next call reads the vault again.
	sn.gen, sn.exclude, sn.v = gen, slices.Clone(exclude), v
	return v, nil
}

// generation reads the named vault's generation; false when it has none.
func generation(ctx context.Context, db Querier, name string) (int64, bool) {
	rows, err := db.QueryContext(ctx, generationQuery, name)
	if err != nil {
		return 0, false
	}
	defer rows.Close()
	var gen int64
	if !rows.Next() || rows.Scan(&gen) != nil {
		return 0, false
	}
	return gen, rows.Err() == nil
}

// served holds the snapshots of the process: query-notes and a search's
// where read the same vaults, and share them through Files.
var served Snapshots

// Files returns the files of the named vault, from the snapshot the
// process holds of it while it is current (Snapshots.Load). Generations
// are random, so snapshots of one vault name read from two databases do
// not pass for each other.
func Files(ctx context.Context, db Querier, name string, exclude []string) (*Vault, error) {
	return served.Load(ctx, db, name, exclude)
}

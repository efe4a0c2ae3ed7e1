package index

import (
	"context"
	"fmt"

	"github.com/jarvis-mcp/jarvis/internal/vault"
)

// An index run cut off part way (Ctrl-C, a crash) leaves notes it stored,
// rows it reserved and links it did not resolve; the next run finishes from
// there instead of starting again. The modification times below, which no
// file has, mark a row whose content is not the file's as it is now, so
// that plan puts it in the next run's work; a note the run stored whole has
// its file's real time and is not read again.
const (
	// mtimeReread marks a note whose row holds an older read: one kept
	// as last read when reading it failed, or one read by an earlier
	// version of the parser. Its hash is cleared with it, so that the
	// read is never taken for unchanged content.
	mtimeReread = -1
	// mtimeReserved marks the row reserve gives a new note before its
	// batch is written: the note was never stored, and the run that
	// stores it counts it as added.
	mtimeReserved = -2
)

// reserved reports whether e is a new note's reserved row, never stored.
func (e *existing) reserved() bool { return e.note && e.mtime == mtimeReserved }

// interrupted reports whether e is a note stored by a run cut off before
// its last pass (resolving links and writing the note's search row).
func (e *existing) interrupted() bool { return e.note && !e.searchable && !e.reserved() }

// asFound is how a file the run finds stored as it is on disk counts: a
// note stored by a run cut off before its end is finished by this one.
func (e *existing) asFound() change {
	if e.interrupted() {
		return resumed
	}
	return unchanged
}

// asWritten is how a file whose row this run writes counts.
func (e *existing) asWritten() change {
	if e == nil || e.reserved() {
		return added
	}
	return updated
}

// markReread marks every stored note of the vault to be read again and
// records the parser of this version as the vault's, in one transaction: a
// run that reads them again and is cut off leaves the notes it stored
// current and the rest marked, so the next run reads only those. known is
// updated to match.
func (ix *Indexer) markReread(ctx context.Context, vaultID int64, known map[string]*existing) error {
	tx, err := ix.db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("mark notes to read again: %w", err)
	}
	defer tx.Rollback()
	if _, err := tx.ExecContext(ctx, `UPDATE files SET mtime_ns = ?, hash = '' WHERE vault_id = ? AND kind = 'note' AND mtime_ns != ?`,
		mtimeReread, vaultID, mtimeReserved); err != nil {
		return fmt.Errorf("mark notes to read again: %w", err)
	}
	if _, err := tx.ExecContext(ctx, `UPDATE vaults SET parser = ?, resolve_pending = 1 WHERE id = ?`, vault.ParserVersion, vaultID); err != nil {
		return fmt.Errorf("mark notes to read again: %w", err)
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("mark notes to read again: %w", err)
	}
	for _, e := range known {
		if e.note && e.mtime != mtimeReserved {
			e.mtime, e.hash = mtimeReread, ""
		}
	}
	return nil
}

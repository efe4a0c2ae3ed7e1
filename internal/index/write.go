package index

import (
	"cmp"
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/jarvis-mcp/jarvis/internal/vault"
)

// writer is the single goroutine that writes to the database during a run.
type writer struct {
	ix      *Indexer
	vaultID int64
	res     *Result
}

// markPending flags the vault's links for resolution inside tx, so that the
// flag and the change that calls for it commit together.
func (w *writer) markPending(ctx context.Context, tx *sql.Tx) error {
	_, err := tx.ExecContext(ctx, `UPDATE vaults SET resolve_pending = 1 WHERE id = ?`, w.vaultID)
	return err
}

// deleteFiles removes files gone from disk. Their links, tags and headings go
// with them; links from other notes to them become unresolved.
func (w *writer) deleteFiles(ctx context.Context, gone []*existing) error {
	tx, err := w.ix.db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("delete files: %w", err)
	}
	defer tx.Rollback()
	if err := w.markPending(ctx, tx); err != nil {
		return fmt.Errorf("delete files: %w", err)
	}
	ids := make([]int64, len(gone))
	for i, e := range gone {
		ids[i] = e.id
	}
	// One statement for all: the full-text tables, cleared through
	// triggers, then take the deletions in one go (see searchRows).
	if _, err := tx.ExecContext(ctx, `DELETE FROM files WHERE id IN (SELECT value FROM json_each(?))`, jsonArray(ids)); err != nil {
		return fmt.Errorf("delete files: %w", err)
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("delete files: %w", err)
	}
	return nil
}

// replaceScanWarnings swaps the warnings of the previous scan for this one's.
func (w *writer) replaceScanWarnings(ctx context.Context, ws []vault.Warning) error {
	tx, err := w.ix.db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("record scan warnings: %w", err)
	}
	defer tx.Rollback()
	if _, err := tx.ExecContext(ctx, `DELETE FROM warnings WHERE vault_id = ? AND file_id IS NULL`, w.vaultID); err != nil {
		return fmt.Errorf("record scan warnings: %w", err)
	}
	for _, wa := range ws {
		if _, err := tx.ExecContext(ctx, `INSERT INTO warnings (vault_id, path, message) VALUES (?, ?, ?)`,
			w.vaultID, wa.Path, wa.Message); err != nil {
			return fmt.Errorf("record scan warnings: %w", err)
		}
		w.ix.log.Warn("skipped file", "path", wa.Path, "reason", wa.Message, Reported)
	}
	return tx.Commit()
}

// createdNS is a birth time as files.created_ns holds it: NULL when
// unknown (vault.File.Created is 0).
func createdNS(created int64) sql.NullInt64 {
	return sql.NullInt64{Int64: created, Valid: created != 0}
}

// recordCreated stores the birth time the scan found of the unchanged
// files whose row holds another, in one statement: rows written before
// migration 0015 hold none, and a file saved by replacing it is born
// again with the content it had. A run that finds every birth time as
// stored writes nothing, so that the vault's generation stays as it is.
func (w *writer) recordCreated(ctx context.Context, same []*existing) error {
	var b []byte
	for _, e := range same {
		if !e.present || e.createdNow == e.created {
			continue // unread files were not described by this scan
		}
		if b == nil {
			b = append(b, '[')
		} else {
			b = append(b, ',')
		}
		b = fmt.Appendf(b, "[%d,%d]", e.id, e.createdNow)
	}
	if b == nil {
		return nil
	}
	b = append(b, ']')
	if _, err := w.ix.db.ExecContext(ctx, `UPDATE files SET created_ns = nullif(c.value ->> 1, 0)
		FROM json_each(?) c WHERE files.id = c.value ->> 0`, string(b)); err != nil {
		return fmt.Errorf("record creation times: %w", err)
	}
	return nil
}

// reserve gives every new file its row before any note is written, so that
// links can be resolved to row ids as they are stored. New attachments are
// complete with that row and leave the work list. A new note's row is a
// placeholder with the modification time mtimeReserved until its batch is
// written: if the run is cut off first, the next run sees it as never
// stored, parses it and counts it as added.
func (w *writer) reserve(ctx context.Context, work []*job) ([]*job, map[string]int64, error) {
	reserved := map[string]int64{}
	for _, j := range work {
		if j.old != nil {
			j.id = j.old.id
		}
	}
	var fresh int
	for _, j := range work {
		if j.old == nil {
			fresh++
		}
	}
	if fresh == 0 {
		return work, reserved, nil
	}
	tx, err := w.ix.db.BeginTx(ctx, nil)
	if err != nil {
		return nil, nil, fmt.Errorf("reserve rows: %w", err)
	}
	defer tx.Rollback()
	if err := w.markPending(ctx, tx); err != nil {
		return nil, nil, fmt.Errorf("reserve rows: %w", err)
	}
	stmt, err := tx.PrepareContext(ctx, `INSERT INTO files (vault_id, path, kind, size, mtime_ns, created_ns, title)
		VALUES (?, ?, ?, ?, ?, ?, ?) RETURNING id`)
	if err != nil {
		return nil, nil, fmt.Errorf("reserve rows: %w", err)
	}
	defer stmt.Close()
	remaining := work[:0:0]
	for _, j := range work {
		if j.old != nil {
			remaining = append(remaining, j)
			continue
		}
		kind, mtime, title := "attachment", j.file.ModTime, ""
		if j.file.Note {
			kind, mtime, title = "note", mtimeReserved, vault.TitleFromPath(j.file.Path)
		}
		if err := stmt.QueryRowContext(ctx, w.vaultID, j.file.Path, kind, j.file.Size, mtime, createdNS(j.file.Created), title).Scan(&j.id); err != nil {
			return nil, nil, fmt.Errorf("reserve row for %s: %w", j.file.Path, err)
		}
		reserved[j.file.Path] = j.id
		if j.file.Note {
			remaining = append(remaining, j)
		} else {
			w.res.tally(false, added)
		}
	}
	if err := tx.Commit(); err != nil {
		return nil, nil, fmt.Errorf("reserve rows: %w", err)
	}
	return remaining, reserved, nil
}

// statements are the prepared statements and bulk inserts of one batch
// transaction.
type statements struct {
	upsertFile, touchFile, keepFile                       *sql.Stmt
	delAliases, delTags, delHeadings, delBlocks, delLinks *sql.Stmt
	delExternal, delWarnings, insWarning                  *sql.Stmt

	aliases, tags, headings, blocks, links, external *bulkInsert

	search searchRows
}

// flush writes the rows the bulk inserts still hold.
func (s *statements) flush(ctx context.Context) error {
	for _, b := range []*bulkInsert{s.aliases, s.tags, s.headings, s.blocks, s.links, s.external} {
		if err := b.flush(ctx); err != nil {
			return err
		}
	}
	return nil
}

func prepare(ctx context.Context, tx *sql.Tx) (*statements, func(), error) {
	var s statements
	var all []*sql.Stmt
	var err error
	p := func(dst **sql.Stmt, q string) {
		if err != nil {
			return
		}
		*dst, err = tx.PrepareContext(ctx, q)
		if err == nil {
			all = append(all, *dst)
		}
	}
	p(&s.upsertFile, `INSERT INTO files (vault_id, path, kind, size, mtime_ns, created_ns, hash, title, word_count, frontmatter)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
		ON CONFLICT (vault_id, path) DO UPDATE SET kind = excluded.kind, size = excluded.size,
			mtime_ns = excluded.mtime_ns, created_ns = excluded.created_ns, hash = excluded.hash, title = excluded.title,
			word_count = excluded.word_count, frontmatter = excluded.frontmatter
		RETURNING id`)
	p(&s.touchFile, `UPDATE files SET size = ?, mtime_ns = ?, created_ns = ? WHERE id = ?`)
	// A note kept as last read gets a modification time and a hash no
	// file has: the next run reads it again, and once that read succeeds
	// writes it afresh, its warnings with it, changed or not.
	p(&s.keepFile, `UPDATE files SET mtime_ns = `+strconv.Itoa(mtimeReread)+`, hash = '' WHERE id = ?`)
	p(&s.delAliases, `DELETE FROM aliases WHERE file_id = ?`)
	p(&s.delTags, `DELETE FROM tags WHERE file_id = ?`)
	p(&s.delHeadings, `DELETE FROM headings WHERE file_id = ?`)
	p(&s.delBlocks, `DELETE FROM blocks WHERE file_id = ?`)
	p(&s.delLinks, `DELETE FROM links WHERE source_id = ?`)
	p(&s.delExternal, `DELETE FROM external_links WHERE source_id = ?`)
	p(&s.delWarnings, `DELETE FROM warnings WHERE file_id = ?`)
	s.aliases = newBulkInsert(tx, "aliases", "file_id", "alias")
	s.tags = newBulkInsert(tx, "tags", "file_id", "tag", "fold", "line", "inline")
	s.headings = newBulkInsert(tx, "headings", "file_id", "ord", "level", "text", "line")
	s.blocks = newBulkInsert(tx, "blocks", "file_id", "block_id", "line")
	s.links = newBulkInsert(tx, "links", "source_id", "ord", "kind", "target", "subpath", "display", "line", "context", "target_id")
	s.external = newBulkInsert(tx, "external_links", "source_id", "url", "text", "line")
	p(&s.insWarning, `INSERT INTO warnings (vault_id, file_id, path, message) VALUES (?, ?, ?, ?)`)
	s.search.chunks = newBulkInsert(tx, "chunks", "file_id", "ord", "heading", "start_line", "end_line", "text", "hash")
	closeAll := func() {
		for _, st := range all {
			st.Close()
		}
	}
	if err != nil {
		closeAll()
		return nil, nil, err
	}
	return &s, closeAll, nil
}

// writeBatch stores a batch of prepared files in one transaction.
func (w *writer) writeBatch(ctx context.Context, batch []*job) error {
	tx, err := w.ix.db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("write batch: %w", err)
	}
	defer tx.Rollback()
	s, closeAll, err := prepare(ctx, tx)
	if err != nil {
		return fmt.Errorf("write batch: %w", err)
	}
	defer closeAll()

	pending := false
	for _, j := range batch {
		if j.touch {
			if _, err := s.touchFile.ExecContext(ctx, j.file.Size, j.file.ModTime, createdNS(j.file.Created), j.old.id); err != nil {
				return fmt.Errorf("write %s: %w", j.file.Path, err)
			}
			w.res.tally(j.old.note, j.old.asFound())
			continue
		}
		if j.unreadable && j.old != nil && j.old.note && !j.old.reserved() {
			// Keep what was indexed; record why it could not be refreshed.
			if _, err := s.keepFile.ExecContext(ctx, j.old.id); err != nil {
				return fmt.Errorf("write %s: %w", j.file.Path, err)
			}
			if _, err := s.delWarnings.ExecContext(ctx, j.old.id); err != nil {
				return fmt.Errorf("write %s: %w", j.file.Path, err)
			}
			if _, err := s.insWarning.ExecContext(ctx, w.vaultID, j.old.id, j.file.Path, j.warn+vault.KeptAsRead); err != nil {
				return fmt.Errorf("write %s: %w", j.file.Path, err)
			}
			w.ix.log.Warn("note kept as indexed before", "path", j.file.Path, "problem", j.warn, Reported)
			w.res.tally(j.old.note, retried)
			continue
		}
		pending = true
		if err := w.writeFile(ctx, s, j); err != nil {
			return fmt.Errorf("write %s: %w", j.file.Path, err)
		}
		w.res.tally(j.file.Note, j.old.asWritten())
	}
	if err := s.flush(ctx); err != nil {
		return fmt.Errorf("write batch: %w", err)
	}
	if err := s.search.write(ctx, tx); err != nil {
		return fmt.Errorf("write batch: %w", err)
	}
	if pending {
		if err := w.markPending(ctx, tx); err != nil {
			return fmt.Errorf("write batch: %w", err)
		}
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("write batch: %w", err)
	}
	return nil
}

// writeFile replaces everything stored for one file.
func (w *writer) writeFile(ctx context.Context, s *statements, j *job) error {
	kind := "attachment"
	if j.file.Note {
		kind = "note"
	}
	n := &j.note
	mtime := j.file.ModTime
	if j.unreadable {
		mtime = mtimeReread // never equal to the file's: the next run reads it again
	}
	var id int64
	if err := s.upsertFile.QueryRowContext(ctx, w.vaultID, j.file.Path, kind, j.file.Size, mtime, createdNS(j.file.Created),
		j.hash, n.Title, n.WordCount, frontmatterJSON(n.Frontmatter)).Scan(&id); err != nil {
		return err
	}
	if j.old != nil {
		for _, del := range []*sql.Stmt{s.delAliases, s.delTags, s.delHeadings, s.delBlocks, s.delLinks, s.delExternal, s.delWarnings} {
			if _, err := del.ExecContext(ctx, id); err != nil {
				return err
			}
		}
	}
	for _, a := range n.Aliases {
		if err := s.aliases.add(ctx, id, a); err != nil {
			return err
		}
	}
	for _, t := range n.Tags {
		if err := s.tags.add(ctx, id, t.Name, vault.TagKey(t.Name), t.Line, t.Inline); err != nil {
			return err
		}
	}
	for i, h := range n.Headings {
		if err := s.headings.add(ctx, id, i, h.Level, h.Text, h.Line); err != nil {
			return err
		}
	}
	for _, b := range n.Blocks {
		if err := s.blocks.add(ctx, id, b.ID, b.Line); err != nil {
			return err
		}
	}
	for i, l := range n.Links {
		var target sql.NullInt64
		if i < len(j.targets) {
			target = j.targets[i]
		}
		if err := s.links.add(ctx, id, i, string(l.Kind), l.Target, l.Subpath, l.Display, l.Line, l.Context, target); err != nil {
			return err
		}
	}
	for _, e := range n.External {
		if err := s.external.add(ctx, id, e.URL, e.Text, e.Line); err != nil {
			return err
		}
	}
	if j.old != nil {
		s.search.replaced = append(s.search.replaced, id)
	}
	if j.file.Note {
		s.search.add(id, n)
	}
	warns := n.Warnings
	if j.warn != "" {
		warns = append([]string{j.warn}, warns...)
	}
	for _, msg := range warns {
		if _, err := s.insWarning.ExecContext(ctx, w.vaultID, id, j.file.Path, msg); err != nil {
			return err
		}
		w.ix.log.Warn("note indexed with a problem", "path", j.file.Path, "problem", msg, Reported)
	}
	return nil
}

// searchRows gathers the chunks and note_cjk rows of a batch and writes
// them at its end, each table in as few statements as possible: FTS5 moves
// what it holds in memory to a new segment on disk at the start of nearly
// every statement that follows, so rows written note by note among the
// batch's other statements would leave thousands of tiny segments to
// merge. Written this way, each full-text table gets a segment or two per
// batch. A note's search_notes row, and with it its note_fts and name_fts
// rows, is written by the pass that ends the run (writeSearchNotes), once
// the links to it are all stored.
type searchRows struct {
	chunks   *bulkInsert
	replaced []int64 // files whose old rows go first
	notes    []batchNote
}

// batchNote is what a batch writes of one note: its chunks, and the names
// and headings that decide whether it needs a note_cjk row.
type batchNote struct {
	id                       int64
	title, aliases, headings string
	chunks                   []vault.Chunk
}

// add queues the rows of note n, stored as file id.
func (r *searchRows) add(id int64, n *vault.Note) {
	headings := make([]string, len(n.Headings))
	for i, h := range n.Headings {
		headings[i] = h.Text
	}
	r.notes = append(r.notes, batchNote{id: id, title: n.Title, aliases: strings.Join(n.Aliases, "\n"),
		headings: strings.Join(headings, "\n"), chunks: n.Chunks})
}

// write replaces the rows of the queued notes and empties the queue.
func (r *searchRows) write(ctx context.Context, tx *sql.Tx) error {
	defer func() { r.replaced, r.notes = r.replaced[:0], r.notes[:0] }()
	if len(r.replaced) > 0 {
		// search_notes first: its delete trigger reads the chunks. Its
		// note_cjk row goes too; a note whose run was cut off before the
		// last pass has a note_cjk row and no search_notes row.
		slices.Sort(r.replaced)
		ids := jsonArray(r.replaced)
		for _, q := range []string{
			`DELETE FROM search_notes WHERE file_id IN (SELECT value FROM json_each(?))`,
			`DELETE FROM note_cjk WHERE rowid IN (SELECT value FROM json_each(?))`,
			`DELETE FROM chunks WHERE file_id IN (SELECT value FROM json_each(?))`,
		} {
			if _, err := tx.ExecContext(ctx, q, ids); err != nil {
				return fmt.Errorf("replace search rows: %w", err)
			}
		}
	}
	if len(r.notes) == 0 {
		return nil
	}

	// File order: each full-text table then sees rising rowids.
	slices.SortFunc(r.notes, func(a, b batchNote) int { return cmp.Compare(a.id, b.id) })
	var cjk []cjkRow
	for _, n := range r.notes {
		var body []string
		for i, c := range n.chunks {
			hash := vault.TextHash(c.EmbedText(n.title))
			if err := r.chunks.add(ctx, n.id, i, c.HeadingPath(), c.StartLine, c.EndLine, c.Text, hash); err != nil {
				return fmt.Errorf("write chunks: %w", err)
			}
			body = append(body, c.Text)
		}
		if vault.HasCJK(n.title+"\n"+n.aliases) || vault.HasCJK(n.headings) || slices.ContainsFunc(body, vault.HasCJK) {
			cjk = append(cjk, cjkRow{ID: n.id, Title: vault.CJKPairs(n.title), Aliases: vault.CJKPairs(n.aliases),
				Headings: vault.CJKPairs(n.headings), Body: vault.CJKPairs(strings.Join(body, "\n"))})
		}
	}
	if err := r.chunks.flush(ctx); err != nil {
		return fmt.Errorf("write chunks: %w", err)
	}
	if len(cjk) > 0 {
		rows, err := json.Marshal(cjk)
		if err != nil {
			return fmt.Errorf("write search rows: %w", err)
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO note_cjk (rowid, title, aliases, headings, body)
			SELECT value ->> 'id', value ->> 'title', value ->> 'aliases', value ->> 'headings', value ->> 'body'
			FROM json_each(?)`, rows); err != nil {
			return fmt.Errorf("write search rows: %w", err)
		}
	}
	return nil
}

// cjkRow is one row of note_cjk, its text already rewritten.
type cjkRow struct {
	ID       int64  `json:"id"`
	Title    string `json:"title"`
	Aliases  string `json:"aliases"`
	Headings string `json:"headings"`
	Body     string `json:"body"`
}

// jsonArray encodes ids for json_each, which lets one statement take a
// list of any length.
func jsonArray(ids []int64) string {
	b := make([]byte, 0, len(ids)*8+2)
	b = append(b, '[')
	for i, id := range ids {
		if i > 0 {
			b = append(b, ',')
		}
		b = strconv.AppendInt(b, id, 10)
	}
	return string(append(b, ']'))
}

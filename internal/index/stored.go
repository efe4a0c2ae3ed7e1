package index

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"slices"

	"github.com/jarvis-mcp/jarvis/internal/vault"
)

// storedNoteQuery reads in one statement, and so from one snapshot, what
// the index stored of a note: its row, then each list in the order it was
// written. The row is found only when it holds the content of the given
// hash read by this version of the parser.
const storedNoteQuery = `SELECT f.title, coalesce(f.frontmatter, ''),
	(SELECT json_group_array(alias) FROM (SELECT alias FROM aliases WHERE file_id = f.id ORDER BY rowid)),
	(SELECT json_group_array(json_array(tag, line, inline)) FROM (SELECT tag, line, inline FROM tags WHERE file_id = f.id ORDER BY rowid)),
	(SELECT json_group_array(json_array(level, text, line)) FROM (SELECT level, text, line FROM headings WHERE file_id = f.id ORDER BY ord)),
	(SELECT json_group_array(json_array(kind, target, subpath, display, line, context))
		FROM (SELECT kind, target, subpath, display, line, context FROM links WHERE source_id = f.id ORDER BY ord)),
	(SELECT json_group_array(message) FROM (SELECT message FROM warnings WHERE file_id = f.id ORDER BY rowid))
	FROM files f JOIN vaults v ON v.id = f.vault_id
	WHERE v.name = ? AND f.path = ? AND f.kind = 'note' AND f.hash = ? AND f.hash != '' AND v.parser = ?`

// StoredNote returns what the index stored of the note at path in the
// served vault vaultName when the index read the very content whose
// SHA-256 is hash (hex), with the parser of this version; ok is false
// when it did not. The note holds what the index keeps of a parse:
// title, aliases, frontmatter, tags, headings, links and warnings, not
// its chunks, block ids or external links, nor where each link is written
// (Link.Start and End are 0): a writer that rewrites links parses the
// note's bytes. read-note takes it instead of parsing the note again.
func (c *Catalog) StoredNote(ctx context.Context, vaultName, path, hash string) (note vault.Note, ok bool, err error) {
	if len(c.vaults) > 0 && !slices.Contains(c.vaults, vaultName) {
		return vault.Note{}, false, nil
	}
	rows, err := c.db.QueryContext(ctx, storedNoteQuery, vaultName, path, hash, vault.ParserVersion)
	if err != nil {
		return vault.Note{}, false, fmt.Errorf("read stored note %s: %w", path, err)
	}
	defer rows.Close()
	if !rows.Next() {
		if err := rows.Err(); err != nil {
			return vault.Note{}, false, fmt.Errorf("read stored note %s: %w", path, err)
		}
		return vault.Note{}, false, nil
	}
	var frontmatter string
	var aliases, tags, headings, links, warnings []byte
	if err := rows.Scan(&note.Title, &frontmatter, &aliases, &tags, &headings, &links, &warnings); err != nil {
		return vault.Note{}, false, fmt.Errorf("read stored note %s: %w", path, err)
	}
	if err := decodeStored(&note, frontmatter, aliases, tags, headings, links, warnings); err != nil {
		return vault.Note{}, false, fmt.Errorf("read stored note %s: %w", path, err)
	}
	return note, true, rows.Err()
}

// decodeStored fills note from the columns of storedNoteQuery.
func decodeStored(note *vault.Note, frontmatter string, aliases, tags, headings, links, warnings []byte) error {
	if frontmatter != "" {
		if err := json.Unmarshal([]byte(frontmatter), &note.Frontmatter); err != nil {
			return err
		}
	}
	var tagRows, headingRows, linkRows [][]json.RawMessage
	for _, col := range []struct {
		src []byte
		dst any
	}{
		{aliases, &note.Aliases}, {warnings, &note.Warnings},
		{tags, &tagRows}, {headings, &headingRows}, {links, &linkRows},
	} {
		if err := json.Unmarshal(col.src, col.dst); err != nil {
			return err
		}
	}
	var errs []error
	field := func(raw json.RawMessage, dst any) {
		errs = append(errs, json.Unmarshal(raw, dst))
	}
	for _, r := range tagRows {
		var t vault.Tag
		var inline int
		field(r[0], &t.Name)
		field(r[1], &t.Line)
		field(r[2], &inline)
		t.Inline = inline != 0
		note.Tags = append(note.Tags, t)
	}
	for _, r := range headingRows {
		var h vault.Heading
		field(r[0], &h.Level)
		field(r[1], &h.Text)
		field(r[2], &h.Line)
		note.Headings = append(note.Headings, h)
	}
	for _, r := range linkRows {
		var l vault.Link
		var kind string
		field(r[0], &kind)
		field(r[1], &l.Target)
		field(r[2], &l.Subpath)
		field(r[3], &l.Display)
		field(r[4], &l.Line)
		field(r[5], &l.Context)
		l.Kind = vault.LinkKind(kind)
		note.Links = append(note.Links, l)
	}
	return errors.Join(errs...)
}

// TooComplex reports whether the index, reading the very content src of
// the note at path, found its Markdown too complex to parse within its
// budget: parsing it again would spend that budget to fail again. It
// reads the note's warnings alone.
func (c *Catalog) TooComplex(ctx context.Context, vaultName, path string, src []byte) bool {
	if len(c.vaults) > 0 && !slices.Contains(c.vaults, vaultName) {
		return false
	}
	sum := sha256.Sum256(src)
	rows, err := c.db.QueryContext(ctx, `SELECT w.message FROM warnings w JOIN files f ON f.id = w.file_id JOIN vaults v ON v.id = f.vault_id
		WHERE v.name = ? AND f.path = ? AND f.kind = 'note' AND f.hash = ? AND v.parser = ?`,
		vaultName, path, hex.EncodeToString(sum[:]), vault.ParserVersion)
	if err != nil {
		return false
	}
	defer rows.Close()
	for rows.Next() {
		var w string
		if rows.Scan(&w) == nil && vault.IsTooComplexWarning(w) {
			return true
		}
	}
	return false
}

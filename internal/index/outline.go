package index

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"
)

// Outline is how a vault's notes are arranged, as the index holds them:
// its folders and its tags, each with how many notes it has, at most so
// many of each.
type Outline struct {
	// Folders are the fullest first, then by path; which folders are
	// kept, when not all are, goes by level: the top level first, then
	// the fullest of each level.
	Folders []FolderCount
	// MoreFolders is how many folders were left out.
	MoreFolders int
	// Tags are the most used first.
	Tags []TagCount
	// MoreTags is how many tags were left out.
	MoreTags int
}

// FolderCount is a folder and how many notes are in it, its subfolders
// included.
type FolderCount struct {
	// Path is vault-relative and ends in '/', as a path_prefix filter
	// takes it.
	Path  string
	Notes int
}

// TagCount is a tag and how many notes carry it. Tags differing only in
// case are one tag (their key, vault.TagKey), named as one of its notes
// writes it.
type TagCount struct {
	Tag   string
	Notes int
}

// outlineFolders lists every folder that holds a note, found by cutting
// each note's path at each '/', with the notes under it. A row reserved
// for a note a run has not read yet (mtime_ns ?3, mtimeReserved) is not
// counted, as Stats does not count it: part way through a first run the
// folders add up to the notes list-vaults gives. A folder whose notes all
// lie in one subfolder (a subfolder holding as many) is left out: it
// names the same notes, and a chain of folders each holding only the
// next ("L1/", "L1/L2/", … "L1/…/L8/") is given once, as its deepest.
const outlineFolders = `WITH RECURSIVE dirs(dir, parent, rest) AS (
		SELECT '', '', f.path FROM files f
		WHERE f.kind = 'note' AND f.mtime_ns <> ?3 AND f.vault_id = (SELECT id FROM vaults WHERE name = ?1)
		UNION ALL
		SELECT dir || substr(rest, 1, instr(rest, '/')), dir, substr(rest, instr(rest, '/') + 1)
		FROM dirs WHERE instr(rest, '/') > 0
	),
	counted(dir, parent, notes) AS MATERIALIZED (
		SELECT dir, parent, count(*) FROM dirs WHERE dir <> '' GROUP BY dir
	),
	passed(dir) AS (
		SELECT DISTINCT c.parent FROM counted c JOIN counted p ON p.dir = c.parent WHERE c.notes = p.notes
	)
	SELECT dir, notes, count(*) OVER () FROM counted
	WHERE dir NOT IN passed
	ORDER BY length(dir) - length(replace(dir, '/', '')), notes DESC, dir
	LIMIT ?2`

// outlineTags lists the tags of a vault's notes by key, each note counted
// once however often it carries the tag.
const outlineTags = `SELECT min(t.tag), count(DISTINCT t.file_id) AS notes, count(*) OVER ()
	FROM tags t JOIN files f ON f.id = t.file_id
	WHERE f.vault_id = (SELECT id FROM vaults WHERE name = ?)
	GROUP BY t.fold
	ORDER BY notes DESC, t.fold
	LIMIT ?`

// Outline reads the folders and tags of the named vault, at most folders
// and tags of each, in two queries.
func (c *Catalog) Outline(ctx context.Context, vaultName string, folders, tags int) (Outline, error) {
	var o Outline
	total, err := c.counts(ctx, outlineFolders, func(name string, n int) {
		o.Folders = append(o.Folders, FolderCount{Path: name, Notes: n})
	}, vaultName, folders, mtimeReserved)
	if err != nil {
		return Outline{}, fmt.Errorf("read the folders of vault %q: %w", vaultName, err)
	}
	o.MoreFolders = total - len(o.Folders)
	slices.SortStableFunc(o.Folders, func(a, b FolderCount) int {
		return cmp.Or(cmp.Compare(b.Notes, a.Notes), strings.Compare(a.Path, b.Path))
	})
	total, err = c.counts(ctx, outlineTags, func(name string, n int) {
		o.Tags = append(o.Tags, TagCount{Tag: name, Notes: n})
	}, vaultName, tags)
	if err != nil {
		return Outline{}, fmt.Errorf("read the tags of vault %q: %w", vaultName, err)
	}
	o.MoreTags = total - len(o.Tags)
	return o, nil
}

// counts runs a query of (name, notes, total) rows for a vault, with its
// args (the vault's name, how many rows at most, and what else the query
// takes), and returns the total.
func (c *Catalog) counts(ctx context.Context, query string, add func(string, int), args ...any) (int, error) {
	rows, err := c.db.QueryContext(ctx, query, args...)
	if err != nil {
		return 0, err
	}
	defer rows.Close()
	total := 0
	for rows.Next() {
		var name string
		var n int
		if err := rows.Scan(&name, &n, &total); err != nil {
			return 0, err
		}
		add(name, n)
	}
	return total, rows.Err()
}

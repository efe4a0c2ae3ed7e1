// Package query runs Obsidian Bases (package bases) over the index: the
// files of a vault as bases.Files read from SQLite in a few statements,
// link resolution by the rules of internal/vault, and the runner that
// filters, sorts, limits, groups and summarizes a view's rows.
package query

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/jarvis-mcp/jarvis/internal/bases"
	"github.com/jarvis-mcp/jarvis/internal/store"
	"github.com/jarvis-mcp/jarvis/internal/vault"
)

// Querier is the database the files are read from.
type Querier interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
}

// File is one file of the index as Bases sees it: a note with its
// frontmatter, tags and links, or an attachment with its facts alone.
type File struct {
	ID    int64
	path  string
	Title string
	Note  bool // a Markdown note, not an attachment
	size  int64
	mtime time.Time
	ctime time.Time
	props map[string]any
	tags  []string
	links []string
	embed []string
	back  []string
}

func (f *File) Path() string               { return f.path }
func (f *File) Properties() map[string]any { return f.props }
func (f *File) Size() int64                { return f.size }

// Created is file.ctime: when the file was made (CreatedTime).
func (f *File) Created() time.Time  { return f.ctime }
func (f *File) Modified() time.Time { return f.mtime }
func (f *File) Tags() []string      { return f.tags }
func (f *File) Links() []string     { return f.links }
func (f *File) Embeds() []string    { return f.embed }
func (f *File) Backlinks() []string { return f.back }

// CreatedTime is a file's file.ctime: its birth time, created in Unix
// nanoseconds, where the file system kept it and the index holds it
// (vault.File.Created); else its modification time, as Obsidian gives on
// systems that keep no birth time. A created of 0 is unknown.
func CreatedTime(created int64, modified time.Time) time.Time {
	if created == 0 {
		return modified
	}
	return time.Unix(0, created)
}

// Vault is every file the index holds of one vault, in path order, with
// the resolver its links are followed by.
type Vault struct {
	Name     string
	Files    []*File
	byPath   map[string]*File
	resolver *vault.Resolver
	index    postings
	// inline counts the notes whose text holds name as a Dataview inline
	// field ("name:: value"); nil when the vault was not read from an
	// index (a test's files).
	inline func(ctx context.Context, name string) (int, error)
}

// inlineFieldQuery reads the paths of the vault's notes whose text holds
// a Dataview inline field ("owner:: [[Ana]]"), by a LIKE pattern.
const inlineFieldQuery = `SELECT DISTINCT f.path FROM chunks c JOIN files f ON f.id = c.file_id JOIN vaults v ON v.id = f.vault_id
	WHERE v.name = ? AND c.text LIKE ? ESCAPE '\'`

// inlineFieldNotes counts the notes of v whose text holds prop as a
// Dataview inline field, which Bases, and so a query, does not read. It
// reads every passage of the vault: it is asked only of a property no
// file has.
func (v *Vault) inlineFieldNotes(ctx context.Context, db Querier, prop string) (int, error) {
	rows, err := db.QueryContext(ctx, inlineFieldQuery, v.Name, "%"+store.EscapeLike(prop)+"::%")
	if err != nil {
		return 0, fmt.Errorf("look for inline field %s: %w", prop, err)
	}
	defer rows.Close()
	n := 0
	for rows.Next() {
		var p string
		if err := rows.Scan(&p); err != nil {
			return 0, fmt.Errorf("look for inline field %s: %w", prop, err)
		}
		if f := v.byPath[p]; f != nil && f.Note {
			n++
		}
	}
	if err := rows.Err(); err != nil {
		return 0, fmt.Errorf("look for inline field %s: %w", prop, err)
	}
	return n, nil
}

// Statements of Load: each reads one kind of fact for every file of the
// vault, so that a query costs the same few statements whatever its size.
const (
	filesQuery = `SELECT f.id, f.path, f.kind, f.size, f.mtime_ns, coalesce(f.created_ns, 0), f.title, coalesce(f.frontmatter, '')
		FROM files f JOIN vaults v ON v.id = f.vault_id WHERE v.name = ? ORDER BY f.path`
	tagsQuery = `SELECT t.file_id, t.tag FROM tags t JOIN files f ON f.id = t.file_id JOIN vaults v ON v.id = f.vault_id
		WHERE v.name = ? ORDER BY t.file_id, t.rowid`
	linksQuery = `SELECT l.source_id, l.kind, l.target, l.subpath, coalesce(l.target_id, 0)
		FROM links l JOIN files f ON f.id = l.source_id JOIN vaults v ON v.id = f.vault_id
		WHERE v.name = ? ORDER BY l.source_id, l.ord`
	aliasesQuery = `SELECT f.path, a.alias FROM aliases a JOIN files f ON f.id = a.file_id JOIN vaults v ON v.id = f.vault_id
		WHERE v.name = ? ORDER BY f.path, a.rowid`
)

// Load reads the files of the named vault from the index, leaving out
// those its exclude patterns keep out (vault.LeftOut): the index may have
// been written under other rules.
func Load(ctx context.Context, db Querier, name string, exclude []string) (*Vault, error) {
	v := &Vault{Name: name, byPath: map[string]*File{}}
	v.inline = func(ctx context.Context, prop string) (int, error) { return v.inlineFieldNotes(ctx, db, prop) }
	byID := map[int64]*File{}
	err := each(ctx, db, filesQuery, name, func(rows *sql.Rows) error {
		f := &File{}
		var kind, fm string
		var mtime, created int64
		if err := rows.Scan(&f.ID, &f.path, &kind, &f.size, &mtime, &created, &f.Title, &fm); err != nil {
			return err
		}
		if vault.LeftOut(f.path, exclude) {
			return nil
		}
		f.Note, f.mtime = kind == "note", time.Unix(0, mtime)
		f.ctime = CreatedTime(created, f.mtime)
		if fm != "" {
			// A frontmatter the index could not store as an object reads as
			// none, as Obsidian shows a note whose YAML it cannot read.
			_ = json.Unmarshal([]byte(fm), &f.props)
		}
		v.Files = append(v.Files, f)
		v.byPath[f.path] = f
		byID[f.ID] = f
		return nil
	})
	if err != nil {
		return nil, err
	}
	if err := each(ctx, db, tagsQuery, name, func(rows *sql.Rows) error {
		var id int64
		var tag string
		if err := rows.Scan(&id, &tag); err != nil {
			return err
		}
		if f := byID[id]; f != nil && !slices.Contains(f.tags, tag) {
			f.tags = append(f.tags, tag)
		}
		return nil
	}); err != nil {
		return nil, err
	}
	if err := each(ctx, db, linksQuery, name, func(rows *sql.Rows) error {
		var src, target int64
		var kind, text, sub string
		if err := rows.Scan(&src, &kind, &text, &sub, &target); err != nil {
			return err
		}
		f, to := byID[src], byID[target]
		if f == nil {
			return nil
		}
		if kind == string(vault.KindMarkdown) && to != nil {
			// A Markdown link is relative to its note's folder, which the
			// resolver Bases calls does not know: its target is the path
			// the index resolved it to.
			text = to.path
		}
		if sub != "" {
			text += "#" + sub
		}
		if kind == string(vault.KindEmbed) {
			f.embed = append(f.embed, text)
		} else {
			f.links = append(f.links, text)
		}
		if to != nil && !slices.Contains(to.back, f.path) {
			to.back = append(to.back, f.path)
		}
		return nil
	}); err != nil {
		return nil, err
	}
	aliases := map[string][]string{}
	if err := each(ctx, db, aliasesQuery, name, func(rows *sql.Rows) error {
		var p, a string
		if err := rows.Scan(&p, &a); err != nil {
			return err
		}
		aliases[p] = append(aliases[p], a)
		return nil
	}); err != nil {
		return nil, err
	}
	paths := make([]string, len(v.Files))
	for i, f := range v.Files {
		paths[i] = f.path
		slices.Sort(f.back)
	}
	v.resolver = vault.NewResolver(paths, aliases)
	return v, nil
}

func each(ctx context.Context, db Querier, q, name string, row func(*sql.Rows) error) error {
	rows, err := db.QueryContext(ctx, q, name)
	if err != nil {
		return fmt.Errorf("read the files of vault %q: %w", name, err)
	}
	defer rows.Close()
	for rows.Next() {
		if err := row(rows); err != nil {
			return fmt.Errorf("read the files of vault %q: %w", name, err)
		}
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("read the files of vault %q: %w", name, err)
	}
	return nil
}

// File returns the file at a vault-relative path.
func (v *Vault) File(path string) (*File, bool) {
	f, ok := v.byPath[path]
	return f, ok
}

// Resolve is the bases.Resolver of the vault: a link target written in
// the note at from finds its file by Obsidian's rules (vault.Resolver).
func (v *Vault) Resolve(from, target string) (bases.File, bool) {
	if i := strings.IndexByte(target, '|'); i >= 0 {
		target = target[:i]
	}
	if i := strings.IndexByte(target, '#'); i >= 0 {
		target = target[:i]
	}
	p, ok := v.resolver.Resolve(from, target, false)
	if !ok {
		return nil, false
	}
	f, ok := v.byPath[p]
	return f, ok
}

// Package graph answers questions about the links between notes, from the
// tables the index package fills: what a note links to, what links to it,
// which links lead nowhere and which notes nothing links to.
package graph

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/jarvis-mcp/jarvis/internal/store"
	"github.com/jarvis-mcp/jarvis/internal/vault"
)

// ErrNoteNotFound means no note has the path, title or alias asked for.
// The error carrying it is a *NotFoundError with suggestions.
var ErrNoteNotFound = errors.New("note not found")

// Querier is the part of *sql.DB the graph needs.
type Querier interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

// Graph reads the link graph of every indexed vault, or of those it is
// limited to.
type Graph struct {
	db     Querier
	vaults []string // the vaults a lookup without a vault name may match; nil for all
}

// New returns a Graph over db.
func New(db Querier) *Graph { return &Graph{db: db} }

// Within returns a Graph whose lookups that name no vault match only notes
// of the named vaults: those the caller serves, when the database also
// holds vaults another configuration indexed.
func (g *Graph) Within(names []string) *Graph {
	c := *g
	c.vaults = slices.Clone(names)
	return &c
}

// inScope is a condition on the files table under alias keeping the files
// of the vault named, or with no name of every vault the Graph looks in,
// with its arguments.
func (g *Graph) inScope(alias, vaultName string) (string, []any) {
	names := g.vaults
	if vaultName != "" {
		names = []string{vaultName}
	}
	if cond, args := store.InVaults(alias+".vault_id", names); cond != "" {
		return cond, args
	}
	// Naming the vaults even when all are wanted lets an exact path use
	// the (vault_id, path) index.
	return alias + `.vault_id IN (SELECT id FROM vaults)`, nil
}

// Edge is one link from a note.
type Edge struct {
	Source  string `json:"source"`
	Target  string `json:"target"` // the resolved path, or the text as written when unresolved
	Kind    string `json:"kind"`
	Subpath string `json:"subpath,omitempty"`
	// Text is the display text, or the target as written (with its
	// heading or block) when the link has none: what a reader of the note
	// sees.
	Text    string `json:"text,omitempty"`
	Line    int    `json:"line"`
	Context string `json:"context,omitempty"`
	// Resolved is false for a link to a note or file that does not exist.
	Resolved bool `json:"resolved"`
}

// Unresolved is a link target that matches no file, with how often and from
// where it is linked.
type Unresolved struct {
	Target  string   `json:"target"`
	Count   int      `json:"count"`
	Sources []string `json:"sources"`
}

const edgeColumns = `s.path, coalesce(t.path, l.target), l.target, l.kind, l.subpath, l.display, l.line, l.context, l.target_id IS NOT NULL`

// linkText is what a link shows in the note: its display text, or else its
// target and subpath as written ("Grinder#Grind settings", "#Steps").
func linkText(display, target, subpath string) string {
	switch {
	case display != "":
		return display
	case subpath != "":
		return target + "#" + subpath
	}
	return target
}

func scanEdges(rows *sql.Rows) ([]Edge, error) {
	defer rows.Close()
	var out []Edge
	for rows.Next() {
		var e Edge
		var written string
		if err := rows.Scan(&e.Source, &e.Target, &written, &e.Kind, &e.Subpath, &e.Text, &e.Line, &e.Context, &e.Resolved); err != nil {
			return nil, err
		}
		e.Text = linkText(e.Text, written, e.Subpath)
		out = append(out, e)
	}
	return out, rows.Err()
}

// noteID finds a file by vault name and exact path. A miss is a
// *NotFoundError whose suggestions name the closest files.
func (g *Graph) noteID(ctx context.Context, vaultName, path string) (int64, error) {
	var id int64
	err := g.db.QueryRowContext(ctx, `SELECT f.id FROM files f JOIN vaults v ON v.id = f.vault_id
		WHERE v.name = ? AND f.path = ?`, vaultName, path).Scan(&id)
	if errors.Is(err, sql.ErrNoRows) {
		all, vaults, err := g.allFiles(ctx, vaultName)
		if err != nil {
			return 0, err
		}
		return 0, g.notFound(ctx, vaultName, path, cleanRef(path), all, vaults)
	}
	if err != nil {
		return 0, fmt.Errorf("find note %s: %w", path, err)
	}
	return id, nil
}

// Outlinks are the links written in a note, in the order they appear.
func (g *Graph) Outlinks(ctx context.Context, vaultName, path string) ([]Edge, error) {
	id, err := g.noteID(ctx, vaultName, path)
	if err != nil {
		return nil, err
	}
	rows, err := g.db.QueryContext(ctx, `SELECT `+edgeColumns+`
		FROM links l JOIN files s ON s.id = l.source_id LEFT JOIN files t ON t.id = l.target_id
		WHERE l.source_id = ? ORDER BY l.ord`, id)
	if err != nil {
		return nil, fmt.Errorf("outlinks of %s: %w", path, err)
	}
	edges, err := scanEdges(rows)
	if err != nil {
		return nil, fmt.Errorf("outlinks of %s: %w", path, err)
	}
	return edges, nil
}

// LinkedNotes are the paths of the notes a note links to, in the order
// of their first link, each once: no attachment, no unresolved link and
// not the note itself.
func (g *Graph) LinkedNotes(ctx context.Context, vaultName, path string) ([]string, error) {
	id, err := g.noteID(ctx, vaultName, path)
	if err != nil {
		return nil, err
	}
	rows, err := g.db.QueryContext(ctx, `SELECT t.path FROM links l JOIN files t ON t.id = l.target_id
		WHERE l.source_id = ? AND t.kind = 'note' AND t.id != l.source_id
		GROUP BY t.id ORDER BY min(l.ord)`, id)
	if err != nil {
		return nil, fmt.Errorf("notes linked from %s: %w", path, err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var p string
		if err := rows.Scan(&p); err != nil {
			return nil, fmt.Errorf("notes linked from %s: %w", path, err)
		}
		out = append(out, p)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("notes linked from %s: %w", path, err)
	}
	return out, nil
}

// Backlinks are the links from other notes (and the note itself) that
// resolve to the file at path, ordered by source path and line.
func (g *Graph) Backlinks(ctx context.Context, vaultName, path string) ([]Edge, error) {
	id, err := g.noteID(ctx, vaultName, path)
	if err != nil {
		return nil, err
	}
	rows, err := g.db.QueryContext(ctx, `SELECT `+edgeColumns+`
		FROM links l JOIN files s ON s.id = l.source_id JOIN files t ON t.id = l.target_id
		WHERE l.target_id = ? ORDER BY s.path, l.ord`, id)
	if err != nil {
		return nil, fmt.Errorf("backlinks of %s: %w", path, err)
	}
	edges, err := scanEdges(rows)
	if err != nil {
		return nil, fmt.Errorf("backlinks of %s: %w", path, err)
	}
	return edges, nil
}

// BacklinkPage is some of the links to a note from other notes, with how
// many there are in all.
type BacklinkPage struct {
	// Edges are at most the limit asked for, ordered by source path and
	// line.
	Edges []Edge
	// Total counts every link to the note from another note.
	Total int
}

// BacklinksUpTo returns at most limit of the links to the file at path from
// other notes (its own [[#Heading]] links are not backlinks), and how many
// there are. When there are more, the ones kept are those the index has
// held longest: links_target gives a note's links in that order, so a note
// linked from 100,000 others costs no more than one linked from limit.
// The total of a full page is the count the index keeps of each file's
// backlinks (migration 0011), one row read whatever the count.
func (g *Graph) BacklinksUpTo(ctx context.Context, vaultName, path string, limit int) (BacklinkPage, error) {
	id, err := g.noteID(ctx, vaultName, path)
	if err != nil {
		return BacklinkPage{}, err
	}
	rows, err := g.db.QueryContext(ctx, `SELECT `+edgeColumns+`
		FROM links l JOIN files s ON s.id = l.source_id JOIN files t ON t.id = l.target_id
		WHERE l.id IN (SELECT id FROM links WHERE target_id = ?1 AND source_id <> ?1 ORDER BY id LIMIT ?2)
		ORDER BY s.path, l.ord`, id, max(limit, 0))
	if err != nil {
		return BacklinkPage{}, fmt.Errorf("backlinks of %s: %w", path, err)
	}
	edges, err := scanEdges(rows)
	if err != nil {
		return BacklinkPage{}, fmt.Errorf("backlinks of %s: %w", path, err)
	}
	page := BacklinkPage{Edges: edges, Total: len(edges)}
	if len(edges) < limit {
		return page, nil
	}
	var kept int
	err = g.db.QueryRowContext(ctx, `SELECT coalesce((SELECT n FROM backlink_counts WHERE file_id = ?), 0)`, id).Scan(&kept)
	if err != nil {
		return BacklinkPage{}, fmt.Errorf("count backlinks of %s: %w", path, err)
	}
	// The page and the count are two statements: an index run committing
	// between them could leave fewer counted than listed.
	page.Total = max(kept, len(edges))
	return page, nil
}

// UnresolvedTargets lists link targets that match no file in the vault, the
// most linked first, at most limit of them (all when limit <= 0). Targets
// are grouped without regard to case, as they are resolved.
func (g *Graph) UnresolvedTargets(ctx context.Context, vaultName string, limit int) ([]Unresolved, error) {
	rows, err := g.db.QueryContext(ctx, `SELECT l.target, s.path
		FROM links l JOIN files s ON s.id = l.source_id JOIN vaults v ON v.id = s.vault_id
		WHERE v.name = ? AND l.target_id IS NULL ORDER BY s.path, l.ord`, vaultName)
	if err != nil {
		return nil, fmt.Errorf("unresolved links of %q: %w", vaultName, err)
	}
	defer rows.Close()
	byKey := map[string]*Unresolved{}
	var out []*Unresolved
	for rows.Next() {
		var target, source string
		if err := rows.Scan(&target, &source); err != nil {
			return nil, fmt.Errorf("unresolved links of %q: %w", vaultName, err)
		}
		k := strings.ToLower(target)
		u, ok := byKey[k]
		if !ok {
			u = &Unresolved{Target: target}
			byKey[k] = u
			out = append(out, u)
		}
		u.Count++
		if n := len(u.Sources); n == 0 || u.Sources[n-1] != source {
			u.Sources = append(u.Sources, source)
		}
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("unresolved links of %q: %w", vaultName, err)
	}
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].Count != out[j].Count {
			return out[i].Count > out[j].Count
		}
		return strings.ToLower(out[i].Target) < strings.ToLower(out[j].Target)
	})
	if limit > 0 && len(out) > limit {
		out = out[:limit]
	}
	res := make([]Unresolved, len(out))
	for i, u := range out {
		res[i] = *u
	}
	return res, nil
}

// LinkersOf are the notes (at most limit, by path) with a link that leads
// to no file and may name target (vault.Target.MayName): the notes that
// wait for a note of that name, in the vault named or every vault the
// Graph looks in; total counts them all. Names are compared as links are
// resolved: without regard to case or Unicode form, with or without
// ".md", and a link written with folders is found by the bare name.
func (g *Graph) LinkersOf(ctx context.Context, vaultName, target string, limit int) (notes []Ref, total int, err error) {
	want := vault.ParseTarget(target)
	scope, args := g.inScope("s", vaultName)
	rows, err := g.db.QueryContext(ctx, `SELECT DISTINCT v.name, s.path, l.target
		FROM links l JOIN files s ON s.id = l.source_id JOIN vaults v ON v.id = s.vault_id
		WHERE `+scope+` AND l.target_id IS NULL
		ORDER BY s.path, v.name`, args...)
	if err != nil {
		return nil, 0, fmt.Errorf("links to %q: %w", target, err)
	}
	defer rows.Close()
	var last Ref
	for rows.Next() {
		var r Ref
		var written string
		if err := rows.Scan(&r.Vault, &r.Path, &written); err != nil {
			return nil, 0, fmt.Errorf("links to %q: %w", target, err)
		}
		if r == last || !vault.ParseTarget(written).MayName(want) {
			continue
		}
		last = r
		if total++; limit <= 0 || len(notes) < limit {
			notes = append(notes, r)
		}
	}
	if err := rows.Err(); err != nil {
		return nil, 0, fmt.Errorf("links to %q: %w", target, err)
	}
	return notes, total, nil
}

// Orphans are the notes that no other note links to and that link to no
// other note, in path order.
func (g *Graph) Orphans(ctx context.Context, vaultName string) ([]string, error) {
	rows, err := g.db.QueryContext(ctx, `SELECT f.path FROM files f JOIN vaults v ON v.id = f.vault_id
		WHERE v.name = ? AND f.kind = 'note'
		  AND NOT EXISTS (SELECT 1 FROM links l WHERE l.target_id = f.id AND l.source_id <> f.id)
		  AND NOT EXISTS (SELECT 1 FROM links l WHERE l.source_id = f.id AND l.target_id IS NOT NULL AND l.target_id <> f.id)
		ORDER BY f.path`, vaultName)
	if err != nil {
		return nil, fmt.Errorf("orphans of %q: %w", vaultName, err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var p string
		if err := rows.Scan(&p); err != nil {
			return nil, fmt.Errorf("orphans of %q: %w", vaultName, err)
		}
		out = append(out, p)
	}
	return out, rows.Err()
}

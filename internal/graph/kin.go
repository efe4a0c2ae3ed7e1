package graph

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"slices"

	"github.com/jarvis-mcp/jarvis/internal/vault"
)

// Kin is a note near another in the link graph or by its tags, with what
// joins the two.
type Kin struct {
	Path  string
	Title string
	// LinksTo is true when the note asked about links to this one;
	// LinkedFrom when this one links to it.
	LinksTo, LinkedFrom bool
	// BothLinkTo are the files both notes link to, the least linked
	// first; Coupling weighs them, each the more the fewer notes link to
	// it (Adamic-Adar: 1/ln(1+d) for a file d notes link to).
	BothLinkTo []string
	Coupling   float64
	// CitedWith are the notes that link to both, those linking to the
	// fewest notes first; CoCitation weighs them the same way by how
	// many notes each links to.
	CitedWith  []string
	CoCitation float64
	// Tags are the tags both notes have, the rarest first, but for those
	// every note of the vault has, which say nothing; TagWeight adds up
	// their inverse document frequency, ln(notes/notes with the tag).
	Tags      []string
	TagWeight float64

	bothIDs, citedByIDs []int64
}

// Kinship is what the link graph and the tags say about one note's kin.
type Kinship struct {
	Ref
	Aliases []string
	// Tags are the note's own tags, without repeats.
	Tags []string
	// Kin are the notes joined to it by a link, a shared link, a note
	// linking to both, or a tag, by path. The note itself is not among
	// them.
	Kin []Kin
	// Skipped names the hubs left out of shared links and co-citation,
	// the tags too common to list the notes of, and how many of the
	// note's own links were not followed (maxExpand): each joins so many
	// notes that it says little about any two, and reading them all would
	// cost more than the rest of the answer.
	Skipped []string

	ID int64
}

// maxFanout is how many links a shared file, linking note or tag may
// have before Kin leaves it out: its weight is then under 1/ln(1001) ≈
// 0.14 of a pair of notes, and reading its links for every call would
// make a vault's hubs the slowest notes to ask about.
const maxFanout = 1000

// Kin finds the notes near the note at path in vault: those it links to
// or that link to it, those linking to the same files (bibliographic
// coupling), those linked from the same notes (co-citation), and those
// sharing a tag. A note that is not indexed is a *NotFoundError.
func (g *Graph) Kin(ctx context.Context, vaultName, path string) (Kinship, error) {
	id, err := g.noteID(ctx, vaultName, path)
	if err != nil {
		return Kinship{}, err
	}
	k := Kinship{Ref: Ref{Vault: vaultName, Path: path}, ID: id}
	fail := func(what string, err error) (Kinship, error) {
		return Kinship{}, fmt.Errorf("%s of %s: %w", what, path, err)
	}
	var vaultID int64
	if err := g.db.QueryRowContext(ctx, `SELECT title, vault_id FROM files WHERE id = ?`, id).Scan(&k.Title, &vaultID); err != nil {
		return fail("title", err)
	}
	if k.Aliases, err = g.strings(ctx, `SELECT alias FROM aliases WHERE file_id = ? ORDER BY rowid`, id); err != nil {
		return fail("aliases", err)
	}
	byID := map[int64]*Kin{}
	kin := func(id int64) *Kin {
		if c, ok := byID[id]; ok {
			return c
		}
		c := &Kin{}
		byID[id] = c
		return c
	}

	// Direct links, either way.
	if err := g.eachPair(ctx, `SELECT DISTINCT target_id, 0 FROM links WHERE source_id = ?1 AND target_id <> ?1`,
		func(t, _ int64) { kin(t).LinksTo = true }, id); err != nil {
		return fail("links", err)
	}
	if err := g.eachPair(ctx, `SELECT DISTINCT source_id, 0 FROM links WHERE target_id = ?1 AND source_id <> ?1`,
		func(s, _ int64) { kin(s).LinkedFrom = true }, id); err != nil {
		return fail("backlinks", err)
	}

	// Shared links: the files the note links to, each with how many
	// links lead to it (links_target answers the count from its index
	// alone), then the other notes linking to those not too linked.
	shared := map[int64]int{} // a file both link to -> links to it
	if err := g.eachPair(ctx, `SELECT t.id, (SELECT count(*) FROM links WHERE target_id = t.id)
		FROM (SELECT DISTINCT target_id AS id FROM links WHERE source_id = ?1 AND target_id IS NOT NULL AND target_id <> ?1) t`,
		func(t, n int64) { shared[t] = int(n) }, id); err != nil {
		return fail("shared links", err)
	}
	sharedWith := map[int64][]int64{}
	var hubs []int64
	targets, rest := fewestFirst(shared)
	if rest > 0 {
		k.Skipped = append(k.Skipped, fmt.Sprintf("the %d most linked of the %d files it links to", rest, len(shared)))
	}
	for _, t := range targets {
		if n := shared[t]; n > maxFanout {
			hubs = append(hubs, t)
			continue
		}
		if err := g.eachPair(ctx, `SELECT DISTINCT source_id, 0 FROM links WHERE target_id = ?1 AND source_id <> ?1 AND source_id <> ?2`,
			func(s, _ int64) { sharedWith[s] = append(sharedWith[s], t) }, t, id); err != nil {
			return fail("shared links", err)
		}
	}

	// Co-citation: the notes linking to this one, each with how many
	// links it makes, then the other files those not too long link to.
	citers := map[int64]int{}
	if err := g.eachPair(ctx, `SELECT s.id, (SELECT count(*) FROM links WHERE source_id = s.id)
		FROM (SELECT DISTINCT source_id AS id FROM links WHERE target_id = ?1 AND source_id <> ?1) s`,
		func(s, n int64) { citers[s] = int(n) }, id); err != nil {
		return fail("co-citation", err)
	}
	citedBy := map[int64][]int64{}
	sources, rest := fewestFirst(citers)
	if rest > 0 {
		k.Skipped = append(k.Skipped, fmt.Sprintf("the %d longest of the %d notes linking to it", rest, len(citers)))
	}
	for _, s := range sources {
		if n := citers[s]; n > maxFanout {
			hubs = append(hubs, s)
			continue
		}
		if err := g.eachPair(ctx, `SELECT DISTINCT target_id, 0 FROM links
			WHERE source_id = ?1 AND target_id IS NOT NULL AND target_id <> ?1 AND target_id <> ?2`,
			func(t, _ int64) { citedBy[t] = append(citedBy[t], s) }, s, id); err != nil {
			return fail("co-citation", err)
		}
	}

	// Tags, compared by their keys (vault.TagKey) as the search filter
	// compares them, each weighted by how rare it is in the vault.
	tags, err := g.strings(ctx, `SELECT tag FROM tags WHERE file_id = ? ORDER BY line, rowid`, id)
	if err != nil {
		return fail("tags", err)
	}
	var notes int64
	if err := g.db.QueryRowContext(ctx, `SELECT notes FROM vaults WHERE id = ?`, vaultID).Scan(&notes); err != nil {
		return fail("tags", err)
	}
	idf := map[string]float64{}
	seen := map[string]bool{}
	for _, tag := range tags {
		key := vault.TagKey(tag)
		if seen[key] {
			continue
		}
		seen[key] = true
		k.Tags = append(k.Tags, tag)
		var with []int64
		if err := g.eachPair(ctx, `SELECT DISTINCT t.file_id, 0 FROM tags t JOIN files f ON f.id = t.file_id
			WHERE t.fold = ?1 AND f.vault_id = ?2 LIMIT ?3`,
			func(f, _ int64) { with = append(with, f) }, key, vaultID, maxFanout+2); err != nil {
			return fail("tags", err)
		}
		if len(with) > maxFanout+1 {
			k.Skipped = append(k.Skipped, "#"+tag)
			continue
		}
		idf[key] = math.Log(float64(max(notes, int64(len(with)))) / float64(max(len(with), 1)))
		if idf[key] == 0 {
			continue // every note has it
		}
		for _, f := range with {
			if f != id {
				c := kin(f)
				c.Tags = append(c.Tags, tag)
				c.TagWeight += idf[key]
			}
		}
	}

	for s, ts := range sharedWith {
		c := kin(s)
		for _, t := range ts {
			c.Coupling += 1 / math.Log(1+float64(max(shared[t], 2)))
		}
		c.bothIDs = byCount(ts, shared)
	}
	for t, ss := range citedBy {
		c := kin(t)
		for _, s := range ss {
			c.CoCitation += 1 / math.Log(1+float64(max(citers[s], 2)))
		}
		c.citedByIDs = byCount(ss, citers)
	}

	// Names, and only notes: a shared attachment joins two notes, but is
	// no note to read.
	names, err := g.fileNames(ctx, mapKeys(byID), mapKeys(shared), mapKeys(citers))
	if err != nil {
		return fail("names", err)
	}
	for _, h := range hubs {
		k.Skipped = append(k.Skipped, names[h].path)
	}
	for fid, c := range byID {
		n, ok := names[fid]
		if !ok || n.kind != "note" {
			continue
		}
		c.Path, c.Title = n.path, n.title
		c.BothLinkTo = pathsOf(c.bothIDs, names)
		c.CitedWith = pathsOf(c.citedByIDs, names)
		slices.SortStableFunc(c.Tags, func(a, b string) int { return cmp.Compare(idf[vault.TagKey(b)], idf[vault.TagKey(a)]) })
		k.Kin = append(k.Kin, *c)
	}
	slices.SortFunc(k.Kin, func(a, b Kin) int { return cmp.Compare(a.Path, b.Path) })
	slices.Sort(k.Skipped)
	return k, nil
}

// maxExpand is how many of the files a note links to, and of the notes
// linking to it, Kin reads the links of: one query each. The least linked
// ones, which weigh most, are read first; a note linking to thousands
// (an index of a whole vault) is then answered in as many queries as a
// note linking to maxExpand.
const maxExpand = 200

// fewestFirst returns the ids of n by their counts, fewest first, cut to
// maxExpand, and how many were cut.
func fewestFirst(n map[int64]int) ([]int64, int) {
	ids := byCount(mapKeys(n), n)
	if len(ids) <= maxExpand {
		return ids, 0
	}
	return ids[:maxExpand], len(ids) - maxExpand
}

// byCount orders file ids by the count each has in n, fewest first, then
// by id.
func byCount(ids []int64, n map[int64]int) []int64 {
	ids = slices.Clone(ids)
	slices.SortFunc(ids, func(a, b int64) int {
		return cmp.Or(cmp.Compare(n[a], n[b]), cmp.Compare(a, b))
	})
	return ids
}

// pathsOf names files by their paths.
func pathsOf(ids []int64, names map[int64]fileInfo) []string {
	var out []string
	for _, id := range ids {
		if n, ok := names[id]; ok {
			out = append(out, n.path)
		}
	}
	return out
}

func mapKeys[V any](m map[int64]V) []int64 {
	out := make([]int64, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	return out
}

// fileNames reads the path, title and kind of every file of the given
// id lists.
func (g *Graph) fileNames(ctx context.Context, idLists ...[]int64) (map[int64]fileInfo, error) {
	var ids []int64
	for _, l := range idLists {
		ids = append(ids, l...)
	}
	slices.Sort(ids)
	return g.fileInfos(ctx, slices.Compact(ids))
}

// eachPair calls f with the two integer columns of every row of query.
func (g *Graph) eachPair(ctx context.Context, query string, f func(a, b int64), args ...any) error {
	rows, err := g.db.QueryContext(ctx, query, args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var a, b int64
		if err := rows.Scan(&a, &b); err != nil {
			return err
		}
		f(a, b)
	}
	return rows.Err()
}

// strings reads the one text column of every row of query.
func (g *Graph) strings(ctx context.Context, query string, args ...any) ([]string, error) {
	rows, err := g.db.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	return out, rows.Err()
}

// NoteNames are the names a note goes by: its path, title and aliases.
type NoteNames struct {
	Path    string
	Title   string
	Aliases []string
}

// Names lists every note of vault with its title and aliases, by path.
// One pass over the files and aliases of the vault: for 100,000 notes a
// few tens of milliseconds.
func (g *Graph) Names(ctx context.Context, vaultName string) ([]NoteNames, error) {
	rows, err := g.db.QueryContext(ctx, `SELECT f.path, f.title, coalesce(a.alias, '')
		FROM files f JOIN vaults v ON v.id = f.vault_id LEFT JOIN aliases a ON a.file_id = f.id
		WHERE v.name = ? AND f.kind = 'note' ORDER BY f.path, a.rowid`, vaultName)
	if err != nil {
		return nil, fmt.Errorf("names of the notes of %q: %w", vaultName, err)
	}
	defer rows.Close()
	var out []NoteNames
	for rows.Next() {
		var p, title, alias string
		if err := rows.Scan(&p, &title, &alias); err != nil {
			return nil, fmt.Errorf("names of the notes of %q: %w", vaultName, err)
		}
		if n := len(out); n == 0 || out[n-1].Path != p {
			out = append(out, NoteNames{Path: p, Title: title})
		}
		if alias != "" {
			out[len(out)-1].Aliases = append(out[len(out)-1].Aliases, alias)
		}
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("names of the notes of %q: %w", vaultName, err)
	}
	return out, nil
}

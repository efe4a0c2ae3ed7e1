package graph

import (
	"cmp"
	"context"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/jarvis-mcp/jarvis/internal/vault"
)

// Direction says which links a traversal follows from a note.
type Direction string

// The directions of a traversal.
const (
	Out  Direction = "out"  // the links written in the note
	In   Direction = "in"   // the links from other notes to it
	Both Direction = "both" // either
)

// Limits and defaults of Query. A depth beyond 5 reaches most of any
// connected vault and says little about the start note; a thousand nodes is
// already more than a model reads usefully in one answer.
const (
	MaxDepth        = 5
	DefaultMaxNodes = 200
	NodeLimit       = 1000 // the largest MaxNodes accepted
	// EdgesPerNode is the default bound on the edges of a subgraph, this
	// many per node, so that a hub with hundreds of links among its
	// neighbours cannot make an answer many times larger than MaxNodes
	// suggests; EdgeLimit is the largest MaxEdges accepted.
	EdgesPerNode = 5
	EdgeLimit    = NodeLimit * EdgesPerNode
)

// Query asks for the neighbourhood of one note.
type Query struct {
	// Vault is the vault to look for Start in; empty means every vault.
	Vault string
	// Start names the note to begin from, as FindNote accepts it.
	Start string
	// Depth is how many links away from Start to go, 1 to MaxDepth; 0 means 1.
	Depth int
	// Direction is the links to follow; empty means Both.
	Direction Direction
	// MaxNodes caps the nodes returned, start included, 1 to NodeLimit;
	// 0 means DefaultMaxNodes.
	MaxNodes int
	// MaxEdges caps the edges returned, 1 to EdgeLimit; 0 means
	// EdgesPerNode per node of MaxNodes.
	MaxEdges int
}

// Node is a file reached by a traversal.
type Node struct {
	Vault string `json:"vault"`
	Path  string `json:"path"`
	Title string `json:"title,omitempty"`
	// Depth is the number of links between the start note and this file.
	Depth int      `json:"depth"`
	Tags  []string `json:"tags,omitempty"`
	Kind  string   `json:"kind"` // "note" or "attachment"
}

// UnresolvedLink is a link the traversal followed that leads to no file.
type UnresolvedLink struct {
	Source string `json:"source"`
	Target string `json:"target"` // as written
	Line   int    `json:"line"`
}

// Subgraph is the neighbourhood of a note.
type Subgraph struct {
	// Start is the note the traversal began from and how it was found.
	Start Match `json:"start"`
	// Nodes are ordered by depth, then path; the start note comes first.
	Nodes []Node `json:"nodes"`
	// Edges are every resolved link between two nodes, whichever the
	// direction asked for, ordered by source, line and target. Links from a
	// note to itself are left out: they lead nowhere new. Over MaxEdges,
	// the links of the start note are kept first, then those nearest it.
	Edges []Edge `json:"edges"`
	// Unresolved are the links to missing notes written in the notes whose
	// outgoing links were followed (every note nearer than Depth, in
	// direction Out or Both), ordered by source, line and target.
	Unresolved []UnresolvedLink `json:"unresolved,omitempty"`
	// Truncated is true when something was left out: nodes beyond
	// MaxNodes, edges beyond MaxEdges, unresolved links beyond MaxNodes.
	// A smaller depth or a larger MaxNodes shows more.
	Truncated bool `json:"truncated"`
	// Reached counts the files the walk reached, the start included: the
	// nodes, and the files of the level that did not fit in MaxNodes. The
	// walk stops at that level, so more files lie beyond; and a level
	// reads at most twice MaxNodes of the links into one file, so a hub
	// linked from more files has reached more than this says.
	Reached int `json:"reached"`
	// EdgesFound counts the links between nodes, each as Edges would list
	// it, before the cut to MaxEdges.
	EdgesFound int `json:"edges_found"`
}

// normalize applies the defaults and checks the ranges, with errors that say
// what to pass instead.
func (q Query) normalize() (Query, error) {
	if q.Depth == 0 {
		q.Depth = 1
	}
	if q.Depth < 1 || q.Depth > MaxDepth {
		return q, fmt.Errorf("%w: depth must be 1 to %d; got %d", ErrInvalidQuery, MaxDepth, q.Depth)
	}
	switch d := Direction(strings.ToLower(strings.TrimSpace(string(q.Direction)))); d {
	case "":
		q.Direction = Both
	case Out, In, Both:
		q.Direction = d
	default:
		return q, fmt.Errorf("%w: direction must be %q, %q or %q; got %q", ErrInvalidQuery, Out, In, Both, q.Direction)
	}
	if q.MaxNodes == 0 {
		q.MaxNodes = DefaultMaxNodes
	}
	if q.MaxNodes < 1 || q.MaxNodes > NodeLimit {
		return q, fmt.Errorf("%w: max nodes must be 1 to %d; got %d", ErrInvalidQuery, NodeLimit, q.MaxNodes)
	}
	if q.MaxEdges == 0 {
		q.MaxEdges = q.MaxNodes * EdgesPerNode
	}
	if q.MaxEdges < 1 || q.MaxEdges > EdgeLimit {
		return q, fmt.Errorf("%w: max edges must be 1 to %d; got %d", ErrInvalidQuery, EdgeLimit, q.MaxEdges)
	}
	return q, nil
}

// linkRow is one row of the links table as the walk reads it: which files
// it joins. It carries no paths: reading the files rows of both ends of
// every link would cost more than the links themselves, so nodes are read
// once each, in fileInfos. Nor does it carry what the link says: most
// links a level reads lead to files left out, and only the links returned
// are read whole, in linkDetails.
type linkRow struct {
	id             int64
	source, target int64 // target is 0 when unresolved
}

// linkDetail is the rest of a link's row, for the links returned.
type linkDetail struct {
	kind, written, subpath, display string
	line                            int
}

// visit is a node while the traversal runs.
type visit struct {
	Node
	id int64
}

// walk holds the state of one traversal.
type walk struct {
	q       Query
	vault   string // every node's: links never leave their vault
	nodes   map[int64]*visit
	links   map[int64]linkRow
	outDone map[int64]bool // nodes whose outgoing links are all in links
	inDone  map[int64]bool // nodes whose incoming links are all in links
	trunc   bool
	left    int // files of the last level left out for want of room
}

// Traverse returns the neighbourhood of a note: the files within q.Depth
// links of it in q.Direction, found breadth first, with the links between
// them. Each level costs two queries whatever its size (its links, then the
// files they reach), and the whole traversal three more (the links among
// the last level, what the links returned say, and tags).
//
// Attachments are nodes but are not expanded further (an image says nothing
// about the notes that embed the same image), unless one is the start. When
// a level does not fit in MaxNodes, the files linked most often from (or
// to) the level before are kept, then the ones indexed first, and the
// traversal stops there. Of the links into one file, a level reads the
// first twice MaxNodes the index holds (levelLinks says why); the links
// among the nodes are all found all the same.
func (g *Graph) Traverse(ctx context.Context, q Query) (*Subgraph, error) {
	q, err := q.normalize()
	if err != nil {
		return nil, err
	}
	start, err := g.FindNote(ctx, q.Vault, q.Start)
	if err != nil {
		return nil, err
	}
	w := &walk{
		q:       q,
		vault:   start.Vault,
		nodes:   map[int64]*visit{start.id: {Node: Node{Vault: start.Vault, Path: start.Path, Title: start.Title, Kind: start.Kind}, id: start.id}},
		links:   map[int64]linkRow{},
		outDone: map[int64]bool{},
		inDone:  map[int64]bool{},
	}
	frontier := []int64{start.id}
	for depth := 1; depth <= q.Depth && len(frontier) > 0 && !w.trunc; depth++ {
		rows, err := g.levelLinks(ctx, frontier, q.Direction, q.inLinksRead())
		if err != nil {
			return nil, fmt.Errorf("links around %s: %w", start.Path, err)
		}
		if frontier, err = g.admit(ctx, w, w.reached(frontier, rows), depth); err != nil {
			return nil, fmt.Errorf("notes around %s: %w", start.Path, err)
		}
	}
	if err := g.closeEdges(ctx, w); err != nil {
		return nil, fmt.Errorf("links around %s: %w", start.Path, err)
	}
	details, err := g.linkDetails(ctx, w.wanted())
	if err != nil {
		return nil, fmt.Errorf("links around %s: %w", start.Path, err)
	}
	if err := g.addTags(ctx, w); err != nil {
		return nil, fmt.Errorf("tags around %s: %w", start.Path, err)
	}
	vs := w.sortedVisits()
	sg := &Subgraph{Start: start, Nodes: make([]Node, len(vs)), Reached: len(vs) + w.left}
	for i, v := range vs {
		sg.Nodes[i] = v.Node
	}
	sg.Edges, sg.EdgesFound = w.edges(details)
	sg.Unresolved = w.unresolved(details)
	sg.Truncated = w.trunc
	return sg, nil
}

// reached records the links of one level and returns the files they lead
// to that are not nodes yet, with how many of the links lead to each.
func (w *walk) reached(frontier []int64, rows []linkRow) map[int64]int {
	inFrontier := make(map[int64]bool, len(frontier))
	for _, id := range frontier {
		inFrontier[id] = true
		if w.q.Direction != In {
			w.outDone[id] = true
		}
		if w.q.Direction != Out {
			w.inDone[id] = true
		}
	}
	fresh := map[int64]int{}
	reach := func(id int64) {
		if _, known := w.nodes[id]; !known {
			fresh[id]++
		}
	}
	linksIn := map[int64]int{}
	level := make(map[int64]bool, len(rows))
	for _, r := range rows {
		if level[r.id] {
			continue // read from both ends
		}
		level[r.id] = true
		w.links[r.id] = r
		if w.q.Direction != In && inFrontier[r.source] && r.target != 0 {
			reach(r.target)
		}
		if w.q.Direction != Out && inFrontier[r.target] {
			reach(r.source)
			linksIn[r.target]++
		}
	}
	// A file whose links in filled what levelLinks reads may have more:
	// closeEdges then looks for those from other nodes.
	for id, n := range linksIn {
		if n >= w.q.inLinksRead() {
			w.inDone[id] = false
		}
	}
	return fresh
}

// admit adds the files of one level as nodes at depth, as many as MaxNodes
// leaves room for, and returns the notes among them: the next frontier.
func (g *Graph) admit(ctx context.Context, w *walk, fresh map[int64]int, depth int) ([]int64, error) {
	next := slices.Collect(maps.Keys(fresh))
	slices.Sort(next)
	if room := w.q.MaxNodes - len(w.nodes); len(next) > room {
		// Ties go to the file indexed first, so that choosing needs no
		// more than the links: ordering by path would mean reading every
		// candidate's row, most of them to be dropped.
		slices.SortStableFunc(next, func(a, b int64) int { return cmp.Compare(fresh[b], fresh[a]) })
		w.left = len(next) - max(room, 0)
		next, w.trunc = next[:max(room, 0)], true
	}
	infos, err := g.fileInfos(ctx, next)
	if err != nil {
		return nil, err
	}
	var frontier []int64
	for _, id := range next {
		info, ok := infos[id]
		if !ok {
			// Deleted by an index run between the two queries.
			continue
		}
		w.nodes[id] = &visit{Node: Node{Vault: w.vault, Path: info.path, Title: info.title, Depth: depth, Kind: info.kind}, id: id}
		if info.kind != "attachment" {
			frontier = append(frontier, id)
		}
	}
	slices.Sort(frontier)
	return frontier, nil
}

// fileInfo is what a node needs from the files table.
type fileInfo struct {
	path, title, kind string
}

// fileInfos reads the files with the given ids in one query.
func (g *Graph) fileInfos(ctx context.Context, ids []int64) (map[int64]fileInfo, error) {
	out := make(map[int64]fileInfo, len(ids))
	if len(ids) == 0 {
		return out, nil
	}
	rows, err := g.db.QueryContext(ctx, `SELECT id, path, title, kind FROM files WHERE id IN `+idSet, idList(ids))
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		var id int64
		var f fileInfo
		if err := rows.Scan(&id, &f.path, &f.title, &f.kind); err != nil {
			return nil, err
		}
		out[id] = f
	}
	return out, rows.Err()
}

// addTags reads the tags of every note among the nodes in one query. (A
// subquery per file in fileInfos costs several times more.)
func (g *Graph) addTags(ctx context.Context, w *walk) error {
	ids := make([]int64, 0, len(w.nodes))
	for id, v := range w.nodes {
		if v.Kind == "note" {
			ids = append(ids, id)
		}
	}
	if len(ids) == 0 {
		return nil
	}
	rows, err := g.db.QueryContext(ctx, `SELECT file_id, tag FROM tags WHERE file_id IN `+idSet, idList(ids))
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var id int64
		var tag string
		if err := rows.Scan(&id, &tag); err != nil {
			return err
		}
		v := w.nodes[id]
		key := vault.TagKey(tag)
		if !slices.ContainsFunc(v.Tags, func(t string) bool { return vault.TagKey(t) == key }) {
			v.Tags = append(v.Tags, tag)
		}
	}
	if err := rows.Err(); err != nil {
		return err
	}
	for _, v := range w.nodes {
		slices.SortFunc(v.Tags, func(a, b string) int {
			return cmp.Or(cmp.Compare(vault.TagKey(a), vault.TagKey(b)), cmp.Compare(a, b))
		})
	}
	return nil
}

// linkColumns are the columns levelLinks and closeEdges read into a linkRow.
const linkColumns = `l.id, l.source_id, coalesce(l.target_id, 0) FROM links l`

// levelLinks reads the links from (Out), to (In) or from and to (Both) the
// files of one level in one query, through links_source and links_target:
// every link from each file, and the first perNote links to each (in the
// order links_target holds them, the oldest first). A note's links are as
// many as its text holds, but the links to a hub grow with the vault:
// reading them all would make a walk from a note linked by 100,000 others
// cost 100,000 row reads, for a level that keeps MaxNodes files at most.
func (g *Graph) levelLinks(ctx context.Context, ids []int64, dir Direction, perNote int) ([]linkRow, error) {
	const (
		from = `SELECT ` + linkColumns + ` WHERE l.source_id IN ` + idSet
		// The ids are j, not f: f is the files table, whose full scan
		// TestTraverseQueries looks for in the plans.
		to = `SELECT l.id, l.source_id, coalesce(l.target_id, 0) FROM json_each(?1) j JOIN links l
			ON l.id IN (SELECT id FROM links WHERE target_id = j.value ORDER BY id LIMIT ?2)`
	)
	switch dir {
	case Out:
		return g.queryLinks(ctx, from, idList(ids))
	case In:
		return g.queryLinks(ctx, to, idList(ids), perNote)
	}
	// A link between two files of the level comes twice; reached counts
	// it once.
	return g.queryLinks(ctx, from+` UNION ALL `+to, idList(ids), perNote)
}

// inLinksRead is how many links into one file a level reads: twice the
// nodes a walk may hold, enough for a level to fill from that file alone
// with room to rank its candidates by how often they are linked.
func (q Query) inLinksRead() int { return 2 * q.MaxNodes }

// idSet is the set of ids passed as the JSON array ?1.
const idSet = `(SELECT value FROM json_each(?1))`

// closeEdges reads the links between nodes that the levels did not: a link
// is known once its source's outgoing or its target's incoming links were
// read, so only links from a node not expanded outwards to a node not
// expanded inwards are missing (those of the last level, mostly).
func (g *Graph) closeEdges(ctx context.Context, w *walk) error {
	var from, to []int64
	for id := range w.nodes {
		if !w.outDone[id] {
			from = append(from, id)
		}
		if !w.inDone[id] {
			to = append(to, id)
		}
	}
	if len(from) == 0 || len(to) == 0 {
		return nil
	}
	slices.Sort(from)
	slices.Sort(to)
	// The unary plus keeps SQLite on links_source: a note has a few dozen
	// outgoing links at most, while a hub among the targets can have
	// hundreds of incoming ones.
	rows, err := g.queryLinks(ctx, `SELECT `+linkColumns+`
		WHERE l.source_id IN `+idSet+` AND +l.target_id IN (SELECT value FROM json_each(?2))`, idList(from), idList(to))
	if err != nil {
		return err
	}
	for _, r := range rows {
		w.links[r.id] = r
	}
	return nil
}

// idList writes ids as a JSON array for one parameter read with
// json_each: binding a few hundred parameters one by one costs more than
// the query, and the statement text stays the same whatever the count.
func idList(ids []int64) string {
	b := make([]byte, 0, 2+8*len(ids))
	b = append(b, '[')
	for i, id := range ids {
		if i > 0 {
			b = append(b, ',')
		}
		b = strconv.AppendInt(b, id, 10)
	}
	return string(append(b, ']'))
}

func (g *Graph) queryLinks(ctx context.Context, query string, args ...any) ([]linkRow, error) {
	rows, err := g.db.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []linkRow
	for rows.Next() {
		var r linkRow
		if err := rows.Scan(&r.id, &r.source, &r.target); err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	return out, rows.Err()
}

// wanted are the links the answer may show: those between two nodes and
// the unresolved ones of the notes expanded outwards.
func (w *walk) wanted() []int64 {
	var ids []int64
	for _, r := range w.links {
		if w.isEdge(r) || w.isUnresolved(r) {
			ids = append(ids, r.id)
		}
	}
	slices.Sort(ids)
	return ids
}

// isEdge reports whether r is a resolved link between two nodes, not from
// a note to itself.
func (w *walk) isEdge(r linkRow) bool {
	return r.target != 0 && r.source != r.target && w.nodes[r.source] != nil && w.nodes[r.target] != nil
}

// isUnresolved reports whether r leads nowhere from a note whose outgoing
// links were all read.
func (w *walk) isUnresolved(r linkRow) bool {
	return r.target == 0 && w.outDone[r.source]
}

// linkDetails reads the rest of the rows of the links with the given ids
// in one query.
func (g *Graph) linkDetails(ctx context.Context, ids []int64) (map[int64]linkDetail, error) {
	out := make(map[int64]linkDetail, len(ids))
	if len(ids) == 0 {
		return out, nil
	}
	rows, err := g.db.QueryContext(ctx, `SELECT id, kind, target, subpath, display, line FROM links WHERE id IN `+idSet, idList(ids))
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		var id int64
		var d linkDetail
		if err := rows.Scan(&id, &d.kind, &d.written, &d.subpath, &d.display, &d.line); err != nil {
			return nil, err
		}
		out[id] = d
	}
	return out, rows.Err()
}

// sortedVisits are the nodes by depth, then path.
func (w *walk) sortedVisits() []*visit {
	vs := make([]*visit, 0, len(w.nodes))
	for _, v := range w.nodes {
		vs = append(vs, v)
	}
	slices.SortFunc(vs, func(a, b *visit) int {
		return cmp.Or(cmp.Compare(a.Depth, b.Depth), cmp.Compare(a.Path, b.Path))
	})
	return vs
}

// edges are the resolved links between two nodes, each written link once
// (a link between two frontier notes is read from both ends) and links that
// look the same on one line once, and how many there are before the cap.
// Over the cap, the links nearest the start note are kept: its own first,
// then those by the depth of their nearer end, then of their farther one.
func (w *walk) edges(details map[int64]linkDetail) ([]Edge, int) {
	type ranked struct {
		Edge
		near, far int
	}
	type key struct {
		source, target int64
		kind, text     string
		line           int
	}
	seen := map[key]bool{}
	var es []ranked
	for _, r := range w.links {
		d, ok := details[r.id]
		if !ok || !w.isEdge(r) {
			continue // a link not between nodes, or one deleted since
		}
		s, t := w.nodes[r.source], w.nodes[r.target]
		text := linkText(d.display, d.written, d.subpath)
		k := key{r.source, r.target, d.kind, text, d.line}
		if seen[k] {
			continue
		}
		seen[k] = true
		es = append(es, ranked{Edge{Source: s.Path, Target: t.Path, Kind: d.kind, Subpath: d.subpath, Text: text, Line: d.line, Resolved: true},
			min(s.Depth, t.Depth), max(s.Depth, t.Depth)})
	}
	byPlace := func(a, b ranked) int {
		return cmp.Or(cmp.Compare(a.Source, b.Source), cmp.Compare(a.Line, b.Line), cmp.Compare(a.Target, b.Target),
			cmp.Compare(a.Kind, b.Kind), cmp.Compare(a.Text, b.Text))
	}
	found := len(es)
	if limit := w.q.MaxEdges; len(es) > limit {
		slices.SortFunc(es, func(a, b ranked) int {
			return cmp.Or(cmp.Compare(a.near, b.near), cmp.Compare(a.far, b.far), byPlace(a, b))
		})
		es, w.trunc = es[:limit], true
	}
	slices.SortFunc(es, byPlace)
	out := make([]Edge, len(es))
	for i, e := range es {
		out[i] = e.Edge
	}
	return out, found
}

// unresolved are the links to missing files written in the notes expanded
// outwards, each source, line and target once, at most MaxNodes of them.
func (w *walk) unresolved(details map[int64]linkDetail) []UnresolvedLink {
	seen := map[UnresolvedLink]bool{}
	var out []UnresolvedLink
	for _, r := range w.links {
		d, ok := details[r.id]
		if !ok || !w.isUnresolved(r) {
			continue
		}
		u := UnresolvedLink{Source: w.nodes[r.source].Path, Target: d.written, Line: d.line}
		if !seen[u] {
			seen[u] = true
			out = append(out, u)
		}
	}
	slices.SortFunc(out, func(a, b UnresolvedLink) int {
		return cmp.Or(cmp.Compare(a.Source, b.Source), cmp.Compare(a.Line, b.Line), cmp.Compare(a.Target, b.Target))
	})
	if len(out) > w.q.MaxNodes {
		out, w.trunc = out[:w.q.MaxNodes], true
	}
	return out
}

package graph

import (
	"cmp"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"path"
	"slices"
	"strings"
)

// ErrVaultNotFound means no indexed vault has the name asked for.
var ErrVaultNotFound = errors.New("vault not found")

// ErrInvalidQuery marks arguments a caller can fix: an empty note
// reference, a depth out of range, an unknown direction. Callers that serve a
// model turn it into an instruction rather than a failure.
var ErrInvalidQuery = errors.New("invalid query")

// Ref names one file of one vault the way a caller can pass it back: Path is
// unique within Vault.
type Ref struct {
	Vault string `json:"vault"`
	Path  string `json:"path"`
	Title string `json:"title,omitempty"`
}

// MatchedBy says which part of a note a reference matched, from the most
// to the least specific.
type MatchedBy string

// The ways FindNote matches a reference, in its order of preference.
const (
	ByPath  MatchedBy = "path"
	ByTitle MatchedBy = "title"
	ByName  MatchedBy = "name"
	ByAlias MatchedBy = "alias"
)

// Match is the file FindNote chose for a reference.
type Match struct {
	Ref
	Kind string    `json:"kind"` // "note" or "attachment"
	By   MatchedBy `json:"matched_by"`
	// Others are the files that matched the reference just as well, by the
	// same rule. When there are any the reference was ambiguous: FindNote
	// chose the one a link written as [[reference]] would lead to, and a
	// caller that meant another passes its path instead.
	Others []Ref `json:"others,omitempty"`

	id int64
}

// NotFoundError is returned when no file matches a reference. Suggestions
// are the closest files by name, so that a caller that misspelt a title
// can try again without listing the vault. It matches ErrNoteNotFound with
// errors.Is.
type NotFoundError struct {
	Ref         string
	Vault       string // empty when every vault was searched
	Suggestions []Ref
}

func (e *NotFoundError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "no note matches %q", e.Ref)
	if e.Vault != "" {
		fmt.Fprintf(&b, " in vault %q", e.Vault)
	}
	if len(e.Suggestions) == 0 {
		b.WriteString(" by path, title, file name or alias")
		return b.String()
	}
	b.WriteString("; closest: ")
	for i, s := range e.Suggestions {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "%q", s.Path)
		if s.Vault != e.Vault {
			fmt.Fprintf(&b, " (vault %q)", s.Vault)
		}
	}
	b.WriteString("; pass one of these paths")
	return b.String()
}

// Unwrap lets errors.Is(err, ErrNoteNotFound) hold.
func (e *NotFoundError) Unwrap() error { return ErrNoteNotFound }

// maxSuggestions bounds NotFoundError.Suggestions: enough to cover a typo
// and a few near namesakes, short enough to read in one line.
const maxSuggestions = 5

// candidate is one file considered for a reference.
type candidate struct {
	Match
	// alias is one alias of the file, or empty: a file with several
	// aliases is as many candidates.
	alias string
}

// FindNote finds the file a caller means by ref: a vault-relative path (with
// or without ".md"), a title, a file name, or a frontmatter alias, compared
// without regard to case and preferred in that order. A reference written
// as a wikilink ("[[Pour over#Steps|pour over]]") is accepted and stands
// for its target. An empty vault searches every vault.
//
// When several files match by the same rule, FindNote picks the one link
// resolution would (shortest path, then alphabetical order, then vault name)
// and lists the rest in Match.Others rather than failing, so a caller gets
// an answer in one call and can see that it had a choice. When nothing
// matches the error is a *NotFoundError with suggestions.
func (g *Graph) FindNote(ctx context.Context, vaultName, ref string) (Match, error) {
	q := cleanRef(ref)
	if q == "" {
		return Match{}, fmt.Errorf("%w: no note given; pass a path, title or alias", ErrInvalidQuery)
	}
	if m, ok, err := g.quickFind(ctx, vaultName, q); err != nil || ok {
		return m, err
	}
	// SQLite folds only ASCII letters, so a reference that differs from a
	// title by the case of "É" or "Д" gets here too: compare every file in
	// Go, which the suggestions need anyway.
	all, err := g.allFiles(ctx, vaultName)
	if err != nil {
		return Match{}, err
	}
	if m, ok := choose(all, q); ok {
		return m, nil
	}
	return Match{}, g.notFound(ctx, vaultName, ref, q, all)
}

// quickFind tries the exact path, then lets SQLite narrow the files that
// could match; it misses only references that differ from a file by the case
// of a letter outside ASCII.
func (g *Graph) quickFind(ctx context.Context, vaultName, q string) (Match, bool, error) {
	cands, err := g.exactPath(ctx, vaultName, q)
	if err != nil {
		return Match{}, false, err
	}
	if len(cands) == 0 {
		if cands, err = g.caselessCandidates(ctx, vaultName, q); err != nil {
			return Match{}, false, err
		}
	}
	m, ok := choose(cands, q)
	return m, ok, nil
}

// cleanRef strips what a caller may wrap a reference in: spaces, a wikilink's
// brackets, display text and heading, a leading slash, backslashes.
func cleanRef(ref string) string {
	q := strings.TrimSpace(ref)
	if strings.HasPrefix(q, "[[") || strings.HasPrefix(q, "![[") {
		q = strings.TrimSuffix(strings.TrimPrefix(strings.TrimPrefix(q, "!"), "[["), "]]")
		if i := strings.IndexByte(q, '|'); i >= 0 {
			q = q[:i]
		}
		if i := strings.IndexByte(q, '#'); i >= 0 {
			q = q[:i]
		}
	}
	q = strings.ReplaceAll(strings.TrimSpace(q), `\`, "/")
	return strings.Trim(q, "/")
}

const fileColumns = `f.id, v.name, f.path, f.title, f.kind`

// scanCandidates reads rows of fileColumns and an alias.
func scanCandidates(rows *sql.Rows) ([]candidate, error) {
	defer rows.Close()
	var out []candidate
	for rows.Next() {
		var c candidate
		if err := rows.Scan(&c.id, &c.Vault, &c.Path, &c.Title, &c.Kind, &c.alias); err != nil {
			return nil, err
		}
		out = append(out, c)
	}
	return out, rows.Err()
}

// exactPath finds files whose path is q or q+".md" exactly, through the
// (vault_id, path) index: the common case of a caller passing back a path
// it was given costs one index probe per vault.
func (g *Graph) exactPath(ctx context.Context, vaultName, q string) ([]candidate, error) {
	// CROSS JOIN keeps vaults as the outer loop, so that each vault costs a
	// probe of the (vault_id, path) index rather than a scan of every file.
	query := `SELECT ` + fileColumns + `, '' FROM vaults v CROSS JOIN files f ON f.vault_id = v.id
		WHERE f.path IN (?1, ?2)`
	args := []any{q, q + ".md"}
	if vaultName != "" {
		query += ` AND v.name = ?3`
		args = append(args, vaultName)
	}
	rows, err := g.db.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, fmt.Errorf("find note %q: %w", q, err)
	}
	cands, err := scanCandidates(rows)
	if err != nil {
		return nil, fmt.Errorf("find note %q: %w", q, err)
	}
	return cands, nil
}

// caselessCandidates narrows every file to those whose path, title, file
// name or alias could equal q, letting SQLite compare (ASCII case folding
// only) so that only the few candidates cross into Go, where choose decides.
func (g *Graph) caselessCandidates(ctx context.Context, vaultName, q string) ([]candidate, error) {
	bare := strings.TrimSuffix(q, ".md")
	like := "%/" + escapeLike(q)
	vaultCond := ""
	args := []any{q, q + ".md", bare, like}
	if vaultName != "" {
		vaultCond = ` AND v.name = ?5`
		args = append(args, vaultName)
	}
	rows, err := g.db.QueryContext(ctx, `SELECT `+fileColumns+`, '' FROM vaults v JOIN files f ON f.vault_id = v.id
		WHERE (f.path = ?1 COLLATE NOCASE OR f.path = ?2 COLLATE NOCASE OR f.title = ?1 COLLATE NOCASE
		       OR f.title = ?3 COLLATE NOCASE OR f.path LIKE ?4 ESCAPE '\' OR f.path LIKE ?4 || '.md' ESCAPE '\')`+vaultCond+`
		UNION ALL
		SELECT `+fileColumns+`, a.alias FROM aliases a JOIN files f ON f.id = a.file_id JOIN vaults v ON v.id = f.vault_id
		WHERE trim(a.alias) = ?3 COLLATE NOCASE`+vaultCond, args...)
	if err != nil {
		return nil, fmt.Errorf("find note %q: %w", q, err)
	}
	cands, err := scanCandidates(rows)
	if err != nil {
		return nil, fmt.Errorf("find note %q: %w", q, err)
	}
	return cands, nil
}

func escapeLike(s string) string {
	r := strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`)
	return r.Replace(s)
}

// allFiles loads every file of the vault (every vault when vaultName is
// empty) with one row per alias, for the comparisons SQLite cannot make.
func (g *Graph) allFiles(ctx context.Context, vaultName string) ([]candidate, error) {
	query := `SELECT ` + fileColumns + `, coalesce(a.alias, '') FROM vaults v JOIN files f ON f.vault_id = v.id
		LEFT JOIN aliases a ON a.file_id = f.id`
	var args []any
	if vaultName != "" {
		query += ` WHERE v.name = ?1`
		args = append(args, vaultName)
	}
	rows, err := g.db.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, fmt.Errorf("list notes: %w", err)
	}
	cands, err := scanCandidates(rows)
	if err != nil {
		return nil, fmt.Errorf("list notes: %w", err)
	}
	return cands, nil
}

// matchRule says by which rule c matches q (lower-cased is the caller's
// job), or false. The rules mirror link resolution: a bare name matches a
// note's file name without ".md" and an attachment's with its extension; a
// name with folders matches the end of a path.
func matchRule(c candidate, q string) (MatchedBy, bool) {
	lp := strings.ToLower(c.Path)
	bare := strings.TrimSuffix(q, ".md")
	switch {
	case lp == q || lp == q+".md":
		return ByPath, true
	case c.Title != "" && (strings.ToLower(c.Title) == q || strings.ToLower(c.Title) == bare):
		return ByTitle, true
	case strings.HasSuffix("/"+lp, "/"+q) || strings.HasSuffix("/"+lp, "/"+q+".md"):
		return ByName, true
	case c.alias != "" && strings.ToLower(strings.TrimSpace(c.alias)) == bare:
		return ByAlias, true
	}
	return "", false
}

var ruleOrder = map[MatchedBy]int{ByPath: 0, ByTitle: 1, ByName: 2, ByAlias: 3}

// choose picks from cands the file q means: the best rule first, then the
// tie-break of link resolution (shortest path, alphabetical), then the vault
// name. The other files that matched by the same rule become Others.
func choose(cands []candidate, q string) (Match, bool) {
	q = strings.ToLower(q)
	best := -1
	var hits []candidate
	for _, c := range cands {
		by, ok := matchRule(c, q)
		if !ok {
			continue
		}
		r := ruleOrder[by]
		if best >= 0 && r > best {
			continue
		}
		if r < best || best < 0 {
			best, hits = r, hits[:0]
		}
		c.By = by
		hits = append(hits, c)
	}
	if len(hits) == 0 {
		return Match{}, false
	}
	slices.SortFunc(hits, func(a, b candidate) int {
		return cmp.Or(cmp.Compare(len(a.Path), len(b.Path)), cmp.Compare(a.Path, b.Path), cmp.Compare(a.Vault, b.Vault))
	})
	m := hits[0].Match
	for _, h := range hits[1:] {
		// A note with two matching aliases appears twice.
		if h.id == m.id || slices.ContainsFunc(m.Others, func(r Ref) bool { return r == h.Ref }) {
			continue
		}
		m.Others = append(m.Others, h.Ref)
	}
	return m, true
}

// notFound builds the error for a reference nothing matched. all is every
// file that was searched. A reference found only in another vault is the
// best suggestion there is.
func (g *Graph) notFound(ctx context.Context, vaultName, ref, q string, all []candidate) error {
	if vaultName != "" && len(all) == 0 {
		if err := g.vaultExists(ctx, vaultName); err != nil {
			return err
		}
	}
	e := &NotFoundError{Ref: ref, Vault: vaultName}
	if vaultName != "" {
		m, ok, err := g.quickFind(ctx, "", q)
		if err != nil {
			return err
		}
		if ok {
			e.Suggestions = append(e.Suggestions, m.Ref)
			e.Suggestions = append(e.Suggestions, m.Others...)
			if len(e.Suggestions) > maxSuggestions {
				e.Suggestions = e.Suggestions[:maxSuggestions]
			}
			return e
		}
	}
	e.Suggestions = suggest(all, q, maxSuggestions)
	return e
}

// vaultExists returns an error naming the indexed vaults when vaultName is
// not one of them. It matches both ErrVaultNotFound and ErrNoteNotFound.
func (g *Graph) vaultExists(ctx context.Context, vaultName string) error {
	rows, err := g.db.QueryContext(ctx, `SELECT name FROM vaults ORDER BY name`)
	if err != nil {
		return fmt.Errorf("list vaults: %w", err)
	}
	defer rows.Close()
	var names []string
	for rows.Next() {
		var n string
		if err := rows.Scan(&n); err != nil {
			return fmt.Errorf("list vaults: %w", err)
		}
		if n == vaultName {
			return nil
		}
		names = append(names, fmt.Sprintf("%q", n))
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("list vaults: %w", err)
	}
	return &unknownVaultError{name: vaultName, known: names}
}

// unknownVaultError names the vaults there are. The note asked for is not
// found either, so that callers that only know ErrNoteNotFound treat both
// alike.
type unknownVaultError struct {
	name  string
	known []string // quoted
}

func (e *unknownVaultError) Error() string {
	if len(e.known) == 0 {
		return fmt.Sprintf("vault %q is not indexed; no vault is indexed yet", e.name)
	}
	return fmt.Sprintf("vault %q is not indexed; indexed vaults: %s", e.name, strings.Join(e.known, ", "))
}

func (e *unknownVaultError) Is(target error) bool {
	return target == ErrVaultNotFound || target == ErrNoteNotFound
}

// suggest ranks the files closest to q: those whose title, file name, path
// or alias contains q (or is contained in it) first, closest in length
// first; then those within a small edit distance of q, closest first. Each
// file appears once, by its best key.
func suggest(all []candidate, q string, limit int) []Ref {
	q = strings.ToLower(strings.TrimSuffix(q, ".md"))
	type scored struct {
		ref   Ref
		score int // lower is better
	}
	best := map[Ref]int{}
	qr := []rune(q)
	for _, c := range all {
		keys := []string{c.Title, strings.TrimSuffix(path.Base(c.Path), ".md"), strings.TrimSuffix(c.Path, ".md"), c.alias}
		for _, k := range keys {
			k = strings.ToLower(strings.TrimSpace(k))
			if k == "" {
				continue
			}
			s, ok := similarity(qr, k)
			if !ok {
				continue
			}
			if old, seen := best[c.Ref]; !seen || s < old {
				best[c.Ref] = s
			}
		}
	}
	out := make([]scored, 0, len(best))
	for r, s := range best {
		out = append(out, scored{r, s})
	}
	slices.SortFunc(out, func(a, b scored) int {
		return cmp.Or(cmp.Compare(a.score, b.score), cmp.Compare(len(a.ref.Path), len(b.ref.Path)),
			cmp.Compare(a.ref.Path, b.ref.Path), cmp.Compare(a.ref.Vault, b.ref.Vault))
	})
	if len(out) > limit {
		out = out[:limit]
	}
	refs := make([]Ref, len(out))
	for i, s := range out {
		refs[i] = s.ref
	}
	return refs
}

// similarity scores key against q (lower is closer) or says it is too far
// to suggest. A substring match in either direction scores by the length
// difference, below any edit distance; otherwise the edit distance must be
// at most a third of q's length, so "pour ovr" finds "pour over" while
// "tea" finds nothing in a coffee vault.
func similarity(q []rune, key string) (int, bool) {
	const substring = 0
	const edit = 1 << 20
	kr := []rune(key)
	if len(q) >= 3 && strings.Contains(key, string(q)) {
		return substring + len(kr) - len(q), true
	}
	if len(kr) >= 3 && strings.Contains(string(q), key) {
		return substring + len(q) - len(kr), true
	}
	maxDist := len(q) / 3
	if maxDist == 0 || abs(len(kr)-len(q)) > maxDist {
		return 0, false
	}
	d := levenshtein(q, kr, maxDist)
	if d > maxDist {
		return 0, false
	}
	return edit + d, true
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

// levenshtein is the edit distance between a and b, or any value above
// limit once it is sure to exceed it.
func levenshtein(a, b []rune, limit int) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		rowMin := cur[0]
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			rowMin = min(rowMin, cur[j])
		}
		if rowMin > limit {
			return limit + 1
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

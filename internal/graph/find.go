package graph

import (
	"cmp"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/jarvis-mcp/jarvis/internal/store"
	"github.com/jarvis-mcp/jarvis/internal/vault"
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

// OtherPaths lists the paths of others (Match.Others), the first n of
// them and then "… and N more" for the rest.
func OtherPaths(others []Ref, n int) []string {
	var out []string
	for i, o := range others {
		if i == n {
			out = append(out, fmt.Sprintf("… and %d more", len(others)-i))
			break
		}
		out = append(out, o.Path)
	}
	return out
}

// AlsoMatching words the other notes a name matched as well
// (Match.Others, by path), and that passing one's path does what to it
// instead ("read it", "ask about it"); "" when there are none. read-note,
// related-notes and jarvis related say it alike.
func AlsoMatching(paths []string, todo string) string {
	if len(paths) == 0 {
		return ""
	}
	return fmt.Sprintf("Also matching that name: `%s`; pass one's path to %s instead.", strings.Join(paths, "`, `"), todo)
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
	if len(e.Suggestions) == 1 {
		b.WriteString("; pass this path if it is the note meant")
	} else {
		b.WriteString("; pass one of these paths, or a note's title or alias")
	}
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
	// The path, title, name and alias folded once: every file of a vault
	// may be compared, by choose and by suggest.
	lowPath, lowTitle, lowName, lowAlias string
}

func (c *candidate) fold() {
	c.lowPath = vault.FoldName(c.Path)
	c.lowTitle = vault.FoldName(c.Title)
	c.lowName = vault.NameKey(c.Path)
	c.lowAlias = vault.AliasKey(c.alias)
}

// reference is what FindNote looks for: the reference as cleanRef leaves
// it, the keys a title is compared by, and the link target it reads as.
type reference struct {
	text   string
	titles [2]string // folded, as written and without ".md"
	target vault.Target
}

func newReference(q string) reference {
	f := vault.FoldName(q)
	return reference{text: q, titles: [2]string{f, strings.TrimSuffix(f, ".md")}, target: vault.ParseTarget(q)}
}

// FindNote finds the file a caller means by ref: a vault-relative path (with
// or without ".md"), a frontmatter title, a file name or partial path, or a
// frontmatter alias, preferred in that order. A reference written as a
// wikilink ("[[Pour over#Steps|pour over]]") is accepted and stands for its
// target. An empty vault searches every vault.
//
// Paths, names and aliases are matched by the rules of link resolution
// (vault.Target, vault.Named, vault.TieBreak), so that a reference finds the
// file a [[reference]] written in a note at the vault root links to. Two
// things are FindNote's own: a path from the vault root comes first even for
// a bare name, and a title set in frontmatter beats a file name, as a caller
// may know a note by either. (A title that is only the file name is the
// file name.)
//
// When several files match by the same rule, FindNote picks the one link
// resolution would (vault.TieBreak, then vault name) and lists the rest in
// Match.Others rather than failing, so a caller gets an answer in one call
// and can see that it had a choice. When nothing matches the error is a
// *NotFoundError with suggestions.
func (g *Graph) FindNote(ctx context.Context, vaultName, ref string) (Match, error) {
	q := cleanRef(ref)
	if q == "" {
		return Match{}, fmt.Errorf("%w: no note given; pass a path, title or alias", ErrInvalidQuery)
	}
	// A file's name may begin or end with a space (" Draft.md"): the path
	// exactly as given comes before the reference is cleaned, so that a
	// path this lookup suggests, passed back, finds its file.
	if raw := strings.TrimPrefix(strings.ReplaceAll(ref, `\`, "/"), "/"); raw != q {
		if m, ok, err := g.exactPath(ctx, vaultName, raw); err != nil || ok {
			return m, err
		}
	}
	r := newReference(q)
	if m, ok, err := g.quickFind(ctx, vaultName, r); err != nil || ok {
		return m, err
	}
	// SQLite folds only ASCII letters, so a reference that differs from a
	// title by the case of "É" or "Д" gets here too: compare every file in
	// Go, which the suggestions need anyway.
	all, vaults, err := g.allFiles(ctx, vaultName)
	if err != nil {
		return Match{}, err
	}
	if m, ok := choose(all, r, rules); ok {
		return m, nil
	}
	return Match{}, g.notFound(ctx, vaultName, ref, q, all, vaults)
}

// quickFind tries, in turn, the exact path, then paths, titles and file
// names without regard to case, then aliases, stopping at the first that
// finds anything: each later step is only wanted when the earlier, more
// specific ones find nothing. SQL only narrows the files down; choose
// applies the rules. It misses only references that differ from a file by
// the case of a letter outside ASCII, which SQLite does not fold.
func (g *Graph) quickFind(ctx context.Context, vaultName string, r reference) (Match, bool, error) {
	// The exact path in each Unicode normal form it may be stored in.
	var exact []any
	for _, p := range vault.PathForms(r.target.Path()) {
		exact = append(exact, p)
	}
	// Paths, titles, and paths that end with the name (or partial path),
	// with or without ".md": a few more than the name rule keeps
	// ("Ethiopia Guji.md" for "Guji").
	scan := `f.title COLLATE NOCASE IN (?, ?) OR f.path COLLATE NOCASE IN (` + placeholders(len(exact)) + `)`
	scanArgs := append([]any{r.text, strings.TrimSuffix(r.text, ".md")}, exact...)
	if r.target.Path() != "" {
		for _, form := range vault.NameForms(r.target.Stem()) {
			e := "%" + store.EscapeLike(form)
			scan += ` OR f.path LIKE ? ESCAPE '\' OR f.path LIKE ? ESCAPE '\'`
			scanArgs = append(scanArgs, e, e+".md")
		}
	}
	// Each step reads every file its rules could match, but for names that
	// differ in the case of letters beyond ASCII.
	steps := []struct {
		from, where string
		args        []any
		rules       []rule
	}{
		// An index probe: the common case of a caller passing back a path
		// it was given.
		{fromFiles, `f.path IN (` + placeholders(len(exact)) + `)`, exact, rules[:1]},
		// A scan of files: there is no index on titles, and a file's name
		// is the end of its path.
		{fromFiles, `(` + scan + `)`, scanArgs, rules[:3]},
		// A scan of aliases, which most references never need.
		{fromAliases, `trim(a.alias) = ? COLLATE NOCASE`, []any{r.target.Stem()}, rules[3:]},
	}
	for _, st := range steps {
		cands, err := g.candidates(ctx, vaultName, st.from, st.where, st.args)
		if err != nil {
			return Match{}, false, fmt.Errorf("find note %q: %w", r.text, err)
		}
		if m, ok := choose(cands, r, st.rules); ok {
			return m, true, nil
		}
	}
	return Match{}, false, nil
}

// exactPath finds the file at the vault-relative path p exactly as
// written, spaces included.
func (g *Graph) exactPath(ctx context.Context, vaultName, p string) (Match, bool, error) {
	var exact []any
	for _, form := range vault.PathForms(p) {
		exact = append(exact, form)
	}
	cands, err := g.candidates(ctx, vaultName, fromFiles, `f.path IN (`+placeholders(len(exact))+`)`, exact)
	if err != nil {
		return Match{}, false, fmt.Errorf("find note %q: %w", p, err)
	}
	m, ok := choose(cands, reference{text: p}, []rule{{ByPath, func(_ reference, cands []candidate) []candidate { return cands }}})
	return m, ok, nil
}

// placeholders returns "?, ?, ?" for n > 0 parameters.
func placeholders(n int) string {
	return "?" + strings.Repeat(", ?", n-1)
}

// The two sources of candidates, as the end of a SELECT of fileColumns:
// files f, and the aliases a of files f, a candidate per alias.
const (
	fromFiles   = `'' FROM files f`
	fromAliases = `a.alias FROM aliases a JOIN files f ON f.id = a.file_id`
)

// candidates reads the candidates from one of fromFiles and fromAliases
// that meet where, of the files of the vault (every vault when vaultName is
// empty). Vault names are looked up for the matches only.
func (g *Graph) candidates(ctx context.Context, vaultName, from, where string, args []any) ([]candidate, error) {
	cond, scopeArgs := g.inScope("f", vaultName)
	query := `SELECT ` + fileColumns + `, ` + from + ` WHERE ` + where + ` AND ` + cond
	rows, err := g.db.QueryContext(ctx, query, slices.Concat(args, scopeArgs)...)
	if err != nil {
		return nil, err
	}
	return scanCandidates(rows)
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

// fileColumns are a candidate's columns from files f; the vault's name is
// read per row returned rather than by a join, which would cost a lookup
// for every file scanned.
const fileColumns = `f.id, (SELECT name FROM vaults WHERE id = f.vault_id), f.path, f.title, f.kind`

// scanCandidates reads rows of fileColumns and an alias.
func scanCandidates(rows *sql.Rows) ([]candidate, error) {
	defer rows.Close()
	var out []candidate
	for rows.Next() {
		var c candidate
		if err := rows.Scan(&c.id, &c.Vault, &c.Path, &c.Title, &c.Kind, &c.alias); err != nil {
			return nil, err
		}
		c.fold()
		out = append(out, c)
	}
	return out, rows.Err()
}

// allFiles loads every file of the vault (every vault when vaultName is
// empty) with one row per alias, for the comparisons SQLite cannot make,
// and the number of vaults there are. An unknown vault is an error naming
// the known ones.
func (g *Graph) allFiles(ctx context.Context, vaultName string) ([]candidate, int, error) {
	names, err := g.vaultNames(ctx)
	if err != nil {
		return nil, 0, err
	}
	if vaultName != "" && !slices.Contains(slices.Collect(maps.Values(names)), vaultName) {
		return nil, 0, unknownVault(vaultName, names)
	}
	cond, args := g.inScope("f", vaultName)
	inVault := ` WHERE ` + cond
	// Aliases are read apart: joining them costs an index probe per file,
	// and most files have none.
	aliases := map[int64][]string{}
	rows, err := g.db.QueryContext(ctx, `SELECT a.file_id, a.alias FROM aliases a JOIN files f ON f.id = a.file_id`+inVault, args...)
	if err != nil {
		return nil, 0, fmt.Errorf("list aliases: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var id int64
		var alias string
		if err := rows.Scan(&id, &alias); err != nil {
			return nil, 0, fmt.Errorf("list aliases: %w", err)
		}
		aliases[id] = append(aliases[id], alias)
	}
	if err := rows.Err(); err != nil {
		return nil, 0, fmt.Errorf("list aliases: %w", err)
	}
	rows.Close()

	// Counting first saves growing a slice of ten thousand candidates.
	var n int
	if err := g.db.QueryRowContext(ctx, `SELECT count(*) FROM files f`+inVault, args...).Scan(&n); err != nil {
		return nil, 0, fmt.Errorf("count notes: %w", err)
	}
	rows, err = g.db.QueryContext(ctx, `SELECT f.id, f.vault_id, f.path, f.title, f.kind FROM files f`+inVault, args...)
	if err != nil {
		return nil, 0, fmt.Errorf("list notes: %w", err)
	}
	defer rows.Close()
	out := make([]candidate, 0, n+len(aliases))
	for rows.Next() {
		var c candidate
		var vaultID int64
		if err := rows.Scan(&c.id, &vaultID, &c.Path, &c.Title, &c.Kind); err != nil {
			return nil, 0, fmt.Errorf("list notes: %w", err)
		}
		c.Vault = names[vaultID]
		c.fold()
		out = append(out, c)
		for _, a := range aliases[c.id] {
			c.alias = a
			c.fold()
			out = append(out, c)
		}
	}
	if err := rows.Err(); err != nil {
		return nil, 0, fmt.Errorf("list notes: %w", err)
	}
	return out, len(names), nil
}

// vaultNames reads the name of every vault by id, of the vaults the
// graph is limited to when it is (Within).
func (g *Graph) vaultNames(ctx context.Context) (map[int64]string, error) {
	names, err := store.VaultNames(ctx, g.db)
	if err != nil {
		return nil, fmt.Errorf("list vaults: %w", err)
	}
	if len(g.vaults) > 0 {
		maps.DeleteFunc(names, func(_ int64, name string) bool { return !slices.Contains(g.vaults, name) })
	}
	return names, nil
}

// rule is one way a reference matches files: it keeps those of cands it
// matches.
type rule struct {
	by      MatchedBy
	matches func(r reference, cands []candidate) []candidate
}

// rules are FindNote's rules in its order of preference. All but the title
// are link resolution's.
var rules = []rule{
	{ByPath, func(r reference, cands []candidate) []candidate {
		return keep(cands, func(c *candidate) bool { return r.target.IsPath(c.Path) })
	}},
	{ByTitle, func(r reference, cands []candidate) []candidate { return keep(cands, r.titled) }},
	{ByName, func(r reference, cands []candidate) []candidate {
		return vault.Named(r.target, cands, func(c candidate) string { return c.Path })
	}},
	{ByAlias, func(r reference, cands []candidate) []candidate {
		return keep(cands, func(c *candidate) bool { return c.alias != "" && r.target.IsAlias(c.alias) })
	}},
}

// choose picks from cands the file r means: the first rule of try that any
// file matches, then among the files it matches the one link
// resolution would choose, then the vault name. The other files that
// matched by the same rule become Others. cands must hold every file the
// rules could match.
func choose(cands []candidate, r reference, try []rule) (Match, bool) {
	var hits []candidate
	var by MatchedBy
	for _, ru := range try {
		if hits, by = ru.matches(r, cands), ru.by; len(hits) > 0 {
			break
		}
	}
	if len(hits) == 0 {
		return Match{}, false
	}
	slices.SortFunc(hits, func(a, b candidate) int {
		// "": a reference has no note of its own, and ranks as one at the
		// root would.
		return cmp.Or(vault.TieBreak("", a.Path, b.Path), cmp.Compare(a.Vault, b.Vault))
	})
	m := hits[0].Match
	m.By = by
	for _, h := range hits[1:] {
		// A note with two matching aliases appears twice.
		if h.id == m.id || slices.ContainsFunc(m.Others, func(r Ref) bool { return r == h.Ref }) {
			continue
		}
		m.Others = append(m.Others, h.Ref)
	}
	return m, true
}

// titled reports whether c's frontmatter title is the reference, with or
// without ".md". A title that is only the file name is left to the name
// rule, which knows about folders and attachments.
func (r reference) titled(c *candidate) bool {
	return c.lowTitle != "" && c.lowTitle != c.lowName && (c.lowTitle == r.titles[0] || c.lowTitle == r.titles[1])
}

// keep returns the candidates that match.
func keep(cands []candidate, match func(*candidate) bool) []candidate {
	var out []candidate
	for i := range cands {
		if match(&cands[i]) {
			out = append(out, cands[i])
		}
	}
	return out
}

// notFound builds the error for a reference nothing matched in all, the
// files searched. When other vaults exist, a file there matching the
// reference is the best suggestion there is.
func (g *Graph) notFound(ctx context.Context, vaultName, ref, q string, all []candidate, vaults int) error {
	e := &NotFoundError{Ref: ref, Vault: vaultName}
	if vaultName != "" && vaults > 1 {
		m, ok, err := g.quickFind(ctx, "", newReference(q))
		if err != nil {
			return err
		}
		if ok {
			e.Suggestions = append([]Ref{m.Ref}, m.Others...)
			if len(e.Suggestions) > maxSuggestions {
				e.Suggestions = e.Suggestions[:maxSuggestions]
			}
			return e
		}
	}
	e.Suggestions = suggest(all, q, maxSuggestions)
	return e
}

// unknownVault is the error for a vault name that is not indexed.
func unknownVault(name string, names map[int64]string) error {
	known := make([]string, 0, len(names))
	for _, n := range names {
		known = append(known, fmt.Sprintf("%q", n))
	}
	slices.Sort(known)
	return &unknownVaultError{name: name, known: known}
}

// suggest ranks the files closest to q: those whose title, file name,
// alias or path contains q where a word begins (or whose title, name or
// alias is so contained in it) first, closest in length first; then those
// whose title, name or alias is within a small edit distance of q,
// closest first; notes before attachments as close. Each file appears
// once, by its best key.
func suggest(all []candidate, q string, limit int) []Ref {
	sim := newSimilarity(vault.FoldName(strings.TrimSuffix(q, ".md")))
	pathLike := strings.Contains(q, "/")
	type scored struct {
		ref   Ref
		score int // lower is better
		// attachment ranks a file after notes as close: read-note's
		// reader looks for a note.
		attachment bool
	}
	best := map[Ref]scored{}
	consider := func(c *candidate, key string, editable bool) {
		if key == "" {
			return
		}
		if s, ok := sim.score(key, editable); ok {
			if old, seen := best[c.Ref]; !seen || s < old.score {
				best[c.Ref] = scored{c.Ref, s, c.Kind == "attachment"}
			}
		}
	}
	for i := range all {
		c := &all[i]
		consider(c, c.lowTitle, true)
		if c.lowName != c.lowTitle {
			consider(c, c.lowName, true)
		}
		consider(c, c.lowAlias, true)
		if strings.Contains(c.lowPath, "/") {
			// The folders: "Beans" suggests every note in Beans/, and a
			// path a little off suggests the path.
			consider(c, strings.TrimSuffix(c.lowPath, ".md"), pathLike)
		}
	}
	out := slices.Collect(maps.Values(best))
	slices.SortFunc(out, func(a, b scored) int {
		return cmp.Or(cmp.Compare(a.score, b.score), compareBool(a.attachment, b.attachment), cmp.Compare(len(a.ref.Path), len(b.ref.Path)),
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

// similarity scores keys against one lower-cased reference, reusing its
// buffers: suggestions compare every file of a vault.
type similarity struct {
	q                string
	qr               []rune
	maxDist          int
	prev2, prev, cur []int
}

func newSimilarity(q string) *similarity {
	qr := []rune(q)
	// At most a third of the reference may differ, so "pour ovr" finds
	// "pour over" while "tea" finds nothing in a coffee vault.
	return &similarity{q: q, qr: qr, maxDist: len(qr) / 3}
}

// score rates key (lower is closer) or says it is too far to suggest. A
// substring match in either direction scores by the length difference,
// below any edit distance; edit distance is tried only when editable.
func (s *similarity) score(key string, editable bool) (int, bool) {
	const edit = 1 << 20
	n := utf8.RuneCountInString(key)
	if len(s.qr) >= 3 && containsWord(key, s.q) {
		return n - len(s.qr), true
	}
	if !editable {
		return 0, false
	}
	if n >= 3 && containsWord(s.q, key) {
		return len(s.qr) - n, true
	}
	if s.maxDist == 0 || abs(n-len(s.qr)) > s.maxDist {
		return 0, false
	}
	if d := s.levenshtein([]rune(key)); d <= s.maxDist {
		return edit + d, true
	}
	return 0, false
}

// containsWord reports whether sub occurs in s where a word begins: at
// its start, or after a character that is not a letter or digit (a space,
// "/", "-"). "beans" is in "beans/kenya", "green beans" and
// "beansprouts", not in "soybeans"; "hme" is not in "attachments", so a
// typo of "home" is not taken for every attachment. In scripts written without spaces between words (Han,
// kana, Thai) any occurrence counts.
func containsWord(s, sub string) bool {
	if sub == "" {
		return false
	}
	first, _ := utf8.DecodeRuneInString(sub)
	unspaced := unicode.In(first, unicode.Han, unicode.Hiragana, unicode.Katakana, unicode.Thai, unicode.Lao, unicode.Khmer, unicode.Myanmar)
	for from := 0; ; {
		i := strings.Index(s[from:], sub)
		if i < 0 {
			return false
		}
		i += from
		prev, _ := utf8.DecodeLastRuneInString(s[:i])
		if i == 0 || unspaced || !unicode.IsLetter(prev) && !unicode.IsDigit(prev) {
			return true
		}
		_, size := utf8.DecodeRuneInString(s[i:])
		from = i + size
	}
}

// compareBool orders false before true.
func compareBool(a, b bool) int {
	switch {
	case a == b:
		return 0
	case a:
		return 1
	}
	return -1
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

// levenshtein is the edit distance between the reference and b, counting
// two neighbouring letters swapped as one edit ("hoem" is one from
// "home", as a typist would count it), or any value above maxDist once it
// is sure to exceed it.
func (s *similarity) levenshtein(b []rune) int {
	if cap(s.prev) < len(b)+1 {
		s.prev2, s.prev, s.cur = make([]int, len(b)+1), make([]int, len(b)+1), make([]int, len(b)+1)
	}
	prev2, prev, cur := s.prev2[:len(b)+1], s.prev[:len(b)+1], s.cur[:len(b)+1]
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(s.qr); i++ {
		cur[0] = i
		rowMin := cur[0]
		for j := 1; j <= len(b); j++ {
			cost := 1
			if s.qr[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && s.qr[i-1] == b[j-2] && s.qr[i-2] == b[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1)
			}
			rowMin = min(rowMin, cur[j])
		}
		if rowMin > s.maxDist {
			return s.maxDist + 1
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(b)]
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

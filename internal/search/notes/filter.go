package notes

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"

	"github.com/jarvis-mcp/jarvis/internal/query"
	"github.com/jarvis-mcp/jarvis/internal/store"
	"github.com/jarvis-mcp/jarvis/internal/vault"
)

// Filter narrows a search. Zero values mean no restriction. Every mode,
// and the scan of the files that stands in for the index when it is
// unavailable, applies it by the rules below, implemented once here.
//
// Vaults: Vault names one; without it, every vault in Vaults; without
// either, every vault in the database.
//
// Path prefix: the start of a note's vault-relative path, as text.
//   - Written either way: "\" is "/", and a leading "./" or "/" and
//     surrounding spaces mean nothing ("./Projects/" is "Projects/").
//   - Without regard to case or Unicode form: "projects/" keeps
//     "Projects/Plan.md", and "café/" keeps a folder macOS wrote as
//     "cafe" and a combining accent.
//   - A folder or a name: "Projects/" keeps the notes inside the folder
//     Projects (and its subfolders); "Projects" also keeps "Projects.md"
//     and "Projects 2024/...", as the text is a prefix of those paths too.
//
// Tag: the tag or one nested under it ("project" keeps "#project/alpha"),
// with or without "#", compared by vault.TagKey: without regard to case
// or Unicode form ("été" keeps "#Été" and "#ÉTÉ/plage").
type Filter struct {
	// Vault is a vault name; empty searches every vault in Vaults.
	Vault string
	// Vaults are the vaults a search without Vault may look in: those the
	// caller serves. A database can hold vaults indexed by other runs;
	// empty means every vault in it.
	Vaults []string
	// PathPrefix keeps notes whose vault-relative path starts with it.
	PathPrefix string
	// Tag keeps notes carrying the tag or one nested under it.
	Tag string
	// Exclude holds, by vault name, the exclude patterns of the vaults
	// the caller serves. When it is set, a note vault.LeftOut keeps out
	// of its vault by them (by no pattern, for a vault it does not name)
	// does not pass, whatever the database holds: the index may have been
	// written under other rules (an older config, another process), and
	// the answer follows the rules of the one answering.
	Exclude map[string][]string
	// Where keeps the notes that pass a Bases filter expression, by the
	// rule of a base's view (query.Where).
	Where string

	// set is the filter resolved against the database, once per search
	// (see Resolve); nil before.
	set *noteSet
}

// Scope is the vaults a filter allows, nil for every vault.
func (f Filter) Scope() []string {
	if f.Vault != "" {
		return []string{f.Vault}
	}
	return f.Vaults
}

// normalizePrefix writes a path prefix the way paths are stored: slashes,
// no leading "./" or "/", no surrounding spaces.
func normalizePrefix(p string) string {
	p = strings.ReplaceAll(strings.TrimSpace(p), `\`, "/")
	for {
		switch {
		case strings.HasPrefix(p, "./"):
			p = p[2:]
		case strings.HasPrefix(p, "/"):
			p = p[1:]
		default:
			return p
		}
	}
}

// fullPath reports whether a path prefix was written as a full path
// rather than from the vault's top folder: in a home folder ("~/notes"),
// on a drive ("C:\\Users\\me\\vault"), or the full path of a folder on
// this machine ("/home/me/vault/Projects"). No note's vault-relative path
// starts with one.
func fullPath(p string) bool {
	switch {
	case strings.HasPrefix(p, "~/") || strings.HasPrefix(p, `~\`):
		return true
	case len(p) >= 3 && p[1] == ':' && (p[2] == '/' || p[2] == '\\') && ('a' <= p[0]|0x20 && p[0]|0x20 <= 'z'):
		return true
	case !filepath.IsAbs(p) || normalizePrefix(p) == "":
		return false
	}
	st, err := os.Stat(p)
	return err == nil && st.IsDir()
}

// NormalizeTag is a tag as tags are stored: without "#".
func NormalizeTag(t string) string {
	return strings.TrimPrefix(strings.TrimSpace(t), "#")
}

// TagProblem says why a tag filter names no tag a note can carry ("#"
// alone, a space, a second "#"), so that the search is refused rather
// than run with a filter that keeps every note or none; "" when it can
// name one, or is empty.
func TagProblem(tag string) string {
	t := NormalizeTag(tag)
	switch {
	case strings.TrimSpace(tag) == "":
		return ""
	case t == "":
		return `is only "#": give the tag's name, such as "project" or "#project"`
	case strings.ContainsFunc(t, unicode.IsSpace):
		return `holds a space, which no tag has (a tag ends at the first space): give one tag, such as "project" or "project/alpha"`
	case strings.Contains(t, "#"):
		return `holds a second "#": give one tag, such as "project" or "#project"`
	}
	return ""
}

// HasPathPrefix reports whether a vault-relative path passes a path
// prefix by the rules of Filter. An empty prefix passes every path.
func HasPathPrefix(path, prefix string) bool {
	p := vault.FoldName(normalizePrefix(prefix))
	return strings.HasPrefix(vault.FoldName(path), p)
}

// HasTag reports whether a note with the given tags (without "#") passes
// a tag filter by the rules of Filter. An empty tag passes every note.
// notes states the same rule in SQL, over the keys the index stores.
func HasTag(tags []string, tag string) bool {
	t := vault.TagKey(NormalizeTag(tag))
	if t == "" {
		return true
	}
	for _, have := range tags {
		h := vault.TagKey(NormalizeTag(have))
		if h == t || strings.HasPrefix(h, t+"/") {
			return true
		}
	}
	return false
}

// Describe says what a filter keeps, as words that follow "notes" in a
// sentence about an empty answer: `whose path starts with "Projects/",
// tagged #idea`; "" when it keeps every note.
func (f Filter) Describe() string {
	var parts []string
	if p := normalizePrefix(f.PathPrefix); p != "" {
		if given := strings.TrimSpace(f.PathPrefix); fullPath(given) {
			p = given // quoted as given, so the reader sees what was asked
		}
		parts = append(parts, fmt.Sprintf("whose path starts with %q", p))
	}
	if t := NormalizeTag(f.Tag); t != "" {
		parts = append(parts, "tagged #"+t)
	}
	if f.Vault != "" {
		parts = append(parts, fmt.Sprintf("in vault %q", f.Vault))
	}
	if w := strings.TrimSpace(f.Where); w != "" {
		parts = append(parts, fmt.Sprintf("where `%s`", w))
	}
	return strings.Join(parts, ", ")
}

// Reader is who reads what a search says about its filter, so that the
// sentence names what that reader can change: a tool's arguments and the
// other tools, for the model behind an MCP client; the flags of jarvis
// search, for a person at a terminal.
type Reader int

const (
	// ReaderModel is the model behind an MCP client (the zero value).
	ReaderModel Reader = iota
	// ReaderTerminal is a person running jarvis search.
	ReaderTerminal
)

// NoNotes is the answer's sentence when f itself keeps no note, so that
// nothing was searched: what f keeps, and what to check, in the words of
// reader r.
func (f Filter) NoNotes(r Reader) string {
	prefix, tag := "path_prefix", "tag"
	if r == ReaderTerminal {
		prefix, tag = "--path-prefix", "--tag"
	}
	var check []string
	if given := strings.TrimSpace(f.PathPrefix); normalizePrefix(given) != "" {
		c := "Check " + prefix + `: paths start at the vault's top folder, as search results give them ("Projects/" for the folder Projects)`
		if fullPath(given) {
			c += fmt.Sprintf(", not at the top of the disk as %q does", given)
		}
		check = append(check, c+".")
	}
	if NormalizeTag(f.Tag) != "" {
		check = append(check, "Check "+tag+`: it keeps the notes with that tag or one nested under it ("project" keeps #project/alpha), with or without "#".`)
	}
	if f.Vault != "" {
		if r == ReaderTerminal {
			check = append(check, "Check the vault: it holds no notes yet, or none that pass.")
		} else {
			check = append(check, "list-vaults says how many notes each vault holds.")
		}
	}
	return strings.Join(append([]string{"There are no notes " + f.Describe() + ", so nothing was searched."}, check...), " ")
}

// noteSet is a filter resolved against the database: every note, none,
// or those a query lists.
type noteSet struct {
	all  bool // every note in the database passes
	none bool // no note passes
	// sql lists the ids of the notes that pass, with args; set unless all
	// or none.
	sql  string
	args []any
	// ids are the notes that pass when a path or tag condition was
	// checked here; nil when the set is a vault condition alone.
	ids map[int64]bool
	// vaults are the ids of the vaults a set that is a vault condition
	// alone keeps; nil otherwise.
	vaults map[int64]bool
	// out are the notes Exclude keeps out, which a set that is all or a
	// vault condition does not pass; nil when none are.
	out map[int64]bool
}

// Resolve reads which notes pass f, once per search. A filter naming
// every vault in the database, and no path or tag, keeps every note and
// costs the searches nothing.
func (f Filter) Resolve(ctx context.Context, db Querier) (Filter, error) {
	if f.set != nil {
		return f, nil
	}
	set, err := f.notes(ctx, db)
	if err != nil {
		return f, fmt.Errorf("apply the search filter: %w", err)
	}
	f.set = &set
	return f, nil
}

func (f Filter) notes(ctx context.Context, db Querier) (noteSet, error) {
	scope := f.Scope()
	var vaults map[int64]bool
	if len(scope) > 0 {
		all, ids, err := coversDatabase(ctx, db, scope)
		if err != nil {
			return noteSet{}, err
		}
		if all {
			scope = nil
		}
		vaults = ids
	}
	prefix, tag := normalizePrefix(f.PathPrefix), NormalizeTag(f.Tag)
	var where map[int64]bool
	if strings.TrimSpace(f.Where) != "" {
		names := scope
		if len(names) == 0 {
			held, err := store.VaultNames(ctx, db)
			if err != nil {
				return noteSet{}, err
			}
			names = slices.Sorted(maps.Values(held))
		}
		var err error
		if where, err = query.Where(ctx, db, names, f.Exclude, f.Where, time.Now()); err != nil {
			return noteSet{}, err
		}
	}
	vaultCond, vaultArgs := store.InVaults("f.vault_id", scope)
	out, err := f.keptOut(ctx, db, vaultCond, vaultArgs)
	if err != nil {
		return noteSet{}, err
	}
	if prefix == "" && tag == "" && where == nil {
		switch {
		case vaultCond == "" && out == nil:
			return noteSet{all: true}, nil
		case vaultCond == "":
			vaultCond = "1"
		}
		q, args := `SELECT f.id FROM files f WHERE `+vaultCond, vaultArgs
		if out != nil {
			js, err := json.Marshal(slices.Collect(maps.Keys(out)))
			if err != nil {
				return noteSet{}, err
			}
			q += ` AND f.id NOT IN (SELECT value FROM json_each(?))`
			args = append(slices.Clone(args), string(js))
		}
		return noteSet{sql: q, args: args, vaults: vaults, out: out}, nil
	}
	q := `SELECT f.id, f.path FROM files f WHERE f.kind = 'note'`
	var args []any
	if vaultCond != "" {
		q += ` AND ` + vaultCond
		args = append(args, vaultArgs...)
	}
	if prefix != "" {
		// LIKE narrows the notes by the prefix's ASCII start, without
		// regard to ASCII case; HasPathPrefix decides, with Unicode.
		q += ` AND f.path LIKE ? ESCAPE '\'`
		args = append(args, likePrefix(prefix))
	}
	if tag != "" {
		// HasTag's rule over the stored keys: the tag's key, or a key
		// starting with it and "/". Two conditions, not an OR, so that
		// each uses tags_fold; '0' follows '/', so the second range is
		// every key starting with key+"/".
		key := vault.TagKey(tag)
		q += ` AND f.id IN (SELECT file_id FROM tags WHERE fold = ?
			UNION SELECT file_id FROM tags WHERE fold >= ? AND fold < ?)`
		args = append(args, key, key+"/", key+"0")
	}
	rows, err := db.QueryContext(ctx, q, args...)
	if err != nil {
		return noteSet{}, err
	}
	defer rows.Close()
	ids := map[int64]bool{}
	var list []int64
	for rows.Next() {
		var id int64
		var path string
		if err := rows.Scan(&id, &path); err != nil {
			return noteSet{}, err
		}
		if HasPathPrefix(path, prefix) && !out[id] && (where == nil || where[id]) {
			ids[id] = true
			list = append(list, id)
		}
	}
	if err := rows.Err(); err != nil {
		return noteSet{}, err
	}
	if len(ids) == 0 {
		return noteSet{none: true, ids: ids}, nil
	}
	js, err := json.Marshal(list)
	if err != nil {
		return noteSet{}, err
	}
	return noteSet{sql: `SELECT value FROM json_each(?)`, args: []any{string(js)}, ids: ids}, nil
}

// keptOut reads the notes, among those of the vaults vaultCond keeps,
// that the vault rules of f.Exclude keep out: nil when f.Exclude is not
// set or none is.
func (f Filter) keptOut(ctx context.Context, db Querier, vaultCond string, vaultArgs []any) (map[int64]bool, error) {
	if f.Exclude == nil {
		return nil, nil
	}
	q := `SELECT f.id, v.name, f.path FROM files f JOIN vaults v ON v.id = f.vault_id WHERE f.kind = 'note'`
	if vaultCond != "" {
		q += ` AND ` + vaultCond
	}
	rows, err := db.QueryContext(ctx, q, vaultArgs...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out map[int64]bool
	for rows.Next() {
		var id int64
		var name, path string
		if err := rows.Scan(&id, &name, &path); err != nil {
			return nil, err
		}
		if vault.LeftOut(path, f.Exclude[name]) {
			if out == nil {
				out = map[int64]bool{}
			}
			out[id] = true
		}
	}
	return out, rows.Err()
}

// coversDatabase reports whether the named vaults are every vault the
// database holds, so that a search within them needs no vault condition,
// and the ids of those it holds.
func coversDatabase(ctx context.Context, db Querier, names []string) (bool, map[int64]bool, error) {
	held, err := store.VaultNames(ctx, db)
	if err != nil {
		return false, nil, err
	}
	all, ids := true, map[int64]bool{}
	for id, name := range held {
		if slices.Contains(names, name) {
			ids[id] = true
		} else {
			all = false
		}
	}
	return all, ids, nil
}

// likePrefix is a LIKE pattern for the paths that may start with prefix:
// its ASCII start, escaped, then anything. LIKE folds ASCII case only, so
// the pattern stops at the first other character and HasPathPrefix checks
// the rest. The prefix is composed first: a decomposed "U" and diaeresis
// must not leave a "U" that "Ü" does not start with.
func likePrefix(prefix string) string {
	prefix = norm.NFC.String(prefix)
	end := len(prefix)
	for i, r := range prefix {
		if r >= utf8.RuneSelf {
			end = i
			break
		}
	}
	return store.EscapeLike(prefix[:end]) + "%"
}

// NoteIDs is a query listing the ids of the notes a resolved filter lets
// through, with its arguments; "" when it lets every note through.
func (f Filter) NoteIDs() (query string, args []any) {
	if f.set == nil || f.set.all {
		return "", nil
	}
	if f.set.none {
		return `SELECT 0 WHERE 0`, nil
	}
	return f.set.sql, f.set.args
}

// Keep is the test semantic search applies to each chunk's note: nil when
// the vaults chosen are the whole condition.
func (f Filter) Keep() func(int64) bool {
	switch {
	case f.set == nil:
		return nil
	case f.set.ids != nil:
		ids := f.set.ids
		return func(id int64) bool { return ids[id] }
	case f.set.out != nil:
		out := f.set.out
		return func(id int64) bool { return !out[id] }
	}
	return nil
}

// InVaults is the ids of the vaults a resolved filter keeps when a vault
// condition is all it is; nil otherwise.
func (f Filter) InVaults() map[int64]bool {
	if f.set == nil {
		return nil
	}
	return f.set.vaults
}

// Listed reports whether a resolved filter's notes are known without a
// query: every note, or a set of note or vault ids, less the notes kept
// out (Keep).
func (f Filter) Listed() bool {
	return f.set != nil && (f.set.all || f.set.ids != nil || f.set.vaults != nil || f.set.out != nil)
}

// MatchesNothing reports whether a resolved filter lets no note through.
func (f Filter) MatchesNothing() bool { return f.set != nil && f.set.none }

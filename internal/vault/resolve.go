package vault

import (
	"cmp"
	"path"
	"slices"
	"strings"
)

// Resolver answers which file a link points to, following Obsidian's rules
// (documented in docs/link-resolution.md):
//
//  1. An empty target ("[[#Heading]]") is the source note itself.
//  2. A target starting with "./" or "../", and every Markdown link, is first
//     tried relative to the source note's folder.
//  3. The target is tried as a path from the vault root, as written and with
//     ".md" added.
//  4. A target with folders ("Projects/Plan") matches any file whose path
//     ends with it.
//  5. A bare name matches notes by file name without ".md", and attachments
//     by file name with extension.
//  6. Failing all that, the target matches a note's frontmatter alias.
//
// All comparisons ignore case and Unicode normal form (FoldName). When
// several files match at one step, TieBreak chooses.
//
// Rules 3 to 6 are also Target's methods and Named, so that code finding a
// file some other way (graph.FindNote, which looks files up in SQLite)
// follows the same rules rather than a copy of them.
//
// A Resolver is built once from the whole vault and is safe for concurrent
// use; it is cheap enough to rebuild whenever files are added or removed.
type Resolver struct {
	paths   []string         // every file's vault-relative path
	byPath  map[string]int   // FoldName(path) -> index
	byName  map[string][]int // NameKey -> files
	byAlias map[string][]int // AliasKey -> notes
}

// NewResolver indexes files (vault-relative paths, notes ending in ".md") and
// the aliases of notes, keyed by note path.
func NewResolver(files []string, aliases map[string][]string) *Resolver {
	r := &Resolver{
		paths:   files,
		byPath:  make(map[string]int, len(files)),
		byName:  make(map[string][]int, len(files)),
		byAlias: make(map[string][]int),
	}
	for i, p := range files {
		lp := FoldName(p)
		if _, dup := r.byPath[lp]; !dup {
			r.byPath[lp] = i
		}
		k := NameKey(p)
		r.byName[k] = append(r.byName[k], i)
		for _, a := range aliases[p] {
			if k := AliasKey(a); k != "" {
				r.byAlias[k] = append(r.byAlias[k], i)
			}
		}
	}
	return r
}

// Resolve returns the path of the file that a link with the given target,
// written in the note at source, points to. markdown is true for Markdown
// links, whose targets are relative to the source note's folder.
func (r *Resolver) Resolve(source, target string, markdown bool) (string, bool) {
	t := trimTarget(target)
	if t == "" {
		return source, true
	}
	relative := strings.HasPrefix(t, "./") || strings.HasPrefix(t, "../")
	if relative || markdown {
		if i, ok := r.exact(ParseTarget(path.Join(path.Dir(source), t))); ok {
			return r.paths[i], true
		}
		if relative {
			return "", false
		}
	}
	tg := ParseTarget(t)
	if tg.path == "" {
		return "", false
	}
	if tg.hasDir {
		if i, ok := r.exact(tg); ok {
			return r.paths[i], true
		}
	}
	// byName holds the files with the target's NameKey already.
	at := func(i int) string { return r.paths[i] }
	if i, ok := r.best(narrow(tg, r.byName[tg.name], at), source); ok {
		return r.paths[i], true
	}
	if i, ok := r.best(r.byAlias[AliasKey(tg.stem)], source); ok {
		return r.paths[i], true
	}
	return "", false
}

// exact finds a file by its full path, as written or with ".md" added.
func (r *Resolver) exact(t Target) (int, bool) {
	for _, k := range t.pathKeys() {
		if i, ok := r.byPath[k]; ok {
			return i, true
		}
	}
	return 0, false
}

// best applies TieBreak to files that match a link from source equally well.
func (r *Resolver) best(cands []int, source string) (int, bool) {
	if len(cands) == 0 {
		return 0, false
	}
	dir := path.Dir(source)
	return slices.MinFunc(cands, func(a, b int) int { return tieBreak(dir, r.paths[a], r.paths[b]) }), true
}

// TieBreak orders files that match a link from the note at source equally
// well, the one the link leads to first: a file in the source note's folder,
// then the shorter path, then the first in alphabetical order. An empty
// source, a reference with no note of its own, ranks like a note at the
// vault root.
func TieBreak(source, a, b string) int {
	return tieBreak(path.Dir(source), a, b)
}

func tieBreak(dir, a, b string) int {
	if ia, ib := path.Dir(a) == dir, path.Dir(b) == dir; ia != ib {
		if ia {
			return -1
		}
		return 1
	}
	return cmp.Or(cmp.Compare(len(a), len(b)), cmp.Compare(a, b))
}

// Target is a link target, or a reference to a note typed by someone, made
// ready for rules 3 to 6: cleaned to a path from the vault root, with the
// keys each rule compares.
type Target struct {
	path   string // from the vault root, "" when nothing is left
	stem   string // path without a note's ".md"
	key    string // FoldName(path)
	name   string // NameKey(path)
	hasDir bool
	// preferAttachment is a bare name ending in an extension other than
	// ".md": "[[image.png]]" means the attachment, and a note whose own
	// name ends in ".png" is found only when no such attachment exists.
	preferAttachment bool
}

// trimTarget is a target as written, without surrounding spaces and with
// Windows separators turned into slashes.
func trimTarget(s string) string {
	return strings.TrimSpace(strings.ReplaceAll(s, `\`, "/"))
}

// ParseTarget reads a link target as a path from the vault root: spaces
// around it go, backslashes are slashes, a leading slash means the root and
// "a/../b" is "b". Nothing is left of a target such as "/" or "..".
func ParseTarget(target string) Target {
	p := strings.TrimPrefix(path.Clean("/"+trimTarget(target)), "/")
	if p == "" {
		return Target{}
	}
	stem := p
	if IsNote(p) {
		stem = p[:len(p)-len(".md")]
	}
	hasDir := strings.Contains(p, "/")
	return Target{
		path:             p,
		stem:             stem,
		key:              FoldName(p),
		name:             NameKey(p),
		hasDir:           hasDir,
		preferAttachment: !hasDir && !IsNote(p) && path.Ext(p) != "",
	}
}

// Path is the target as a path from the vault root; "" when nothing is
// left of it.
func (t Target) Path() string { return t.path }

// Stem is Path without a note's ".md": the text a file's path ends with
// when the target names the file by name, and the text of an alias.
func (t Target) Stem() string { return t.stem }

func (t Target) pathKeys() [2]string { return [2]string{t.key, t.key + ".md"} }

// IsPath reports whether the file at p is the one the target names by its
// path from the vault root, as written or with ".md" added (rule 3).
func (t Target) IsPath(p string) bool {
	if t.path == "" {
		return false
	}
	keys := t.pathKeys()
	return slices.Contains(keys[:], FoldName(p))
}

// IsAlias reports whether a note with the given alias is one the target
// names by alias (rule 6).
func (t Target) IsAlias(alias string) bool {
	k := AliasKey(alias)
	return k != "" && k == AliasKey(t.stem)
}

// Named keeps the files among cands that the target names by file name or
// partial path (rules 4 and 5); pathOf gives a candidate's path. A bare
// name ending in an extension other than ".md" keeps only attachments when
// any match.
func Named[T any](t Target, cands []T, pathOf func(T) string) []T {
	if t.path == "" {
		return nil
	}
	var same []T
	for _, c := range cands {
		if NameKey(pathOf(c)) == t.name {
			same = append(same, c)
		}
	}
	return narrow(t, same, pathOf)
}

// narrow is Named for candidates that all have the target's NameKey: those
// of a target with folders must have paths that end with it, and a bare
// name's preference for attachments applies.
func narrow[T any](t Target, cands []T, pathOf func(T) string) []T {
	if !t.hasDir && !t.preferAttachment {
		return cands
	}
	var notes, attachments []T
	for _, c := range cands {
		switch p := pathOf(c); {
		case t.hasDir && !t.endsPath(p):
		case IsNote(p):
			notes = append(notes, c)
		default:
			attachments = append(attachments, c)
		}
	}
	switch {
	case t.preferAttachment && len(attachments) > 0:
		return attachments
	case t.preferAttachment:
		return notes
	}
	return append(notes, attachments...)
}

// endsPath reports whether the path p ends with the target's, as written or
// with ".md" added.
func (t Target) endsPath(p string) bool {
	lp, suffix := "/"+FoldName(p), "/"+t.key
	return strings.HasSuffix(lp, suffix) || strings.HasSuffix(lp, suffix+".md")
}

// MayName reports whether the targets t and u may name the same file: one
// file name, and folders that agree as far as both are written. A link
// waiting for a note ("[[Projects/Ideas]]", no such note yet) is found by
// the name someone asks for, "Ideas" or "projects/ideas.md", though not by
// "Archive/Ideas".
func (t Target) MayName(u Target) bool {
	if t.path == "" || u.path == "" || t.name != u.name {
		return false
	}
	if !t.hasDir || !u.hasDir {
		return true
	}
	a, b := "/"+FoldName(t.stem), "/"+FoldName(u.stem)
	return strings.HasSuffix(a, b) || strings.HasSuffix(b, a)
}

// NamesOne gives the one file among paths that the target t names by
// file name or by the end of its path (rules 4 and 5), and false when it
// names none or several: Obsidian's test of whether a shorter link is
// enough, which links written for a note (a move's, a suggestion's) use.
func NamesOne(t string, paths []string) (string, bool) {
	named := Named(ParseTarget(t), paths, func(p string) string { return p })
	if len(named) != 1 {
		return "", false
	}
	return named[0], true
}

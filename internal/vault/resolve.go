package vault

import (
	"path"
	"sort"
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
// All comparisons ignore case. When several files match at one step, the one
// in the source note's folder wins, then the shortest path, then the first in
// alphabetical order.
//
// A Resolver is built once from the whole vault and is safe for concurrent
// use; it is cheap enough to rebuild whenever files are added or removed.
type Resolver struct {
	paths   []string         // every file's vault-relative path
	byPath  map[string]int   // lower-cased path -> index
	byName  map[string][]int // lower-cased note name without .md, or attachment name with extension
	byAlias map[string][]int // lower-cased alias -> notes
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
		r.byName[nameKey(p)] = append(r.byName[nameKey(p)], i)
		for _, a := range aliases[p] {
			k := FoldName(strings.TrimSpace(a))
			if k != "" {
				r.byAlias[k] = append(r.byAlias[k], i)
			}
		}
	}
	return r
}

// nameKey is the key a file is found by when a link gives only its name.
func nameKey(p string) string {
	base := path.Base(p)
	if IsNote(base) {
		base = base[:len(base)-len(".md")]
	}
	return FoldName(base)
}

// Resolve returns the path of the file that a link with the given target,
// written in the note at source, points to. markdown is true for Markdown
// links, whose targets are relative to the source note's folder.
func (r *Resolver) Resolve(source, target string, markdown bool) (string, bool) {
	t := strings.TrimSpace(strings.ReplaceAll(target, `\`, "/"))
	if t == "" {
		return source, true
	}
	dir := path.Dir(source)
	relative := strings.HasPrefix(t, "./") || strings.HasPrefix(t, "../")
	if relative || markdown {
		if i, ok := r.exact(path.Join(dir, t)); ok {
			return r.paths[i], true
		}
		if relative {
			return "", false
		}
	}
	t = strings.TrimPrefix(path.Clean("/"+t), "/")
	if t == "" || t == "." {
		return "", false
	}
	hasDir := strings.Contains(t, "/")
	if hasDir {
		if i, ok := r.exact(t); ok {
			return r.paths[i], true
		}
	}

	cands := r.byName[nameKey(t)]
	switch {
	case hasDir:
		suffix := "/" + FoldName(t)
		cands = r.filter(cands, func(p string) bool {
			lp := "/" + FoldName(p)
			return strings.HasSuffix(lp, suffix) || strings.HasSuffix(lp, suffix+".md")
		})
	case !IsNote(t) && path.Ext(t) != "":
		// "[[image.png]]" means the attachment; a note whose own name ends
		// in ".png" is found only when no such attachment exists.
		att := r.filter(cands, func(p string) bool { return !IsNote(p) && FoldName(path.Base(p)) == FoldName(t) })
		if len(att) > 0 {
			cands = att
		} else {
			cands = r.filter(cands, IsNote)
		}
	}
	if i, ok := r.best(cands, dir); ok {
		return r.paths[i], true
	}
	if i, ok := r.best(r.byAlias[FoldName(strings.TrimSuffix(t, ".md"))], dir); ok {
		return r.paths[i], true
	}
	return "", false
}

// exact finds a file by its full path, as written or with ".md" added.
func (r *Resolver) exact(p string) (int, bool) {
	p = strings.TrimPrefix(path.Clean("/"+p), "/")
	lp := FoldName(p)
	if i, ok := r.byPath[lp]; ok {
		return i, true
	}
	i, ok := r.byPath[lp+".md"]
	return i, ok
}

func (r *Resolver) filter(cands []int, keep func(string) bool) []int {
	var out []int
	for _, c := range cands {
		if keep(r.paths[c]) {
			out = append(out, c)
		}
	}
	return out
}

// best applies the tie-break: the source note's folder first, then the
// shortest path, then alphabetical order.
func (r *Resolver) best(cands []int, dir string) (int, bool) {
	if len(cands) == 0 {
		return 0, false
	}
	if len(cands) == 1 {
		return cands[0], true
	}
	sorted := append([]int(nil), cands...)
	sort.Slice(sorted, func(a, b int) bool {
		pa, pb := r.paths[sorted[a]], r.paths[sorted[b]]
		ia, ib := path.Dir(pa) == dir, path.Dir(pb) == dir
		if ia != ib {
			return ia
		}
		if len(pa) != len(pb) {
			return len(pa) < len(pb)
		}
		return pa < pb
	})
	return sorted[0], true
}

package vault

import (
	"encoding/json"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
)

// SameFolder reports whether two vault folder paths name one folder
// (Within, with nothing between them).
func SameFolder(a, b string) bool {
	rel, ok := Within(a, b)
	return ok && rel == "."
}

// Within reports whether the folder inner is the folder outer or lies
// beneath it, and gives inner's path relative to outer with '/'
// separators ("." for the same folder). Folders are compared as they
// really are: with symbolic links resolved, and by the file system's own
// identity of a folder, so that on a disk that ignores case (macOS,
// Windows) ~/notes and ~/Notes are one folder. A path that cannot be
// resolved (a folder gone, or not made yet) is compared as written, made
// absolute and cleaned. It is the one rule by which jarvis tells whether
// two vault folders are one, or one holds the other.
func Within(inner, outer string) (string, bool) {
	inner, outer = absPath(inner), absPath(outer)
	ri, errI := filepath.EvalSymlinks(inner)
	ro, errO := filepath.EvalSymlinks(outer)
	if errI != nil || errO != nil {
		return lexicallyWithin(inner, outer)
	}
	if rel, ok := lexicallyWithin(ri, ro); ok {
		return rel, true
	}
	top, err := os.Stat(ro)
	if err != nil {
		return "", false
	}
	// ri's parents are real folders too: walk up until one is outer.
	for p := ri; ; {
		if st, err := os.Stat(p); err == nil && os.SameFile(st, top) {
			return lexicallyWithin(ri, p)
		}
		parent := filepath.Dir(p)
		if parent == p {
			return "", false
		}
		p = parent
	}
}

// lexicallyWithin is Within for paths as written: absolute and clean.
func lexicallyWithin(inner, outer string) (string, bool) {
	rel, err := filepath.Rel(outer, inner)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) || filepath.IsAbs(rel) {
		return "", false
	}
	return filepath.ToSlash(rel), true
}

// FolderLeftOut reports whether a vault given the exclude patterns leaves
// out the folder at the vault-relative path rel, and so all beneath it:
// that folder or one above it is hidden, skipped or excluded (KeptOut,
// each taken as a folder).
func FolderLeftOut(rel string, patterns []string) bool {
	rel = path.Clean(rel)
	if rel == "." {
		return false
	}
	parts := strings.Split(rel, "/")
	for i := range parts {
		if KeptOut(strings.Join(parts[:i+1], "/"), true, patterns) {
			return true
		}
	}
	return false
}

// FolderPattern is an exclude pattern that leaves out the folder at the
// vault-relative path rel and all beneath it, and nothing else: the path
// with its glob characters escaped, anchored at the vault's top.
func FolderPattern(rel string) string {
	var b strings.Builder
	for _, r := range rel {
		if strings.ContainsRune(`*?[]{}\`, r) {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String() + "/**"
}

func absPath(p string) string {
	if abs, err := filepath.Abs(p); err == nil {
		return abs
	}
	return filepath.Clean(p)
}

// RulesKey writes a vault's exclude patterns as the user wrote them, as a
// JSON array without empty patterns or repeats (two patterns Excluded
// reads alike, such as "Templates/" and "templates", are one: the first
// is kept), sorted by how Excluded reads them (patternKey). Two lists with
// the same key leave out the same paths; so may two lists that differ only
// in the case or form of a pattern, which RulesCover compares as Excluded
// does. The key of no patterns is "[]". Messages show the patterns as
// written.
func RulesKey(patterns []string) string {
	kept := []string{}
	seen := map[string]bool{}
	for _, pat := range patterns {
		if k := patternKey(pat); k != "" && !seen[k] {
			seen[k] = true
			kept = append(kept, pat)
		}
	}
	slices.SortStableFunc(kept, func(a, b string) int { return strings.Compare(patternKey(a), patternKey(b)) })
	data, _ := json.Marshal(kept)
	return string(data)
}

// RulesCover reports whether the patterns keyed given (RulesKey) hold
// every pattern keyed stored, so that a vault given them leaves out all
// that it was left out under stored, and perhaps more. A key that is not
// such a list covers nothing and is covered only by itself.
func RulesCover(given, stored string) bool {
	if given == stored {
		return true
	}
	var g, s []string
	if json.Unmarshal([]byte(given), &g) != nil || json.Unmarshal([]byte(stored), &s) != nil {
		return false
	}
	// Keys written before patterns were kept as written hold patternKey's
	// form, which patternKey keeps as it is.
	keys := map[string]bool{}
	for _, p := range g {
		keys[patternKey(p)] = true
	}
	for _, p := range s {
		if k := patternKey(p); k != "" && !keys[k] {
			return false
		}
	}
	return true
}

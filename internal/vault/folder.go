package vault

import (
	"encoding/json"
	"path/filepath"
	"slices"
)

// SameFolder reports whether two vault folder paths name one folder: the
// same once made absolute and cleaned, or once symbolic links are
// resolved. A folder reached through a link is the folder it leads to; a
// path that cannot be resolved (a folder gone) is the same only as itself.
func SameFolder(a, b string) bool {
	a, b = absPath(a), absPath(b)
	if a == b {
		return true
	}
	ra, errA := filepath.EvalSymlinks(a)
	rb, errB := filepath.EvalSymlinks(b)
	return errA == nil && errB == nil && ra == rb
}

func absPath(p string) string {
	if abs, err := filepath.Abs(p); err == nil {
		return abs
	}
	return filepath.Clean(p)
}

// RulesKey writes a vault's exclude patterns as Excluded reads them
// (patternKey), sorted and without repeats, as a JSON array. Two lists
// with the same key leave out the same paths; the key of no patterns is
// "[]".
func RulesKey(patterns []string) string {
	keys := []string{}
	for _, pat := range patterns {
		if p := patternKey(pat); p != "" {
			keys = append(keys, p)
		}
	}
	slices.Sort(keys)
	data, _ := json.Marshal(slices.Compact(keys))
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
	for _, p := range s {
		if !slices.Contains(g, p) {
			return false
		}
	}
	return true
}

package config

import (
	"fmt"

	"github.com/jarvis-mcp/jarvis/internal/vault"
)

// OverlapError is two configured vaults that would index the same notes:
// both are one folder, or one lies inside the other and the outer vault's
// rules do not leave it out. Each such note would be indexed, and found,
// once in each vault.
type OverlapError struct {
	Outer, Inner Vault
	// Rel is the inner folder's path inside the outer one, with '/'
	// separators; "." when both are one folder.
	Rel string
	// source says where the vaults were given (Config.VaultSource), file
	// which config file was read ("" for none), and inFile whether Outer
	// is listed there, for the fix.
	source, file string
	inFile       bool
}

// Overlap is the first pair of c's vaults that would index the same
// notes, or nil when none do. Folders are compared by vault.Within; an
// outer vault whose exclude patterns leave the inner folder out
// (vault.FolderLeftOut) does not overlap it. Every command that reads
// vaults refuses an overlap, and doctor reports it.
func (c Config) Overlap() *OverlapError {
	for i, a := range c.Vaults {
		for _, b := range c.Vaults[i+1:] {
			for _, pair := range [2][2]Vault{{a, b}, {b, a}} {
				outer, inner := pair[0], pair[1]
				rel, ok := vault.Within(inner.Path, outer.Path)
				if !ok || rel != "." && vault.FolderLeftOut(rel, outer.Exclude) {
					continue
				}
				e := &OverlapError{Outer: outer, Inner: inner, Rel: rel, source: c.VaultSource, file: c.File}
				for _, name := range c.FileVaults {
					e.inFile = e.inFile || name == outer.Name
				}
				return e
			}
		}
	}
	return nil
}

// Detail says which vaults overlap and why that is a problem.
func (e *OverlapError) Detail() string {
	if e.Rel == "." {
		return fmt.Sprintf("vaults %q (%s) and %q (%s) are the same folder, so each of its notes would be indexed and found twice",
			e.Outer.Name, e.Outer.Path, e.Inner.Name, e.Inner.Path)
	}
	return fmt.Sprintf("vault %q (%s) lies inside vault %q (%s), so each of its notes would be indexed and found twice",
		e.Inner.Name, e.Inner.Path, e.Outer.Name, e.Outer.Path)
}

// Fix says what to do: give one of the two, or, for a folder inside
// another, leave it out of the outer vault with an exclude pattern.
func (e *OverlapError) Fix() string {
	where := "the config file"
	switch e.source {
	case "flag":
		where = "the --vault flags"
	case "env " + EnvVault:
		where = EnvVault
	}
	if e.file != "" && where == "the config file" {
		where += " " + e.file
	}
	remove := fmt.Sprintf("give only one of them (remove %q or %q from %s)", e.Outer.Name, e.Inner.Name, where)
	if e.Rel == "." {
		return remove
	}
	pattern := vault.FolderPattern(e.Rel)
	if e.inFile {
		return fmt.Sprintf("%s, or leave the inner folder out of %q: add %q to its exclude list in %s", remove, e.Outer.Name, pattern, e.file)
	}
	file := "a config file (`jarvis help config` says where it goes)"
	if e.file != "" {
		file = e.file
	}
	return fmt.Sprintf("%s, or leave the inner folder out of %q: list it in %s with path %s and exclude [%q]",
		remove, e.Outer.Name, file, e.Outer.Path, pattern)
}

func (e *OverlapError) Error() string {
	return e.Detail() + ": " + e.Fix()
}

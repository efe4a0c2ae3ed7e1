package index

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/jarvis-mcp/jarvis/internal/vault"
	"github.com/jarvis-mcp/jarvis/internal/words"
)

// ProblemKind is the kind of a problem an index run met with one file,
// told from its warning (kindOf).
type ProblemKind int

// The kinds of problem, in the order messages say them.
const (
	// Unreadable: the file or folder could not be read; what was
	// indexed there is kept as last read, or only its name is.
	Unreadable ProblemKind = iota
	// BadFrontmatter: the note's frontmatter is not valid YAML, so its
	// properties, tags and aliases are missing.
	BadFrontmatter
	// NotUTF8: the note is not valid UTF-8; the invalid bytes were
	// replaced.
	NotUTF8
	// OtherProblem: any other problem with a note that is indexed (too
	// large, too complex, too many links).
	OtherProblem
	// Skipped: the scan left the file out with a warning (a symbolic link
	// out of the vault or broken, a path too long): it is not indexed.
	Skipped
	problemKinds
)

// kindOf tells the kind of a warning from its message and whether it
// belongs to a file the index holds (a scan warning belongs to none). It
// is the one rule by which the index summary and doctor's warnings check
// count problems.
func kindOf(message string, indexed bool) ProblemKind {
	switch {
	case strings.HasPrefix(message, vault.CannotRead):
		return Unreadable
	case !indexed:
		return Skipped
	case strings.HasPrefix(message, vault.WarnFrontmatter):
		return BadFrontmatter
	case strings.HasPrefix(message, vault.WarnNotUTF8):
		return NotUTF8
	}
	return OtherProblem
}

// Problem is one warning of the warnings table.
type Problem struct {
	Path, Message string
	Kind          ProblemKind
	// indexed is set when the warning is of a file the index holds; a
	// scan's warning is of a path it left out or could not read.
	indexed bool
}

// Problems are the warnings the index holds of one vault, by path.
type Problems []Problem

// readProblems reads the warnings the index holds of the vault named.
// The index summary and doctor's warnings check both count them here.
func readProblems(ctx context.Context, db Querier, vaultName string) (Problems, error) {
	rows, err := db.QueryContext(ctx, `SELECT w.path, w.message, w.file_id IS NOT NULL FROM warnings w
		JOIN vaults v ON v.id = w.vault_id WHERE v.name = ? ORDER BY w.path, w.rowid`, vaultName)
	if err != nil {
		return nil, fmt.Errorf("read warnings: %w", err)
	}
	defer rows.Close()
	var out Problems
	for rows.Next() {
		var p Problem
		if err := rows.Scan(&p.Path, &p.Message, &p.indexed); err != nil {
			return nil, fmt.Errorf("read warnings: %w", err)
		}
		p.Kind = kindOf(p.Message, p.indexed)
		out = append(out, p)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("read warnings: %w", err)
	}
	return out, nil
}

// ProblemCounts counts the paths with a problem: those indexed with one
// (a note that cannot be read is indexed by name, or as last read), those
// skipped, not indexed, and the files or folders the scan could not read,
// whose notes are kept as last read.
type ProblemCounts struct {
	Indexed, Skipped, Unread int
}

// Counts counts the paths of p, each once, by the first of its warnings:
// the index records a file's scan warning or its own, never both.
func (p Problems) Counts() ProblemCounts {
	var c ProblemCounts
	seen := map[string]bool{}
	for _, pr := range p {
		if seen[pr.Path] {
			continue
		}
		seen[pr.Path] = true
		switch {
		case pr.indexed:
			c.Indexed++
		case pr.Kind == Skipped:
			c.Skipped++
		default:
			c.Unread++
		}
	}
	return c
}

// None reports whether c counts nothing.
func (c ProblemCounts) None() bool { return c.Indexed+c.Skipped+c.Unread == 0 }

// Words says c as the index summary and doctor say it: "4 files indexed
// with a problem, 1 skipped"; "" for none. The first count names its
// noun, the others share it.
func (c ProblemCounts) Words() string {
	var said []string
	for _, k := range []struct {
		n                 int
		one, many, shared string
	}{
		{c.Indexed, "file indexed with a problem", "files indexed with a problem", "indexed with a problem"},
		{c.Skipped, "file skipped", "files skipped", "skipped"},
		{c.Unread, "file or folder not read", "files or folders not read", "not read"},
	} {
		switch {
		case k.n == 0:
		case len(said) == 0:
			said = append(said, words.CountAs(k.n, k.one, k.many))
		default:
			said = append(said, fmt.Sprintf("%d %s", k.n, k.shared))
		}
	}
	return strings.Join(said, ", ")
}

// namesShown is how many paths of one kind a message names before it
// says how many more there are.
const namesShown = 3

// kindWords are what each kind says of its count: "1 cannot be read",
// "2 have invalid frontmatter".
var kindWords = [problemKinds]struct{ one, many string }{
	Unreadable:     {"cannot be read", "cannot be read"},
	BadFrontmatter: {"has invalid frontmatter", "have invalid frontmatter"},
	NotUTF8:        {"is not UTF-8", "are not UTF-8"},
	OtherProblem:   {"has another problem", "have other problems"},
	Skipped:        {"was skipped", "were skipped"},
}

// detail is what a problem's message adds to its kind, for a list of
// names: the reason a read failed, the line of bad frontmatter.
func (pr Problem) detail() string {
	m := pr.Message
	switch pr.Kind {
	case Unreadable:
		m = strings.TrimSuffix(strings.TrimPrefix(m, vault.CannotRead), vault.KeptAsRead)
	case BadFrontmatter:
		m = strings.TrimPrefix(strings.TrimPrefix(m, vault.WarnFrontmatter), ": ")
	case NotUTF8:
		m = ""
	case Skipped:
		m = strings.TrimSuffix(m, " skipped")
	}
	return m
}

// Words says every kind of problem in p with the paths that have it, at
// most namesShown of each and how many more: "1 cannot be read:
// Secret.md (permission denied); 2 have invalid frontmatter: a.md (line
// 2: ...) and b.md; 1 was skipped: link.md (symbolic link to outside the
// vault skipped)".
func (p Problems) Words() string {
	var byKind [problemKinds][]Problem
	seen := map[Problem]bool{}
	for _, pr := range p {
		if key := (Problem{Path: pr.Path, Kind: pr.Kind}); !seen[key] {
			seen[key] = true
			byKind[pr.Kind] = append(byKind[pr.Kind], pr)
		}
	}
	var said []string
	for k, prs := range byKind {
		if len(prs) == 0 {
			continue
		}
		var names []string
		for _, pr := range prs[:min(len(prs), namesShown)] {
			name := pr.Path
			if d := pr.detail(); d != "" {
				name += " (" + d + ")"
			}
			names = append(names, name)
		}
		if more := len(prs) - len(names); more > 0 {
			names = append(names, fmt.Sprintf("%d more", more))
		}
		w := kindWords[k]
		said = append(said, fmt.Sprintf("%d %s: %s", len(prs), words.Agree(len(prs), w.one, w.many), words.List(names)))
	}
	return strings.Join(said, "; ")
}

// Paths are the paths of p with a problem of kind k, each once, in
// order.
func (p Problems) Paths(k ProblemKind) []string {
	var out []string
	for _, pr := range p {
		if pr.Kind == k && !slices.Contains(out, pr.Path) {
			out = append(out, pr.Path)
		}
	}
	return out
}

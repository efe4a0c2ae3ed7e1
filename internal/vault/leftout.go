package vault

import (
	"errors"
	"fmt"
	"path"
	"strconv"
	"strings"
)

// RuleKind is which of the vault's rules leaves a path out of jarvis.
type RuleKind int

// The rules that leave a path out (KeptOut), in the order KeptOut asks.
const (
	// RuleTooLong is a path longer than MaxPathChars.
	RuleTooLong RuleKind = iota + 1
	// RuleHidden is a file or folder whose name starts with a dot.
	RuleHidden
	// RuleNodeModules is a node_modules folder.
	RuleNodeModules
	// RuleExclude is an exclude pattern of the config file.
	RuleExclude
	// RuleObsidian is a filter of Obsidian's excluded files setting
	// (AppSettingsFile).
	RuleObsidian
	// RuleUp is a path that climbs above the vault folder with "..".
	RuleUp
)

// Rule is the one rule that leaves a path out of a vault, as LeftOutBy
// finds it, so that every message that refuses a path names that rule
// rather than listing every rule there is.
type Rule struct {
	Kind RuleKind
	// Path is the vault-relative path of the file or folder the rule
	// applies to: the path itself, or the folder above it that is left
	// out.
	Path string
	// Dir is true when Path is a folder.
	Dir bool
	// Pattern is the exclude pattern as the config file writes it, or
	// the filter as Obsidian's settings write it (RuleExclude and
	// RuleObsidian).
	Pattern string
}

// String says the rule for a user, as the object of "because of":
// `Obsidian's excluded files ("Archive/", in .obsidian/app.json)`, `the
// vault's exclude pattern "Drafts/**" (in the config file)`, `the hidden
// folder ".trash" (its name starts with a dot)`, `the node_modules folder
// "web/node_modules"`, `a path longer than 1000 characters`.
func (r Rule) String() string {
	kind := "file"
	if r.Dir {
		kind = "folder"
	}
	switch r.Kind {
	case RuleTooLong:
		return fmt.Sprintf("a path longer than %d characters", MaxPathChars)
	case RuleHidden:
		return fmt.Sprintf("the hidden %s %s (its name starts with a dot)", kind, strconv.Quote(r.Path))
	case RuleNodeModules:
		return fmt.Sprintf("the node_modules folder %s", strconv.Quote(r.Path))
	case RuleExclude:
		return fmt.Sprintf("the vault's exclude pattern %s (in the config file)", strconv.Quote(r.Pattern))
	case RuleObsidian:
		return fmt.Sprintf("Obsidian's excluded files (%s, in %s)", strconv.Quote(r.Pattern), AppSettingsFile)
	case RuleUp:
		return `a ".." that climbs above the vault folder`
	}
	return "the vault's rules"
}

// keptOutBy is KeptOut with the rule that applies.
func keptOutBy(rel string, dir bool, patterns []string) (Rule, bool) {
	if tooLong(rel) {
		return Rule{Kind: RuleTooLong, Path: rel, Dir: dir}, true
	}
	name := path.Base(rel)
	switch {
	case strings.HasPrefix(name, "."):
		return Rule{Kind: RuleHidden, Path: rel, Dir: dir}, true
	case dir && SkipDir(name):
		return Rule{Kind: RuleNodeModules, Path: rel, Dir: dir}, true
	}
	pat, ok := excludedBy(rel, dir, patterns)
	if !ok {
		return Rule{}, false
	}
	if filter, isObsidian := ObsidianFilter(pat); isObsidian {
		return Rule{Kind: RuleObsidian, Path: rel, Dir: dir, Pattern: filter}, true
	}
	return Rule{Kind: RuleExclude, Path: rel, Dir: dir, Pattern: pat}, true
}

// LeftOutBy is LeftOut with the rule that leaves rel out: that of the
// first folder from the top, or of the file itself, that is left out.
func LeftOutBy(rel string, patterns []string) (Rule, bool) {
	parts := strings.Split(path.Clean(strings.ReplaceAll(rel, `\`, "/")), "/")
	for i, part := range parts {
		if part == ".." {
			return Rule{Kind: RuleUp, Path: strings.Join(parts[:i+1], "/"), Dir: true}, true
		}
		if r, ok := keptOutBy(strings.Join(parts[:i+1], "/"), i < len(parts)-1, patterns); ok {
			return r, true
		}
	}
	return Rule{}, false
}

// LeftOutError is ErrLeftOut with the rule that applies, and where: Root
// returns it for a path its rules keep out, so that the caller can name
// the rule.
type LeftOutError struct {
	Rule Rule
	// Through is the vault-relative path a symbolic link on the path
	// asked for leads to, which the rule leaves out; "" when the rule
	// applies to the path asked for itself.
	Through string
}

// Why says, for a user, why the path is left out, to follow "is left
// out of jarvis": "because of Obsidian's excluded files (...)", or
// through a link, "because a symbolic link on it leads to "x.md", left
// out because of ...".
func (e *LeftOutError) Why() string {
	if e.Through != "" {
		return fmt.Sprintf("because a symbolic link on it leads to %s, which is left out because of %s", strconv.Quote(e.Through), e.Rule)
	}
	return "because of " + e.Rule.String()
}

func (e *LeftOutError) Error() string { return "the path is left out of jarvis " + e.Why() }

// Is makes a LeftOutError ErrLeftOut to callers that ask.
func (e *LeftOutError) Is(target error) bool { return target == ErrLeftOut }

// LeftOutWhy is Why of the LeftOutError in err, or, for an ErrLeftOut
// that names no rule, the vault's rules in general.
func LeftOutWhy(err error) string {
	var lo *LeftOutError
	if errors.As(err, &lo) {
		return lo.Why()
	}
	return "because of the vault's rules (its exclude patterns, Obsidian's excluded files, or a hidden name)"
}

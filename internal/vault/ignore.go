package vault

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"

	english "github.com/jarvis-mcp/jarvis/internal/words"
)

// AppSettingsFile is Obsidian's settings file in a vault, which holds its
// "Excluded files" (Settings → Files and links) as userIgnoreFilters.
const AppSettingsFile = ".obsidian/app.json"

// obsidianMark begins an exclude pattern made of a filter of Obsidian's
// excluded files (ObsidianPattern), so that the one list of exclude
// patterns a vault carries holds both, and KeptOut, through Excluded,
// applies both.
const obsidianMark = "obsidian:"

// ObsidianPattern is the exclude pattern that applies the filter of
// Obsidian's excluded files setting as Obsidian does (obsidianExcludes).
func ObsidianPattern(filter string) string { return obsidianMark + filter }

// ObsidianFilter is the filter of Obsidian's excluded files setting that
// the exclude pattern pat applies, and whether it is one.
func ObsidianFilter(pat string) (string, bool) { return strings.CutPrefix(pat, obsidianMark) }

// regexps holds the compiled regular expressions of Obsidian's filters,
// by filter: Excluded asks of every entry a scan meets.
var regexps sync.Map // string -> *regexp.Regexp, nil when it does not compile

// obsidianRegexp is the regular expression of a filter written as
// Obsidian writes one, between slashes ("/\.pdf$/"), and whether the
// filter is so written; the expression is nil when it does not compile.
func obsidianRegexp(filter string) (*regexp.Regexp, bool) {
	if len(filter) <= 2 || !strings.HasPrefix(filter, "/") || !strings.HasSuffix(filter, "/") {
		return nil, false
	}
	if re, ok := regexps.Load(filter); ok {
		return re.(*regexp.Regexp), true
	}
	re, err := regexp.Compile(filter[1 : len(filter)-1])
	if err != nil {
		re = nil
	}
	regexps.Store(filter, re)
	return re, true
}

// obsidianExcludes reports whether Obsidian's excluded files filter
// leaves out the entry at the vault-relative path rel, a folder when dir
// is true. The rule is Obsidian's own (its metadata cache's
// isUserIgnored): a filter written between slashes, such as "/\.pdf$/",
// is a regular expression looked for anywhere in a file's path; any other
// filter is a prefix of the path, so that "Templates/" leaves out all
// beneath the folder Templates, and "Daily" also "Daily.md" and
// "Daily notes/". Two differences, each leaving out more, never less:
// the prefix is compared folded (FoldName), as Excluded compares a
// pattern, and a folder is left out whole once its path with a trailing
// "/" has the prefix, which every path beneath it then has. A regular
// expression is tried on files only (what it says of a folder says
// nothing of the files beneath), in Go's syntax, which takes the
// expressions Obsidian's users write but for look-around and
// back-references; one that does not compile leaves out nothing, and
// ObsidianExclude says so.
func obsidianExcludes(filter, rel string, dir bool) bool {
	if filter == "" {
		return false
	}
	if re, ok := obsidianRegexp(filter); ok {
		return !dir && re != nil && re.MatchString(rel)
	}
	if dir {
		rel += "/"
	}
	return strings.HasPrefix(FoldName(rel), FoldName(filter))
}

// ObsidianSetting is what ObsidianExclude read of a vault's excluded
// files setting.
type ObsidianSetting struct {
	// Patterns are the filters as exclude patterns (ObsidianPattern).
	Patterns []string
	// Problem says, for a user, what could not be taken; "" for none.
	Problem string
	// Unknown is true when the settings file is there but its filters
	// could not be taken (it cannot be read, or is not valid JSON): which
	// files Obsidian excludes is then unknown, which is not none.
	Unknown bool
	// Unreadable is true when it is so because the file, or the
	// .obsidian folder holding it, cannot be read.
	Unreadable bool
}

// ObsidianExclude reads the excluded files setting of the vault at dir
// (AppSettingsFile's userIgnoreFilters) as exclude patterns
// (ObsidianPattern), to be applied with the config's. A vault without the
// file or the setting has none. A file that cannot be read or is not
// valid JSON applies no filter and is Unknown; a filter that is not a
// regular expression jarvis can apply is left out and said.
func ObsidianExclude(dir string) ObsidianSetting {
	data, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(AppSettingsFile)))
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return ObsidianSetting{}
	case err != nil:
		return ObsidianSetting{Unknown: true, Unreadable: true,
			Problem: fmt.Sprintf("Obsidian's excluded files are unknown: %s cannot be read: %s", AppSettingsFile, ErrText(err))}
	}
	var settings struct {
		UserIgnoreFilters []string `json:"userIgnoreFilters"`
	}
	if err := json.Unmarshal(data, &settings); err != nil {
		return ObsidianSetting{Unknown: true,
			Problem: fmt.Sprintf("Obsidian's excluded files are unknown: %s is not valid: %s", AppSettingsFile, jsonWords(data, err))}
	}
	var patterns, bad []string
	for _, f := range settings.UserIgnoreFilters {
		if re, isRegexp := obsidianRegexp(f); isRegexp && re == nil {
			bad = append(bad, fmt.Sprintf("%q", f))
			continue
		}
		if f != "" {
			patterns = append(patterns, ObsidianPattern(f))
		}
	}
	var problem string
	switch len(bad) {
	case 0:
	case 1:
		problem = fmt.Sprintf("Obsidian's excluded files in %s hold a filter jarvis cannot apply as a regular expression, so it leaves out nothing: %s", AppSettingsFile, bad[0])
	default:
		problem = fmt.Sprintf("Obsidian's excluded files in %s hold %d filters jarvis cannot apply as regular expressions, so they leave out nothing: %s", AppSettingsFile, len(bad), strings.Join(bad, ", "))
	}
	return ObsidianSetting{Patterns: patterns, Problem: problem}
}

// jsonWords says what is wrong with a JSON text for a user: where it
// stops being valid, or which value is not of the kind Obsidian writes.
func jsonWords(data []byte, err error) string {
	if w, ok := english.JSONSyntax(data, err); ok {
		return "it stops being JSON at " + w
	}
	var typ *json.UnmarshalTypeError
	if errors.As(err, &typ) && typ.Field != "" {
		return fmt.Sprintf("userIgnoreFilters should be a list of text, and holds a %s", typ.Value)
	}
	if errors.As(err, &typ) {
		return fmt.Sprintf("it should hold settings, and holds a %s", typ.Value)
	}
	return err.Error()
}

// ExcludeWords says a vault's exclude patterns for a sentence, as the
// user wrote them, the config's apart from Obsidian's excluded files:
// `exclude pattern "Archive/**" and Obsidian's excluded files
// "Templates/"`, or `no exclude patterns`. Doctor's vault check and the
// refusal of rules that would let in what was left out both say them so.
func ExcludeWords(patterns []string) string {
	var config, obsidian []string
	for _, pat := range patterns {
		if f, ok := ObsidianFilter(pat); ok {
			obsidian = append(obsidian, f)
		} else {
			config = append(config, pat)
		}
	}
	var said []string
	if len(config) > 0 {
		said = append(said, english.Agree(len(config), "exclude pattern ", "exclude patterns ")+english.Quoted(config))
	}
	if len(obsidian) > 0 {
		said = append(said, "Obsidian's excluded files "+english.Quoted(obsidian))
	}
	if len(said) == 0 {
		return "no exclude patterns"
	}
	return english.List(said)
}

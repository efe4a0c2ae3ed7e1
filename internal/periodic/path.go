package periodic

import (
	"errors"
	"fmt"
	"path"
	"strings"
	"time"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"

	"github.com/jarvis-mcp/jarvis/internal/vault"
)

// ErrOutside is a note path that would lead out of the vault: a folder
// or format with a ".." part.
var ErrOutside = errors.New("leads outside the vault")

// Note is where the note of one period is, by the vault's settings.
type Note struct {
	Period Period
	Range  Range
	// Path is the note's vault-relative path, whether it exists or not.
	Path     string
	Settings Settings
}

// Locate is the note of period p that holds day, by settings s: the
// format applied to the first day of the period (the name Obsidian gives
// the note), in the settings' folder. A week starts on Monday when the
// format numbers weeks by ISO 8601 (W, GGGG), on Sunday otherwise.
func Locate(p Period, s Settings, day time.Time) (Note, error) {
	layout := ParseLayout(s.Format)
	r := p.Range(day, p == Weekly && layout.ISOWeeks())
	rel, err := NotePath(s.Folder, layout.Format(r.Start))
	if err != nil {
		return Note{}, err
	}
	return Note{Period: p, Range: r, Path: rel, Settings: s}, nil
}

// NotePath is the vault-relative path of the note named name in folder,
// as Obsidian makes it (normalizePath): backslashes are separators, empty
// parts and the slashes at either end go, the text is in composed Unicode,
// and ".md" is added unless the name ends in it. A path with a ".." part
// is ErrOutside, whatever it would lead to; one longer than vault paths
// may be is an error too.
func NotePath(folder, name string) (string, error) {
	if !strings.HasSuffix(name, ".md") {
		name += ".md"
	}
	joined := strings.NewReplacer(`\`, "/", "\u00a0", " ", "\u202f", " ").Replace(folder + "/" + name)
	var parts []string
	for _, part := range strings.Split(joined, "/") {
		switch part {
		case "":
			continue
		case "..":
			return "", fmt.Errorf("the path %s %w", quote(joined), ErrOutside)
		}
		if strings.ContainsRune(part, 0) {
			return "", fmt.Errorf("the path %s holds a NUL character, which no file name can", quote(joined))
		}
		parts = append(parts, part)
	}
	rel := norm.NFC.String(path.Join(parts...))
	if n := utf8.RuneCountInString(rel); n > vault.MaxPathChars {
		return "", fmt.Errorf("the path is %d characters long, more than the %d a vault path may be", n, vault.MaxPathChars)
	}
	return rel, nil
}

// FindByName is the first of paths (vault-relative, sorted) with the file
// name of want beneath folder ("" for the whole vault), other than want
// itself: where the daily notes plugin, which finds a period's note by its
// file name anywhere in the notes' folder, would find a note that is not
// at the path its settings give.
func FindByName(paths []string, folder, want string) (string, bool) {
	base := path.Base(want)
	folder = CleanFolder(folder)
	for _, p := range paths {
		if p == want || path.Base(p) != base {
			continue
		}
		if folder == "" || strings.HasPrefix(p, folder+"/") {
			return p, true
		}
	}
	return "", false
}

// CleanFolder is a folder setting as NotePath reads it: "/Daily\2026/"
// is "Daily/2026", and the vault folder is "".
func CleanFolder(folder string) string {
	var parts []string
	for _, part := range strings.Split(strings.ReplaceAll(folder, `\`, "/"), "/") {
		if part != "" {
			parts = append(parts, part)
		}
	}
	return norm.NFC.String(strings.Join(parts, "/"))
}

package write

import (
	"fmt"
	"path"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/jarvis-mcp/jarvis/internal/vault"
)

const (
	// maxNameBytes is the longest file or folder name the common file
	// systems take (NAME_MAX on Linux and macOS, 255 UTF-16 units on
	// Windows, which a name of 255 bytes never exceeds).
	maxNameBytes = 255
	// maxPathBytes bounds a vault-relative path in bytes, below macOS's
	// PATH_MAX once the vault folder is put before it.
	maxPathBytes = 1024
)

// example is the form a path is asked for in, in the reasons given.
const example = `such as "Projects/Plan.md"`

// CheckPath is the one rule of what may be written at the vault-relative
// path rel ('/' separators) in a vault with the exclude globs exclude. It
// returns nil or an error wrapping ErrNotWritable whose text says what is
// wrong and what to do instead: the path must be relative and clean (no
// "..", ".", empty or absolute parts), every name valid on Linux, macOS
// and Windows alike (no reserved name such as CON or LPT1, none of
// < > : " \ | ? * or control characters, no trailing dot or space, at most
// 255 bytes), the path at most 1,024 bytes and vault.MaxPathChars
// characters, no part hidden (a leading ".", which covers .obsidian,
// .trash and .git), not left out by the vault (vault.LeftOutBy, whose
// rule the reason names: its exclude globs, Obsidian's excluded files,
// node_modules), and the file a Markdown note (".md"): attachments
// are not written. It looks at the text alone; what is on disk (links,
// files in the way) is checked when the path is opened.
func CheckPath(rel string, exclude []string) error {
	if reason := pathProblem(rel, exclude); reason != "" {
		return fmt.Errorf("%w: %s", ErrNotWritable, reason)
	}
	return nil
}

// CheckSize is the bound on what a note may hold once written: the
// largest note the readers parse (vault.MaxNoteSize), so that every note
// written can be read back, indexed and undone.
func CheckSize(n int) error {
	if n > vault.MaxNoteSize {
		return fmt.Errorf("%w: the note would hold %s, over the %d MB a note may hold", ErrTooLarge, sizeText(int64(n)), vault.MaxNoteSize>>20)
	}
	return nil
}

// sizeText is n bytes in the unit a reader takes in at a glance.
func sizeText(n int64) string {
	if n >= 1<<20 {
		return fmt.Sprintf("%.1f MB", float64(n)/(1<<20))
	}
	return fmt.Sprintf("%d bytes", n)
}

func pathProblem(rel string, exclude []string) string {
	switch {
	case rel == "":
		return "no path was given; give the note's path in the vault, " + example
	case !utf8.ValidString(rel):
		return fmt.Sprintf("%q is not valid text (UTF-8); give the path as text, %s", rel, example)
	case strings.HasPrefix(rel, "/") || strings.HasPrefix(rel, `\`) || path.IsAbs(rel):
		return fmt.Sprintf("%q is an absolute path; give the path relative to the vault folder, %s", rel, example)
	case hasVolume(rel):
		return fmt.Sprintf("%q holds ':', which Windows reads as a drive (%s) and which Windows and macOS refuse in names; give the path relative to the vault folder without it, %s", rel, rel[:2], example)
	}
	parts := strings.Split(rel, "/")
	for _, p := range parts {
		if p == ".." {
			return fmt.Sprintf("%q climbs out of its folder with \"..\"; give the path from the vault folder down, %s", rel, example)
		}
	}
	for _, p := range parts {
		if p == "" || p == "." {
			return fmt.Sprintf("%q has an empty or \".\" part; write it as folder/name.md, %s", rel, example)
		}
	}
	for _, p := range parts {
		if reason := nameProblem(p); reason != "" {
			return reason
		}
	}
	if len(rel) > maxPathBytes || utf8.RuneCountInString(rel) > vault.MaxPathChars {
		return fmt.Sprintf("the path is longer than %d characters (or %d bytes); shorten its folders or name", vault.MaxPathChars, maxPathBytes)
	}
	if !vault.IsNote(rel) {
		if path.Ext(rel) == "" {
			return fmt.Sprintf("%q has no extension; a note's name ends in \".md\", as in %q", rel, rel+".md")
		}
		return fmt.Sprintf("%q is not a Markdown note (.md): only notes can be written, not attachments or other files", rel)
	}
	if rule, out := vault.LeftOutBy(rel, exclude); out {
		return fmt.Sprintf("%q is left out of the vault because of %s: jarvis does not write what it does not index; choose a path elsewhere", rel, rule)
	}
	return ""
}

// hasVolume reports a Windows drive ("C:") at the start of rel; its ":"
// is refused anyway, but the reason given is then the right one.
func hasVolume(rel string) bool {
	return len(rel) >= 2 && rel[1] == ':' && ('a' <= rel[0]|0x20 && rel[0]|0x20 <= 'z')
}

// nameProblem is what is wrong with one file or folder name of a path to
// write, or "".
func nameProblem(name string) string {
	if len(name) > maxNameBytes {
		return fmt.Sprintf("the name %q is longer than %d bytes, which file systems refuse; shorten it", shortened(name), maxNameBytes)
	}
	if strings.HasPrefix(name, ".") {
		switch name {
		case ".trash":
			return "notes in the vault's trash (.trash) cannot be written; write the note outside the trash"
		case vault.SettingsDir:
			return "Obsidian's settings folder (.obsidian) cannot be written"
		}
		return fmt.Sprintf("the name %q starts with \".\", which hides it from Obsidian and from jarvis; choose a name without a leading dot", name)
	}
	for _, r := range name {
		if strings.ContainsRune(`<>:"\|?*`, r) || unicode.IsControl(r) {
			return fmt.Sprintf("the name %q holds %q, which Windows or macOS refuse in file names; leave out < > : \" \\ | ? * and control characters", name, r)
		}
	}
	if strings.HasSuffix(name, ".") || strings.HasSuffix(name, " ") {
		return fmt.Sprintf("the name %q ends with a dot or a space, which Windows refuses; remove it", name)
	}
	if reserved(name) {
		return fmt.Sprintf("the name %q is reserved on Windows (CON, PRN, AUX, NUL, COM1 to COM9 and LPT1 to LPT9, with any extension); choose another name", name)
	}
	return ""
}

// reserved reports a name Windows keeps for a device whatever follows its
// first dot: "nul.md" and "Com1.notes.md" open devices, not files.
func reserved(name string) bool {
	stem, _, _ := strings.Cut(name, ".")
	stem = strings.ToUpper(strings.TrimRight(stem, " "))
	switch stem {
	case "CON", "PRN", "AUX", "NUL", "CONIN$", "CONOUT$":
		return true
	}
	if len(stem) >= 4 && (strings.HasPrefix(stem, "COM") || strings.HasPrefix(stem, "LPT")) {
		switch stem[3:] {
		case "1", "2", "3", "4", "5", "6", "7", "8", "9", "¹", "²", "³":
			return true
		}
	}
	return false
}

// shortened is a long name cut for a message, whole characters kept.
func shortened(name string) string {
	if len(name) <= 40 {
		return name
	}
	cut := 40
	for cut > 0 && !utf8.RuneStart(name[cut]) {
		cut--
	}
	return name[:cut] + "…"
}

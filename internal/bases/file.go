package bases

import (
	"path"
	"strings"
	"time"
)

// File is what an expression can learn about a file of the vault. The
// caller implements it over whatever holds the notes (the index, or the
// in-memory MemFile of tests).
type File interface {
	// Path is the file's path from the vault root, with its extension
	// ("Books/Dune.md").
	Path() string
	// Properties are the note's frontmatter as decoded from YAML or JSON:
	// strings, numbers, booleans, time.Time, []any and map[string]any.
	// Wikilink strings ("[[Note]]") become links, date strings dates.
	Properties() map[string]any
	// Size is the file's size in bytes.
	Size() int64
	// Created and Modified are the file's times.
	Created() time.Time
	Modified() time.Time
	// Tags are the note's tags from the body and the frontmatter, with or
	// without the leading "#".
	Tags() []string
	// Links are the targets of the note's internal links as written
	// ("Dune", "Books/Dune#Plot"), frontmatter links included.
	Links() []string
	// Embeds are the targets of the note's embeds (![[...]]).
	Embeds() []string
	// Backlinks are the paths of the files that link to this one.
	Backlinks() []string
}

// Resolver finds the file a link target points to, for a link written in
// the note at path from. It is how links compare equal to files.
type Resolver func(from, target string) (File, bool)

// MemFile is a File held in memory, for tests and for callers that build
// notes by hand.
type MemFile struct {
	FilePath   string
	Props      map[string]any
	FileSize   int64
	Ctime      time.Time
	Mtime      time.Time
	TagList    []string
	LinkList   []string
	EmbedList  []string
	BacklinkOf []string
}

func (f *MemFile) Path() string               { return f.FilePath }
func (f *MemFile) Properties() map[string]any { return f.Props }
func (f *MemFile) Size() int64                { return f.FileSize }
func (f *MemFile) Created() time.Time         { return f.Ctime }
func (f *MemFile) Modified() time.Time        { return f.Mtime }
func (f *MemFile) Tags() []string             { return f.TagList }
func (f *MemFile) Links() []string            { return f.LinkList }
func (f *MemFile) Embeds() []string           { return f.EmbedList }
func (f *MemFile) Backlinks() []string        { return f.BacklinkOf }

// MemVault is a set of MemFiles with a simple resolver: a target matches a
// file by its path, its path without ".md", or its name without ".md" when
// only one file has that name. (The real rules live in internal/vault; this
// is enough for tests.)
type MemVault struct {
	Files []*MemFile
}

// Resolve implements Resolver over the vault's files.
func (v *MemVault) Resolve(from, target string) (File, bool) {
	t := strings.ToLower(linkPath(target))
	var byName []*MemFile
	for _, f := range v.Files {
		p := strings.ToLower(f.FilePath)
		if p == t || strings.TrimSuffix(p, ".md") == t {
			return f, true
		}
		if strings.TrimSuffix(path.Base(p), ".md") == t {
			byName = append(byName, f)
		}
	}
	if len(byName) == 1 {
		return byName[0], true
	}
	return nil, false
}

// linkPath is the part of a link target that names a file: without the
// heading or block after "#" and without the display text after "|".
func linkPath(target string) string {
	if i := strings.IndexByte(target, '|'); i >= 0 {
		target = target[:i]
	}
	if i := strings.IndexByte(target, '#'); i >= 0 {
		target = target[:i]
	}
	return strings.TrimSpace(target)
}

// parseLink reads a link from text: "[[Target|Display]]", "![[Target]]",
// "[Display](Target)" or a bare target.
func parseLink(s, from string) Link {
	s = strings.TrimSpace(s)
	s = strings.TrimPrefix(s, "!")
	if strings.HasPrefix(s, "[[") && strings.HasSuffix(s, "]]") {
		inner := s[2 : len(s)-2]
		target, display, _ := strings.Cut(inner, "|")
		return Link{Target: strings.TrimSpace(target), Display: display, From: from}
	}
	if strings.HasPrefix(s, "[") && strings.HasSuffix(s, ")") {
		if i := strings.Index(s, "]("); i > 0 {
			return Link{Target: s[i+2 : len(s)-1], Display: s[1:i], From: from}
		}
	}
	return Link{Target: s, From: from}
}

// isWikilink says whether a frontmatter string is a single wikilink, which
// Obsidian reads as a link rather than as text.
func isWikilink(s string) bool {
	s = strings.TrimSpace(s)
	return strings.HasPrefix(s, "[[") && strings.HasSuffix(s, "]]") && !strings.Contains(s[2:len(s)-2], "]]")
}

// isExternal says whether a link target is a URL rather than a note.
func isExternal(target string) bool {
	i := strings.Index(target, "://")
	return i > 0 && !strings.ContainsAny(target[:i], "/ #|")
}

package vault

import (
	"strings"

	"golang.org/x/text/unicode/norm"
)

// FoldName is a name as names are compared: in Unicode's composed form
// (NFC) and lower case. A name typed on one system and a file name written
// by another can differ in form alone: macOS has long written "é" as "e"
// and a combining accent (NFD), while keyboards produce the composed "é".
func FoldName(s string) string {
	return strings.ToLower(norm.NFC.String(s))
}

// NameForms are the ways a vault-relative path may be written on disk: as
// given, composed (NFC) and decomposed (NFD), without repeats. A lookup by
// exact file name tries each.
func NameForms(s string) []string {
	forms := []string{s}
	for _, f := range []norm.Form{norm.NFC, norm.NFD} {
		if v := f.String(s); v != s && (len(forms) == 1 || forms[1] != v) {
			forms = append(forms, v)
		}
	}
	return forms
}

// PathForms are the paths a file named by p may have on disk: each of
// NameForms, as written and with ".md" added. A lookup by exact path tries
// each, in that order.
func PathForms(p string) []string {
	var out []string
	for _, f := range NameForms(p) {
		out = append(out, f, f+".md")
	}
	return out
}

// NameKey is the key a file is found by when a link gives only its name:
// its file name, without ".md" for a note, folded.
func NameKey(p string) string {
	return FoldName(TitleFromPath(p))
}

// TitleBeside is the title to show beside the path p of a note titled
// title: the title when it is not the file name (a note named by a
// timestamp id with a title in its frontmatter), else "". Lists that show
// paths (the CLI's search and related) and the display text of a proposed
// link follow it.
func TitleBeside(p, title string) string {
	title = strings.TrimSpace(title)
	if title == "" || FoldName(title) == NameKey(p) {
		return ""
	}
	return title
}

// AliasKey is the key a note is found by through one of its aliases.
func AliasKey(alias string) string {
	return FoldName(strings.TrimSpace(alias))
}

// TagKey is the key a tag is compared by, wherever tags are compared: the
// search filter, over the index (tags.fold holds it) and over the files,
// and the tags related notes share. The tag is as notes store it, without
// "#". Tags that differ in case alone are one tag, as in Obsidian, and so
// are tags that differ in Unicode form alone: "#Été", "#ÉTÉ" and a
// decomposed "#été" share a key. Case is folded as names are, letter by
// letter: "ẞ" is "ß", while "SS" stays another tag than "ß", as in Obsidian.
func TagKey(tag string) string {
	return FoldName(tag)
}

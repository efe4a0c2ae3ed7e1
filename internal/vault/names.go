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

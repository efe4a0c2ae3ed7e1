package store

import "strings"

// likeEscaper puts a backslash before each character LIKE would read as
// a wildcard, and before the backslash itself.
var likeEscaper = strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`)

// EscapeLike makes s match itself in a LIKE pattern written with
// ESCAPE '\': "50%_off" matches that text, not "50 percent off". Put
// wildcards around the escaped text, never inside it.
func EscapeLike(s string) string {
	return likeEscaper.Replace(s)
}

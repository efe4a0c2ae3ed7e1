package store

import "strings"

// Placeholders returns "?, ?, ?" for n parameters, for an IN list; "" when
// n is 0.
func Placeholders(n int) string {
	if n <= 0 {
		return ""
	}
	return "?" + strings.Repeat(", ?", n-1)
}

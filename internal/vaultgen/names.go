package vaultgen

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// validName reports whether name can be a file or folder name on Linux,
// macOS and Windows alike, and be linked from Obsidian without escaping.
// Combining marks are refused so that no name changes under Unicode
// normalization (macOS file systems normalize, Linux ones do not).
func validName(name string) bool {
	if name == "" || len(name) > 200 || !utf8.ValidString(name) {
		return false
	}
	if strings.HasSuffix(name, ".") || strings.HasSuffix(name, " ") || strings.HasPrefix(name, " ") {
		return false
	}
	for _, c := range name {
		if c < 0x20 || c == 0x7f || unicode.Is(unicode.Mn, c) {
			return false
		}
		// Forbidden on Windows, or special inside an Obsidian link.
		if strings.ContainsRune(`<>:"/\|?*#^[]%`, c) {
			return false
		}
	}
	return !windowsReserved(name)
}

// windowsReserved reports names Windows refuses whatever their extension:
// CON, PRN, AUX, NUL, COM1-9 and LPT1-9.
func windowsReserved(name string) bool {
	base, _, _ := strings.Cut(name, ".")
	base = strings.ToUpper(strings.TrimRight(base, " "))
	switch base {
	case "CON", "PRN", "AUX", "NUL":
		return true
	}
	if len(base) == 4 && (strings.HasPrefix(base, "COM") || strings.HasPrefix(base, "LPT")) {
		return base[3] >= '1' && base[3] <= '9'
	}
	return false
}

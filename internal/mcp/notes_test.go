package mcp

import (
	"strings"
	"testing"

	"github.com/jarvis-mcp/jarvis/internal/vault"
)

// TestSectionByHeadingPath: a heading that occurs twice is told apart by
// the path above it, as search results give it.
func TestSectionByHeadingPath(t *testing.T) {
	text := "# Desktop\n## Settings\ndesktop settings\n# Mobile\n## Settings\nmobile settings\n"
	headings := []vault.Heading{{Level: 1, Text: "Desktop", Line: 1}, {Level: 2, Text: "Settings", Line: 2},
		{Level: 1, Text: "Mobile", Line: 4}, {Level: 2, Text: "Settings", Line: 5}}
	for want, body := range map[string]string{
		"Settings":           "desktop settings", // the first when nothing tells them apart
		"Mobile > Settings":  "mobile settings",
		"Desktop > Settings": "desktop settings",
		"mobile":             "mobile settings",
	} {
		got, err := section(text, headings, want)
		if err != nil || !strings.Contains(got, body) {
			t.Errorf("section %q = %q, %v; want the one holding %q", want, got, err, body)
		}
	}
}

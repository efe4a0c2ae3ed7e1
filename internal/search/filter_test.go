package search

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/jarvis-mcp/jarvis/internal/config"
	"github.com/jarvis-mcp/jarvis/internal/search/notes"
)

// TestTagRules holds the index, in every mode, and the file scan to one
// tag rule (vault.TagKey): the same notes for the same filter, without
// regard to case or Unicode form, a nested tag under its parent.
func TestTagRules(t *testing.T) {
	const nfd = "e\u0301te\u0301" // "été" as macOS writes it
	dir := t.TempDir()
	for name, head := range map[string]string{
		"Summer.md":      "#Été",
		"Beach.md":       "---\ntags: [ÉTÉ/Plage]\n---",
		"Evening.md":     "#" + nfd + "/soir",
		"Plain.md":       "#ete",
		"Street.md":      "#Straße",
		"Shout.md":       "#STRASSE",
		"Cyrillic.md":    "#Тег",
		"Longer.md":      "#étéx",
		"Untagged.md":    "",
		"Frontmatter.md": "---\ntags: été\n---",
	} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(head+"\n\nA day in the sun.\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	v := config.Vault{Name: "v", Path: dir}
	svc, _ := indexedService(t, v)
	summer := []string{"Beach.md", "Evening.md", "Frontmatter.md", "Summer.md"}
	for _, tc := range []struct {
		tag  string
		want []string
	}{
		{"été", summer},
		{"Été", summer},
		{"ÉTÉ", summer},
		{"#été", summer},
		{" #ÉTÉ ", summer},
		{nfd, summer},
		{"été/plage", []string{"Beach.md"}},
		{"ÉTÉ/PLAGE", []string{"Beach.md"}},
		{nfd + "/SOIR", []string{"Evening.md"}},
		{"ét", nil},
		{"ete", []string{"Plain.md"}},
		{"straße", []string{"Street.md"}},
		{"STRAẞE", []string{"Street.md"}},
		{"STRASSE", []string{"Shout.md"}},
		{"strasse", []string{"Shout.md"}},
		{"тег", []string{"Cyrillic.md"}},
		{"ТЕГ", []string{"Cyrillic.md"}},
	} {
		f := notes.Filter{Vaults: []string{"v"}, Tag: tc.tag}
		scan, err := scanFiles(context.Background(), []config.Vault{v}, "sun", f, 50, true)
		if err != nil {
			t.Fatal(err)
		}
		if got := resultPaths(scan); !sameSet(got, tc.want) {
			t.Errorf("file scan, tag %q: %v; want %v", tc.tag, got, tc.want)
		}
		for _, mode := range allModes {
			a, err := svc.Search(context.Background(), Query{Mode: mode, Text: "sun", Limit: 50, Filter: f})
			if err != nil {
				t.Fatalf("%s %q: %v", mode, tc.tag, err)
			}
			if got := resultPaths(a.Results); !sameSet(got, resultPaths(scan)) || a.Degraded {
				t.Errorf("%s, tag %q: %v (degraded %q); the file scan finds %v", mode, tc.tag, got, a.Reason, resultPaths(scan))
			}
		}
	}
}

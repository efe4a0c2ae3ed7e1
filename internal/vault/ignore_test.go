package vault

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestObsidianFiltersLeaveOutAsObsidianDoes: a filter of Obsidian's
// excluded files is a path prefix, or a regular expression between
// slashes tried on a file's path; the scans and every read by path leave
// out what it matches, through KeptOut.
func TestObsidianFiltersLeaveOutAsObsidianDoes(t *testing.T) {
	pats := []string{ObsidianPattern("Templates/"), ObsidianPattern("Daily"), ObsidianPattern(`/\.pdf$/`), ObsidianPattern("/(/")}
	for _, tt := range []struct {
		rel  string
		want bool
	}{
		{"Templates/Daily template.md", true},
		{"templates/x.md", true}, // folded, as the config's patterns are
		{"Templates.md", false},  // "Templates/" is a prefix with its slash
		{"Notes/Templates/x.md", false},
		{"Daily.md", true},
		{"Daily notes/2024-01-01.md", true},
		{"Journal/Daily.md", false}, // a prefix of the whole path
		{"Papers/a.pdf", true},
		{"Papers/a.pdf.md", false},
		{"Ideas.md", false}, // the filter that does not compile leaves out nothing
	} {
		if got := LeftOut(tt.rel, pats); got != tt.want {
			t.Errorf("LeftOut(%q) = %v, want %v", tt.rel, got, tt.want)
		}
	}
	if !FolderLeftOut("Templates", pats) || !FolderLeftOut("Daily notes", pats) || FolderLeftOut("Papers", pats) {
		t.Error("a folder is left out whole only when every path beneath it has a prefix filter")
	}

	dir := t.TempDir()
	for _, f := range []string{"Templates/Daily template.md", "Papers/a.pdf", "Papers/b.md", "Daily.md", "Ideas.md"} {
		if err := os.MkdirAll(filepath.Join(dir, filepath.Dir(f)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, f), []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	files, _, err := Scan(t.Context(), dir, pats)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, f := range files {
		got = append(got, f.Path)
	}
	if strings.Join(got, ",") != "Ideas.md,Papers/b.md" {
		t.Errorf("scan lists %v", got)
	}
}

// TestObsidianExcludeReadsTheSetting: the setting is read from
// .obsidian/app.json; a vault without it has no filters and no problem; a
// broken file, or a filter that is no regular expression Go can apply, is
// said plainly.
func TestObsidianExcludeReadsTheSetting(t *testing.T) {
	for _, tt := range []struct {
		name, app string // app "" writes no file
		want      []string
		problem   string
	}{
		{"no file", "", nil, ""},
		{"no setting", `{"alwaysUpdateLinks": true}`, nil, ""},
		{"filters", `{"userIgnoreFilters": ["Templates/", "/\\.pdf$/", ""]}`, []string{"obsidian:Templates/", `obsidian:/\.pdf$/`}, ""},
		{"not JSON", `{"userIgnoreFilters": ["Templates/",}`, nil, "Obsidian's excluded files are unknown: .obsidian/app.json is not valid: it stops being JSON at line 1, column 37: a comma before '}'"},
		{"not a list", `{"userIgnoreFilters": "Templates/"}`, nil, "userIgnoreFilters should be a list of text, and holds a string"},
		{"bad regexp", `{"userIgnoreFilters": ["A/", "/(?=x)/"]}`, []string{"obsidian:A/"}, `a filter jarvis cannot apply as a regular expression, so it leaves out nothing: "/(?=x)/"`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			if tt.app != "" {
				if err := os.MkdirAll(filepath.Join(dir, ".obsidian"), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(filepath.Join(dir, ".obsidian", "app.json"), []byte(tt.app), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			set := ObsidianExclude(dir)
			got, problem := set.Patterns, set.Problem
			if strings.Join(got, "|") != strings.Join(tt.want, "|") {
				t.Errorf("patterns %q, want %q", got, tt.want)
			}
			if tt.problem == "" && problem != "" || !strings.Contains(problem, tt.problem) {
				t.Errorf("problem %q, want %q", problem, tt.problem)
			}
		})
	}
}

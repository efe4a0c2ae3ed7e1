package vault

import (
	"os"
	"path/filepath"
	"testing"
)

// TestWithin asks Within, and SameFolder through it, about folders as
// written, through symbolic links and not yet made.
func TestWithin(t *testing.T) {
	dir := t.TempDir()
	notes := filepath.Join(dir, "Notes")
	deep := filepath.Join(notes, "Work", "2024")
	if err := os.MkdirAll(deep, 0o755); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link")
	if err := os.Symlink(filepath.Join(notes, "Work"), link); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name, inner, outer, rel string
		ok                      bool
	}{
		{"the same folder", notes, notes + string(filepath.Separator), ".", true},
		{"a folder two levels down", deep, notes, "Work/2024", true},
		{"the outer inside the inner", notes, deep, "", false},
		{"a neighbour whose name begins the same", notes + "2", notes, "", false},
		{"through a link to a folder inside", filepath.Join(link, "2024"), notes, "Work/2024", true},
		{"a link and its folder", link, filepath.Join(notes, "Work"), ".", true},
		{"the folder inside a link, against the link", deep, link, "2024", true},
		{"not made yet, inside", filepath.Join(dir, "later", "x"), filepath.Join(dir, "later"), "x", true},
		{"not made yet, beside", filepath.Join(dir, "later"), filepath.Join(dir, "sooner"), "", false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			rel, ok := Within(tt.inner, tt.outer)
			if rel != tt.rel || ok != tt.ok {
				t.Fatalf("Within(%s, %s) = %q, %v; want %q, %v", tt.inner, tt.outer, rel, ok, tt.rel, tt.ok)
			}
			if same := SameFolder(tt.inner, tt.outer); same != (ok && rel == ".") {
				t.Fatalf("SameFolder = %v, Within = %q, %v", same, rel, ok)
			}
		})
	}
}

// TestFolderPattern checks that the pattern leaves out the folder, with
// glob characters in its name taken as text, and nothing beside it.
func TestFolderPattern(t *testing.T) {
	for _, rel := range []string{"Work", "Projects/[2024] Work*", "a/{b,c}/d?"} {
		pat := FolderPattern(rel)
		if !FolderLeftOut(rel, []string{pat}) || !LeftOut(rel+"/note.md", []string{pat}) {
			t.Errorf("%q does not leave out %s", pat, rel)
		}
		if FolderLeftOut(rel+"x", []string{pat}) || FolderLeftOut(filepath.ToSlash(filepath.Dir(rel))+"/other", []string{pat}) {
			t.Errorf("%q leaves out more than %s", pat, rel)
		}
	}
	if !FolderLeftOut("Notes/.hidden/Deep", nil) || FolderLeftOut("Notes/Deep", nil) || FolderLeftOut(".", nil) {
		t.Error("FolderLeftOut does not follow the rule for hidden folders")
	}
}

// TestRulesKeyKeepsPatternsAsWritten: the rules recorded for a vault keep
// the patterns as the user wrote them, for messages, and cover rules
// recorded before in Excluded's folded form alike.
func TestRulesKeyKeepsPatternsAsWritten(t *testing.T) {
	if got, want := RulesKey([]string{"Templates/", "templates", "", "Archive/**"}), `["Archive/**","Templates/"]`; got != want {
		t.Errorf("RulesKey = %s, want %s", got, want)
	}
	for _, tt := range []struct {
		given, stored string
		want          bool
	}{
		{`["Templates/"]`, `["templates"]`, true},
		{`["templates"]`, `["Templates/"]`, true},
		{`["Templates/","Archive/**"]`, `["archive/**"]`, true},
		{`[]`, `["Templates/"]`, false},
		{`["Archive/**"]`, `["Templates/"]`, false},
	} {
		if got := RulesCover(tt.given, tt.stored); got != tt.want {
			t.Errorf("RulesCover(%s, %s) = %v, want %v", tt.given, tt.stored, got, tt.want)
		}
	}
}

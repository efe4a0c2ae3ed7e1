package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jarvis-mcp/jarvis/internal/sharedtest"
)

// TestObsidianExcludedFilesAreHonoured: the filters of Obsidian's
// excluded files setting (.obsidian/app.json) leave notes out of the
// index as the config's exclude does: doctor names them, a filter added
// later removes what it leaves out at the next run (said as now
// excluded), and one removed is refused, naming the filter as written.
func TestObsidianExcludedFilesAreHonoured(t *testing.T) {
	dir := t.TempDir()
	v := filepath.Join(dir, "v")
	sharedtest.WriteFile(t, v, "Note.md", "# Note\n")
	sharedtest.WriteFile(t, v, "Templates/Daily template.md", "---\ncreated: {{date}}\n---\n# Daily\n")
	sharedtest.WriteFile(t, v, "Archive/Old.md", "# Old\n")
	app := func(filters string) {
		t.Helper()
		sharedtest.WriteFile(t, v, ".obsidian/app.json", `{"userIgnoreFilters": [`+filters+`]}`)
	}
	app(`"Templates/"`)
	flags := []string{"--vault", v, "--db", filepath.Join(dir, "j.db"), "--no-embed"}

	code, stdout, stderr := jarvis(t, nil, append([]string{"index"}, flags...)...)
	if code != 0 {
		t.Fatalf("index: exit %d: %s", code, stderr)
	}
	if !strings.Contains(stdout, "notes: 2 added,") || strings.Contains(stdout, "with a problem") {
		t.Errorf("the template is indexed:\n%s", stdout)
	}
	_, stdout, _ = jarvis(t, nil, append([]string{"doctor"}, flags[:4]...)...)
	if !strings.Contains(stdout, `Obsidian's excluded files "Templates/"`) {
		t.Errorf("doctor does not say the excluded files:\n%s", stdout)
	}

	app(`"Templates/", "Archive"`)
	code, stdout, stderr = jarvis(t, nil, append([]string{"index"}, flags...)...)
	if code != 0 || !strings.Contains(stdout, "1 now excluded") || !strings.Contains(stdout, "  1 note, 1 passage\n") {
		t.Errorf("index after a filter was added: exit %d:\n%s%s", code, stdout, stderr)
	}

	app(`"Archive"`)
	code, _, stderr = jarvis(t, nil, append([]string{"index"}, flags...)...)
	if code != 2 || !strings.Contains(stderr, `Obsidian's excluded files "Archive" and "Templates/"`) {
		t.Errorf("index after a filter was removed: exit %d: %s", code, stderr)
	}

	if err := os.WriteFile(filepath.Join(v, ".obsidian", "app.json"), []byte(`{"userIgnoreFilters": ["Templates/",`), 0o644); err != nil {
		t.Fatal(err)
	}
	const broken = "Obsidian's excluded files are not applied: .obsidian/app.json is not valid"
	_, stdout, _ = jarvis(t, nil, append([]string{"doctor"}, flags[:4]...)...)
	if !strings.Contains(stdout, broken) {
		t.Errorf("doctor does not say app.json is broken:\n%s", stdout)
	}
	// The filters it held are no longer applied, so the run is refused;
	// it says why first.
	if code, _, stderr = jarvis(t, nil, append([]string{"index"}, flags...)...); code != 2 || !strings.Contains(stderr, `vault "v": `+broken) {
		t.Errorf("index with app.json broken: exit %d: %s", code, stderr)
	}
}

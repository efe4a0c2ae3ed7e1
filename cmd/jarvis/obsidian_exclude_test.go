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

	// Changing the filters in Obsidian is an everyday act: the index
	// follows, taking back what a removed filter let in.
	app(`"Archive"`)
	code, stdout, stderr = jarvis(t, nil, append([]string{"index"}, flags...)...)
	if code != 0 || !strings.Contains(stdout, "notes: 1 added,") || !strings.Contains(stdout, "  2 notes,") {
		t.Errorf("index after a filter was removed: exit %d:\n%s%s", code, stdout, stderr)
	}

	if err := os.WriteFile(filepath.Join(v, ".obsidian", "app.json"), []byte(`{"userIgnoreFilters": ["Templates/",`), 0o644); err != nil {
		t.Fatal(err)
	}
	const broken = "Obsidian's excluded files are unknown: .obsidian/app.json is not valid"
	_, stdout, _ = jarvis(t, nil, append([]string{"doctor"}, flags[:4]...)...)
	if !strings.Contains(stdout, broken) {
		t.Errorf("doctor does not say app.json is broken:\n%s", stdout)
	}
	// Which filters it holds is unknown, not none: the run is refused,
	// and says why first.
	if code, _, stderr = jarvis(t, nil, append([]string{"index"}, flags...)...); code != 1 || !strings.Contains(stderr, `vault "v": `+broken) ||
		!strings.Contains(stderr, "app.json is not valid now") || strings.Contains(stderr, "--forget") {
		t.Errorf("index with app.json broken: exit %d: %s", code, stderr)
	}
}

// TestObsidianSettingThatCannotBeReadIsNotNone: a vault indexed with
// Obsidian's excluded files whose settings file cannot be read is not
// indexed as if it had no filters (which would take in the notes kept
// out): index and search are refused, saying the file cannot be read,
// never offering --forget, and doctor reports the refusal. Once it can be
// read, the index runs again. (An app.json that is a folder cannot be
// read even by root, who may read a file of any mode.)
func TestObsidianSettingThatCannotBeReadIsNotNone(t *testing.T) {
	dir := t.TempDir()
	v := filepath.Join(dir, "v")
	sharedtest.WriteFile(t, v, "Note.md", "# Note\nplain words\n")
	sharedtest.WriteFile(t, v, "Meetings/Secret.md", "# Secret\nquarterly meeting\n")
	sharedtest.WriteFile(t, v, ".obsidian/app.json", `{"userIgnoreFilters": ["Meetings/"]}`)
	flags := []string{"--vault", v, "--db", filepath.Join(dir, "j.db")}
	mustIndex(t, nil, append(flags, "--no-embed")...)

	app := filepath.Join(v, ".obsidian", "app.json")
	if err := os.Remove(app); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(app, 0o755); err != nil {
		t.Fatal(err)
	}
	want := app + " cannot be read now"
	for _, cmd := range [][]string{{"index", "--no-embed"}, {"search", "meeting", "--mode", "keyword"}} {
		r := readCLI(t, nil, append(cmd, flags...)...)
		if r.code != 1 || !strings.Contains(r.stderr, want) || strings.Contains(r.stderr, "--forget") || strings.Contains(r.stdout, "Secret") {
			t.Errorf("%s with app.json unreadable: exit %d:\n%s%s", cmd[0], r.code, r.stdout, r.stderr)
		}
	}
	d := readCLI(t, nil, append([]string{"doctor"}, flags...)...)
	if !strings.Contains(d.stdout, "fail  index freshness v: index runs and searches are refused") || !strings.Contains(d.stdout, want) ||
		strings.Contains(d.stdout, "--forget") {
		t.Errorf("doctor with app.json unreadable:\n%s", d.stdout)
	}

	if err := os.Remove(app); err != nil {
		t.Fatal(err)
	}
	sharedtest.WriteFile(t, v, ".obsidian/app.json", `{"userIgnoreFilters": ["Meetings/"]}`)
	mustIndex(t, nil, append(flags, "--no-embed")...)
}

// TestObsidianSettingRemovedIsFollowed: .obsidian removed (the vault no
// longer opened in Obsidian, or its settings reset) leaves no filter, and
// the index takes in what they kept out, said by the summary; the
// config's own exclude patterns are still held to (a pattern dropped by a
// typo costs no index).
func TestObsidianSettingRemovedIsFollowed(t *testing.T) {
	dir := t.TempDir()
	v := filepath.Join(dir, "v")
	sharedtest.WriteFile(t, v, "Note.md", "# Note\n")
	sharedtest.WriteFile(t, v, "Meetings/Secret.md", "# Secret\n")
	sharedtest.WriteFile(t, v, ".obsidian/app.json", `{"userIgnoreFilters": ["Meetings/"]}`)
	flags := []string{"--vault", v, "--db", filepath.Join(dir, "j.db"), "--no-embed"}
	mustIndex(t, nil, flags...)
	if err := os.RemoveAll(filepath.Join(v, ".obsidian")); err != nil {
		t.Fatal(err)
	}
	r := readCLI(t, nil, append([]string{"index"}, flags...)...)
	if r.code != 0 || !strings.Contains(r.stdout, "notes: 1 added,") || !strings.Contains(r.stdout, "  2 notes,") {
		t.Errorf("index after .obsidian was removed: exit %d:\n%s%s", r.code, r.stdout, r.stderr)
	}
}

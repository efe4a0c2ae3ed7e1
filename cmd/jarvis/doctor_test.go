package main

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/jarvis-mcp/jarvis/internal/sharedtest"
)

// fixFor finds the result of doctor's plain output whose line contains
// name and returns the first command in backquotes of its fix line.
func fixFor(t *testing.T, stdout, name string) string {
	t.Helper()
	lines := strings.Split(stdout, "\n")
	for i, l := range lines {
		if !strings.Contains(l, name+":") || i+1 == len(lines) {
			continue
		}
		fix := strings.TrimSpace(lines[i+1])
		if !strings.HasPrefix(fix, "fix: ") {
			continue
		}
		if m := regexp.MustCompile("`([^`]*)`").FindStringSubmatch(fix); m != nil {
			return m[1]
		}
	}
	t.Fatalf("no fix with a command for %q in:\n%s", name, stdout)
	return ""
}

// shellWords splits a command line as a POSIX shell does for the quoting
// doctor prints: bare words, and single quotes, with a quote inside written
// as quote, backslash, quote, quote.
func shellWords(t *testing.T, s string) []string {
	t.Helper()
	var words []string
	var w strings.Builder
	inWord, quoted := false, false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case quoted && c == '\'':
			quoted = false
		case quoted:
			w.WriteByte(c)
		case c == '\'':
			quoted, inWord = true, true
		case c == '\\' && i+1 < len(s):
			i++
			w.WriteByte(s[i])
			inWord = true
		case c == ' ':
			if inWord {
				words = append(words, w.String())
				w.Reset()
				inWord = false
			}
		default:
			w.WriteByte(c)
			inWord = true
		}
	}
	if quoted {
		t.Fatalf("unbalanced quote in %q", s)
	}
	if inWord {
		words = append(words, w.String())
	}
	return words
}

// follow runs a jarvis command taken from a fix, in-process.
func follow(t *testing.T, command string) {
	t.Helper()
	args := shellWords(t, command)
	if len(args) < 2 || args[0] != "jarvis" {
		t.Fatalf("fix %q is not a jarvis command", command)
	}
	if code, _, stderr := jarvis(t, nil, args[1:]...); code != 0 {
		t.Fatalf("following %q: exit %d: %s", command, code, stderr)
	}
}

func assertHealthy(t *testing.T, args ...string) {
	t.Helper()
	code, stdout, _ := jarvis(t, nil, append([]string{"doctor"}, args...)...)
	if code != 0 || !strings.HasSuffix(strings.TrimSpace(stdout), "healthy") {
		t.Fatalf("doctor %v: exit %d:\n%s", args, code, stdout)
	}
}

// TestDoctorFixesWorkAsPrinted runs doctor with --vault and --db (paths with
// spaces and a quote), takes the command its fix prints, runs it, and
// expects doctor to be satisfied: a fix without the flags would index no
// vault, or the wrong database.
func TestDoctorFixesWorkAsPrinted(t *testing.T) {
	base := t.TempDir()
	vault := filepath.Join(base, "my vault's notes")
	sharedtest.WriteFile(t, vault, "A.md", "# A\n[[B]]\n")
	sharedtest.WriteFile(t, vault, "B.md", "# B\n")
	db := filepath.Join(base, "data dir", "j.db")

	code, stdout, _ := jarvis(t, nil, "doctor", "--vault", vault, "--db", db)
	if code != 1 {
		t.Fatalf("doctor before indexing: exit %d:\n%s", code, stdout)
	}
	fix := fixFor(t, stdout, "database")
	if !strings.Contains(fix, "--db") || !strings.Contains(fix, "--vault") {
		t.Fatalf("fix %q does not carry the flags", fix)
	}
	follow(t, fix)
	assertHealthy(t, "--vault", vault, "--db", db)
}

// TestDoctorSaysWhatItCouldNotCheck gives doctor a vault folder that does
// not exist beside one that does: the checks of the missing one say they
// were not made instead of passing, and once the folder is there, the fix
// doctor prints makes it healthy.
func TestDoctorSaysWhatItCouldNotCheck(t *testing.T) {
	base := t.TempDir()
	here := filepath.Join(base, "here")
	sharedtest.WriteFile(t, here, "A.md", "# A\n")
	missing := filepath.Join(base, "not yet")
	db := filepath.Join(base, "j.db")
	if code, _, stderr := jarvis(t, nil, "index", "--vault", here, "--db", db); code != 0 {
		t.Fatal(stderr)
	}
	args := []string{"--vault", here, "--vault", missing, "--db", db}

	code, stdout, _ := jarvis(t, nil, append([]string{"doctor"}, args...)...)
	if code != 2 {
		t.Fatalf("exit %d:\n%s", code, stdout)
	}
	for _, name := range []string{"index freshness not yet", "index warnings not yet", "unresolved links not yet", "heading links not yet"} {
		line := lineOf(t, stdout, name+":")
		if !strings.HasPrefix(line, "skip") || !strings.Contains(line, "not checked: "+missing+" does not exist") {
			t.Errorf("%s: %q", name, line)
		}
	}
	if line := lineOf(t, stdout, "unresolved links here:"); !strings.HasPrefix(line, "ok") {
		t.Errorf("the vault that exists: %q", line)
	}

	sharedtest.WriteFile(t, missing, "B.md", "# B\n")
	code, stdout, _ = jarvis(t, nil, append([]string{"doctor"}, args...)...)
	if code != 1 || !strings.Contains(lineOf(t, stdout, "unresolved links not yet:"), "is not in the index") {
		t.Fatalf("with the folder made: exit %d:\n%s", code, stdout)
	}
	follow(t, fixFor(t, stdout, "index freshness not yet"))
	assertHealthy(t, args...)
}

func lineOf(t *testing.T, stdout, part string) string {
	t.Helper()
	for _, l := range strings.Split(stdout, "\n") {
		if strings.Contains(l, part) {
			return l
		}
	}
	t.Fatalf("no line with %q in:\n%s", part, stdout)
	return ""
}

// TestDoctorCreatesNoFile runs doctor on sound, damaged and unusable
// databases and checks that their folder holds the same files afterwards:
// no -wal, -shm, -journal or .lock.
func TestDoctorCreatesNoFile(t *testing.T) {
	base := t.TempDir()
	vault := filepath.Join(base, "vault")
	sharedtest.WriteFile(t, vault, "A.md", "# A\n[[B]]\n")
	sound := filepath.Join(base, "sound", "j.db")
	if code, _, stderr := jarvis(t, nil, "index", "--vault", vault, "--db", sound, "--no-embed"); code != 0 {
		t.Fatal(stderr)
	}
	data, err := os.ReadFile(sound)
	if err != nil {
		t.Fatal(err)
	}
	put := func(name string, content []byte) string {
		p := filepath.Join(base, name, "j.db")
		sharedtest.WriteFile(t, filepath.Dir(p), "j.db", string(content))
		return p
	}
	damaged := slices.Clone(data)
	for i := 4096; i < len(damaged); i += 7 {
		damaged[i] ^= 0x5a
	}
	readOnly := put("read-only", data)
	dbs := map[string]string{
		"sound":          sound,
		"damaged":        put("damaged", damaged),
		"not a database": put("not a database", []byte("my notes")),
		"read-only":      readOnly,
	}
	os.Chmod(readOnly, 0o444)
	os.Chmod(filepath.Dir(readOnly), 0o555)
	defer os.Chmod(filepath.Dir(readOnly), 0o755)
	for name, db := range dbs {
		t.Run(name, func(t *testing.T) {
			before := names(t, filepath.Dir(db))
			jarvis(t, nil, "doctor", "--vault", vault, "--db", db)
			if after := names(t, filepath.Dir(db)); !slices.Equal(before, after) {
				t.Fatalf("folder held %v, holds %v after doctor", before, after)
			}
		})
	}
}

func names(t *testing.T, dir string) []string {
	t.Helper()
	es, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range es {
		out = append(out, e.Name())
	}
	return out
}

// TestDoctorOnAMistypedVault: with a vault folder that does not exist, the
// other vaults the database holds are named with their folders, as
// perhaps the one meant, and dropping them is not offered.
func TestDoctorOnAMistypedVault(t *testing.T) {
	garden := filepath.Join(t.TempDir(), "garden")
	os.Mkdir(garden, 0o755)
	os.WriteFile(filepath.Join(garden, "Note.md"), []byte("# Note\n"), 0o644)
	db := filepath.Join(t.TempDir(), "j.db")
	if code, _, stderr := jarvis(t, nil, "index", "--vault", garden, "--db", db, "--no-embed"); code != 0 {
		t.Fatalf("index: exit %d: %s", code, stderr)
	}
	missing := filepath.Join(t.TempDir(), "nonexistent")
	_, stdout, _ := jarvis(t, nil, "doctor", "--vault", missing, "--db", db)
	line := lineOf(t, stdout, "other vault garden:")
	if !strings.Contains(line, `holds vault "garden" from `+garden) || !strings.Contains(line, "perhaps it is the vault meant") || strings.Contains(stdout, "--forget") {
		t.Errorf("doctor with a missing vault:\n%s", stdout)
	}
}

// TestDoctorWarnsOfProblemsInNotes: a note indexed with a problem (its
// frontmatter not read) and a link to a heading its note does not have
// are problems found, not all clear: each is a warning with a fix, and
// doctor says degraded and exits 1.
func TestDoctorWarnsOfProblemsInNotes(t *testing.T) {
	v := filepath.Join(t.TempDir(), "bv")
	os.Mkdir(v, 0o755)
	os.WriteFile(filepath.Join(v, "Broken fm.md"), []byte("---\ntags: [a, b\n---\n# Broken\n"), 0o644)
	os.WriteFile(filepath.Join(v, "Target.md"), []byte("# Target\n## Here\n"), 0o644)
	os.WriteFile(filepath.Join(v, "Source.md"), []byte("See [[Target#Gone]].\n"), 0o644)
	db := filepath.Join(t.TempDir(), "j.db")
	if code, _, stderr := jarvis(t, nil, "index", "--vault", v, "--db", db); code != 0 {
		t.Fatalf("index: exit %d: %s", code, stderr)
	}
	code, stdout, _ := jarvis(t, nil, "doctor", "--vault", v, "--db", db)
	for _, name := range []string{"index warnings bv:", "heading links bv:"} {
		if line := lineOf(t, stdout, name); !strings.HasPrefix(line, "warn") {
			t.Errorf("%s\n%s", line, stdout)
		}
	}
	for _, fix := range []string{"fix: open the note named and correct its frontmatter", "fix: open the note at the line named", "1 link names a heading or block its note does not have"} {
		if !strings.Contains(stdout, fix) {
			t.Errorf("doctor does not say %q:\n%s", fix, stdout)
		}
	}
	if code != 1 || !strings.Contains(stdout, "degraded") {
		t.Errorf("exit %d, want 1 and degraded:\n%s", code, stdout)
	}
}

// TestDoctorNarrowedByVaultKeepsTheConfigFilesVaults: with a config file
// listing vaults "help" and "biz", `doctor --vault biz` said of help "not
// configured here", and offered a --forget that, pasted, dropped help's
// index (trial 17). A vault the config file lists is this configuration's
// (config.Config.Lists): doctor says --vault leaves it out of the run, and
// offers no --forget for it; an index run narrowed the same way that is
// told to forget it says the config file brings it back. A vault no
// config lists is still offered to be dropped.
func TestDoctorNarrowedByVaultKeepsTheConfigFilesVaults(t *testing.T) {
	dir := t.TempDir()
	help, biz, old := filepath.Join(dir, "help"), filepath.Join(dir, "biz"), filepath.Join(dir, "old")
	for _, v := range []string{help, biz, old} {
		os.Mkdir(v, 0o755)
		os.WriteFile(filepath.Join(v, "Note.md"), []byte("# Note\n\nSome words of "+filepath.Base(v)+".\n"), 0o644)
	}
	db := filepath.Join(dir, "j.db")
	if code, _, stderr := jarvis(t, nil, "index", "--vault", old, "--db", db, "--no-embed"); code != 0 {
		t.Fatalf("index old: exit %d: %s", code, stderr)
	}
	cfgFile := filepath.Join(dir, "config.yaml")
	os.WriteFile(cfgFile, []byte("database: "+db+"\nvaults:\n  - name: help\n    path: "+help+"\n  - name: biz\n    path: "+biz+"\n"), 0o644)
	if code, _, stderr := jarvis(t, nil, "index", "--config", cfgFile, "--no-embed"); code != 0 {
		t.Fatalf("index: exit %d: %s", code, stderr)
	}
	_, stdout, _ := jarvis(t, nil, "doctor", "--config", cfgFile, "--vault", "biz")
	line := lineOf(t, stdout, "other vault help:")
	if strings.Contains(line, "not configured") || strings.Contains(stdout, "--forget help") ||
		!strings.Contains(line, "which the config file "+cfgFile+" lists; --vault leaves it out of this run, so it is not checked here; doctor without --vault checks every vault the config file lists") {
		t.Errorf("doctor --vault biz of vault help, which the config file lists:\n%s", stdout)
	}
	if line := lineOf(t, stdout, "other vault old:"); !strings.Contains(line, "not configured here") || !strings.Contains(stdout, "--forget old") {
		t.Errorf("doctor --vault biz of vault old, which no config lists:\n%s", stdout)
	}
	// Told to, an index run narrowed to biz drops help, and says the
	// config file brings it back.
	code, _, stderr := jarvis(t, nil, "index", "--config", cfgFile, "--vault", "biz", "--no-embed", "--forget", "help")
	if code != 0 || !strings.Contains(stderr, `dropped vault "help" (1 note) from the index; the config file `+cfgFile+" lists it: the next run without --vault indexes it again") {
		t.Errorf("index --vault biz --forget help: exit %d:\n%s", code, stderr)
	}
}

package main

import (
	"bytes"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jarvis-mcp/jarvis/internal/index"
	"github.com/jarvis-mcp/jarvis/internal/sharedtest"
	"github.com/jarvis-mcp/jarvis/internal/store"
)

// TestTerminalLog checks the lines the logger of a command a person runs
// writes: a warning as one plain line, a record marked index.Reported not
// at all, and with --verbose both, as structured lines without the mark.
func TestTerminalLog(t *testing.T) {
	logAll := func(verbose bool) string {
		var b bytes.Buffer
		c := common{verbose: verbose}
		log := c.logger(&env{stderr: &b}).With("vault", "Work")
		log.Warn("stored vectors not kept; they are made again", "err", errors.New("disk is\nfull"), "path", "a b.md")
		log.WithGroup("run").Warn("note indexed with a problem", "path", "Broken fm.md", index.Reported)
		log.Info("index phases", "files", 2)
		log.Error("handler panicked", "method", "tools/call")
		return b.String()
	}
	got := logAll(false)
	want := "jarvis: warning: stored vectors not kept; they are made again: vault Work, path a b.md: disk is full\n" +
		"jarvis: error: handler panicked: vault Work, method tools/call\n"
	if got != want {
		t.Errorf("without --verbose:\n%s\nwant:\n%s", got, want)
	}
	got = logAll(true)
	for _, w := range []string{`level=WARN msg="stored vectors`, `msg="note indexed with a problem"`, `run.path="Broken fm.md"`, "level=INFO", "level=ERROR"} {
		if !strings.Contains(got, w) {
			t.Errorf("with --verbose, lacks %s:\n%s", w, got)
		}
	}
	if strings.Contains(got, "reported") {
		t.Errorf("with --verbose, shows the mark:\n%s", got)
	}
}

// vaultWithProblems is a vault holding a note whose frontmatter is broken
// and a symbolic link to a file outside the vault: two warnings the index
// summary counts.
func vaultWithProblems(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	vault := filepath.Join(dir, "vault")
	sharedtest.WriteFile(t, vault, "Broken fm.md", "---\ntags: [a, b\n---\n# Broken\n")
	sharedtest.WriteFile(t, vault, "Good.md", "# Good\n\nzephyr words [[Broken fm]]\n")
	sharedtest.WriteFile(t, dir, "outside.md", "# Outside\n")
	if err := os.Symlink(filepath.Join(dir, "outside.md"), filepath.Join(vault, "link.md")); err != nil {
		t.Fatal(err)
	}
	return vault
}

// TestIndexCountsWarningsOnce indexes a vault with a broken note and a
// symbolic link out of it: without --verbose the summary counts them and no
// log line lists them; with --verbose the details are there too.
func TestIndexCountsWarningsOnce(t *testing.T) {
	vault := vaultWithProblems(t)
	db := filepath.Join(t.TempDir(), "index.db")
	flags := []string{"--vault", vault, "--db", db, "--no-embed"}

	code, stdout, stderr := jarvis(t, nil, append([]string{"index"}, flags...)...)
	if code != 0 {
		t.Fatalf("index: exit %d: %s", code, stderr)
	}
	// The link out of the vault is skipped, not indexed.
	const counted = "1 file indexed with a problem, 1 skipped: run `jarvis doctor"
	if !strings.Contains(stdout, counted) {
		t.Errorf("the summary does not count the two problems apart:\n%s", stdout)
	}
	for _, w := range []string{"level=", "time=", "msg=", "Broken fm.md", "link.md"} {
		if strings.Contains(stderr, w) {
			t.Errorf("index without --verbose says %q:\n%s", w, stderr)
		}
	}

	// A fresh database: the note's problem is met again.
	flags[3] = filepath.Join(t.TempDir(), "index.db")
	code, stdout, stderr = jarvis(t, nil, append([]string{"index", "--verbose"}, flags...)...)
	if code != 0 {
		t.Fatalf("index --verbose: exit %d: %s", code, stderr)
	}
	if !strings.Contains(stdout, counted) {
		t.Errorf("with --verbose, the summary does not count the two problems:\n%s", stdout)
	}
	for _, w := range []string{"Broken fm.md", "link.md", "symbolic link"} {
		if !strings.Contains(stderr, w) {
			t.Errorf("index --verbose lacks %q:\n%s", w, stderr)
		}
	}
}

// TestSearchSaysDamageOnce searches a damaged database: the answer comes
// from the note files, and what happened to the database is said once.
func TestSearchSaysDamageOnce(t *testing.T) {
	vault, db := indexedVault(t)
	n := sharedtest.Pages(t, db)
	for p := n / 3; p < 2*n/3; p++ {
		sharedtest.DamagePage(t, db, p, 1)
	}
	code, stdout, stderr := jarvisIn(t, nil, func(e *env) { e.dbProbe = probeAs() },
		"search", "zephyr blows", "--vault", vault, "--db", db)
	if code != 0 {
		t.Fatalf("search: exit %d: %s", code, stderr)
	}
	all := stdout + stderr
	if got := strings.Count(all, "damaged"); got != 1 {
		t.Errorf("search says %d times that the database is damaged, want once:\n%s", got, all)
	}
	if strings.Contains(all, "level=") {
		t.Errorf("search prints a log line:\n%s", all)
	}
	if !strings.Contains(all, "--rebuild`") || !strings.Contains(all, "Note ") {
		t.Errorf("search lacks the fix or the results:\n%s", all)
	}
	// Why first, then what was read instead.
	if d, i := strings.Index(stdout, "damaged"), strings.Index(stdout, "instead"); d < 0 || i < 0 || i < d {
		t.Errorf("search says what it read instead before why:\n%s", stdout)
	}
}

// TestServerLogHasNoMark: the server's log reports a note indexed with a
// problem as a structured line, without the terminal's index.Reported
// mark, which means nothing to its reader.
func TestServerLogHasNoMark(t *testing.T) {
	vault := vaultWithProblems(t)
	logPath := filepath.Join(t.TempDir(), "log")
	serve(t, []string{"HOME=" + t.TempDir()}, "--vault", vault, "--db", filepath.Join(t.TempDir(), "j.db"), "--watch=false", "--log-file", logPath)
	var log string
	eventually(t, "the index pass to log the broken note", func() bool {
		data, _ := os.ReadFile(logPath)
		log = string(data)
		return strings.Contains(log, `path="Broken fm.md"`)
	})
	if strings.Contains(log, "reported") {
		t.Errorf("the server's log shows the terminal's mark:\n%s", log)
	}
}

// sqliteCodeError is an error as SQLite's driver gives it: its text ends
// with the result code, which the error also carries.
type sqliteCodeError int

func (e sqliteCodeError) Error() string { return fmt.Sprintf("database or disk is full (%d)", int(e)) }
func (e sqliteCodeError) Code() int     { return int(e) }

// TestLogSaysDatabaseTroubleInWords: the server's log and a command's
// warnings said "database or disk is full (13)" and "database is locked
// (5) (SQLITE_BUSY)"; they say the database's trouble as every command
// does (store.Said), and only a log of every detail keeps SQLite's words.
func TestLogSaysDatabaseTroubleInWords(t *testing.T) {
	full := fmt.Errorf("journal the write: %w", sqliteCodeError(13))
	for _, tc := range []struct {
		name  string
		h     func(*bytes.Buffer) slog.Handler
		debug bool
	}{
		{"server", func(b *bytes.Buffer) slog.Handler { return structuredHandler(b, slog.LevelInfo) }, false},
		{"terminal", func(b *bytes.Buffer) slog.Handler { return newTerminalHandler(b) }, false},
		{"verbose", func(b *bytes.Buffer) slog.Handler { return structuredHandler(b, slog.LevelDebug) }, true},
	} {
		var b bytes.Buffer
		slog.New(tc.h(&b)).Warn("a write was made but not recorded in the journal", "path", "Z.md", "err", full)
		got := b.String()
		if !strings.Contains(got, store.Said(full)) {
			t.Errorf("%s: the log lacks %q:\n%s", tc.name, store.Said(full), got)
		}
		if strings.Contains(got, "(13)") != tc.debug {
			t.Errorf("%s: SQLite's result code shown %v, want %v:\n%s", tc.name, !tc.debug, tc.debug, got)
		}
	}
}

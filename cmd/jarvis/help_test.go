package main

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/jarvis-mcp/jarvis/internal/config"
)

// TestHelpConfigNamesEveryFileKey checks that `jarvis help config` names
// every key the config file decoder accepts.
func TestHelpConfigNamesEveryFileKey(t *testing.T) {
	code, stdout, _ := jarvis(t, nil, "help", "config")
	if code != 0 {
		t.Fatalf("exit %d", code)
	}
	for _, k := range config.FileKeys() {
		if !strings.Contains(stdout, k) {
			t.Errorf("help config lacks the config file key %q", k)
		}
	}
}

// TestHelpConfigNamesEveryEnvironmentVariable reads the program's source
// for the environment variables it reads, and checks that `jarvis help
// config` names each: a variable read with a literal name
// (getenv("HOME")), or a constant named Env... or env... whose value is
// one. internal/sharedtest is left out: only tests import it.
func TestHelpConfigNamesEveryEnvironmentVariable(t *testing.T) {
	literal := regexp.MustCompile(`(?:[gG]etenv|LookupEnv)\("([^"]+)"\)`)
	constant := regexp.MustCompile(`\b[eE]nv\w*\s*=\s*"([A-Za-z_][A-Za-z0-9_]*)"`)
	read := map[string]string{} // variable -> a file that reads it
	root := filepath.Join("..", "..")
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if name := d.Name(); p != root && (strings.HasPrefix(name, ".") || name == "testdata" || name == "sharedtest") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
			return nil
		}
		src, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		for _, re := range []*regexp.Regexp{literal, constant} {
			for _, m := range re.FindAllStringSubmatch(string(src), -1) {
				read[m[1]] = p
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"JARVIS_VAULT", "HF_TOKEN", "HOME"} {
		if _, ok := read[want]; !ok {
			t.Fatalf("the source scan missed %s; found %v", want, read)
		}
	}
	_, stdout, _ := jarvis(t, nil, "help", "config")
	for v, file := range read {
		if !regexp.MustCompile(`\b` + v + `\b`).MatchString(stdout) {
			t.Errorf("help config lacks %s, which %s names", v, file)
		}
	}
}

// TestUsageLineListsEveryFlag checks, for every command and model
// subcommand, that the usage line of --help names each flag its flag list
// shows.
func TestUsageLineListsEveryFlag(t *testing.T) {
	listed := regexp.MustCompile(`(?m)^  (?:-\w, )?--([\w-]+)`)
	seen := 0
	for _, args := range helpCalls() {
		code, stdout, _ := jarvis(t, nil, args...)
		usage, rest, ok := strings.Cut(stdout, "\n\n")
		if code != 0 || !strings.HasPrefix(usage, "Usage: ") || !ok {
			t.Errorf("%v: exit %d, no usage line:\n%s", args, code, stdout)
			continue
		}
		_, flags, _ := strings.Cut(rest, "\nFlags:\n")
		for _, m := range listed.FindAllStringSubmatch(flags, -1) {
			seen++
			if !regexp.MustCompile(`\[--` + m[1] + `[ =\]]`).MatchString(usage) {
				t.Errorf("%v: the usage line lacks --%s:\n%s", args, m[1], usage)
			}
		}
	}
	if seen < 20 {
		t.Fatalf("read only %d flags from the flag lists; the test no longer parses them", seen)
	}
}

// helpCalls are the --help of every command and model subcommand.
func helpCalls() [][]string {
	var calls [][]string
	for _, c := range commands() {
		if c.name == "model" {
			for _, sub := range []string{"pull", "list", "rm"} {
				calls = append(calls, []string{"model", sub, "--help"})
			}
			continue
		}
		calls = append(calls, []string{c.name, "--help"})
	}
	return calls
}

// TestHelpLayout holds every help text to one layout: lines that fit an
// 80-column terminal, no "Flags:" heading over nothing, and value names
// that say what the value is (N, NUMBER, FILE) rather than the Go type
// the flag package names (int, float64, string, value).
func TestHelpLayout(t *testing.T) {
	goType := regexp.MustCompile(`--[\w-]+[ =](int|uint|float|float64|int64|string|value|duration|INT|UINT|FLOAT|FLOAT64|INT64|STRING|VALUE)\b`)
	calls := append(helpCalls(), []string{"--help"}, []string{"model", "--help"}, []string{"help", "config"})
	for _, args := range calls {
		code, stdout, _ := jarvis(t, nil, args...)
		if code != 0 {
			t.Errorf("%v: exit %d", args, code)
			continue
		}
		for i, line := range strings.Split(stdout, "\n") {
			if n := len([]rune(line)); n > helpWidth {
				t.Errorf("%v: line %d is %d characters, more than %d: %q", args, i+1, n, helpWidth, line)
			}
			if m := goType.FindString(line); m != "" {
				t.Errorf("%v: line %d names a Go type, %q: %q", args, i+1, m, line)
			}
		}
		if strings.HasSuffix(strings.TrimRight(stdout, "\n"), "Flags:") || strings.Contains(stdout, "Flags:\n\n") {
			t.Errorf("%v: a Flags: heading with no flags under it:\n%s", args, stdout)
		}
	}
}
